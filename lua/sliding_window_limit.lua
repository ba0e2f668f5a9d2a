-- SPDX-License-Identifier: GPL-3.0-or-later
-- name: sliding_window_limit
-- purpose: Log one request in a sliding window; allow while fewer than the limit fall inside it.
-- keys: log = rate:sliding:user:42 | sorted set, one member per allowed request, score = time in ms
-- keys: seq = rate:sliding:user:42:seq | counter that makes members unique within one millisecond
-- argv: now_ms = 1764412345678 | the caller's clock in epoch milliseconds
-- argv: window_ms = 60000 | window length in milliseconds
-- argv: limit = 20 | requests allowed in any window
-- writes: yes
-- single-slot: no
-- returns: {allowed (1/0), requests in the window, ms until the next request would be allowed}

local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
if not now or not window or not limit or window <= 0 then
    return redis.error_reply('ERR sliding_window_limit: now_ms, window_ms and limit must be numbers, window_ms > 0')
end

-- The window is (now - window, now]: anything at or before its start has left it.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%d', now - window))
local count = redis.call('ZCARD', KEYS[1])

local allowed = 0
local wait = 0
if count < limit then
    local seq = redis.call('INCR', KEYS[2])
    -- ARGV[1] is used as text: Lua would print a large number in exponent notation.
    redis.call('ZADD', KEYS[1], ARGV[1], ARGV[1] .. ':' .. seq)
    count = count + 1
    allowed = 1
else
    local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
    if #oldest == 2 then
        wait = tonumber(oldest[2]) + window - now
        if wait < 1 then
            wait = 1
        end
    end
end

redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return {allowed, count, wait}
