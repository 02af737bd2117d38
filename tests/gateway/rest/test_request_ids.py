"""Request ids: version-4 UUIDs in the x-amzn-RequestId header, one per request."""

from __future__ import annotations

import uuid

import httpx

from gateway.message_ids import new_request_id


def test_request_ids_are_distinct_version_4_uuids() -> None:
    ids = [new_request_id() for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    for text in ids:
        parsed = uuid.UUID(text)
        assert str(parsed) == text
        assert parsed.version == 4
        assert parsed.variant == uuid.RFC_4122


def test_each_response_has_its_own_request_id(rest: httpx.Client) -> None:
    first = rest.get("/v1/queues")
    second = rest.get("/v1/queues/none/stats")
    assert second.status_code == 404
    ids = [first.headers.get_list("x-amzn-requestid"), second.headers.get_list("x-amzn-requestid")]
    assert [len(found) for found in ids] == [1, 1]  # exactly one header each
    assert uuid.UUID(ids[0][0]).version == uuid.UUID(ids[1][0]).version == 4
    assert ids[0] != ids[1]
