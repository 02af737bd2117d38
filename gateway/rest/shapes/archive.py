"""Archive shapes: what the archive holds of a queue, beside its log."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta, Struct

Millis = Annotated[int, Meta(description="ms since the epoch")]


class ArchivedSegment(Struct):
    base_offset: int
    end_offset: Annotated[int, Meta(description="Exclusive.")]
    records: int
    first_timestamp: Millis | None
    max_timestamp: Millis | None
    bytes: int
    writer_epoch: int


class PartitionArchive(Struct):
    partition: int
    archive_start_offset: int
    archive_end_offset: Annotated[int, Meta(description="One past the last archived offset.")]
    log_start_offset: Annotated[int, Meta(description="The first offset still on local disk.")]
    log_end_offset: int
    records_behind: Annotated[
        int, Meta(description="Records in the log that the archive does not hold yet.")
    ]
    tiered_bytes: int
    local_bytes: int
    newest_archived_timestamp: Millis | None
    segments: list[ArchivedSegment]


class QueueArchive(Struct):
    """Where the archive is, and per partition what it holds."""

    archive: Annotated[str, Meta(description="s3://bucket/prefix or file:///directory")]
    partitions: list[PartitionArchive]
