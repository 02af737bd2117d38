"""Named delay levels (RocketMQ's eighteen), an alternative to a delay in seconds.

Level n (1-based) delays delivery by DELAY_LEVELS_MS[n - 1]. They go beyond SQS's 900 s
maximum (up to two hours), so they are offered on TideMQ's own APIs.
"""

from __future__ import annotations

_S = 1000
_M = 60 * _S

DELAY_LEVELS_MS: tuple[int, ...] = (
    1 * _S, 5 * _S, 10 * _S, 30 * _S,
    1 * _M, 2 * _M, 3 * _M, 4 * _M, 5 * _M, 6 * _M, 7 * _M, 8 * _M, 9 * _M, 10 * _M,
    20 * _M, 30 * _M, 60 * _M, 120 * _M,
)  # fmt: skip


def delay_ms_for_level(level: int) -> int:
    if not 1 <= level <= len(DELAY_LEVELS_MS):
        raise ValueError(f"delay level must be from 1 to {len(DELAY_LEVELS_MS)}, not {level}")
    return DELAY_LEVELS_MS[level - 1]
