"""`python -m loadtests.bench_cpu_per_message`, tiny: every run's CPU split and the bounds."""

from __future__ import annotations

import re

import pytest

from loadtests.bench_cpu_per_message import main

ROW = re.compile(r"^(TideMQ \S+|peer [^\d]+?)\s+([\d,]+)  ((?:[\d.]+|-)(?:  (?:[\d.]+|-))*)$", re.M)


def test_each_run_is_split_by_process_and_bounded(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--messages", "5000", "--rounds", "1"]) == 0
    output = capsys.readouterr().out
    rows = {name.strip(): (rate, figures.split()) for name, rate, figures in ROW.findall(output)}
    assert set(rows) == {
        "TideMQ publish_batch_rest",
        "TideMQ consume_rest",
        "peer batched XADD",
        "peer XREADGROUP + XACK",
    }, output
    for name, (rate, figures) in rows.items():
        assert int(rate.replace(",", "")) > 0
        load_generator, loop, threads, redis, total = figures
        assert float(load_generator) > 0
        # (/proc counts in ticks of 10 ms: a tiny run of the peer may show none.)
        assert float(redis) >= 0
        if name.startswith("TideMQ"):
            # Every request is handled on the server's event loop: ~10 us a message.
            assert float(loop) > 0
            assert float(threads) >= 0
            parts = float(load_generator) + float(loop) + float(threads) + float(redis)
        else:
            assert loop == threads == "-"
            parts = float(load_generator) + float(redis)
        assert float(total) == pytest.approx(parts, abs=0.02)
    bounds = re.findall(
        r"allow at most ([\d,]+) msgs/s on one core; peer .+ ran at ([\d,]+)", output
    )
    assert len(bounds) == 2, output
