"""Which partitions a gateway knows to be down: a short-lived mark per partition.

A partition is *down* for `down_for_s` after one of its requests failed in a way that
leaves it without a node answering for it: its node could not be reached or did not
answer, or it refused (NotOwner) even after the route was looked up afresh. It is down
too while one of its requests has gone unanswered for over `unanswered_s` (a node that
is stopped accepts connections and never answers: nothing fails until the lease TTL).
Any request of the partition that succeeds clears both.

The mark is a guess that ages out, not a verdict: once it has passed, the next request
tries the partition again, and that request's outcome marks or clears it. Standard
queues send elsewhere and receives leave the partition out meanwhile
(docs/cluster.md, "A partition whose node is down").
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)

DEFAULT_DOWN_FOR_S = 1.0
DEFAULT_UNANSWERED_S = 1.0


@dataclass(slots=True)
class _State:
    down_until_s: float = float("-inf")
    # Requests out, by token: when each was sent.
    unanswered: dict[int, float] = field(default_factory=dict)


class PartitionHealth(Generic[K]):
    """Marks by partition key. One event loop."""

    def __init__(
        self,
        *,
        down_for_s: float = DEFAULT_DOWN_FOR_S,
        unanswered_s: float = DEFAULT_UNANSWERED_S,
        monotonic_s: Callable[[], float] = time.monotonic,
    ) -> None:
        self._down_for_s = down_for_s
        self._unanswered_s = unanswered_s
        self._now_s = monotonic_s
        self._states: dict[K, _State] = {}
        self._tokens = itertools.count()

    @property
    def unanswered_s(self) -> float:
        return self._unanswered_s

    def sent(self, key: K) -> int:
        """A request of `key` went out: the token to report its end with."""
        token = next(self._tokens)
        self._state(key).unanswered[token] = self._now_s()
        return token

    def answered(self, key: K, token: int) -> None:
        """The request succeeded: the partition is served."""
        self._states.pop(key, None)

    def failed(self, key: K, token: int, *, down: bool) -> None:
        """The request failed; `down`: in a way that says no node serves the partition."""
        state = self._states.get(key)
        if state is None:
            if not down:
                return
            state = self._state(key)
        state.unanswered.pop(token, None)
        if down:
            state.down_until_s = self._now_s() + self._down_for_s
        elif not state.unanswered and state.down_until_s < self._now_s():
            del self._states[key]

    def mark_down(self, key: K) -> None:
        """Down for `down_for_s` from now, whatever its requests say (one not answered in
        time and given up by its caller, say)."""
        self._state(key).down_until_s = self._now_s() + self._down_for_s

    def is_down(self, key: K) -> bool:
        state = self._states.get(key)
        if state is None:
            return False
        now_s = self._now_s()
        if state.down_until_s > now_s:
            return True
        oldest_s = min(state.unanswered.values(), default=now_s)
        if now_s - oldest_s > self._unanswered_s:
            # Down for `down_for_s`, then tried again: a request stuck on a stopped node
            # (an append waiting to learn its fate) must not hide the node that took the
            # partition over meanwhile. Its age counts again from the mark's end.
            state.down_until_s = now_s + self._down_for_s
            for token in state.unanswered:
                state.unanswered[token] = state.down_until_s
            return True
        if not state.unanswered:
            del self._states[key]  # aged out
        return False

    def forget(self, matches: Callable[[K], bool]) -> None:
        """Drops the marks of the keys `matches` says (a dropped stream's)."""
        for key in [key for key in self._states if matches(key)]:
            del self._states[key]

    def _state(self, key: K) -> _State:
        state = self._states.get(key)
        if state is None:
            state = self._states[key] = _State()
        return state
