"""The queue catalogue: create, look up, change, tag, list and delete queues of an account.

A queue is a stream with one implicit subscription. Each creation gets a fresh stream id,
so a queue deleted and created again under the same name starts from an empty log and
old receipt handles name nothing in it. A deleted name stays reserved for 60 seconds, as
in SQS. Every change is one script over the account's keys.

Lookups go through the gateway's metadata cache (control_plane/metadata_cache.py): the
scripts that change or delete a queue publish its invalidation before they answer, so a
deleted queue or a changed attribute takes effect on every gateway from the next request.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import orjson

from control_plane import redis_keys, timed_scripts
from control_plane.accounts import AccountIndex
from control_plane.acked_pubsub import new_nonce
from control_plane.arns import queue_arn
from control_plane.clock import Clock
from control_plane.errors import (
    InvalidAttributeValue,
    InvalidParameterValue,
    QueueDeletedRecently,
    QueueDoesNotExist,
    QueueNameExists,
    redis_boundary,
)
from control_plane.metadata_cache import (
    MetadataCache,
    receivers_if_changed,
    wait_applied,
)
from control_plane.queue_attributes import (
    PARTITIONS,
    REPLICATION,
    RedrivePolicy,
    ReplicationMode,
    check_combination,
    check_encryption,
    redrive_policy,
    replication_mode,
    validate,
    with_defaults,
    with_encryption_changes,
    with_names_trimmed,
)
from control_plane.queue_policy import add_permission, remove_permission
from control_plane.queue_scripts import CREATE_QUEUE, DELETE_QUEUE, SET_ATTRIBUTES, TAG_QUEUE
from control_plane.queue_settings import QueueSettings, parse_settings
from control_plane.queue_tags import MAX_TAGS, check_tag_keys, check_tags, too_many_tags
from control_plane.redis_client import RedisClient
from control_plane.redis_values import as_text

DELETED_NAME_RESERVED_MS = 60_000


@dataclass(frozen=True, slots=True)
class QueueInfo:
    account_id: str
    name: str
    stream_id: str
    created_ms: int
    modified_ms: int
    partitions: int
    attributes: Mapping[str, str] = field(hash=False)
    # Parsed once here: sends and receives read several settings per message.
    settings: QueueSettings = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "settings", parse_settings(self.attributes, self.fifo))

    @property
    def arn(self) -> str:
        return queue_arn(self.account_id, self.name)

    @property
    def fifo(self) -> bool:
        return self.name.endswith(".fifo")

    @property
    def replication(self) -> ReplicationMode:
        """How its un-archived tail is kept (fixed at creation; `none` for a queue made
        before the attribute existed)."""
        mode = self.attributes.get(REPLICATION, "none")
        return "replica" if mode == "replica" else "object" if mode == "object" else "none"

    def all_attributes(self) -> dict[str, str]:
        """Every implemented attribute that has a value: as set, or its default."""
        return {
            **with_defaults(self.attributes, self.fifo),
            PARTITIONS: str(self.partitions),
            REPLICATION: self.replication,
        }


class QueueStore:
    def __init__(
        self, redis: RedisClient, clock: Clock, cache: MetadataCache | None = None
    ) -> None:
        """`cache`: the gateway's metadata cache; without one every lookup reads Redis."""
        self._redis = redis
        self._clock = clock
        self._cache = cache or MetadataCache()
        self._accounts = AccountIndex(redis)
        self._create = timed_scripts.register(redis, "create_queue", CREATE_QUEUE)
        self._delete = timed_scripts.register(redis, "delete_queue", DELETE_QUEUE)
        self._set_attributes = timed_scripts.register(redis, "set_attributes", SET_ATTRIBUTES)
        self._tag = timed_scripts.register(redis, "tag_queue", TAG_QUEUE)

    async def create(
        self,
        account_id: str,
        name: str,
        attributes: Mapping[str, str],
        tags: Mapping[str, str] | None = None,
        *,
        default_replication: ReplicationMode = "none",
    ) -> QueueInfo:
        """Creates the queue, or returns it if it exists with the same attributes.

        Raises QueueNameExists if it exists with different ones, and QueueDeletedRecently
        within 60 s of the deletion of a queue of that name, as SQS does. A new queue
        whose attributes do not name `Replication` gets `default_replication`; an
        existing one is compared on it only where the request names it.
        """
        check_queue_name(name, attributes)
        fifo = name.endswith(".fifo")
        validated = validate(attributes, fifo)
        check_encryption(validated)
        wanted = with_encryption_changes({}, validated)
        wanted.pop("FifoQueue", None)  # the name says it, as check_queue_name made sure
        # Kept beside the attributes (the metadata's `partitions`), never among them: it
        # is no setting that can change.
        partitions = int(wanted.pop(PARTITIONS, "1"))
        # Kept among the attributes where it is not the default `none`, as queues made
        # before it existed have it.
        given = wanted.pop(REPLICATION, None)
        replication = replication_mode(given) if given is not None else default_replication
        if replication != "none":
            wanted[REPLICATION] = replication
        check_combination(wanted)
        check_tags(name, tags or {})
        redrive = redrive_policy(wanted)
        if redrive is not None:
            await self._check_dead_letter_target(account_id, name, redrive)
        stream_id = secrets.token_hex(8)
        now_ms = self._clock.now_ms()
        tag_args = [part for item in (tags or {}).items() for part in item]
        with redis_boundary():
            created = await self._create(
                keys=self._catalogue_keys(account_id, name, redrive),
                args=[
                    name,
                    stream_id,
                    now_ms,
                    partitions,
                    _encode(wanted),
                    DELETED_NAME_RESERVED_MS,
                    1 if redrive else 0,
                    *tag_args,
                ],
            )
        if int(created) == -1:
            raise QueueDeletedRecently(
                "You must wait 60 seconds after deleting a queue before you can create "
                "another with the same name."
            )
        if int(created) == 0:
            existing = await self._read(account_id, name)
            differing = [
                name for name in _differing(existing.attributes, wanted) if name != REPLICATION
            ]
            if given is not None and existing.replication != replication:
                differing = sorted([*differing, REPLICATION])
            if existing.partitions != partitions:
                differing = sorted([*differing, PARTITIONS])
            if differing:
                raise QueueNameExists(
                    "A queue already exists with the same name and a different value for "
                    f"attribute(s) {', '.join(differing)}"
                )
            return existing
        await self._accounts.add(account_id)
        return QueueInfo(account_id, name, stream_id, now_ms, now_ms, partitions, wanted)

    async def get(self, account_id: str, name: str) -> QueueInfo:
        key = redis_keys.queue_metadata(account_id, name)
        cached = self._cache.get(key)
        if isinstance(cached, QueueInfo):
            return cached
        generation = self._cache.generation
        queue = await self._read(account_id, name)
        self._cache.put(key, queue, generation)
        return queue

    async def _read(self, account_id: str, name: str) -> QueueInfo:
        """The queue as Redis has it now: what a change is worked out from."""
        with redis_boundary():
            fields = await self._redis.hgetall(redis_keys.queue_metadata(account_id, name))
        if not fields:
            raise QueueDoesNotExist("The specified queue does not exist.")
        return QueueInfo(
            account_id=account_id,
            name=name,
            stream_id=as_text(fields[b"stream_id"]),
            created_ms=int(fields[b"created_ms"]),
            modified_ms=int(fields[b"modified_ms"]),
            partitions=int(fields[b"partitions"]),
            attributes=orjson.loads(fields[b"attributes"]),
        )

    async def set_attributes(
        self, account_id: str, name: str, attributes: Mapping[str, str]
    ) -> QueueInfo:
        """Changes the given attributes (an empty policy removes it); the rest stay."""
        queue = await self._read(account_id, name)
        changes = validate(attributes, queue.fifo)
        if "FifoQueue" in changes:
            raise InvalidAttributeValue("A queue's type cannot be changed after it is created.")
        # Given as it is (tools that set every attribute they read back), it changes nothing.
        if changes.pop(PARTITIONS, str(queue.partitions)) != str(queue.partitions):
            raise InvalidAttributeValue(
                f"Invalid value for the parameter {PARTITIONS}. Reason: a queue's partitions "
                "cannot be changed after it is created."
            )
        if changes.pop(REPLICATION, queue.replication) != queue.replication:
            raise InvalidAttributeValue(
                f"Invalid value for the parameter {REPLICATION}. Reason: a queue's "
                "replication cannot be changed after it is created."
            )
        check_encryption(changes)
        merged = with_encryption_changes(queue.attributes, changes)
        check_combination(merged)
        old, new = queue.settings.redrive, redrive_policy(merged)
        if new is not None:
            await self._check_dead_letter_target(account_id, name, new)
        metadata = redis_keys.queue_metadata(account_id, name)
        nonce = new_nonce()
        with redis_boundary():
            receivers = receivers_if_changed(
                await self._set_attributes(
                    keys=[metadata, _sources_key(account_id, old), _sources_key(account_id, new)],
                    args=[
                        name,
                        queue.stream_id,
                        _encode(merged),
                        self._clock.now_ms(),
                        1 if old else 0,
                        1 if new else 0,
                        nonce,
                    ],
                )
            )
            if receivers is None:
                raise QueueDoesNotExist("The specified queue does not exist.")
            self._cache.invalidate(metadata)  # here at once, without waiting for the message
            await wait_applied(self._redis, nonce, receivers)
        return await self._read(account_id, name)

    async def delete(self, account_id: str, name: str) -> QueueInfo:
        """Removes the queue from the catalogue; the caller drops its stream and state."""
        queue = await self._read(account_id, name)
        nonce = new_nonce()
        with redis_boundary():
            receivers = receivers_if_changed(
                await self._delete(
                    keys=self._catalogue_keys(account_id, name, queue.settings.redrive),
                    args=[name, queue.stream_id, self._clock.now_ms(), nonce],
                )
            )
            if receivers is not None:
                self._cache.invalidate(redis_keys.queue_metadata(account_id, name))
                await wait_applied(self._redis, nonce, receivers)
        return queue

    async def list_names(
        self, account_id: str, prefix: str = "", limit: int | None = None
    ) -> list[str]:
        """Queue names in lexicographic order, those starting with `prefix` only; the
        first `limit` of them when it is given."""
        low = b"[" + prefix.encode() if prefix else b"-"
        high = b"[" + prefix.encode() + b"\xff" if prefix else b"+"
        page = {} if limit is None else {"start": 0, "num": limit}
        with redis_boundary():
            names = await self._redis.zrangebylex(
                redis_keys.queue_catalogue(account_id), low, high, **page
            )
        return [as_text(name) for name in names]

    async def count(self, account_id: str) -> int:
        """How many queues the account has."""
        with redis_boundary():
            return int(await self._redis.zcard(redis_keys.queue_catalogue(account_id)))

    async def add_permission(
        self,
        account_id: str,
        name: str,
        label: str,
        account_ids: Sequence[str],
        actions: Sequence[str],
    ) -> None:
        queue = await self._read(account_id, name)
        policy = add_permission(queue.settings.policy, queue.arn, label, account_ids, actions)
        await self.set_attributes(account_id, name, {"Policy": policy})

    async def remove_permission(self, account_id: str, name: str, label: str) -> None:
        queue = await self._read(account_id, name)
        policy = remove_permission(queue.settings.policy, queue.arn, label)
        await self.set_attributes(account_id, name, {"Policy": policy})

    async def dead_letter_sources(self, account_id: str, name: str) -> list[str]:
        """Names of the queues whose RedrivePolicy targets this one, sorted."""
        await self.get(account_id, name)
        with redis_boundary():
            names = await self._redis.smembers(redis_keys.dead_letter_sources(account_id, name))
        return sorted(as_text(n) for n in names)

    async def tag(self, account_id: str, name: str, tags: Mapping[str, str]) -> None:
        check_tags(name, tags)
        queue = await self._read(account_id, name)
        with redis_boundary():
            result = await self._tag(
                keys=[
                    redis_keys.queue_metadata(account_id, name),
                    redis_keys.queue_tags(account_id, name),
                ],
                args=[queue.stream_id, MAX_TAGS, *(p for item in tags.items() for p in item)],
            )
        if int(result) == 0:
            raise QueueDoesNotExist("The specified queue does not exist.")
        if int(result) == -1:
            raise too_many_tags(name)

    async def untag(self, account_id: str, name: str, tag_keys: Sequence[str]) -> None:
        """Removes the tags of those keys (a key the queue has no tag of is no error); at
        least one key, each as TagQueue takes it."""
        check_tag_keys(tag_keys)
        await self.get(account_id, name)
        with redis_boundary():
            await self._redis.hdel(redis_keys.queue_tags(account_id, name), *tag_keys)

    async def tags(self, account_id: str, name: str) -> dict[str, str]:
        await self.get(account_id, name)
        with redis_boundary():
            raw = await self._redis.hgetall(redis_keys.queue_tags(account_id, name))
        return {as_text(k): as_text(v) for k, v in raw.items()}

    async def _check_dead_letter_target(
        self, account_id: str, name: str, redrive: RedrivePolicy
    ) -> None:
        def invalid(reason: str) -> InvalidParameterValue:
            return InvalidParameterValue(
                f"Value for parameter RedrivePolicy is invalid. Reason: {reason}"
            )

        if redrive.dead_letter_account_id != account_id:
            raise invalid("Dead letter target must be a queue of the same account.")
        if redrive.dead_letter_queue == name:
            raise invalid("A queue cannot be its own dead letter target.")
        try:
            target = await self.get(account_id, redrive.dead_letter_queue)
        except QueueDoesNotExist:
            raise invalid("Dead letter target does not exist.") from None
        if target.fifo != name.endswith(".fifo"):
            raise invalid("A FIFO queue's dead letter target must be FIFO, a standard's standard.")
        if not target.settings.redrive_allow.allows(queue_arn(account_id, name)):
            raise invalid("The dead letter target's RedriveAllowPolicy does not allow it.")

    @staticmethod
    def _catalogue_keys(account_id: str, name: str, redrive: RedrivePolicy | None) -> list[str]:
        return [
            redis_keys.queue_catalogue(account_id),
            redis_keys.queue_metadata(account_id, name),
            redis_keys.deleted_queues(account_id),
            redis_keys.queue_tags(account_id, name),
            _sources_key(account_id, redrive),
        ]


