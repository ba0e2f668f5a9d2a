// SPDX-License-Identifier: GPL-3.0-or-later
#include "ratelimitsreader.h"

#include "boundedread.h"
#include "redisclient.h"

#include <QDateTime>

#include <cmath>

namespace {

qint64 localNow()
{
    return QDateTime::currentMSecsSinceEpoch();
}

// An epoch time in ms: numbers that look like seconds are scaled.
qint64 epochMs(double v)
{
    if (!std::isfinite(v) || v <= 0)
        return -1;
    return v < 1e11 ? qint64(v * 1000) : qint64(v);
}

// The score of a one-member ZRANGE … WITHSCORES reply, flat (RESP2) or nested (RESP3).
qint64 edgeScore(const RedisValue &v)
{
    if (!v.isArray() || v.size() == 0)
        return -1;
    bool ok = false;
    const double score = v.at(0).isArray() ? v.at(0).at(1).toDouble(&ok) : v.at(1).toDouble(&ok);
    return ok ? qint64(score) : -1;
}

} // namespace

RateLimitsReader::RateLimitsReader(RedisClient *client, QObject *parent)
    : PollingReader(client, kRefreshMs, WhileBusy::Queue, BeforeMatches::Read, parent)
{ }

const LimiterInfo *RateLimitsReader::limiter(const QString &name) const
{
    for (const LimiterInfo &l : m_analysis.limiters)
        if (l.name == name)
            return &l;
    return nullptr;
}

const CallerState *RateLimitsReader::caller(const QByteArray &key) const
{
    for (const CallerState &c : m_analysis.callers)
        if (c.key == key)
            return &c;
    return nullptr;
}

void RateLimitsReader::setMatches(const QList<PatternMatch> &matches)
{
    m_matches.clear();
    m_params.clear();
    for (const PatternMatch &m : matches) {
        if (m.kind != PatternKind::FixedWindow && m.kind != PatternKind::SlidingWindow
            && m.kind != PatternKind::TokenBucket)
            continue;
        if (m_matches.size() >= kMaxKeys)
            break;
        m_matches.append(m);
        if (!m.params.isEmpty() && !m_params.contains(m.family))
            m_params.insert(m.family, m.params);
    }
    matchesChanged();
}

void RateLimitsReader::startRound()
{
    m_reading.clear();
    m_sliding.clear();
    const qint64 sent = localNow();
    m_client->send(RedisCommand{"TIME"}, context(), [this, sent](const RedisReply &r) {
        const qint64 local = (sent + localNow()) / 2;
        const RedisValue &t = r.value();
        if (r.ok() && t.isArray() && t.size() == 2)
            m_clockOffset = t.at(0).toInteger() * 1000 + t.at(1).toInteger() / 1000 - local;
        else
            m_clockOffset = 0; // no +time: our clock it is
        boundedread::inBatches(
            m_client, context(), int(m_matches.size()), kBatch,
            [this](int from, int to) { return keyCommands(from, to); },
            [this](int from, int to, const RedisReply &reply, qint64 sentAt) {
                if (failOn(reply))
                    return false;
                readKeys(from, to, reply, sentAt);
                return true;
            },
            [this] { findSlidingWindows(); });
    });
}

bool RateLimitsReader::failOn(const RedisReply &reply)
{
    RedisError e = reply.error;
    if (!e.isError()) {
        for (const RedisValue &v : reply.values) {
            const RedisError k = RedisError::fromReply(v);
            if (k.kind == RedisError::Kind::NoPerm) {
                e = k;
                break;
            }
        }
    }
    if (!e.isError())
        return false;
    fail(e.kind == RedisError::Kind::NoPerm
             ? tr("%1 (the rate limits panel needs +get +pttl +zcard +zrange +zcount +hmget)").arg(e.message)
             : e.message);
    return true;
}

QList<RedisCommand> RateLimitsReader::keyCommands(int from, int to, QList<int> *first) const
{
    QList<RedisCommand> cmds;
    for (int i = from; i < to; ++i) {
        const PatternMatch &m = m_matches.at(i);
        if (first)
            first->append(int(cmds.size()));
        switch (m.kind) {
        case PatternKind::SlidingWindow:
            cmds.append({"ZCARD", m.key});
            cmds.append({"PTTL", m.key});
            cmds.append({"ZRANGE", m.key, "0", "0", "WITHSCORES"});
            cmds.append({"ZRANGE", m.key, "-1", "-1", "WITHSCORES"});
            break;
        case PatternKind::TokenBucket:
            // token_bucket.lua writes tokens and last_refill; ts and updated_at are what others use.
            cmds.append({"HMGET", m.key, "tokens", "last_refill", "ts", "updated_at"});
            cmds.append({"PTTL", m.key});
            break;
        default:
            cmds.append({"GET", m.key});
            cmds.append({"PTTL", m.key});
            break;
        }
    }
    return cmds;
}

