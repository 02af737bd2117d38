"""Topic fan-out: does publishing slow down as a topic gains subscriptions?

    python -m loadtests.bench_fanout [--endpoint URL --access-key-id K
                                      --secret-access-key S] [--subscriptions 1,10,100]
                                     [--seconds S] [--rate R] [--json PATH]

Without --endpoint it starts `tidemq up` in its own process (tidemq/bench/servers.py: free
port, fresh data directory under --dir, `fsync` durability) and stops it at the end. For
each subscription count N, a topic with N SQS queues subscribed (raw delivery, no filter):

  publish      --workers signed SNS PublishBatch calls of ten 256-byte messages, back to
               back, for --seconds: acknowledged publishes per second. Then the time until
               every queue holds every message gives the deliveries per second (N times
               the messages published, over the time from the first publish until the
               last queue is complete).
  latency      single SNS Publish calls at --rate a second for --seconds, each message
               carrying its send time; afterwards every queue is drained and each copy's
               SentTimestamp (when it landed in its queue) minus its send time is a
               publish -> queue latency: p50 and p99 over every copy.

The target (issue #13): publish throughput with 100 subscriptions at least 0.8 of that
with 1, in the same run. The load generator runs on the same machine as the server.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp
import boto3
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials as BotoCredentials

from tidemq.bench.load import Limits, closed_loop, open_loop, percentile
from tidemq.bench.runs import run_async
from tidemq.bench.servers import BenchError, start_stack

REGION = "us-east-1"
MESSAGE_BYTES = 256
BATCH = 10
TARGET_RATIO = 0.8
DELIVERY_TIMEOUT_S = 300.0
# A signature is valid for 15 minutes; one is reused for this long, then made again.
RESIGN_S = 60.0


@dataclass(frozen=True)
class Target:
    endpoint: str
    access_key_id: str
    secret_access_key: str

    def client(self, service: str) -> Any:
        return boto3.client(
            service,
            endpoint_url=self.endpoint,
            region_name=REGION,
            aws_access_key_id=self.access_key_id,
            aws_secret_access_key=self.secret_access_key,
        )


@dataclass
class Row:
    subscriptions: int
    publish_msgs_per_s: float
    publish_errors: int
    deliveries_per_s: float
    latency_p50_ms: float
    latency_p99_ms: float
    latency_samples: int

    def as_json(self) -> dict[str, Any]:
        return {
            "subscriptions": self.subscriptions,
            "publish_msgs_per_s": _number(self.publish_msgs_per_s),
            "publish_errors": self.publish_errors,
            "deliveries_per_s": _number(self.deliveries_per_s),
            "latency_p50_ms": _number(self.latency_p50_ms),
            "latency_p99_ms": _number(self.latency_p99_ms),
            "latency_samples": self.latency_samples,
        }


def _number(value: float, digits: int = 1) -> float | None:
    return None if math.isnan(value) else round(value, digits)


class SignedForm:
    """One SNS Query request, signed once and re-signed every RESIGN_S (the body never
    changes, so neither does the signature meanwhile): the load generator's cost per
    request stays far below the server's."""

    def __init__(self, target: Target, params: dict[str, str]) -> None:
        self._target = target
        self.body = urlencode(params).encode()
        self._headers: dict[str, str] = {}
        self._signed_at = -math.inf

    def headers(self) -> dict[str, str]:
        if time.monotonic() - self._signed_at > RESIGN_S:
            request = AWSRequest(
                method="POST",
                url=self._target.endpoint + "/",
                data=self.body,
                headers={"Content-Type": "application/x-www-form-urlencoded"},
            )
            credentials = BotoCredentials(
                self._target.access_key_id, self._target.secret_access_key
            )
            SigV4Auth(credentials, "sns", REGION).add_auth(request)
            self._headers = dict(request.headers.items())
            self._signed_at = time.monotonic()
        return self._headers


def _batch_form(topic_arn: str) -> dict[str, str]:
    params = {"Action": "PublishBatch", "Version": "2010-03-31", "TopicArn": topic_arn}
    for i in range(1, BATCH + 1):
        prefix = f"PublishBatchRequestEntries.member.{i}"
        params[f"{prefix}.Id"] = f"m{i}"
        params[f"{prefix}.Message"] = "x" * MESSAGE_BYTES
    return params


