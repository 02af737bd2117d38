"""Lua scripts of the queue catalogue: create, delete, change attributes, tags.

Each script names its keys (all in one account's hash slot), its arguments and what it
returns. Numbers are formatted by the caller. A
script that changes what gateways cache of a queue (control_plane/metadata_cache.py)
publishes the metadata key's invalidation itself and answers how many gateways got it.
"""

from __future__ import annotations

from control_plane.metadata_cache import return_invalidating

CREATE_QUEUE = """
-- KEYS[1] catalogue (zset of names), KEYS[2] the queue's metadata hash,
-- KEYS[3] deleted queues (hash name -> ms), KEYS[4] the queue's tags,
-- KEYS[5] dead-letter sources of the queue's dead-letter queue (unused without one)
-- ARGV[1] name, ARGV[2] stream id, ARGV[3] now ms, ARGV[4] partitions,
-- ARGV[5] attributes (canonical JSON), ARGV[6] ms a deleted name stays reserved,
-- ARGV[7] 1 if the queue has a dead-letter queue, ARGV[8..] tag key, value pairs
-- returns 1 created, 0 a queue of that name exists (nothing changed),
-- -1 the name was deleted too recently (nothing changed)
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local deleted = redis.call('HGET', KEYS[3], ARGV[1])
if deleted then
  if tonumber(ARGV[3]) - tonumber(deleted) < tonumber(ARGV[6]) then return -1 end
  redis.call('HDEL', KEYS[3], ARGV[1])
end
redis.call('HSET', KEYS[2], 'stream_id', ARGV[2], 'created_ms', ARGV[3],
           'modified_ms', ARGV[3], 'partitions', ARGV[4], 'attributes', ARGV[5])
redis.call('ZADD', KEYS[1], 0, ARGV[1])
if ARGV[7] == '1' then redis.call('SADD', KEYS[5], ARGV[1]) end
for i = 8, #ARGV, 2 do redis.call('HSET', KEYS[4], ARGV[i], ARGV[i + 1]) end
return 1
"""

DELETE_QUEUE = """
-- KEYS[1] catalogue, KEYS[2] metadata, KEYS[3] deleted queues, KEYS[4] tags,
-- KEYS[5] dead-letter sources of the queue's dead-letter queue (unused without one)
-- ARGV[1] name, ARGV[2] the stream id the caller looked up, ARGV[3] now ms
-- returns 1 if deleted, 0 if the queue was gone or had been re-created meanwhile
if redis.call('HGET', KEYS[2], 'stream_id') ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[2], KEYS[4])
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
redis.call('SREM', KEYS[5], ARGV[1])
""" + return_invalidating("KEYS[2]", "ARGV[4]")

SET_ATTRIBUTES = """
-- KEYS[1] metadata, KEYS[2] dead-letter sources of the old dead-letter queue,
-- KEYS[3] dead-letter sources of the new one (either unused when there is none)
-- ARGV[1] name, ARGV[2] stream id the caller read, ARGV[3] attributes (canonical JSON),
-- ARGV[4] now ms, ARGV[5] 1 if there was a dead-letter queue, ARGV[6] 1 if there is now
-- returns 1 changed, 0 the queue was deleted or re-created since the caller read it
if redis.call('HGET', KEYS[1], 'stream_id') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'attributes', ARGV[3], 'modified_ms', ARGV[4])
if ARGV[5] == '1' then redis.call('SREM', KEYS[2], ARGV[1]) end
if ARGV[6] == '1' then redis.call('SADD', KEYS[3], ARGV[1]) end
""" + return_invalidating("KEYS[1]", "ARGV[7]")

TAG_QUEUE = """
-- KEYS[1] metadata, KEYS[2] tags
-- ARGV[1] stream id the caller read, ARGV[2] most tags a queue may have,
-- ARGV[3..] tag key, value pairs
-- returns 1 tagged, 0 the queue is gone, -1 it would have too many tags (nothing changed)
if redis.call('HGET', KEYS[1], 'stream_id') ~= ARGV[1] then return 0 end
local new = 0
for i = 3, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[2], ARGV[i]) == 0 then new = new + 1 end
end
if redis.call('HLEN', KEYS[2]) + new > tonumber(ARGV[2]) then return -1 end
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
return 1
"""
