"""One Spark input partition (a slice of one archived segment), and how a task reads it.

Shared by the batch reader (datasource.py) and the streaming reader (stream_reader.py).
The partition holds only plain values; the object store is opened in the task.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

import pyarrow as pa
from pyspark.sql.datasource import InputPartition
from pyspark.sql.types import StructType

from spark.archive_reader import SegmentSlice, StreamInfo, fetch_slice
from spark.arrow_decode import StreamColumns, decode_slice
from spark.options import ReadOptions
from spark.schema import arrow_schema
from storage_nodes.archive.object_store import ObjectStore
from storage_nodes.archive.stores import S3Options, open_store


class SegmentPartition(InputPartition):
    """A slice of one archived segment (also its `value`), and the stream's columns."""

    def __init__(self, segment: SegmentSlice, columns: StreamColumns) -> None:
        super().__init__(segment)
        self.segment = segment
        self.columns = columns

    @classmethod
    def of(cls, stream: StreamInfo, segment: SegmentSlice) -> SegmentPartition:
        return cls(segment, StreamColumns(stream.account_id, stream.name, segment.partition))


def read_partition(
    options: ReadOptions, schema: StructType, partition: InputPartition
) -> Iterator[pa.RecordBatch]:
    """The Arrow batches of one planned slice, with the columns of `schema` (nothing for
    the placeholder partition that Spark plans when there is nothing to read)."""
    if not isinstance(partition, SegmentPartition):
        return iter(())
    return read_slice(open_archive(options.url, options.s3), partition, schema)


def read_slice(
    store: ObjectStore, partition: SegmentPartition, schema: StructType
) -> Iterator[pa.RecordBatch]:
    """Fetches the slice (one ranged GET) and decodes it."""
    data = fetch_slice(store, partition.segment)
    where = f"{store.url}/{partition.segment.key}"
    return decode_slice(data, partition.segment, partition.columns, where, arrow_schema(schema))


@functools.lru_cache(maxsize=8)
def open_archive(url: str, s3: S3Options) -> ObjectStore:
    """One store per archive per process: Spark reuses its Python workers, and an S3
    client is worth keeping."""
    return open_store(url, s3)
