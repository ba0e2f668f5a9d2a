-- SPDX-License-Identifier: GPL-3.0-or-later
-- name: stream_dead_letter
-- purpose: Copy a pending stream entry to a dead-letter stream and acknowledge it, in one atomic step.
-- keys: stream = events:orders | the stream the entry lives in
-- keys: dead = events:orders:dead | the dead-letter stream
-- argv: group = billing | the consumer group the entry is pending in
-- argv: id = 1764412345678-0 | the entry id
-- argv: reason = delivered 17 times | why it is given up, stored with the copy
-- argv: dead_maxlen = 10000 | approximate cap of the dead-letter stream
-- writes: yes
-- single-slot: no
-- returns: {id of the copy in the dead stream, times the entry had been delivered}

local maxlen = tonumber(ARGV[4])
if not maxlen or maxlen < 1 then
    return redis.error_reply('ERR stream_dead_letter: dead_maxlen must be a positive number')
end

-- Everything is checked before anything is written, so a refusal leaves no trace.
local pending = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[2], ARGV[2], 1)
if #pending == 0 then
    return redis.error_reply('NOTPENDING entry ' .. ARGV[2] .. ' is not pending in group ' .. ARGV[1])
end
local entry = redis.call('XRANGE', KEYS[1], ARGV[2], ARGV[2])
if #entry == 0 then
    return redis.error_reply('NOENTRY entry ' .. ARGV[2] .. ' is no longer in the stream (trimmed or deleted)')
end
local fields = entry[1][2]
if #fields > 1000 then
    return redis.error_reply('ERR stream_dead_letter: entry has more than 500 fields')
end

local deliveries = pending[1][4]
local args = {'XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '*',
    'dead_source_id', ARGV[2], 'dead_group', ARGV[1], 'dead_reason', ARGV[3],
    'dead_deliveries', tostring(deliveries)}
for i = 1, #fields do
    args[#args + 1] = fields[i]
end
local dead_id = redis.call(unpack(args))
redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
return {dead_id, deliveries}
