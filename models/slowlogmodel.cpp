// SPDX-License-Identifier: GPL-3.0-or-later
#include "slowlogmodel.h"

#include "bytesescape.h"
#include "format.h"
#include "threadcheck.h"

#include <QDateTime>
#include <QSet>
#include <algorithm>
#include <cmath>
#include <utility>

// ---------------------------------------------------------------------------------------------
// Entries

SlowlogModel::SlowlogModel(QObject *parent) : QAbstractTableModel(parent), m_aggregate(new SlowlogAggregateModel(this))
{ }

SlowlogModel::~SlowlogModel() = default;

void SlowlogModel::setCapacity(int entries)
{
    m_capacity = qMax(1, entries);
    const int overflow = rowCount() - m_capacity;
    if (overflow <= 0)
        return;
    QList<SlowlogEntry> removed;
    beginRemoveRows({}, rowCount() - overflow, rowCount() - 1);
    for (int i = 0; i < overflow; ++i) {
        removed.append(std::move(m_rows.front().entry));
        m_rows.pop_front();
    }
    endRemoveRows();
    m_aggregate->update({}, removed);
}

void SlowlogModel::judgeRow(Row &row) const
{
    const SlowlogVerdict v = slowlogflags::judge(row.entry, row.entry.hasKey() ? keySize(row.entry.key()) : -1);
    row.flag = v.flag;
    row.reason = v.reason;
}

int SlowlogModel::append(const QList<SlowlogEntry> &entries, int epoch)
{
    return appendFrom(0, entries, epoch);
}

void SlowlogModel::setSourceNames(const QStringList &names)
{
    m_sourceNames = names;
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, NodeColumn), index(rowCount() - 1, NodeColumn));
}

int SlowlogModel::appendFrom(int source, const QList<SlowlogEntry> &entries, int epoch)
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    if (source < 0)
        return 0;
    if (m_marks.size() <= source)
        m_marks.resize(source + 1, {-1, -1});
    const auto [lastEpoch, lastId] = m_marks.at(source);
    QList<SlowlogEntry> fresh;
    for (const SlowlogEntry &e : entries) {
        if (epoch > lastEpoch || (epoch == lastEpoch && e.id > lastId))
            fresh.append(e);
    }
    if (fresh.isEmpty())
        return 0;
    std::sort(fresh.begin(), fresh.end(), [](const SlowlogEntry &a, const SlowlogEntry &b) { return a.id < b.id; });
    fresh.erase(std::unique(fresh.begin(), fresh.end(),
                            [](const SlowlogEntry &a, const SlowlogEntry &b) { return a.id == b.id; }),
                fresh.end());
    if (fresh.size() > m_capacity)
        fresh.remove(0, fresh.size() - m_capacity);

    // Oldest leave first (the bottom rows), then the new ones arrive on top.
    QList<SlowlogEntry> removed;
    const int overflow = rowCount() + int(fresh.size()) - m_capacity;
    if (overflow > 0) {
        beginRemoveRows({}, rowCount() - overflow, rowCount() - 1);
        for (int i = 0; i < overflow; ++i) {
            removed.append(std::move(m_rows.front().entry));
            m_rows.pop_front();
        }
        endRemoveRows();
    }
    beginInsertRows({}, 0, int(fresh.size()) - 1);
    for (const SlowlogEntry &e : std::as_const(fresh)) {
        Row row;
        row.entry = e;
        row.epoch = epoch;
        row.source = source;
        row.text = slowlog::displayText(e, kDisplayArgBytes, kDisplayChars);
        judgeRow(row);
        m_rows.push_back(std::move(row));
    }
    endInsertRows();
    m_marks[source] = {epoch, fresh.constLast().id};
    if (source != 0)
        m_manySources = true;
    m_aggregate->update(fresh, removed);
    return int(fresh.size());
}

void SlowlogModel::clear()
{
    m_manySources = false;
    if (m_rows.empty())
        return;
    beginResetModel();
    m_rows.clear();
    endResetModel();
    m_aggregate->clear();
}

