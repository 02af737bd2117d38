"""Kill -9 a writer at random moments: every acknowledged append survives, byte for byte,
and nothing in the log is corrupt."""

from __future__ import annotations

import os
import random
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from storage_nodes.log.partition_log import PartitionLog

from .crash_writer import CONFIG, crash_body

ROUNDS = 24
REPO = Path(__file__).resolve().parents[3]


def run_and_kill(directory: Path, round_id: str, rng: random.Random) -> list[str]:
    """Start a writer, SIGKILL it at a random moment; return the ack lines it printed."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.storage_nodes.log.crash_writer", str(directory), round_id],
        cwd=REPO,
        stdout=subprocess.PIPE,
    )
    assert child.stdout is not None
    output = bytearray()
    # A quarter of the kills land before the writer is ready: during start-up or recovery.
    deadline = time.monotonic() + (rng.uniform(0.0, 0.3) if rng.random() < 0.25 else 30)
    kill_at: float | None = None
    while time.monotonic() < (kill_at or deadline):
        ready, _, _ = select.select([child.stdout], [], [], 0.005)
        if ready:
            chunk = os.read(child.stdout.fileno(), 65536)
            if not chunk:
                break
            output += chunk
            if kill_at is None and b"ready\n" in output:
                kill_at = time.monotonic() + rng.uniform(0.0, 0.4)
    child.send_signal(signal.SIGKILL)
    rest, _ = child.communicate(timeout=30)
    assert child.returncode == -signal.SIGKILL, "the writer died on its own"
    lines = (output + rest).decode().splitlines()
    return [line for line in lines if line != "ready"]


async def check_log(directory: Path, acked: dict[int, str]) -> int:
    """Every acknowledged record is at its offset, intact; every record is self-consistent."""
    log = await PartitionLog.open(directory, CONFIG)
    try:
        offset = 0
        while offset < log.end_offset:
            records = await log.read(offset, max_records=1000, max_bytes=1 << 22)
            for record in records:
                assert record.offset == offset
                assert record.body == crash_body(record.message_id), record
                offset += 1
        assert offset == log.end_offset
        assert max(acked, default=-1) < log.end_offset
        found = await log.read_offsets(list(acked))
        for position, message_id in acked.items():
            assert found[position].message_id == message_id
        return log.end_offset
    finally:
        await log.close()


@pytest.mark.slow
async def test_acknowledged_appends_survive_sigkill(tmp_path: Path) -> None:
    rng = random.Random(int.from_bytes(os.urandom(4), "big"))
    acked: dict[int, str] = {}
    ends = []
    for round_no in range(ROUNDS):
        for line in run_and_kill(tmp_path, f"r{round_no}", rng):
            base, *ids = line.split()
            for i, message_id in enumerate(ids):
                assert acked.setdefault(int(base) + i, message_id) == message_id
        ends.append(await check_log(tmp_path, acked))
    assert len(acked) > ROUNDS  # the kills did not all land before any append
    assert ends == sorted(ends)
