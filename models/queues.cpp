// SPDX-License-Identifier: GPL-3.0-or-later
#include "queues.h"

#include "bytesescape.h"
#include "format.h"

#include <QDateTime>

#include <cmath>

namespace {

QString peek(const QByteArray &item)
{
    if (item.size() > QueuesModel::kPeekBytes)
        return bytesescape::escape(item.left(QueuesModel::kPeekBytes)) + QStringLiteral("…");
    return bytesescape::escape(item);
}

QString ageText(qint64 ms)
{
    return ms < 0 ? QStringLiteral("—") : format::duration(ms);
}

QString timeText(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

} // namespace

// ---- infos ----

qint64 QueueInfo::oldestProcessingAgeMs() const
{
    qint64 oldest = -1;
    for (const ProcessingListInfo &p : processing)
        oldest = qMax(oldest, p.oldestAgeMs);
    return oldest;
}

bool QueueInfo::stale() const
{
    for (const ProcessingListInfo &p : processing) {
        if (p.stale)
            return true;
    }
    return false;
}

qint64 QueueInfo::processingItems() const
{
    qint64 n = 0;
    for (const ProcessingListInfo &p : processing)
        n += p.length;
    return n;
}

QStringList DelayedInfo::bucketLabels()
{
    return {QStringLiteral("overdue"), QStringLiteral("≤1m"),  QStringLiteral("≤5m"),  QStringLiteral("≤15m"),
            QStringLiteral("≤1h"),     QStringLiteral("≤24h"), QStringLiteral("later")};
}

// ---- models ----

Severity QueuesModel::severityOf(const QueueInfo &queue)
{
    return queue.stale() ? Severity::Bad : Severity::None;
}

QVariant QueuesModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    const QueueInfo &q = rows().at(index.row());
    switch (role) {
    case KeyRole: return q.key;
    case SeverityRole: return int(severityOf(q));
    case TypeRole: return int(KeyType::List);
    case Qt::ToolTipRole: return QString(QStringLiteral("classified as queue because ") + q.reason);
    case Qt::TextAlignmentRole:
        if (index.column() >= LengthColumn && index.column() <= OldestColumn && index.column() != HeadColumn
            && index.column() != TailColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::DisplayRole:
    case SortRole: break;
    default: return {};
    }
    const bool sort = role == SortRole;
    switch (index.column()) {
    case KeyColumn: return bytesescape::quoteIfNeeded(q.key);
    case LengthColumn: return sort ? QVariant(q.length) : QVariant(format::count(quint64(q.length)));
    case GrowthColumn:
        if (sort)
            return std::isnan(q.growthPerMin) ? 0.0 : q.growthPerMin;
        return std::isnan(q.growthPerMin) ? QStringLiteral("—")
                                          : QStringLiteral("%1%2/min")
                                                .arg(q.growthPerMin > 0 ? QStringLiteral("+") : QString())
                                                .arg(q.growthPerMin, 0, 'f', 1);
    case HeadColumn: return peek(q.head);
    case TailColumn: return peek(q.tail);
    case ProcessingColumn:
        if (sort)
            return q.processingItems();
        return q.processing.isEmpty()
            ? QStringLiteral("—")
            : QStringLiteral("%1 (%2 items)").arg(q.processing.size()).arg(q.processingItems());
    case OldestColumn: return sort ? QVariant(q.oldestProcessingAgeMs()) : QVariant(ageText(q.oldestProcessingAgeMs()));
    case StaleColumn: return q.stale() ? QStringLiteral("stale") : QString();
    case ReasonColumn: return q.reason;
    }
    return {};
}

QVariant QueuesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case KeyColumn: return tr("Queue");
    case LengthColumn: return tr("Length");
    case GrowthColumn: return tr("Growth");
    case HeadColumn: return tr("Head (newest)");
    case TailColumn: return tr("Tail (oldest)");
    case ProcessingColumn: return tr("Processing");
    case OldestColumn: return tr("Oldest in processing");
    case StaleColumn: return tr("Stale");
    case ReasonColumn: return tr("Classified because");
    }
    return {};
}

