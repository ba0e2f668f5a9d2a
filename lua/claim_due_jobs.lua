-- SPDX-License-Identifier: GPL-3.0-or-later
-- name: claim_due_jobs
-- purpose: Take up to a bounded number of jobs that are due, oldest first, so no other caller gets them.
-- keys: schedule = sched:due | sorted set of jobs, score = due time in epoch milliseconds
-- argv: now_ms = 1764412345678 | the caller's clock in epoch milliseconds
-- argv: limit = 50 | most jobs to claim (1 to 1000)
-- writes: yes
-- single-slot: yes
-- returns: the claimed jobs (members), oldest due first

local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
if not now or not limit or limit < 1 or limit > 1000 then
    return redis.error_reply('ERR claim_due_jobs: now_ms must be a number and limit between 1 and 1000')
end

local jobs = redis.call('ZRANGE', KEYS[1], '-inf', ARGV[1], 'BYSCORE', 'LIMIT', 0, string.format('%d', limit))
-- ZREM in slices: unpack() of a large table overflows the Lua stack.
local slice = 100
for first = 1, #jobs, slice do
    local last = math.min(first + slice - 1, #jobs)
    redis.call('ZREM', KEYS[1], unpack(jobs, first, last))
end
return jobs
