// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redisvalue.h"

#include <limits>

// One convention for TTLs everywhere. A PTTL is >= 0 (ms left), -1 (no TTL), -2 (no such key)
// or unknown: the reply was an error (a user without +pttl), or it was never asked (a
// names-only scan). "Unknown" must never be shown as "no TTL": for a lock that is the
// difference between fine and a deadlock.
namespace ttl {

constexpr qint64 kUnknown = std::numeric_limits<qint64>::min();

// An integer PTTL reply as is; anything else is unknown.
inline qint64 fromReply(const RedisValue &pttl)
{
    return pttl.isInteger() ? pttl.toInteger() : kUnknown;
}

// The absolute expiry (ms since epoch) of a PTTL read at capturedAtMs: -1 for none,
// kUnknown when unknown.
constexpr qint64 expireAt(qint64 pttlMs, qint64 capturedAtMs)
{
    return pttlMs >= 0 ? capturedAtMs + pttlMs : pttlMs == -1 ? -1 : kUnknown;
}

} // namespace ttl
