"""The archive: what object storage holds of a queue (docs/tiering.md)."""

from __future__ import annotations

from gateway.rest.context import RestContext
from gateway.rest.errors import RestError
from gateway.rest.operations import operation
from gateway.rest.shapes.archive import ArchivedSegment, PartitionArchive, QueueArchive

TAG = "archive"


@operation("GET", "/v1/queues/{name}/archive", tag=TAG, response=QueueArchive)
async def get_queue_archive(ctx: RestContext, _: None) -> QueueArchive:
    """Describe a queue's archive.

    Per partition: the segments tiered to object storage (offsets, times, bytes), how far
    the archive reaches and where the local log starts and ends, and how many records
    the archive is behind the log. A 503 ServiceUnavailable while the object store cannot
    be read.
    """
    statuses = await ctx.broker.archive_status(await ctx.queue())
    if not statuses:
        raise RestError("ArchiveNotConfigured", "This TideMQ keeps no archive.")
    return QueueArchive(
        archive=statuses[0].archive_url,
        partitions=[
            PartitionArchive(
                partition=status.partition,
                archive_start_offset=status.archive_start_offset,
                archive_end_offset=status.archive_end_offset,
                log_start_offset=status.log_start_offset,
                log_end_offset=status.log_end_offset,
                records_behind=status.records_behind,
                tiered_bytes=status.tiered_bytes,
                local_bytes=status.local_bytes,
                newest_archived_timestamp=status.newest_archived_ms,
                segments=[
                    ArchivedSegment(
                        base_offset=segment.base_offset,
                        end_offset=segment.end_offset,
                        records=segment.records,
                        first_timestamp=segment.first_timestamp_ms,
                        max_timestamp=segment.max_timestamp_ms,
                        bytes=segment.bytes,
                        writer_epoch=segment.writer_epoch,
                    )
                    for segment in status.segments
                ],
            )
            for status in statuses
        ],
    )
