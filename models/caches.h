// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keyfilter.h"
#include "serverinfo.h"
#include "sessions.h"

#include <QHash>
#include <QList>
#include <optional>

class RedisClient;

// ---- headless cache statistics ----

// One cache key as last read: its kind (cache entry or negative marker) and absolute expiry.
struct CacheKeyState
{
    QByteArray key;
    PatternKind kind = PatternKind::CacheEntry;
    qint64 expireAtMs = ttl::kUnknown; // ttl.h conventions
};

// A namespace (family) of cache entries and negative markers at one moment.
struct CacheNamespaceRow
{
    QString family;
    QByteArray prefix; // familyPrefix(family); empty when the shape starts with a placeholder
    quint64 keys = 0;
    quint64 withTtl = 0;
    quint64 noTtl = 0;
    quint64 unknown = 0;
    qint64 minMs = -1, medianMs = -1, maxMs = -1; // remaining TTL of the keys that have one
    quint64 negatives = 0;
    quint64 negativesNoTtl = 0; // a real row never becomes visible behind these
    qint64 negativeMinMs = -1, negativeMaxMs = -1;
    // Seconds in which many keys of the namespace expire together: the TTL panel's cliff rule
    // (TtlStats::kCliff*) applied to this namespace alone, over the next hour.
    QList<TtlCliff> cliffs;

    double ttlShare() const { return keys > unknown ? double(withTtl) / double(keys - unknown) : -1.0; }
    bool noJitter() const { return !cliffs.isEmpty(); }
    Severity severity() const;
    QString flags() const;
};

// The server's cache hit ratio: since the server started, and between the last two reads.
struct HitRatio
{
    qint64 hits = -1, misses = -1;
    double sinceStart = -1; // 0..1, -1 unknown (no lookups yet, or INFO not allowed)
    double recent = -1;
    qint64 recentLookups = 0;
    qint64 recentSpanMs = 0;

    // 'ownHits'/'ownMisses': lookups RedisLens itself made between the two reads (a PTTL counts
    // as a hit or miss like a GET), taken out of the recent ratio.
    static HitRatio from(const ServerInfo &current, const ServerInfo *previous, qint64 ownHits = 0,
                         qint64 ownMisses = 0);
};

namespace caches {

// Statistics of one namespace, computed against 'nowMs'.
CacheNamespaceRow namespaceRow(const QString &family, const QList<CacheKeyState> &keys, qint64 nowMs);
// The key-browser filter for a namespace; empty when it has no literal prefix.
KeyFilter filterFor(const QString &family);

} // namespace caches

struct TagRow
{
    QByteArray key;
    QString family;
    qint64 cardinality = -1;
    qint64 pttlMs = ttl::kUnknown;
    qint64 scanned = 0;
    bool complete = false;
    QList<QByteArray> dangling; // members whose key is gone
    qint64 membersWithoutTtl = 0;
    qint64 maxMemberTtlMs = -1; // longest member PTTL read
    qint64 outlivingMembers = 0; // members that outlive the tag (or have no TTL while the tag has one)
    QString error;
    bool huge() const;
    Severity severity() const;
    QString flags() const;
};

struct DedupSetRow
{
    QByteArray key;
    QString family;
    qint64 cardinality = -1;
    qint64 pttlMs = ttl::kUnknown;
    double growthPerMin = qQNaN(); // NaN until two reads
    qint64 growth = 0; // members added over growthSpanMs (the last reads, up to two minutes)
    qint64 growthSpanMs = 0;
    bool growingWithoutTtl() const { return pttlMs == -1 && growth > 0; }
    Severity severity() const;
};

struct DedupFamilyRow
{
    QString family;
    quint64 keys = 0;
    quint64 noTtl = 0;
    qint64 minMs = -1, medianMs = -1, maxMs = -1;
    Severity severity() const { return noTtl > 0 ? Severity::Bad : Severity::None; }
};

