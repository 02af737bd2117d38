"""Object storage behind one small interface: S3 (s3_store.py) or a local directory
(local_store.py).

Keys are relative to the store's root (a bucket and prefix, or a directory) and use `/`.
Every method is blocking: the storage node calls them from worker threads, the Spark
reader from its tasks. Puts and deletes are idempotent; a put replaces the object whole
(a reader sees the old bytes or the new, never a mix) and may be conditional:
`if_none_match=True` writes only where no object exists, `if_match=etag` only over that
version, else `PreconditionFailed`; this is what fences a manifest's writers.

    ObjectStoreError            the operation failed; says which and why
     +-- ObjectNotFound         no object under the key
     +-- PreconditionFailed     a conditional put whose condition did not hold
     +-- ObjectStoreUnavailable the store could not be reached or answered with an error:
                                worth retrying later
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


class ObjectStoreError(Exception):
    pass


class ObjectNotFound(ObjectStoreError):
    pass


class PreconditionFailed(ObjectStoreError):
    pass


class ObjectStoreUnavailable(ObjectStoreError):
    pass


@dataclass(frozen=True, slots=True)
class ObjectInfo:
    key: str
    size: int
    etag: str  # opaque; changes whenever the object's bytes change


class ObjectStore(Protocol):
    @property
    def url(self) -> str:
        """Where the store is, for messages: `s3://bucket/prefix` or `file:///dir`."""
        ...

    def put_bytes(
        self, key: str, data: bytes, *, if_none_match: bool = False, if_match: str | None = None
    ) -> str:
        """Writes the object; returns its etag."""
        ...

    def put_file(self, key: str, path: Path) -> str:
        """Writes the object from a file (multipart where it is large); returns its etag."""
        ...

    def get_bytes(self, key: str, start: int = 0, end: int | None = None) -> bytes:
        """Bytes `[start, end)` of the object (to its end if `end` is None)."""
        ...

    def get_with_etag(self, key: str) -> tuple[bytes, str]:
        """The whole object and its etag, read together."""
        ...

    def head(self, key: str) -> ObjectInfo | None:
        """The object's size and etag, or None if there is none."""
        ...

    def list(self, prefix: str) -> Iterator[ObjectInfo]:
        """Every object whose key starts with `prefix`, in key order."""
        ...

    def delete(self, key: str) -> None:
        """Removes the object; nothing happens if there is none."""
        ...
