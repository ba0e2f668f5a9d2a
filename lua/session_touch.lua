-- SPDX-License-Identifier: GPL-3.0-or-later
-- name: session_touch
-- purpose: Slide a session hash's TTL on use and note when it was last seen; missing sessions stay missing.
-- keys: session = session:4f9c2a7d1e8b6035c1d2e3f4a5b6c7d8 | the session hash
-- argv: ttl_ms = 1800000 | the sliding TTL in milliseconds
-- argv: now_ms = 1764412345678 | the caller's clock, stored in the last_seen field
-- argv: field = user_id | a field to read back (empty: none)
-- writes: yes
-- single-slot: yes
-- returns: {exists (1/0), ms to live after the touch (-2 when missing), the field's value or nil}

local ttl = tonumber(ARGV[1])
if not ttl or ttl <= 0 then
    return redis.error_reply('ERR session_touch: ttl_ms must be > 0')
end

if redis.call('EXISTS', KEYS[1]) == 0 then
    return {0, -2, false}
end
local value = false
if ARGV[3] and ARGV[3] ~= '' then
    value = redis.call('HGET', KEYS[1], ARGV[3])
end
redis.call('HSET', KEYS[1], 'last_seen', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return {1, redis.call('PTTL', KEYS[1]), value}
