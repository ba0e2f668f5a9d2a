// SPDX-License-Identifier: GPL-3.0-or-later
#include "leaderboardreader.h"

#include "bytesescape.h"
#include "format.h"
#include "redisclient.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace {

const QVersionNumber kRangeRev(6, 2);
const QVersionNumber kZUnion(6, 2);
const QVersionNumber kRankWithScore(7, 2);

QByteArray scoreArg(double v)
{
    if (std::isinf(v))
        return v > 0 ? QByteArrayLiteral("+inf") : QByteArrayLiteral("-inf");
    // 17 significant digits survive the server's strtod exactly, so adjacent buckets share
    // the very same edge and no member falls between them.
    return QByteArray::number(v, 'g', 17);
}

bool versionKnownAtLeast(const QVersionNumber &version, const QVersionNumber &needed)
{
    return !version.isNull() && version >= needed;
}

} // namespace

// --- LeaderboardReader ----------------------------------------------------------------

LeaderboardReader::LeaderboardReader(RedisClient *client, QObject *parent) : QObject(parent), m_client(client)
{
    qRegisterMetaType<BoardHeader>();
    qRegisterMetaType<MemberSearch>();
    qRegisterMetaType<ScoreHistogram>();
    qRegisterMetaType<BoardUnion>();
    qRegisterMetaType<LeaderboardPage>();
}

QVersionNumber LeaderboardReader::serverVersion() const
{
    return m_versionOverride.isNull() ? m_client->facts().version : m_versionOverride;
}

RedisCommand LeaderboardReader::rangeCommand(const QByteArray &key, qint64 start, qint64 stop, bool descending,
                                             const QVersionNumber &version)
{
    const QByteArray a = QByteArray::number(start), b = QByteArray::number(stop);
    if (!descending)
        return {"ZRANGE", key, a, b, "WITHSCORES"};
    // ZREVRANGE is deprecated since 6.2 but still the only form older servers know, and the
    // safe choice when the version is hidden.
    if (versionKnownAtLeast(version, kRangeRev))
        return {"ZRANGE", key, a, b, "REV", "WITHSCORES"};
    return {"ZREVRANGE", key, a, b, "WITHSCORES"};
}

RedisCommand LeaderboardReader::rankCommand(const QByteArray &key, const QByteArray &member, bool descending,
                                            const QVersionNumber &version)
{
    RedisCommand cmd{descending ? QByteArrayLiteral("ZREVRANK") : QByteArrayLiteral("ZRANK"), key, member};
    if (versionKnownAtLeast(version, kRankWithScore))
        cmd.append("WITHSCORE");
    return cmd;
}

QString LeaderboardReader::unionUnavailable(const QVersionNumber &version)
{
    // Unknown version: ZUNION is tried and an "unknown command" reply says the same thing.
    if (version.isNull() || version >= kZUnion)
        return {};
    return tr("Needs Redis 6.2 (ZUNION); this server is %1. ZUNIONSTORE would write a key, so boards are not "
              "combined.")
        .arg(version.toString());
}

QList<ScoreHistogram::Bucket> LeaderboardReader::bucketsFor(double min, double max, int count)
{
    QList<ScoreHistogram::Bucket> out;
    if (!(min <= max) || std::isinf(min) || std::isinf(max))
        return out;
    if (min == max || count <= 1) {
        ScoreHistogram::Bucket b;
        b.low = min;
        b.high = max;
        b.lowInclusive = true;
        b.lowArg = scoreArg(min);
        b.highArg = scoreArg(max);
        out.append(b);
        return out;
    }
    // Interpolated rather than min + i * width: (max - min) overflows for scores near ±1e308.
    QList<double> edges;
    edges.append(min);
    for (int i = 1; i < count; ++i) {
        const double t = double(i) / count;
        double e = min * (1 - t) + max * t;
        e = std::clamp(e, edges.last(), max);
        edges.append(e);
    }
    edges.append(max);
    for (int i = 0; i < count; ++i) {
        ScoreHistogram::Bucket b;
        b.low = edges.at(i);
        b.high = edges.at(i + 1);
        b.lowInclusive = i == 0;
        b.lowArg = (b.lowInclusive ? QByteArray() : QByteArrayLiteral("(")) + scoreArg(b.low);
        b.highArg = scoreArg(b.high);
        out.append(b);
    }
    return out;
}

