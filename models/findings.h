// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "caches.h"
#include "jobqueues.h"
#include "locks.h"
#include "patterns.h"
#include "queues.h"
#include "ratelimits.h"
#include "redlock.h"
#include "serverinfo.h"
#include "sessions.h"
#include "slowlog.h"
#include "streams.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QMetaType>
#include <QString>
#include <array>
#include <optional>

// The triage's findings: rules over what RedisLens read of a server (TriageFacts), each with a
// stable id, a severity, the evidence (every affected key or family), how much of the server it
// saw, and a hint from docs/patterns.md. The engine is a pure function of the facts and the
// thresholds, so every rule is testable without a server; inspect/triagecollector.h gathers the
// facts from one.

enum class FindingSeverity : quint8 { Info, Warning, Critical };
QString findingSeverityName(FindingSeverity severity); // "info", "warning", "critical"
std::optional<FindingSeverity> findingSeverityFromName(const QString &name);

// One affected key, family or server fact.
struct FindingItem
{
    QString subject; // escaped key name, family shape, or a setting
    QByteArray key; // the key's bytes when the item is one key; empty otherwise
    QString detail; // "no TTL · held 3 h", "4,203 keys, 4,203 without TTL"
};

struct Finding
{
    QString id; // "lock.no-ttl"
    FindingSeverity severity = FindingSeverity::Info;
    QString title; // one line
    QString hint; // what to do, one or two sentences
    QString coverage; // "from a complete scan of 1,204 keys"
    QString panel; // the panel that shows it ("locks"); empty: none
    qint64 affected = 0; // keys, families or entries concerned (evidence may be shorter)
    QList<FindingItem> evidence;
    QList<std::pair<QString, QString>> figures; // ("used memory", "1.9 GB")
    double impact = 0; // ranks findings of one severity: larger first
};
Q_DECLARE_METATYPE(Finding)

// The thresholds the rules compare with, by name; defaults from the built-in file
// (:/triage/thresholds.json), overridden by a user's file of the same shape.
class TriageThresholds
{
public:
    TriageThresholds(); // the defaults
    // Overrides from a JSON object file {"name": number, …}; an unknown name or a value that is
    // not a number is an error (returned, nothing changed).
    QString load(const QString &fileName);
    QString loadJson(const QByteArray &json);
    double value(const char *name) const;
    void set(const QString &name, double value) { m_values.insert(name, value); }
    QStringList names() const;
    // The user's file, beside the pattern rules: <app config dir>/thresholds.json.
    static QString userFile();

private:
    QHash<QString, double> m_values;
};

// How much of the keyspace the key rules saw.
struct KeyspaceCoverage
{
    qint64 examined = 0; // distinct keys classified
    qint64 total = -1; // DBSIZE (or INFO keyspace) when known
    bool complete = false; // the scan ran to its end
    bool sampled = false; // --sample: the scan stopped after 'examined' keys on purpose
    bool scanned = false; // any scan at all
    QString sentence() const; // "from a complete scan of 1,204 keys", "from a sample of …"
    // "an estimated 4,100 ± 300 of 1.2 M keys" for 'hits' of the examined keys; the plain count
    // when the scan was complete.
    QString estimate(qint64 hits) const;
};

// One family of keys as the scan saw it.
struct FamilyFacts
{
    QString family;
    PatternKind kind = PatternKind::Unknown;
    KeyType type = KeyType::Unknown;
    qint64 keys = 0;
    qint64 noTtl = 0;
    QByteArray example; // one key of it
};

// A stream as the collector read it: XINFO STREAM, its groups, and a page of each group's
// oldest pending entries.
struct StreamFacts
{
    StreamRow row;
    struct Group
    {
        StreamGroupInfo info;
        QList<StreamConsumerInfo> consumers;
        QList<PendingEntry> oldestPending; // XPENDING - + N, oldest first
    };
    QList<Group> groups;
};

struct GeoFacts
{
    QByteArray key;
    qint64 members = 0;
    int sampled = 0;
    int inSea = 0;
    int swappedOnLand = 0; // of the sea points, how many fall on land with the coordinates swapped
};