void SlowlogModel::setKeySize(const QByteArray &key, qint64 size)
{
    m_keySizes.insert(key, size);
    int first = -1, last = -1;
    for (int r = 0; r < rowCount(); ++r) {
        Row &row = m_rows[m_rows.size() - 1 - std::size_t(r)];
        // Cheap test first: this runs over every row for every key size that arrives.
        if (row.entry.args.size() < 2 || row.entry.args.at(1) != key || slowlogflags::sizeCommand(row.entry).isEmpty())
            continue;
        const SlowlogFlag before = row.flag;
        const QString reason = row.reason;
        judgeRow(row);
        if (row.flag == before && row.reason == reason)
            continue;
        if (first < 0)
            first = r;
        last = r;
    }
    if (first >= 0)
        Q_EMIT dataChanged(index(first, 0), index(last, ColumnCount - 1));
}

void SlowlogModel::setProblemColor(const QColor &color)
{
    if (color == m_problemColor)
        return;
    m_problemColor = color;
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1), {Qt::ForegroundRole});
}

SlowlogVerdict SlowlogModel::verdictAt(int row) const
{
    const Row &r = rowAt(row);
    return SlowlogVerdict{r.flag, r.reason};
}

int SlowlogModel::rowOf(int epoch, qint64 id, int source) const
{
    if (m_manySources) {
        // Rows of several sources are in the order they were read: a walk (at most capacity()).
        for (std::size_t i = 0; i < m_rows.size(); ++i) {
            const Row &r = m_rows[i];
            if (r.source == source && r.epoch == epoch && r.entry.id == id)
                return int(m_rows.size() - 1 - i);
        }
        return -1;
    }
    if (source != 0)
        return -1;
    // Rows of one source are ordered by (epoch, id): binary search on the storage order.
    const auto it = std::lower_bound(
        m_rows.begin(), m_rows.end(), std::make_pair(epoch, id),
        [](const Row &r, const std::pair<int, qint64> &k) { return std::make_pair(r.epoch, r.entry.id) < k; });
    if (it == m_rows.end() || it->epoch != epoch || it->entry.id != id)
        return -1;
    return int(m_rows.end() - it) - 1;
}

int SlowlogModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int SlowlogModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SlowlogModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = rowAt(index.row());
    const SlowlogEntry &e = row.entry;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case IdColumn: return e.id;
        case TimeColumn: {
            const QDateTime t = QDateTime::fromSecsSinceEpoch(e.timestamp);
            return t.date() == QDate::currentDate() ? t.toString(QStringLiteral("HH:mm:ss"))
                                                    : t.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        }
        case DurationColumn: return durationText(e.durationUs);
        case CommandColumn: return row.text;
        case ClientColumn: return QString::fromLatin1(e.clientAddress);
        case NameColumn: return bytesescape::escape(e.clientName);
        case FlagColumn: return slowlogflags::label(row.flag);
        case NodeColumn: return m_sourceNames.value(row.source);
        }
        break;
    case SortRole:
        switch (index.column()) {
        case IdColumn: return QVariant::fromValue(qint64(row.epoch) << 48 | e.id);
        case TimeColumn: return e.timestamp;
        case DurationColumn: return e.durationUs;
        case FlagColumn: return int(row.flag);
        default: return data(index, Qt::DisplayRole);
        }
    case Qt::ToolTipRole:
        switch (index.column()) {
        case TimeColumn: return QDateTime::fromSecsSinceEpoch(e.timestamp).toString(Qt::ISODate);
        case DurationColumn: return tr("%1 µs").arg(e.durationUs);
        case CommandColumn: {
            QString tip = slowlog::displayText(e);
            if (e.truncated)
                tip += QLatin1Char('\n')
                    + tr("The server logs at most %1 arguments and %2 bytes of each.")
                          .arg(slowlog::kMaxLoggedArguments - 1)
                          .arg(slowlog::kMaxLoggedStringBytes);
            if (e.hasKey())
                tip += QLatin1Char('\n') + tr("Activate to open the key %1").arg(bytesescape::quoteIfNeeded(e.key()));
            if (!row.reason.isEmpty())
                tip += QLatin1Char('\n') + row.reason;
            return tip;
        }
        case NameColumn: return e.clientName.isEmpty() ? tr("no client name") : QVariant();
        case FlagColumn: return row.reason.isEmpty() ? QVariant() : row.reason;
        }
        break;
    case Qt::ForegroundRole:
        if ((index.column() == FlagColumn || index.column() == CommandColumn)
            && SlowlogVerdict{row.flag, {}}.isProblem())
            return m_problemColor;
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == IdColumn || index.column() == DurationColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case IdRole: return e.id;
    case EpochRole: return row.epoch;
    case SourceRole: return row.source;
    case KeyRole: return e.hasKey() ? QVariant(e.key()) : QVariant();
    case SeverityRole: return int(SlowlogVerdict{row.flag, {}}.isProblem() ? Severity::Bad : Severity::None);
    case FlagRole: return int(row.flag);
    case DurationUsRole: return e.durationUs;
    case TimestampRole: return e.timestamp;
    default: break;
    }
    return {};
}

