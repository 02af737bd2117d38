"""Load tests of a running TideMQ with locust: `loadtests/run.sh URL SECONDS [SCENARIO]`.

Every API a client uses, one user class each (docs/operations.md, "Load tests"):

| scenario (tag) | user classes | what each does |
|---|---|---|
| `rest` | RestPublisher, RestConsumer | REST batch sends of 10; receive up to 10 + delete them |
| `sqs` | SqsProducer, SqsConsumer | SendMessageBatch; ReceiveMessage + DeleteMessageBatch |
| `ws` | WebSocketConsumer | WebSocket `publish` frames, and pushed deliveries acked |
| `topic` | TopicFanout | SNS PublishBatch to a topic (Query API), fanned out to a queue, drained |

Credentials come as the AWS CLI takes them: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (and
AWS_DEFAULT_REGION, us-east-1 by default). HTTP requests are signed with botocore's
SigV4 (service `sqs` for SQS and REST, `sns` for SNS). The WebSocket API takes bearer
tokens only: WebSocketConsumer needs TIDEMQ_TOKEN (`tidemq keys token`).

At the start the queues and the topic of this run (`lt-<random>-...`) are created; at
the end they are deleted. All HTTP users are FastHttpUser (geventhttpclient, about
three times the requests per core of HttpUser); the WebSocket one drives the
`websockets` library's synchronous client, which gevent makes cooperative.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

import requests
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from locust import FastHttpUser, User, between, events, tag, task
from locust.env import Environment
from locust.exception import StopUser
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import ClientConnection, connect

BATCH = 10
BODY = "x" * 256  # the size `tidemq bench` sends
JSON_1_0 = "application/x-amz-json-1.0"
FORM = "application/x-www-form-urlencoded"
WAIT_SECONDS = 1  # long polls: short, so that a run ends on time
WS_CREDIT = 50
WS_READ_S = 5.0


@dataclass
class Run:
    """What this run made on the server: its queues' names and URLs, its topic."""

    host: str
    prefix: str = field(default_factory=lambda: f"lt-{secrets.token_hex(4)}")
    queue_urls: dict[str, str] = field(default_factory=dict)
    topic_arn: str = ""

    def name(self, kind: str) -> str:
        return f"{self.prefix}-{kind}"


class Signer:
    """SigV4 over a whole request, with the credentials of the environment."""

    def __init__(self) -> None:
        try:
            key_id, secret = os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"]
        except KeyError as exc:
            raise SystemExit(f"{exc.args[0]} is not set: the load test signs its requests") from exc
        self._credentials = Credentials(key_id, secret)
        self._region = os.environ.get("AWS_DEFAULT_REGION", "us-east-1")

    def headers(
        self, service: str, url: str, body: bytes, headers: dict[str, str]
    ) -> dict[str, str]:
        request = AWSRequest(method="POST", url=url, data=body, headers=headers)
        SigV4Auth(self._credentials, service, self._region).add_auth(request)
        return dict(request.headers.items())


_signer: Signer | None = None
_run: Run | None = None


def signer() -> Signer:
    global _signer  # noqa: PLW0603 - one per process, made on first use
    if _signer is None:
        _signer = Signer()
    return _signer


def run() -> Run:
    assert _run is not None, "the run's queues are made when the test starts"
    return _run


# -- setting up and tearing down (plain requests, outside the statistics) ----------------


def _sqs(host: str, action: str, params: dict[str, Any]) -> dict[str, Any]:
    body = json.dumps(params).encode()
    headers = {"Content-Type": JSON_1_0, "X-Amz-Target": f"AmazonSQS.{action}"}
    url = host.rstrip("/") + "/"
    answer = requests.post(
        url, data=body, headers=signer().headers("sqs", url, body, headers), timeout=30
    )
    answer.raise_for_status()
    result: dict[str, Any] = answer.json()
    return result


def _sns(host: str, params: dict[str, str]) -> str:
    body = urllib.parse.urlencode({**params, "Version": "2010-03-31"}).encode()
    url = host.rstrip("/") + "/"
    headers = signer().headers("sns", url, body, {"Content-Type": FORM})
    answer = requests.post(url, data=body, headers=headers, timeout=30)
    answer.raise_for_status()
    return answer.text


def _xml_value(xml: str, element: str) -> str:
    start = xml.index(f"<{element}>") + len(element) + 2
    return xml[start : xml.index(f"</{element}>", start)]


@events.test_start.add_listener
def _make_queues(environment: Environment, **_: Any) -> None:
    global _run  # noqa: PLW0603 - the run's resources, shared by its users
    host = environment.host
    assert host, "run with --host URL"
    try:
        _run = _made(host)
    except requests.RequestException as exc:
        answer = getattr(exc, "response", None)
        detail = f": {answer.text[:300]}" if answer is not None else ""
        logging.error("cannot make the run's queues on %s (%s)%s", host, exc, detail)
        environment.process_exit_code = 1
        assert environment.runner is not None
        environment.runner.quit()


