"""The Spark reader against Parquet, on the same records (docs/spark.md, "Speed").

    python -m loadtests.bench_spark [--millions 1] [--runs 3] [--s3-endpoint URL]

1. Writes N million records (256-byte bodies by default) into partition logs, sealing
   a segment every --segment-mb, and uploads each segment's three files to a
   local-directory archive (and, with --s3-endpoint, to S3), timing the uploads beside
   the disk's own write speed (the same bytes written and fsynced once).
2. Reads them once through the `tidemq` data source and writes them to Parquet.
3. Scans each source --runs times (after --warmup unmeasured scans, for the JVM's JIT),
   alternating, with a query that touches every body (sum(length(body))), in local[2],
   and prints the median rows/s of each and the ratio. The sources: `tidemq` with all
   its columns; `tidemq` asked for two columns (`.schema("offset bigint, body binary")`);
   a ceiling, a Python data source with the same input partitions and rows that yields
   prebuilt Arrow batches (no fetch, no decode: what PySpark's Python data source path
   costs by itself); and Parquet.

Bounded: the archive is built once, every query is a full scan of a fixed table, and
everything lives under a temporary directory removed at the end (unless --keep).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as sf
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from pyspark.sql.types import StructType

from spark.datasource import TideMQReader, register
from spark.options import parse_options
from spark.schema import SCHEMA
from spark.segment_partition import SegmentPartition, read_partition
from storage_nodes.archive.object_store import ObjectStore
from storage_nodes.archive.stores import S3Options, open_store
from storage_nodes.log.partition_log import LogConfig, PartitionLog, SegmentInfo
from storage_nodes.log.record import RecordIn
from tests.spark.archive_builder import Archive, ArchivedStream

_CONCURRENT_APPENDS = 256


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    records = int(args.millions * 1_000_000)
    root = Path(tempfile.mkdtemp(prefix="bench-spark-", dir=args.work_dir))
    try:
        return _run(args, records, root)
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


def _run(args: argparse.Namespace, records: int, root: Path) -> int:
    archive = Archive(root)
    stream = archive.create_stream("bench", partitions=args.partitions)
    print(f"writing {records:,} records of {args.body_bytes} bytes, {args.batch_records} per batch")
    started = time.perf_counter()
    sealed = asyncio.run(_write_logs(stream, records, args))
    segment_bytes = sum(info.log_path.stat().st_size for infos in sealed.values() for info in infos)
    print(
        f"  {sum(map(len, sealed.values()))} segments, {segment_bytes / 1e6:,.0f} MB, "
        f"in {time.perf_counter() - started:.1f} s"
    )
    _report_uploads(archive, stream, sealed, root, args)

    spark = _session(args)
    try:
        source = (
            spark.read.format("tidemq").option("path", archive.url).option("queue", "bench").load()
        )
        parquet_path = str(root / "parquet")
        started = time.perf_counter()
        source.write.parquet(parquet_path)
        print(f"wrote Parquet once in {time.perf_counter() - started:.1f} s")
        parquet = spark.read.parquet(parquet_path)
        projected = (
            spark.read.format("tidemq")
            .schema("offset bigint, body binary")
            .option("path", archive.url)
            .option("queue", "bench")
            .load()
        )
        ceiling = (
            spark.read.format(PrebuiltSource.name())
            .option("path", archive.url)
            .option("queue", "bench")
            .load()
        )
        sources = {
            "tidemq": source,
            "tidemq (2 columns)": projected,
            "ceiling (no fetch, no decode)": ceiling,
            "parquet": parquet,
        }
        print(f"warming up the JVM: {args.warmup} scan(s) of each")
        for _ in range(args.warmup):
            for df in sources.values():
                _scan(df, records)
        rates: dict[str, list[float]] = {name: [] for name in sources}
        for run in range(1, args.runs + 1):
            for name, df in sources.items():
                rates[name].append(_scan(df, records))
            print(
                f"run {run}/{args.runs}: "
                + ", ".join(f"{name} {r[-1] / 1e6:.2f}" for name, r in rates.items())
                + " M rows/s"
            )
        median = {name: statistics.median(r) for name, r in rates.items()}
        for name, rate in median.items():
            print(
                f"median {name}: {rate / 1e6:.2f} M rows/s, "
                f"{rate / median['parquet']:.2f} of Parquet"
            )
        print(f"ratio tidemq / parquet: {median['tidemq'] / median['parquet']:.2f} (target >= 0.5)")
    finally:
        spark.stop()
    return 0


async def _write_logs(
    stream: ArchivedStream, records: int, args: argparse.Namespace
) -> dict[int, list[SegmentInfo]]:
    config = LogConfig(durability="none", segment_max_bytes=args.segment_mb * 1024 * 1024)
    body = os.urandom(args.body_bytes)
    sealed: dict[int, list[SegmentInfo]] = {}
    per_partition = -(-records // args.partitions)
    for partition in range(args.partitions):
        directory = stream.archive.logs / stream.stream_id / str(partition)
        directory.mkdir(parents=True)
        log = await PartitionLog.open(directory, config)
        count = min(per_partition, records - partition * per_partition)
        batches = [
            [
                RecordIn(f"{i:036d}", 1_764_000_000_000 + i // 1000, body)
                for i in range(start, min(start + args.batch_records, count))
            ]
            for start in range(0, count, args.batch_records)
        ]
        for chunk in range(0, len(batches), _CONCURRENT_APPENDS):
            await asyncio.gather(
                *(log.append(b) for b in batches[chunk : chunk + _CONCURRENT_APPENDS])
            )
        await log.roll()
        sealed[partition] = log.sealed_segments()
        await log.close()
    return sealed


def _report_uploads(
    archive: Archive,
    stream: ArchivedStream,
    sealed: dict[int, list[SegmentInfo]],
    root: Path,
    args: argparse.Namespace,
) -> None:
    files = [
        path
        for infos in sealed.values()
        for info in infos
        for path in (info.log_path, info.offset_index_path, info.time_index_path)
    ]
    total = sum(path.stat().st_size for path in files)
    disk = _timed(lambda: _write_and_fsync(root / "disk-speed", total))
    print(
        f"disk: wrote and fsynced {total / 1e6:,.0f} MB: "
        f"{total / disk / 1e6:,.0f} MB/s ({disk:.2f} s)"
    )
    local = _timed(lambda: [stream.tier(p, infos) for p, infos in sealed.items()])
    print(f"upload to the local store: {total / local / 1e6:,.0f} MB/s ({local:.2f} s)")
    if args.s3_endpoint:
        store = open_store(
            f"s3://{args.s3_bucket}/bench",
            S3Options(endpoint_url=args.s3_endpoint, region=args.s3_region),
        )
        s3 = _timed(lambda: _upload_all(store, files))
        print(f"upload to S3 at {args.s3_endpoint}: {total / s3 / 1e6:,.0f} MB/s ({s3:.2f} s)")


def _upload_all(store: ObjectStore, files: list[Path]) -> None:
    for path in files:
        store.put_file(f"{path.parent.parent.name}/{path.parent.name}/{path.name}", path)


def _write_and_fsync(path: Path, size: int) -> None:
    chunk = os.urandom(1 << 20)
    with path.open("wb") as file:
        for _ in range(size >> 20):
            file.write(chunk)
        file.write(chunk[: size & ((1 << 20) - 1)])
        file.flush()
        os.fsync(file.fileno())
    path.unlink()


def _scan(df: DataFrame, records: int) -> float:
    """Rows per second of a full scan that reads every body."""
    started = time.perf_counter()
    row = df.agg(sf.count(sf.lit(1)).alias("n"), sf.sum(sf.length("body")).alias("bytes")).first()
    elapsed = time.perf_counter() - started
    assert row is not None
    assert row["n"] == records, row
    return records / elapsed


def _timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _session(args: argparse.Namespace) -> SparkSession:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master(args.master)
        .appName("bench_spark")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    register(spark)
    spark.dataSource.register(PrebuiltSource)
    return spark


class PrebuiltSource(DataSource):
    """The ceiling: `tidemq`'s input partitions and row counts, yielded from one Arrow
    batch decoded once per worker process."""

    @classmethod
    def name(cls) -> str:
        return "tidemq_prebuilt"

    def schema(self) -> StructType:
        return SCHEMA

    def reader(self, schema: StructType) -> DataSourceReader:
        return _PrebuiltReader(TideMQReader(parse_options(self.options), schema))


class _PrebuiltReader(DataSourceReader):
    def __init__(self, planner: TideMQReader) -> None:
        self.planner = planner

    def partitions(self) -> Sequence[InputPartition]:
        return self.planner.partitions()

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, SegmentPartition)
        template = _TEMPLATES.get("batch")
        if template is None:
            template = next(read_partition(self.planner.options, SCHEMA, partition))
            _TEMPLATES["batch"] = template
        rows = partition.segment.end_offset - partition.segment.first_offset
        while rows > 0:
            batch = template.slice(0, min(rows, template.num_rows))
            rows -= batch.num_rows
            yield batch


_TEMPLATES: dict[str, pa.RecordBatch] = {}  # per worker process: Spark reuses them


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m loadtests.bench_spark", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--millions", type=float, default=1.0, help="records, in millions (1)")
    parser.add_argument("--body-bytes", type=int, default=256, help="bytes per body (256)")
    parser.add_argument("--batch-records", type=int, default=10, help="records per batch (10)")
    parser.add_argument("--partitions", type=int, default=1, help="stream partitions (1)")
    parser.add_argument("--segment-mb", type=int, default=64, help="segment size, MiB (64)")
    parser.add_argument("--runs", type=int, default=5, help="measured scans of each (5)")
    parser.add_argument("--warmup", type=int, default=3, help="unmeasured scans first (3)")
    parser.add_argument("--master", default="local[2]", help="Spark master (local[2])")
    parser.add_argument("--work-dir", help="where to make the temporary directory")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("--s3-endpoint", help="also upload to this S3 endpoint (moto, MinIO)")
    parser.add_argument("--s3-bucket", default="tidemq-bench", help="bucket (must exist)")
    parser.add_argument("--s3-region", default="us-east-1")
    return parser


if __name__ == "__main__":
    sys.exit(main())
