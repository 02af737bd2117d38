"""How to reach an S3-compatible store: `S3Options`, apart from s3_store.py so that
stores.py can name it without importing boto3 (and without an import cycle)."""

from __future__ import annotations

from dataclasses import dataclass, field


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
