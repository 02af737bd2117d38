from __future__ import annotations

import uuid

from gateway.message_ids import new_message_ids


def test_ids_are_version_4_uuids() -> None:
    for text in new_message_ids(500):
        parsed = uuid.UUID(text)
        assert str(parsed) == text
        assert parsed.version == 4
        assert parsed.variant == uuid.RFC_4122


def test_ids_differ() -> None:
    ids = new_message_ids(10_000)
    assert len(set(ids)) == len(ids)
    assert new_message_ids(0) == []
