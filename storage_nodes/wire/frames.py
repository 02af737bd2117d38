"""The node protocol's frames: what gateways and storage nodes exchange over TCP.

Every frame, request or response, is a fixed 12-byte header and a payload:

    offset  size  field
    0       2     magic       b"TQ": a peer speaking something else is found at once
    2       1     version     PROTOCOL_VERSION; see "Versions" below
    3       1     kind        a request's `Op`, or a response's `Status`
    4       4     request_id  unsigned, big-endian; a response carries its request's id
    8       4     length      unsigned, big-endian: the payload's bytes, at most MAX_PAYLOAD_BYTES

The payload is MessagePack (msgspec), of the type `REQUEST_TYPES[op]` for a request and
`RESPONSE_TYPES[op]` for its OK response; an error response's payload is the message
string. Every struct is encoded as an array (`array_like`): compact, and a field is
known by its place. No CRC: TCP's checksum and the log's own batch CRCs cover the bytes.

Requests are pipelined: a client sends many requests on one connection without waiting,
and the server answers each as it completes, in any order; the request id pairs them.

Versions. The version byte changes only when the header or the meaning or place of an
existing field changes. Additions keep it: a new `Op` (an old server answers it
`UNKNOWN_OP`), or a new field at the end of a struct with a default (an old decoder
ignores trailing array items it does not know; a new one fills the default in when they
are absent). A server answers a frame of another version with `UNSUPPORTED_VERSION` and
closes the connection.
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from storage_nodes.archive.tiering import TieringStatus
from storage_nodes.node import (
    ArchiveUnavailable,
    DiskBudgetExceeded,
    MessageAttribute,
    NodeError,
    NotOwner,
    Record,
    RecordIn,
    StorageUnavailable,
    StreamDescriptor,
    StreamDropped,
)

MAGIC = b"TQ"
PROTOCOL_VERSION = 1
HEADER = struct.Struct(">2sBBII")  # magic, version, kind, request id, payload length
# A request's whole batch is one frame, and so is a read's answer: a hundred 1 MiB
# messages fit.
MAX_PAYLOAD_BYTES = 256 * 1024 * 1024
MAX_REQUEST_ID = 2**32 - 1


class Op(enum.IntEnum):
    """A request's kind: one Node operation each."""

    CREATE_STREAM = 1
    APPEND = 2
    READ_OFFSETS = 3
    END_OFFSET = 4
    OFFSET_FOR_TIME = 5
    DROP_STREAM = 6
    TIERING_STATUS = 7
    PROBLEM = 8
    ABSENT = 9
    REPLICATE = 10


class Status(enum.IntEnum):
    """A response's kind: OK, or which error; each error is one NodeError subclass."""

    OK = 0
    NOT_OWNER = 1
    STREAM_DROPPED = 2
    STORAGE_UNAVAILABLE = 3
    DISK_BUDGET_EXCEEDED = 4
    ARCHIVE_UNAVAILABLE = 5
    BAD_REQUEST = 6  # a malformed payload, or an invalid argument (ValueError)
    UNKNOWN_OP = 7
    UNSUPPORTED_VERSION = 8
    INTERNAL = 9  # a bug on the server, logged there


class FrameError(ValueError):
    """Bytes that are not a frame of this protocol: the connection cannot go on."""


@dataclass(frozen=True, slots=True)
class Header:
    version: int
    kind: int
    request_id: int
    length: int


def encode_frame(kind: int, request_id: int, payload: bytes) -> bytes:
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise FrameError(f"a payload of {len(payload)} bytes is over {MAX_PAYLOAD_BYTES}")
    return HEADER.pack(MAGIC, PROTOCOL_VERSION, kind, request_id, len(payload)) + payload


def decode_header(data: bytes) -> Header:
    """The header in `data` (HEADER.size bytes). FrameError for another protocol or a
    payload too large; the version is returned, not checked (the server answers it)."""
    magic, version, kind, request_id, length = HEADER.unpack(data)
    if magic != MAGIC:
        raise FrameError(f"not a TideMQ node frame (magic {magic!r})")
    if length > MAX_PAYLOAD_BYTES:
        raise FrameError(f"a payload of {length} bytes is over {MAX_PAYLOAD_BYTES}")
    return Header(version, kind, request_id, length)


# -- payloads -----------------------------------------------------------------------------


