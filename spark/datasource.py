"""`spark.read.format("tidemq")`: a PySpark Python data source over TideMQ's archive.

    df = (spark.read.format("tidemq")
          .option("path", "s3://bucket/prefix")     # or file:///dir for a local archive
          .option("account", "123456789012")
          .option("queue", "orders")                 # or "topic"
          .load())

Registration: PySpark 4 registers by itself the `DefaultSource` of every importable
top-level module named `pyspark_*`; the `pyspark_tidemq` module installed beside this
package is that hook, so `format("tidemq")` works in any session of an environment where
TideMQ is installed. `register(spark)` does it explicitly.

Planning (on the driver, in PySpark's planner process): find the stream, read its
partitions' manifests, prune by the bounds, cut segments into slices
(spark/archive_reader.py). Reading (in the tasks): one ranged GET per slice, decoded into
Arrow batches (spark/arrow_decode.py). Clients are opened in `read()`, never held by the
objects Spark pickles. The streaming reader is spark/stream_reader.py.

Filter pushdown is opt-in (`filter_pushdown=true`, and Spark's
`spark.sql.python.filterPushdown.enabled`): Spark 4.3 keeps the plan a pushdown made on
the relation, and reuses it for a later scan of the same DataFrame that pushes nothing,
which then reads only what the earlier filters let through. The options' bounds are part
of the relation, so pruning by them is always safe.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pyarrow as pa
from pyspark.sql import SparkSession
from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    Filter,
    InputPartition,
)
from pyspark.sql.types import StructType

from spark import bounds as pushdown
from spark.archive_reader import find_stream, plan_slices, read_manifests
from spark.errors import OptionError
from spark.options import ReadOptions, parse_options
from spark.schema import SCHEMA, check_projection
from spark.segment_partition import SegmentPartition, open_archive, read_partition
from spark.stream_reader import TideMQStreamReader

FORMAT = "tidemq"
PUSHDOWN_CONF = "spark.sql.python.filterPushdown.enabled"


class TideMQDataSource(DataSource):
    """The `tidemq` format: batch reads and streaming reads of one archived stream."""

    @classmethod
    def name(cls) -> str:
        return FORMAT

    def schema(self) -> StructType:
        return SCHEMA

    def reader(self, schema: StructType) -> DataSourceReader:
        options = _options(self.options, schema)
        if options.filter_pushdown and not _planned_without_pushdown():
            return TideMQFilteringReader(options, schema)
        return TideMQReader(options, schema)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:  # noqa: N802
        return TideMQStreamReader(_options(self.options, schema), schema)


class TideMQReader(DataSourceReader):
    """Prunes by the options' bounds only."""

    def __init__(self, options: ReadOptions, schema: StructType) -> None:
        self.options = options
        self.schema = schema
        self.bounds = options.bounds

    def partitions(self) -> Sequence[InputPartition]:
        store = open_archive(self.options.url, self.options.s3)
        stream = find_stream(store, self.options)
        manifests = read_manifests(store, stream, self.bounds)
        slices = plan_slices(
            store, stream.stream_id, manifests, self.bounds, self.options.max_split_bytes
        )
        return [SegmentPartition.of(stream, s) for s in slices]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        return read_partition(self.options, self.schema, partition)


class TideMQFilteringReader(TideMQReader):
    """Also prunes by the filters Spark pushes on partition, offset and timestamp, and
    applies them exactly (a filter it reports as handled is not evaluated again)."""

    def pushFilters(self, filters: list[Filter]) -> list[Filter]:  # noqa: N802 (Spark's name)
        bounds, remaining = pushdown.push(filters)
        self.bounds = self.bounds.intersect(bounds)
        return remaining


def register(spark: SparkSession, *, filter_pushdown: bool = False) -> None:
    """Registers the `tidemq` format in `spark` (needed only where PySpark does not find
    `pyspark_tidemq` by itself). With `filter_pushdown`, also turns on Spark's Python filter
    pushdown for the session, which readers with the `filter_pushdown` option use."""
    if filter_pushdown:
        spark.conf.set(PUSHDOWN_CONF, "true")
    spark.dataSource.register(TideMQDataSource)


def _options(options: Mapping[str, str], schema: StructType) -> ReadOptions:
    try:
        check_projection(schema)
    except ValueError as exc:
        raise OptionError(str(exc)) from None
    return parse_options(options)


def _planned_without_pushdown() -> bool:
    """Whether PySpark asks for the reader in its plain planner, which it uses when
    `spark.sql.python.filterPushdown.enabled` is off (or there is nothing to push).

    That planner refuses a reader that overrides `pushFilters` while pushdown is off
    (DATA_SOURCE_PUSHDOWN_DISABLED) rather than ignoring it, and it is the only caller
    that does not then call `pushFilters`; so there, and only there, the reader without
    the hook is returned, and the `filter_pushdown` option works whatever the setting.
    Were the planner renamed in a later PySpark, the filtering reader would be returned
    and PySpark's error would name the setting to turn on.
    """
    caller = sys._getframe(2)  # reader() is frame 1
    return Path(caller.f_code.co_filename).name == "plan_data_source_read.py"
