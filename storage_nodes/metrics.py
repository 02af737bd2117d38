"""The storage node's Prometheus metrics: the log's durable writes and their group
commit, and tiering to the archive.

Defined here, with prometheus_client directly, since the node imports nothing of the
gateway's; `/metrics` (gateway/metrics_endpoint.py) serves them with the rest. Gauges of
a node add up over the processes of a multiprocess deployment (each has its own node).
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

# The write and its sync of one round: in the I/O thread, pwritev2(RWF_DSYNC) or pwritev
# and fdatasync; for a small round, pwritev from the loop and the kernel's AIO fdatasync,
# until the loop sees it done (docs/performance.md has what they take on a VM's disk).
_SYNC_BUCKETS_S = (
    0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.5, 2,
)  # fmt: skip
SYNC_SECONDS = Histogram(
    "tidemq_fsync_duration_seconds",
    "Time of a round's durable write: the write and its sync, in the I/O thread or, for a "
    "small round, from the event loop with the kernel's AIO.",
    buckets=_SYNC_BUCKETS_S,
)
KERNEL_SYNCS = Counter(
    "tidemq_log_kernel_syncs",
    "Rounds written from the event loop and synced by the kernel's AIO, not the I/O thread.",
)
GROUP_COMMIT_APPENDS = Histogram(
    "tidemq_fsync_group_commit_appends",
    "Appends (one per send call, a batch counts once) made durable by one sync.",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024),
)
REQUESTS = Counter(
    "tidemq_node_requests",
    "Requests of the node protocol received, by operation; an APPEND counts once however "
    "many records it carries (a gateway coalesces a partition's appends).",
    ["operation"],
)
WRITTEN_BYTES = Counter("tidemq_log_written_bytes", "Bytes written to the segments' logs.")

TIERED_BYTES = Counter(
    "tidemq_tiering_uploaded_bytes", "Bytes of segment logs uploaded to the archive."
)
TIERED_SEGMENTS = Counter(
    "tidemq_tiering_uploaded_segments", "Segments uploaded to the archive and listed."
)
TIERING_FAILURES = Counter(
    "tidemq_tiering_failures", "Rounds of tiering that the object store failed."
)
TIERING_LAG_RECORDS = Gauge(
    "tidemq_tiering_lag_records",
    "Records in the local logs that the archive does not hold yet (sealed or not).",
    multiprocess_mode="livesum",
)
TIERING_LAG_SECONDS = Gauge(
    "tidemq_tiering_lag_seconds",
    "Age of the oldest record the archive does not hold yet (the active segment's "
    "included, so it climbs to the segment age limit before each seal).",
    multiprocess_mode="livemax",
)
TIERING_PENDING_BYTES = Gauge(
    "tidemq_tiering_pending_bytes",
    "Bytes of sealed segments waiting to be uploaded.",
    multiprocess_mode="livesum",
)
LOCAL_LOG_BYTES = Gauge(
    "tidemq_local_log_bytes",
    "Bytes of the segments' logs on the node's disk (tiered copies included).",
    multiprocess_mode="livesum",
)

TAIL_CACHE_HITS = Counter(
    "tidemq_log_tail_cache_hits",
    "Records read from the tail cache of recent appends instead of from the segments.",
)
TAIL_CACHE_MISSES = Counter(
    "tidemq_log_tail_cache_misses",
    "Records read from the segments because the tail cache no longer (or never) held them.",
)
TAIL_CACHE_EVICTED = Counter(
    "tidemq_log_tail_cache_evicted",
    "Records that left the tail cache to keep it within its byte bound.",
)
TAIL_CACHE_BYTES = Gauge(
    "tidemq_log_tail_cache_bytes",
    "Bytes the tail cache holds (bodies, attributes and an estimate of each record's "
    "overhead), within its bound.",
    multiprocess_mode="livesum",
)

# Tail copies (storage_nodes/copies): one round copies every append acknowledged meanwhile.
TAIL_COPY_ROUNDS = Counter(
    "tidemq_tail_copy_rounds",
    "Rounds of tail copies made, by where they went (replica: a follower node; object: "
    "the object store).",
    ["mode"],
)
TAIL_COPY_SECONDS = Histogram(
    "tidemq_tail_copy_duration_seconds",
    "Time of one round of tail copies: the follower's fsynced answer, or the object's put.",
    ["mode"],
    buckets=(0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.5, 1, 2),
)
TAIL_COPY_APPENDS = Histogram(
    "tidemq_tail_copy_round_appends",
    "Appends copied by one round (group commit of the copies).",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024),
)
TAIL_COPY_FAILURES = Counter(
    "tidemq_tail_copy_failures",
    "Rounds of tail copies that failed (a follower that did not answer, the store down); "
    "a follower's failure is retried on the next one.",
    ["mode"],
)
FOLLOWER_SWITCHES = Counter(
    "tidemq_tail_copy_follower_switches",
    "Times a partition's copies moved to another follower (after the tail was archived).",
)
