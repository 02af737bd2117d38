"""Opening an object store from a URL: `s3://bucket/prefix` or `file:///dir` (a bare path
is a directory too)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from storage_nodes.archive.local_store import LocalDirStore
from storage_nodes.archive.object_store import ObjectStore, ObjectStoreError


@dataclass(frozen=True, slots=True)
class S3Options:
    """How to reach an S3-compatible store. None: boto3's own default (its environment
    variables, config files, instance role)."""

    endpoint_url: str | None = None  # e.g. http://127.0.0.1:9000 for MinIO
    region: str | None = None
    access_key_id: str | None = None
    secret_access_key: str | None = field(default=None, repr=False)
    # Path-style addressing (http://host/bucket/key), which MinIO, Ceph and moto need.
    path_style: bool = True


def open_store(url: str, s3: S3Options | None = None) -> ObjectStore:
    parts = urlsplit(url)
    if parts.scheme == "s3":
        if not parts.netloc:
            raise ObjectStoreError(f"{url}: an S3 URL names a bucket: s3://bucket/prefix")
        from storage_nodes.archive.s3_store import S3Store  # boto3 only where it is used

        return S3Store(parts.netloc, parts.path.strip("/"), s3 or S3Options())
    if parts.scheme == "file":
        return LocalDirStore(Path(unquote(parts.path)))
    if parts.scheme == "":
        return LocalDirStore(Path(url).expanduser())
    raise ObjectStoreError(f"{url}: an archive is s3://bucket/prefix or file:///directory")
