"""The table `tidemq bench` prints: one line a workload, TideMQ beside the ceiling (and the
peer, with --peer), and whether the workloads with a target met it."""

from __future__ import annotations

import argparse
import math
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tidemq.bench.runs import Row

# The targets of docs/performance.md (issue "Speed, round two").
BATCH_PUBLISH_MIN_MSGS_PER_S = 100_000.0
WS_PUBLISH_MIN_SHARE_OF_REST = 0.5  # publish_ws against publish_batch_rest, same run
SINGLE_P99_FLOOR_MS = 5.0  # the fixed-rate p99 bound: this, or twice the ceiling's p99
SINGLE_P99_CEILING_FACTOR = 2.0
E2E_P99_MAX_MS = 10.0


def print_table(rows: list[Row], args: argparse.Namespace, load_before: float) -> None:
    peer = getattr(args, "peer", None)
    header = (
        f"{'workload':<31} {'msgs/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'p999 ms':>8} "
        f"{'ceiling/s':>10} {'ratio':>6} {'ceil p99':>8}"
        + (f" {peer + '/s':>9} {'vs peer':>7} {'peer p99':>8}" if peer else "")
        + "  target"
    )
    print()
    print(
        f"256-byte messages, fsync durability, {args.connections} connections, "
        f"REST batch {args.batch_size}, {args.sqs_threads} boto3 threads, "
        f"fixed rate {args.rate:,.0f}/s; {os.cpu_count()} CPUs, 1-min load average "
        f"{load_before:.2f} before and {os.getloadavg()[0]:.2f} after the run"
        + ("; peer: Redis Streams, appendfsync always" if peer else "")
    )
    print(header)
    print("-" * len(header))
    notes: list[str] = []
    for row in rows:
        result, ceiling = row.result, row.ceiling
        ratio = result.msgs_per_s / ceiling.msgs_per_s if ceiling.msgs_per_s else math.nan
        line = (
            f"{row.workload:<31} {result.msgs_per_s:>9,.0f} {result.percentile(50):>8.2f} "
            f"{result.percentile(99):>8.2f} {result.percentile(99.9):>8.2f} "
            f"{ceiling.msgs_per_s:>10,.0f} {ratio:>6.2f} {ceiling.percentile(99):>8.2f}"
        )
        if peer:
            if row.peer is None:
                line += f" {'':>9} {'':>7} {'':>8}"
            else:
                line += (
                    f" {row.peer.msgs_per_s:>9,.0f} {row.ratio_to_peer:>7.2f} "
                    f"{row.peer.percentile(99):>8.2f}"
                )
        disk = ""
        if row.disk is not None:
            disk = (
                f" (the disk's sync meanwhile: p99 {row.disk.percentile(99):.2f} ms, "
                f"max {row.disk.max_ms:.2f} ms)"
            )
        print(f"{line}  {'; '.join(verdicts(row, rows))}{disk}")
        named = [("", result), (" (ceiling)", ceiling)]
        if row.peer is not None:
            named.append((" (peer)", row.peer))
        for name, measured in named:
            if measured.errors:
                notes.append(
                    f"{row.workload}{name}: {measured.errors} failed operations, first: "
                    f"{measured.first_error}"
                )
    for note in notes:
        print(f"! {note}")


def verdicts(row: Row, rows: list[Row]) -> list[str]:
    """Each target of the row's workload, met or MISSED; those comparing with the peer or
    with another workload only when that was measured in the same run."""
    result = row.result
    found: list[tuple[str, bool]] = []
    if row.workload == "publish_batch_rest":
        bound = BATCH_PUBLISH_MIN_MSGS_PER_S
        found.append((f">= {bound:,.0f} msgs/s", result.msgs_per_s >= bound))
    if row.workload in ("publish_batch_rest", "consume_rest", "consume_ws") and row.peer:
        found.append((">= peer", result.msgs_per_s >= row.peer.msgs_per_s))
    if row.workload == "publish_ws":
        batch = next((r for r in rows if r.workload == "publish_batch_rest"), None)
        if batch is not None:
            share = WS_PUBLISH_MIN_SHARE_OF_REST
            found.append(
                (f">= {share:g} x REST batch", result.msgs_per_s >= share * batch.result.msgs_per_s)
            )
    if row.workload == "publish_single_rest_fixed_rate":
        bound_ms = single_p99_bound_ms(row.ceiling.percentile(99))
        found.append((f"p99 <= {bound_ms:.2f} ms", result.percentile(99) <= bound_ms))
    if row.workload == "e2e_ws":
        found.append((f"p99 <= {E2E_P99_MAX_MS:g} ms", result.percentile(99) <= E2E_P99_MAX_MS))
    return [f"{label}: {'met' if met else 'MISSED'}" for label, met in found]


def single_p99_bound_ms(ceiling_p99_ms: float) -> float:
    """The fixed-rate single publish's p99 bound: twice the ceiling's p99 in the same run,
    or 5 ms, whichever is larger (a ceiling without samples leaves the 5 ms)."""
    if math.isnan(ceiling_p99_ms):
        return SINGLE_P99_FLOOR_MS
    return max(SINGLE_P99_FLOOR_MS, SINGLE_P99_CEILING_FACTOR * ceiling_p99_ms)