class Attribute(msgspec.Struct, array_like=True, frozen=True):
    data_type: str
    string_value: str | None = None
    binary_value: bytes | None = None


class WireRecord(msgspec.Struct, array_like=True, frozen=True):
    """A RecordIn; with `offset` (-1 in an append) a Record."""

    offset: int
    message_id: str
    timestamp_ms: int
    body: bytes
    key: bytes | None = None
    group_id: str | None = None
    dedup_id: str | None = None
    delay_ms: int = 0
    attributes: dict[str, Attribute] = {}
    system_attributes: dict[str, Attribute] = {}


class Partition(msgspec.Struct, array_like=True, frozen=True):
    """A request on one partition. `epoch`: the lease tenure the sender believes current;
    0 for whichever tenure the node holds (taking the lease if it is free)."""

    stream_id: str
    partition: int
    epoch: int = 0


class Append(msgspec.Struct, array_like=True, frozen=True):
    """`producer_id` and `sequence` name the append for deduplication: a node that has
    appended this producer's sequence already answers the first offset it gave.
    `replication`: the stream's mode (storage_nodes.node.Replication), added after
    version 1's first release, hence last and with a default."""

    target: Partition
    producer_id: str
    sequence: int
    records: list[WireRecord]
    replication: str = "none"


class Replicate(msgspec.Struct, array_like=True, frozen=True):
    """An owner's copy of appends it made, for its follower to keep (docs/durability.md).
    `target.epoch` is the owner's lease epoch (never 0); `batches` are record batches as
    a segment holds them, at the offsets the owner gave; `archived_end` is where the
    archive's copy of the partition ends, so that the follower drops what it covers."""

    target: Partition
    archived_end: int
    batches: bytes


class ReadOffsets(msgspec.Struct, array_like=True, frozen=True):
    target: Partition
    offsets: list[int]


class AbsentOffsets(msgspec.Struct, array_like=True, frozen=True):
    unavailable: list[int]
    never_written: list[int]


class OffsetForTime(msgspec.Struct, array_like=True, frozen=True):
    target: Partition
    timestamp_ms: int


class Descriptor(msgspec.Struct, array_like=True, frozen=True):
    stream_id: str
    account_id: str
    kind: str
    name: str
    partitions: int
    created_ms: int


class StreamRef(msgspec.Struct, array_like=True, frozen=True):
    stream_id: str


class Empty(msgspec.Struct, array_like=True, frozen=True):
    pass


REQUEST_TYPES: Mapping[Op, type[Any]] = {
    Op.CREATE_STREAM: Descriptor,
    Op.APPEND: Append,
    Op.READ_OFFSETS: ReadOffsets,
    Op.END_OFFSET: Partition,
    Op.OFFSET_FOR_TIME: OffsetForTime,
    Op.DROP_STREAM: StreamRef,
    Op.TIERING_STATUS: Partition,
    Op.PROBLEM: Empty,
    Op.ABSENT: ReadOffsets,
    Op.REPLICATE: Replicate,
}
RESPONSE_TYPES: Mapping[Op, Any] = {
    Op.CREATE_STREAM: None,
    Op.APPEND: int,
    Op.READ_OFFSETS: list[WireRecord],
    Op.END_OFFSET: int,
    Op.OFFSET_FOR_TIME: int,
    Op.DROP_STREAM: None,
    Op.TIERING_STATUS: TieringStatus | None,
    Op.PROBLEM: str | None,
    Op.ABSENT: AbsentOffsets,
    Op.REPLICATE: None,
}

_ENCODER = msgspec.msgpack.Encoder()
_REQUEST_DECODERS = {op: msgspec.msgpack.Decoder(t) for op, t in REQUEST_TYPES.items()}
_RESPONSE_DECODERS = {op: msgspec.msgpack.Decoder(t) for op, t in RESPONSE_TYPES.items()}
_ERROR_DECODER = msgspec.msgpack.Decoder(str)


def encode_payload(value: object) -> bytes:
    return _ENCODER.encode(value)


def decode_request(op: Op, payload: bytes) -> Any:
    """The request of `op` in `payload`; FrameError if it is not one."""
    try:
        return _REQUEST_DECODERS[op].decode(payload)
    except msgspec.DecodeError as exc:
        raise FrameError(f"a malformed {op.name} request: {exc}") from exc


def decode_response(op: Op, payload: bytes) -> Any:
    try:
        return _RESPONSE_DECODERS[op].decode(payload)
    except msgspec.DecodeError as exc:
        raise FrameError(f"a malformed {op.name} response: {exc}") from exc


