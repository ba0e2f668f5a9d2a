-- SPDX-License-Identifier: GPL-3.0-or-later
-- name: tag_invalidate
-- purpose: Delete one bounded batch of a tag's cache keys (picked by the caller with SRANDMEMBER) and drop them from the tag.
-- keys: tag = tag:category:7 | set whose members are cache key names
-- keys: member... = app:product:123 | the batch: cache keys from the tag, one KEYS entry each (1 to 500)
-- writes: yes
-- single-slot: no
-- returns: {cache keys deleted, members left in the tag}

-- The batch comes in as KEYS so that every key the script touches is declared; the caller
-- repeats SRANDMEMBER tag 100 + this script until no members are left.
if #KEYS < 2 or #KEYS > 501 then
    return redis.error_reply('ERR tag_invalidate: needs the tag and 1 to 500 member keys')
end

local deleted = 0
for i = 2, #KEYS do
    -- Only keys that still belong to the tag: a stale batch must not delete unrelated keys.
    if redis.call('SREM', KEYS[1], KEYS[i]) == 1 then
        deleted = deleted + redis.call('DEL', KEYS[i])
    end
end
return {deleted, redis.call('SCARD', KEYS[1])}
