"""`tidemq cluster forget-tail`: list the archive's pending tails, and give some up for lost.

A pending tail (docs/cluster.md, "Offsets after a failover") waits for a dead node's
un-archived records. For a `none` stream whose node never returns (its disk is gone),
nothing will fill it; giving it up turns its offsets into a gap, never written, so that
receives stop waiting for those messages (storage_nodes/archive/tail_give_ups.py).

    tidemq cluster forget-tail [--json]                          list them
    tidemq cluster forget-tail --stream ID --partition N --yes   give one partition's up
    tidemq cluster forget-tail --node NODE_ID --yes              give up all of a node's

The command does not write a manifest (only the partition's owner may): it puts a
request in the archive and waits (`--wait-ms`) for the owner to apply it on its round.
It refuses a tail whose node membership still lists as live, or whose node is not
recorded, unless `--force`; and, since it loses messages, anything without `--yes`.

Which Redis: as `tidemq cluster status`; which archive: TIDEMQ_ARCHIVE_URL, else the
data directory's `archive/` (where `tidemq up --nodes N` keeps it).

Exit codes: 0 done (or listed), 1 refused or not applied in time, 2 cannot ask
(settings, Redis or the archive unreachable).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from dataclasses import dataclass
from typing import Any

import orjson

from control_plane.accounts import AccountIndex
from control_plane.clock import SystemClock
from control_plane.errors import ControlPlaneError, NotFound
from control_plane.membership import Membership
from control_plane.queues import QueueStore
from control_plane.redis_client import RedisClient
from control_plane.topics import TopicStore
from storage_nodes.archive import tail_give_ups
from storage_nodes.archive.manifest import Manifests, PendingTail, SegmentEntry
from storage_nodes.archive.object_store import ObjectStore, ObjectStoreError
from storage_nodes.archive.stores import open_store
from tidemq.cli.keys import KeysCliError, control_plane_arguments, control_redis
from tidemq.settings import Settings, SettingsError
from tidemq.stack import archive_options

_POLL_S = 0.1
_TOPIC_PAGE = 100


@dataclass(frozen=True, slots=True)
class StreamTail:
    """A pending tail of one partition of a queue's or topic's stream."""

    stream_id: str
    partition: int
    tail: PendingTail
    account_id: str
    kind: str
    name: str


class Refused(Exception):
    """The command will not give these tails up; the message says why."""


def add_arguments(actions: Any) -> None:
    forget = actions.add_parser(
        "forget-tail",
        parents=[control_plane_arguments()],
        help="list the pending tails of dead nodes, or give some up for lost",
        description="Without --stream or --node: list the archive's pending tails. With "
        "them: give those tails up for lost (their messages are never delivered), once "
        "their node is gone for good (docs/cluster.md).",
    )
    forget.add_argument("--stream", help="the stream id of the tail to give up")
    forget.add_argument("--partition", type=int, help="its partition (with --stream)")
    forget.add_argument("--node", help="give up every pending tail of this node id")
    forget.add_argument(
        "--yes", action="store_true", help="confirm: the tails' messages are lost for good"
    )
    forget.add_argument(
        "--force",
        action="store_true",
        help="give up even a tail whose node is live or not recorded",
    )
    forget.add_argument(
        "--wait-ms",
        type=int,
        default=30_000,
        help="how long to wait for the partitions' owners to apply it (default 30000)",
    )
    forget.add_argument("--json", action="store_true", help="list as JSON")
    forget.add_argument("--archive-url", help="the cluster's archive (TIDEMQ_ARCHIVE_URL)")


def run(args: argparse.Namespace) -> int:
    try:
        if args.partition is not None and args.stream is None:
            raise SettingsError("--partition goes with --stream")
        if args.stream is not None and (args.partition is None or args.node is not None):
            raise SettingsError("name a tail by --stream and --partition, or by --node alone")
        settings = Settings.load(
            flags={
                "data_dir": args.data_dir,
                "redis_url": args.redis_url,
                "archive_url": args.archive_url,
            },
            config_file=args.config,
        )
        return asyncio.run(_run(args, settings))
    except (SettingsError, KeysCliError) as exc:
        print(f"tidemq cluster forget-tail: {exc}", file=sys.stderr)
        return 2
    except (ControlPlaneError, ObjectStoreError) as exc:
        print(f"tidemq cluster forget-tail: {exc}", file=sys.stderr)
        return 2
    except Refused as exc:
        print(f"tidemq cluster forget-tail: {exc}", file=sys.stderr)
        return 1


@dataclass(frozen=True, slots=True)
class _Found:
    tail: StreamTail
    node_live: bool


async def _run(args: argparse.Namespace, settings: Settings) -> int:
    options = archive_options(settings)
    store = open_store(options.url or str(settings.data_dir.resolve() / "archive"), options.s3)
    async with control_redis(settings) as redis:
        live = {node.node_id for node in await Membership(redis, SystemClock()).live_nodes()}
        streams = await _streams(redis)
    manifests = Manifests(store)
    tails = [
        StreamTail(stream_id, partition, tail, account_id, kind, name)
        for stream_id, partitions, account_id, kind, name in streams
        for partition, tail in await asyncio.to_thread(
            tail_give_ups.pending_tails, manifests, stream_id, partitions
        )
    ]
    found = [_Found(t, t.tail.node_id in live) for t in tails]
    if args.stream is None and args.node is None:
        _print_list(found, as_json=args.json)
        return 0
    chosen = [f for f in found if _chosen(f.tail, args)]
    if not chosen:
        raise Refused(f"no pending tail matches {_selector(args)} (list them without it)")
    _check(chosen, force=args.force, confirmed=args.yes)
    for f in chosen:
        t = f.tail
        await asyncio.to_thread(tail_give_ups.request, store, t.stream_id, t.partition, t.tail)
    return await _report(store, chosen, args.wait_ms)


async def _streams(redis: RedisClient) -> list[tuple[str, int, str, str, str]]:
    """Every queue's and topic's stream: (id, partitions, account, kind, name)."""
    clock = SystemClock()
    queues, topics = QueueStore(redis, clock), TopicStore(redis, clock)
    found: list[tuple[str, int, str, str, str]] = []
    for account_id in await AccountIndex(redis).all():
        for name in await queues.list_names(account_id):
            try:
                queue = await queues.get(account_id, name)
            except NotFound:
                continue  # deleted meanwhile
            found.append((queue.stream_id, queue.partitions, account_id, "queue", name))
        after = ""
        while page := await topics.list_page(account_id, after, _TOPIC_PAGE):
            found += [(t.stream_id, t.partitions, account_id, "topic", t.name) for t in page]
            after = page[-1].name
    return sorted(found)


def _chosen(tail: StreamTail, args: argparse.Namespace) -> bool:
    if args.node is not None:
        return tail.tail.node_id == str(args.node)
    return (tail.stream_id, tail.partition) == (str(args.stream), int(args.partition))


def _selector(args: argparse.Namespace) -> str:
    if args.node is not None:
        return f"--node {args.node}"
    return f"--stream {args.stream} --partition {args.partition}"


def _check(chosen: list[_Found], *, force: bool, confirmed: bool) -> None:
    if not force:
        live = [f for f in chosen if f.node_live]
        unknown = [f for f in chosen if not f.tail.tail.node_id]
        if live:
            raise Refused(
                f"{_names(live)}: the tail's node is live (membership lists "
                f"{live[0].tail.tail.node_id}); it offers its tail itself. Nothing done; "
                "--force gives it up anyway"
            )
        if unknown:
            raise Refused(
                f"{_names(unknown)}: the tail's node is not recorded (a tenure from before "
                "TideMQ recorded it), so it cannot be checked. Nothing done; --force gives "
                "it up anyway"
            )
    if not confirmed:
        lost = sum(f.tail.tail.end_offset - f.tail.tail.base_offset for f in chosen)
        raise Refused(
            f"giving up {_names(chosen)} loses the messages at up to {lost} offsets for "
            "good. Nothing done; run again with --yes to give them up"
        )


def _names(found: list[_Found]) -> str:
    return ", ".join(
        f"{f.tail.stream_id}/{f.tail.partition} {f.tail.tail.base_offset}-{f.tail.tail.end_offset}"
        for f in found
    )


async def _report(store: ObjectStore, chosen: list[_Found], wait_ms: int) -> int:
    """Waits for each tail to leave its manifest's pending tails and says what became of
    it; 1 if some are not applied within `wait_ms`."""
    manifests = Manifests(store)
    deadline_s = time.monotonic() + wait_ms / 1000
    waiting = list(chosen)
    late = 0
    while waiting:
        still = []
        for f in waiting:
            t = f.tail
            manifest, _ = await asyncio.to_thread(manifests.read, t.stream_id, t.partition)
            if manifest is not None and t.tail in manifest.pending:
                still.append(f)
                continue
            records = 0 if manifest is None else _records_in(manifest.segments, t)
            print(_outcome(t, records))
        waiting = still
        if waiting and time.monotonic() >= deadline_s:
            for f in waiting:
                t = f.tail
                print(
                    f"{t.stream_id}/{t.partition} offsets {t.tail.base_offset}-"
                    f"{t.tail.end_offset}: requested; its owner has not applied it yet (it "
                    "does on its next round, or when a node next takes the partition over)"
                )
            late = len(waiting)
            break
        if waiting:
            await asyncio.sleep(_POLL_S)
    return 1 if late else 0


def _records_in(segments: tuple[SegmentEntry, ...], t: StreamTail) -> int:
    return sum(
        max(0, min(s.end_offset, t.tail.end_offset) - max(s.base_offset, t.tail.base_offset))
        for s in segments
    )


def _outcome(t: StreamTail, records: int) -> str:
    offsets = t.tail.end_offset - t.tail.base_offset
    head = (
        f"{t.stream_id}/{t.partition} ({t.kind} {t.name}) offsets {t.tail.base_offset}-"
        f"{t.tail.end_offset} (epoch {t.tail.lease_epoch}, node {t.tail.node_id or 'unknown'})"
    )
    if records:
        return (
            f"{head}: its records were found before the give-up applied: {records} recovered, "
            f"the other {offsets - records} offsets never written"
        )
    return f"{head}: given up, {offsets} offsets never written now"


def _print_list(found: list[_Found], *, as_json: bool) -> None:
    rows = [
        {
            "stream_id": f.tail.stream_id,
            "partition": f.tail.partition,
            "account_id": f.tail.account_id,
            "kind": f.tail.kind,
            "name": f.tail.name,
            "base_offset": f.tail.tail.base_offset,
            "end_offset": f.tail.tail.end_offset,
            "offsets": f.tail.tail.end_offset - f.tail.tail.base_offset,
            "lease_epoch": f.tail.tail.lease_epoch,
            "node_id": f.tail.tail.node_id or None,
            "node_live": f.node_live,
        }
        for f in found
    ]
    if as_json:
        sys.stdout.write(orjson.dumps({"tails": rows}, option=orjson.OPT_INDENT_2).decode() + "\n")
        return
    print(f"{len(rows)} pending tail(s):")
    if not rows:
        return
    print(
        f"  {'stream':<16} {'part':>4} {'offsets':>21} {'count':>8} {'epoch':>6}  "
        f"{'node':<28} queue or topic"
    )
    for r in rows:
        state = "unknown" if r["node_id"] is None else ("live" if r["node_live"] else "dead")
        node = f"{r['node_id'] or '-'} ({state})"
        print(
            f"  {r['stream_id']:<16} {r['partition']:>4} "
            f"{str(r['base_offset']) + '-' + str(r['end_offset']):>21} {r['offsets']:>8} "
            f"{r['lease_epoch']:>6}  {node:<28} {r['kind']} {r['account_id']}/{r['name']}"
        )
