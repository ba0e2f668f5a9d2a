// SPDX-License-Identifier: GPL-3.0-or-later
#include "ratelimits.h"

#include "boundedread.h"
#include "bytesescape.h"
#include "format.h"
#include "redisclient.h"

#include <QDateTime>
#include <QMap>

#include <algorithm>

namespace {

constexpr qint64 kTenYearsMs = 10LL * 365 * 24 * 3600 * 1000;

qint64 localNow()
{
    return QDateTime::currentMSecsSinceEpoch();
}

bool allDigits(const QByteArray &s)
{
    if (s.isEmpty())
        return false;
    for (char c : s) {
        if (c < '0' || c > '9')
            return false;
    }
    return true;
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

qint64 median(QList<qint64> v)
{
    std::sort(v.begin(), v.end());
    return v.at((v.size() - 1) / 2);
}

qint64 snapToSeconds(qint64 ms)
{
    return ms >= 10000 ? (ms + 500) / 1000 * 1000 : ms;
}

int severityOf(const CallerState &c)
{
    if (c.flags & (CallerState::NoTtl | CallerState::Untrimmed))
        return 3;
    if (c.flags & CallerState::OverLimit)
        return 2;
    if (c.flags & CallerState::AtLimit)
        return 1;
    return 0;
}

} // namespace

QString limiterKindName(LimiterKind kind)
{
    switch (kind) {
    case LimiterKind::FixedWindow: return QObject::tr("fixed window");
    case LimiterKind::SlidingWindow: return QObject::tr("sliding log");
    case LimiterKind::TokenBucket: return QObject::tr("token bucket");
    }
    return {};
}

double CallerState::pressure() const
{
    if (kind == LimiterKind::TokenBucket) {
        if (std::isnan(tokens))
            return -1;
        if (capacity > 0)
            return qBound(0.0, (capacity - tokens) / capacity, 1.0);
        return tokens < 1 ? 1.0 : -1;
    }
    if (limit <= 0 || count < 0)
        return -1;
    return double(count) / double(limit);
}

QString CallerState::flagsText() const
{
    QStringList parts;
    if (flags & NoTtl) {
        switch (kind) {
        case LimiterKind::FixedWindow: parts << QObject::tr("counter without TTL: caller locked out for ever"); break;
        case LimiterKind::SlidingWindow: parts << QObject::tr("log without TTL"); break;
        case LimiterKind::TokenBucket: parts << QObject::tr("bucket without TTL"); break;
        }
    }
    if (flags & Untrimmed)
        parts << (untrimmed == 1 ? QObject::tr("1 member older than the window not trimmed")
                                 : QObject::tr("%1 members older than the window not trimmed").arg(untrimmed));
    if (flags & OverLimit)
        parts << QObject::tr("over limit");
    else if (flags & AtLimit)
        parts << (kind == LimiterKind::TokenBucket ? QObject::tr("bucket empty") : QObject::tr("at limit"));
    if (!error.isEmpty())
        parts << error;
    return parts.join(QStringLiteral(" · "));
}

QString LimiterInfo::note() const
{
    if (kind != LimiterKind::FixedWindow)
        return {};
    const QString burst = limit > 0 ? QObject::tr("up to %1 requests (2 × %2)").arg(2 * limit).arg(limit)
                                    : QObject::tr("up to 2 × the limit");
    return QObject::tr("Boundary burst: a caller can make %1 across a window edge, the full limit at the end of "
                       "one window and again at the start of the next.")
        .arg(burst);
}

std::optional<qint64> inferCeiling(const QList<qint64> &maxima, int *atCeiling)
{
    QMap<qint64, int> freq;
    int n = 0;
    for (qint64 v : maxima) {
        if (v > 0) {
            ++freq[v];
            ++n;
        }
    }
    if (freq.size() == 0)
        return std::nullopt;
    // A ceiling is a pile: many callers at one value, far more than share any other value.
    // The highest such pile wins, so light callers all at 1 or 2 requests do not pose as a limit.
    const int needed = qMax(kMinCallersAtCeiling, (n + 9) / 10);
    for (auto it = freq.constEnd(); it != freq.constBegin();) {
        --it;
        const int f = it.value();
        if (f < needed)
            continue;
        const int others = int(freq.size()) - 1;
        const double meanOther = others > 0 ? double(n - f) / others : 0;
        if (f >= 3 * meanOther) {
            if (atCeiling)
                *atCeiling = f;
            return it.key();
        }
    }
    return std::nullopt;
}

QByteArray rateLimitCaller(const QByteArray &key, const QString &family, LimiterKind kind, QByteArray *window)
{
    QByteArray rest;
    const qsizetype brace = family.indexOf(QLatin1Char('{'));
    if (brace > 0) {
        QByteArray lit = family.left(brace).toUtf8();
        lit.truncate(lit.lastIndexOf(':') + 1);
        if (!lit.isEmpty() && key.startsWith(lit))
            rest = key.mid(lit.size());
    }
    if (rest.isEmpty()) {
        // No usable family: the id starts at the first segment with a digit in it.
        const QList<QByteArray> segments = key.split(':');
        qsizetype first = segments.size() - 1;
        for (qsizetype i = 0; i < segments.size(); ++i) {
            if (std::any_of(segments.at(i).begin(), segments.at(i).end(),
                            [](char c) { return c >= '0' && c <= '9'; })) {
                first = i;
                break;
            }
        }
        rest = segments.mid(first).join(':');
    }
    if (kind == LimiterKind::FixedWindow) {
        const qsizetype colon = rest.lastIndexOf(':');
        if (colon > 0 && allDigits(rest.mid(colon + 1))) {
            if (window)
                *window = rest.mid(colon + 1);
            rest.truncate(colon);
        }
    }
    return rest;
}

std::optional<qint64> inferSlidingWindowMs(const QList<CallerState> &callers, qint64 serverNowMs)
{
    QList<qint64> estimates;
    for (const CallerState &c : callers) {
        if (c.pttlMs > 0 && c.newestMs > 0) {
            const qint64 at = c.serverReadAtMs > 0 ? c.serverReadAtMs : serverNowMs;
            estimates.append(c.pttlMs + qMax<qint64>(0, at - c.newestMs));
        }
    }
    if (estimates.isEmpty())
        return std::nullopt;
    return snapToSeconds(median(estimates));
}

std::optional<qint64> inferFixedWindowMs(const QList<QByteArray> &windows, qint64 serverNowMs)
{
    qint64 newest = 0;
    for (const QByteArray &w : windows) {
        bool ok = false;
        const qint64 n = w.toLongLong(&ok);
        if (ok)
            newest = qMax(newest, n);
    }
    if (newest <= 0 || serverNowMs <= 0)
        return std::nullopt;
    // A window start written as an epoch time says nothing about the length.
    if (qAbs(newest - serverNowMs) < kTenYearsMs || qAbs(newest * 1000 - serverNowMs) < kTenYearsMs)
        return std::nullopt;
    const qint64 w = serverNowMs / newest;
    if (w < 100 || w > 31LL * 24 * 3600 * 1000)
        return std::nullopt;
    return snapToSeconds(w);
}

RateLimitAnalysis analyzeRateLimits(const QList<CallerState> &rawKeys, const QHash<QString, QVariantMap> &params,
                                    qint64 serverNowMs)
{
    RateLimitAnalysis out;
    QStringList order;
    QHash<QString, QList<CallerState>> byLimiter;
    for (const CallerState &c : rawKeys) {
        if (!byLimiter.contains(c.limiter))
            order << c.limiter;
        byLimiter[c.limiter].append(c);
    }
    for (const QString &name : std::as_const(order)) {
        const QList<CallerState> &keys = byLimiter[name];
        const QVariantMap p = params.value(name);
        LimiterInfo info;
        info.name = name;
        info.kind = keys.first().kind;

        // One row per caller; for fixed windows the newest window, the maximum over all of them.
        QList<CallerState> rows;
        QHash<QByteArray, qsizetype> rowOf;
        QHash<QByteArray, qint64> maxOf;
        QList<QByteArray> windows;
        for (const CallerState &c : keys) {
            windows << c.window;
            maxOf[c.caller] = qMax(maxOf.value(c.caller, -1), c.count);
            const auto it = rowOf.constFind(c.caller);
            if (it == rowOf.constEnd()) {
                rowOf.insert(c.caller, rows.size());
                rows.append(c);
            } else if (c.window.toLongLong() > rows.at(*it).window.toLongLong()) {
                rows[*it] = c;
            }
        }
        info.callers = int(rows.size());

        // The window.
        bool ok = false;
        const qint64 ruleWindow = p.value(QStringLiteral("window_ms")).toLongLong(&ok);
        if (ok && ruleWindow > 0) {
            info.windowMs = ruleWindow;
            info.windowSource = QObject::tr("rule");
        } else if (info.kind == LimiterKind::FixedWindow) {
            if (const auto w = inferFixedWindowMs(windows, serverNowMs)) {
                info.windowMs = *w;
                info.windowSource = QObject::tr("inferred from the window number");
            } else {
                qint64 longest = -1;
                for (const CallerState &c : keys)
                    longest = qMax(longest, c.pttlMs);
                if (longest > 0) {
                    info.windowMs = snapToSeconds((longest + 999) / 1000 * 1000);
                    info.windowSource = QObject::tr("at least: the longest TTL");
                }
            }
        } else if (info.kind == LimiterKind::SlidingWindow) {
            if (const auto w = inferSlidingWindowMs(keys, serverNowMs)) {
                info.windowMs = *w;
                info.windowSource = QObject::tr("inferred from TTLs at the last write");
            }
        }
        if (info.windowMs <= 0 && info.kind != LimiterKind::TokenBucket)
            info.windowSource = QObject::tr("unknown");

        // The limit.
        const qint64 ruleLimit = p.value(QStringLiteral("limit")).toLongLong(&ok);
        if (info.kind == LimiterKind::TokenBucket) {
            const double cap = p.value(QStringLiteral("capacity")).toDouble(&ok);
            if (ok && cap > 0) {
                info.capacity = cap;
                info.limit = qint64(cap);
                info.limitSource = QObject::tr("capacity %1 (rule)").arg(cap);
            } else {
                info.limitSource = QObject::tr("capacity unknown (add a rule with \"capacity\")");
            }
            for (const char *name : {"rate", "refill_per_sec"}) {
                const double r = p.value(QLatin1String(name)).toDouble(&ok);
                if (ok && r > 0)
                    info.refillPerSec = r;
            }
        } else if (ok && ruleLimit > 0) {
            info.limit = ruleLimit;
            info.limitSource = QObject::tr("%1 (rule)").arg(ruleLimit);
        } else {
            int at = 0;
            const QList<qint64> maxima = maxOf.values();
            if (const auto c = inferCeiling(maxima, &at)) {
                info.limit = *c;
                info.limitSource
                    = QObject::tr("%1 (inferred: %2 of %3 callers stop at %1)").arg(*c).arg(at).arg(info.callers);
            } else {
                info.limitSource = QObject::tr("unknown (no common ceiling; add a rule with \"limit\")");
            }
        }

        for (CallerState &c : rows) {
            c.limit = info.limit;
            c.windowMs = info.windowMs;
            c.capacity = info.capacity;
            c.flags = 0;
            if (c.pttlMs == -1)
                c.flags |= CallerState::NoTtl;
            if (c.untrimmed > 0)
                c.flags |= CallerState::Untrimmed;
            if (c.kind == LimiterKind::TokenBucket) {
                if (!std::isnan(c.tokens) && c.tokens < 1)
                    c.flags |= CallerState::AtLimit;
            } else if (c.limit > 0 && c.count >= c.limit) {
                c.flags |= CallerState::AtLimit;
                if (c.count > c.limit)
                    c.flags |= CallerState::OverLimit;
            }
            info.atLimit += (c.flags & CallerState::AtLimit) ? 1 : 0;
            info.overLimit += (c.flags & CallerState::OverLimit) ? 1 : 0;
            info.noTtl += (c.flags & CallerState::NoTtl) ? 1 : 0;
            info.untrimmed += (c.flags & CallerState::Untrimmed) ? 1 : 0;
        }
        out.callers << rows;
        out.limiters << info;
    }
    std::stable_sort(out.callers.begin(), out.callers.end(), [](const CallerState &a, const CallerState &b) {
        if (a.pressure() != b.pressure())
            return a.pressure() > b.pressure();
        if (severityOf(a) != severityOf(b))
            return severityOf(a) > severityOf(b);
        if (a.count != b.count)
            return a.count > b.count;
        return a.key < b.key;
    });
    std::stable_sort(out.limiters.begin(), out.limiters.end(), [](const LimiterInfo &a, const LimiterInfo &b) {
        const int pa = a.noTtl + a.untrimmed, pb = b.noTtl + b.untrimmed;
        if ((pa > 0) != (pb > 0))
            return pa > 0;
        if (a.atLimit != b.atLimit)
            return a.atLimit > b.atLimit;
        return a.name < b.name;
    });
    return out;
}

// ---- limiters model ----

LimitersModel::LimitersModel(QObject *parent)
    : RowListModel([](const LimiterInfo &l) { return l.name; }, ColumnCount, -1, parent)
{ }

QVariant LimitersModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    const LimiterInfo &l = rows().at(index.row());
    if (role == NameRole)
        return l.name;
    if (role == SeverityRole)
        return l.noTtl + l.untrimmed > 0 ? 3 : l.overLimit > 0 ? 2 : l.atLimit > 0 ? 1 : 0;
    if (role == Qt::ToolTipRole) {
        if (index.column() == NoteColumn)
            return QStringList{data(index, Qt::DisplayRole).toString(), l.note()}.join(QLatin1Char('\n')).trimmed();
        if (index.column() == WindowColumn)
            return l.windowSource;
        if (index.column() == LimitColumn)
            return l.limitSource;
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case NameColumn: return l.name;
    case KindColumn: return limiterKindName(l.kind);
    case CallersColumn: return l.callers;
    case LimitColumn: return l.limitSource;
    case WindowColumn:
        if (l.kind == LimiterKind::TokenBucket)
            return std::isnan(l.refillPerSec) ? QString() : tr("refills %1/s").arg(l.refillPerSec);
        return l.windowMs > 0 ? format::duration(l.windowMs) : tr("unknown");
    case AtLimitColumn:
        if (l.overLimit > 0)
            return tr("%1 at or over (%2 over)").arg(l.atLimit).arg(l.overLimit);
        return l.atLimit > 0 ? tr("%1 at limit").arg(l.atLimit) : QStringLiteral("0");
    case NoteColumn: {
        QStringList parts;
        if (l.noTtl > 0) {
            parts << (l.kind == LimiterKind::FixedWindow
                          ? (l.noTtl == 1 ? tr("1 counter without TTL: locked out for ever")
                                          : tr("%1 counters without TTL: locked out for ever").arg(l.noTtl))
                          : (l.noTtl == 1 ? tr("1 key without TTL") : tr("%1 keys without TTL").arg(l.noTtl)));
        }
        if (l.untrimmed > 0)
            parts << (l.untrimmed == 1 ? tr("1 log with untrimmed members")
                                       : tr("%1 logs with untrimmed members").arg(l.untrimmed));
        if (l.kind == LimiterKind::FixedWindow) // the whole sentence is in the tooltip and the panel
            parts << (l.limit > 0 ? tr("boundary burst: up to %1 across a window edge").arg(2 * l.limit)
                                  : tr("boundary burst: up to 2 × the limit across a window edge"));
        return parts.join(QStringLiteral(" · "));
    }
    default: return {};
    }
}

