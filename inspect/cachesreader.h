// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "caches.h"
#include "patterns.h"
#include "pollingreader.h"
#include "serverinfo.h"

#include <QHash>
#include <QList>
#include <optional>

class RedisClient;

// Polls what the classifier called caches, tags, dedup keys and counters: TTLs (rotating,
// bounded per poll), INFO stats for the hit ratio, tag members (SSCAN bounded, PTTL each),
// dedup-set sizes, PFCOUNT and counter values. Pipelined and only while polling.
class CachesReader : public PollingReader
{
    Q_OBJECT
public:
    static constexpr int kMaxTtlsPerPoll = 500;
    static constexpr int kMaxTagsPerPoll = 30;
    static constexpr int kMaxMembersPerTag = 200;
    static constexpr int kMaxPerKindPerPoll = 100; // dedup sets, HLLs, counters
    static constexpr int kBatch = 200;
    static constexpr int kRefreshMs = 10'000;
    static constexpr qint64 kHugeTag = caches::kHugeTag;
    static constexpr int kCounterPeekBytes = 32;
    // The recent hit ratio compares INFO reads at least this far apart (a rescan can poll twice
    // within milliseconds; a ratio over 50 ms says little). Tests set 0.
    static constexpr qint64 kMinRatioSpanMs = 5000;
    void setMinRatioSpanMs(qint64 ms) { m_minRatioSpanMs = ms; }

    explicit CachesReader(RedisClient *client, QObject *parent = nullptr);

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
