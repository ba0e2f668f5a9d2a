// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "geohash.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QStringList>
#include <optional>

class QTimer;
class RedisClient;
class RedisValue;

// What a sorted set's scores say it is used for.
enum class ZSetKind : quint8 { Leaderboard, Geo, TimeScheduled };
QString zsetKindName(ZSetKind kind); // "leaderboard", "geo", "scheduled"

// Decides from a small sample. 'scores' are the sampled scores (any order); 'positions' are
// GEOPOS answers for the members of the first positions.size() scores (nullopt for a nil),
// empty when GEOPOS was not asked or failed. 'nowMs' is the wall clock.
ZSetKind classifyZSetSample(const QList<double> &scores, const QList<std::optional<GeoPoint>> &positions, qint64 nowMs);

enum class GeoUnit : quint8 { M, Km, Mi };
QByteArray geoUnitArg(GeoUnit unit); // "m", "km", "mi"
QString geoUnitName(GeoUnit unit);
double geoUnitMetres(GeoUnit unit);

struct GeoMember
{
    QByteArray member;
    GeoPoint pos;
    double distance = -1; // in the query's unit; -1 when not measured
};

// One search, as GEOSEARCH takes it.
struct GeoQuery
{
    QByteArray key;
    bool fromMember = true;
    QByteArray member; // FROMMEMBER
    GeoPoint centre; // FROMLONLAT
    bool byBox = false;
    double radius = 100; // BYRADIUS
    double width = 200, height = 200; // BYBOX
    GeoUnit unit = GeoUnit::Km;
    int count = 100;
};

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
class GeoDetector : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMaxKeys = 300;
    static constexpr int kKeysPerRound = 8;

    explicit GeoDetector(RedisClient *client, QObject *parent = nullptr);

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

// What the map shows of one geo set.
struct GeoSample
{
    QByteArray key;
    qint64 zcard = 0;
    bool sampled = false;
    QList<GeoMember> points;
    // "all 1,234 members" or "showing 10,000 of 1,234,567 (sampled)"
    QString description() const;
};

// Loads a geo set's points for the map without reading a big one whole: up to kLoadAll members
// come in ZRANGE windows of kWindow, larger sets are sampled (ZRANDMEMBER with a count on 6.2+,
// else windows at ranks spread over the set). Scores are decoded here: no GEOPOS needed.
class GeoSampler : public QObject
{
    Q_OBJECT
public:
    static constexpr int kLoadAll = 20000;
    static constexpr int kWindow = 5000;
    static constexpr int kSample = 10000;

    explicit GeoSampler(RedisClient *client, QObject *parent = nullptr);
    void load(const QByteArray &key);
    void cancel();
    bool isLoading() const { return m_loading; }

Q_SIGNALS:
    void loaded(const GeoSample &sample);
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
class GeoSearch : public QObject
{
    Q_OBJECT
public:
    explicit GeoSearch(RedisClient *client, QObject *parent = nullptr);
    void search(const GeoQuery &query);
    void distance(const QByteArray &key, const QByteArray &a, const QByteArray &b, GeoUnit unit);

Q_SIGNALS:
    void resultsReady(const GeoQuery &query, const QList<GeoMember> &results);
    // -1 when a member does not exist.
    void distanceReady(const QByteArray &a, const QByteArray &b, double distance, GeoUnit unit);
    void failed(const QString &message);

private:
    RedisClient *m_client;
    QPointer<QObject> m_searchContext;
};

// Search results: member, distance, longitude, latitude.
class GeoPointsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { MemberColumn, DistanceColumn, LongitudeColumn, LatitudeColumn, ColumnCount };
    enum Role { MemberBytesRole = Qt::UserRole + 1, SortRole };

    using QAbstractTableModel::QAbstractTableModel;
    void setResults(const QList<GeoMember> &rows, GeoUnit unit);
    void clear();
    const GeoMember &at(int row) const { return m_rows.at(row); }
    const QList<GeoMember> &rows() const { return m_rows; }
    GeoUnit unit() const { return m_unit; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<GeoMember> m_rows;
    GeoUnit m_unit = GeoUnit::Km;
};

// The world outline: polylines of (lon, lat), read from the "RLC1" file that
// resources/convert-coastline.mjs writes. Empty on a missing or malformed file.
QList<QList<GeoPoint>> loadCoastline(const QString &fileName);

Q_DECLARE_METATYPE(GeoSample)
Q_DECLARE_METATYPE(ZSetKind)
