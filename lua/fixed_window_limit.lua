-- SPDX-License-Identifier: GPL-3.0-or-later
-- name: fixed_window_limit
-- purpose: Count one hit in a fixed window; allow while under the limit.
-- keys: counter = rate:user:42:28881234 | the window's counter key (caller appends floor(now / window))
-- argv: limit = 10 | hits allowed per window
-- argv: window_ms = 60000 | window length in milliseconds
-- writes: yes
-- single-slot: yes
-- returns: {allowed (1/0), count, ms until the window resets}

local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
if not limit or not window or window <= 0 then
    return redis.error_reply('ERR fixed_window_limit: limit and window_ms must be numbers, window_ms > 0')
end

local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
-- The TTL is set with the first hit, in the same atomic step; a counter found without one
-- (written by older code) would lock its caller out for ever, so it gets one too.
if count == 1 or ttl < 0 then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    ttl = window
end

local allowed = 0
if count <= limit then
    allowed = 1
end
return {allowed, count, ttl}
