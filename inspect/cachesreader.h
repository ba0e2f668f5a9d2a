// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "caches.h"
#include "patterns.h"
#include "pollingreader.h"
#include "redisvalue.h"
#include "serverinfo.h"

#include <QHash>
#include <QList>
#include <optional>

class RedisClient;

// Polls what the classifier called caches, tags, dedup keys and counters: TTLs (rotating,
// bounded per poll), INFO stats for the hit ratio, tag members (SSCAN bounded, PTTL each),
// dedup-set sizes, PFCOUNT and counter values. Pipelined and only while polling. Each round
// ends with cachesAvailable, then refreshed; refresh() reads one round without a timer.
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

    // What the last round read.
    const CachesResults &results() const { return m_results; }
    HitRatio hitRatio() const { return m_hitRatio; }
    QString infoError() const { return m_infoError; }
    qint64 nowMs() const { return m_now; }

Q_SIGNALS:
    void cachesAvailable(const CachesResults &results);

private:
    void startRound() override;
    void readInfo(const RedisValue &info);
    void countOwnLookups(const QList<RedisValue> &values);
    void readTtls(const QList<QByteArray> &keys, const QList<RedisValue> &values, qsizetype &v);
    QList<TagRow> readTagSizes(const QList<QByteArray> &keys, const QList<RedisValue> &values, qsizetype &v) const;
    void readDedupSets(const QList<DedupSetRow> &sets, const QList<RedisValue> &values, qsizetype &v);
    void readCounters(const QList<CounterRow> &counters, const QList<RedisValue> &values, qsizetype &v);
    void readTags(QList<TagRow> tags);
    void finish(QList<TagRow> tags);
    // Groups the keys into namespaces and dedup families, and emits the round's results.
    void publish();

    CachesResults m_results;
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
