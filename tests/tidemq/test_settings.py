from __future__ import annotations

from pathlib import Path

import pytest

from tidemq.cli import main
from tidemq.settings import NODE_HTTP_PORT, Settings, SettingsError


def test_flags_override_environment_which_overrides_the_file(tmp_path: Path) -> None:
    config = tmp_path / "tidemq.toml"
    config.write_text('host = "0.0.0.0"\nport = 7000\ndata_dir = "/srv/file"\n')
    settings = Settings.load(
        flags={"port": 9000, "host": None},
        env={"TIDEMQ_PORT": "8000", "TIDEMQ_DATA_DIR": "/srv/env", "TIDEMQ_CONFIG": str(config)},
    )
    assert (settings.host, settings.port, settings.data_dir) == ("0.0.0.0", 9000, Path("/srv/env"))


def test_defaults() -> None:
    settings = Settings.load(env={})
    assert (settings.host, settings.port, settings.data_dir) == (
        "127.0.0.1",
        9324,
        Path(".tidemq"),
    )
    assert settings.durability == "fsync"
    assert (settings.metrics_max_queues, settings.metrics_token) == (1000, None)
    assert (settings.max_active_requests, settings.max_active_requests_per_caller) == (128, 32)
    assert settings.accept_per_round == 16


def test_the_metrics_settings_come_from_the_environment() -> None:
    env = {"TIDEMQ_METRICS_MAX_QUEUES": "50", "TIDEMQ_METRICS_TOKEN": "scrape"}
    settings = Settings.load(env=env)
    assert (settings.metrics_max_queues, settings.metrics_token) == (50, "scrape")
    assert "scrape" not in repr(settings)


def test_a_command_brings_its_own_defaults_under_the_environment() -> None:
    node = Settings(port=NODE_HTTP_PORT)
    assert Settings.load(env={}, defaults=node).port == NODE_HTTP_PORT
    assert Settings.load(env={"TIDEMQ_PORT": "9324"}, defaults=node).port == 9324
    assert Settings.load(env={"TIDEMQ_PORT": "0"}, defaults=node).port == 0  # any free one


def test_port_0_is_for_nodes_only(capsys: pytest.CaptureFixture[str]) -> None:
    """A gateway's endpoint is printed before it listens: it needs a port of its own."""
    for command in ("up", "gateway"):
        assert main([command, "--port", "0"]) == 2
        assert "port 0 (any free port) is for tidemq node only" in capsys.readouterr().err


@pytest.mark.parametrize(
    "url", ["redis://db:6379/2", "rediss://db:6380/0", "redis+cluster://node-1:7000"]
)
def test_a_redis_or_redis_cluster_url_is_taken_as_given(url: str) -> None:
    assert Settings.load(env={"TIDEMQ_REDIS_URL": url}).redis_url == url


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"TIDEMQ_PORT": "http"}, "port must be a number"),
        ({"TIDEMQ_PORT": "70000"}, "port must be a number"),
        ({"TIDEMQ_DURABILITY": "maybe"}, "durability must be one of fsync"),
        ({"TIDEMQ_CONFIG": "/nonexistent/tidemq.toml"}, "cannot read config file"),
        # Digits to str.isdigit, not to int(): refused, not a crash.
        ({"TIDEMQ_MAX_MESSAGE_BYTES": "2\u00b2"}, "max_message_bytes must be from 1024"),
        ({"TIDEMQ_SEGMENT_BYTES": "\u2460"}, "segment_bytes must be a whole number"),
        ({"TIDEMQ_METRICS_MAX_QUEUES": "0"}, "metrics_max_queues must be a whole number >= 1"),
        ({"TIDEMQ_REDIS_URL": "localhost:6379"}, "redis_url: a Redis URL begins with one of"),
        ({"TIDEMQ_REDIS_URL": "redis+cluster:///0"}, "names one of its nodes"),
        ({"TIDEMQ_REDIS_URL": "redis+cluster://h:7000/3"}, "has no databases but 0"),
        ({"TIDEMQ_ACCEPT_PER_ROUND": "0"}, "accept_per_round must be a whole number >= 1"),
        (
            {"TIDEMQ_MAX_ACTIVE_REQUESTS": "8", "TIDEMQ_MAX_ACTIVE_REQUESTS_PER_CALLER": "9"},
            "max_active_requests_per_caller must not exceed max_active_requests",
        ),
    ],
)
def test_bad_settings_say_what_is_wrong(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        Settings.load(env=env)
