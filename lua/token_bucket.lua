-- SPDX-License-Identifier: GPL-3.0-or-later
-- name: token_bucket
-- purpose: Refill a token bucket for the time passed, then take tokens from it if enough are left.
-- keys: bucket = bucket:api:client-7 | hash with fields tokens and last_refill (epoch ms)
-- argv: capacity = 20 | most tokens the bucket holds (a full burst)
-- argv: refill_per_sec = 5 | tokens added per second
-- argv: now_ms = 1764412345678 | the caller's clock in epoch milliseconds
-- argv: cost = 1 | tokens this request takes
-- writes: yes
-- single-slot: yes
-- returns: {allowed (1/0), whole tokens left, ms until enough tokens for this cost}

local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])
if not capacity or not rate or not now or not cost or rate <= 0 or capacity <= 0 or cost < 0 then
    return redis.error_reply('ERR token_bucket: capacity and refill_per_sec must be positive, now_ms and cost numbers')
end

local state = redis.call('HMGET', KEYS[1], 'tokens', 'last_refill')
local tokens = tonumber(state[1])
local last = tonumber(state[2])
if not tokens or not last then
    tokens = capacity
    last = now
end

-- A clock that went backwards (another caller's clock is behind) adds nothing.
if now > last then
    tokens = math.min(capacity, tokens + (now - last) * rate / 1000)
    last = now
end

local allowed = 0
local wait = 0
if tokens >= cost then
    tokens = tokens - cost
    allowed = 1
else
    wait = math.ceil((cost - tokens) * 1000 / rate)
end

redis.call('HSET', KEYS[1], 'tokens', string.format('%.14g', tokens), 'last_refill', string.format('%d', last))
-- A bucket that would be full again is the same as no bucket: let it go then.
local idle = math.ceil((capacity - tokens) * 1000 / rate)
if idle < 1000 then
    idle = 1000
end
redis.call('PEXPIRE', KEYS[1], string.format('%d', idle))
return {allowed, math.floor(tokens), wait}
