"""docs/tiering.md's worked example, run as printed against a real `tidemq up`."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
from pathlib import Path

import pytest

from tests.conftest import TidemqUp
from tidemq.cli import main

DOC = Path(__file__).parents[3] / "docs" / "tiering.md"
_PRINTED_ENDPOINT = "http://127.0.0.1:9324"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(), re.DOTALL)


@pytest.mark.slow
def test_the_worked_example_runs_as_printed(
    tidemq_up: TidemqUp, monkeypatch: pytest.MonkeyPatch
) -> None:
    [up_line] = [line for b in _blocks("sh") for line in b.splitlines() if "tidemq up" in line]
    words = shlex.split(up_line)
    assert words[-2:] == ["tidemq", "up"]
    settings = dict(word.split("=", 1) for word in words[:-2])
    server = tidemq_up(settings=settings)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", server.banner["access key id"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", server.banner["secret access key"])
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")

    [example] = _blocks("python")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(example.replace(_PRINTED_ENDPOINT, server.endpoint), {})
    assert printed.getvalue() == "1000 orders received\n"

    commands = [shlex.split(line) for b in _blocks("sh") for line in b.splitlines()]
    archive_commands = [c for c in commands if c[:2] == ["tidemq", "archive"]]
    assert len(archive_commands) == 2
    outputs = []
    for command in archive_commands:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main([*command[1:], "--endpoint", server.endpoint]) == 0
        outputs.append(out.getvalue())
    assert "offsets 0..1000 archived" in outputs[0]
    [partition] = json.loads(outputs[1])["partitions"]
    assert partition["archive_end_offset"] == 1000
    assert partition["log_start_offset"] == 1000, "only the newest segment stays local"
    assert server.stop() == 0
