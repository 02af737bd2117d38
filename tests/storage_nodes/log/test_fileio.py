from __future__ import annotations

import os
from pathlib import Path

import pytest

from storage_nodes.log.errors import LogStorageError
from storage_nodes.log.fileio import in_worker, pread_exact, pwritev_all, pwritev_durable


def test_pwritev_all_writes_more_parts_than_one_syscall_takes(tmp_path: Path) -> None:
    parts = [bytes([i % 251]) * (i % 5 + 1) for i in range(3000)]
    fd = os.open(tmp_path / "f", os.O_RDWR | os.O_CREAT)
    try:
        pwritev_all(fd, parts, 10)
        expected = b"".join(parts)
        assert pread_exact(fd, len(expected), 10) == expected
        assert pread_exact(fd, 100, 10 + len(expected)) == b""
    finally:
        os.close(fd)


@pytest.mark.parametrize("count", [3, 3000])  # one pwritev2 call, or more than it takes
def test_pwritev_durable_writes_every_part_in_place(tmp_path: Path, count: int) -> None:
    parts = [bytes([i % 251]) * (i % 5 + 1) for i in range(count)]
    fd = os.open(tmp_path / "f", os.O_RDWR | os.O_CREAT)
    try:
        os.write(fd, b"head")
        pwritev_durable(fd, parts, 4)
        expected = b"head" + b"".join(parts)
        assert pread_exact(fd, len(expected) + 1, 0) == expected
    finally:
        os.close(fd)


async def test_os_errors_become_storage_errors(tmp_path: Path) -> None:
    with pytest.raises(LogStorageError) as caught:
        await in_worker(os.open, tmp_path / "missing" / "f", os.O_RDONLY)
    assert isinstance(caught.value.__cause__, FileNotFoundError)
