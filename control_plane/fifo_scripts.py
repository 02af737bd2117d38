"""Lua scripts of FIFO queues: register sent messages in their groups, and claim.

A FIFO queue does not deliver by cursor. A send appends to the log, then `REGISTER_FIFO`
checks deduplication and puts each new message in its group. A group is *locked* while
any of its messages is in flight, and *ready* (listed by its first offset) when it is
unlocked and has messages. `CLAIM_FIFO` serves ready groups oldest first, several
messages of one group in order, and locks each group it serves. When an in-flight
message's visibility ends, the claim that finds its timer due unlocks the group by one;
deleting or removing an in-flight message does the same (delivery_scripts' helpers).

Deduplication: the first send of a deduplication key within the window records "<message
id>:<offset>"; a later send with the key gets that back and is not registered. Two sends
racing with one key both append, but only the first to register is delivered: the other
record stays in the log unreferenced, never delivered.
"""

from __future__ import annotations

from control_plane.delivery_scripts import PRELUDE

REGISTER_FIFO = (
    PRELUDE
    + """
-- KEYS[1] timers, KEYS[2] deliveries, KEYS[3] cursors, KEYS[4] delayed,
-- KEYS[5..8] FIFO set, groups, group locks, ready groups, KEYS[9] dedup,
-- KEYS[10] dedup expiry, KEYS[11..] unacked of the partitions named below
-- ARGV[1] now ms, ARGV[2] deduplication window ms, ARGV[3] due ms (> now: the queue's
-- delay holds the messages back until then), ARGV[4..] sextuples of partition, offset,
-- group id, deduplication key ('' for none), message id, index into KEYS of the
-- partition's unacked set
-- returns per message "<message id>:<offset>[:<partition>]" (no partition: 0): its own,
-- or the first send's when it is a duplicate (then nothing is registered)
local now = tonumber(ARGV[1])
local due = tonumber(ARGV[3])
for _, key in ipairs(redis.call('ZRANGEBYSCORE', KEYS[10], '-inf', ARGV[1], 'LIMIT', 0, 1000)) do
  redis.call('HDEL', KEYS[9], key)
  redis.call('ZREM', KEYS[10], key)
end
local cursors = {}
local out = {}
for i = 4, #ARGV, 6 do
  local partition, offset, group = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2]
  local dedup, id, unacked = ARGV[i + 3], ARGV[i + 4], KEYS[tonumber(ARGV[i + 5])]
  local first = dedup ~= '' and redis.call('HGET', KEYS[9], dedup)
  if first then
    out[#out + 1] = first
  else
    local mine = id .. ':' .. s(offset)
    if partition ~= '0' then mine = mine .. ':' .. partition end
    if dedup ~= '' then
      redis.call('HSET', KEYS[9], dedup, mine)
      redis.call('ZADD', KEYS[10], s(now + tonumber(ARGV[2])), dedup)
    end
    local member = partition .. ':' .. s(offset)
    redis.call('HSET', KEYS[6], member, group)
    redis.call('ZADD', unacked, offset, s(offset))
    local cursor = cursors[partition] or tonumber(redis.call('HGET', KEYS[3], partition) or '0')
    if offset >= cursor then cursor = offset + 1 end
    cursors[partition] = cursor
    if due > now then
      redis.call('HSET', KEYS[2], member, '0:0:0')
      redis.call('ZADD', KEYS[1], ARGV[3], member)
      redis.call('ZADD', KEYS[4], ARGV[3], member)
    else
      redis.call('ZADD', KEYS[5], 0, fifo_member(group, member))
      refresh_group(KEYS[5], KEYS[7], KEYS[8], group)
    end
    out[#out + 1] = mine
  end
end
for partition, cursor in pairs(cursors) do redis.call('HSET', KEYS[3], partition, s(cursor)) end
return out
"""
)