QVariant SlowlogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case IdColumn: return tr("Id");
    case TimeColumn: return tr("Time");
    case DurationColumn: return tr("Duration");
    case CommandColumn: return tr("Command");
    case ClientColumn: return tr("Client");
    case NameColumn: return tr("Name");
    case FlagColumn: return tr("Flag");
    case NodeColumn: return tr("Node");
    }
    return {};
}

// ---------------------------------------------------------------------------------------------
// Aggregate

SlowlogAggregateModel::SlowlogAggregateModel(QObject *parent)
    : RowListModel([](const SlowlogCommandStats &s) { return s.command; }, ColumnCount, -1, parent)
{ }

qint64 SlowlogAggregateModel::percentile(const QList<qint64> &sorted, double p)
{
    if (sorted.isEmpty())
        return -1;
    // The epsilon keeps 0.99 * 100 (98.999...) at rank 99 rather than rounding it away.
    const auto rank = qsizetype(std::ceil(p * double(sorted.size()) - 1e-9));
    return sorted.at(qBound<qsizetype>(1, rank, sorted.size()) - 1);
}

SlowlogCommandStats SlowlogAggregateModel::statsOf(const QByteArray &command, const QList<qint64> &sorted)
{
    SlowlogCommandStats s;
    s.command = command;
    s.count = sorted.size();
    for (qint64 us : sorted)
        s.totalUs += us;
    s.p50Us = percentile(sorted, 0.50);
    s.p99Us = percentile(sorted, 0.99);
    s.maxUs = sorted.isEmpty() ? -1 : sorted.constLast();
    return s;
}

void SlowlogAggregateModel::update(const QList<SlowlogEntry> &added, const QList<SlowlogEntry> &removed)
{
    QSet<QByteArray> touched;
    for (const SlowlogEntry &e : removed) {
        const auto it = m_durations.find(e.commandName());
        if (it == m_durations.end())
            continue;
        // Removed entries are the oldest; their durations are somewhere in the sorted list.
        const auto pos = std::lower_bound(it->begin(), it->end(), e.durationUs);
        if (pos != it->end() && *pos == e.durationUs) {
            it->erase(pos);
            touched.insert(it.key());
        }
    }
    for (const SlowlogEntry &e : added) {
        const QByteArray name = e.commandName();
        auto it = m_durations.find(name);
        if (it == m_durations.end()) {
            it = m_durations.insert(name, {});
            m_order.append(name);
        }
        it->append(e.durationUs);
        touched.insert(name);
    }
    if (touched.isEmpty())
        return;
    // Names whose entries all left lose their row.
    for (const QByteArray &name : std::as_const(touched)) {
        if (m_durations.value(name).isEmpty()) {
            m_durations.remove(name);
            m_order.removeOne(name);
        }
    }
    QList<SlowlogCommandStats> next;
    next.reserve(m_order.size());
    for (const QByteArray &name : std::as_const(m_order)) {
        QList<qint64> &d = m_durations[name];
        if (touched.contains(name)) {
            std::sort(d.begin(), d.end());
            next.append(statsOf(name, d));
        } else {
            next.append(*find(name));
        }
    }
    setRows(std::move(next));
}