QList<LeaderboardEntry> LeaderboardReader::parseWithScores(const RedisValue &reply, qint64 firstRank)
{
    QList<LeaderboardEntry> out;
    if (!reply.isArray())
        return out;
    const auto add = [&](const RedisValue &member, const RedisValue &score) {
        LeaderboardEntry e;
        e.member = member.bytes();
        e.score = score.toDouble();
        // RESP2 scores are bulk strings: keep the server's spelling; RESP3 doubles carry it too.
        e.scoreText = score.bytes().isEmpty() ? QByteArray::number(e.score, 'g', 17) : score.bytes();
        e.rank = firstRank + out.size();
        out.append(e);
    };
    const auto &elements = reply.elements();
    if (!elements.isEmpty() && elements.first().isArray()) {
        for (const RedisValue &pair : elements) {
            if (pair.size() == 2)
                add(pair.at(0), pair.at(1));
        }
    } else {
        for (qsizetype i = 0; i + 1 < elements.size(); i += 2)
            add(elements.at(i), elements.at(i + 1));
    }
    return out;
}

void LeaderboardReader::send(const QList<RedisCommand> &commands, std::function<void(const RedisReply &)> done)
{
    ++m_pending;
    m_client->sendBatch(commands, this, [this, done = std::move(done)](const RedisReply &r) {
        --m_pending;
        done(r);
    });
}

void LeaderboardReader::setKey(const QByteArray &key)
{
    ++m_generation;
    m_key = key;
    m_header = BoardHeader();
    m_header.key = key;
    m_pageStart = 0;
    if (key.isNull())
        return;
    refreshHeader();
    loadPage(0);
    loadHistogram();
}

void LeaderboardReader::setDescending(bool descending)
{
    if (descending == m_descending)
        return;
    m_descending = descending;
    if (!m_key.isNull())
        loadPage(0);
}

void LeaderboardReader::setPageSize(int rows)
{
    m_pageSize = qBound(1, rows, 1000);
}

void LeaderboardReader::refreshHeader()
{
    const quint64 gen = m_generation;
    send({{"ZCARD", m_key}, {"MEMORY", "USAGE", m_key}, {"PTTL", m_key}}, [this, gen](const RedisReply &r) {
        if (gen != m_generation)
            return;
        BoardHeader h;
        h.key = m_key;
        if (!r.ok()) {
            h.error = r.error.message;
        } else if (r.value(0).isError()) {
            const RedisError e = RedisError::fromReply(r.value(0));
            h.error = e.kind == RedisError::Kind::WrongType
                ? tr("%1 is not a sorted set.").arg(bytesescape::quoteIfNeeded(m_key))
                : e.message;
        } else {
            h.cardinality = r.value(0).toInteger();
            const RedisError memError = RedisError::fromReply(r.value(1));
            h.memoryDenied = memError.isError();
            if (r.value(1).isInteger())
                h.memory = r.value(1).toInteger();
            if (r.value(2).isInteger())
                h.pttlMs = r.value(2).toInteger();
        }
        m_header = h;
        Q_EMIT headerAvailable(h);
    });
}

void LeaderboardReader::loadPage(qint64 start)
{
    if (m_key.isNull())
        return;
    start = qMax<qint64>(0, start);
    m_pageStart = start;
    requestWindow(start, start + m_pageSize - 1, QByteArray());
}

void LeaderboardReader::nextPage()
{
    if (m_header.cardinality >= 0 && m_pageStart + m_pageSize >= m_header.cardinality)
        return;
    loadPage(m_pageStart + m_pageSize);
}

void LeaderboardReader::previousPage()
{
    if (m_pageStart > 0)
        loadPage(m_pageStart - m_pageSize);
}

void LeaderboardReader::requestWindow(qint64 start, qint64 stop, const QByteArray &highlight)
{
    const quint64 gen = m_generation;
    const quint64 request = ++m_pageRequest;
    const bool descending = m_descending;
    // One row more on each side, so a tie that crosses the page edge is still marked.
    const qint64 fetchStart = qMax<qint64>(0, start - 1);
    const RedisCommand cmd = rangeCommand(m_key, fetchStart, stop + 1, descending, serverVersion());
    send({cmd}, [this, gen, request, start, stop, descending, fetchStart, highlight](const RedisReply &r) {
        if (gen != m_generation || request != m_pageRequest)
            return;
        const RedisError error = r.firstError();
        if (error) {
            Q_EMIT pageFailed(error.message);
            return;
        }
        QList<LeaderboardEntry> rows = parseWithScores(r.value(), fetchStart);
        LeaderboardModel::markTies(rows);
        rows.erase(std::remove_if(rows.begin(), rows.end(),
                                  [&](const LeaderboardEntry &e) { return e.rank < start || e.rank > stop; }),
                   rows.end());
        Q_EMIT pageAvailable(LeaderboardPage{m_key, start, descending, highlight, rows});
    });
}

