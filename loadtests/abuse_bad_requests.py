"""The malformed requests of `loadtests/bench_abuse.py`'s `unicode_digits` and `poison_xml`
scenarios, each signed once (SigV4 over the Query or JSON protocol, or a bearer token on
REST). None of them should get a 5xx; every XML answer should parse.

- unicode_digits: numbers written with characters that `str.isdigit` accepts and `int`
  does not (superscripts), or that `int` reads though SQS would not (Arabic-Indic
  digits), in every kind of integer parameter.
- poison_xml: NUL and other characters XML 1.0 cannot carry, in message attributes,
  bodies, tags, action and queue names, which an answer may echo into its XML.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

import orjson

from loadtests.abuse_probe import signed_headers
from tidemq.bench.servers import Credentials

FORM = "application/x-www-form-urlencoded; charset=utf-8"
JSON_1_0 = "application/x-amz-json-1.0"


@dataclass(frozen=True)
class Target:
    """Where the bad requests go: one queue of their own, by name and SQS URL."""

    endpoint: str
    credentials: Credentials
    queue: str
    url: str


@dataclass(frozen=True)
class BadRequest:
    name: str
    method: str
    path: str
    body: bytes
    headers: dict[str, str]
    xml: bool  # the answer is the Query protocol's XML


def _query(target: Target, name: str, form: list[tuple[str, str]]) -> BadRequest:
    body = urlencode(form).encode()
    key = target.credentials
    headers = signed_headers(
        target.endpoint + "/",
        body,
        {"Content-Type": FORM},
        key.access_key_id,
        key.secret_access_key,
    )
    return BadRequest(name, "POST", "/", body, headers, xml=True)


def _json(target: Target, name: str, action: str, params: dict[str, object]) -> BadRequest:
    body = orjson.dumps(params)
    key = target.credentials
    headers = signed_headers(
        target.endpoint + "/",
        body,
        {"Content-Type": JSON_1_0, "X-Amz-Target": f"AmazonSQS.{action}"},
        key.access_key_id,
        key.secret_access_key,
    )
    return BadRequest(name, "POST", "/", body, headers, xml=False)


def _rest(target: Target, name: str, method: str, path: str, payload: object) -> BadRequest:
    headers = {
        "Authorization": f"Bearer {target.credentials.token}",
        "Content-Type": "application/json",
    }
    body = b"" if payload is None else orjson.dumps(payload)
    return BadRequest(name, method, path, body, headers, xml=False)


def unicode_digit_requests(target: Target) -> list[BadRequest]:
    url, queue = target.url, target.queue
    receive = [("Action", "ReceiveMessage"), ("QueueUrl", url)]
    return [
        _query(target, "q_receive_max_superscript", [*receive, ("MaxNumberOfMessages", "²")]),
        _query(target, "q_receive_visibility_superscript", [*receive, ("VisibilityTimeout", "³")]),
        _query(target, "q_receive_wait_superscript", [*receive, ("WaitTimeSeconds", "¹")]),
        _query(
            target,
            "q_receive_max_arabic_indic",
            [*receive, ("MaxNumberOfMessages", "\u0661\u0660")],
        ),
        _query(
            target,
            "q_send_delay_superscript",
            [
                ("Action", "SendMessage"),
                ("QueueUrl", url),
                ("MessageBody", "x"),
                ("DelaySeconds", "²"),
            ],
        ),
        _query(
            target,
            "q_change_visibility_superscript",
            [
                ("Action", "ChangeMessageVisibility"),
                ("QueueUrl", url),
                ("ReceiptHandle", "not-a-receipt"),
                ("VisibilityTimeout", "²"),
            ],
        ),
        _query(
            target,
            "q_set_attribute_superscript",
            [
                ("Action", "SetQueueAttributes"),
                ("QueueUrl", url),
                ("Attribute.1.Name", "VisibilityTimeout"),
                ("Attribute.1.Value", "²"),
            ],
        ),
        _json(
            target,
            "j_receive_max_superscript",
            "ReceiveMessage",
            {"QueueUrl": url, "MaxNumberOfMessages": "²"},
        ),
        _rest(target, "rest_list_limit_superscript", "GET", "/v1/queues?limit=%C2%B2", None),
        _rest(
            target,
            "rest_receive_max_superscript",
            "POST",
            f"/v1/queues/{queue}/messages/receive",
            {"max_messages": "²"},
        ),
    ]


def poison_xml_requests(target: Target) -> list[BadRequest]:
    url, queue = target.url, target.queue
    send = [("Action", "SendMessage"), ("QueueUrl", url)]

    def attribute(name: str, data_type: str, value: str) -> list[tuple[str, str]]:
        return [
            ("MessageAttribute.1.Name", name),
            ("MessageAttribute.1.Value.DataType", data_type),
            ("MessageAttribute.1.Value.StringValue", value),
        ]

    return [
        _query(target, "q_send_nul_body", [*send, ("MessageBody", "a\x00b")]),
        _query(
            target,
            "q_send_nul_attribute_value",
            [*send, ("MessageBody", "x"), *attribute("a", "String", "a\x00b")],
        ),
        _query(
            target,
            "q_send_control_attribute_value",
            [*send, ("MessageBody", "x"), *attribute("a", "String", "\x0b\x1f\ufffe")],
        ),
        _query(
            target,
            "q_send_nul_attribute_name",
            [*send, ("MessageBody", "x"), *attribute("a\x00b", "String", "v")],
        ),
        _query(
            target,
            "q_send_nul_data_type",
            [*send, ("MessageBody", "x"), *attribute("a", "String\x00", "v")],
        ),
        _json(
            target,
            "j_send_nul_attribute_value",
            "SendMessage",
            {
                "QueueUrl": url,
                "MessageBody": "x",
                "MessageAttributes": {"a": {"DataType": "String", "StringValue": "a\x00b"}},
            },
        ),
        _rest(
            target,
            "rest_send_nul_attribute_value",
            "POST",
            f"/v1/queues/{queue}/messages",
            {"body": "x", "attributes": {"a": {"data_type": "String", "string_value": "\x00"}}},
        ),
        _query(
            target,
            "q_receive_all_attributes",
            [
                ("Action", "ReceiveMessage"),
                ("QueueUrl", url),
                ("MaxNumberOfMessages", "10"),
                ("MessageAttributeName.1", "All"),
                ("AttributeName.1", "All"),
                ("VisibilityTimeout", "0"),
            ],
        ),
        _query(
            target,
            "q_tag_nul_value",
            [
                ("Action", "TagQueue"),
                ("QueueUrl", url),
                ("Tag.1.Key", "k"),
                ("Tag.1.Value", "a\x00b"),
            ],
        ),
        _query(target, "q_list_tags", [("Action", "ListQueueTags"), ("QueueUrl", url)]),
        _query(target, "q_action_nul", [("Action", "Send\x00Message"), ("QueueUrl", url)]),
        _query(target, "q_queue_name_nul", [("Action", "GetQueueUrl"), ("QueueName", "a\x00b")]),
    ]
