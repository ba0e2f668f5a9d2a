// SPDX-License-Identifier: GPL-3.0-or-later
#include "queuerules.h"

#include "bytesescape.h"
#include "geo.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace {

qint64 nowMsDefault(qint64 nowMs)
{
    return nowMs > 0 ? nowMs : QDateTime::currentMSecsSinceEpoch();
}

QList<QByteArray> segmentsOf(const QByteArray &key)
{
    QList<QByteArray> out;
    QByteArray current;
    for (char c : key) {
        if (c == ':' || c == '.' || c == '/') {
            out.append(current);
            current.clear();
        } else {
            current.append(c);
        }
    }
    out.append(current);
    return out;
}

// The first segment of 'key' that is one of 'hints' (case-insensitive), or -1.
int segmentIndex(const QList<QByteArray> &segments, const QList<QByteArray> &hints)
{
    for (int i = 0; i < segments.size(); ++i) {
        const QByteArray lower = segments.at(i).toLower();
        if (hints.contains(lower))
            return i;
    }
    return -1;
}

// The key up to (not including) segment 'index', separators kept as they were.
QByteArray prefixBefore(const QByteArray &key, int index)
{
    int seen = 0;
    for (int i = 0; i < key.size(); ++i) {
        const char c = key.at(i);
        if (c == ':' || c == '.' || c == '/') {
            if (++seen == index)
                return key.left(i);
        }
    }
    return {};
}

QByteArray processingParent(const QByteArray &key)
{
    const QList<QByteArray> segments = segmentsOf(key);
    const int at = segmentIndex(segments, QueueRules::processingSegments());
    if (at > 0)
        return prefixBefore(key, at);
    const qsizetype cut = key.lastIndexOf(':');
    return cut > 0 ? key.left(cut) : QByteArray();
}

QString unitName(EpochUnit unit)
{
    return unit == EpochUnit::Seconds ? QStringLiteral("seconds") : QStringLiteral("milliseconds");
}

} // namespace

QString queueKindName(QueueKind kind)
{
    switch (kind) {
    case QueueKind::Queue: return QStringLiteral("queue");
    case QueueKind::ProcessingList: return QStringLiteral("processing list");
    case QueueKind::DelayedJobs: return QStringLiteral("delayed jobs");
    case QueueKind::NotAQueue: break;
    }
    return QStringLiteral("not a queue");
}

QByteArray queueKindId(QueueKind kind)
{
    switch (kind) {
    case QueueKind::Queue: return "queue";
    case QueueKind::ProcessingList: return "processing";
    case QueueKind::DelayedJobs: return "delayed";
    case QueueKind::NotAQueue: break;
    }
    return "none";
}

std::optional<QueueKind> queueKindFromId(const QByteArray &id)
{
    for (QueueKind k : {QueueKind::Queue, QueueKind::ProcessingList, QueueKind::DelayedJobs, QueueKind::NotAQueue}) {
        if (queueKindId(k) == id)
            return k;
    }
    return std::nullopt;
}

std::optional<QueueKind> queueKindOf(PatternKind kind)
{
    switch (kind) {
    case PatternKind::ListQueue: return QueueKind::Queue;
    case PatternKind::ProcessingList: return QueueKind::ProcessingList;
    case PatternKind::DelayedJobs: return QueueKind::DelayedJobs;
    case PatternKind::Unknown: return QueueKind::NotAQueue;
    default: return std::nullopt;
    }
}

PatternKind patternKindOf(QueueKind kind)
{
    switch (kind) {
    case QueueKind::Queue: return PatternKind::ListQueue;
    case QueueKind::ProcessingList: return PatternKind::ProcessingList;
    case QueueKind::DelayedJobs: return PatternKind::DelayedJobs;
    case QueueKind::NotAQueue: break;
    }
    return PatternKind::Unknown;
}
namespace {

double scaleOf(EpochUnit unit)
{
    switch (unit) {
    case EpochUnit::Seconds: return 0.001;
    case EpochUnit::Microseconds: return 1000;
    case EpochUnit::Nanoseconds: return 1e6;
    case EpochUnit::MsTimes4096: return 4096;
    case EpochUnit::Milliseconds:
    case EpochUnit::None: break;
    }
    return 1;
}

} // namespace

