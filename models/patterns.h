// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keytype.h"
#include "ttl.h"

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QVariantMap>
#include <optional>

// The patterns of ../shared/PATTERNS.md that a key (or a family of keys) can be an instance of.
enum class PatternKind : quint8 {
    Unknown,
    Lock,
    FixedWindow, // rate-limit counter per window
    SlidingWindow, // rate-limit log: sorted set of request times
    TokenBucket,
    Session,
    SessionIndex, // per-user set of session ids
    CacheEntry,
    NegativeCache, // short-TTL "missing" marker
    CacheTagSet, // set of cache key names
    DedupSet,
    DedupKey, // per-event SET NX EX key
    Counter,
    HyperLogLog,
    Leaderboard,
    GeoSet,
    Stream,
    ListQueue,
    ProcessingList,
    DelayedJobs,
};
constexpr int kPatternKindCount = int(PatternKind::DelayedJobs) + 1;

QString patternKindName(PatternKind kind); // "lock", "rate limit (fixed window)", …
// The rules file's spelling: "lock", "fixed-window", "sliding-window", "token-bucket", "session",
// "session-index", "cache", "negative-cache", "cache-tag", "dedup-set", "dedup-key", "counter",
// "hll", "leaderboard", "geo", "stream", "queue", "processing", "delayed", and "none" for Unknown
// (a rule that says "this is not a pattern"). The queue spellings are the ones rules.json used
// before it knew other patterns, so those files still load.
QByteArray patternKindId(PatternKind kind);
std::optional<PatternKind> patternKindFromId(const QByteArray &id);

// What the sampler read of one key. The classifier decides from this alone, so it is testable
// without a server.
struct KeySample
{
    QByteArray key;
    KeyType type = KeyType::Unknown;
    qint64 pttlMs = ttl::kUnknown;
    qint64 elements = -1; // STRLEN / HLEN / LLEN / SCARD / ZCARD / XLEN; -1 unknown
    QByteArray head; // strings: the first bytes (GETRANGE 0 127)
    QList<QByteArray> members; // hash field names, set/zset members, list items: a small sample
    QList<double> scores; // sorted sets: the scores of 'members'
    bool sampled = false; // false: only name, type and TTL are known
};

// The verdict for one key.
struct PatternMatch
{
    QByteArray key;
    KeyType type = KeyType::Unknown;
    PatternKind kind = PatternKind::Unknown;
    int confidence = 0; // 0-100
    QString reason; // one line: why
    QString family; // the name shape the key shares with its siblings: "rate:user:{n}:{n}"
    qint64 pttlMs = ttl::kUnknown; // as the scan read it
    bool fromRule = false; // a user rule decided
    QVariantMap params; // the rule's parameters ("limit": 100, "window_ms": 60000)
};
Q_DECLARE_METATYPE(PatternMatch)
