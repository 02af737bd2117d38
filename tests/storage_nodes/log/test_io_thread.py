from __future__ import annotations

import asyncio
import threading

from storage_nodes.log.io_thread import IoThread


class Job:
    def __init__(self, name: str, log: list[str], fail: bool = False) -> None:
        self.name = name
        self.log = log
        self.fail = fail
        self.thread: str | None = None

    def run(self) -> None:
        self.thread = threading.current_thread().name
        self.log.append(self.name)
        if self.fail:
            raise OSError(5, "Input/output error")


async def test_jobs_run_in_order_off_the_loop_and_failure_stops_the_rest() -> None:
    ran: list[str] = []
    reports: list[tuple[str, str | None]] = []
    all_done = asyncio.Event()

    def on_done(job: Job, error: BaseException | None) -> None:
        reports.append((job.name, None if error is None else str(error)))
        if len(reports) == 4:
            all_done.set()

    io = IoThread[Job]("test-io", asyncio.get_running_loop(), on_done)
    jobs = [Job("a", ran), Job("b", ran, fail=True), Job("c", ran), Job("d", ran)]
    for job in jobs:
        io.submit(job)
    await asyncio.wait_for(all_done.wait(), timeout=10)
    io.stop()
    await asyncio.to_thread(io.join)
    assert ran == ["a", "b"]  # nothing runs after a failed job
    error = "[Errno 5] Input/output error"
    assert reports == [("a", None), ("b", error), ("c", error), ("d", error)]
    assert jobs[0].thread == "test-io"
