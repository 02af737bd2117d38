"""The ObjectStore contract (object_store.py), on every backend: a local directory, and S3
through boto3 over HTTP to moto's server in its own process; and `open_store`."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

from storage_nodes.archive.local_store import LocalDirStore
from storage_nodes.archive.object_store import (
    ObjectInfo,
    ObjectNotFound,
    ObjectStore,
    ObjectStoreError,
    PreconditionFailed,
)
from storage_nodes.archive.s3_store import S3Store
from storage_nodes.archive.stores import S3Options, open_store
from tests.storage_nodes.archive.conftest import SMALL_PART_SIZE_BYTES

DATA = b"0123456789abcdef"


def test_put_then_get_head_and_list_agree(store: ObjectStore) -> None:
    etag = store.put_bytes("s/0/a.seg", DATA)

    assert store.get_bytes("s/0/a.seg") == DATA
    # One etag for the version, whichever call reports it: if_match depends on it.
    assert store.get_with_etag("s/0/a.seg") == (DATA, etag)
    assert store.head("s/0/a.seg") == ObjectInfo("s/0/a.seg", len(DATA), etag)
    assert list(store.list("s/0/")) == [ObjectInfo("s/0/a.seg", len(DATA), etag)]


def test_a_missing_object(store: ObjectStore) -> None:
    assert store.head("s/0/none.seg") is None
    with pytest.raises(ObjectNotFound):
        store.get_bytes("s/0/none.seg")
    with pytest.raises(ObjectNotFound):
        store.get_bytes("s/0/none.seg", 3, 3)
    with pytest.raises(ObjectNotFound):
        store.get_with_etag("s/0/none.seg")


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [
        (0, None, DATA),
        (3, None, DATA[3:]),
        (0, 1, DATA[:1]),
        (2, 9, DATA[2:9]),
        (len(DATA) - 1, len(DATA), DATA[-1:]),
        (10, 1000, DATA[10:]),  # end past the object: to its end
        (5, 5, b""),  # start = end
        (0, 0, b""),
        (len(DATA), None, b""),  # start at the end
        (len(DATA) + 4, len(DATA) + 8, b""),  # start past the end
    ],
)
def test_ranged_reads(store: ObjectStore, start: int, end: int | None, expected: bytes) -> None:
    store.put_bytes("s/0/a.seg", DATA)

    assert store.get_bytes("s/0/a.seg", start, end) == expected


def test_an_empty_object(store: ObjectStore) -> None:
    store.put_bytes("s/0/empty", b"")

    assert store.get_bytes("s/0/empty") == b""
    assert store.get_bytes("s/0/empty", 0, 10) == b""
    info = store.head("s/0/empty")
    assert info is not None
    assert info.size == 0


def test_list_by_prefix_in_key_order(store: ObjectStore) -> None:
    keys = [
        *(f"s1/0/{base:020d}-{base + 10:020d}.seg" for base in range(0, 70, 10)),
        "s1/0/manifest.json",
        "s1/1/manifest.json",
        "s10/0/manifest.json",  # shares the characters "s1" but not the prefix "s1/"
        "_names/a/queue/q/1.json",
    ]
    for key in random.Random(7).sample(keys, len(keys)):
        store.put_bytes(key, key.encode())

    def under(prefix: str) -> list[str]:
        return sorted(key for key in keys if key.startswith(prefix))

    # Nine objects under s1/: more pages than one at the S3 store's page size.
    assert [info.key for info in store.list("s1/")] == under("s1/")
    assert len(under("s1/")) == 9
    assert [info.key for info in store.list("s1/0/")] == under("s1/0/")
    assert [info.key for info in store.list("s1/0/0000")] == under("s1/0/0000")
    assert [info.key for info in store.list("")] == sorted(keys)
    assert [(info.key, info.size) for info in store.list("s1/1/")] == [
        ("s1/1/manifest.json", len("s1/1/manifest.json"))
    ]
    assert list(store.list("s2/")) == []
    assert list(store.list("s1/0/manifest.json/")) == []


def test_an_overwrite_replaces_the_bytes_and_the_etag(store: ObjectStore) -> None:
    first = store.put_bytes("s/0/manifest.json", b"one")
    second = store.put_bytes("s/0/manifest.json", b"two, longer")

    assert second != first
    assert store.get_with_etag("s/0/manifest.json") == (b"two, longer", second)


def test_if_none_match_writes_only_a_new_key(store: ObjectStore) -> None:
    etag = store.put_bytes("s/0/manifest.json", b"first", if_none_match=True)

    with pytest.raises(PreconditionFailed):
        store.put_bytes("s/0/manifest.json", b"second", if_none_match=True)
    assert store.get_with_etag("s/0/manifest.json") == (b"first", etag)


def test_if_match_writes_only_over_that_version(store: ObjectStore) -> None:
    stale = store.put_bytes("s/0/manifest.json", b"v1")
    current = store.put_bytes("s/0/manifest.json", b"v2", if_match=stale)

    with pytest.raises(PreconditionFailed):
        store.put_bytes("s/0/manifest.json", b"v3", if_match=stale)
    assert store.get_with_etag("s/0/manifest.json") == (b"v2", current)
    newest = store.put_bytes("s/0/manifest.json", b"v3", if_match=current)
    assert store.get_with_etag("s/0/manifest.json") == (b"v3", newest)


def test_if_match_on_a_missing_key_fails(store: ObjectStore) -> None:
    etag = store.put_bytes("s/0/manifest.json", b"v1")
    store.delete("s/0/manifest.json")

    with pytest.raises(PreconditionFailed):
        store.put_bytes("s/0/manifest.json", b"v2", if_match=etag)
    assert store.head("s/0/manifest.json") is None


def test_put_file_of_several_parts_round_trips(store: ObjectStore, tmp_path: Path) -> None:
    # 11 MiB: three parts of the S3 store's 5 MiB, the last a short one.
    data = os.urandom(2 * SMALL_PART_SIZE_BYTES + (1 << 20))
    (tmp_path / "segment.log").write_bytes(data)

    etag = store.put_file("s/0/a.seg", tmp_path / "segment.log")

    assert store.get_with_etag("s/0/a.seg") == (data, etag)
    assert store.head("s/0/a.seg") == ObjectInfo("s/0/a.seg", len(data), etag)
    boundary = SMALL_PART_SIZE_BYTES
    assert (
        store.get_bytes("s/0/a.seg", boundary - 10, boundary + 10)
        == data[boundary - 10 : boundary + 10]
    )


def test_put_file_again_replaces(store: ObjectStore, tmp_path: Path) -> None:
    (tmp_path / "segment.log").write_bytes(b"first upload")
    first = store.put_file("s/0/a.seg", tmp_path / "segment.log")
    (tmp_path / "segment.log").write_bytes(b"the retried upload")

    second = store.put_file("s/0/a.seg", tmp_path / "segment.log")

    assert second != first
    assert store.get_with_etag("s/0/a.seg") == (b"the retried upload", second)


def test_put_file_of_a_missing_file(store: ObjectStore, tmp_path: Path) -> None:
    with pytest.raises(ObjectStoreError):
        store.put_file("s/0/a.seg", tmp_path / "no-such.log")
    assert store.head("s/0/a.seg") is None


def test_delete_is_idempotent(store: ObjectStore) -> None:
    store.put_bytes("s/0/a.seg", DATA)

    store.delete("s/0/a.seg")
    store.delete("s/0/a.seg")
    store.delete("s/0/never-was.seg")

    assert store.head("s/0/a.seg") is None
    assert list(store.list("s/")) == []


@pytest.mark.parametrize("key", ["", "/s/0", "s//0", "s/0/", "s/./0", "s/../0", ".."])
def test_keys_that_no_backend_takes(store: ObjectStore, key: str) -> None:
    with pytest.raises(ObjectStoreError, match="invalid object key"):
        store.put_bytes(key, DATA)


def test_open_store_on_s3_keeps_keys_under_the_prefix(
    s3_bucket: str, s3_options: S3Options, s3_client: Any
) -> None:
    store = open_store(f"s3://{s3_bucket}/tidemq/archive/", s3_options)

    assert isinstance(store, S3Store)
    assert store.url == f"s3://{s3_bucket}/tidemq/archive"
    store.put_bytes("s/0/manifest.json", b"{}")
    s3_client.put_object(Bucket=s3_bucket, Key="tidemq/archived/s/0/x", Body=b"not ours")
    got = s3_client.get_object(Bucket=s3_bucket, Key="tidemq/archive/s/0/manifest.json")
    assert got["Body"].read() == b"{}"
    assert [info.key for info in store.list("")] == ["s/0/manifest.json"]


def test_open_store_on_s3_without_a_prefix(
    s3_bucket: str, s3_options: S3Options, s3_client: Any
) -> None:
    store = open_store(f"s3://{s3_bucket}", s3_options)

    assert store.url == f"s3://{s3_bucket}"
    store.put_bytes("s/0/manifest.json", b"{}")
    assert s3_client.head_object(Bucket=s3_bucket, Key="s/0/manifest.json")["ContentLength"] == 2


@pytest.mark.parametrize("form", ["file-url", "path"])
def test_open_store_on_a_directory(tmp_path: Path, form: str) -> None:
    root = tmp_path / "archive"
    store = open_store(root.as_uri() if form == "file-url" else str(root))

    assert isinstance(store, LocalDirStore)
    assert store.url == root.as_uri()
    store.put_bytes("s/0/manifest.json", b"{}")
    assert (root / "s" / "0" / "manifest.json").read_bytes() == b"{}"
    assert store.get_bytes("s/0/manifest.json") == b"{}"


@pytest.mark.parametrize("url", ["s3:///prefix", "gs://bucket/prefix"])
def test_open_store_refuses(url: str) -> None:
    with pytest.raises(ObjectStoreError):
        open_store(url)
