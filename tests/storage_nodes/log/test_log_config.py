from __future__ import annotations

from typing import Any

import pytest

from storage_nodes.log.log_config import LogConfig


def test_defaults() -> None:
    config = LogConfig()
    assert config.durability == "fsync"
    assert config.segment_max_bytes == 128 * 1024 * 1024


@pytest.mark.parametrize(
    "bad",
    [
        {"durability": "sometimes"},
        {"flush_interval_ms": 0},
        {"segment_max_bytes": 0},
        {"segment_max_bytes": 2**31},
        {"segment_max_age_ms": 0},
        {"index_interval_bytes": 0},
    ],
)
def test_bad_settings_are_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="must be"):
        LogConfig(**bad)
