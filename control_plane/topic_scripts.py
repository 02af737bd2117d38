"""Lua scripts of topics and their subscriptions: create, delete, change, subscribe.

Each script names its keys (all in one account's hash slot: a topic and its
subscriptions live in the topic owner's slot), its arguments and what it returns. A
script touches only the keys it is given: the keys of subscriptions found in an index
are read by the caller first, and the script checks the index has not changed since. A
script that changes what gateways cache of a topic publishes the invalidation itself
(control_plane/metadata_cache.py). Tags use the queue catalogue's TAG_QUEUE script, which
works on any metadata hash with a `stream_id`.
"""

from __future__ import annotations

from control_plane.metadata_cache import CHANNEL, return_invalidating

CREATE_TOPIC = """
-- KEYS[1] catalogue (zset of names), KEYS[2] the topic's metadata hash, KEYS[3] its tags
-- ARGV[1] name, ARGV[2] stream id, ARGV[3] now ms, ARGV[4] attributes (canonical JSON),
-- ARGV[5..] tag key, value pairs
-- returns 1 created, 0 a topic of that name exists (nothing changed)
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('HSET', KEYS[2], 'stream_id', ARGV[2], 'created_ms', ARGV[3],
           'attributes', ARGV[4])
redis.call('ZADD', KEYS[1], 0, ARGV[1])
for i = 5, #ARGV, 2 do redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1]) end
return 1
"""

DELETE_TOPIC = f"""
-- KEYS[1] catalogue, KEYS[2] metadata, KEYS[3] tags, KEYS[4] the topic's subscription
-- ids, KEYS[5] its endpoints, KEYS[6] the account's subscription ids,
-- KEYS[7] confirmation tokens, KEYS[8..] the hash of each subscription in ARGV[4..]
-- ARGV[1] name, ARGV[2] the stream id the caller looked up, ARGV[3] nonce,
-- ARGV[4..] the ids of the topic's subscriptions, as the caller read them
-- returns 0 if the topic was gone or re-created meanwhile, -1 if its subscriptions are
-- no longer those the caller read (nothing changed: read them again), else
-- {{gateways that got the invalidation, the ids of the subscriptions deleted...}}
if redis.call('HGET', KEYS[2], 'stream_id') ~= ARGV[2] then return 0 end
if redis.call('ZCARD', KEYS[4]) ~= #ARGV - 3 then return -1 end
for i = 4, #ARGV do
  if not redis.call('ZSCORE', KEYS[4], ARGV[i]) then return -1 end
end
for i = 4, #ARGV do
  local key = KEYS[i + 4]
  local token = redis.call('HGET', key, 'token')
  if token then redis.call('HDEL', KEYS[7], token) end
  redis.call('DEL', key)
  redis.call('ZREM', KEYS[6], ARGV[i])
end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4], KEYS[5])
redis.call('ZREM', KEYS[1], ARGV[1])
local receivers = redis.call('PUBLISH', '{CHANNEL}', ARGV[3] .. ' ' .. KEYS[2])
return {{receivers, unpack(ARGV, 4)}}
"""

SET_TOPIC_ATTRIBUTES = """
-- KEYS[1] metadata
-- ARGV[1] stream id the caller read, ARGV[2] attributes (canonical JSON), ARGV[3] nonce
-- returns 0 if the topic was deleted or re-created since the caller read it
if redis.call('HGET', KEYS[1], 'stream_id') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'attributes', ARGV[2])
""" + return_invalidating("KEYS[1]", "ARGV[3]")

SUBSCRIBE = """
-- KEYS[1] topic metadata, KEYS[2] the topic's subscription ids, KEYS[3] its endpoints,
-- KEYS[4] the account's subscription ids, KEYS[5] the new subscription's hash,
-- KEYS[6] confirmation tokens
-- ARGV[1] topic stream id the caller read, ARGV[2] "<protocol> <endpoint>",
-- ARGV[3] subscription id,
-- ARGV[4..] field, value pairs of the subscription's hash (a token among them if pending)
-- returns {0} the topic is gone, {2, id} the endpoint is subscribed already (nothing
-- changed), {1, id} subscribed
if redis.call('HGET', KEYS[1], 'stream_id') ~= ARGV[1] then return {0} end
local existing = redis.call('HGET', KEYS[3], ARGV[2])
if existing then return {2, existing} end
redis.call('HSET', KEYS[3], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[2], 0, ARGV[3])
redis.call('ZADD', KEYS[4], 0, ARGV[3])
for i = 4, #ARGV, 2 do
  redis.call('HSET', KEYS[5], ARGV[i], ARGV[i + 1])
  if ARGV[i] == 'token' then redis.call('HSET', KEYS[6], ARGV[i + 1], ARGV[3]) end
end
return {1, ARGV[3]}
"""

UNSUBSCRIBE = """
-- KEYS[1] the subscription's hash, KEYS[2] the topic's subscription ids, KEYS[3] its
-- endpoints, KEYS[4] the account's subscription ids, KEYS[5] confirmation tokens
-- ARGV[1] subscription id
-- returns 1 removed, 0 it was not there
local fields = redis.call('HMGET', KEYS[1], 'protocol', 'endpoint', 'token')
if not fields[1] then return 0 end
redis.call('HDEL', KEYS[3], fields[1] .. ' ' .. fields[2])
if fields[3] then redis.call('HDEL', KEYS[5], fields[3]) end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('DEL', KEYS[1])
return 1
"""

CONFIRM = """
-- KEYS[1] confirmation tokens, KEYS[2] the hash of the subscription the caller found the
-- token names
-- ARGV[1] token, ARGV[2] that subscription's id, ARGV[3] the topic name the token must
-- be for
-- returns the subscription id confirmed (or confirmed before), or false for a token that
-- names no subscription (any more) or one of another topic
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return false end
if redis.call('HGET', KEYS[2], 'topic') ~= ARGV[3] then return false end
redis.call('HSET', KEYS[2], 'pending', '0')
return ARGV[2]
"""

SET_SUBSCRIPTION_ATTRIBUTES = """
-- KEYS[1] the subscription's hash
-- ARGV[1] attributes (canonical JSON)
-- returns 1 changed, 0 the subscription is gone
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'attributes', ARGV[1])
return 1
"""