ProcessingListsModel::ProcessingListsModel(QObject *parent)
    : RowTableModel<ProcessingListInfo>(
        {
            {tr("Processing list"),
             [](const ProcessingListInfo &p, int role) -> QVariant {
                 return role == Qt::DisplayRole ? QVariant(bytesescape::quoteIfNeeded(p.key)) : QVariant();
             }},
            {tr("Items"),
             [](const ProcessingListInfo &p, int role) -> QVariant {
                 switch (role) {
                 case RowTableRoles::SortRole: return p.length;
                 case Qt::DisplayRole: return format::count(quint64(p.length));
                 }
                 return {};
             }},
            {tr("Oldest item age"),
             [](const ProcessingListInfo &p, int role) -> QVariant {
                 switch (role) {
                 case RowTableRoles::SortRole: return p.oldestAgeMs;
                 case Qt::DisplayRole:
                     if (p.oldestAgeMs < 0)
                         return tr("no timestamp");
                     return QString(format::duration(p.oldestAgeMs) + (p.stale ? tr(" — stale") : QString()));
                 }
                 return {};
             }},
            {tr("Read from"),
             [](const ProcessingListInfo &p, int role) -> QVariant {
                 if (role != Qt::DisplayRole)
                     return {};
                 return p.ageSource.isEmpty() ? tr("—") : p.ageSource;
             }},
            {tr("Oldest item (tail)"),
             [](const ProcessingListInfo &p, int role) -> QVariant {
                 return role == Qt::DisplayRole ? QVariant(peek(p.tail)) : QVariant();
             }},
        },
        {[](const ProcessingListInfo &p) { return p.key; },
         [](const ProcessingListInfo &p) { return p.stale ? Severity::Bad : Severity::None; },
         [](const ProcessingListInfo &) { return KeyType::List; }},
        parent)
{ }

Severity DelayedModel::severityOf(const DelayedInfo &set)
{
    return set.overdue > 0 ? Severity::Warning : Severity::None;
}

QVariant DelayedModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    const DelayedInfo &d = rows().at(index.row());
    switch (role) {
    case KeyRole: return d.key;
    case SeverityRole: return int(severityOf(d));
    case TypeRole: return int(KeyType::ZSet);
    case Qt::ToolTipRole: return QString(QStringLiteral("classified as delayed jobs because ") + d.reason);
    case Qt::DisplayRole:
    case SortRole: break;
    default: return {};
    }
    const bool sort = role == SortRole;
    switch (index.column()) {
    case KeyColumn: return bytesescape::quoteIfNeeded(d.key);
    case TotalColumn: return sort ? QVariant(d.total) : QVariant(format::count(quint64(d.total)));
    case OverdueColumn: return sort ? QVariant(d.overdue) : QVariant(format::count(quint64(d.overdue)));
    case OldestColumn: return sort ? QVariant(d.oldestOverdueAgeMs) : QVariant(ageText(d.oldestOverdueAgeMs));
    case NextColumn:
        if (d.next.isEmpty())
            return sort ? QVariant(qint64(0)) : QVariant(QStringLiteral("—"));
        return sort ? QVariant(d.next.first().dueMs) : QVariant(timeText(d.next.first().dueMs));
    case ReasonColumn: return d.reason;
    }
    return {};
}

QVariant DelayedModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case KeyColumn: return tr("Sorted set");
    case TotalColumn: return tr("Jobs");
    case OverdueColumn: return tr("Due now");
    case OldestColumn: return tr("Oldest overdue");
    case NextColumn: return tr("Next due");
    case ReasonColumn: return tr("Classified because");
    }
    return {};
}

QVariant DueItemsModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    const DueItem &it = rows().at(index.row());
    switch (role) {
    case KeyRole: return it.member;
    case SortRole: return it.dueMs;
    case SeverityRole: return int(it.dueMs < now() ? Severity::Warning : Severity::None);
    case Qt::ToolTipRole:
        if (index.column() == MemberColumn)
            return bytesescape::escapeElided(it.member, 2000);
        return {};
    case Qt::DisplayRole: break;
    default: return {};
    }
    switch (index.column()) {
    case DueColumn: return timeText(it.dueMs);
    case InColumn:
        return it.dueMs >= now() ? QString(QStringLiteral("in ") + format::duration(it.dueMs - now()))
                                 : QString(format::duration(now() - it.dueMs) + QStringLiteral(" ago"));
    case MemberColumn: return peek(it.member);
    }
    return {};
}

QVariant DueItemsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case DueColumn: return tr("Due");
    case InColumn: return tr("When");
    case MemberColumn: return tr("Job");
    }
    return {};
}
