"""The everyday commands (`tidemq queue`, `send`, `receive`, `tail`, `redrive`, `stats`)
against one real `tidemq up` for the module: each subcommand, `--json`, errors and exit
codes, and where the endpoint and credentials come from."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import TidemqProcess, TidemqUp
from tests.sdk.conftest import make_token
from tidemq.cli import main
from tidemq.redis_server import free_port

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "cli.md"
SDK_DOC = REPO / "docs" / "sdk.md"
DOC_ENDPOINT = "http://127.0.0.1:9324"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("everyday-cli")


@pytest.fixture(scope="module")
def server(module_tidemq_up: TidemqUp, data_dir: Path) -> TidemqProcess:
    return module_tidemq_up(data_dir=data_dir)


@pytest.fixture(scope="module")
def token(server: TidemqProcess, data_dir: Path) -> str:
    return make_token(data_dir)


@pytest.fixture
def env(server: TidemqProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The environment `tidemq up` tells a user to set, and no AWS files."""
    for name in list(os.environ):
        if name.startswith(("AWS_", "TIDEMQ_")):
            monkeypatch.delenv(name)
    values = {
        "AWS_ENDPOINT_URL": server.endpoint,
        "AWS_ACCESS_KEY_ID": server.banner["access key id"],
        "AWS_SECRET_ACCESS_KEY": server.banner["secret access key"],
        "AWS_CONFIG_FILE": str(tmp_path / "config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "credentials"),
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    return values


def tidemq(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Runs `tidemq ARGV` in this process: exit code, stdout, stderr."""
    try:
        code = main(list(argv))
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_queue_create_list_attrs_purge_delete(
    env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = tidemq(capsys, "queue", "create", "cli-q", "--attr", "VisibilityTimeout=45")
    assert (code, err) == (0, "")
    assert out.strip().endswith("/123456789012/cli-q")
    code, out, _ = tidemq(capsys, "queue", "list", "--prefix", "cli-")
    assert out.strip().endswith("/cli-q")
    code, out, _ = tidemq(capsys, "queue", "list", "--prefix", "cli-", "--json")
    assert [q["name"] for q in json.loads(out)["queues"]] == ["cli-q"]
    code, out, _ = tidemq(capsys, "queue", "attrs", "cli-q")
    assert ["VisibilityTimeout", "45"] in [line.split() for line in out.splitlines()]
    code, out, _ = tidemq(capsys, "queue", "attrs", "cli-q", "--set", "DelaySeconds=3", "--json")
    assert json.loads(out)["DelaySeconds"] == "3"
    assert json.loads(out)["VisibilityTimeout"] == "45"
    assert tidemq(capsys, "send", "cli-q", "x")[0] == 0
    code, out, _ = tidemq(capsys, "queue", "purge", "cli-q", "--json")
    assert (code, json.loads(out)) == (0, {"purged": "cli-q"})
    code, out, _ = tidemq(capsys, "queue", "delete", "cli-q")
    assert (code, out) == (0, "Deleted queue cli-q.\n")
    code, out, _ = tidemq(capsys, "queue", "list", "--prefix", "cli-", "--json")
    assert json.loads(out) == {"queues": []}


def test_send_one_and_receive_with_delete(
    env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    tidemq(capsys, "queue", "create", "one")
    code, out, _ = tidemq(capsys, "send", "one", "hello", "--attr", "kind=greeting", "--json")
    assert code == 0
    assert json.loads(out)["message_id"]
    code, out, _ = tidemq(capsys, "receive", "one", "--wait", "1", "--delete", "--json")
    [message] = json.loads(out)["messages"]
    assert message["body"] == "hello"
    assert message["attributes"]["kind"]["string_value"] == "greeting"
    code, out, _ = tidemq(capsys, "receive", "one", "--wait", "0")
    assert (code, out) == (0, "")


def test_send_many_from_a_file_and_stdin_then_receive_more_than_one_call(
    env: dict[str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    tidemq(capsys, "queue", "create", "many")
    lines = tmp_path / "lines.txt"
    lines.write_text("".join(f"line {n}\n" for n in range(150)) + "\n")
    code, out, err = tidemq(capsys, "send", "many", "--file", str(lines), "--progress")
    assert (code, out) == (0, "Sent 150 messages to many.\n")
    assert "[##############################] 150/150" in err
    assert tidemq(capsys, "stats", "many", "--json")[1] == (
        '{"many": {"visible": 150, "in_flight": 0, "delayed": 0}}\n'
    )
    code, out, _ = tidemq(capsys, "receive", "many", "--max", "150", "--delete", "--wait", "1")
    assert sorted(out.splitlines()) == sorted(f"line {n}" for n in range(150))

    sent = subprocess.run(
        [sys.executable, "-m", "tidemq.cli", "send", "many", "--json"],
        input="a\nb\n\nc\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert sent.returncode == 0, sent.stderr
    assert sent.stderr == ""  # not a terminal: no bar
    assert [json.loads(line)["line"] for line in sent.stdout.splitlines()] == [1, 2, 4]


def test_a_refused_line_is_reported_and_the_rest_are_sent(
    env: dict[str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    tidemq(capsys, "queue", "create", "partly")
    lines = tmp_path / "lines.txt"
    lines.write_text("good\nbad \x01 control\nalso good\n")
    code, out, err = tidemq(capsys, "send", "partly", "--file", str(lines))
    assert code == 1
    assert out == "Sent 2 messages to partly; 1 refused.\n"
    assert err.startswith("tidemq send: line 2: InvalidMessageContents: ")


def test_stats_of_every_queue(env: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    tidemq(capsys, "queue", "create", "counted")
    tidemq(capsys, "send", "counted", "x")
    code, out, _ = tidemq(capsys, "stats")
    assert code == 0
    assert out.splitlines()[0].split() == ["QUEUE", "VISIBLE", "IN", "FLIGHT", "DELAYED"]
    assert ["counted", "1", "0", "0"] in [line.split() for line in out.splitlines()]


def test_redrive_moves_a_dead_letter_queues_messages_back(
    env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    tidemq(capsys, "queue", "create", "work-dlq")
    dlq_arn = "arn:aws:sqs:us-east-1:123456789012:work-dlq"
    policy = json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 1})
    tidemq(capsys, "queue", "create", "work", "--attr", f"RedrivePolicy={policy}")
    for body in ("a", "b"):
        tidemq(capsys, "send", "work", body)
    tidemq(capsys, "receive", "work", "--max", "2", "--visibility", "0", "--wait", "1")
    tidemq(capsys, "receive", "work", "--max", "2", "--wait", "0")  # moves both to the DLQ
    assert json.loads(tidemq(capsys, "stats", "work-dlq", "--json")[1])["work-dlq"]["visible"] == 2
    code, out, err = tidemq(capsys, "redrive", "work-dlq", "--json")
    assert (code, err) == (0, "")
    task = json.loads(out)
    assert (task["status"], task["moved"], task["source"]) == ("COMPLETED", 2, "work-dlq")
    code, out, _ = tidemq(capsys, "receive", "work", "--max", "2", "--wait", "1")
    assert sorted(out.split()) == ["a", "b"]


def test_a_refusal_is_exit_code_1_with_the_code_and_message(
    env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = tidemq(capsys, "receive", "nowhere", "--json")
    assert (code, out) == (1, "")
    assert err.startswith("tidemq receive: QueueDoesNotExist: ")
    code, _, err = tidemq(capsys, "queue", "create", "bad name!")
    assert code == 1
    assert err.startswith("tidemq queue create: InvalidParameterValue: ")
    code, _, err = tidemq(capsys, "redrive", "nowhere")
    assert code == 1


def test_usage_errors_are_exit_code_2(
    env: dict[str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert tidemq(capsys, "receive")[0] == 2
    assert tidemq(capsys, "receive", "q", "--max", "0")[0] == 2
    code, _, err = tidemq(capsys, "queue", "create", "q", "--attr", "novalue")
    assert (code, err) == (2, "tidemq queue create: --attr 'novalue': give NAME=VALUE\n")
    code, _, err = tidemq(capsys, "send", "q", "--file", "/nonexistent/lines")
    assert code == 2
    assert "cannot read /nonexistent/lines" in err
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    code, _, err = tidemq(capsys, "queue", "list")
    assert code == 2
    assert err.startswith("tidemq queue list: no credentials")


def test_nothing_listening_is_exit_code_3(
    env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    endpoint = f"http://127.0.0.1:{free_port()}"
    code, out, err = tidemq(capsys, "queue", "list", "--endpoint", endpoint)
    assert (code, out) == (3, "")
    assert err.startswith(f"tidemq queue list: cannot connect to TideMQ at {endpoint}")


def test_credentials_and_endpoint_from_an_aws_profile(
    env: dict[str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name)
    Path(env["AWS_SHARED_CREDENTIALS_FILE"]).write_text(
        f"[local]\naws_access_key_id = {env['AWS_ACCESS_KEY_ID']}\n"
        f"aws_secret_access_key = {env['AWS_SECRET_ACCESS_KEY']}\n"
        "[broken]\naws_access_key_id = AKIANOPE\naws_secret_access_key = wrong\n"
    )
    Path(env["AWS_CONFIG_FILE"]).write_text(
        f"[profile local]\nendpoint_url = {env['AWS_ENDPOINT_URL']}\n"
        f"[profile broken]\nendpoint_url = {env['AWS_ENDPOINT_URL']}\n"
    )
    assert tidemq(capsys, "queue", "list", "--profile", "local")[0] == 0
    monkeypatch.setenv("AWS_PROFILE", "local")
    assert tidemq(capsys, "queue", "list")[0] == 0
    code, _, err = tidemq(capsys, "queue", "list", "--profile", "broken")
    assert code == 1
    assert err.startswith("tidemq queue list: InvalidClientTokenId: ")
    code, _, err = tidemq(capsys, "queue", "list", "--profile", "missing")
    assert (code, err) == (2, "tidemq queue list: profile 'missing' has no access key\n")


def test_a_token_from_tidemq_token(
    env: dict[str, str],
    token: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.setenv("TIDEMQ_TOKEN", token)
    assert tidemq(capsys, "queue", "create", "by-token")[0] == 0
    code, _, err = tidemq(capsys, "queue", "list", "--token", "tqb_not-a-token")
    assert code == 1
    assert "tidemq queue list: " in err


def test_every_command_has_an_example_in_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    commands = [
        ["queue", "create"], ["queue", "list"], ["queue", "delete"], ["queue", "attrs"],
        ["queue", "purge"], ["send"], ["receive"], ["tail"], ["redrive"], ["stats"],
    ]  # fmt: skip
    for command in commands:
        code, out, _ = tidemq(capsys, *command, "--help")
        assert code == 0
        assert "examples:\n  tidemq " + " ".join(command) in out, command
        assert "--json" in out
        assert "exit codes: 0 done, 1 TideMQ refused" in out


# `tidemq tail` runs as a user runs it, in its own process, and is ended with Ctrl-C.


class Tail:
    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tidemq.cli", "tail", *argv],
            env={**os.environ, **env, "PYTHONUNBUFFERED": "1"},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def lines(self, count: int) -> list[str]:
        assert self.process.stdout is not None
        return [self.process.stdout.readline().rstrip("\n") for _ in range(count)]

    def interrupt(self) -> tuple[int, str]:
        self.process.send_signal(signal.SIGINT)
        _, err = self.process.communicate(timeout=30)
        return self.process.returncode, err


@pytest.fixture
def tails() -> Iterator[list[Tail]]:
    started: list[Tail] = []
    yield started
    for tail in started:
        if tail.process.poll() is None:
            tail.process.kill()
            tail.process.communicate()


def _until(condition: object, timeout_s: float = 20) -> None:
    deadline = time.monotonic() + timeout_s
    while not callable(condition) or not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


@pytest.mark.parametrize("transport", ["websocket", "poll"])
def test_tail_follows_a_queue_until_ctrl_c(
    env: dict[str, str],
    token: str,
    capsys: pytest.CaptureFixture[str],
    tails: list[Tail],
    transport: str,
) -> None:
    queue = f"followed-{transport}"
    tidemq(capsys, "queue", "create", queue)
    argv = [queue, "--token", token] if transport == "websocket" else [queue, "--poll", "--json"]
    tail = Tail(argv, env)
    tails.append(tail)
    time.sleep(1)  # long enough to be waiting; if not, the messages are still there
    tidemq(capsys, "send", queue, "first")
    tidemq(capsys, "send", queue, "second")
    got = tail.lines(2)
    if transport == "poll":
        got = [json.loads(line)["body"] for line in got]
    assert got == ["first", "second"]
    _until(lambda: '"visible": 0, "in_flight": 0' in tidemq(capsys, "stats", queue, "--json")[1])
    assert tail.interrupt() == (0, "")


@pytest.mark.parametrize("transport", ["websocket", "poll"])
def test_tail_follows_a_topic_through_a_subscription_it_removes(
    env: dict[str, str],
    token: str,
    tails: list[Tail],
    server: TidemqProcess,
    transport: str,
) -> None:
    sns = server.sns_client()
    topic = f"followed-topic-{transport}"
    topic_arn = sns.create_topic(Name=topic)["TopicArn"]
    how = ["--token", token] if transport == "websocket" else ["--poll"]
    tail = Tail([topic, "--topic", *how], env)
    tails.append(tail)
    _until(lambda: len(sns.list_subscriptions_by_topic(TopicArn=topic_arn)["Subscriptions"]) == 1)
    sns.publish(TopicArn=topic_arn, Message="news")
    assert tail.lines(1) == ["news"]
    assert tail.interrupt() == (0, "")
    assert sns.list_subscriptions_by_topic(TopicArn=topic_arn)["Subscriptions"] == []


def test_the_session_of_docs_cli_md_runs_as_printed(
    env: dict[str, str], server: TidemqProcess, tmp_path: Path
) -> None:
    [session] = re.findall(r"```sh\n(.*?)```", DOC.read_text(), re.DOTALL)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "tidemq").write_text(f'#!/bin/sh\nexec {sys.executable} -m tidemq.cli "$@"\n')
    (bin_dir / "tidemq").chmod(0o755)
    ran = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", session.replace(DOC_ENDPOINT, server.endpoint)],
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert lines[0] == f"{server.endpoint}/123456789012/orders"
    assert "Sent 2 messages to orders." in lines
    assert ["orders", "3", "0", "0"] in [line.split() for line in lines]
    assert {"order 1", "order 2", "order 3"} <= set(lines)
    assert '"body": "order 4"' in ran.stdout
    assert ["VisibilityTimeout", "0"] in [line.split() for line in lines]
    assert "exit code 1" in lines
    assert "tidemq receive: QueueDoesNotExist: " in ran.stderr
    assert "Deleted queue orders." in lines


def test_the_python_example_of_docs_sdk_md_runs_as_printed(
    env: dict[str, str], server: TidemqProcess
) -> None:
    [example] = re.findall(r"```python\n(.*?)```", SDK_DOC.read_text(), re.DOTALL)
    ran = subprocess.run(
        [sys.executable, "-c", example.replace(DOC_ENDPOINT, server.endpoint)],
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "1\n400 InvalidMessageContents\nQueueDoesNotExist\n"
