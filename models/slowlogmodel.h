// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rowtablemodel.h"
#include "slowlogtracker.h"

#include <QAbstractTableModel>
#include <QColor>
#include <QHash>
#include <QStringList>
#include <deque>

class SlowlogAggregateModel;

// The slow log entries seen so far, newest first. Keeps the last capacity() entries (10,000 by
// default); older ones leave with one beginRemoveRows. Entries are unique by (epoch, id): a
// batch may overlap what is held, only newer entries are added, with one beginInsertRows.
// aggregate() is kept in step with what this model holds.
// Several servers' logs (a cluster's primaries) share one model as sources, each with its own
// watermark: entries are unique by (source, epoch, id) and arrive in the order they were read;
// the node column names each entry's source.
class SlowlogModel : public QAbstractTableModel, public RowTableRoles
{
    Q_OBJECT
public:
    enum Column {
        IdColumn,
        TimeColumn,
        DurationColumn,
        CommandColumn,
        ClientColumn,
        NameColumn,
        FlagColumn,
        NodeColumn, // the source's name; empty for one server
        ColumnCount
    };
    // KeyRole: the entry's key, exact bytes (invalid when it has none); SortRole: numbers for
    // numeric columns; SeverityRole: Bad for a flagged problem, else None.
    enum Role {
        IdRole = FirstExtraRole, // qint64
        EpochRole, // int
        FlagRole, // int (SlowlogFlag)
        DurationUsRole, // qint64
        TimestampRole, // qint64 seconds
        SourceRole, // int
    };
    static constexpr int kDefaultCapacity = 10'000;
    static constexpr int kDisplayArgBytes = 48; // per argument in the table; the tooltip has it all
    static constexpr int kDisplayChars = 160;

    explicit SlowlogModel(QObject *parent = nullptr);
    ~SlowlogModel() override;

    void setCapacity(int entries);
    int capacity() const { return m_capacity; }

    // Adds the entries newer than the newest held (in any order, duplicates ignored). Returns
    // how many were added.
    int append(const QList<SlowlogEntry> &entries, int epoch = 0);
    // The same for one of several sources (0 is the one append() adds to).
    int appendFrom(int source, const QList<SlowlogEntry> &entries, int epoch = 0);
    // The names of the sources (their node addresses), for the node column.
    void setSourceNames(const QStringList &names);
    const QStringList &sourceNames() const { return m_sourceNames; }
    // Empties the view. The watermark stays, so entries already shown do not come back.
    void clear();
    // Element count of a key, from SCARD/HLEN/LLEN; re-judges the entries that read it.
    void setKeySize(const QByteArray &key, qint64 size);
    qint64 keySize(const QByteArray &key) const { return m_keySizes.value(key, -1); }
    // The colour flagged entries are drawn in (the palette's "bad" colour).
    void setProblemColor(const QColor &color);

    const SlowlogEntry &entryAt(int row) const { return rowAt(row).entry; }
    SlowlogVerdict verdictAt(int row) const;
    int epochAt(int row) const { return rowAt(row).epoch; }
    int sourceAt(int row) const { return rowAt(row).source; }
    int rowOf(int epoch, qint64 id, int source = 0) const; // -1 when not held
    SlowlogAggregateModel *aggregate() const { return m_aggregate; }

    static QString durationText(qint64 us) { return slowlogflags::durationText(us); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row
    {
        SlowlogEntry entry;
        int epoch = 0;
        int source = 0;
        SlowlogFlag flag = SlowlogFlag::None;
        QString reason;
        QString text; // the command as the table shows it
    };
    const Row &rowAt(int row) const { return m_rows[m_rows.size() - 1 - std::size_t(row)]; }
    void judgeRow(Row &row) const;

    std::deque<Row> m_rows; // oldest first; the view shows them newest first
    int m_capacity = kDefaultCapacity;
    // Per source: the (epoch, id) of the newest entry held, {-1, -1} before the first.
    QList<std::pair<int, qint64>> m_marks;
    QStringList m_sourceNames;
    bool m_manySources = false; // entries of more than one source held since the last clear

    QHash<QByteArray, qint64> m_keySizes;
    QColor m_problemColor = QColor(0xc6, 0x28, 0x28);
    SlowlogAggregateModel *m_aggregate;
};

// One command name's slow log entries: how many, total and percentile durations.
struct SlowlogCommandStats
{
    QByteArray command; // "GET", "CONFIG SET"
    qint64 count = 0;
    qint64 totalUs = 0;
    qint64 p50Us = -1;
    qint64 p99Us = -1;
    qint64 maxUs = -1;
};

// Slow log entries by command name, one row per name in the order first seen. Percentiles are
// exact, by nearest rank over the durations held: p of n sorted values is the value at rank
// ceil(p * n). Rows are merged by name (RowListModel), so a selection stays on its command.
class SlowlogAggregateModel : public RowListModel<SlowlogCommandStats>, public RowTableRoles
{
    Q_OBJECT
public:
    enum Column { CommandColumn, CountColumn, TotalColumn, P50Column, P99Column, MaxColumn, ColumnCount };
    enum Role {
        CommandRole = FirstExtraRole, // QByteArray: the command name
    };

    explicit SlowlogAggregateModel(QObject *parent = nullptr);

    // Nearest-rank percentile of ascending 'sorted' (p in (0, 1]); -1 when empty.
    static qint64 percentile(const QList<qint64> &sorted, double p);
    // The figures of one name from its durations (ascending).
    static SlowlogCommandStats statsOf(const QByteArray &command, const QList<qint64> &sorted);

    // Applies what the entry model added and dropped: new names are appended, changed rows
    // are updated, names with no entries left go.
    void update(const QList<SlowlogEntry> &added, const QList<SlowlogEntry> &removed);
    void clear();

    int rowOf(const QByteArray &command) const { return RowListModel::rowOf(command); }
    qint64 countAt(int row) const { return rows().at(row).count; }
    qint64 totalUsAt(int row) const { return rows().at(row).totalUs; }
    qint64 p50UsAt(int row) const { return rows().at(row).p50Us; }
    qint64 p99UsAt(int row) const { return rows().at(row).p99Us; }

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QHash<QByteArray, QList<qint64>> m_durations; // per name, ascending
    QList<QByteArray> m_order; // row order: first seen first
};

// LATENCY LATEST as a table: event, when its latest spike was (server clock), the latest spike
// and the largest. Rows are merged by event name, so the selected event stays selected across
// polls. KeyRole is the event's name; SortRole the timestamp and the milliseconds.
class LatencyEventsModel : public RowTableModel<LatencyEvent>
{
    Q_OBJECT
public:
    enum Column { EventColumn, LatestAtColumn, LatestColumn, MaxColumn, ColumnCount };
    explicit LatencyEventsModel(QObject *parent = nullptr);
};
