"""Lua scripts of node membership and partition leases.

Each script names its keys (all in one hash slot), its arguments and what it returns.
Numbers are formatted with %d before they are written, because Lua 5.1's default
number-to-string conversion would print large millisecond times in exponent form.
"""

from __future__ import annotations

REGISTER_NODE = """
-- KEYS[1] live nodes (zset node id -> expires ms), KEYS[2] node info (hash node id ->
--         "<registered ms>:<heartbeat ms>:<address>")
-- ARGV[1] node id, ARGV[2] address, ARGV[3] now ms, ARGV[4] ttl ms
-- returns 1 (a registration under the same id, live or not, is replaced)
local function s(n) return string.format('%d', n) end
local now = tonumber(ARGV[3])
redis.call('ZADD', KEYS[1], s(now + tonumber(ARGV[4])), ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], s(now) .. ':' .. s(now) .. ':' .. ARGV[2])
return 1
"""

HEARTBEAT_NODE = """
-- KEYS[1] live nodes, KEYS[2] node info
-- ARGV[1] node id, ARGV[2] now ms, ARGV[3] ttl ms
-- returns 1 if refreshed; 0 if the node is not registered or its registration expired at
-- or before now (what is left of it is removed: the node must register again)
local function s(n) return string.format('%d', n) end
local now = tonumber(ARGV[2])
local expires = redis.call('ZSCORE', KEYS[1], ARGV[1])
local info = redis.call('HGET', KEYS[2], ARGV[1])
if not expires or not info or tonumber(expires) <= now then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
  return 0
end
local registered, address = string.match(info, '^(%d+):%d+:(.*)$')
redis.call('ZADD', KEYS[1], s(now + tonumber(ARGV[3])), ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], registered .. ':' .. s(now) .. ':' .. address)
return 1
"""

DEREGISTER_NODE = """
-- KEYS[1] live nodes, KEYS[2] node info
-- ARGV[1] node id
-- returns 1 if the node had a registration (even an expired one not yet pruned), else 0
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return removed
"""

LIST_LIVE_NODES = """
-- KEYS[1] live nodes, KEYS[2] node info
-- ARGV[1] now ms
-- returns a flat array, three entries a live node, soonest expiry first: node id,
-- expires ms, info "<registered ms>:<heartbeat ms>:<address>". Registrations that expired
-- at or before now are removed first (this is the lazy pruning of dead nodes).
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
for _, node in ipairs(expired) do
  redis.call('HDEL', KEYS[2], node)
end
if #expired > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
end
local live = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local out = {}
for i = 1, #live, 2 do
  local info = redis.call('HGET', KEYS[2], live[i])
  if info then
    out[#out + 1] = live[i]
    out[#out + 1] = live[i + 1]
    out[#out + 1] = info
  end
end
return out
"""

ACQUIRE_LEASE = """
-- KEYS[1] the stream's leases (hash partition -> "<epoch>:<expires ms>:<ttl ms>:<node id>")
-- ARGV[1] partition, ARGV[2] node id (not empty), ARGV[3] now ms, ARGV[4] ttl ms
-- returns {epoch, expires ms} if granted: the same epoch if this node holds the lease
-- unexpired (a renewal), epoch + 1 if it was free, released, expired or another node's
-- expired lease (a new tenure); false if another node holds it unexpired (nothing changed)
local function s(n) return string.format('%d', n) end
local now = tonumber(ARGV[3])
local epoch, expires, holder = 0, 0, ''
local state = redis.call('HGET', KEYS[1], ARGV[1])
if state then
  local e, x, _, h = string.match(state, '^(%d+):(%d+):(%d+):(.*)$')
  epoch, expires, holder = tonumber(e), tonumber(x), h
end
local current = holder ~= '' and expires > now
if current and holder ~= ARGV[2] then
  return false
end
if not current then
  epoch = epoch + 1
end
local until_ms = now + tonumber(ARGV[4])
redis.call('HSET', KEYS[1], ARGV[1],
           s(epoch) .. ':' .. s(until_ms) .. ':' .. ARGV[4] .. ':' .. ARGV[2])
return {epoch, until_ms}
"""

RENEW_LEASE = """
-- KEYS[1] the stream's leases
-- ARGV[1] partition, ARGV[2] node id, ARGV[3] epoch, ARGV[4] now ms, ARGV[5] ttl ms
-- returns the new expiry ms; false if the lease is not held by this node under this
-- epoch, or expired at or before now (then the node must acquire again, with a new epoch)
local function s(n) return string.format('%d', n) end
local state = redis.call('HGET', KEYS[1], ARGV[1])
if not state then
  return false
end
local e, x, _, h = string.match(state, '^(%d+):(%d+):(%d+):(.*)$')
local now = tonumber(ARGV[4])
if h ~= ARGV[2] or tonumber(e) ~= tonumber(ARGV[3]) or tonumber(x) <= now then
  return false
end
local until_ms = now + tonumber(ARGV[5])
redis.call('HSET', KEYS[1], ARGV[1], e .. ':' .. s(until_ms) .. ':' .. ARGV[5] .. ':' .. h)
return until_ms
"""

RELEASE_LEASE = """
-- KEYS[1] the stream's leases
-- ARGV[1] partition, ARGV[2] node id, ARGV[3] epoch, ARGV[4] now ms
-- returns 1 if this lease was current and is now free; 0 if it had expired (it is marked
-- free all the same) or is not this node's under this epoch (nothing changed).
-- The epoch stays, so the next holder's is higher.
local state = redis.call('HGET', KEYS[1], ARGV[1])
if not state then
  return 0
end
local e, x, _, h = string.match(state, '^(%d+):(%d+):(%d+):(.*)$')
if h ~= ARGV[2] or tonumber(e) ~= tonumber(ARGV[3]) then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], e .. ':0:0:')
if tonumber(x) > tonumber(ARGV[4]) then
  return 1
end
return 0
"""

CHECK_LEASE = """
-- KEYS[1] the stream's leases
-- ARGV[1] partition, ARGV[2] node id, ARGV[3] epoch, ARGV[4] now ms
-- returns 1 if the lease is held by this node under this epoch and unexpired at now, else 0
local state = redis.call('HGET', KEYS[1], ARGV[1])
if not state then
  return 0
end
local e, x, _, h = string.match(state, '^(%d+):(%d+):(%d+):(.*)$')
if h == ARGV[2] and tonumber(e) == tonumber(ARGV[3]) and tonumber(x) > tonumber(ARGV[4]) then
  return 1
end
return 0
"""

LEASE_HOLDER = """
-- KEYS[1] the stream's leases
-- ARGV[1] partition, ARGV[2] now ms
-- returns {node id, epoch, expires ms, ttl ms} of the current lease; false if the
-- partition has none (never leased, released, or expired at or before now)
local state = redis.call('HGET', KEYS[1], ARGV[1])
if not state then
  return false
end
local e, x, t, h = string.match(state, '^(%d+):(%d+):(%d+):(.*)$')
if h == '' or tonumber(x) <= tonumber(ARGV[2]) then
  return false
end
return {h, tonumber(e), tonumber(x), tonumber(t)}
"""