void SlowlogAggregateModel::clear()
{
    m_durations.clear();
    m_order.clear();
    RowListModel::clear();
}

QVariant SlowlogAggregateModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    const SlowlogCommandStats &g = rows().at(index.row());
    auto number = [&](int column) -> qint64 {
        switch (column) {
        case CountColumn: return g.count;
        case TotalColumn: return g.totalUs;
        case P50Column: return g.p50Us;
        case P99Column: return g.p99Us;
        case MaxColumn: return g.maxUs;
        }
        return 0;
    };
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == CommandColumn)
            return bytesescape::escape(g.command);
        if (index.column() == CountColumn)
            return format::count(quint64(g.count));
        return SlowlogModel::durationText(number(index.column()));
    case SortRole:
        if (index.column() == CommandColumn)
            return bytesescape::escape(g.command);
        return number(index.column());
    case CommandRole: return g.command;
    case Qt::TextAlignmentRole:
        if (index.column() != CommandColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        break;
    default: break;
    }
    return {};
}

QVariant SlowlogAggregateModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case CommandColumn: return tr("Command");
    case CountColumn: return tr("Count");
    case TotalColumn: return tr("Total");
    case P50Column: return tr("p50");
    case P99Column: return tr("p99");
    case MaxColumn: return tr("Max");
    }
    return {};
}

// ---------------------------------------------------------------------------------------------
// Latency events

namespace {

using LatencyColumn = RowTableModel<LatencyEvent>::Column;

// A duration in whole milliseconds, right-aligned.
LatencyColumn millisecondsColumn(const QString &title, qint64 LatencyEvent::*ms)
{
    return {title, [ms](const LatencyEvent &e, int role) -> QVariant {
                switch (role) {
                case Qt::TextAlignmentRole: return int(Qt::AlignRight | Qt::AlignVCenter);
                case RowTableRoles::SortRole: return e.*ms;
                case Qt::DisplayRole: return LatencyEventsModel::tr("%1 ms").arg(e.*ms);
                }
                return {};
            }};
}

} // namespace

LatencyEventsModel::LatencyEventsModel(QObject *parent)
    : RowTableModel<LatencyEvent>(
        {
            {tr("Event"),
             [](const LatencyEvent &e, int role) -> QVariant {
                 switch (role) {
                 case Qt::ToolTipRole:
                     return e.count >= 0 ? QVariant(tr("%1 spikes, %2 ms in all").arg(e.count).arg(e.sumMs))
                                         : QVariant();
                 case Qt::DisplayRole: return bytesescape::escape(e.name);
                 }
                 return {};
             }},
            {tr("Latest at"),
             [](const LatencyEvent &e, int role) -> QVariant {
                 const QDateTime at = QDateTime::fromSecsSinceEpoch(e.latestTimestamp);
                 switch (role) {
                 case Qt::ToolTipRole: return at.toString(Qt::ISODate);
                 case RowTableRoles::SortRole: return e.latestTimestamp;
                 case Qt::DisplayRole: return at.toString(QStringLiteral("HH:mm:ss"));
                 }
                 return {};
             }},
            millisecondsColumn(tr("Latest"), &LatencyEvent::latestMs),
            millisecondsColumn(tr("Max"), &LatencyEvent::maxMs),
        },
        {[](const LatencyEvent &e) { return e.name; }, nullptr, nullptr}, parent)
{ }
