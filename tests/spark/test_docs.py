"""docs/spark.md: its worked example runs as printed and prints what the page shows,
against the archive the page describes (built here)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

from pyspark.sql import SparkSession

from storage_nodes.log.record import MessageAttribute, RecordIn
from tests.spark.archive_builder import Archive

PAGE = Path(__file__).resolve().parents[2] / "docs" / "spark.md"
EXAMPLE_ARCHIVE = "file:///srv/tidemq/archive"
T16 = 1_764_000_000_000  # 2025-11-24T16:00:00Z
MINUTE = 60_000


def build_example_archive(archive: Archive) -> None:
    """Queue `orders`, 2 partitions, 2 segments each: one before 17:00, one after."""

    def order(n: int, minute: int, tier: str | None) -> RecordIn:
        attributes = {"tier": MessageAttribute("String", tier)} if tier else {}
        return RecordIn(
            f"m-{n}", T16 + minute * MINUTE, f"order {n}".encode(), attributes=attributes
        )

    orders = archive.create_stream("orders", partitions=2)
    orders.add_segment(0, [[order(1, 0, "gold"), order(2, 10, "silver")], [order(3, 20, None)]])
    orders.add_segment(0, [[order(4, 65, "gold")], [order(5, 80, None)]])
    orders.add_segment(1, [[order(6, 30, "silver"), order(7, 40, "gold")]])
    orders.add_segment(1, [[order(8, 105, "silver")]])


def blocks(kind: str) -> list[str]:
    section = PAGE.read_text().split("## A worked example", 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{kind}\n(.*?)```", section, re.DOTALL)


def test_the_worked_example_prints_what_the_page_shows(
    spark_session: SparkSession, archive: Archive
) -> None:
    build_example_archive(archive)
    [code] = blocks("python")
    [printed] = blocks("text")
    assert EXAMPLE_ARCHIVE in code

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code.replace(EXAMPLE_ARCHIVE, archive.url), str(PAGE), "exec"), {})

    assert out.getvalue() == printed
