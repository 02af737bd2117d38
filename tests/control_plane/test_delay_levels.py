from __future__ import annotations

import pytest

from control_plane.delay_levels import DELAY_LEVELS_MS, delay_ms_for_level


def test_the_eighteen_levels_run_from_one_second_to_two_hours() -> None:
    assert len(DELAY_LEVELS_MS) == 18
    assert delay_ms_for_level(1) == 1_000
    assert delay_ms_for_level(5) == 60_000
    assert delay_ms_for_level(18) == 2 * 3600 * 1000
    assert list(DELAY_LEVELS_MS) == sorted(DELAY_LEVELS_MS)


@pytest.mark.parametrize("level", [0, 19, -1])
def test_levels_outside_the_table_are_refused(level: int) -> None:
    with pytest.raises(ValueError, match="from 1 to 18"):
        delay_ms_for_level(level)