# SQS's words for its queue names (a FIFO queue's ".fifo" counts towards the 80).
_QUEUE_NAME = re.compile(r"[A-Za-z0-9_-]{1,80}")
_FIFO_QUEUE_NAME = re.compile(r"[A-Za-z0-9_-]{1,75}\.fifo")
_QUEUE_NAME_RULE = (
    "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"
)
_FIFO_QUEUE_NAME_RULE = (
    "The name of a FIFO queue can only include alphanumeric characters, hyphens, or "
    "underscores, must end with .fifo suffix and be 1 to 80 in length."
)


def check_queue_name(name: str, attributes: Mapping[str, str]) -> None:
    """A new queue's name, by the type its attributes ask for (FifoQueue=true): SQS
    refuses a ".fifo" name for a standard queue with the standard rule, and any other
    name for a FIFO queue with the FIFO rule."""
    if not name:
        raise InvalidParameterValue("Queue name cannot be empty")
    fifo = with_names_trimmed(attributes).get("FifoQueue", "").lower() == "true"
    if fifo and not _FIFO_QUEUE_NAME.fullmatch(name):
        raise InvalidParameterValue(_FIFO_QUEUE_NAME_RULE)
    if not fifo and not _QUEUE_NAME.fullmatch(name):
        raise InvalidParameterValue(_QUEUE_NAME_RULE)


def _sources_key(account_id: str, redrive: RedrivePolicy | None) -> str:
    # Without a dead-letter queue the script leaves this key alone; it still has to be a
    # key of the account's slot.
    target = redrive.dead_letter_queue if redrive else ""
    return redis_keys.dead_letter_sources(account_id, target)


def _encode(attributes: Mapping[str, str]) -> bytes:
    return orjson.dumps(attributes, option=orjson.OPT_SORT_KEYS)


def _differing(existing: Mapping[str, str], wanted: Mapping[str, str]) -> list[str]:
    names = sorted(set(existing) | set(wanted))
    return [n for n in names if existing.get(n) != wanted.get(n)]
