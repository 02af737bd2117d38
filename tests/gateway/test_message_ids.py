from __future__ import annotations

import os
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


def test_a_forked_process_makes_other_ids() -> None:
    # Gateways started by forking (uvicorn --workers) must not repeat each other's ids.
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: write its ids and leave at once
        os.write(write_end, "\n".join(new_message_ids(100)).encode())
        os._exit(0)
    os.close(write_end)
    parent_ids = set(new_message_ids(100))
    with os.fdopen(read_end, "rb") as pipe:
        child_ids = set(pipe.read().decode().split("\n"))
    os.waitpid(pid, 0)
    assert len(child_ids) == 100
    assert not parent_ids & child_ids
