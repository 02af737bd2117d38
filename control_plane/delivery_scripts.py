"""Lua scripts of deliveries: claim, delete, visibility, delays, removal, purge, seek.

Each script names its keys (all in one subscription's hash slot), its arguments and what
it returns. Numbers are formatted with %d before they are written, because Lua 5.1's
default number-to-string conversion would print large millisecond times in exponent form.

The state they share (control_plane.redis_keys.SubscriptionKeys): `timers` (every in-flight
or delayed message by due time), `deliveries` ("count:seq:first" per message; count 0 is
a delay not yet delivered), `cursors`, `seq`, `delayed` (the delays among the timers),
`stats`, and one `unacked` set per partition (offsets not yet deleted, below a cursor or
in the timers).

A delayed message and a receive can race: the sender appends, then registers the delay
(`DELAY`); a receive in between may pass the cursor over the message first. `DELAY`
leaves such a message alone, and the receiver, which checks every record's delivery time
before handing it out, puts it back with `DEFER`. So no message is delivered early,
whichever runs first.
"""

from __future__ import annotations

# What the claim scripts (CLAIM, fifo_scripts.CLAIM_FIFO) answer: one string of
# fixed-size entries, one per claimed message, big-endian, packed by Lua's `struct` (a
# Redis built-in), so that the caller unpacks a claim with one call instead of turning
# five strings a message into numbers:
#     kind        u8    1 deliver it, 2 a dead letter to move
#     partition   u32
#     offset      u64
#     count       u32   receive count, this delivery included
#     seq         u64   the delivery's sequence number (what its receipt names)
#     first       u64   first receive time, ms
# Numbers in Lua are doubles: exact up to 2**53, past any offset, seq or time in ms.
CLAIMED_LAYOUT = ">BIQIQQ"
# After the rows, when the claim took all there was to take now (nothing else is
# deliverable until something is sent, or a timer falls due): kind 0, then the
# subscription's earliest timer once the claim's own are set (ms; -1 when it has none).
# It is shorter than a row, so a reply's length says whether it is there. A long poll
# that found all there was waits until that timer without asking Redis again.
CLAIM_TRAILER_LAYOUT = ">Bq"

