"""`--setting` of `tidemq bench` and loadtests/bench_abuse.py: a setting of the measured
`tidemq up`, checked as `tidemq up` checks it, and only that server's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tidemq.bench.servers import BenchError, server_settings, start_stack
from tidemq.cli import main


def test_settings_become_the_servers_environment() -> None:
    assert server_settings(["TIDEMQ_ACCEPT_PER_ROUND=8", "TIDEMQ_ALLOCATOR=system"]) == {
        "TIDEMQ_ACCEPT_PER_ROUND": "8",
        "TIDEMQ_ALLOCATOR": "system",
    }
    assert server_settings([]) == {}


@pytest.mark.parametrize(
    ("pair", "says"),
    [
        ("TIDEMQ_ACCEPT_PER_ROUND", "TIDEMQ_NAME=VALUE"),
        ("ACCEPT_PER_ROUND=8", "TIDEMQ_NAME=VALUE"),
        ("TIDEMQ_ACCEPT_PER_ROUND=", "TIDEMQ_NAME=VALUE"),
        ("TIDEMQ_DURABILITY=none", "the bench sets it"),
        ("TIDEMQ_PORT=1", "the bench sets it"),
        ("TIDEMQ_ACCEPT_PER_RUOND=8", "no such setting TIDEMQ_ACCEPT_PER_RUOND"),
        ("TIDEMQ_ACCEPT_PER_ROUND=0", "accept_per_round"),
        ("TIDEMQ_ALLOCATOR=jemalloc", "allocator"),
    ],
)
def test_a_setting_the_server_would_refuse_is_refused_first(pair: str, says: str) -> None:
    with pytest.raises(BenchError, match=says):
        server_settings([pair])


def test_the_started_server_has_the_setting(tmp_path: Path) -> None:
    server, _, _ = start_stack(tmp_path, {"TIDEMQ_ACCEPT_PER_ROUND": "8"})
    try:
        environ = Path(f"/proc/{server.pid}/environ").read_bytes().split(b"\0")
    finally:
        server.stop()
    assert b"TIDEMQ_ACCEPT_PER_ROUND=8" in environ
    assert b"TIDEMQ_DURABILITY=fsync" in environ


def test_a_setting_is_not_for_a_running_deployment(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "bench",
            "--endpoint", "http://127.0.0.1:9",
            "--token", "t", "--access-key-id", "k", "--secret-access-key", "s",
            "--setting", "TIDEMQ_ACCEPT_PER_ROUND=8",
        ]
    )  # fmt: skip
    assert code == 2
    assert "--setting is for the `tidemq up` the bench starts" in capsys.readouterr().err
