"""Logs as an operator reads them: `tidemq up` with TIDEMQ_LOG_FORMAT=json writes each
record as one JSON object per line, and with TIDEMQ_ACCESS_LOG a record per request that
names the id the client got in `x-amzn-RequestId`."""

from __future__ import annotations

import json
import logging
import signal
import sys
import time
from typing import Any

import httpx
import pytest

from tests.conftest import TidemqProcess, TidemqUp
from tidemq.logs import JsonFormatter


def _json_records(server: TidemqProcess) -> list[dict[str, Any]]:
    return [json.loads(line) for line in server.text.splitlines() if line.startswith("{")]


def _access_record(server: TidemqProcess, request_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        for record in _json_records(server):
            if record["logger"] == "tidemq.access" and record.get("request_id") == request_id:
                return record
        time.sleep(0.05)
    raise AssertionError(f"no record of {request_id} in:\n{server.text}")


def test_json_lines_with_an_access_record_per_request(tidemq_up: TidemqUp) -> None:
    server = tidemq_up(settings={"TIDEMQ_LOG_FORMAT": "json", "TIDEMQ_ACCESS_LOG": "1"})
    sqs = server.sqs_client()
    created = sqs.create_queue(QueueName="logged")["ResponseMetadata"]
    missing = httpx.get(server.endpoint + "/v1/queues")  # no token: 401

    record = _access_record(server, created["RequestId"])
    assert record["level"] == "INFO"
    assert (record["method"], record["path"], record["status"]) == ("POST", "/", 200)
    assert record["duration_ms"] >= 0
    assert record["time"].endswith("Z")
    refused = _access_record(server, missing.headers["x-amzn-requestid"])
    assert (refused["path"], refused["status"]) == ("/v1/queues", 401)
    # What the request logged on its way names it too.
    why = [r for r in _json_records(server) if r.get("request_id") == refused["request_id"]]
    assert any("MissingAuthenticationToken" in r["message"] for r in why), why

    # Everything the server logged, start-up included, is JSON; the banner is not a log.
    server.process.send_signal(signal.SIGTERM)
    assert server.wait() == 0
    logged = [line for line in server.text.splitlines() if line.startswith("{")]
    assert any(json.loads(line)["message"] == "TideMQ stopped" for line in logged)
    for line in server.text.splitlines():
        assert line.startswith("{") or "INFO" not in line, line


def test_a_bad_log_format_is_refused_with_the_choices(tidemq_up: TidemqUp) -> None:
    with pytest.raises(RuntimeError, match="log_format must be one of text, json"):
        tidemq_up(settings={"TIDEMQ_LOG_FORMAT": "yaml"})


def test_the_formatter_keeps_exceptions_and_extra_fields() -> None:
    try:
        raise ValueError("broken")
    except ValueError:
        record = logging.LogRecord(
            "tidemq.test", logging.ERROR, __file__, 1, "failed %s", ("here",), sys.exc_info()
        )
    record.request_id = None
    record.queue = "orders"
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "failed here"
    assert line["queue"] == "orders"
    assert "request_id" not in line
    assert "ValueError: broken" in line["exception"]