struct CounterRow
{
    QByteArray key;
    QString family;
    bool hll = false;
    qint64 value = 0; // PFCOUNT estimate, or the counter's integer
    QByteArray raw; // a counter that is not an integer: its first bytes
    bool known = false;
    qint64 pttlMs = ttl::kUnknown;
    QString error;
};

using CacheNamespacesModel = RowTableModel<CacheNamespaceRow>;
using TagsModel = RowTableModel<TagRow>;
using DedupSetsModel = RowTableModel<DedupSetRow>;
using DedupFamiliesModel = RowTableModel<DedupFamilyRow>;
using CountersModel = RowTableModel<CounterRow>;

// Polls what the classifier called caches, tags, dedup keys and counters: TTLs (rotating,
// bounded per poll), INFO stats for the hit ratio, tag members (SSCAN bounded, PTTL each),
// dedup-set sizes, PFCOUNT and counter values. Pipelined and only while polling.
class CachesMonitor : public PollingReader
{
    Q_OBJECT
public:
    static constexpr int kMaxTtlsPerPoll = 500;
    static constexpr int kMaxTagsPerPoll = 30;
    static constexpr int kMaxMembersPerTag = 200;
    static constexpr int kMaxPerKindPerPoll = 100; // dedup sets, HLLs, counters
    static constexpr int kBatch = 200;
    static constexpr int kRefreshMs = 10'000;
    static constexpr qint64 kHugeTag = 10'000;
    static constexpr int kCounterPeekBytes = 32;
    // The recent hit ratio compares INFO reads at least this far apart (a rescan can poll twice
    // within milliseconds; a ratio over 50 ms says little). Tests set 0.
    static constexpr qint64 kMinRatioSpanMs = 5000;
    void setMinRatioSpanMs(qint64 ms) { m_minRatioSpanMs = ms; }

    explicit CachesMonitor(RedisClient *client, QObject *parent = nullptr);

    // CacheEntry, NegativeCache, CacheTagSet, DedupSet, DedupKey, Counter and HyperLogLog.
    void setMatches(const QList<PatternMatch> &matches);

    CacheNamespacesModel *namespacesModel() const { return m_namespaces; }
    TagsModel *tagsModel() const { return m_tags; }
    DedupSetsModel *dedupSetsModel() const { return m_dedupSets; }
    DedupFamiliesModel *dedupFamiliesModel() const { return m_dedupFamilies; }
    CountersModel *countersModel() const { return m_counters; }
    HitRatio hitRatio() const { return m_hitRatio; }
    QString infoError() const { return m_infoError; }
    qint64 nowMs() const { return m_now; }

private:
    void startRound() override;
    void readTags(QList<TagRow> tags);
    void finish(QList<TagRow> tags);
    void rebuild();

    CacheNamespacesModel *m_namespaces;
    TagsModel *m_tags;
    DedupSetsModel *m_dedupSets;
    DedupFamiliesModel *m_dedupFamilies;
    CountersModel *m_counters;
    // Every TTL-tracked key (cache entries, negative markers, dedup keys) by family.
    QHash<QByteArray, int> m_keyOf;
    QList<CacheKeyState> m_keys;
    QList<QString> m_keyFamily;
    qsizetype m_ttlCursor = 0;
    QList<TagRow> m_tagRows;
    qsizetype m_tagCursor = 0;
    QList<DedupSetRow> m_setRows;
    QHash<QByteArray, QList<QPair<qint64, qint64>>> m_setSamples; // key → (ms, SCARD)
    QList<CounterRow> m_counterRows;
    std::optional<ServerInfo> m_lastInfo;
    HitRatio m_hitRatio;
    QString m_infoError;
    qint64 m_ownHits = 0, m_ownMisses = 0; // since m_lastInfo
    qint64 m_minRatioSpanMs = kMinRatioSpanMs;
    qint64 m_now = 0;
};