QVariant LimitersModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Limiter");
    case KindColumn: return tr("Kind");
    case CallersColumn: return tr("Callers");
    case LimitColumn: return tr("Limit");
    case WindowColumn: return tr("Window");
    case AtLimitColumn: return tr("At / over limit");
    case NoteColumn: return tr("Findings and notes");
    default: return {};
    }
}

// ---- callers model ----

CallersModel::CallersModel(QObject *parent)
    : RowListModel([](const CallerState &c) { return c.key; }, ColumnCount, RemainingColumn, parent)
{ }

QVariant CallersModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    const CallerState &c = rows().at(index.row());
    switch (role) {
    case KeyRole: return c.key;
    case LimiterRole: return c.limiter;
    case SeverityRole: return severityOf(c);
    case PressureSeverityRole: return c.pressure() > 1 ? 2 : c.pressure() >= 1 ? 1 : 0;
    case TypeRole:
        return int(c.kind == LimiterKind::FixedWindow         ? KeyType::String
                       : c.kind == LimiterKind::SlidingWindow ? KeyType::ZSet
                                                              : KeyType::Hash);
    case Qt::ToolTipRole:
        if (index.column() == CallerColumn)
            return bytesescape::escape(c.key);
        if (index.column() == FlagsColumn && (c.flags & CallerState::Untrimmed))
            return tr("The last write should have removed every member at or before (newest − window); these "
                      "were left behind, so the log grows.");
        if (index.column() == FlagsColumn && (c.flags & CallerState::NoTtl) && c.kind == LimiterKind::FixedWindow)
            return tr("INCR without an expiry: the counter never resets, so a caller over the limit stays "
                      "refused for ever.");
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() >= UsedColumn && index.column() <= RemainingColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::DisplayRole: break;
    default: return {};
    }
    switch (index.column()) {
    case CallerColumn: return bytesescape::escape(c.caller);
    case LimiterColumn: return c.limiter;
    case UsedColumn:
        if (c.kind == LimiterKind::TokenBucket)
            return std::isnan(c.tokens) ? tr("?") : tr("%1 tokens").arg(c.tokens, 0, 'f', 1);
        return c.count < 0 ? tr("?") : format::count(quint64(c.count));
    case LimitColumn:
        if (c.kind == LimiterKind::TokenBucket)
            return c.capacity > 0 ? QString::number(c.capacity) : tr("?");
        return c.limit > 0 ? format::count(quint64(c.limit)) : tr("?");
    case PressureColumn: {
        const double p = c.pressure();
        return p < 0 ? QStringLiteral("–") : QStringLiteral("%1 %").arg(qRound(p * 100));
    }
    case RemainingColumn: {
        if (c.pttlMs == ttl::kUnknown)
            return tr("unknown");
        if (c.pttlMs == -1)
            return tr("no TTL");
        return format::ttl(ttl::expireAt(c.pttlMs, c.readAtMs), now() ? now() : c.readAtMs);
    }
    case DetailColumn:
        switch (c.kind) {
        case LimiterKind::FixedWindow:
            return c.window.isEmpty() ? QString() : tr("window %1").arg(QString::fromLatin1(c.window));
        case LimiterKind::SlidingWindow: return tr("%1 logged").arg(c.total);
        case LimiterKind::TokenBucket:
            return c.refillAgeMs < 0 ? tr("last refill unknown")
                                     : tr("refilled %1 ago").arg(format::duration(c.refillAgeMs));
        }
        return {};
    case FlagsColumn: return c.flagsText();
    default: return {};
    }
}

