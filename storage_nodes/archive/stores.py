"""Opening an object store from a URL: `s3://bucket/prefix` or `file:///dir` (a bare path
is a directory too)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from storage_nodes.archive.local_store import LocalDirStore
from storage_nodes.archive.object_store import ObjectStore, ObjectStoreError

# Re-exported: callers configure a store and open it from this one module.
from storage_nodes.archive.s3_options import S3Options

__all__ = ["S3Options", "open_store"]


def open_store(url: str, s3: S3Options | None = None) -> ObjectStore:
    parts = urlsplit(url)
    if parts.scheme == "s3":
        if not parts.netloc:
            raise ObjectStoreError(f"{url}: an S3 URL names a bucket: s3://bucket/prefix")
        # boto3 (slow to import) only where it is used.
        from storage_nodes.archive.s3_store import S3Store  # noqa: PLC0415

        return S3Store(parts.netloc, parts.path.strip("/"), s3 or S3Options())
    if parts.scheme == "file":
        return LocalDirStore(Path(unquote(parts.path)))
    if parts.scheme == "":
        return LocalDirStore(Path(url).expanduser())
    raise ObjectStoreError(f"{url}: an archive is s3://bucket/prefix or file:///directory")
