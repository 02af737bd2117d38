"""`TIDEMQ_ALLOCATOR=system`: `tidemq up` and `tidemq gateway` run with the C library's
allocator for Python objects (PYTHONMALLOC=malloc), which gives a burst's memory back.

CPython's own small-object allocator (pymalloc) takes memory from the system in 1 MiB
arenas and gives an arena back only once every object in it is freed. A burst of 5 000
long polls took some 100 arenas; once it was over, its objects were gone but a few
long-lived ones (a Redis connection opened meanwhile, a cache entry) were scattered over
most of those arenas, and 85 of them, 85 MiB, stayed with the process (reused by the next
burst, not lost; docs/performance.md, "Under abuse"). glibc's malloc gives memory back
page by page (`malloc_trim`, gateway/heap_trim.py): after the same burst the process
went back to within 3 % of where it was before.

It is not the default because every Python object then costs a call into glibc: in
`tidemq bench`, alternating runs, the batched publishes and the WebSocket workloads went
25-35 % slower with it (docs/performance.md, "Metrics: what they cost").

The allocator is chosen when the interpreter starts, so the command starts itself again
(same process id, same arguments) with the variable set. An environment that sets
PYTHONMALLOC itself is left as it is.
"""

from __future__ import annotations

import os
import sys

VARIABLE = "PYTHONMALLOC"
SYSTEM_ALLOCATOR = "malloc"


def use_system_allocator() -> None:
    """Returns if PYTHONMALLOC is set (to anything); otherwise replaces the process by
    the same command with PYTHONMALLOC=malloc, and does not return."""
    if os.environ.get(VARIABLE):
        return
    sys.stdout.flush()
    sys.stderr.flush()
    env = {**os.environ, VARIABLE: SYSTEM_ALLOCATOR}
    os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], env)  # noqa: S606
