from __future__ import annotations

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from storage_nodes.node import (
    ArchiveUnavailable,
    DiskBudgetExceeded,
    MessageAttribute,
    NodeError,
    NotOwner,
    Record,
    RecordIn,
    StorageUnavailable,
    StreamDropped,
)
from storage_nodes.wire import frames
from storage_nodes.wire.frames import FrameError, Op, Status

texts = st.text(max_size=20)
attributes = st.dictionaries(
    texts,
    st.builds(
        MessageAttribute,
        st.sampled_from(["String", "Number", "Binary", "String.custom"]),
        st.none() | texts,
        st.none() | st.binary(max_size=20),
    ),
    max_size=3,
)
records_in = st.builds(
    RecordIn,
    message_id=texts,
    timestamp_ms=st.integers(0, 2**62),
    body=st.binary(max_size=200),
    key=st.none() | st.binary(max_size=10),
    group_id=st.none() | texts,
    dedup_id=st.none() | texts,
    delay_ms=st.integers(0, 2**31 - 1),
    attributes=attributes,
    system_attributes=attributes,
)


@settings(max_examples=200)
@given(
    records=st.lists(records_in, max_size=5),
    request_id=st.integers(0, frames.MAX_REQUEST_ID),
    epoch=st.integers(0, 2**40),
    sequence=st.integers(0, 2**62),
)
def test_an_append_frame_round_trips(
    records: list[RecordIn], request_id: int, epoch: int, sequence: int
) -> None:
    request = frames.Append(
        frames.Partition("s-1", 3, epoch), "producer", sequence, frames.wire_records(records)
    )
    data = frames.encode_frame(Op.APPEND, request_id, frames.encode_payload(request))
    header = frames.decode_header(data[: frames.HEADER.size])
    assert (header.version, header.kind, header.request_id) == (1, Op.APPEND, request_id)
    assert header.length == len(data) - frames.HEADER.size
    decoded = frames.decode_request(Op.APPEND, data[frames.HEADER.size :])
    assert decoded == request
    assert [frames.record_in(r) for r in decoded.records] == records


@given(records=st.lists(records_in, max_size=5), base=st.integers(0, 2**40))
def test_records_read_back_keep_their_offsets(records: list[RecordIn], base: int) -> None:
    read = [
        Record(base + i, r.message_id, r.timestamp_ms, r.body, r.key, r.group_id, r.dedup_id,
               r.delay_ms, r.attributes, r.system_attributes)
        for i, r in enumerate(records)
    ]  # fmt: skip
    payload = frames.encode_payload(frames.wire_records(read))
    decoded = frames.decode_response(Op.READ_OFFSETS, payload)
    assert [frames.record_out(r) for r in decoded] == read


def test_other_bytes_are_not_a_frame() -> None:
    with pytest.raises(FrameError, match="magic"):
        frames.decode_header(b"GET / HTTP/1")
    too_long = frames.HEADER.pack(frames.MAGIC, 1, 2, 7, frames.MAX_PAYLOAD_BYTES + 1)
    with pytest.raises(FrameError, match="over"):
        frames.decode_header(too_long)
    with pytest.raises(FrameError, match="malformed APPEND"):
        frames.decode_request(Op.APPEND, frames.encode_payload(["not", "an", "append"]))


def test_a_later_version_s_trailing_fields_are_ignored_and_missing_ones_defaulted() -> None:
    # Additions go at the end of a struct with a default: both sides still understand.
    newer = frames.encode_payload(["s", 1, 5, "a field of a later version"])
    assert frames.decode_request(Op.END_OFFSET, newer) == frames.Partition("s", 1, 5)
    older = frames.encode_payload(["s", 1])
    assert frames.decode_request(Op.END_OFFSET, older) == frames.Partition("s", 1, 0)


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (NotOwner("x"), Status.NOT_OWNER),
        (StreamDropped("x"), Status.STREAM_DROPPED),
        (StorageUnavailable("x"), Status.STORAGE_UNAVAILABLE),
        (DiskBudgetExceeded("x"), Status.DISK_BUDGET_EXCEEDED),
        (ArchiveUnavailable("x"), Status.ARCHIVE_UNAVAILABLE),
    ],
)
def test_each_node_error_has_its_status_and_comes_back_as_itself(
    error: NodeError, status: Status
) -> None:
    assert frames.status_of(error) == status
    back = frames.error_for(status, "the message")
    assert type(back) is type(error)
    assert str(back) == "the message"


def test_a_bad_request_is_a_value_error_and_the_rest_unavailable() -> None:
    assert type(frames.error_for(Status.BAD_REQUEST, "bad")) is ValueError
    internal = frames.error_for(Status.INTERNAL, "KeyError: 'x'")
    assert type(internal) is StorageUnavailable
    assert "KeyError" in str(internal)


def test_a_descriptor_of_an_unknown_kind_is_refused() -> None:
    wire = frames.Descriptor("s", "123456789012", "table", "t", 1, 0)
    with pytest.raises(ValueError, match="queue or topic"):
        frames.stream_descriptor(wire)
    assert msgspec.msgpack.decode(frames.encode_payload(wire), type=frames.Descriptor) == wire
