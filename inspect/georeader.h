// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "geo.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QSet>

class QTimer;
class RedisClient;
class RedisValue;

// GEOSEARCH … WITHDIST WITHCOORD ASC COUNT n when 'geoSearch' (Redis 6.2+), else the read-only
// GEORADIUS_RO / GEORADIUSBYMEMBER_RO with the same options; an empty command when the query
// cannot be asked that way (a box before 6.2).
QList<QByteArray> geoSearchCommand(const GeoQuery &query, bool geoSearch);
// The reply of either: [member, "distance", [lon, lat]] per element.
QList<GeoMember> parseGeoSearchReply(const RedisValue &reply, bool *ok = nullptr);
// ZRANGE … WITHSCORES or ZRANDMEMBER … WITHSCORES (RESP2 flat or RESP3 pairs), decoded locally.
QList<GeoMember> parseScoredMembers(const RedisValue &reply);

// Samples zsets found by the scan, a few keys per round and a round every few tens of
// milliseconds: ZRANGE key 0 4 WITHSCORES and ZRANGE key -1 -1 WITHSCORES, then GEOPOS of
// the five lowest for keys whose scores could be geohashes. One verdict per key.
class GeoDetectReader : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMaxKeys = 300;
    static constexpr int kKeysPerRound = 8;

    explicit GeoDetectReader(RedisClient *client, QObject *parent = nullptr);

    // Queues keys not seen before; at most kMaxKeys per detector life (then restart()).
    void addKeys(const QList<QByteArray> &zsetKeys);
    void restart();
    bool isIdle() const;
    const QHash<QByteArray, ZSetKind> &verdicts() const { return m_verdicts; }
    QList<QByteArray> keysOfKind(ZSetKind kind) const;

Q_SIGNALS:
    void verdict(const QByteArray &key, ZSetKind kind);
    void idle();

private:
    void round();

    RedisClient *m_client;
    QTimer *m_pace;
    QList<QByteArray> m_queue;
    QHash<QByteArray, ZSetKind> m_verdicts;
    QSet<QByteArray> m_seen;
    int m_generation = 0;
    bool m_busy = false;
};

// Loads a geo set's points for the map without reading a big one whole: up to kLoadAll members
// come in ZRANGE windows of kWindow, larger sets are sampled (ZRANDMEMBER with a count on 6.2+,
// else windows at ranks spread over the set). Scores are decoded here: no GEOPOS needed.
class GeoSampleReader : public QObject
{
    Q_OBJECT
public:
    static constexpr int kLoadAll = 20000;
    static constexpr int kWindow = 5000;
    static constexpr int kSample = 10000;

    explicit GeoSampleReader(RedisClient *client, QObject *parent = nullptr);
    // The sample and, beside it, the set's MEMORY USAGE.
    void load(const QByteArray &key);
    void cancel();
    // ZCARD of each key, pipelined; largestAvailable() names the biggest.
    void findLargest(const QList<QByteArray> &keys);
    bool isLoading() const { return m_loading; }

Q_SIGNALS:
    void sampleAvailable(const GeoSample &sample);
    // -1 when MEMORY USAGE was refused.
    void memoryAvailable(const QByteArray &key, qint64 bytes);
    void largestAvailable(const QByteArray &key);
    void failed(const QString &message);

private:
    void fetch(qint64 zcard);
    void finish(const GeoSample &sample);

    RedisClient *m_client;
    QPointer<QObject> m_context; // replaced on each load: older replies are dropped
    QByteArray m_key;
    bool m_loading = false;
};

// Searches and distances on a geo set. Replies for a search that was superseded are dropped.
class GeoSearchReader : public QObject
{
    Q_OBJECT
public:
    explicit GeoSearchReader(RedisClient *client, QObject *parent = nullptr);
    void search(const GeoQuery &query);
    void distance(const QByteArray &key, const QByteArray &a, const QByteArray &b, GeoUnit unit);

Q_SIGNALS:
    void resultsAvailable(const GeoQuery &query, const QList<GeoMember> &results);
    // -1 when a member does not exist.
    void distanceAvailable(const QByteArray &a, const QByteArray &b, double distance, GeoUnit unit);
    void failed(const QString &message);

private:
    RedisClient *m_client;
    QPointer<QObject> m_searchContext;
};