def _made(host: str) -> Run:
    made = Run(host)
    for kind in ("rest", "sqs", "ws", "fanout"):
        created = _sqs(host, "CreateQueue", {"QueueName": made.name(kind)})
        made.queue_urls[kind] = created["QueueUrl"]
    made.topic_arn = _xml_value(
        _sns(host, {"Action": "CreateTopic", "Name": made.name("topic")}), "TopicArn"
    )
    fanout_arn = _sqs(
        host,
        "GetQueueAttributes",
        {"QueueUrl": made.queue_urls["fanout"], "AttributeNames": ["QueueArn"]},
    )["Attributes"]["QueueArn"]
    _sns(
        host,
        {
            "Action": "Subscribe",
            "TopicArn": made.topic_arn,
            "Protocol": "sqs",
            "Endpoint": fanout_arn,
            "Attributes.entry.1.key": "RawMessageDelivery",
            "Attributes.entry.1.value": "true",
        },
    )
    return made


@events.test_stop.add_listener
def _delete_queues(environment: Environment, **_: Any) -> None:
    if _run is None:
        return
    for url in _run.queue_urls.values():
        _sqs(_run.host, "DeleteQueue", {"QueueUrl": url})
    _sns(_run.host, {"Action": "DeleteTopic", "TopicArn": _run.topic_arn})


# -- HTTP users -------------------------------------------------------------------------


class SignedUser(FastHttpUser):
    abstract = True
    wait_time = between(0, 0.01)

    def post_signed(
        self, service: str, path: str, body: bytes, headers: dict[str, str], name: str
    ) -> Any:
        """POSTs `body` signed for `service`; the answer's JSON, or None (a failure,
        already reported to locust)."""
        url = self.host.rstrip("/") + path
        signed = signer().headers(service, url, body, headers)
        with self.client.post(
            path, data=body, headers=signed, name=name, catch_response=True
        ) as answer:
            if answer.status_code != 200:
                answer.failure(f"{answer.status_code}: {answer.text[:200]}")
                return None
            return answer.json() if answer.text else {}

    def rest(self, path: str, payload: dict[str, Any], name: str) -> Any:
        body = json.dumps(payload).encode()
        return self.post_signed("sqs", path, body, {"Content-Type": "application/json"}, name)

    def sqs(self, action: str, payload: dict[str, Any]) -> Any:
        body = json.dumps(payload).encode()
        headers = {"Content-Type": JSON_1_0, "X-Amz-Target": f"AmazonSQS.{action}"}
        return self.post_signed("sqs", "/", body, headers, f"sqs {action}")

    def sqs_receive_and_delete(self, url: str) -> None:
        """One SQS long poll for a batch, then one DeleteMessageBatch of what came."""
        received = self.sqs(
            "ReceiveMessage",
            {"QueueUrl": url, "MaxNumberOfMessages": BATCH, "WaitTimeSeconds": WAIT_SECONDS},
        )
        if not received or not received.get("Messages"):
            return
        entries = [
            {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]}
            for i, m in enumerate(received["Messages"])
        ]
        answer = self.sqs("DeleteMessageBatch", {"QueueUrl": url, "Entries": entries})
        if answer is not None:
            self.failed_entries("sqs DeleteMessageBatch entries", answer, "Failed")

    def failed_entries(self, name: str, answer: Any, key: str) -> None:
        """Reports entries a batch answer refused as a failure of their own."""
        failed = [entry for entry in answer.get(key, []) if entry.get("error") or key == "Failed"]
        if failed:
            events.request.fire(
                request_type="BATCH", name=name, response_time=0, response_length=0,
                exception=RuntimeError(f"{len(failed)} entries refused: {failed[0]}"), context={},
            )  # fmt: skip


class RestPublisher(SignedUser):
    @tag("rest")
    @task
    def send_batch(self) -> None:
        path = f"/v1/queues/{run().name('rest')}/messages/batch"
        answer = self.rest(path, {"messages": [{"body": BODY}] * BATCH}, "rest send-batch")
        if answer is not None:
            self.failed_entries("rest send-batch entries", answer, "results")


class RestConsumer(SignedUser):
    @tag("rest")
    @task
    def receive_and_delete(self) -> None:
        queue = run().name("rest")
        received = self.rest(
            f"/v1/queues/{queue}/messages/receive",
            {"max_messages": BATCH, "wait_seconds": WAIT_SECONDS},
            "rest receive",
        )
        if not received or not received["messages"]:
            return
        handles = [m["receipt_handle"] for m in received["messages"]]
        self.rest(
            f"/v1/queues/{queue}/messages/delete", {"receipt_handles": handles}, "rest delete"
        )


class SqsProducer(SignedUser):
    @tag("sqs")
    @task
    def send_batch(self) -> None:
        entries = [{"Id": str(i), "MessageBody": BODY} for i in range(BATCH)]
        answer = self.sqs(
            "SendMessageBatch", {"QueueUrl": run().queue_urls["sqs"], "Entries": entries}
        )
        if answer is not None:
            self.failed_entries("sqs SendMessageBatch entries", answer, "Failed")


class SqsConsumer(SignedUser):
    @tag("sqs")
    @task
    def receive_and_delete(self) -> None:
        self.sqs_receive_and_delete(run().queue_urls["sqs"])


