-- SPDX-License-Identifier: GPL-3.0-or-later
-- name: lock_acquire
-- purpose: Take a single-node lock with a random token, only if nobody holds it, for a bounded time.
-- keys: lock = lock:invoice:1042 | the lock key
-- argv: token = 3f1c9a0e7b2d4c55 | random value that identifies this holder
-- argv: ttl_ms = 30000 | how long the lock holds without an extension
-- writes: yes
-- single-slot: yes
-- returns: {acquired (1/0), ms the lock stays held (-1 when the holder set no TTL)}

local ttl = tonumber(ARGV[2])
if not ttl or ttl <= 0 or ARGV[1] == nil or ARGV[1] == '' then
    return redis.error_reply('ERR lock_acquire: needs a non-empty token and ttl_ms > 0')
end

if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
    return {1, ttl}
end
return {0, redis.call('PTTL', KEYS[1])}