def decode_error_message(payload: bytes) -> str:
    try:
        return _ERROR_DECODER.decode(payload)
    except msgspec.DecodeError:
        return payload.decode(errors="replace")


# -- records and descriptors --------------------------------------------------------------


def _attributes_out(attributes: Mapping[str, MessageAttribute]) -> dict[str, Attribute]:
    return {
        name: Attribute(a.data_type, a.string_value, a.binary_value)
        for name, a in attributes.items()
    }


def _attributes_in(attributes: Mapping[str, Attribute]) -> dict[str, MessageAttribute]:
    return {
        name: MessageAttribute(a.data_type, a.string_value, a.binary_value)
        for name, a in attributes.items()
    }


def wire_record(record: RecordIn | Record) -> WireRecord:
    return WireRecord(
        record.offset if isinstance(record, Record) else -1,
        record.message_id,
        record.timestamp_ms,
        record.body,
        record.key,
        record.group_id,
        record.dedup_id,
        record.delay_ms,
        _attributes_out(record.attributes) if record.attributes else {},
        _attributes_out(record.system_attributes) if record.system_attributes else {},
    )


def wire_records(records: Sequence[RecordIn | Record]) -> list[WireRecord]:
    return [wire_record(r) for r in records]


def record_in(wire: WireRecord) -> RecordIn:
    return RecordIn(
        wire.message_id,
        wire.timestamp_ms,
        wire.body,
        wire.key,
        wire.group_id,
        wire.dedup_id,
        wire.delay_ms,
        **_attributes_of(wire),
    )


def record_out(wire: WireRecord) -> Record:
    return Record(
        wire.offset,
        wire.message_id,
        wire.timestamp_ms,
        wire.body,
        wire.key,
        wire.group_id,
        wire.dedup_id,
        wire.delay_ms,
        **_attributes_of(wire),
    )


def _attributes_of(wire: WireRecord) -> dict[str, Any]:
    # Empty mappings stay the record types' shared defaults instead of a new dict each.
    extra: dict[str, Any] = {}
    if wire.attributes:
        extra["attributes"] = _attributes_in(wire.attributes)
    if wire.system_attributes:
        extra["system_attributes"] = _attributes_in(wire.system_attributes)
    return extra


def wire_descriptor(descriptor: StreamDescriptor) -> Descriptor:
    return Descriptor(
        descriptor.stream_id,
        descriptor.account_id,
        descriptor.kind,
        descriptor.name,
        descriptor.partitions,
        descriptor.created_ms,
    )


def stream_descriptor(wire: Descriptor) -> StreamDescriptor:
    if wire.kind not in ("queue", "topic"):
        raise ValueError(f"a stream's kind is queue or topic, not {wire.kind!r}")
    kind: Any = wire.kind
    return StreamDescriptor(
        wire.stream_id, wire.account_id, kind, wire.name, wire.partitions, wire.created_ms
    )


# -- errors -------------------------------------------------------------------------------

# Each NodeError a node raises on purpose, and its status; the client raises the same
# class back. The order matters where classes are related: the most specific first.
ERROR_STATUS: tuple[tuple[type[NodeError], Status], ...] = (
    (NotOwner, Status.NOT_OWNER),
    (StreamDropped, Status.STREAM_DROPPED),
    (DiskBudgetExceeded, Status.DISK_BUDGET_EXCEEDED),
    (ArchiveUnavailable, Status.ARCHIVE_UNAVAILABLE),
    (StorageUnavailable, Status.STORAGE_UNAVAILABLE),
)
_ERROR_BY_STATUS: dict[int, type[NodeError]] = {status: cls for cls, status in ERROR_STATUS}


def status_of(exc: NodeError) -> Status:
    for cls, status in ERROR_STATUS:
        if isinstance(exc, cls):
            return status
    return Status.STORAGE_UNAVAILABLE  # a NodeError of a kind the protocol does not name


def error_for(status: int, message: str) -> Exception:
    """The exception a client raises for an error response: the NodeError the server
    raised, ValueError for a bad request, StorageUnavailable for the rest."""
    cls = _ERROR_BY_STATUS.get(status)
    if cls is not None:
        return cls(message)
    if status == Status.BAD_REQUEST:
        return ValueError(message)
    return StorageUnavailable(f"the storage node failed the request ({message})")