# Shared by the scripts: number formatting, the "count:seq:first" state, and FIFO groups.
# A FIFO message that joined its group is an entry "<group>\0<offset, 20 digits>" of one
# lexically ordered set, so a group's messages come out of ZRANGEBYLEX in offset order
# (a group's messages are all in one partition). The entry ends "\0<partition>" unless
# the partition is 0, whose entries keep the layout they had before partitions.
PRELUDE = r"""
local function s(n) return string.format('%d', n) end
local function parse_state(state)
  if not state then return nil end
  local c, q, f = string.match(state, '^(%d+):(%d+):(%d+)$')
  return tonumber(c), q, tonumber(f)
end
local function state_of(key, member) return parse_state(redis.call('HGET', key, member)) end
-- One command for many arguments (Lua's unpack has a limit: at most 512 at a time, an
-- even number so that pairs stay together).
local function call_many(command, key, args)
  for i = 1, #args, 512 do
    redis.call(command, key, unpack(args, i, math.min(i + 511, #args)))
  end
end
local function offset_of(member) return tonumber(string.match(member, ':(%d+)$')) end
-- The FIFO set's entry of the message "p:o" of `group`, and back.
local function fifo_member(group, member)
  local partition, offset = string.match(member, '^(%d+):(%d+)$')
  local entry = group .. '\0' .. string.format('%020d', tonumber(offset))
  if partition ~= '0' then entry = entry .. '\0' .. partition end
  return entry
end
local function entry_member(group, entry)
  local offset = tonumber(string.sub(entry, #group + 2, #group + 21))
  local partition = string.sub(entry, #group + 23)
  if partition == '' then partition = '0' end
  return partition .. ':' .. s(offset)
end
local function group_head(fifo, group)
  local head = redis.call('ZRANGEBYLEX', fifo, '[' .. group .. '\0', '(' .. group .. '\1',
                          'LIMIT', 0, 1)
  if head[1] then return tonumber(string.sub(head[1], #group + 2, #group + 21)) end
  return nil
end
-- The group's first message changed or the group was unlocked: list it as ready (by its
-- first offset) if it is unlocked and has messages, else not.
local function refresh_group(fifo, locks, ready, group)
  local head = group_head(fifo, group)
  if head and not redis.call('HGET', locks, group) then
    redis.call('ZADD', ready, head, group)
  else
    redis.call('ZREM', ready, group)
  end
end
-- Room for more deliveries under the in-flight quota: the timers not yet due, less the
-- delays among them (due ones are free to be received again).
local function room_left(timers, delayed, now, quota)
  local later = '(' .. now
  return tonumber(quota) - (redis.call('ZCOUNT', timers, later, '+inf')
                            - redis.call('ZCOUNT', delayed, later, '+inf'))
end
-- Hands out one delivery: a new delivery number, the message's state and its timer; adds
-- the delivery to the claim's `out` as one packed string (see CLAIMED_LAYOUT). The
-- caller passes the partition and offset when it has them as numbers (the cursor's
-- advance), else they are read from the member.
-- The writes are gathered and made by `write_takes`, one command each for the whole
-- claim (a claim never reads back the state of a message it took), which every script
-- that takes must call before it returns.
-- `first_text`, when given, is ':' .. s(first), made once by a caller taking many with
-- the same first receive time (a claim's new messages).
local pending_takes = {seq = nil, states = {}, timers = {}, n = 0}
local function take(out, seq_key, kind, member, count, first, due, partition, offset,
                    first_text)
  local seq = pending_takes.seq or tonumber(redis.call('GET', seq_key) or '0')
  seq = seq + 1
  pending_takes.seq = seq
  local n = pending_takes.n
  pending_takes.n = n + 2
  local states, timers = pending_takes.states, pending_takes.timers
  states[n + 1] = member
  -- (Each string.format is a sprintf in Redis: a first delivery's count needs none.)
  local count_text = count == 1 and '1' or s(count)
  states[n + 2] = count_text .. ':' .. s(seq) .. (first_text or (':' .. s(first)))
  timers[n + 1] = due
  timers[n + 2] = member
  if not offset then
    local p, o = string.match(member, '^(%d+):(%d+)$')
    partition, offset = tonumber(p), tonumber(o)
  end
  out[#out + 1] = struct.pack('>BI4I8I4I8I8', kind, partition, offset, count, seq, first)
end
local function write_takes(timers, deliveries, seq_key)
  if not pending_takes.seq then return end
  call_many('HSET', deliveries, pending_takes.states)
  call_many('ZADD', timers, pending_takes.timers)
  redis.call('SET', seq_key, s(pending_takes.seq))
end
-- What a claim answers: its rows, then CLAIM_TRAILER_LAYOUT if `drained` (after
-- write_takes, so that the earliest timer counts the claim's own).
local function claimed(out, timers, drained)
  if drained then
    local first = redis.call('ZRANGE', timers, 0, 0, 'WITHSCORES')
    out[#out + 1] = struct.pack('>Bi8', 0, tonumber(first[2] or '-1'))
  end
  return table.concat(out)
end
local function unlock_one(fifo, locks, ready, group)
  if redis.call('HINCRBY', locks, group, -1) <= 0 then redis.call('HDEL', locks, group) end
  refresh_group(fifo, locks, ready, group)
end
-- A FIFO message is gone (deleted, expired, dead-lettered): it leaves its group, and the
-- group is unlocked by one if the message was in flight. Standard queues have no groups.
local function leave_group(fifo, groups, locks, ready, member, was_in_flight)
  local group = redis.call('HGET', groups, member)
  if not group then return end
  redis.call('HDEL', groups, member)
  redis.call('ZREM', fifo, fifo_member(group, member))
  if was_in_flight then
    unlock_one(fifo, locks, ready, group)
  else
    refresh_group(fifo, locks, ready, group)
  end
end
"""

