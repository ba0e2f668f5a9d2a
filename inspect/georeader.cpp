// SPDX-License-Identifier: GPL-3.0-or-later
#include "georeader.h"

#include "redisclient.h"

#include <QDateTime>
#include <QTimer>

#include <cmath>

namespace {
QByteArray num(double v)
{
    return QByteArray::number(v, 'g', 17);
}
} // namespace

QList<QByteArray> geoSearchCommand(const GeoQuery &q, bool geoSearch)
{
    const QByteArray unit = geoUnitArg(q.unit);
    const QList<QByteArray> tail{"WITHDIST", "WITHCOORD", "ASC", "COUNT", QByteArray::number(qMax(1, q.count))};
    if (geoSearch) {
        QList<QByteArray> cmd{"GEOSEARCH", q.key};
        if (q.fromMember)
            cmd << "FROMMEMBER" << q.member;
        else
            cmd << "FROMLONLAT" << num(q.centre.lon) << num(q.centre.lat);
        if (q.byBox)
            cmd << "BYBOX" << num(q.width) << num(q.height) << unit;
        else
            cmd << "BYRADIUS" << num(q.radius) << unit;
        return cmd + tail;
    }
    if (q.byBox)
        return {};
    // The _RO forms: plain GEORADIUS counts as a write (it has STORE) and read-only connections
    // refuse it.
    if (q.fromMember)
        return QList<QByteArray>{"GEORADIUSBYMEMBER_RO", q.key, q.member, num(q.radius), unit} + tail;
    return QList<QByteArray>{"GEORADIUS_RO", q.key, num(q.centre.lon), num(q.centre.lat), num(q.radius), unit} + tail;
}

QList<GeoMember> parseGeoSearchReply(const RedisValue &reply, bool *ok)
{
    QList<GeoMember> out;
    bool good = reply.isArray();
    if (good) {
        out.reserve(reply.size());
        for (const RedisValue &e : reply.elements()) {
            if (!e.isArray() || e.size() < 3 || !e.at(2).isArray() || e.at(2).size() < 2) {
                good = false;
                break;
            }
            GeoMember m;
            m.member = e.at(0).bytes();
            bool a = false, b = false, c = false;
            m.distance = e.at(1).toDouble(&a);
            m.pos.lon = e.at(2).at(0).toDouble(&b);
            m.pos.lat = e.at(2).at(1).toDouble(&c);
            good = a && b && c;
            if (!good)
                break;
            out.append(m);
        }
    }
    if (ok)
        *ok = good;
    return good ? out : QList<GeoMember>{};
}

QList<GeoMember> parseScoredMembers(const RedisValue &reply)
{
    QList<GeoMember> out;
    if (!reply.isArray())
        return out;
    const auto add = [&out](const RedisValue &member, const RedisValue &score) {
        bool ok = false;
        const double s = score.toDouble(&ok);
        if (ok && geohash::isValidScore(s))
            out.append(GeoMember{member.bytes(), geohash::decodeScore(s), -1});
    };
    const QList<RedisValue> &e = reply.elements();
    if (!e.isEmpty() && e.first().isArray()) { // RESP3: [member, score] pairs
        out.reserve(e.size());
        for (const RedisValue &pair : e)
            if (pair.size() >= 2)
                add(pair.at(0), pair.at(1));
    } else {
        out.reserve(e.size() / 2);
        for (qsizetype i = 0; i + 1 < e.size(); i += 2)
            add(e.at(i), e.at(i + 1));
    }
    return out;
}

namespace {
bool hasGeoSearch(const RedisClient *client)
{
    const QVersionNumber v = client->facts().version;
    return v.isNull() || v >= QVersionNumber(6, 2);
}

QList<double> scoresOf(const RedisValue &reply, QList<QByteArray> *members)
{
    QList<double> scores;
    const QList<RedisValue> &e = reply.elements();
    const auto add = [&](const RedisValue &m, const RedisValue &s) {
        bool ok = false;
        const double v = s.toDouble(&ok);
        scores.append(ok ? v : std::nan(""));
        if (members)
            members->append(m.bytes());
    };
    if (!e.isEmpty() && e.first().isArray()) {
        for (const RedisValue &pair : e)
            if (pair.size() >= 2)
                add(pair.at(0), pair.at(1));
    } else {
        for (qsizetype i = 0; i + 1 < e.size(); i += 2)
            add(e.at(i), e.at(i + 1));
    }
    return scores;
}
} // namespace

// --- GeoDetectReader ---

GeoDetectReader::GeoDetectReader(RedisClient *client, QObject *parent)
    : QObject(parent), m_client(client), m_pace(new QTimer(this))
{
    // Paced: a round of a few keys every 50 ms is at most ~500 commands a second.
    m_pace->setSingleShot(true);
    m_pace->setInterval(50);
    connect(m_pace, &QTimer::timeout, this, &GeoDetectReader::round);
}

