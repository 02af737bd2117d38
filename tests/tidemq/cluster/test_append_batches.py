"""AppendBatches over an in-memory log standing in for a node: what goes in each request."""

from __future__ import annotations

import asyncio

import pytest

from storage_nodes.node import RecordIn, StorageUnavailable
from tidemq.cluster.append_batches import AppendBatches, NotSent


class MemoryLog:
    """Appends each request's records after the last, a little later, as a node would."""

    def __init__(self) -> None:
        self.records: list[RecordIn] = []
        self.requests: list[int] = []  # records per request
        self.release = asyncio.Event()
        self.release.set()

    async def send(self, key: str, records: list[RecordIn]) -> int:
        self.requests.append(len(records))
        await self.release.wait()
        await asyncio.sleep(0.005)
        offset = len(self.records)
        self.records.extend(records)
        return offset


def _records(count: int, body: bytes = b"x") -> list[RecordIn]:
    return [RecordIn(f"m{i}", 1_700_000_000_000, body) for i in range(count)]


async def test_requests_stay_within_the_record_bound_and_never_split_an_append() -> None:
    log = MemoryLog()
    batches = AppendBatches(log.send, max_records=5)
    sizes = [1, 2, 2, 7, 1, 3, 3, 1]
    offsets = await asyncio.gather(*(batches.append("p", _records(n)) for n in sizes))
    # All wait together (none was out): 1+2+2, then 7 alone (over the bound by itself).
    assert log.requests == [5, 7, 4, 4]
    assert offsets == [0, 1, 3, 5, 12, 13, 16, 19]


async def test_requests_stay_within_the_byte_bound() -> None:
    log = MemoryLog()
    batches = AppendBatches(log.send, max_bytes=3_000)
    await asyncio.gather(*(batches.append("p", _records(1, b"b" * 1_000)) for _ in range(7)))
    assert log.requests == [2, 2, 2, 1]  # about 1 064 bytes each


async def test_partitions_are_coalesced_apart_and_in_flight_bound_holds() -> None:
    log = MemoryLog()
    log.release.clear()
    batches = AppendBatches(log.send, max_in_flight=2)
    calls = []
    for count in (1, 1, 3):  # per partition: one out, a second out, then three waiting
        for key in "ab":
            calls += [asyncio.create_task(batches.append(key, _records(1))) for _ in range(count)]
        await asyncio.sleep(0)
    log.release.set()
    offsets = await asyncio.gather(*calls)
    assert log.requests == [1, 1, 1, 1, 3, 3]
    assert sorted(offsets) == list(range(10))  # one log for both keys here


async def test_a_cancelled_caller_is_left_out_and_others_go_on() -> None:
    log = MemoryLog()
    log.release.clear()
    batches = AppendBatches(log.send)
    first = asyncio.create_task(batches.append("p", _records(1)))
    await asyncio.sleep(0)
    left = asyncio.create_task(batches.append("p", _records(2)))
    kept = asyncio.create_task(batches.append("p", _records(3)))
    await asyncio.sleep(0)
    left.cancel()
    log.release.set()
    assert (await first, await kept) == (0, 1)
    assert log.requests == [1, 3]


async def test_closing_fails_the_appends_out_and_waiting() -> None:
    log = MemoryLog()
    log.release.clear()
    batches = AppendBatches(log.send)
    calls = [asyncio.create_task(batches.append("p", _records(1))) for _ in range(3)]
    await asyncio.sleep(0.01)
    await batches.close()
    for call in calls:
        with pytest.raises(StorageUnavailable, match="shutting down"):
            await call
    with pytest.raises(StorageUnavailable):
        await batches.append("p", _records(1))


async def test_an_append_still_waiting_after_its_patience_is_withdrawn_unwritten() -> None:
    log = MemoryLog()
    log.release.clear()  # the first request goes out and is not answered
    batches = AppendBatches(log.send)
    first = asyncio.create_task(batches.append("p", _records(1)))
    await asyncio.sleep(0.01)
    with pytest.raises(NotSent):
        await batches.append("p", _records(2), patience_s=0.05)
    log.release.set()
    assert await first == 0
    # The withdrawn append went in no request; the next one goes on from the first.
    assert await batches.append("p", _records(1), patience_s=0.05) == 1
    assert log.requests == [1, 1]
    assert len(log.records) == 2