def _setup(target: Target, subscriptions: int, tag: str) -> tuple[str, list[str]]:
    """A topic with `subscriptions` queues subscribed: its ARN and the queues' URLs."""
    sns, sqs = target.client("sns"), target.client("sqs")
    topic = sns.create_topic(Name=f"fanout-{tag}-{subscriptions}")["TopicArn"]
    urls = []
    for i in range(subscriptions):
        url = sqs.create_queue(QueueName=f"fanout-{tag}-{subscriptions}-{i}")["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"][
            "QueueArn"
        ]
        sns.subscribe(
            TopicArn=topic,
            Protocol="sqs",
            Endpoint=arn,
            Attributes={"RawMessageDelivery": "true"},
        )
        urls.append(url)
    return topic, urls


def _depth(sqs: Any, url: str) -> int:
    attributes = sqs.get_queue_attributes(
        QueueUrl=url,
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return int(attributes["ApproximateNumberOfMessages"]) + int(
        attributes["ApproximateNumberOfMessagesNotVisible"]
    )


def _wait_delivered(target: Target, urls: list[str], expected: int) -> float:
    """Seconds until every queue holds `expected` messages (inf past the timeout)."""
    sqs = target.client("sqs")
    began = time.monotonic()
    pending = list(urls)
    while pending:
        if time.monotonic() - began > DELIVERY_TIMEOUT_S:
            return math.inf
        pending = [url for url in pending if _depth(sqs, url) < expected]
        if pending:
            time.sleep(0.05)
    return time.monotonic() - began


def _purge(target: Target, urls: list[str]) -> None:
    sqs = target.client("sqs")
    for url in urls:
        sqs.purge_queue(QueueUrl=url)


async def _publish_throughput(
    target: Target, topic: str, workers: int, seconds: float
) -> tuple[float, int, int, float]:
    """(messages/s, errors, messages acknowledged, seconds from first publish to last)."""
    form = SignedForm(target, _batch_form(topic))
    acknowledged = 0
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=workers)) as session:

        async def step() -> int:
            nonlocal acknowledged
            async with session.post(
                target.endpoint + "/", data=form.body, headers=form.headers()
            ) as response:
                await response.read()
                if response.status != 200:
                    raise RuntimeError(f"PublishBatch answered {response.status}")
            acknowledged += BATCH
            return BATCH

        began = time.monotonic()
        measured = await closed_loop(
            "publish",
            step,
            workers,
            Limits(max_messages=10_000_000, seconds=seconds, warmup_s=min(1.0, seconds / 5)),
        )
    return measured.msgs_per_s, measured.errors, acknowledged, time.monotonic() - began


async def _publish_at_rate(target: Target, topic: str, rate: float, seconds: float) -> int:
    """Publishes single messages carrying their send time; returns how many."""
    sent = 0
    async with aiohttp.ClientSession() as session:

        async def step() -> int:
            nonlocal sent
            params = {
                "Action": "Publish",
                "Version": "2010-03-31",
                "TopicArn": topic,
                "Message": json.dumps({"sent_ms": time.time() * 1000}),
            }
            form = SignedForm(target, params)
            async with session.post(
                target.endpoint + "/", data=form.body, headers=form.headers()
            ) as response:
                await response.read()
                if response.status != 200:
                    raise RuntimeError(f"Publish answered {response.status}")
            sent += 1
            return 1

        await open_loop(
            "latency", step, rate, Limits(max_messages=10**9, seconds=seconds, warmup_s=0.0)
        )
    return sent


def _latencies(target: Target, urls: list[str], expected: int) -> list[float]:
    """Drains every queue (`expected` messages each): SentTimestamp minus send time."""

    def drain(url: str) -> list[float]:
        sqs = target.client("sqs")
        found: list[float] = []
        deadline = time.monotonic() + DELIVERY_TIMEOUT_S
        while len(found) < expected and time.monotonic() < deadline:
            messages = sqs.receive_message(
                QueueUrl=url,
                MaxNumberOfMessages=10,
                WaitTimeSeconds=1,
                MessageSystemAttributeNames=["SentTimestamp"],
            ).get("Messages", [])
            for message in messages:
                sent_ms = json.loads(message["Body"])["sent_ms"]
                found.append(int(message["Attributes"]["SentTimestamp"]) - sent_ms)
            if messages:
                sqs.delete_message_batch(
                    QueueUrl=url,
                    Entries=[
                        {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]}
                        for i, m in enumerate(messages)
                    ],
                )
        return found

    with ThreadPoolExecutor(max_workers=8) as pool:
        return [latency for one in pool.map(drain, urls) for latency in one]