CLAIM = (
    PRELUDE
    + """
-- KEYS[1] timers, KEYS[2] deliveries, KEYS[3] cursors, KEYS[4] delivery seq,
-- KEYS[5] delayed, KEYS[6] stats, KEYS[7] ahead, KEYS[8..] unacked of each partition,
-- in ARGV's order
-- ARGV[1] now ms, ARGV[2] visibility timeout ms, ARGV[3] max messages,
-- ARGV[4] max receives (0: no redrive), ARGV[5] hold ms for dead letters,
-- ARGV[6] most messages in flight at once, ARGV[7..] pairs of partition, log end offset
-- (next offset the log will write)
-- returns one string, the claimed messages packed as CLAIMED_LAYOUT says, in claim
-- order, and CLAIM_TRAILER_LAYOUT's trailer when nothing else was there to take; or -1
-- when the subscription already has ARGV[6] messages in flight (SQS's OverLimit).
-- Due timers come first (expired visibility, elapsed delays); a message received
-- max-receives times already is handed back as a dead letter instead, held for
-- ARGV[5] ms so that the caller can move it. Then the cursors advance, passing over
-- the messages delayed at send (the timers deliver those), at most 1000 of them a call.
local now = tonumber(ARGV[1])
local visible_at = s(now + tonumber(ARGV[2]))
local max = tonumber(ARGV[3])
local max_receives = tonumber(ARGV[4])
local dead_until = s(now + tonumber(ARGV[5]))
local room = room_left(KEYS[1], KEYS[5], ARGV[1], ARGV[6])
if room <= 0 then return -1 end
if room < max then max = room end
local out = {}
local function take_one(kind, member, count, first, due, partition, offset)
  take(out, KEYS[4], kind, member, count, first, due, partition, offset)
end
local n = 0
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, max)
local states = {}
if due[1] then states = redis.call('HMGET', KEYS[2], unpack(due)) end
for j, member in ipairs(due) do
  local count, _, first = parse_state(states[j])
  count = count or 0
  if count == 0 then
    first = now
    redis.call('ZREM', KEYS[5], member)
  end
  if max_receives > 0 and count >= max_receives then
    take_one(2, member, count, first, dead_until)
  else
    take_one(1, member, count + 1, first, visible_at)
    n = n + 1
  end
end
local skips = 1000
local now_text = ':' .. s(now)
-- Without delays at send (the usual case) no message is passed over: no SREM each.
local any_ahead = redis.call('SCARD', KEYS[7]) > 0
local i, k = 7, 8
local more = false  -- a message past the cursors left for a later claim
while n < max and skips > 0 and ARGV[i] do
  local partition = ARGV[i]
  local partition_number = tonumber(partition)
  local log_end = tonumber(ARGV[i + 1])
  local cursor = tonumber(redis.call('HGET', KEYS[3], partition) or '0')
  local offset = cursor
  local unacked, u = {}, 0
  local prefix = partition .. ':'
  while offset < log_end and n < max and skips > 0 do
    local offset_text = s(offset)
    local member = prefix .. offset_text
    if any_ahead and redis.call('SREM', KEYS[7], member) == 1 then
      skips = skips - 1
    else
      unacked[u + 1] = offset
      unacked[u + 2] = offset_text
      u = u + 2
      take(out, KEYS[4], 1, member, 1, now, visible_at, partition_number, offset, now_text)
      n = n + 1
    end
    offset = offset + 1
  end
  call_many('ZADD', KEYS[k], unacked)
  if offset > cursor then redis.call('HSET', KEYS[3], partition, s(offset)) end
  if offset < log_end then more = true end
  i, k = i + 2, k + 1
end
while not more and ARGV[i] do  -- the partitions a full claim did not reach
  more = tonumber(redis.call('HGET', KEYS[3], ARGV[i]) or '0') < tonumber(ARGV[i + 1])
  i = i + 2
end
write_takes(KEYS[1], KEYS[2], KEYS[4])
-- Drained: every partition read to its end (messages delayed at send left there count
-- as more, which only costs a look), and no timer due (the claim's own are later).
return claimed(out, KEYS[1],
  skips > 0 and not more and redis.call('ZCOUNT', KEYS[1], '-inf', ARGV[1]) == 0)
"""
)

