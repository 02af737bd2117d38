"""docs/topics.md runs as printed against `tidemq up`: the boto3 example, the AWS CLI and
curl examples (one shell session, `tidemq topic seek` included), the WebSocket example;
and every route its curl examples use is one the OpenAPI document has."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.rest.openapi import document
from tests.conftest import TidemqProcess, TidemqUp

REPO = Path(__file__).parent.parent
DOC = REPO / "docs" / "topics.md"
DOC_ENDPOINT = "http://127.0.0.1:9324"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(), re.DOTALL)


class Up:
    """A `tidemq up`, and the environment the doc's examples assume: the AWS variables it
    prints exported, `tidemq` and `aws` on the PATH, its data directory and port."""

    def __init__(self, process: TidemqProcess, data_dir: Path, bin_dir: Path) -> None:
        self.process = process
        [export] = [line for line in process.output[0].splitlines() if "export AWS_" in line]
        bin_dir.mkdir()
        tidemq = bin_dir / "tidemq"
        tidemq.write_text(f'#!/bin/sh\nexec {sys.executable} -m tidemq.cli "$@"\n')
        tidemq.chmod(0o755)
        self.env = {
            **os.environ,
            **dict(item.split("=", 1) for item in export.split()[1:]),
            "AWS_CONFIG_FILE": "/dev/null",
            "AWS_SHARED_CREDENTIALS_FILE": "/dev/null",
            "PATH": os.pathsep.join(
                [str(bin_dir), str(Path(sys.executable).parent), os.environ["PATH"]]
            ),
            "PYTHONPATH": str(REPO),
            "TIDEMQ_DATA_DIR": str(data_dir),
            "TIDEMQ_PORT": process.endpoint.rsplit(":", 1)[1],
        }

    def run(self, command: list[str], script: str) -> str:
        text = script.replace(DOC_ENDPOINT, self.process.endpoint)
        text = text.replace(
            DOC_ENDPOINT.replace("http", "ws"), self.process.endpoint.replace("http", "ws")
        )
        result = subprocess.run(
            [*command, text],
            env=self.env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout


@pytest.fixture
def up(tidemq_up: TidemqUp, tmp_path: Path) -> Up:
    data_dir = tmp_path / "tidemq"
    return Up(tidemq_up(data_dir=data_dir), data_dir, tmp_path / "bin")


def test_the_boto3_example_runs_as_printed(up: Up) -> None:
    boto3_example = _blocks("python")[0]
    assert up.run([sys.executable, "-c"], boto3_example) == "['order of 250']\n"


def test_the_shell_examples_run_as_printed(up: Up) -> None:
    script = "\n".join(_blocks("sh"))
    out = up.run(["bash", "-euo", "pipefail", "-c"], script)
    assert "a red one" in out
    assert "a blue one" not in out
    assert '"error"' not in out, out
    assert '"protocol":"pull"' in out
    assert '"stats":{"visible":' in out
    assert out.count('{"offset":0,"end_offset":3}') == 2
    assert "now delivers from offset 0 (the log ends at 3)." in out


def test_the_websocket_example_runs_as_printed(up: Up) -> None:
    token = subprocess.run(
        ["tidemq", "keys", "token"], env=up.env, capture_output=True, text=True, check=True
    ).stdout
    match = re.search(r"^  token\s+(tqb_\S+)$", token, re.MULTILINE)
    assert match is not None
    up.env["TIDEMQ_TOKEN"] = match.group(1)
    websocket_example = _blocks("python")[1]
    assert up.run([sys.executable, "-c"], websocket_example) == "ACME 10.5\ncursor_set 0\n"


def test_every_curl_example_uses_a_documented_route() -> None:
    paths = document()["paths"]
    text = "\n".join(_blocks("sh")).replace("\\\n", " ")
    commands = [
        shlex.split(line.split("$(", 1)[-1]) for line in text.splitlines() if "curl " in line
    ]
    assert len(commands) > 15
    for command in commands:
        method = command[command.index("-X") + 1] if "-X" in command else "GET"
        [url] = [arg for arg in command if arg.startswith("$TIDEMQ")]
        path = url.removeprefix("$TIDEMQ").split("?", 1)[0]
        path = re.sub(r"^/v1/(topics|queues)/[^/]+", r"/v1/\1/{name}", path)
        path = re.sub(r"^/v1/subscriptions/\$SUB", "/v1/subscriptions/{id}", path)
        assert method.lower() in paths[path], command
