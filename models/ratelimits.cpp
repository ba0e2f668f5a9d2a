// SPDX-License-Identifier: GPL-3.0-or-later
#include "ratelimits.h"

#include "bytesescape.h"
#include "format.h"

#include <QMap>

#include <algorithm>

namespace {

constexpr qint64 kTenYearsMs = 10LL * 365 * 24 * 3600 * 1000;

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

namespace {

// One row per caller; for fixed windows the newest window. 'maxOf' gets each caller's maximum
// count over all its windows, 'windows' every window number read.
QList<CallerState> oneRowPerCaller(const QList<CallerState> &keys, QHash<QByteArray, qint64> *maxOf,
                                   QList<QByteArray> *windows)
{
    QList<CallerState> rows;
    QHash<QByteArray, qsizetype> rowOf;
    for (const CallerState &c : keys) {
        *windows << c.window;
        (*maxOf)[c.caller] = qMax(maxOf->value(c.caller, -1), c.count);
        const auto it = rowOf.constFind(c.caller);
        if (it == rowOf.constEnd()) {
            rowOf.insert(c.caller, rows.size());
            rows.append(c);
        } else if (c.window.toLongLong() > rows.at(*it).window.toLongLong()) {
            rows[*it] = c;
        }
    }
    return rows;
}

// The window: the rule's, else inferred from the window numbers, the TTLs or the log scores.
void decideWindow(LimiterInfo &info, const QList<CallerState> &keys, const QList<QByteArray> &windows,
                  const QVariantMap &p, qint64 serverNowMs)
{
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
}

// The limit: the rule's (a bucket's capacity and refill rate), else the callers' common ceiling.
void decideLimit(LimiterInfo &info, const QHash<QByteArray, qint64> &maxOf, const QVariantMap &p)
{
    bool ok = false;
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
}

// Gives each caller its limiter's limit and window, flags it, and counts the flags on 'info'.
void flagCallers(QList<CallerState> &rows, LimiterInfo &info)
{
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
}

} // namespace

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
        QHash<QByteArray, qint64> maxOf;
        QList<QByteArray> windows;
        QList<CallerState> rows = oneRowPerCaller(keys, &maxOf, &windows);
        info.callers = int(rows.size());
        decideWindow(info, keys, windows, p, serverNowMs);
        decideLimit(info, maxOf, p);
        flagCallers(rows, info);
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
    if (role == KeyRole)
        return l.name.toUtf8();
    if (role == SeverityRole)
        return int(l.noTtl + l.untrimmed + l.overLimit > 0 ? Severity::Bad
                       : l.atLimit > 0                     ? Severity::Warning
                                                           : Severity::None);
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
    case SeverityRole:
        return int(severityOf(c) >= 2 ? Severity::Bad : severityOf(c) == 1 ? Severity::Warning : Severity::None);
    case PressureSeverityRole:
        return int(c.pressure() > 1 ? Severity::Bad : c.pressure() >= 1 ? Severity::Warning : Severity::None);
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