DELAY = (
    PRELUDE
    + """
-- KEYS[1] timers, KEYS[2] deliveries, KEYS[3] cursors, KEYS[4] delayed, KEYS[5] ahead,
-- KEYS[6] unacked of the partition
-- ARGV[1] partition, ARGV[2] due ms, ARGV[3..] offsets just appended with that delay
-- returns how many were registered; one a receive already claimed is left to that
-- receiver, which reads the delay from the record and defers it itself.
local cursor = tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0')
local registered = 0
for i = 3, #ARGV do
  local member = ARGV[1] .. ':' .. ARGV[i]
  if redis.call('HEXISTS', KEYS[2], member) == 0 then
    redis.call('HSET', KEYS[2], member, '0:0:0')
    redis.call('ZADD', KEYS[1], ARGV[2], member)
    redis.call('ZADD', KEYS[4], ARGV[2], member)
    redis.call('ZADD', KEYS[6], ARGV[i], ARGV[i])
    registered = registered + 1
    if tonumber(ARGV[i]) >= cursor then redis.call('SADD', KEYS[5], member) end
  end
end
return registered
"""
)

DEFER = (
    PRELUDE
    + """
-- KEYS[1] timers, KEYS[2] deliveries, KEYS[3] delayed
-- ARGV[1] member, ARGV[2] delivery seq of the claim, ARGV[3] due ms
-- returns 1 if the claimed message was turned back into a delay, 0 if the claim is stale
local count, seq = state_of(KEYS[2], ARGV[1])
if not count or seq ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], '0:' .. seq .. ':0')
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
return 1
"""
)

DELETE_MESSAGES = (
    PRELUDE
    + """
-- KEYS[1] timers, KEYS[2] deliveries, KEYS[3..6] FIFO set, groups, group locks, ready
-- groups, KEYS[7..] unacked of the partitions named below
-- ARGV[1] triples, all in one space-separated string (packing hundreds of arguments
-- was a large part of the client's cost): member "p:o", delivery seq named by the
-- receipt, index into KEYS of the member's unacked set
-- returns one result per message: 1 deleted, 0 already deleted, -1 the receipt is stale
-- (a newer delivery exists; SQS answers success and keeps the message)
-- Each triple's member, its offset (the member's unacked entry), seq and key index, as
-- one match each.
local members, offsets, seqs, key_index, m = {}, {}, {}, {}, 0
for member, offset, seq, k in string.gmatch(ARGV[1], '(%d+:(%d+)) (%d+) (%d+)') do
  m = m + 1
  members[m], offsets[m], seqs[m], key_index[m] = member, offset, seq, tonumber(k)
end
local results = {}
if redis.call('EXISTS', KEYS[4]) == 1 then
  -- Messages in FIFO groups: each leaves its group, unlocking it if it was in flight.
  for j, member in ipairs(members) do
    local count, seq = state_of(KEYS[2], member)
    if not count then
      results[j] = 0
    elseif seq ~= seqs[j] or count == 0 then
      results[j] = -1
    else
      local in_flight = redis.call('ZREM', KEYS[1], member) == 1
      redis.call('HDEL', KEYS[2], member)
      redis.call('ZREM', KEYS[key_index[j]], offsets[j])
      leave_group(KEYS[3], KEYS[4], KEYS[5], KEYS[6], member, in_flight)
      results[j] = 1
    end
  end
  return results
end
-- No groups: the same decisions from one HMGET, then one command per key for all.
local states = {}
for i = 1, m, 512 do
  local part = redis.call('HMGET', KEYS[2], unpack(members, i, math.min(i + 511, m)))
  for _, state in ipairs(part) do states[#states + 1] = state end
end
local deleted, gone, unacked, g = {}, {}, {}, 0
for j, member in ipairs(members) do
  local state = not deleted[member] and states[j]
  -- "count:seq:first" (parse_state's layout): only the count and seq are needed here.
  local count, seq = nil, nil
  if state then count, seq = string.match(state, '^(%d+):(%d+):') end
  if not count then
    results[j] = 0
  elseif seq ~= seqs[j] or count == '0' then
    results[j] = -1
  else
    deleted[member] = true
    g = g + 1
    gone[g] = member
    local k = key_index[j]
    local of_k = unacked[k]
    if not of_k then
      of_k = {}
      unacked[k] = of_k
    end
    of_k[#of_k + 1] = offsets[j]
    results[j] = 1
  end
end
if g > 0 then
  call_many('ZREM', KEYS[1], gone)
  call_many('HDEL', KEYS[2], gone)
  for k, of_k in pairs(unacked) do call_many('ZREM', KEYS[k], of_k) end
end
return results
"""
)

