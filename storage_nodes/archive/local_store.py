"""An object store in a local directory: the embedded default (`<data dir>/archive`).

A key `a/b/c` is the file `<root>/a/b/c`. A put writes a temporary file beside the
target, fsyncs it and renames it over the target, then fsyncs the directory, so a reader
sees the old object or the new one whole, and a crash leaves one of the two (and maybe a
stray temporary, which `list` never shows). The etag is the file's inode, size and
modification time: every put makes a new inode, so it changes with every version.
Conditional puts hold an exclusive `flock` on `<root>/.lock` from the check to the
rename, so they are atomic across the processes sharing the directory.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path

from storage_nodes.archive.object_store import (
    ObjectInfo,
    ObjectNotFound,
    ObjectStoreError,
    ObjectStoreUnavailable,
    PreconditionFailed,
)

_TMP_SUFFIX = ".tmp"
_SYNC_CHUNK_BYTES = 1 << 20


class LocalDirStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def url(self) -> str:
        return self.root.resolve().as_uri()

    def put_bytes(
        self, key: str, data: bytes, *, if_none_match: bool = False, if_match: str | None = None
    ) -> str:
        def write(tmp: Path) -> None:
            with tmp.open("wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())

        return self._put(key, write, if_none_match=if_none_match, if_match=if_match)

    def put_file(self, key: str, path: Path) -> str:
        def write(tmp: Path) -> None:
            with path.open("rb") as source, tmp.open("wb") as file:
                # Synced a chunk at a time: a segment (up to 128 MiB) synced at the end
                # alone made the other syncs of the disk (the log's, Redis's) wait up to
                # 270 ms for it, a MiB at a time at most 43 ms (docs/performance.md).
                while chunk := source.read(_SYNC_CHUNK_BYTES):
                    file.write(chunk)
                    file.flush()
                    os.fdatasync(file.fileno())
                os.fsync(file.fileno())

        return self._put(key, write)

    def get_bytes(self, key: str, start: int = 0, end: int | None = None) -> bytes:
        with self._errors(key), self._path(key).open("rb") as file:
            file.seek(start)
            return file.read() if end is None else file.read(max(end - start, 0))

    def get_with_etag(self, key: str) -> tuple[bytes, str]:
        with self._errors(key), self._path(key).open("rb") as file:
            return file.read(), _etag(os.fstat(file.fileno()))

    def head(self, key: str) -> ObjectInfo | None:
        try:
            with self._errors(key):
                stat = self._path(key).stat()
        except ObjectNotFound:
            return None
        return ObjectInfo(key, stat.st_size, _etag(stat))

    def list(self, prefix: str) -> Iterator[ObjectInfo]:
        directory, _, _ = prefix.rpartition("/")
        start = self.root / directory if directory else self.root
        if not start.is_dir():
            return
        found = []
        with self._errors(prefix):
            for dirpath, _dirnames, filenames in os.walk(start):
                for name in filenames:
                    if (name.startswith(".") and name.endswith(_TMP_SUFFIX)) or name == ".lock":
                        continue
                    path = Path(dirpath) / name
                    key = path.relative_to(self.root).as_posix()
                    if key.startswith(prefix):
                        found.append((key, path))
        for key, path in sorted(found):
            with contextlib.suppress(FileNotFoundError):  # deleted since the walk
                stat = path.stat()
                yield ObjectInfo(key, stat.st_size, _etag(stat))

    def delete(self, key: str) -> None:
        with self._errors(key), contextlib.suppress(FileNotFoundError):
            self._path(key).unlink()

    # -- internals ----------------------------------------------------------------------

    def _put(
        self,
        key: str,
        write: Callable[[Path], None],
        *,
        if_none_match: bool = False,
        if_match: str | None = None,
    ) -> str:
        target = self._path(key)
        with self._errors(key):
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.parent / f".{target.name}.{secrets.token_hex(4)}{_TMP_SUFFIX}"
            try:
                write(tmp)
                conditional = if_none_match or if_match is not None
                with self._lock(conditional):
                    if conditional:
                        current = self.head(key)
                        if if_none_match and current is not None:
                            raise PreconditionFailed(f"{key} exists")
                        if if_match is not None and (current is None or current.etag != if_match):
                            raise PreconditionFailed(f"{key} is not at version {if_match}")
                    os.replace(tmp, target)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()
            _fsync_directory(target.parent)
            return _etag(target.stat())

    @contextlib.contextmanager
    def _lock(self, conditional: bool) -> Iterator[None]:
        if not conditional:
            yield
            return
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / ".lock").open("a") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)

    def _path(self, key: str) -> Path:
        parts = key.split("/")
        if not key or any(part in ("", ".", "..") for part in parts):
            raise ObjectStoreError(f"invalid object key {key!r}")
        return self.root.joinpath(*parts)

    @contextlib.contextmanager
    def _errors(self, key: str) -> Iterator[None]:
        try:
            yield
        except ObjectStoreError:
            raise
        except FileNotFoundError as exc:
            raise ObjectNotFound(f"no object {key} in {self.url}") from exc
        except OSError as exc:
            raise ObjectStoreUnavailable(f"{self.url}: {key}: {exc.strerror or exc}") from exc


def _etag(stat: os.stat_result) -> str:
    return f"{stat.st_ino:x}-{stat.st_size:x}-{stat.st_mtime_ns:x}"


def _fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
