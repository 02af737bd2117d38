"""An object store in an S3 bucket, through boto3: AWS or any S3-compatible endpoint
(MinIO, Ceph RGW, moto), under an optional key prefix.

Reaching the store: the endpoint, region and credentials of `S3Options` (None: boto3's
own chain: environment, config files, instance role); path-style addressing where the
store needs it. Every request has bounded connect and read timeouts and botocore retries
it at most once, so an unreachable or hung store fails within seconds with
`ObjectStoreUnavailable`: the caller (tiering) retries with its own backoff, and a
reader should not hang on a dead endpoint for botocore's default minutes.

Conditional puts are S3's own: `if_none_match=True` sends `If-None-Match: *`, and
`if_match=etag` sends `If-Match: "etag"` on PutObject (AWS S3 since late 2024, MinIO, moto 5).
412, and 409 `ConditionalRequestConflict` (a concurrent conditional write: AWS asks the
writer to re-read), raise `PreconditionFailed`; so does `If-Match` on a key that is gone
(S3 answers 404). The manifest's fencing depends on them: a store that ignores these
headers silently lets a fenced writer overwrite a newer manifest, so use one that honours
them. A conditional put whose response is lost may be retried by botocore and fail its
own condition: `Manifests.update` then re-reads, finds its own write, and applies its
change to it again, so a change must be idempotent (add a segment only if absent).

Etags are S3's with the surrounding quotes removed, the same from put, head, get and
list; `If-Match` quotes them again, as HTTP wants. A multipart object's etag ends in
`-<parts>`; it is not an MD5 of the bytes (the manifest's CRC32C is the checksum).

`put_file` uploads in one PutObject up to `multipart_threshold_bytes`, above it in parts
of `part_size_bytes` (at least 5 MiB, as S3 requires; larger when the file would need
more than 10,000 parts), one part at a time from the file, so memory stays at one part.
If any step fails the upload is aborted so no parts linger (and are billed); an abort
that itself fails is logged, and a bucket lifecycle rule `AbortIncompleteMultipartUpload`
is the backstop. With botocore's default `when_supported` checksums every part carries a
CRC32 the store verifies; `AWS_REQUEST_CHECKSUM_CALCULATION=when_required` turns that off
for stores that reject it.

Foreign errors become ours in one place, `_translate` (through `_errors`). Thread-safety:
one boto3 client, which is safe to share between threads; the store is not picklable
(Spark tasks open their own).
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    HTTPClientError,
    IncompleteReadError,
    NoCredentialsError,
    PartialCredentialsError,
    SSLError,
)
from botocore.exceptions import ConnectionError as BotoConnectionError

from storage_nodes.archive.object_store import (
    ObjectInfo,
    ObjectNotFound,
    ObjectStoreError,
    ObjectStoreUnavailable,
    PreconditionFailed,
)
from storage_nodes.archive.s3_options import S3Options

log = logging.getLogger(__name__)

MiB = 1 << 20
# S3's limits on multipart uploads: every part but the last at least 5 MiB, at most
# 10,000 parts; and on a single PutObject: 5 GiB.
MIN_PART_SIZE_BYTES = 5 * MiB
MAX_PARTS = 10_000
MAX_SINGLE_PUT_BYTES = 5 * 1024 * MiB
MAX_LIST_PAGE_SIZE = 1000

# One retry inside botocore for a dropped connection or a throttled request; anything
# longer is the caller's backoff, which knows whether waiting is worth it.
_TOTAL_MAX_ATTEMPTS = 2
_NOT_FOUND_CODES = frozenset({"NoSuchKey", "NotFound", "404"})  # HEAD has no body: "404"
_PRECONDITION_CODES = frozenset({"PreconditionFailed", "ConditionalRequestConflict"})
_RETRYABLE_CODES = frozenset(
    {
        "SlowDown",
        "Throttling",
        "ThrottlingException",
        "RequestThrottled",
        "TooManyRequests",
        "RequestLimitExceeded",
        "BandwidthLimitExceeded",
        "RequestTimeout",
        "ServiceUnavailable",
        "InternalError",
    }
)


class S3Store:
    def __init__(
        self,
        bucket: str,
        prefix: str,
        options: S3Options,
        *,
        multipart_threshold_bytes: int = 64 * MiB,
        part_size_bytes: int = 16 * MiB,
        list_page_size: int = MAX_LIST_PAGE_SIZE,
        connect_timeout_s: float = 3.0,
        # S3 answers a PutObject or CompleteMultipartUpload once it has stored the bytes.
        read_timeout_s: float = 5.0,
    ) -> None:
        if part_size_bytes < MIN_PART_SIZE_BYTES:
            raise ValueError(f"part_size_bytes {part_size_bytes}: S3 needs at least 5 MiB")
        if not 0 <= multipart_threshold_bytes <= MAX_SINGLE_PUT_BYTES:
            raise ValueError(f"multipart_threshold_bytes {multipart_threshold_bytes}: 0-5 GiB")
        if not 1 <= list_page_size <= MAX_LIST_PAGE_SIZE:
            raise ValueError(f"list_page_size {list_page_size}: 1-{MAX_LIST_PAGE_SIZE}")
        if (options.access_key_id is None) != (options.secret_access_key is None):
            raise ObjectStoreError("S3Options: give both access_key_id and secret_access_key")
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.multipart_threshold_bytes = multipart_threshold_bytes
        self.part_size_bytes = part_size_bytes
        self.list_page_size = list_page_size
        self._endpoint = options.endpoint_url or "AWS"
        config = Config(
            connect_timeout=connect_timeout_s,
            read_timeout=read_timeout_s,
            retries={"mode": "standard", "total_max_attempts": _TOTAL_MAX_ATTEMPTS},
            s3={"addressing_style": "path" if options.path_style else "auto"},
        )
        with self._errors(""):
            # A session of our own: boto3's default session is not safe to share.
            session = boto3.session.Session(
                aws_access_key_id=options.access_key_id,
                aws_secret_access_key=options.secret_access_key,
                region_name=options.region,
            )
            # boto3 has no type stubs here: `Any` stays inside this class.
            self._client: Any = session.client(
                "s3", endpoint_url=options.endpoint_url, config=config
            )
        # As s3transfer does: with default checksums on, a multipart upload declares its
        # algorithm up front, or S3 rejects the CRC32 botocore adds to each part.
        self._part_checksum: dict[str, str] = (
            {"ChecksumAlgorithm": "CRC32"}
            if self._client.meta.config.request_checksum_calculation == "when_supported"
            else {}
        )

    @property
    def url(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}".rstrip("/")

    def put_bytes(
        self, key: str, data: bytes, *, if_none_match: bool = False, if_match: str | None = None
    ) -> str:
        conditions: dict[str, str] = {}
        if if_none_match:
            conditions["IfNoneMatch"] = "*"
        if if_match is not None:
            conditions["IfMatch"] = f'"{if_match}"'
        try:
            with self._errors(key):
                response = self._client.put_object(
                    Bucket=self.bucket, Key=self._full_key(key), Body=data, **conditions
                )
        except ObjectNotFound as exc:
            if if_match is None:
                raise
            # If-Match on a key that is gone: S3 says 404; the contract says precondition.
            raise PreconditionFailed(f"{self._where(key)}: no version {if_match}") from exc
        return _etag(response)

    def put_file(self, key: str, path: Path) -> str:
        full_key = self._full_key(key)
        with self._errors(key), path.open("rb") as file:
            size_bytes = path.stat().st_size
            if size_bytes <= self.multipart_threshold_bytes:
                response = self._client.put_object(Bucket=self.bucket, Key=full_key, Body=file)
                return _etag(response)
            return self._put_multipart(key, full_key, file, size_bytes)

    def get_bytes(self, key: str, start: int = 0, end: int | None = None) -> bytes:
        if start < 0:
            raise ValueError(f"start {start} < 0")
        if end is not None and end <= start:
            # `bytes=5-4` is no range to S3: it would send the whole object.
            if self.head(key) is None:
                raise ObjectNotFound(f"no object {key} in {self.url}")
            return b""
        ranged: dict[str, str] = {}
        if start > 0 or end is not None:
            ranged["Range"] = f"bytes={start}-{'' if end is None else end - 1}"
        with self._errors(key):
            try:
                response = self._client.get_object(
                    Bucket=self.bucket, Key=self._full_key(key), **ranged
                )
            except ClientError as exc:
                if _code(exc) == "InvalidRange":  # starts at or past the object's end
                    return b""
                raise
            return bytes(response["Body"].read())

    def get_with_etag(self, key: str) -> tuple[bytes, str]:
        with self._errors(key):
            response = self._client.get_object(Bucket=self.bucket, Key=self._full_key(key))
            return bytes(response["Body"].read()), _etag(response)

    def head(self, key: str) -> ObjectInfo | None:
        # A missing bucket is a 404 without a body here, like a missing key: it shows
        # as None, and as a clear error from get, list and put.
        try:
            with self._errors(key):
                response = self._client.head_object(Bucket=self.bucket, Key=self._full_key(key))
        except ObjectNotFound:
            return None
        return ObjectInfo(key, int(response["ContentLength"]), _etag(response))

    def list(self, prefix: str) -> Iterator[ObjectInfo]:
        root = f"{self.prefix}/" if self.prefix else ""
        paginator = self._client.get_paginator("list_objects_v2")
        pages = paginator.paginate(
            Bucket=self.bucket,
            Prefix=root + prefix,
            PaginationConfig={"PageSize": self.list_page_size},
        )
        # S3 lists in UTF-8 byte order, which is the code-point order of the keys.
        with self._errors(prefix):
            for page in pages:
                for item in page.get("Contents", ()):
                    yield ObjectInfo(str(item["Key"])[len(root) :], int(item["Size"]), _etag(item))

    def delete(self, key: str) -> None:
        # S3 answers 204 whether or not the key existed.
        with self._errors(key):
            self._client.delete_object(Bucket=self.bucket, Key=self._full_key(key))

    # -- internals ----------------------------------------------------------------------

    def _put_multipart(self, key: str, full_key: str, file: Any, size_bytes: int) -> str:
        part_size_bytes = max(self.part_size_bytes, math.ceil(size_bytes / MAX_PARTS))
        created = self._client.create_multipart_upload(
            Bucket=self.bucket, Key=full_key, **self._part_checksum
        )
        upload_id = str(created["UploadId"])
        try:
            parts: list[dict[str, Any]] = []
            while chunk := file.read(part_size_bytes):
                number = len(parts) + 1
                uploaded = self._client.upload_part(
                    Bucket=self.bucket,
                    Key=full_key,
                    UploadId=upload_id,
                    PartNumber=number,
                    Body=chunk,
                    **self._part_checksum,
                )
                part: dict[str, Any] = {"ETag": uploaded["ETag"], "PartNumber": number}
                if "ChecksumCRC32" in uploaded:
                    part["ChecksumCRC32"] = uploaded["ChecksumCRC32"]
                parts.append(part)
            completed = self._client.complete_multipart_upload(
                Bucket=self.bucket,
                Key=full_key,
                UploadId=upload_id,
                MultipartUpload={"Parts": parts},
            )
        except BaseException:
            self._abort_multipart(key, full_key, upload_id)
            raise
        return _etag(completed)

    def _abort_multipart(self, key: str, full_key: str, upload_id: str) -> None:
        try:
            with self._errors(key):
                self._client.abort_multipart_upload(
                    Bucket=self.bucket, Key=full_key, UploadId=upload_id
                )
        except ObjectStoreError as exc:
            # The upload's own error is the one to raise; this one is for the operator.
            log.warning("%s: could not abort multipart upload %s: %s", key, upload_id, exc)

    def _full_key(self, key: str) -> str:
        # The same rule as LocalDirStore's, so a key that works on one backend works on
        # the other (S3 itself would take `a//b` or `../x` as plain names).
        if not key or any(part in ("", ".", "..") for part in key.split("/")):
            raise ObjectStoreError(f"invalid object key {key!r}")
        return f"{self.prefix}/{key}" if self.prefix else key

    @contextlib.contextmanager
    def _errors(self, key: str) -> Iterator[None]:
        try:
            yield
        except (BotoCoreError, ClientError) as exc:
            raise _translate(exc, self._where(key), self.bucket, self._endpoint) from exc
        except OSError as exc:  # reading the local file of put_file
            raise ObjectStoreError(f"{self._where(key)}: {exc}") from exc

    def _where(self, key: str) -> str:
        return f"{self.url}/{key}" if key else self.url


def _translate(
    exc: BotoCoreError | ClientError, where: str, bucket: str, endpoint: str
) -> ObjectStoreError:
    """The one mapping of botocore's errors to ours; `where` is `s3://bucket/prefix/key`."""
    if isinstance(exc, ClientError):
        return _from_s3(exc, where, bucket, endpoint)
    if isinstance(exc, NoCredentialsError | PartialCredentialsError):
        return ObjectStoreError(
            f"{where}: no S3 credentials: give access_key_id and secret_access_key, or "
            f"configure boto3 (AWS_ACCESS_KEY_ID, ~/.aws, an instance role); {exc}"
        )
    if isinstance(exc, SSLError):  # a certificate problem: waiting does not fix it
        return ObjectStoreError(f"{where}: TLS with {endpoint} failed: {exc}")
    if isinstance(exc, BotoConnectionError | HTTPClientError | IncompleteReadError):
        return ObjectStoreUnavailable(f"{where}: cannot reach {endpoint}: {exc}")
    return ObjectStoreError(f"{where}: {exc}")


def _from_s3(exc: ClientError, where: str, bucket: str, endpoint: str) -> ObjectStoreError:
    """An error that S3 answered with."""
    code = _code(exc)
    status = int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0)
    said = f"S3 said {code} (HTTP {status}): {exc.response.get('Error', {}).get('Message')}"
    if code == "NoSuchBucket":
        return ObjectStoreError(f"{where}: no bucket {bucket!r} at {endpoint}; {said}")
    if code in _NOT_FOUND_CODES:
        return ObjectNotFound(f"no object {where}")
    if status == 412 or code in _PRECONDITION_CODES:
        return PreconditionFailed(f"{where}: {said}")
    if status >= 500 or status == 429 or code in _RETRYABLE_CODES:
        return ObjectStoreUnavailable(f"{where}: {said}")
    if code in ("InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied"):
        return ObjectStoreError(f"{where}: check the credentials and their rights; {said}")
    return ObjectStoreError(f"{where}: {said}")


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def _etag(response: Any) -> str:
    """The etag of a put, head, get or list entry, without S3's quotes."""
    return str(response["ETag"]).strip('"')