void GeoDetectReader::addKeys(const QList<QByteArray> &zsetKeys)
{
    for (const QByteArray &k : zsetKeys) {
        if (m_seen.size() >= kMaxKeys)
            break;
        if (m_seen.contains(k))
            continue;
        m_seen.insert(k);
        m_queue.append(k);
    }
    if (!m_busy && !m_pace->isActive() && !m_queue.isEmpty())
        m_pace->start(0);
}

void GeoDetectReader::restart()
{
    ++m_generation;
    m_queue.clear();
    m_seen.clear();
    m_verdicts.clear();
    m_busy = false;
    m_pace->stop();
}

bool GeoDetectReader::isIdle() const
{
    return !m_busy && m_queue.isEmpty();
}

QList<QByteArray> GeoDetectReader::keysOfKind(ZSetKind kind) const
{
    QList<QByteArray> out;
    for (auto it = m_verdicts.cbegin(); it != m_verdicts.cend(); ++it)
        if (it.value() == kind)
            out.append(it.key());
    std::sort(out.begin(), out.end());
    return out;
}

void GeoDetectReader::round()
{
    if (m_queue.isEmpty()) {
        Q_EMIT idle();
        return;
    }
    const QList<QByteArray> keys = m_queue.mid(0, kKeysPerRound);
    m_queue.remove(0, keys.size());
    QList<RedisCommand> cmds;
    for (const QByteArray &k : keys) {
        cmds.append({"ZRANGE", k, "0", "4", "WITHSCORES"});
        cmds.append({"ZRANGE", k, "-1", "-1", "WITHSCORES"});
    }
    m_busy = true;
    const int generation = m_generation;
    m_client->sendBatch(cmds, this, [this, keys, generation](const RedisReply &r) {
        if (generation != m_generation)
            return;
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        struct Candidate
        {
            QByteArray key;
            QList<double> scores;
            QList<QByteArray> members;
        };
        QList<Candidate> geoCandidates;
        for (qsizetype i = 0; i < keys.size(); ++i) {
            const RedisValue &low = r.value(2 * i);
            const RedisValue &high = r.value(2 * i + 1);
            if (!low.isArray() || !high.isArray() || low.size() == 0)
                continue; // gone, changed type or refused: no verdict
            Candidate c{keys.at(i), {}, {}};
            c.scores = scoresOf(low, &c.members);
            c.scores += scoresOf(high, nullptr);
            // Without positions the verdict is never Geo; with made-up consistent ones it is
            // Geo exactly when the scores allow it. Only those need GEOPOS.
            QList<std::optional<GeoPoint>> assumed;
            for (qsizetype j = 0; j < c.members.size(); ++j)
                assumed.append(geohash::decodeScore(c.scores.at(j)));
            if (classifyZSetSample(c.scores, assumed, now) == ZSetKind::Geo) {
                geoCandidates.append(c);
            } else {
                const ZSetKind kind = classifyZSetSample(c.scores, {}, now);
                m_verdicts.insert(c.key, kind);
                Q_EMIT verdict(c.key, kind);
            }
        }
        const auto next = [this] {
            m_busy = false;
            if (m_queue.isEmpty())
                Q_EMIT idle();
            else
                m_pace->start();
        };
        if (geoCandidates.isEmpty()) {
            next();
            return;
        }
        QList<RedisCommand> geopos;
        for (const Candidate &c : geoCandidates)
            geopos.append(QList<QByteArray>{"GEOPOS", c.key} + c.members);
        m_client->sendBatch(geopos, this, [this, geoCandidates, generation, now, next](const RedisReply &g) {
            if (generation != m_generation)
                return;
            for (qsizetype i = 0; i < geoCandidates.size(); ++i) {
                const Candidate &c = geoCandidates.at(i);
                const RedisValue &v = g.value(i);
                QList<std::optional<GeoPoint>> positions;
                if (v.isArray()) {
                    for (const RedisValue &p : v.elements()) {
                        bool a = false, b = false;
                        GeoPoint pt{p.at(0).toDouble(&a), p.at(1).toDouble(&b)};
                        positions.append(p.isArray() && p.size() >= 2 && a && b ? std::optional<GeoPoint>(pt)
                                                                                : std::nullopt);
                    }
                }
                const ZSetKind kind = classifyZSetSample(c.scores, positions, now);
                m_verdicts.insert(c.key, kind);
                Q_EMIT verdict(c.key, kind);
            }
            next();
        });
    });
}

// --- GeoSampleReader ---

GeoSampleReader::GeoSampleReader(RedisClient *client, QObject *parent) : QObject(parent), m_client(client)
{ }

void GeoSampleReader::cancel()
{
    delete m_context;
    m_loading = false;
}

