-- SPDX-License-Identifier: GPL-3.0-or-later
-- name: lock_release
-- purpose: Release a lock only when it is still held with our token (compare-and-delete).
-- keys: lock = lock:invoice:1042 | the lock key
-- argv: token = 3f1c9a0e7b2d4c55 | the token used to acquire it
-- writes: yes
-- single-slot: yes
-- returns: 1 when released, 0 when the lock is gone or held by someone else

if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
