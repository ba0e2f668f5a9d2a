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

class QueuesModel : public RowListModel<QueueInfo>
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
    enum Role { KeyRole = Qt::UserRole + 1, SortRole };
    static constexpr int kPeekBytes = 200; // of an item, shown in a cell
    explicit QueuesModel(QObject *parent = nullptr)
        : RowListModel([](const QueueInfo &r) { return r.key; }, ColumnCount, -1, parent)
    { }

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};

class DelayedModel : public RowListModel<DelayedInfo>
{
    Q_OBJECT
public:
    enum Column { KeyColumn, TotalColumn, OverdueColumn, OldestColumn, NextColumn, ReasonColumn, ColumnCount };
    enum Role { KeyRole = Qt::UserRole + 1, SortRole };
    explicit DelayedModel(QObject *parent = nullptr)
        : RowListModel([](const DelayedInfo &r) { return r.key; }, ColumnCount, -1, parent)
    { }

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};

class DueItemsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { DueColumn, InColumn, MemberColumn, ColumnCount };
    enum Role { MemberRole = Qt::UserRole + 1 };
    using QAbstractTableModel::QAbstractTableModel;
    void setItems(const QList<DueItem> &items, qint64 nowMs);
    const QList<DueItem> &items() const { return m_items; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<DueItem> m_items;
    qint64 m_now = 0;
};
