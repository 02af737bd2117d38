"""Message move tasks (SQS StartMessageMoveTask): their records and their one-at-a-time rule.

A task moves the messages of a dead-letter queue back to their source queues (or to one
given destination). Its record lives under the account's hash tag: a hash of tasks by id
(JSON), a sorted set of a source queue's task ids by start time, and a hash source queue
-> "<id of its running task>:<heartbeat ms>", so starting a second task on a source is
refused atomically. The gateway that starts a task runs it and records its progress here,
which is also its heartbeat. A running task whose heartbeat is older than a minute was
left by a gateway that stopped: it is reported FAILED, and a new task may start.
"""

from __future__ import annotations

import base64
import binascii
import secrets
from dataclasses import asdict, dataclass, replace
from typing import Literal, cast

import orjson

from control_plane import redis_keys, timed_scripts
from control_plane.clock import Clock
from control_plane.errors import InvalidParameterValue, ResourceNotFound, redis_boundary
from control_plane.redis_client import RedisClient

Status = Literal["RUNNING", "COMPLETED", "CANCELLING", "CANCELLED", "FAILED"]
MAX_LISTED = 10
STALE_AFTER_MS = 60_000

START_TASK = """
-- KEYS[1] tasks (hash id -> JSON), KEYS[2] the source's task ids by start ms,
-- KEYS[3] running task per source ("<task id>:<heartbeat ms>")
-- ARGV[1] source queue name, ARGV[2] task id, ARGV[3] task JSON, ARGV[4] now ms,
-- ARGV[5] most tasks kept per source, ARGV[6] ms after which a heartbeat is stale
-- returns 1 started, 0 a live task is already running on the source (nothing changed)
local running = redis.call('HGET', KEYS[3], ARGV[1])
if running then
  local heartbeat = tonumber(string.match(running, ':(%d+)$'))
  if tonumber(ARGV[4]) - heartbeat < tonumber(ARGV[6]) then return 0 end
end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2] .. ':' .. ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[2])
local extra = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5])
if extra > 0 then
  for _, old in ipairs(redis.call('ZRANGE', KEYS[2], 0, extra - 1)) do
    redis.call('HDEL', KEYS[1], old)
  end
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, extra - 1)
end
return 1
"""


@dataclass(frozen=True, slots=True)
class MoveTask:
    account_id: str
    task_id: str
    source_queue: str
    destination_queue: str | None  # None: each message back to its own source
    max_per_second: int | None
    to_move: int
    moved: int
    status: Status
    started_ms: int
    heartbeat_ms: int
    failure_reason: str | None = None

    @property
    def handle(self) -> str:
        raw = f"{self.account_id}/{self.source_queue}/{self.task_id}".encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @property
    def finished(self) -> bool:
        return self.status in ("COMPLETED", "CANCELLED", "FAILED")

    def as_seen_at(self, now_ms: int) -> MoveTask:
        """The task as reported: a running one whose gateway stopped heartbeating failed."""
        if not self.finished and now_ms - self.heartbeat_ms >= STALE_AFTER_MS:
            return replace(
                self, status="FAILED", failure_reason="The gateway running the task stopped."
            )
        return self


def parse_handle(handle: str) -> tuple[str, str, str]:
    """(account id, source queue, task id) named by a task handle."""
    try:
        raw = base64.urlsafe_b64decode(handle + "=" * (-len(handle) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raw = ""
    parts = raw.split("/")
    if len(parts) != 3 or not all(parts):
        raise ResourceNotFound("The task handle does not name a message move task.")
    return parts[0], parts[1], parts[2]


class MoveTaskStore:
    def __init__(self, redis: RedisClient, clock: Clock) -> None:
        self._redis = redis
        self._clock = clock
        self._start = timed_scripts.register(redis, "start_task", START_TASK)

    async def start(
        self,
        account_id: str,
        source_queue: str,
        destination_queue: str | None,
        max_per_second: int | None,
        to_move: int,
    ) -> MoveTask:
        task = MoveTask(
            account_id=account_id,
            task_id=secrets.token_hex(8),
            source_queue=source_queue,
            destination_queue=destination_queue,
            max_per_second=max_per_second,
            to_move=to_move,
            moved=0,
            status="RUNNING",
            started_ms=self._clock.now_ms(),
            heartbeat_ms=self._clock.now_ms(),
        )
        with redis_boundary():
            started = await self._start(
                keys=[
                    redis_keys.move_tasks(account_id),
                    redis_keys.move_tasks_of(account_id, source_queue),
                    redis_keys.running_move_tasks(account_id),
                ],
                args=[
                    source_queue,
                    task.task_id,
                    _encode(task),
                    task.started_ms,
                    MAX_LISTED,
                    STALE_AFTER_MS,
                ],
            )
        if not int(started):
            raise InvalidParameterValue(
                "There is already a task running. Only one active task is allowed for a "
                "source queue arn at a given time."
            )
        return task

    async def get(self, account_id: str, task_id: str) -> MoveTask:
        """The task as recorded (RUNNING until its runner sees a cancel)."""
        with redis_boundary():
            raw = await self._redis.hget(redis_keys.move_tasks(account_id), task_id)
        if raw is None:
            raise ResourceNotFound("The task handle does not name a message move task.")
        return MoveTask(**orjson.loads(raw))

    async def cancel_requested(self, task: MoveTask) -> bool:
        with redis_boundary():
            return bool(
                await self._redis.sismember(
                    redis_keys.move_task_cancels(task.account_id), task.task_id
                )
            )

    async def save(self, task: MoveTask) -> MoveTask:
        """Records progress (and so a heartbeat); a finished task also stops being the
        source's running one. Returns the task as saved."""
        task = replace(task, heartbeat_ms=self._clock.now_ms())
        running = redis_keys.running_move_tasks(task.account_id)
        with redis_boundary():
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.hset(redis_keys.move_tasks(task.account_id), task.task_id, _encode(task))
                if task.finished:
                    pipe.hdel(running, task.source_queue)
                    pipe.srem(redis_keys.move_task_cancels(task.account_id), task.task_id)
                else:
                    pipe.hset(running, task.source_queue, f"{task.task_id}:{task.heartbeat_ms}")
                await pipe.execute()
        return task

    async def cancel(self, account_id: str, task_id: str) -> MoveTask:
        task = (await self.get(account_id, task_id)).as_seen_at(self._clock.now_ms())
        if task.status != "RUNNING":
            raise InvalidParameterValue("Only active tasks can be cancelled.")
        with redis_boundary():
            await self._redis.sadd(redis_keys.move_task_cancels(account_id), task_id)
        return replace(task, status="CANCELLING")

    async def list(self, account_id: str, source_queue: str, max_results: int) -> list[MoveTask]:
        """The source's most recent tasks, newest first."""
        with redis_boundary():
            # Without scores, the reply is the member names only.
            ids = cast(
                "list[bytes]",
                await self._redis.zrevrange(
                    redis_keys.move_tasks_of(account_id, source_queue), 0, max_results - 1
                ),
            )
            if not ids:
                return []
            raw = await self._redis.hmget(redis_keys.move_tasks(account_id), ids)
            cancels = await self._redis.smembers(redis_keys.move_task_cancels(account_id))
        now_ms = self._clock.now_ms()
        tasks = [MoveTask(**orjson.loads(r)).as_seen_at(now_ms) for r in raw if r is not None]
        return [
            replace(t, status="CANCELLING")
            if t.status == "RUNNING" and t.task_id.encode() in cancels
            else t
            for t in tasks
        ]


def _encode(task: MoveTask) -> bytes:
    return orjson.dumps(asdict(task))
