"""Any interleaving of appends, rolls, clock moves, reopens and retention keeps offsets dense
and every read equal to what was appended (hypothesis, rule-based)."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Coroutine
from itertools import pairwise
from pathlib import Path
from typing import Any, TypeVar

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from storage_nodes.log.partition_log import Durability, LogConfig, PartitionLog
from storage_nodes.log.record import Record, RecordIn

from .conftest import BASE_TS, FakeClock, as_stored, make_record

T = TypeVar("T")


class PartitionLogMachine(RuleBasedStateMachine):
    """The model is a dict offset -> record of what is retained, plus [start, end)."""

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.directory = Path(tempfile.mkdtemp(prefix="partition-log-"))
        self.clock = FakeClock()
        self.model: dict[int, RecordIn] = {}
        self.start = self.end = self.made = 0
        self.log: PartitionLog | None = None
        self.config = LogConfig()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(coroutine)

    @property
    def plog(self) -> PartitionLog:
        assert self.log is not None
        return self.log

    @initialize(
        durability=st.sampled_from(["fsync", "interval", "none"]),
        segment_max_bytes=st.integers(300, 3000),
        index_interval_bytes=st.integers(1, 800),
    )
    def open_log(
        self, durability: Durability, segment_max_bytes: int, index_interval_bytes: int
    ) -> None:
        self.config = LogConfig(
            durability=durability,
            segment_max_bytes=segment_max_bytes,
            index_interval_bytes=index_interval_bytes,
            segment_max_age_ms=60_000,
        )
        self.log = self.run(PartitionLog.open(self.directory, self.config, now_ms=self.clock))

    def teardown(self) -> None:
        try:
            if self.log is not None:
                self.run(self.log.close())
        finally:
            self.loop.close()
            shutil.rmtree(self.directory, ignore_errors=True)

    async def append_all(self, batches: list[list[RecordIn]]) -> list[int]:
        return await asyncio.gather(*(self.plog.append(batch) for batch in batches))

    def new_record(self, size: int, ts_step: int) -> RecordIn:
        self.made += 1
        return make_record(
            self.made, ts=self.clock.now + ts_step, size=size, rich=self.made % 3 == 0
        )

    # -- changes ---------------------------------------------------------------------------

    @rule(
        batches=st.lists(
            st.lists(
                st.tuples(st.integers(0, 400), st.integers(-5_000, 5_000)), min_size=1, max_size=4
            ),
            min_size=1,
            max_size=6,
        )
    )
    def append_concurrently(self, batches: list[list[tuple[int, int]]]) -> None:
        made = [[self.new_record(size, step) for size, step in batch] for batch in batches]
        bases = self.run(self.append_all(made))
        for base, batch in zip(bases, made, strict=True):
            for i, record in enumerate(batch):
                assert base + i not in self.model
                self.model[base + i] = record
        self.end += sum(len(batch) for batch in made)

    @rule()
    def roll(self) -> None:
        self.run(self.plog.roll())

    @rule(ms=st.integers(0, 90_000))
    def clock_moves(self, ms: int) -> None:
        self.clock.advance(ms)

    @rule()
    def reopen(self) -> None:
        self.run(self.plog.close())
        self.log = self.run(PartitionLog.open(self.directory, self.config, now_ms=self.clock))

    @rule(data=st.data())
    def delete_below(self, data: st.DataObject) -> None:
        floor = data.draw(st.integers(self.start, self.end + 5))
        sealed = self.plog.sealed_segments()
        expected = len([s for s in sealed if s.end_offset <= floor])  # a prefix, by offset
        assert self.run(self.plog.delete_segments_below(floor)) == expected
        self.forget_below(self.plog.start_offset)

    @rule(data=st.data())
    def delete_older_than(self, data: st.DataObject) -> None:
        sealed = self.plog.sealed_segments()
        for info in sealed:  # what tiering will trust must be true
            stamps = [self.model[o].timestamp_ms for o in range(info.base_offset, info.end_offset)]
            assert info.max_timestamp_ms == max(stamps)
            assert info.first_timestamp_ms == stamps[0]
        cutoff = data.draw(st.integers(BASE_TS - 10_000, self.clock.now + 10_000))
        expected = 0
        for info in sealed:
            assert info.max_timestamp_ms is not None
            if info.max_timestamp_ms >= cutoff:
                break
            expected += 1
        assert self.run(self.plog.delete_segments_older_than(cutoff)) == expected
        self.forget_below(self.plog.start_offset)

    def forget_below(self, start: int) -> None:
        assert start >= self.start
        for offset in range(self.start, start):
            del self.model[offset]
        self.start = start

    # -- reads -----------------------------------------------------------------------------

    @rule(data=st.data(), max_records=st.integers(1, 20), max_bytes=st.integers(0, 3000))
    def read(self, data: st.DataObject, max_records: int, max_bytes: int) -> None:
        offset = data.draw(st.integers(self.start - 3, self.end + 3))
        got = self.run(self.plog.read(offset, max_records, max_bytes))
        expected: list[Record] = []
        budget = max_bytes
        for o in range(max(offset, self.start), self.end):
            size = len(self.model[o].body)
            if len(expected) == max_records or (size > budget and expected):
                break
            expected.append(as_stored(self.model[o], o))
            budget -= size
        assert got == expected

    @precondition(lambda self: self.end > 0)
    @rule(data=st.data())
    def read_offsets(self, data: st.DataObject) -> None:
        wanted = data.draw(st.lists(st.integers(-2, self.end + 2), max_size=8))
        got = self.run(self.plog.read_offsets(wanted))
        assert got == {o: as_stored(self.model[o], o) for o in wanted if o in self.model}

    @rule(data=st.data())
    def offset_for_timestamp(self, data: st.DataObject) -> None:
        target = data.draw(st.integers(BASE_TS - 10_000, self.clock.now + 10_000))
        expected = next(
            (o for o in range(self.start, self.end) if self.model[o].timestamp_ms >= target),
            self.end,
        )
        assert self.run(self.plog.offset_for_timestamp(target)) == expected

    @invariant()
    def offsets_are_dense(self) -> None:
        if self.log is None:
            return
        assert (self.plog.start_offset, self.plog.end_offset) == (self.start, self.end)
        assert sorted(self.model) == list(range(self.start, self.end))
        sealed = self.plog.sealed_segments()
        bounds = [(s.base_offset, s.end_offset) for s in sealed]
        assert all(a[1] == b[0] for a, b in pairwise(bounds))
        assert not sealed or sealed[0].base_offset == self.start


PartitionLogMachine.TestCase.settings = settings(
    max_examples=50, stateful_step_count=30, deadline=None
)
TestPartitionLog = PartitionLogMachine.TestCase
