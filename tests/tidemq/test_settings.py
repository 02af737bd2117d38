from __future__ import annotations

from pathlib import Path

import pytest

from tidemq.settings import Settings, SettingsError


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
    assert settings.accept_per_round == 64


def test_the_metrics_settings_come_from_the_environment() -> None:
    env = {"TIDEMQ_METRICS_MAX_QUEUES": "50", "TIDEMQ_METRICS_TOKEN": "scrape"}
    settings = Settings.load(env=env)
    assert (settings.metrics_max_queues, settings.metrics_token) == (50, "scrape")
    assert "scrape" not in repr(settings)


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