void GeoSampleReader::load(const QByteArray &key)
{
    cancel();
    m_context = new QObject(this);
    m_key = key;
    m_loading = true;
    m_client->send({"ZCARD", key}, m_context, [this](const RedisReply &r) {
        if (const RedisError e = r.firstError()) {
            m_loading = false;
            Q_EMIT failed(e.message);
            return;
        }
        fetch(r.value().toInteger());
    });
    m_client->send({"MEMORY", "USAGE", key}, m_context, [this, key](const RedisReply &r) {
        Q_EMIT memoryAvailable(key, r.value().isInteger() ? r.value().toInteger() : -1);
    });
}

void GeoSampleReader::findLargest(const QList<QByteArray> &keys)
{
    if (keys.isEmpty())
        return;
    QList<RedisCommand> cmds;
    for (const QByteArray &k : keys)
        cmds.append({"ZCARD", k});
    m_client->sendBatch(cmds, this, [this, keys](const RedisReply &r) {
        qint64 best = -1;
        QByteArray key = keys.first();
        for (qsizetype i = 0; i < keys.size(); ++i) {
            const qint64 n = r.value(i).isInteger() ? r.value(i).toInteger() : -1;
            if (n > best) {
                best = n;
                key = keys.at(i);
            }
        }
        Q_EMIT largestAvailable(key);
    });
}

void GeoSampleReader::fetch(qint64 zcard)
{
    GeoSample base;
    base.key = m_key;
    base.zcard = zcard;
    QList<RedisCommand> cmds;
    if (zcard <= kLoadAll) {
        for (qint64 a = 0; a < zcard; a += kWindow)
            cmds.append({"ZRANGE", m_key, QByteArray::number(a), QByteArray::number(a + kWindow - 1), "WITHSCORES"});
    } else if (hasGeoSearch(m_client)) {
        // A positive count: distinct members, chosen uniformly by the server.
        base.sampled = true;
        cmds.append({"ZRANDMEMBER", m_key, QByteArray::number(kSample), "WITHSCORES"});
    } else {
        // Before 6.2: windows at ranks spread over the set. Ranks follow the geohash, so each
        // window is a patch of the map; many small ones keep the picture even.
        base.sampled = true;
        constexpr int kWindows = 50;
        for (int i = 0; i < kWindows; ++i) {
            const qint64 start = zcard * i / kWindows;
            cmds.append({"ZRANGE", m_key, QByteArray::number(start), QByteArray::number(start + kSample / kWindows - 1),
                         "WITHSCORES"});
        }
    }
    if (cmds.isEmpty()) {
        finish(base);
        return;
    }
    m_client->sendBatch(cmds, m_context, [this, base](const RedisReply &r) {
        if (const RedisError e = r.firstError()) {
            m_loading = false;
            Q_EMIT failed(e.message);
            return;
        }
        GeoSample s = base;
        for (const RedisValue &v : r.values)
            s.points += parseScoredMembers(v);
        finish(s);
    });
}

void GeoSampleReader::finish(const GeoSample &sample)
{
    m_loading = false;
    Q_EMIT sampleAvailable(sample);
}

// --- GeoSearchReader ---

GeoSearchReader::GeoSearchReader(RedisClient *client, QObject *parent) : QObject(parent), m_client(client)
{ }

void GeoSearchReader::search(const GeoQuery &query)
{
    delete m_searchContext;
    m_searchContext = new QObject(this);
    const QList<QByteArray> cmd = geoSearchCommand(query, hasGeoSearch(m_client));
    if (cmd.isEmpty()) {
        Q_EMIT failed(tr("A box search needs Redis 6.2 or later (GEOSEARCH); use a radius."));
        return;
    }
    m_client->send(cmd, m_searchContext, [this, query](const RedisReply &r) {
        if (const RedisError e = r.firstError()) {
            Q_EMIT failed(e.message);
            return;
        }
        bool ok = false;
        const QList<GeoMember> results = parseGeoSearchReply(r.value(), &ok);
        if (!ok) {
            Q_EMIT failed(tr("Unexpected reply to %1")
                              .arg(QString::fromUtf8(geoSearchCommand(query, hasGeoSearch(m_client)).value(0))));
            return;
        }
        Q_EMIT resultsAvailable(query, results);
    });
}

void GeoSearchReader::distance(const QByteArray &key, const QByteArray &a, const QByteArray &b, GeoUnit unit)
{
    m_client->send({"GEODIST", key, a, b, geoUnitArg(unit)}, this, [this, a, b, unit](const RedisReply &r) {
        if (const RedisError e = r.firstError()) {
            Q_EMIT failed(e.message);
            return;
        }
        bool ok = false;
        const double d = r.value().toDouble(&ok);
        Q_EMIT distanceAvailable(a, b, ok ? d : -1, unit);
    });
}
