"""What is S3's own in S3Store: multipart uploads and their abort, the key prefix, and how
S3's errors (a missing bucket, a store that is down or hung) reach the caller."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from storage_nodes.archive.object_store import (
    ObjectNotFound,
    ObjectStoreError,
    ObjectStoreUnavailable,
    PreconditionFailed,
)
from storage_nodes.archive.s3_store import S3Store
from storage_nodes.archive.stores import S3Options
from tests.conftest import MakeS3Server, MotoProcess
from tests.storage_nodes.archive.conftest import (
    SMALL_PART_SIZE_BYTES,
    MakeS3Store,
    moto_options,
    raw_client,
)
from tidemq.redis_server import free_port

# "Fails fast" is the contract under test, not a speed: botocore's defaults would retry
# for minutes against a hung endpoint. The bound is loose so a loaded machine passes.
FAIL_FAST_S = 10.0


def test_put_file_above_the_threshold_goes_in_parts(
    make_s3_store: MakeS3Store, s3_bucket: str, s3_client: Any, tmp_path: Path
) -> None:
    store = make_s3_store()
    (tmp_path / "big.log").write_bytes(os.urandom(2 * SMALL_PART_SIZE_BYTES + 1))
    (tmp_path / "small.log").write_bytes(b"x" * 100)

    # S3's etag of a multipart object ends in -<parts>; of a single put it is an MD5.
    assert store.put_file("s/0/big.seg", tmp_path / "big.log").endswith("-3")
    assert "-" not in store.put_file("s/0/small.seg", tmp_path / "small.log")
    assert s3_client.list_multipart_uploads(Bucket=s3_bucket).get("Uploads", []) == []


def test_a_failed_multipart_upload_is_aborted(
    make_s3_store: MakeS3Store, s3_bucket: str, s3_client: Any, tmp_path: Path
) -> None:
    store = make_s3_store()
    (tmp_path / "big.log").write_bytes(os.urandom(2 * SMALL_PART_SIZE_BYTES + 1))

    # The real server refuses to complete: the request names a part by an etag it never
    # gave. botocore's own event hook changes the request; nothing is faked.
    def misname_part_one(params: dict[str, Any], **_: Any) -> None:
        params["MultipartUpload"]["Parts"][0]["ETag"] = '"00000000000000000000000000000000"'

    store._client.meta.events.register(
        "before-parameter-build.s3.CompleteMultipartUpload", misname_part_one
    )

    with pytest.raises(ObjectStoreError, match="InvalidPart") as failed:
        store.put_file("s/0/big.seg", tmp_path / "big.log")

    assert not isinstance(failed.value, ObjectNotFound | ObjectStoreUnavailable)
    assert s3_client.list_multipart_uploads(Bucket=s3_bucket).get("Uploads", []) == []
    assert store.head("s/0/big.seg") is None


def test_keys_are_under_the_prefix(
    make_s3_store: MakeS3Store, s3_bucket: str, s3_client: Any
) -> None:
    store = make_s3_store("/tidemq/archive/")
    store.put_bytes("s/0/manifest.json", b"{}")
    s3_client.put_object(Bucket=s3_bucket, Key="tidemq/archive.json", Body=b"not ours")
    s3_client.put_object(Bucket=s3_bucket, Key="tidemq/archived/x", Body=b"not ours")

    assert store.url == f"s3://{s3_bucket}/tidemq/archive"
    assert [item["Key"] for item in s3_client.list_objects_v2(Bucket=s3_bucket)["Contents"]] == [
        "tidemq/archive.json",
        "tidemq/archive/s/0/manifest.json",
        "tidemq/archived/x",
    ]
    assert [info.key for info in store.list("")] == ["s/0/manifest.json"]
    assert make_s3_store("").url == f"s3://{s3_bucket}"


def test_a_missing_bucket_is_an_error_that_names_it(s3_options: S3Options) -> None:
    store = S3Store("tidemq-no-such-bucket", "archive", s3_options)

    with pytest.raises(ObjectStoreError, match="no bucket 'tidemq-no-such-bucket'") as got:
        store.get_bytes("s/0/manifest.json")
    assert type(got.value) is ObjectStoreError
    with pytest.raises(ObjectStoreError, match="no bucket"):
        store.put_bytes("s/0/manifest.json", b"{}")
    with pytest.raises(ObjectStoreError, match="no bucket"):
        list(store.list("s/"))


def test_half_a_key_pair_is_refused(s3_server: MotoProcess) -> None:
    options = S3Options(endpoint_url=s3_server.endpoint_url, access_key_id="only-the-id")

    with pytest.raises(ObjectStoreError, match="both access_key_id and secret_access_key"):
        S3Store("bucket", "", options)


def test_a_part_size_below_s3s_minimum_is_refused(s3_options: S3Options) -> None:
    with pytest.raises(ValueError, match="5 MiB"):
        S3Store("bucket", "", s3_options, part_size_bytes=SMALL_PART_SIZE_BYTES - 1)


Call = Callable[[S3Store], object]
CALLS: dict[str, Call] = {
    "get": lambda store: store.get_bytes("s/0/a.seg"),
    "get_range": lambda store: store.get_bytes("s/0/a.seg", 1, 2),
    "get_with_etag": lambda store: store.get_with_etag("s/0/a.seg"),
    "put": lambda store: store.put_bytes("s/0/a.seg", b"x"),
    "put_if_none_match": lambda store: store.put_bytes("s/0/b", b"x", if_none_match=True),
    "head": lambda store: store.head("s/0/a.seg"),
    "list": lambda store: list(store.list("s/")),
    "delete": lambda store: store.delete("s/0/a.seg"),
}


def assert_unavailable_fast(store: S3Store, call: Call) -> None:
    started = time.monotonic()
    with pytest.raises(ObjectStoreUnavailable, match="cannot reach"):
        call(store)
    assert time.monotonic() - started < FAIL_FAST_S


@pytest.mark.parametrize("name", CALLS)
def test_a_closed_port_is_unavailable(name: str) -> None:
    options = S3Options(
        endpoint_url=f"http://127.0.0.1:{free_port()}",  # nothing listens there
        region="us-east-1",
        access_key_id="testing",
        secret_access_key="testing",
    )
    assert_unavailable_fast(S3Store("tidemq-archive", "p", options), CALLS[name])


def test_a_store_that_went_down_is_unavailable(
    make_s3_server: MakeS3Server, tmp_path: Path
) -> None:
    server = make_s3_server()
    options = moto_options(server)
    raw_client(options).create_bucket(Bucket="tidemq-archive")
    store = S3Store("tidemq-archive", "p", options)
    store.put_bytes("s/0/a.seg", b"bytes")
    (tmp_path / "a.log").write_bytes(b"bytes")

    server.stop()

    for call in [*CALLS.values(), lambda store: store.put_file("s/0/c", tmp_path / "a.log")]:
        assert_unavailable_fast(store, call)


@pytest.fixture
def hung_endpoint() -> Iterator[str]:
    """A port that takes connections (the kernel's backlog does) and never answers."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"


@pytest.mark.parametrize("name", ["get", "put", "list"])
def test_a_hung_store_times_out_as_unavailable(hung_endpoint: str, name: str) -> None:
    options = S3Options(
        endpoint_url=hung_endpoint,
        region="us-east-1",
        access_key_id="testing",
        secret_access_key="testing",
    )
    store = S3Store("tidemq-archive", "p", options, read_timeout_s=0.5)

    assert_unavailable_fast(store, CALLS[name])


def test_a_conditional_put_maps_412(make_s3_store: MakeS3Store) -> None:
    store = make_s3_store()
    store.put_bytes("s/0/manifest.json", b"{}")

    with pytest.raises(PreconditionFailed, match=r"PreconditionFailed \(HTTP 412\)"):
        store.put_bytes("s/0/manifest.json", b"{}", if_none_match=True)