void LeaderboardReader::findMember(const QByteArray &member)
{
    if (m_key.isNull())
        return;
    const quint64 gen = m_generation;
    const bool descending = m_descending;
    const QVersionNumber version = serverVersion();
    const bool withScore = versionKnownAtLeast(version, kRankWithScore);
    QList<RedisCommand> cmds{rankCommand(m_key, member, descending, version)};
    if (!withScore)
        cmds.append({"ZSCORE", m_key, member});
    send(cmds, [this, gen, member, descending, withScore](const RedisReply &r) {
        if (gen != m_generation || descending != m_descending)
            return;
        MemberSearch s;
        s.member = member;
        const RedisError error = r.ok() ? RedisError::fromReply(r.value(0)) : r.error;
        if (error) {
            s.error = error.message;
        } else if (withScore && r.value(0).isArray() && r.value(0).size() == 2) {
            s.found = true;
            s.rank = r.value(0).at(0).toInteger();
            s.scoreText = r.value(0).at(1).bytes();
        } else if (!withScore && r.value(0).isInteger()) {
            s.found = true;
            s.rank = r.value(0).toInteger();
            s.scoreText = r.value(1).bytes();
        }
        Q_EMIT memberSearched(s);
        if (s.found) {
            m_pageStart = qMax<qint64>(0, s.rank - kNeighbours);
            requestWindow(m_pageStart, s.rank + kNeighbours, member);
        }
    });
}

void LeaderboardReader::loadHistogram()
{
    if (m_key.isNull())
        return;
    const quint64 gen = m_generation;
    // The extremes and the finite extremes: every read is one member at most.
    send({{"ZCARD", m_key},
          {"ZRANGE", m_key, "0", "0", "WITHSCORES"},
          {"ZRANGE", m_key, "-1", "-1", "WITHSCORES"},
          {"ZRANGEBYSCORE", m_key, "(-inf", "(+inf", "WITHSCORES", "LIMIT", "0", "1"},
          {"ZREVRANGEBYSCORE", m_key, "(+inf", "(-inf", "WITHSCORES", "LIMIT", "0", "1"}},
         [this, gen](const RedisReply &r) {
             if (gen != m_generation)
                 return;
             ScoreHistogram h;
             h.key = m_key;
             const RedisError error = r.firstError();
             if (error) {
                 h.error = error.message;
                 Q_EMIT histogramAvailable(h);
                 return;
             }
             h.cardinality = r.value(0).toInteger();
             const auto first = parseWithScores(r.value(1), 0);
             const auto last = parseWithScores(r.value(2), 0);
             const auto finiteMin = parseWithScores(r.value(3), 0);
             const auto finiteMax = parseWithScores(r.value(4), 0);
             const double inf = std::numeric_limits<double>::infinity();
             if (!first.isEmpty() && first.first().score == -inf) {
                 ScoreHistogram::Bucket b;
                 b.low = b.high = -inf;
                 b.lowInclusive = true;
                 b.lowArg = b.highArg = "-inf";
                 h.buckets.append(b);
             }
             if (!finiteMin.isEmpty() && !finiteMax.isEmpty())
                 h.buckets.append(bucketsFor(finiteMin.first().score, finiteMax.first().score, m_buckets));
             if (!last.isEmpty() && last.first().score == inf) {
                 ScoreHistogram::Bucket b;
                 b.low = b.high = inf;
                 b.lowInclusive = true;
                 b.lowArg = b.highArg = "+inf";
                 h.buckets.append(b);
             }
             countBuckets(h, gen);
         });
}