QVariant CallersModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case CallerColumn: return tr("Caller");
    case LimiterColumn: return tr("Limiter");
    case UsedColumn: return tr("Count / tokens");
    case LimitColumn: return tr("Limit");
    case PressureColumn: return tr("Pressure");
    case RemainingColumn: return tr("Window left / TTL");
    case DetailColumn: return tr("Detail");
    case FlagsColumn: return tr("Flags");
    default: return {};
    }
}

// ---- loader ----

RateLimitsLoader::RateLimitsLoader(RedisClient *client, QObject *parent)
    : PollingReader(client, kRefreshMs, WhileBusy::Queue, BeforeMatches::Read, parent),
      m_limiters(new LimitersModel(this)),
      m_callers(new CallersModel(this))
{ }

void RateLimitsLoader::setMatches(const QList<PatternMatch> &matches)
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

void RateLimitsLoader::startRound()
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

bool RateLimitsLoader::failOn(const RedisReply &reply)
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

QList<RedisCommand> RateLimitsLoader::keyCommands(int from, int to, QList<int> *first) const
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

void RateLimitsLoader::readKeys(int from, int to, const RedisReply &r, qint64 sent)
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
void RateLimitsLoader::findSlidingWindows()
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
QList<int> RateLimitsLoader::countable(int from, int to) const
{
    QList<int> out;
    for (int k = from; k < to; ++k) {
        const CallerState &s = m_reading.at(m_sliding.at(k));
        if (m_slidingWindow.value(s.limiter, -1) > 0 && s.total > 0)
            out << m_sliding.at(k);
    }
    return out;
}

void RateLimitsLoader::finishRound()
{
    const RateLimitAnalysis a = analyzeRateLimits(m_reading, m_params, localNow() + m_clockOffset);
    m_reading.clear();
    m_sliding.clear();
    m_limiters->setRows(a.limiters);
    m_callers->setRows(a.callers);
    m_callers->setNow(localNow());
    roundDone();
}
