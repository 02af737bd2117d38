"""`tidemq up` runs with CPython's allocator, or with the C library's when
TIDEMQ_ALLOCATOR=system, unless the environment chose one."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import TidemqUp


def _environment(pid: int) -> list[bytes]:
    return Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")


def test_tidemq_up_runs_with_cpythons_allocator_by_default(tidemq_up: TidemqUp) -> None:
    server = tidemq_up(settings={"PYTHONMALLOC": ""})
    assert b"PYTHONMALLOC=malloc" not in _environment(server.process.pid)
    assert server.stop() == 0


def test_tidemq_up_runs_with_the_c_allocator_when_asked(tidemq_up: TidemqUp) -> None:
    server = tidemq_up(settings={"PYTHONMALLOC": "", "TIDEMQ_ALLOCATOR": "system"})
    assert b"PYTHONMALLOC=malloc" in _environment(server.process.pid)
    sqs = server.sqs_client()
    assert sqs.create_queue(QueueName="orders")["QueueUrl"].endswith("/orders")
    assert server.stop() == 0


def test_an_allocator_the_environment_chose_is_kept(tidemq_up: TidemqUp) -> None:
    server = tidemq_up(settings={"PYTHONMALLOC": "pymalloc", "TIDEMQ_ALLOCATOR": "system"})
    assert b"PYTHONMALLOC=pymalloc" in _environment(server.process.pid)
    assert server.stop() == 0
