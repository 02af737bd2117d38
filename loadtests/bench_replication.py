"""What each replication mode of the un-archived tail costs a publisher (docs/durability.md).

    python -m loadtests.bench_replication [--seconds S] [--rate R] [--threads T]

Starts `tidemq up --nodes 3 --gateways 1` (a fresh data directory, `fsync` durability,
its own embedded Redis and local archive directory) and, for each mode (none, replica,
object), a queue of one partition with that `Replication`, then:

  latency     one sender, SendMessage at --rate a second for --seconds: p50 and p99
  throughput  --threads senders, SendMessageBatch of 10 back to back for --seconds:
              messages a second

through boto3 against the gateway, and prints one table. Each phase is bounded by
--seconds (10 s in all per mode by default), and the cluster is stopped at the end.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import boto3
from botocore.config import Config

MODES = ("none", "replica", "object")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per phase and mode")
    parser.add_argument("--rate", type=float, default=50.0, help="latency sends a second")
    parser.add_argument("--threads", type=int, default=4, help="batched senders")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tidemq-bench-replication-") as data_dir:
        cluster, banner = _start(Path(data_dir))
        try:
            sqs = _client(banner)
            rows = [_measure(sqs, banner, mode, args) for mode in MODES]
        finally:
            cluster.send_signal(signal.SIGTERM)
            try:
                cluster.wait(60)
            except subprocess.TimeoutExpired:
                cluster.kill()
                cluster.wait()
    print("| mode | send p50 (ms) | send p99 (ms) | batched sends (messages/s) |")
    print("|---|---|---|---|")
    for mode, p50, p99, rate in rows:
        print(f"| `{mode}` | {p50:.1f} | {p99:.1f} | {rate:,.0f} |")


def _start(data_dir: Path) -> tuple[subprocess.Popen[str], dict[str, str]]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("TIDEMQ_")},
        "TIDEMQ_DATA_DIR": str(data_dir),
        "TIDEMQ_PORT": str(port),
        "PYTHONUNBUFFERED": "1",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "tidemq.cli", "up", "--nodes", "3", "--gateways", "1"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    banner: dict[str, str] = {}
    timer = threading.Timer(120, process.kill)
    timer.start()
    try:
        for line in process.stdout:
            match = re.match(r"^  ([a-z][a-z ]*?)\s{2,}(\S.*)$", line.rstrip("\n"))
            if match:
                banner[match.group(1)] = match.group(2)
            if line.startswith("Stop with Ctrl-C"):
                break
    finally:
        timer.cancel()
    if "endpoint" not in banner:
        process.kill()
        raise SystemExit("tidemq up did not start")
    stdout = process.stdout
    threading.Thread(target=lambda: [None for _ in stdout], daemon=True).start()
    return process, banner


def _client(banner: dict[str, str]) -> Any:
    return boto3.client(
        "sqs",
        endpoint_url=banner["endpoint"],
        region_name="us-east-1",
        aws_access_key_id=banner["access key id"],
        aws_secret_access_key=banner["secret access key"],
        config=Config(retries={"max_attempts": 1}, max_pool_connections=32),
    )


def _measure(
    sqs: Any, banner: dict[str, str], mode: str, args: argparse.Namespace
) -> tuple[str, float, float, float]:
    url = sqs.create_queue(QueueName=f"bench-{mode}", Attributes={"Replication": mode})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="warm-up")  # the lease taken
    latencies_ms = []
    interval_s = 1 / args.rate
    next_s = time.monotonic()
    end_s = next_s + args.seconds
    while next_s < end_s:
        time.sleep(max(0.0, next_s - time.monotonic()))
        began = time.monotonic()
        sqs.send_message(QueueUrl=url, MessageBody="x" * 256)
        latencies_ms.append((time.monotonic() - began) * 1000)
        next_s += interval_s
    latencies_ms.sort()
    p50 = latencies_ms[len(latencies_ms) // 2]
    p99 = latencies_ms[min(len(latencies_ms) - 1, int(len(latencies_ms) * 0.99))]

    sent = [0] * args.threads
    stop_s = time.monotonic() + args.seconds
    entries = [{"Id": str(i), "MessageBody": "y" * 256} for i in range(10)]

    def send(index: int) -> None:
        client = _client(banner)
        while time.monotonic() < stop_s:
            answer = client.send_message_batch(QueueUrl=url, Entries=entries)
            sent[index] += len(answer.get("Successful", []))

    threads = [threading.Thread(target=send, args=(i,)) for i in range(args.threads)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    rate = sum(sent) / (time.monotonic() - began)
    print(f"{mode}: p50 {p50:.1f} ms, p99 {p99:.1f} ms, {rate:,.0f} messages/s", file=sys.stderr)
    return mode, p50, p99, rate


if __name__ == "__main__":
    main()
