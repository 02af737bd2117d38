"""Lua scripts of the queue catalogue: create, delete, change attributes.

Each script names its keys (all in one hash slot), its arguments and what it returns.
Numbers are formatted with %d before they are written, because Lua 5.1's default
number-to-string conversion would print large millisecond times in exponent form.
"""

from __future__ import annotations

CREATE_QUEUE = """
-- KEYS[1] account's queue catalogue (zset of names)
-- KEYS[2] the queue's metadata hash
-- ARGV[1] queue name, ARGV[2] stream id, ARGV[3] created ms, ARGV[4] partitions,
-- ARGV[5] attributes (canonical JSON)
-- returns 1 if created, 0 if a queue of that name already exists (nothing changed)
if redis.call('EXISTS', KEYS[2]) == 1 then
  return 0
end
redis.call('HSET', KEYS[2], 'stream_id', ARGV[2], 'created_ms', ARGV[3],
           'partitions', ARGV[4], 'attributes', ARGV[5])
redis.call('ZADD', KEYS[1], 0, ARGV[1])
return 1
"""

DELETE_QUEUE = """
-- KEYS[1] account's queue catalogue, KEYS[2] the queue's metadata hash
-- ARGV[1] queue name, ARGV[2] the stream id the caller looked up
-- returns 1 if deleted, 0 if the queue was gone or had been re-created meanwhile
if redis.call('HGET', KEYS[2], 'stream_id') ~= ARGV[2] then
  return 0
end
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
"""
