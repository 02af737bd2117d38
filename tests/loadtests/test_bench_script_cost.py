"""`python -m loadtests.bench_script_cost`, tiny: both ways of counting Redis's work."""

from __future__ import annotations

import re

import pytest

from loadtests.bench_script_cost import main


def _per_message(output: str) -> tuple[int, float, float]:
    found = re.search(r"^(\d+) messages: claim ([\d.,]+) \S+, delete ([\d.,]+) ", output, re.M)
    assert found is not None, output
    messages, claim, delete = found.groups()
    return int(messages), float(claim.replace(",", "")), float(delete.replace(",", ""))


def test_redis_time_per_message(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--rounds", "20", "--batch", "10"]) == 0
    messages, claim_us, delete_us = _per_message(capsys.readouterr().out)
    assert messages == 200
    assert claim_us > 0
    assert delete_us > 0


@pytest.mark.slow
def test_instructions_per_message_under_callgrind(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--rounds", "20", "--batch", "10", "--instructions"]) == 0
    messages, claim, delete = _per_message(capsys.readouterr().out)
    assert messages == 200
    # A claim or a delete of a message is thousands of instructions (the script's Lua, its
    # commands, the AOF), the server's start is taken off.
    assert 1_000 < claim < 1_000_000
    assert 1_000 < delete < 1_000_000
