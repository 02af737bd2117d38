"""Lua scripts of deliveries: claim, delete, visibility, delays, redrive, purge.

Each script names its keys (all in one hash slot), its arguments and what it returns.
Numbers are formatted with %d before they are written, because Lua 5.1's default
number-to-string conversion would print large millisecond times in exponent form.
"""

from __future__ import annotations

CLAIM = """
-- KEYS[1] timers (zset "p:o" -> due ms), KEYS[2] deliveries (hash "p:o" -> "count:seq:first")
-- KEYS[3] cursors (hash partition -> next offset never delivered), KEYS[4] delivery seq
-- ARGV[1] now ms, ARGV[2] visibility timeout ms, ARGV[3] max messages,
-- ARGV[4..] pairs of partition, end offset (the log's next offset to be written)
-- returns a flat array, four entries a message: member, receive count, delivery seq,
-- first receive ms. Due timers (expired visibility, elapsed delays) come first, then
-- messages past the cursors, partition by partition.
local function s(n) return string.format('%d', n) end
local now = tonumber(ARGV[1])
local due_at = s(now + tonumber(ARGV[2]))
local max = tonumber(ARGV[3])
local out = {}
local function deliver(member, count, first)
  local seq = redis.call('INCR', KEYS[4])
  redis.call('HSET', KEYS[2], member, s(count) .. ':' .. s(seq) .. ':' .. s(first))
  redis.call('ZADD', KEYS[1], due_at, member)
  out[#out + 1] = member
  out[#out + 1] = count
  out[#out + 1] = seq
  out[#out + 1] = s(first)
end
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, max)
for _, member in ipairs(due) do
  local count, first = 0, now
  local state = redis.call('HGET', KEYS[2], member)
  if state then
    local c, _, f = string.match(state, '^(%d+):(%d+):(%d+)$')
    count = tonumber(c)
    if count > 0 then first = tonumber(f) end
  end
  deliver(member, count + 1, first)
end
local n = #due
local i = 4
while n < max and ARGV[i] do
  local partition = ARGV[i]
  local log_end = tonumber(ARGV[i + 1])
  local cursor = tonumber(redis.call('HGET', KEYS[3], partition) or '0')
  local upto = math.min(log_end, cursor + (max - n))
  for offset = cursor, upto - 1 do
    deliver(partition .. ':' .. s(offset), 1, now)
  end
  if upto > cursor then
    redis.call('HSET', KEYS[3], partition, s(upto))
    n = n + (upto - cursor)
  end
  i = i + 2
end
return out
"""

DELETE_MESSAGE = """
-- KEYS[1] timers, KEYS[2] deliveries
-- ARGV[1] member "p:o", ARGV[2] delivery seq named by the receipt
-- returns 1 deleted, 0 already deleted, -1 the receipt is stale (a newer delivery exists;
-- SQS answers success and keeps the message)
local state = redis.call('HGET', KEYS[2], ARGV[1])
if not state then return 0 end
local seq = string.match(state, '^%d+:(%d+):')
if seq ~= ARGV[2] then return -1 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
"""

CHANGE_VISIBILITY = """
-- KEYS[1] timers, KEYS[2] deliveries
-- ARGV[1] member "p:o", ARGV[2] delivery seq named by the receipt, ARGV[3] new due ms
-- returns 1 changed, 0 the message is not in flight under this receipt
local state = redis.call('HGET', KEYS[2], ARGV[1])
if not state then return 0 end
local seq = string.match(state, '^%d+:(%d+):')
if seq ~= ARGV[2] then return 0 end
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
"""