def measure(target: Target, subscriptions: int, args: argparse.Namespace, tag: str) -> Row:
    topic, urls = _setup(target, subscriptions, tag)
    rate_per_s, errors, published, publish_s = run_async(
        lambda: _publish_throughput(target, topic, args.workers, args.seconds)
    )
    until_delivered_s = _wait_delivered(target, urls, published)
    deliveries_per_s = subscriptions * published / (publish_s + until_delivered_s)
    print(
        f"  {subscriptions} subscriptions: {rate_per_s:,.0f} publishes/s; every copy "
        f"delivered {until_delivered_s:.1f} s after the last publish",
        file=sys.stderr,
    )
    _purge(target, urls)
    sent = run_async(lambda: _publish_at_rate(target, topic, args.rate, args.seconds))
    ordered = sorted(_latencies(target, urls, sent))
    return Row(
        subscriptions=subscriptions,
        publish_msgs_per_s=rate_per_s,
        publish_errors=errors,
        deliveries_per_s=deliveries_per_s,
        latency_p50_ms=percentile(ordered, 50),
        latency_p99_ms=percentile(ordered, 99),
        latency_samples=len(ordered),
    )


def table(rows: list[Row]) -> str:
    base = rows[0].publish_msgs_per_s if rows else math.nan
    lines = [
        "| subscriptions | publish msgs/s | vs first | deliveries/s | publish -> queue p50 | p99 |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        ratio = row.publish_msgs_per_s / base if base else math.nan
        lines.append(
            f"| {row.subscriptions} | {row.publish_msgs_per_s:,.0f} | {ratio:.2f} "
            f"| {row.deliveries_per_s:,.0f} | {row.latency_p50_ms:.1f} ms "
            f"| {row.latency_p99_ms:.1f} ms |"
        )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    counts = [int(n) for n in args.subscriptions.split(",")]
    server = None
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="tidemq-bench-fanout-") as work:
        try:
            if args.endpoint:
                if not (args.access_key_id and args.secret_access_key):
                    raise BenchError("--endpoint needs --access-key-id and --secret-access-key")
                target = Target(args.endpoint, args.access_key_id, args.secret_access_key)
            else:
                server, endpoint, credentials = start_stack(Path(work))
                target = Target(endpoint, credentials.access_key_id, credentials.secret_access_key)
            tag = os.urandom(3).hex()
            rows = [measure(target, n, args, tag) for n in counts]
        except BenchError as exc:
            print(f"bench_fanout: {exc}", file=sys.stderr)
            return 2
        finally:
            if server is not None:
                server.stop()
    print(table(rows))
    if len(rows) > 1 and rows[0].publish_msgs_per_s:
        ratio = rows[-1].publish_msgs_per_s / rows[0].publish_msgs_per_s
        verdict = "met" if ratio >= TARGET_RATIO else "missed"
        print(
            f"\npublish throughput with {rows[-1].subscriptions} subscriptions is {ratio:.2f} "
            f"of that with {rows[0].subscriptions} (target >= {TARGET_RATIO}: {verdict})"
        )
    if args.json:
        args.json.write_text(json.dumps([r.as_json() for r in rows], indent=2) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m loadtests.bench_fanout",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--endpoint", help="a running TideMQ (default: start `tidemq up`)")
    parser.add_argument("--access-key-id", default=os.environ.get("AWS_ACCESS_KEY_ID"))
    parser.add_argument("--secret-access-key", default=os.environ.get("AWS_SECRET_ACCESS_KEY"))
    parser.add_argument("--dir", type=Path, default=Path.cwd(), help="for the data directory")
    parser.add_argument("--subscriptions", default="1,10,100", help="counts, in order")
    parser.add_argument("--seconds", type=float, default=5.0, help="per phase (5)")
    parser.add_argument("--workers", type=int, default=16, help="publishers in flight (16)")
    parser.add_argument("--rate", type=float, default=100.0, help="latency publishes/s (100)")
    parser.add_argument("--json", type=Path, help="write the results here")
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
