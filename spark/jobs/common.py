"""What the example jobs share: the archive's command-line arguments, the session, the
progress line, and turning failures into one clear line and an exit status.

Every job is `python -m spark.jobs.NAME` (or `spark-submit spark/jobs/NAME.py`) with
`--help`; each has a `run(spark, args)` that tests call with their own session.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from pyspark.errors import PySparkException
from pyspark.sql import DataFrame, SparkSession

from spark.archive_reader import StreamInfo, find_stream
from spark.datasource import FORMAT, register
from spark.errors import TideMQSparkError
from spark.options import DEFAULT_ACCOUNT_ID, parse_options
from storage_nodes.archive.object_store import ObjectStoreError
from storage_nodes.archive.stores import open_store

# The exit statuses of every job.
OK, FAILED, BAD_INPUT = 0, 1, 2


class JobError(Exception):
    """A failure the job explains in one line; `exit_status` says whose fault it is."""

    exit_status = BAD_INPUT  # bad arguments, nothing to read, ...


def add_archive_arguments(parser: argparse.ArgumentParser) -> None:
    """--path, --account, the time window and how to reach S3 (credentials: the usual
    AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_PROFILE, as boto3 reads them)."""
    group = parser.add_argument_group("the archive")
    group.add_argument("--path", required=True, help="s3://bucket/prefix or file:///directory")
    group.add_argument("--account", default=DEFAULT_ACCOUNT_ID, help="account id (%(default)s)")
    group.add_argument(
        "--start", type=instant_ms, help="first timestamp, ISO-8601 (UTC if no zone) or epoch ms"
    )
    group.add_argument("--end", type=instant_ms, help="timestamp to stop before, same forms")
    group.add_argument("--partitions", help='only these partitions, e.g. "0,2"')
    group.add_argument("--s3-endpoint-url", help="S3-compatible endpoint (MinIO, ...)")
    group.add_argument("--s3-region", help="S3 region")


def reader_options(args: argparse.Namespace, queue: str) -> dict[str, str]:
    """The data source's options for one queue of the archive the arguments name."""
    options = {"path": args.path, "account": args.account, "queue": queue}
    for option, value in (
        ("start_timestamp_ms", args.start),
        ("end_timestamp_ms", args.end),
        ("partitions", args.partitions),
        ("s3_endpoint_url", args.s3_endpoint_url),
        ("s3_region", args.s3_region),
    ):
        if value is not None:
            options[option] = str(value)
    return options


def find_queue(options: dict[str, str]) -> StreamInfo:
    """The archived stream the options name, looked up on the driver so that a wrong
    path, account or name is one clear line rather than a Spark stack trace."""
    parsed = parse_options(options)
    return find_stream(open_store(parsed.url, parsed.s3), parsed)


def read_queue(spark: SparkSession, options: dict[str, str]) -> DataFrame:
    reader = spark.read.format(FORMAT)
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load()


def instant_ms(text: str) -> int:
    """Milliseconds since the epoch from digits, or from ISO-8601 (UTC unless a zone is
    given): `2025-11-24T10:00:00Z`, `2025-11-24 10:00`, `2025-11-24`."""
    if text.isdigit():
        return int(text)
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is neither epoch milliseconds nor an ISO-8601 time"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return int(moment.timestamp() * 1000)


def session(app_name: str) -> SparkSession:
    """The job's session (whatever spark-submit or the environment configures), with
    the `tidemq` format registered (the jobs prune by the reader's options)."""
    # A plain `python -m` run starts Spark's Python workers with this same interpreter,
    # not whatever `python3` is first on PATH.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = SparkSession.builder.appName(app_name).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    register(spark)
    return spark


def main_with(
    parser: argparse.ArgumentParser,
    check: Callable[[argparse.Namespace], None],
    run: Callable[[SparkSession, argparse.Namespace], int],
    argv: Sequence[str] | None,
) -> int:
    """Parses the arguments, checks them against the archive (before Spark starts, so
    that a wrong path or name fails at once), runs the job in its own session, and turns
    its failures into one line on stderr and an exit status (2: bad input, 1: failed)."""
    args = parser.parse_args(argv)
    try:
        check(args)
        spark = session(parser.prog)
    except Exception as exc:  # one line, not a trace, for each failure
        return _failed(parser.prog, exc)
    try:
        return run(spark, args)
    except Exception as exc:
        return _failed(parser.prog, exc)
    finally:
        spark.stop()


def _failed(prog: str, exc: Exception) -> int:
    """Prints why the job failed, in a line; returns its exit status. What the job cannot
    explain (a bug) keeps its traceback."""
    if isinstance(exc, JobError):
        status, why = exc.exit_status, str(exc)
    elif isinstance(exc, TideMQSparkError):
        status, why = BAD_INPUT, str(exc)
    elif isinstance(exc, ObjectStoreError):
        status, why = FAILED, f"the archive: {exc}"
    elif isinstance(exc, PySparkException):
        status, why = FAILED, f"Spark failed: {first_line(exc)}"
    elif isinstance(exc, OSError | RuntimeError):  # no Java, no JVM, ...
        status, why = FAILED, f"{type(exc).__name__}: {exc}"
    else:
        raise exc
    print(f"{prog}: {why}", file=sys.stderr)
    return status


def first_line(exc: BaseException) -> str:
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def say(message: str) -> None:
    """A progress line, on stderr (stdout is the job's result)."""
    print(message, file=sys.stderr, flush=True)


@contextmanager
def progress(spark: SparkSession, label: str, every_s: float = 2.0) -> Iterator[None]:
    """Prints `label: done/total tasks` every `every_s` seconds while the body runs
    Spark jobs (from Spark's status tracker), and the elapsed time at the end."""
    tracker = spark.sparkContext.statusTracker()
    stop = threading.Event()
    started = time.monotonic()

    def report() -> None:
        last = ""
        while not stop.wait(every_s):
            stages = [tracker.getStageInfo(s) for s in tracker.getActiveStageIds()]
            done = sum(s.numCompletedTasks for s in stages if s is not None)
            total = sum(s.numTasks for s in stages if s is not None)
            line = f"{label}: {done}/{total} tasks" if total else ""
            if line and line != last:
                say(line)
                last = line

    thread = threading.Thread(target=report, name="progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
    say(f"{label}: done in {time.monotonic() - started:.1f} s")
