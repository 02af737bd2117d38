"""Spark in local[2], one session per test module, reading archives the tests build.

Spark's Python workers are separate processes started by the JVM: they must import this
checkout's `spark`, `pyspark_tidemq` and `storage_nodes`, so the session starts with the
checkout first on PYTHONPATH and with this interpreter as PYSPARK_PYTHON (an editable
install, as in CI, would find them anyway). The `tidemq` format is *not* registered by
the fixture: PySpark finds it by itself through `pyspark_tidemq`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.sql import functions as sf

from spark.datasource import PUSHDOWN_CONF
from tests.conftest import RunningGateway, start_gateway
from tests.spark.archive_builder import Archive, ArchivedStream
from tests.spark.tiered import TIER_FAST

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def spark_session() -> Iterator[SparkSession]:
    saved = {name: os.environ.get(name) for name in ("PYSPARK_PYTHON", "PYTHONPATH")}
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), saved["PYTHONPATH"]) if p)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("tidemq-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.executorEnv.PYTHONPATH", os.environ["PYTHONPATH"])
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture
def archive(tmp_path: Path) -> Archive:
    return Archive(tmp_path)


@pytest.fixture
def tiering_gateway(redis_url: str, tmp_path: Path) -> Iterator[RunningGateway]:
    """The gateway stack tiering to `<data dir>/archive` within a fifth of a second."""
    running = start_gateway(redis_url, tmp_path / "data", archive=TIER_FAST)
    yield running
    running.stop()


@pytest.fixture
def pushdown(spark_session: SparkSession) -> Iterator[None]:
    """Python filter pushdown on for the test (Spark's default is off)."""
    spark_session.conf.set(PUSHDOWN_CONF, "true")
    yield
    spark_session.conf.unset(PUSHDOWN_CONF)


def read(spark: SparkSession, stream: ArchivedStream, **options: Any) -> DataFrame:
    """`spark.read.format("tidemq")` of the stream's queue (or topic), with options."""
    reader = (
        spark.read.format("tidemq")
        .option("path", stream.archive.url)
        .option("account", stream.account_id)
        .option(stream.kind, stream.name)
    )
    for key, value in options.items():
        reader = reader.option(key, str(value))
    return reader.load()


def rows(df: DataFrame) -> list[tuple[object, ...]]:
    """The rows as `Written.row()` makes them: timestamps in ms, attributes as a sorted
    list, binary as bytes; in (partition, offset) order."""
    collected = df.withColumn("timestamp", sf.unix_millis("timestamp")).collect()
    return sorted((_plain(row) for row in collected), key=lambda r: (r[2], r[3]))


def _plain(row: Row) -> tuple[object, ...]:
    values = list(row)
    attributes = row["attributes"]
    values[row.__fields__.index("attributes")] = sorted(
        (
            name,
            (
                value.data_type,
                value.string_value,
                None if value.binary_value is None else bytes(value.binary_value),
            ),
        )
        for name, value in attributes.items()
    )
    values[row.__fields__.index("body")] = bytes(row["body"])
    return tuple(values)
