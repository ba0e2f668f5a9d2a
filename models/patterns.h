// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keytype.h"
#include "ttl.h"

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QVariantMap>
#include <functional>
#include <optional>

class LibraryCatalogue;
class PatternRules;

// The patterns of docs/patterns.md that a key (or a family of keys) can be an instance of.
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
    JobQueue, // any key a job-queue library keeps: its lists, job hashes, registries, workers
};
constexpr int kPatternKindCount = int(PatternKind::JobQueue) + 1;

QString patternKindName(PatternKind kind); // "lock", "rate limit (fixed window)", …
// The rules file's spelling: "lock", "fixed-window", "sliding-window", "token-bucket", "session",
// "session-index", "cache", "negative-cache", "cache-tag", "dedup-set", "dedup-key", "counter",
// "hll", "leaderboard", "geo", "stream", "queue", "processing", "delayed", "job-queue", and "none" for Unknown
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

// The name shape a key shares with its siblings: variable segments (numbers, dates, uuids, hex
// or random ids, numeric suffixes such as "sku-000311") become placeholders, so
// "rate:user:1042:29612345" → "rate:user:{n}:{n}", "session:9f86d081…" → "session:{id}",
// "hll:pageviews:2026-11-29" → "hll:pageviews:{date}". Segments are split on ':' and '/';
// bytes that are not printable are escaped as bytesescape::escape does.
QString familyOf(const QByteArray &key);

// Value shapes the classifier reads, public for the panels and the tests.
namespace patternshape {
// A random token of at least 16 characters: a uuid, hex, or base64/base62 with mixed classes.
bool isRandomToken(const QByteArray &value);
// A decimal integer of at most 18 digits (INCR's output).
bool isInteger(const QByteArray &value, qint64 *out = nullptr);
// A "this row does not exist" marker: null, nil, {}, [], "", {"missing":true}, {"found":false}…
bool isMissingMarker(const QByteArray &value);
// An explicit marker (not merely empty): null/nil/none or a JSON object saying missing/found/exists.
bool isExplicitMissingMarker(const QByteArray &value);
// The number in a name that is a time-bucket number (epoch / window for a common window from
// one second to one day) of the last 60 days.
bool isEpochBucket(qint64 number, qint64 nowMs);
} // namespace patternshape

// What the classifier may know about a key beyond its own sample; the index fills it in.
struct PatternContext
{
    QString family; // familyOf(key) when empty
    int familySize = 1; // keys of that family known
    PatternKind familyKind = PatternKind::Unknown; // what the family's other keys were found to be
    std::function<bool(const QString &family)> familyKnown; // some key of that family exists
    std::function<bool(const QByteArray &key)> keyKnown; // that key exists
    qint64 nowMs = 0; // 0: the wall clock
};

// Decides what one key is from its sample: user rules first (PatternRules::match), then the
// library catalogue (models/librarycatalogue.h: what known libraries write, and job queues of
// unknown libraries by the names of their state keys), then structure (type, TTL, value shape,
// field names, members, scores), then names. Sorted sets
// reuse classifyZSetSample (models/geo.h) and lists/sorted sets the built-in QueueRules
// (models/queues.h), so geo, queue and classifier verdicts never disagree.
class PatternClassifier
{
public:
    static constexpr int kHeadBytes = 128; // GETRANGE key 0 127
    static constexpr int kMembers = 8; // set members sampled
    static constexpr int kFields = 16; // hash fields sampled

    explicit PatternClassifier(const PatternRules *rules = nullptr) : m_rules(rules) { }
    void setRules(const PatternRules *rules) { m_rules = rules; }
    // Null: the built-in catalogue.
    void setCatalogue(const LibraryCatalogue *catalogue) { m_catalogue = catalogue; }

    PatternMatch classify(const KeySample &sample, const PatternContext &context = {}) const;
    // Whether the verdict for this sample may change once another key is known: a catalogue
    // entry that fits but for a sibling it requires, or a name of a queue state (a job queue of
    // an unknown library is told by its siblings). The index decides such keys again later.
    bool mayChangeWithSiblings(const KeySample &sample) const;
    // The user rule's verdict for a key, without a sample; nullopt when no rule matches.
    std::optional<PatternMatch> ruleMatch(const QByteArray &key, KeyType type) const;
    // True when type (and name) alone decide, so reading a sample adds nothing (streams).
    static bool decidedByType(KeyType type);

private:
    const PatternRules *m_rules = nullptr;
    const LibraryCatalogue *m_catalogue = nullptr;
};