void LeaderboardReader::countBuckets(ScoreHistogram histogram, quint64 generation)
{
    if (histogram.buckets.isEmpty()) {
        Q_EMIT histogramAvailable(histogram);
        return;
    }
    QList<RedisCommand> cmds;
    for (const ScoreHistogram::Bucket &b : std::as_const(histogram.buckets))
        cmds.append({"ZCOUNT", m_key, b.lowArg, b.highArg});
    send(cmds, [this, histogram, generation](const RedisReply &r) mutable {
        if (generation != m_generation)
            return;
        const RedisError error = r.firstError();
        if (error)
            histogram.error = error.message;
        for (int i = 0; i < histogram.buckets.size(); ++i)
            histogram.buckets[i].count = r.value(i).isInteger() ? r.value(i).toInteger() : 0;
        Q_EMIT histogramAvailable(histogram);
    });
}

void LeaderboardReader::compare(const QList<QByteArray> &keys, int topN)
{
    const quint64 request = ++m_unionRequest;
    BoardUnion result;
    result.keys = keys;
    const QVersionNumber version = serverVersion();
    result.error = unionUnavailable(version);
    if (result.error.isEmpty() && keys.isEmpty())
        result.error = tr("Choose boards to combine.");
    if (!result.error.isEmpty()) {
        Q_EMIT unionAvailable(result);
        return;
    }
    QList<RedisCommand> cards;
    for (const QByteArray &k : keys)
        cards.append({"ZCARD", k});
    send(cards, [this, request, result, topN, version](const RedisReply &r) mutable {
        if (request != m_unionRequest)
            return;
        const RedisError error = r.firstError();
        if (error) {
            result.error = error.message;
            Q_EMIT unionAvailable(result);
            return;
        }
        result.inputSize = 0;
        for (int i = 0; i < result.keys.size(); ++i)
            result.inputSize += r.value(i).toInteger();
        // ZUNION has no LIMIT: the whole union comes back, so only small boards are combined.
        if (result.inputSize > kMaxUnionInput) {
            result.error = tr("Not combined: the boards hold %1 members together and ZUNION returns all of them "
                              "(limit %2).")
                               .arg(format::count(quint64(result.inputSize)), format::count(quint64(kMaxUnionInput)));
            Q_EMIT unionAvailable(result);
            return;
        }
        RedisCommand cmd{"ZUNION", QByteArray::number(result.keys.size())};
        cmd.append(result.keys);
        cmd.append("WITHSCORES");
        send({cmd}, [this, request, result, topN, version](const RedisReply &r2) mutable {
            if (request != m_unionRequest)
                return;
            const RedisError error = r2.firstError();
            if (error) {
                result.error = error.kind == RedisError::Kind::UnknownCommand
                    ? tr("Needs Redis 6.2 (ZUNION); this server is %1.")
                          .arg(version.isNull() ? tr("of unknown version") : version.toString())
                    : error.message;
                Q_EMIT unionAvailable(result);
                return;
            }
            // ZUNION answers lowest first (equal scores by member bytes); reversed that is
            // exactly the REV order of a stored board.
            QList<LeaderboardEntry> all = parseWithScores(r2.value(), 0);
            result.unionSize = all.size();
            std::reverse(all.begin(), all.end());
            if (all.size() > topN)
                all.resize(topN);
            for (int i = 0; i < all.size(); ++i)
                all[i].rank = i;
            LeaderboardModel::markTies(all);
            result.top = all;
            Q_EMIT unionAvailable(result);
        });
    });
}

void LeaderboardReader::loadCandidates(const QList<QByteArray> &keys)
{
    const quint64 request = ++m_candidateRequest;
    const QList<QByteArray> asked = keys.mid(0, kMaxCandidates);
    if (asked.isEmpty()) {
        Q_EMIT candidatesAvailable({});
        return;
    }
    QList<RedisCommand> cmds;
    for (const QByteArray &k : asked)
        cmds.append({"ZCARD", k});
    send(cmds, [this, request, asked](const RedisReply &r) {
        if (request != m_candidateRequest)
            return;
        QList<BoardSize> boards;
        for (int i = 0; i < asked.size(); ++i) {
            // Gone or no longer a sorted set: not a candidate any more.
            if (r.value(i).isInteger() && r.value(i).toInteger() > 0)
                boards.append({asked.at(i), r.value(i).toInteger()});
        }
        std::stable_sort(boards.begin(), boards.end(),
                         [](const BoardSize &a, const BoardSize &b) { return a.cardinality > b.cardinality; });
        Q_EMIT candidatesAvailable(boards);
    });
}
