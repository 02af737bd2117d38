"""Object stores for the archive's tests, on every backend.

- `store`: parametrized: a `LocalDirStore` in the test's directory, and an `S3Store` on
  a fresh bucket of `s3_server` (moto in its own process), under a key prefix, with
  small multipart and list-page sizes so that every test of put_file and list crosses
  part and page boundaries.
- `make_s3_store(**settings)`: more S3 stores on the test's bucket.
- `s3_options`, `s3_client`, `s3_bucket`: the way to the server, a raw boto3 client to
  look at the bucket from outside, and the test's bucket.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.config import Config

from storage_nodes.archive.local_store import LocalDirStore
from storage_nodes.archive.object_store import ObjectStore
from storage_nodes.archive.s3_store import MIN_PART_SIZE_BYTES, S3Store
from storage_nodes.archive.stores import S3Options
from tests.conftest import REGION, MotoProcess

S3_PREFIX = "archive/test"
# Three pages for a list of five objects; parts of S3's smallest size.
SMALL_LIST_PAGE_SIZE = 2
SMALL_PART_SIZE_BYTES = MIN_PART_SIZE_BYTES

MakeS3Store = Callable[..., S3Store]


def moto_options(server: MotoProcess) -> S3Options:
    return S3Options(
        endpoint_url=server.endpoint_url,
        region=REGION,
        access_key_id="testing",
        secret_access_key="testing",
    )


@pytest.fixture
def s3_options(s3_server: MotoProcess) -> S3Options:
    return moto_options(s3_server)


def raw_client(options: S3Options) -> Any:
    """A plain boto3 client, to look at a bucket from outside the store."""
    return boto3.client(
        "s3",
        endpoint_url=options.endpoint_url,
        region_name=options.region,
        aws_access_key_id=options.access_key_id,
        aws_secret_access_key=options.secret_access_key,
        config=Config(s3={"addressing_style": "path"}),
    )


@pytest.fixture
def s3_client(s3_options: S3Options) -> Any:
    return raw_client(s3_options)


@pytest.fixture
def s3_bucket(s3_client: Any) -> str:
    name = f"tidemq-test-{uuid.uuid4().hex[:16]}"
    s3_client.create_bucket(Bucket=name)
    return name


@pytest.fixture
def make_s3_store(s3_bucket: str, s3_options: S3Options) -> MakeS3Store:
    """`make_s3_store(prefix=S3_PREFIX, **settings)`: settings as S3Store takes them."""

    def make(prefix: str = S3_PREFIX, **settings: Any) -> S3Store:
        small: dict[str, Any] = {
            "multipart_threshold_bytes": SMALL_PART_SIZE_BYTES,
            "part_size_bytes": SMALL_PART_SIZE_BYTES,
            "list_page_size": SMALL_LIST_PAGE_SIZE,
        }
        return S3Store(s3_bucket, prefix, s3_options, **(small | settings))

    return make


@pytest.fixture(params=["local", "s3"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> ObjectStore:
    if request.param == "local":
        return LocalDirStore(tmp_path / "archive")
    # Only the S3 half of the run asks for moto.
    make: MakeS3Store = request.getfixturevalue("make_s3_store")
    return make()
