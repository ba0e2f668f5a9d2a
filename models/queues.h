// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "queuerules.h"
#include "rowtablemodel.h"

#include <QAbstractTableModel>
#include <QByteArray>
#include <QList>
#include <QString>

// ---- what the reader reads ----

struct ProcessingListInfo
{
    QByteArray key;
    qint64 length = 0;
    QByteArray tail; // the oldest item (see QueuesReader)
    qint64 oldestAgeMs = -1; // -1: the item carries no timestamp
    QString ageSource; // what was read: "enqueued_at (ms)"
    bool stale = false;
};

struct QueueInfo
{
    QByteArray key;
    QString reason;
    qint64 length = 0;
    double growthPerMin = qQNaN(); // NaN until two samples
    QByteArray head, tail;
    QList<ProcessingListInfo> processing;
    qint64 oldestProcessingAgeMs() const;
    bool stale() const;
    qint64 processingItems() const;
};

struct DueItem
{
    QByteArray member;
    double score = 0;
    qint64 dueMs = 0;
};

struct DelayedInfo
{
    static constexpr int kBuckets = 7;
    QByteArray key;
    QString reason;
    EpochUnit unit = EpochUnit::Milliseconds;
    qint64 total = 0;
    qint64 overdue = 0;
    qint64 oldestOverdueAgeMs = -1; // -1: nothing overdue
    QList<DueItem> next; // up to 10, soonest first
    QList<qint64> histogram; // overdue, ≤1 min, ≤5 min, ≤15 min, ≤60 min, ≤24 h, later
    qint64 readAtMs = 0;
    static QStringList bucketLabels();
};

// ---- models ----

// The roles are RowTableRoles': KeyRole (the key's bytes), SortRole (numbers for the numeric
// columns), SeverityRole (Bad for a stale processing list) and TypeRole (KeyType::List).
class QueuesModel : public RowListModel<QueueInfo>, public RowTableRoles
{
    Q_OBJECT
public:
    enum Column {
        KeyColumn,
        LengthColumn,
        GrowthColumn,
        HeadColumn,
        TailColumn,
        ProcessingColumn,
        OldestColumn,
        StaleColumn,
        ReasonColumn,
        ColumnCount
    };
    static constexpr int kPeekBytes = 200; // of an item, shown in a cell
    explicit QueuesModel(QObject *parent = nullptr)
        : RowListModel([](const QueueInfo &r) { return r.key; }, ColumnCount, -1, parent)
    { }

    static Severity severityOf(const QueueInfo &queue);
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};

// One queue's processing lists (QueueInfo::processing): list, items, oldest item's age, where
// the age was read from, the oldest item. KeyRole is the list's key bytes, SortRole the item
// count and the age in ms, SeverityRole Bad for a stale list, TypeRole KeyType::List.
class ProcessingListsModel : public RowTableModel<ProcessingListInfo>
{
    Q_OBJECT
public:
    enum Column { KeyColumn, LengthColumn, AgeColumn, SourceColumn, TailColumn, ColumnCount };
    explicit ProcessingListsModel(QObject *parent = nullptr);
};

// KeyRole, SortRole, SeverityRole (Warning while jobs are overdue) and TypeRole (KeyType::ZSet).
class DelayedModel : public RowListModel<DelayedInfo>, public RowTableRoles
{
    Q_OBJECT
public:
    enum Column { KeyColumn, TotalColumn, OverdueColumn, OldestColumn, NextColumn, ReasonColumn, ColumnCount };
    explicit DelayedModel(QObject *parent = nullptr)
        : RowListModel([](const DelayedInfo &r) { return r.key; }, ColumnCount, -1, parent)
    { }

    static Severity severityOf(const DelayedInfo &set);
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};

// The next due jobs of one delayed-job set, by member (unique in a sorted set). KeyRole is the
// member's bytes, SortRole the due time in ms, SeverityRole Warning for a job already due; the
// "When" column counts from now() (setNow()).
class DueItemsModel : public RowListModel<DueItem>, public RowTableRoles
{
    Q_OBJECT
public:
    enum Column { DueColumn, InColumn, MemberColumn, ColumnCount };
    explicit DueItemsModel(QObject *parent = nullptr)
        : RowListModel([](const DueItem &r) { return r.member; }, ColumnCount, InColumn, parent)
    { }
    // The items, read at 'nowMs'.
    void setItems(const QList<DueItem> &items, qint64 nowMs)
    {
        setNow(nowMs);
        setRows(items);
    }
    const QList<DueItem> &items() const { return rows(); }

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};