struct TriageFacts
{
    qint64 nowMs = 0;
    // Server facts. An empty ServerInfo and a reason: not read.
    ServerInfo info;
    QString infoError;
    ServerInfo earlierInfo; // an INFO read some time before 'info', for rates; empty: none
    QHash<QByteArray, QByteArray> config; // CONFIG GET name → value
    QString configError;
    QList<QByteArray> aclUsers; // ACL LIST lines
    QString aclError;
    bool aclRead = false;
    QList<SlowlogEntry> slowlog;
    QString slowlogError;
    bool slowlogRead = false;
    // Keyspace facts.
    KeyspaceCoverage coverage;
    std::array<qint64, kPatternKindCount> kindCounts{}; // keys per kind
    QList<FamilyFacts> families;
    QMap<KeyType, qint64> typeCounts;
    QHash<QByteArray, qint64> namespaceCounts; // the name up to its first ':'; "" for names without one
    // Keys by remaining TTL: none, ≤ 1 min, ≤ 1 h, ≤ 1 day, ≤ 7 days, longer (ttlBucketLabels()).
    std::array<qint64, 6> ttlHistogram{};
    QList<std::pair<QByteArray, QString>> sensitiveNames; // (key, what it holds): e-mail, JWT…
    qint64 sensitiveNameCount = 0; // more than the list when it was capped
    QList<KeySample> bigKeys; // keys whose element count or length was read (samples)
    QHash<QByteArray, qint64> namespaceMemory; // MEMORY USAGE of the probed keys, by namespace
    qint64 memoryProbed = 0; // keys whose MEMORY USAGE was read
    QList<std::pair<QByteArray, qint64>> hotKeys; // OBJECT FREQ of the probed keys, hottest first
    bool freqRead = false; // the policy is LFU and OBJECT FREQ was read
    QString freqWhy; // why not
    // Pattern readers' results; nullopt: not read (no such keys, or the reader failed).
    std::optional<QList<LockInfo>> locks;
    // A Redlock set (the profile's redlockPeers): every lock across its nodes, the nodes, and why
    // each could not be read (empty when it was). nullopt: no set, or it was not read.
    std::optional<QList<RedlockLock>> redlock;
    QStringList redlockNodes;
    QStringList redlockNodeErrors;
    std::optional<CachesResults> caches;
    std::optional<SessionsResults> sessions;
    std::optional<RateLimitAnalysis> rateLimits;
    std::optional<QList<StreamFacts>> streams;
    std::optional<QList<QueueInfo>> queues;
    std::optional<QList<DelayedInfo>> delayed;
    std::optional<QList<JobQueueInfo>> jobQueues;
    std::optional<QList<GeoFacts>> geo;
    // Cache values that carry a logical expiry (early refresh): expireAtMs is that expiry.
    QList<CacheKeyState> logicalExpiry;
    bool logicalExpiryRead = false;
    QStringList readerErrors; // "locks: NOPERM …"
};
Q_DECLARE_METATYPE(TriageFacts)

// A rule as the catalogue lists it.
struct TriageRule
{
    const char *id;
    const char *area; // "memory", "persistence", …
    const char *title; // what it checks
};
const QList<TriageRule> &triageRules();

// What one evaluation found.
struct TriageResult
{
    QList<Finding> findings; // ranked: severity, then impact
    int rulesChecked = 0;
    QList<std::pair<QString, QString>> notChecked; // (rule id, why)
    QString coverage; // the keyspace's sentence
};

// Applies every rule (or those 'only' names, minus 'exclude') to the facts.
TriageResult evaluateTriage(const TriageFacts &facts, const TriageThresholds &thresholds, const QStringList &only = {},
                            const QStringList &exclude = {});

namespace findings {
QJsonObject toJson(const Finding &finding, int maxEvidence = 1000);
// The keyspace and the server in brief: keys by type, kind, library and namespace, the TTL
// histogram, and the server's facts ("summary" of `redislens report`).
QJsonObject summaryJson(const TriageFacts &facts);
QStringList ttlBucketLabels();
int ttlBucket(qint64 pttlMs); // -1 when the TTL is unknown
// Whether a glob-free rule list names a known rule ("lock.no-ttl") or area ("lock").
bool isKnownRuleOrArea(const QString &name);
} // namespace findings
