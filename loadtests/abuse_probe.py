"""The well-behaved client of `loadtests/bench_abuse.py`, and the server's memory.

The probe calls SQS `ListQueues` (JSON 1.0, SigV4-signed by botocore, each request signed
when it is sent) over one keep-alive connection, `rate` calls a second on a fixed
schedule, in a process of its own: the attacks run on the bench's event loop, and a
probe sharing that loop (or its GIL) would time the attacker's own work as the server's.
Each call is timed from its scheduled send (open loop), so a server that stalls shows
its stall in the latencies instead of merely slowing the probe down; a call that fails
or times out (CALL_TIMEOUT_S) is an error and its time counts too.

`rss_mib` reads a process's resident memory (VmRSS in /proc/<pid>/status); `RssSampler`
keeps the largest reading while an attack runs.
"""

from __future__ import annotations

import contextlib
import http.client
import multiprocessing
import signal
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from urllib.parse import urlsplit

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials as BotoCredentials

REGION = "us-east-1"
JSON_1_0 = "application/x-amz-json-1.0"
CALL_TIMEOUT_S = 10.0
ANSWER_TIMEOUT_S = CALL_TIMEOUT_S + 20.0  # the probe's last call may be a timed-out one
WARMUP_CALLS = 20


def signed_headers(
    url: str, body: bytes, headers: dict[str, str], key_id: str, secret: str
) -> dict[str, str]:
    """The headers of a POST of `body` to `url`, signed now (SigV4, service `sqs`)."""
    request = AWSRequest(method="POST", url=url, data=body, headers=dict(headers))
    SigV4Auth(BotoCredentials(key_id, secret), "sqs", REGION).add_auth(request)
    return dict(request.headers.items())


@dataclass
class ProbeResult:
    latencies_ms: list[float] = field(default_factory=list)
    errors: int = 0
    first_error: str | None = None


class _ListQueues:
    """One keep-alive connection calling ListQueues; reconnects after a failure."""

    def __init__(self, endpoint: str, prefix: str, key_id: str, secret: str) -> None:
        parts = urlsplit(endpoint)
        self._host = parts.hostname or "127.0.0.1"
        self._port = parts.port or 80
        self._url = endpoint.rstrip("/") + "/"
        self._body = b'{"QueueNamePrefix": "' + prefix.encode() + b'"}'
        self._key = (key_id, secret)
        self._connection = self._connect()

    def _connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self._host, self._port, timeout=CALL_TIMEOUT_S)

    def call(self) -> None:
        """Raises unless the server answered 200."""
        headers = signed_headers(
            self._url,
            self._body,
            {"X-Amz-Target": "AmazonSQS.ListQueues", "Content-Type": JSON_1_0},
            *self._key,
        )
        try:
            self._connection.request("POST", "/", body=self._body, headers=headers)
            response = self._connection.getresponse()
            answer = response.read()
        except (OSError, http.client.HTTPException):
            self._connection.close()
            self._connection = self._connect()
            raise
        if response.status != 200:
            raise RuntimeError(f"ListQueues answered {response.status}: {answer[:200]!r}")

    def reconnect(self) -> None:
        """A fresh connection: the server closes keep-alive connections idle for 5 s
        (uvicorn's default), as the probe's is between two measurements."""
        self._connection.close()
        self._connection = self._connect()

    def close(self) -> None:
        self._connection.close()


def _measure(client: _ListQueues, rate: float, commands: Connection) -> ProbeResult:
    """Calls on schedule until the parent says stop (its message: when the window closed,
    on the monotonic clock). Calls scheduled in the window but not yet sent then (the
    probe was still waiting for an earlier answer) count with the time they waited."""
    result = ProbeResult()
    client.reconnect()
    interval = 1.0 / rate
    start = time.monotonic()
    sent = 0
    while True:
        scheduled = start + sent * interval
        if commands.poll(max(0.0, scheduled - time.monotonic())):
            closed: float = commands.recv()
            while (scheduled := start + sent * interval) < closed:
                result.latencies_ms.append((closed - scheduled) * 1000)
                sent += 1
            return result
        sent += 1
        try:
            client.call()
        except Exception as exc:
            result.errors += 1
            if result.first_error is None:
                result.first_error = f"{type(exc).__name__}: {exc}"
        result.latencies_ms.append((time.monotonic() - scheduled) * 1000)


@dataclass(frozen=True)
class ProbeConfig:
    endpoint: str
    prefix: str  # ListQueues' QueueNamePrefix: the answer stays small on a busy deployment
    key_id: str
    secret: str
    rate: float  # calls a second


def _probe_main(commands: Connection, config: ProbeConfig) -> None:
    """The probe process: warm up, then one measurement per `measure` command."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the bench's: it stops us
    client = _ListQueues(config.endpoint, config.prefix, config.key_id, config.secret)
    rate = config.rate
    try:
        warmup_errors = []
        for _ in range(WARMUP_CALLS):
            try:
                client.call()
            except Exception as exc:
                warmup_errors.append(f"{type(exc).__name__}: {exc}")
        commands.send(warmup_errors[0] if len(warmup_errors) == WARMUP_CALLS else "ready")
        while (command := commands.recv()) == "measure":
            commands.send(_measure(client, rate, commands))
        assert command == "quit", command
    finally:
        client.close()


class Probe:
    """The probe process, driven from the bench: `measure()`, then `result()`."""

    def __init__(self, config: ProbeConfig) -> None:
        context = multiprocessing.get_context("spawn")  # nothing of the bench's loop inherited
        self._measuring = False
        self._commands, child_end = context.Pipe()
        self._process = context.Process(
            target=_probe_main,
            args=(child_end, config),
            name="abuse-probe",
            daemon=True,
        )
        self._process.start()
        child_end.close()
        if not self._commands.poll(60):
            self.close()
            raise RuntimeError("the probe did not start within 60 s")
        ready = self._commands.recv()
        if ready != "ready":
            self.close()
            raise RuntimeError(f"the probe cannot call ListQueues: {ready}")

    def measure(self) -> None:
        self._commands.send("measure")
        self._measuring = True

    def result(self) -> ProbeResult:
        """Stops the measurement begun by `measure()` and returns it."""
        self._commands.send(time.monotonic())
        if not self._commands.poll(ANSWER_TIMEOUT_S):
            raise RuntimeError(f"the probe did not answer within {ANSWER_TIMEOUT_S:.0f} s")
        result: ProbeResult = self._commands.recv()
        self._measuring = False
        return result

    def close(self) -> None:
        if self._process.is_alive() and self._measuring:
            self._process.terminate()  # interrupted mid-measurement: nothing to wait for
        elif self._process.is_alive():
            with contextlib.suppress(OSError):
                self._commands.send("quit")
        self._process.join(ANSWER_TIMEOUT_S)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()
        self._commands.close()


def rss_mib(pid: int) -> float | None:
    """The process's resident memory in MiB; None once it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024  # kB
    return None


class RssSampler:
    """The largest RSS of `pid` seen between `start()` and `stop()`, read every 50 ms."""

    def __init__(self, pid: int, interval_s: float = 0.05) -> None:
        self._pid = pid
        self._interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rss-sampler", daemon=True)
        self.peak_mib = 0.0

    def _run(self) -> None:
        while True:
            self.peak_mib = max(self.peak_mib, rss_mib(self._pid) or 0.0)
            if self._stop.wait(self._interval_s):
                return

    def start(self) -> RssSampler:
        self._thread.start()
        return self

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        self.peak_mib = max(self.peak_mib, rss_mib(self._pid) or 0.0)
        return self.peak_mib
