"""The process's logging: text for a terminal, or JSON lines for a log pipeline.

`TIDEMQ_LOG_FORMAT=json` writes each record as one JSON object on one line of standard
error, the shape Loki, CloudWatch Logs, Elasticsearch and `jq` take without parsing
rules:

    {"time": "2026-11-25T01:02:03.456Z", "level": "INFO", "logger": "tidemq.access",
     "message": "POST / 200 1.2 ms", "request_id": "1b4e28ba-...", "method": "POST",
     "path": "/", "status": 200, "duration_ms": 1.234}

`request_id` is there for every record written while a request was being served (the
id the response carried as `x-amzn-RequestId`: gateway/request_ids.py), so one grep
finds everything about a request a client reports; the fields an access record carries
(`extra=`) are keys of their own; `exception` holds a traceback. The text format is the
same record on one readable line, with the request id in brackets when there is one.
"""

from __future__ import annotations

import logging
import sys
import time
from typing import Any

import orjson

from gateway import request_ids
from tidemq.settings import LogFormat

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s%(request_tag)s: %(message)s"

# A LogRecord's own attributes: whatever else a record has came from `extra=`.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
    "request_id",
    "request_tag",
    "color_message",  # uvicorn's copy of the message with terminal colours
}


class _RequestContext(logging.Filter):
    """Stamps each record with the id of the request its task serves, if any."""

    def filter(self, record: logging.LogRecord) -> bool:
        rid = request_ids.current.get()
        record.request_id = rid
        record.request_tag = f" [{rid}]" if rid else ""
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        seconds = int(record.created)
        millis = int((record.created - seconds) * 1000)
        line: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = getattr(record, "request_id", None)
        if rid:
            line["request_id"] = rid
        for key, value in vars(record).items():
            if key not in _STANDARD:
                line[key] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        elif record.stack_info:
            line["stack"] = record.stack_info
        return orjson.dumps(line, default=str).decode()


def configure(level: int, log_format: LogFormat = "text") -> None:
    """Sends every logger's records at `level` and above to standard error, in the format
    asked for; replaces whatever was configured before (so `tidemq up` can configure once
    its settings are read)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(_RequestContext())
    if log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
