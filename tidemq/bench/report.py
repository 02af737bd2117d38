"""The table `tidemq bench` prints: one line a workload, TideMQ beside the ceiling, and
whether the workloads with a target met it."""

from __future__ import annotations

import argparse
import math
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tidemq.bench.runs import Row

# (what is compared, the bound, at least or at most) for the workloads the issue targets.
TARGETS: dict[str, tuple[str, float, str]] = {
    "publish_batch_rest": ("msgs_per_s", 50_000, ">="),
    "consume_rest": ("msgs_per_s", 25_000, ">="),
    "publish_single_rest_fixed_rate": ("p99_ms", 5.0, "<="),
}


def print_table(rows: list[Row], args: argparse.Namespace, load_before: float) -> None:
    header = (
        f"{'workload':<31} {'msgs/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'p999 ms':>8} "
        f"{'ceiling/s':>10} {'ratio':>6} {'ceil p99':>8}  target"
    )
    print()
    print(
        f"256-byte messages, fsync durability, {args.connections} connections, "
        f"REST batch {args.batch_size}, {args.sqs_threads} boto3 threads, "
        f"fixed rate {args.rate:,.0f}/s; {os.cpu_count()} CPUs, 1-min load average "
        f"{load_before:.2f} before and {os.getloadavg()[0]:.2f} after the run"
    )
    print(header)
    print("-" * len(header))
    notes: list[str] = []
    for row in rows:
        result, ceiling = row.result, row.ceiling
        ratio = result.msgs_per_s / ceiling.msgs_per_s if ceiling.msgs_per_s else math.nan
        print(
            f"{row.workload:<31} {result.msgs_per_s:>9,.0f} {result.percentile(50):>8.2f} "
            f"{result.percentile(99):>8.2f} {result.percentile(99.9):>8.2f} "
            f"{ceiling.msgs_per_s:>10,.0f} {ratio:>6.2f} {ceiling.percentile(99):>8.2f}  "
            f"{_verdict(row)}"
        )
        for name, measured in (("", result), (" (ceiling)", ceiling)):
            if measured.errors:
                notes.append(
                    f"{row.workload}{name}: {measured.errors} failed operations, first: "
                    f"{measured.first_error}"
                )
    for note in notes:
        print(f"! {note}")


def _verdict(row: Row) -> str:
    target = TARGETS.get(row.workload)
    if target is None:
        return ""
    field, bound, sense = target
    value = row.result.msgs_per_s if field == "msgs_per_s" else row.result.percentile(99)
    met = value >= bound if sense == ">=" else value <= bound
    unit = "msgs/s" if field == "msgs_per_s" else "ms p99"
    return f"{sense} {bound:,g} {unit}: {'met' if met else 'MISSED'}"