void RateLimitsReader::readKeys(int from, int to, const RedisReply &r, qint64 sent)
{
    QList<int> first; // each key's first command
    keyCommands(from, to, &first);
    const qint64 serverAt = sent + m_clockOffset;
    for (int i = from; i < to; ++i) {
        const PatternMatch &m = m_matches.at(i);
        const int c = first.at(i - from);
        CallerState s;
        s.key = m.key;
        s.limiter = m.family.isEmpty() ? QString::fromUtf8(m.key) : m.family;
        s.kind = m.kind == PatternKind::SlidingWindow ? LimiterKind::SlidingWindow
            : m.kind == PatternKind::TokenBucket      ? LimiterKind::TokenBucket
                                                      : LimiterKind::FixedWindow;
        s.caller = rateLimitCaller(m.key, m.family, s.kind, &s.window);
        s.readAtMs = sent;
        s.serverReadAtMs = serverAt;
        s.pttlMs = ttl::fromReply(r.value(c + 1));
        if (s.pttlMs == -2)
            continue; // gone since the scan
        const RedisValue &main = r.value(c);
        if (main.isError()) {
            s.error = QString::fromUtf8(main.bytes());
            m_reading.append(s);
            continue;
        }
        switch (s.kind) {
        case LimiterKind::FixedWindow: {
            bool ok = false;
            s.count = main.toInteger(&ok);
            if (!ok)
                s.error = tr("not a counter");
            break;
        }
        case LimiterKind::SlidingWindow:
            s.total = main.toInteger();
            s.count = s.total;
            s.oldestMs = edgeScore(r.value(c + 2));
            s.newestMs = edgeScore(r.value(c + 3));
            m_sliding << int(m_reading.size());
            break;
        case LimiterKind::TokenBucket: {
            bool ok = false;
            const double tokens = main.at(0).toDouble(&ok);
            if (ok)
                s.tokens = tokens;
            for (qsizetype f = 1; f < main.size() && s.lastRefillMs < 0; ++f) {
                const double v = main.at(f).toDouble(&ok);
                if (ok)
                    s.lastRefillMs = epochMs(v);
            }
            if (s.lastRefillMs > 0)
                s.refillAgeMs = qMax<qint64>(0, serverAt - s.lastRefillMs);
            break;
        }
        }
        m_reading.append(s);
    }
}

// The windows of the sliding logs, then what lies inside them.
void RateLimitsReader::findSlidingWindows()
{
    QHash<QString, QList<CallerState>> logs;
    for (int i : std::as_const(m_sliding))
        logs[m_reading.at(i).limiter].append(m_reading.at(i));
    m_slidingWindow.clear();
    for (auto it = logs.cbegin(); it != logs.cend(); ++it) {
        bool ok = false;
        const qint64 rule = m_params.value(it.key()).value(QStringLiteral("window_ms")).toLongLong(&ok);
        if (ok && rule > 0)
            m_slidingWindow.insert(it.key(), rule);
        else if (const auto w = inferSlidingWindowMs(it.value(), localNow() + m_clockOffset))
            m_slidingWindow.insert(it.key(), *w);
    }
    boundedread::inBatches(
        m_client, context(), int(m_sliding.size()), kBatch,
        [this](int from, int to) {
            const qint64 now = localNow() + m_clockOffset;
            QList<RedisCommand> cmds;
            for (int i : countable(from, to)) {
                const CallerState &s = m_reading.at(i);
                const qint64 window = m_slidingWindow.value(s.limiter);
                // Inside: (now - window, now], as sliding_window_limit.lua trims. Untrimmed: at or
                // before (newest - window), which the last write should have removed.
                cmds.append({"ZCOUNT", s.key, "(" + QByteArray::number(now - window), "+inf"});
                cmds.append({"ZCOUNT", s.key, "-inf", QByteArray::number(s.newestMs - window)});
            }
            return cmds;
        },
        [this](int from, int to, const RedisReply &r, qint64) {
            if (failOn(r))
                return false;
            const QList<int> counted = countable(from, to);
            for (qsizetype k = 0; k < counted.size(); ++k) {
                CallerState &s = m_reading[counted.at(k)];
                const RedisValue &inside = r.value(2 * k);
                const RedisValue &stale = r.value(2 * k + 1);
                if (inside.isInteger())
                    s.count = inside.toInteger();
                if (stale.isInteger())
                    s.untrimmed = stale.toInteger();
            }
            return true;
        },
        [this] { finishRound(); });
}

// Only logs whose window is known get counted; the rest show ZCARD.
QList<int> RateLimitsReader::countable(int from, int to) const
{
    QList<int> out;
    for (int k = from; k < to; ++k) {
        const CallerState &s = m_reading.at(m_sliding.at(k));
        if (m_slidingWindow.value(s.limiter, -1) > 0 && s.total > 0)
            out << m_sliding.at(k);
    }
    return out;
}

void RateLimitsReader::finishRound()
{
    m_analysis = analyzeRateLimits(m_reading, m_params, localNow() + m_clockOffset);
    m_reading.clear();
    m_sliding.clear();
    Q_EMIT rateLimitsAvailable(m_analysis);
    roundDone();
}