CHANGE_VISIBILITY = (
    PRELUDE
    + """
-- KEYS[1] timers, KEYS[2] deliveries
-- ARGV triples: member "p:o", delivery seq named by the receipt, new due ms
-- returns one result per message: 1 changed, 0 not in flight under this receipt
local results = {}
for i = 1, #ARGV, 3 do
  local count, seq = state_of(KEYS[2], ARGV[i])
  if count and count > 0 and seq == ARGV[i + 1] and redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    redis.call('ZADD', KEYS[1], ARGV[i + 2], ARGV[i])
    results[#results + 1] = 1
  else
    results[#results + 1] = 0
  end
end
return results
"""
)

REMOVE = (
    PRELUDE
    + """
-- KEYS[1] timers, KEYS[2] deliveries, KEYS[3] delayed, KEYS[4] stats, KEYS[5] unacked,
-- KEYS[6..9] FIFO set, groups, group locks, ready groups
-- ARGV[1] member "p:o", ARGV[2] delivery seq of the claim, ARGV[3] stats field to count
-- it under ("expired", "dead_lettered")
-- returns 1 removed, 0 the claim is stale (someone else handled the message)
local count, seq = state_of(KEYS[2], ARGV[1])
if not count or seq ~= ARGV[2] then return 0 end
local in_flight = redis.call('ZREM', KEYS[1], ARGV[1]) == 1
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[5], s(offset_of(ARGV[1])))
leave_group(KEYS[6], KEYS[7], KEYS[8], KEYS[9], ARGV[1], in_flight)
redis.call('HINCRBY', KEYS[4], ARGV[3], 1)
return 1
"""
)

PURGE = """
-- KEYS[1] timers, KEYS[2] deliveries, KEYS[3] cursors, KEYS[4] delayed, KEYS[5] stats,
-- KEYS[6..9] FIFO set, groups, group locks, ready groups, KEYS[10] ahead,
-- KEYS[11..] unacked of each partition, in ARGV's order
-- ARGV[1] now ms, ARGV[2] minimum ms between purges, ARGV[3..] pairs of partition,
-- log end offset
-- returns 1 purged (every message up to the log ends is gone), 0 a purge ran too recently
local last = tonumber(redis.call('HGET', KEYS[5], 'purged_ms') or '-1')
if last >= 0 and tonumber(ARGV[1]) - last < tonumber(ARGV[2]) then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[4], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10])
local k = 11
for i = 3, #ARGV, 2 do
  redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
  redis.call('DEL', KEYS[k])
  k = k + 1
end
redis.call('HSET', KEYS[5], 'purged_ms', ARGV[1])
return 1
"""

SEEK = """
-- KEYS[1] timers, KEYS[2] deliveries, KEYS[3] cursors, KEYS[4] delayed, KEYS[5] ahead,
-- KEYS[6..9] FIFO set, groups, group locks, ready groups,
-- KEYS[10..] unacked of each partition, in ARGV's order
-- ARGV pairs of partition, new cursor
-- returns 1. Every message past the new cursors is delivered (again); every delivery
-- made before is forgotten, so its receipt deletes nothing and changes no visibility.
-- The delivery seq is kept: a later delivery never takes a number an old receipt names.
redis.call('DEL', KEYS[1], KEYS[2], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9])
local k = 10
for i = 1, #ARGV, 2 do
  redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
  redis.call('DEL', KEYS[k])
  k = k + 1
end
return 1
"""
