"""spark/jobs/hourly_counts.py: in this module's session, and as its users run it."""

from __future__ import annotations

import base64
import datetime
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from spark.errors import StreamNotFound
from spark.jobs import hourly_counts
from storage_nodes.log.record import MessageAttribute
from tests.spark.archive_builder import Archive, record
from tests.spark.conftest import ROOT

T0 = 1_764_000_000_000  # 2025-11-24T16:00:00Z
HOUR = 3_600_000
TIERS = [
    {"tier": MessageAttribute("String", "gold")},
    {"tier": MessageAttribute("String", "silver")},
    {},
    {"tier": MessageAttribute("Binary", None, b"\x01\x02")},
    {"other": MessageAttribute("Number", "1")},
]


@pytest.fixture
def queues(archive: Archive) -> Archive:
    """orders (2 partitions) and payments: 5 records an hour over 3 hours, each."""
    for name in ("orders", "payments"):
        stream = archive.create_stream(name, partitions=2)
        for hour in range(3):
            for partition in range(2):
                stream.add_segment(
                    partition,
                    [
                        [
                            record(
                                i,
                                timestamp_ms=T0 + hour * HOUR + 1000 * i,
                                attributes=TIERS[i],
                                body=bytes(i),
                            )
                        ]
                        for i in range(partition, 5, 2)
                    ],
                )
    return archive


def expected(
    hours: range, queues: tuple[str, ...] = ("orders", "payments")
) -> Counter[tuple[object, ...]]:
    counts: Counter[tuple[object, ...]] = Counter()
    for queue in queues:
        for hour in hours:
            start = datetime.datetime.fromtimestamp((T0 + hour * HOUR) / 1000, datetime.UTC)
            for attributes in TIERS:
                tier = attributes.get("tier")
                value = None
                if tier is not None:
                    value = tier.string_value or base64.b64encode(tier.binary_value or b"").decode()
                counts[(start.replace(tzinfo=None), "123456789012", queue, "tier", value)] += 1
    return counts


def test_counts_by_hour_queue_and_attribute(
    spark_session: SparkSession, queues: Archive, tmp_path: Path
) -> None:
    out = tmp_path / "counts"
    args = hourly_counts.parser().parse_args(
        [
            "--path",
            queues.url,
            "--queue",
            "orders",
            "--queue",
            "payments",
            "--attribute",
            "tier",
            "--output",
            str(out),
        ]
    )

    assert hourly_counts.run(spark_session, args) == 0

    written = spark_session.read.parquet(str(out)).collect()
    got = Counter()
    for row in written:
        got[(row.hour, row.account, row.queue, row.attribute, row.value)] += row.messages
    assert got == expected(range(3))
    assert {row.bytes for row in written if row.value == "silver"} == {1}


def test_the_window_limits_the_hours(
    spark_session: SparkSession, queues: Archive, tmp_path: Path
) -> None:
    out = tmp_path / "counts"
    start = datetime.datetime.fromtimestamp((T0 + HOUR) / 1000, datetime.UTC).isoformat()
    args = hourly_counts.parser().parse_args(
        ["--path", queues.url, "--queue", "orders", "--attribute", "tier", "--output", str(out),
         "--start", start, "--end", str(T0 + 2 * HOUR)]
    )  # fmt: skip

    hourly_counts.run(spark_session, args)

    rows = spark_session.read.parquet(str(out)).collect()
    assert Counter(
        {(r.hour, r.account, r.queue, r.attribute, r.value): r.messages for r in rows}
    ) == expected(range(1, 2), ("orders",))


def test_an_unknown_queue_is_one_clear_error(
    spark_session: SparkSession, queues: Archive, tmp_path: Path
) -> None:
    args = hourly_counts.parser().parse_args(
        [
            "--path",
            queues.url,
            "--queue",
            "nope",
            "--attribute",
            "tier",
            "--output",
            str(tmp_path / "x"),
        ]
    )

    with pytest.raises(StreamNotFound, match="no archived queue 'nope' in account 123456789012"):
        hourly_counts.run(spark_session, args)


def job(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYSPARK_PYTHON": sys.executable}
    return subprocess.run(
        [sys.executable, "-m", "spark.jobs.hourly_counts", *args],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip


def test_help_and_argument_errors(queues: Archive) -> None:
    shown = job("--help")
    missing = job("--path", "/tmp/x")
    unknown = job("--path", queues.url, "--queue", "nope", "--attribute", "a", "--output", "/tmp/x")

    assert shown.returncode == 0
    assert "--attribute" in shown.stdout
    assert "Output columns" in shown.stdout
    assert missing.returncode == 2
    assert "required" in missing.stderr
    assert unknown.returncode == 2
    assert unknown.stderr.strip() == (
        "python -m spark.jobs.hourly_counts: no archived queue 'nope' in account 123456789012 "
        f"at {queues.url} (nothing under _names/123456789012/queue/nope/)"
    )


@pytest.mark.slow
@pytest.mark.parametrize("launcher", ["python -m", "spark-submit"])
def test_runs_as_users_run_it(queues: Archive, tmp_path: Path, launcher: str) -> None:
    out = tmp_path / "counts"
    args = ["--path", queues.url, "--queue", "orders", "--attribute", "tier", "--output", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYSPARK_PYTHON": sys.executable}
    if launcher == "spark-submit":
        command = [str(Path(sys.executable).parent / "spark-submit"), "--master", "local[2]",
                   str(ROOT / "spark/jobs/hourly_counts.py"), *args]  # fmt: skip
    else:
        command = [sys.executable, "-m", "spark.jobs.hourly_counts", *args]
    done = subprocess.run(
        command, capture_output=True, text=True, env=env, timeout=300, check=False
    )
    # spark-submit passes the driver's stderr on as its stdout: look at both.
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    assert "orders: stream" in output
    assert "wrote 12 rows (15 messages)" in output
    assert (out / "_SUCCESS").exists()
