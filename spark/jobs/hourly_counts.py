"""Hourly message counts by queue and by the value of one message attribute, to Parquet.

    python -m spark.jobs.hourly_counts --path file:///var/lib/tidemq/archive \\
        --queue orders --queue payments --attribute tier --output /tmp/counts

One row per (hour, account, queue, attribute value):

    hour       timestamp  start of the hour (UTC)
    account    string
    queue      string
    attribute  string     the attribute's name (the same in every row)
    value      string     its StringValue (String and Number attributes), the BinaryValue
                          in base64 (Binary ones), null where a message lacks it
    messages   bigint
    bytes      bigint     total body bytes

--start / --end bound the hours read (and prune whole segments before any is fetched).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from functools import reduce

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as sf

from spark.jobs.common import (
    OK,
    JobError,
    add_archive_arguments,
    find_queue,
    main_with,
    progress,
    read_queue,
    reader_options,
    say,
)


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m spark.jobs.hourly_counts",
        description=__doc__.split("\n\n")[0],
        epilog="Output columns: hour, account, queue, attribute, value, messages, bytes.",
    )
    add_archive_arguments(parser)
    parser.add_argument(
        "--queue", action="append", required=True, help="a queue to count (repeatable)"
    )
    parser.add_argument("--attribute", required=True, help="the message attribute to count by")
    parser.add_argument("--output", required=True, help="Parquet directory to write")
    parser.add_argument(
        "--mode",
        choices=("error", "overwrite"),
        default="error",
        help="if --output exists: fail (default) or replace it",
    )
    return parser


def counts(df: DataFrame, attribute: str) -> DataFrame:
    """The hourly counts of one queue's DataFrame (as the data source returns it)."""
    value = df["attributes"].getItem(attribute)
    return (
        df.select(
            sf.date_trunc("hour", "timestamp").alias("hour"),
            "account",
            "queue",
            sf.coalesce(value["string_value"], sf.base64(value["binary_value"])).alias("value"),
            sf.length("body").alias("body_bytes"),
        )
        .groupBy("hour", "account", "queue", "value")
        .agg(sf.count(sf.lit(1)).alias("messages"), sf.sum("body_bytes").alias("bytes"))
        .select(
            "hour",
            "account",
            "queue",
            sf.lit(attribute).alias("attribute"),
            "value",
            "messages",
            "bytes",
        )
    )


def check(args: argparse.Namespace) -> None:
    """Every queue is in the archive (raises StreamNotFound, ... otherwise)."""
    for queue in args.queue:
        find_queue(reader_options(args, queue))


def run(spark: SparkSession, args: argparse.Namespace) -> int:
    frames = []
    for queue in args.queue:
        options = reader_options(args, queue)
        stream = find_queue(options)
        df = read_queue(spark, options)
        say(
            f"{queue}: stream {stream.stream_id}, {stream.partitions} partition(s), "
            f"{df.rdd.getNumPartitions()} segment slice(s) to read"
        )
        frames.append(counts(df, args.attribute))
    if not frames:
        raise JobError("no --queue given")
    result = reduce(DataFrame.unionByName, frames).orderBy("hour", "account", "queue", "value")
    with progress(spark, f"counting into {args.output}"):
        result.write.mode(args.mode).parquet(args.output)
    written = spark.read.parquet(args.output)
    total = written.agg(sf.sum("messages")).first()
    say(
        f"wrote {written.count()} rows ({total[0] if total and total[0] else 0} messages) "
        f"to {args.output}"
    )
    return OK


def main(argv: Sequence[str] | None = None) -> int:
    return main_with(parser(), check, run, argv)


if __name__ == "__main__":
    sys.exit(main())
