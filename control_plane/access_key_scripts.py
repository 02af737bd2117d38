"""Lua scripts of the access keys: create, create-or-replace, revoke.

Each script names its keys (all under the hash tag `{auth}`, one slot), its arguments
and what it returns. The key schema is in control_plane/access_keys.py.
"""

from __future__ import annotations

from control_plane.metadata_cache import return_invalidating

CREATE_KEY = """
-- KEYS[1] the key's hash, KEYS[2] every key id (zset), KEYS[3] the account's key ids (zset)
-- ARGV[1] key id, ARGV[2] account id, ARGV[3] created ms, ARGV[4] sealed secret,
-- ARGV[5] fingerprint
-- returns 1 if created, 0 if the id is taken (nothing changed)
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'account', ARGV[2], 'created_ms', ARGV[3],
           'secret', ARGV[4], 'fingerprint', ARGV[5])
redis.call('ZADD', KEYS[2], 0, ARGV[1])
redis.call('ZADD', KEYS[3], 0, ARGV[1])
return 1
"""

PUT_KEY = """
-- KEYS[1] the key's hash, KEYS[2] every key id, KEYS[3] the new account's key ids,
-- KEYS[4] the key ids of the account the caller read (any key of the slot if none)
-- ARGV[1] key id, ARGV[2] account id, ARGV[3] created ms, ARGV[4] sealed secret,
-- ARGV[5] fingerprint, ARGV[6] the account the caller read ('' if the key was absent),
-- ARGV[7] nonce of the cache invalidation
-- returns 0 if the key's account changed since the caller read it, else it is written
-- and the gateways' cached copies are invalidated
local current = redis.call('HGET', KEYS[1], 'account') or ''
if current ~= ARGV[6] then
  return 0
end
if current ~= '' and current ~= ARGV[2] then
  redis.call('ZREM', KEYS[4], ARGV[1])
end
redis.call('HSET', KEYS[1], 'account', ARGV[2], 'created_ms', ARGV[3],
           'secret', ARGV[4], 'fingerprint', ARGV[5])
redis.call('ZADD', KEYS[2], 0, ARGV[1])
redis.call('ZADD', KEYS[3], 0, ARGV[1])
""" + return_invalidating("KEYS[1]", "ARGV[7]")

REVOKE_KEY = """
-- KEYS[1] the key's hash, KEYS[2] every key id, KEYS[3] the account's key ids
-- ARGV[1] key id, ARGV[2] the account the caller read, ARGV[3] nonce of the cache
-- invalidation
-- returns 0 if there is no such key, -1 if its account changed meanwhile, else it is
-- revoked and the gateways' cached copies are invalidated
local current = redis.call('HGET', KEYS[1], 'account')
if not current then
  return 0
end
if current ~= ARGV[2] then
  return -1
end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
""" + return_invalidating("KEYS[1]", "ARGV[3]")
