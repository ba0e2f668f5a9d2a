-- SPDX-License-Identifier: GPL-3.0-or-later
-- name: lock_extend
-- purpose: Give a held lock a new TTL, only when it is still held with our token (compare-and-PEXPIRE).
-- keys: lock = lock:invoice:1042 | the lock key
-- argv: token = 3f1c9a0e7b2d4c55 | the token used to acquire it
-- argv: ttl_ms = 30000 | the new TTL in milliseconds, counted from now
-- writes: yes
-- single-slot: yes
-- returns: 1 when extended, 0 when the lock is gone or held by someone else

local ttl = tonumber(ARGV[2])
if not ttl or ttl <= 0 then
    return redis.error_reply('ERR lock_extend: ttl_ms must be > 0')
end

if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