QString epochUnitName(EpochUnit unit)
{
    switch (unit) {
    case EpochUnit::Seconds: return QStringLiteral("s");
    case EpochUnit::Milliseconds: return QStringLiteral("ms");
    case EpochUnit::Microseconds: return QStringLiteral("µs");
    case EpochUnit::Nanoseconds: return QStringLiteral("ns");
    case EpochUnit::MsTimes4096: return QStringLiteral("ms × 4096");
    case EpochUnit::None: break;
    }
    return {};
}

qint64 dueMsOf(double score, EpochUnit unit)
{
    if (unit == EpochUnit::Seconds)
        return qint64(score * 1000);
    return qint64(std::floor(score / scaleOf(unit)));
}

QByteArray scoreAtMs(qint64 ms, EpochUnit unit)
{
    switch (unit) {
    case EpochUnit::Seconds: return QByteArray::number(ms / 1000);
    case EpochUnit::Microseconds: return QByteArray::number(ms * 1000);
    case EpochUnit::Nanoseconds: return QByteArray::number(ms * 1000000);
    case EpochUnit::MsTimes4096: return QByteArray::number(ms * 4096 + 4095); // the whole millisecond
    case EpochUnit::Milliseconds:
    case EpochUnit::None: break;
    }
    return QByteArray::number(ms);
}

EpochUnit detectEpochUnit(const QList<double> &scores, qint64 nowMs)
{
    const double scale = epochScoreScale(scores, nowMs);
    for (EpochUnit u : {EpochUnit::Seconds, EpochUnit::Milliseconds, EpochUnit::Microseconds, EpochUnit::Nanoseconds,
                        EpochUnit::MsTimes4096}) {
        if (scale != 0 && scaleOf(u) == scale)
            return u;
    }
    return EpochUnit::None;
}

std::optional<qint64> itemTimestampMs(const QByteArray &item, qint64 nowMs, QString *source)
{
    nowMs = nowMsDefault(nowMs);
    const auto asEpoch = [nowMs](double v, QString *unit) -> std::optional<qint64> {
        const EpochUnit u = detectEpochUnit({v}, nowMs);
        if (u == EpochUnit::None)
            return std::nullopt;
        *unit = epochUnitName(u);
        return dueMsOf(v, u);
    };
    QString unit;
    const QByteArray trimmed = item.trimmed();
    if (trimmed.startsWith('{')) {
        const QJsonObject o = QJsonDocument::fromJson(trimmed).object();
        for (const char *field : {"enqueued_at", "created_at", "queued_at", "ts", "timestamp", "time"}) {
            const QJsonValue v = o.value(QLatin1String(field));
            double d = qQNaN();
            if (v.isDouble())
                d = v.toDouble();
            else if (v.isString())
                d = v.toString().toDouble();
            if (std::isnan(d))
                continue;
            if (const auto ms = asEpoch(d, &unit)) {
                if (source)
                    *source = QLatin1String(field) + QStringLiteral(" (") + unit + QLatin1Char(')');
                return ms;
            }
        }
        return std::nullopt;
    }
    qsizetype digits = 0;
    while (digits < trimmed.size()
           && (std::isdigit(static_cast<unsigned char>(trimmed.at(digits))) || trimmed.at(digits) == '.'))
        ++digits;
    if (digits >= 9) {
        bool ok = false;
        const double d = trimmed.left(digits).toDouble(&ok);
        if (ok) {
            if (const auto ms = asEpoch(d, &unit)) {
                if (source)
                    *source = QStringLiteral("leading number (") + unit + QLatin1Char(')');
                return ms;
            }
        }
    }
    return std::nullopt;
}

// ---- rules ----

const QList<QByteArray> &QueueRules::queueSegments()
{
    static const QList<QByteArray> s{"q", "queue", "queues", "jobs", "tasks", "inbox", "outbox", "mail", "email"};
    return s;
}

const QList<QByteArray> &QueueRules::processingSegments()
{
    static const QList<QByteArray> s{"processing", "proc", "inflight", "working"};
    return s;
}

const QList<QByteArray> &QueueRules::delayedSegments()
{
    static const QList<QByteArray> s{"sched", "scheduled", "schedule", "delayed", "due", "retry", "retries"};
    return s;
}

