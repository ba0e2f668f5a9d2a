-- SPDX-License-Identifier: GPL-3.0-or-later
-- name: cache_get_or_lock
-- purpose: Read a cache entry; on a miss take the recompute lock so only one caller rebuilds it.
-- keys: entry = app:product:123 | the cache key
-- keys: lock = app:product:123:lock | the recompute lock beside it
-- argv: token = 9b2e61d04a7c3f18 | random value that identifies this caller
-- argv: lock_ms = 5000 | how long the recompute may take before another caller may try
-- writes: yes
-- single-slot: no
-- returns: {cached value or nil, got the lock (1/0), ms the lock stays held}

local value = redis.call('GET', KEYS[1])
if value then
    return {value, 0, 0}
end
-- false becomes a nil reply; a Lua nil would end the array early.
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then
    return {false, 1, tonumber(ARGV[2])}
end
return {false, 0, redis.call('PTTL', KEYS[2])}