CLAIM_FIFO = (
    PRELUDE
    + """
-- KEYS[1] timers, KEYS[2] deliveries, KEYS[3] delivery seq, KEYS[4] delayed,
-- KEYS[5..8] FIFO set, groups, group locks, ready groups
-- ARGV[1] now ms, ARGV[2] visibility timeout ms, ARGV[3] max messages,
-- ARGV[4] max receives (0: no redrive), ARGV[5] hold ms for dead letters,
-- ARGV[6] most messages in flight at once
-- returns what CLAIM returns: the claimed messages packed as CLAIMED_LAYOUT says (and
-- CLAIM_TRAILER_LAYOUT's trailer when no ready group was left), or -1 (OverLimit)
local now = tonumber(ARGV[1])
local visible_at = s(now + tonumber(ARGV[2]))
local max = tonumber(ARGV[3])
local max_receives = tonumber(ARGV[4])
local dead_until = s(now + tonumber(ARGV[5]))
-- Due timers: an elapsed delay lets its message join its group; an ended visibility
-- timeout (or dead-letter hold) unlocks the group by one. Either way the group's first
-- message is then delivered first, in order.
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1000)
for _, member in ipairs(due) do
  redis.call('ZREM', KEYS[1], member)
  local group = redis.call('HGET', KEYS[6], member)
  local count = state_of(KEYS[2], member)
  if group then
    if count == 0 then
      redis.call('ZREM', KEYS[4], member)
      redis.call('HDEL', KEYS[2], member)
      redis.call('ZADD', KEYS[5], 0, fifo_member(group, member))
      refresh_group(KEYS[5], KEYS[7], KEYS[8], group)
    else
      unlock_one(KEYS[5], KEYS[7], KEYS[8], group)
    end
  end
end
local room = room_left(KEYS[1], KEYS[4], ARGV[1], ARGV[6])
if room <= 0 then return -1 end
if room < max then max = room end
local out = {}
local function take_one(kind, member, count, first, due)
  take(out, KEYS[3], kind, member, count, first, due)
end
local n = 0
while n < max do
  local first_ready = redis.call('ZRANGE', KEYS[8], 0, 0)
  if not first_ready[1] then break end
  local group = first_ready[1]
  redis.call('ZREM', KEYS[8], group)
  local taken = 0
  local heads = redis.call('ZRANGEBYLEX', KEYS[5], '[' .. group .. '\\0',
                           '(' .. group .. '\\1', 'LIMIT', 0, max - n)
  for _, fifo_entry in ipairs(heads) do
    local member = entry_member(group, fifo_entry)
    local count, _, first = state_of(KEYS[2], member)
    count = count or 0
    if count == 0 then first = now end
    taken = taken + 1
    if max_receives > 0 and count >= max_receives then
      -- The group waits while its first message is moved to the dead-letter queue.
      take_one(2, member, count, first, dead_until)
      break
    end
    take_one(1, member, count + 1, first, visible_at)
    n = n + 1
  end
  if taken > 0 then redis.call('HINCRBY', KEYS[7], group, taken) end
end
write_takes(KEYS[1], KEYS[2], KEYS[3])
-- Drained: every due timer settled, no ready group left, and no timer of its own due
-- already (a visibility timeout of 0).
return claimed(out, KEYS[1], #due < 1000 and redis.call('ZCARD', KEYS[8]) == 0
  and redis.call('ZCOUNT', KEYS[1], '-inf', ARGV[1]) == 0)
"""
)

DEDUPLICATE = """
-- FIFO topics: the deduplication of REGISTER_FIFO without the groups (a topic's
-- subscriptions keep their own order: control_plane/dispatch_cursors.py).
-- KEYS[1] dedup, KEYS[2] dedup expiry
-- ARGV[1] now ms, ARGV[2] deduplication window ms, ARGV[3..] quadruples of partition,
-- offset, deduplication key, message id
-- returns per message "<message id>:<offset>[:<partition>]" (no partition: 0): its own,
-- or the first send's
local now = tonumber(ARGV[1])
for _, key in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, 1000)) do
  redis.call('HDEL', KEYS[1], key)
  redis.call('ZREM', KEYS[2], key)
end
local out = {}
for i = 3, #ARGV, 4 do
  local first = redis.call('HGET', KEYS[1], ARGV[i + 2])
  if first then
    out[#out + 1] = first
  else
    local mine = ARGV[i + 3] .. ':' .. ARGV[i + 1]
    if ARGV[i] ~= '0' then mine = mine .. ':' .. ARGV[i] end
    redis.call('HSET', KEYS[1], ARGV[i + 2], mine)
    redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[i + 2])
    out[#out + 1] = mine
  end
end
return out
"""
