"""spark.readStream.format("tidemq"): newly tiered segments, each row exactly once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

from tests.spark.archive_builder import Archive, ArchivedStream, record
from tests.spark.conftest import rows


class Query:
    """A streaming query from the stream into Parquet, run to completion each time with
    Trigger.AvailableNow over the same checkpoint, as a scheduled job would."""

    def __init__(self, spark: SparkSession, stream: ArchivedStream, root: Path, **options: Any):
        self.spark = spark
        self.stream = stream
        self.output = root / "out"
        self.checkpoint = root / "checkpoint"
        self.options = {
            "path": stream.archive.url,
            "account": stream.account_id,
            "queue": stream.name,
            **options,
        }

    def run(self) -> None:
        reader = self.spark.readStream.format("tidemq")
        for key, value in self.options.items():
            reader = reader.option(key, str(value))
        query = (
            reader.load()
            .writeStream.format("parquet")
            .option("path", str(self.output))
            .option("checkpointLocation", str(self.checkpoint))
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination(120)
        assert not query.isActive
        assert query.exception() is None

    def rows(self) -> list[tuple[object, ...]]:
        if not self.output.exists():
            return []
        return rows(self.spark.read.parquet(str(self.output)))

    def offsets(self) -> list[dict[str, Any]]:
        """The source offsets Spark checkpointed, one per micro-batch, in order."""
        batches = sorted(
            (p for p in (self.checkpoint / "offsets").iterdir() if p.name.isdigit()),
            key=lambda p: int(p.name),
        )
        return [json.loads(p.read_text().splitlines()[-1]) for p in batches]


def test_new_segments_arrive_exactly_once_and_offsets_advance(
    spark_session: SparkSession, archive: Archive, tmp_path: Path
) -> None:
    stream = archive.create_stream("orders", partitions=2)
    stream.add_segment(0, [[record(0), record(1)], [record(2)]])
    query = Query(spark_session, stream, tmp_path)

    query.run()
    assert query.rows() == stream.rows()
    first = query.offsets()
    assert first[-1]["offsets"] == {"0": 3, "1": 0}
    assert first[-1]["stream_id"] == stream.stream_id

    stream.add_segment(0, [[record(3)]])
    stream.add_segment(1, [[record(4), record(5)]])
    query.run()
    assert query.rows() == stream.rows()  # every row once: none again, none lost
    assert query.offsets()[-1]["offsets"] == {"0": 4, "1": 2}
    assert len(query.offsets()) == len(first) + 1

    query.run()  # nothing new: no micro-batch, no row
    assert len(query.offsets()) == len(first) + 1
    assert query.rows() == stream.rows()


def test_a_micro_batch_takes_at_most_max_segments_per_trigger(
    spark_session: SparkSession, archive: Archive, tmp_path: Path
) -> None:
    stream = archive.create_stream("orders")
    for i in range(3):
        stream.add_segment(0, [[record(i)]])
    query = Query(spark_session, stream, tmp_path, max_segments_per_trigger=1)

    query.run()

    assert [o["offsets"]["0"] for o in query.offsets()] == [1, 2, 3]
    assert query.rows() == stream.rows()


def test_latest_starts_after_what_is_archived_when_the_query_starts(
    spark_session: SparkSession, archive: Archive, tmp_path: Path
) -> None:
    stream = archive.create_stream("orders")
    stream.add_segment(0, [[record(0)]])
    query = Query(spark_session, stream, tmp_path, starting_position="latest")

    query.run()
    assert query.rows() == []

    stream.add_segment(0, [[record(1)]])
    query.run()
    assert query.rows() == stream.rows()[1:]
