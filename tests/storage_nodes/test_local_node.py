from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from storage_nodes.local_node import LocalNode
from storage_nodes.node import RecordIn, StreamDropped


def _record(body: bytes) -> RecordIn:
    return RecordIn(message_id="m-" + body.decode(), timestamp_ms=1_700_000_000_000, body=body)


async def test_appends_are_read_back_by_offset_and_survive_reopening(tmp_path: Path) -> None:
    node = LocalNode(tmp_path)
    assert await node.end_offset("s1", 0) == 0
    # Concurrent first uses of one partition open it once.
    bases = await asyncio.gather(*(node.append("s1", 0, [_record(b"%d" % i)]) for i in range(5)))
    assert sorted(bases) == [0, 1, 2, 3, 4]
    await node.close()

    reopened = LocalNode(tmp_path)
    assert await reopened.end_offset("s1", 0) == 5
    found = await reopened.read_offsets("s1", 0, [4, 1, 9])
    assert sorted(found) == [1, 4]
    assert found[4].offset == 4
    await reopened.close()


async def test_a_dropped_stream_is_gone_from_disk(tmp_path: Path) -> None:
    node = LocalNode(tmp_path)
    await node.append("gone", 0, [_record(b"x")])
    await node.append("kept", 0, [_record(b"y")])
    await node.drop_stream("gone")
    assert not (tmp_path / "streams" / "gone").exists()
    with pytest.raises(StreamDropped):
        await node.end_offset("gone", 0)
    assert await node.end_offset("kept", 0) == 1
    await node.close()


async def test_uses_racing_a_drop_do_not_bring_the_stream_back(tmp_path: Path) -> None:
    node = LocalNode(tmp_path)
    await node.append("gone", 0, [_record(b"x")])
    racing = [node.end_offset("gone", p) for p in range(4)]
    racing += [node.read_offsets("gone", 0, [0]), node.append("gone", 1, [_record(b"y")])]
    results = await asyncio.gather(node.drop_stream("gone"), *racing, return_exceptions=True)
    assert results[0] is None
    assert all(isinstance(r, StreamDropped) for r in results[1:]), results
    await node.close()
    assert not (tmp_path / "streams" / "gone").exists()


@pytest.mark.parametrize("stream_id", ["../escape", "", "a/b", "x" * 65])
async def test_stream_ids_cannot_leave_the_data_directory(tmp_path: Path, stream_id: str) -> None:
    node = LocalNode(tmp_path)
    with pytest.raises(ValueError, match="invalid stream id"):
        await node.append(stream_id, 0, [_record(b"x")])
    await node.close()