QStringList QueueRules::builtInDescriptions()
{
    const auto join = [](const QList<QByteArray> &l) { return QString::fromLatin1(l.join(", ")); };
    return {QStringLiteral("list with a name segment %1 → processing list of the name before it")
                .arg(join(processingSegments())),
            QStringLiteral("list with a name segment %1 → queue").arg(join(queueSegments())),
            QStringLiteral("sorted set whose sampled scores are epoch seconds or milliseconds (±10 years) and whose "
                           "name has a segment %1, or whose highest score is in the future → delayed jobs")
                .arg(join(delayedSegments())),
            QStringLiteral("anything else → not a queue")};
}

QueueClassification QueueRules::classify(const QByteArray &key, KeyType type, const QList<double> *scores,
                                         qint64 nowMs) const
{
    nowMs = nowMsDefault(nowMs);
    QueueClassification c;
    const EpochUnit unit = scores ? detectEpochUnit(*scores, nowMs) : EpochUnit::None;
    if (const PatternRule *r = m_rules.match(key, type)) {
        const std::optional<QueueKind> kind = queueKindOf(r->kind);
        c.kind = kind.value_or(QueueKind::NotAQueue);
        const QString verdict = kind
            ? queueKindName(*kind)
            : QStringLiteral("not a queue: a rule says it is a %1").arg(patternKindName(r->kind));
        c.reason = QStringLiteral("rule %1: glob '%2' %3 → %4")
                       .arg(QString::number(m_rules.indexOf(r) + 1), bytesescape::escape(r->glob),
                            patternRuleTypeId(r->type), verdict);
        if (!r->note.isEmpty())
            c.reason += QStringLiteral(" (") + r->note + QLatin1Char(')');
        if (c.kind == QueueKind::ProcessingList)
            c.queue = processingParent(key);
        if (c.kind == QueueKind::DelayedJobs) {
            // A forced set whose scores are not epoch times: guess the unit from the magnitude.
            double high = 0;
            if (scores) {
                for (double s : *scores)
                    high = qMax(high, std::abs(s));
            }
            c.unit = unit != EpochUnit::None ? unit : (high >= 1e11 ? EpochUnit::Milliseconds : EpochUnit::Seconds);
        }
        return c;
    }

    const QList<QByteArray> segments = segmentsOf(key);
    if (type == KeyType::List) {
        const int proc = segmentIndex(segments, processingSegments());
        if (proc > 0) {
            c.kind = QueueKind::ProcessingList;
            c.queue = prefixBefore(key, proc);
            c.reason = QStringLiteral("list named with segment '%1' (built-in rule): processing list of %2")
                           .arg(QString::fromLatin1(segments.at(proc)), bytesescape::quoteIfNeeded(c.queue));
            return c;
        }
        const int q = segmentIndex(segments, queueSegments());
        if (q >= 0) {
            c.kind = QueueKind::Queue;
            c.reason = QStringLiteral("list named with segment '%1' (built-in rule)")
                           .arg(QString::fromLatin1(segments.at(q)));
            return c;
        }
        c.reason = QStringLiteral("list without a queue name segment (built-in rule)");
        return c;
    }
    if (type == KeyType::ZSet) {
        if (!scores) {
            c.reason = QStringLiteral("sorted set not sampled");
            return c;
        }
        if (unit == EpochUnit::None) {
            c.reason = QStringLiteral("scores are not epoch times (%1 sampled)").arg(scores->size());
            return c;
        }
        const QString what
            = QStringLiteral("scores are epoch %1 (%2 of %2 sampled)").arg(unitName(unit)).arg(scores->size());
        const int hint = segmentIndex(segments, delayedSegments());
        double highest = -qInf();
        for (double s : *scores)
            highest = qMax(highest, s);
        const bool future = dueMsOf(highest, unit) > nowMs;
        c.unit = unit;
        // The scores decide that these are times; the name (or a due time still ahead) decides
        // they are due times, not a log of past events such as a sliding-window rate limit.
        if (hint >= 0) {
            c.kind = QueueKind::DelayedJobs;
            c.reason = what + QStringLiteral(", name segment '%1'").arg(QString::fromLatin1(segments.at(hint)));
        } else if (future) {
            c.kind = QueueKind::DelayedJobs;
            c.reason = what + QStringLiteral(", some due in the future");
        } else {
            c.reason = what + QStringLiteral(", all in the past and no scheduling name: a time log");
        }
        return c;
    }
    c.reason = QStringLiteral("%1: only lists and sorted sets are queues here").arg(keyTypeName(type));
    return c;
}