class TopicFanout(SignedUser):
    """Publishes a batch of 10 to the run's topic (SNS Query API, PublishBatch), then
    drains the queue the topic fans out to: one task, so that every iteration publishes
    (two tasks picked at random could long-poll a short run away without publishing)."""

    @tag("topic")
    @task
    def publish_and_drain(self) -> None:
        self._publish()
        self.sqs_receive_and_delete(run().queue_urls["fanout"])

    def _publish(self) -> None:
        params = {
            "Action": "PublishBatch",
            "TopicArn": run().topic_arn,
            "Version": "2010-03-31",
        }
        for i in range(1, BATCH + 1):
            params[f"PublishBatchRequestEntries.member.{i}.Id"] = str(i)
            params[f"PublishBatchRequestEntries.member.{i}.Message"] = BODY
        body = urllib.parse.urlencode(params).encode()
        url = self.host.rstrip("/") + "/"
        signed = signer().headers("sns", url, body, {"Content-Type": FORM})
        with self.client.post(
            "/", data=body, headers=signed, name="sns PublishBatch", catch_response=True
        ) as answer:
            # Every entry published has its MessageId in the answer; a refused one not.
            if answer.status_code != 200 or answer.text.count("<MessageId>") != BATCH:
                answer.failure(f"{answer.status_code}: {answer.text[:300]}")


# -- WebSocket ------------------------------------------------------------------------


class WebSocketConsumer(User):
    """One connection: subscribes to the run's WebSocket queue with credit WS_CREDIT,
    publishes a batch, and acks every delivery pushed meanwhile. Each frame answered
    (`published`, `settled`) is a request timed from when its frame was sent; each
    pushed `deliver` is reported with its size in messages."""

    wait_time = between(0, 0.01)

    def on_start(self) -> None:
        token = os.environ.get("TIDEMQ_TOKEN")
        if not token:
            raise SystemExit("TIDEMQ_TOKEN is not set: the WebSocket API takes bearer tokens")
        url = self.host.replace("http://", "ws://").replace("https://", "wss://").rstrip("/")
        started_s = time.perf_counter()
        try:
            self._ws: ClientConnection = connect(
                url + "/v1/ws", additional_headers={"Authorization": f"Bearer {token}"}
            )
        except (OSError, InvalidHandshake) as exc:
            self._report("ws connect", (time.perf_counter() - started_s) * 1000, 0, exc)
            raise StopUser from exc
        self._report("ws connect", (time.perf_counter() - started_s) * 1000, 0, None)
        self._sent: dict[str, tuple[str, float]] = {}  # frame id -> (name, sent at)
        self._next_id = 0
        self._queue = run().name("ws")
        self._request("subscribe", {"op": "subscribe", "queue": self._queue, "credit": WS_CREDIT})

    def on_stop(self) -> None:
        if hasattr(self, "_ws"):
            self._ws.close()

    @tag("ws")
    @task
    def publish_and_consume(self) -> None:
        messages = [{"body": BODY}] * BATCH
        self._request("publish", {"op": "publish", "queue": self._queue, "messages": messages})
        self._read_until_answered()

    def _request(self, name: str, frame: dict[str, Any]) -> None:
        self._next_id += 1
        frame_id = str(self._next_id)
        self._sent[frame_id] = (f"ws {name}", time.perf_counter())
        self._ws.send(json.dumps({**frame, "id": frame_id}))

    def _read_until_answered(self) -> None:
        """Reads frames until every frame sent has its answer, acking deliveries; at
        most WS_READ_S, since deliveries (and so acks) go on while others publish."""
        deadline = time.monotonic() + WS_READ_S
        while self._sent and time.monotonic() < deadline:
            try:
                frame = json.loads(self._ws.recv(timeout=30))
            except (TimeoutError, ConnectionClosed) as exc:
                for name, _sent_at in self._sent.values():
                    self._report(name, 0, 0, exc)
                self._sent.clear()
                return
            kind = frame.get("type")
            if kind == "deliver":
                handles = [m["receipt_handle"] for m in frame["messages"]]
                self._report("ws deliver", 0, len(handles), None)
                self._request(
                    "ack", {"op": "ack", "queue": self._queue, "receipt_handles": handles}
                )
                continue
            sent = self._sent.pop(frame.get("id", ""), None)
            if sent is None:
                continue
            name, sent_at = sent
            error = None
            if kind == "error":
                error = RuntimeError(json.dumps(frame["error"]))
            elif kind == "settled" and any("error" in r for r in frame["results"]):
                error = RuntimeError(f"ack refused: {frame['results']}")
            elif kind == "published" and any("error" in r for r in frame["results"]):
                error = RuntimeError(f"publish refused: {frame['results']}")
            self._report(name, (time.perf_counter() - sent_at) * 1000, 0, error)

    def _report(self, name: str, ms: float, length: int, error: BaseException | None) -> None:
        self.environment.events.request.fire(
            request_type="WS", name=name, response_time=ms, response_length=length,
            exception=error, context={},
        )  # fmt: skip
