// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rowtablemodel.h"
#include "streaminfo.h"

#include <QAbstractTableModel>
#include <QByteArray>
#include <QList>
#include <QSet>

// A stream found by the scan, what XINFO STREAM said and its sampled lengths.
struct StreamRow
{
    QByteArray key;
    StreamInfo info;
    bool loaded = false;
    QString error; // one line when XINFO STREAM failed (NOPERM, gone, wrong type)
    QList<QPair<qint64, qint64>> samples; // (ms since epoch, XLEN), oldest first

    // "Only grows": the length never went down over at least two samples, and, where the server
    // reports it (7.0+), nothing was ever deleted or trimmed. Without the 7.0 facts a trim that
    // happened between two samples and was outgrown by new entries would go unseen; sampling
    // more often would only narrow that gap, so the flag is a hint, not proof.
    bool onlyGrows() const;
};

// Filters of the pending list. Minimum idle goes to the server (XPENDING IDLE, 6.2+) or is
// applied to the page here on older servers; the delivery count is always applied here,
// XPENDING has no such option.
struct PendingFilter
{
    qint64 minIdleMs = 0;
    QByteArray consumer;
    qint64 minDeliveries = 0;
    bool operator==(const PendingFilter &o) const
    {
        return minIdleMs == o.minIdleMs && consumer == o.consumer && minDeliveries == o.minDeliveries;
    }
};

// The stream tables merge their rows by id (RowListModel), so a refresh keeps the selection.
// Their roles are RowTableRoles': KeyRole is the row's id (stream key, group or consumer name,
// entry id) as bytes; a model's own roles start at FirstExtraRole.

// SeverityRole: Bad when XINFO STREAM failed, Warning when the stream only grows.
class StreamsModel : public RowListModel<StreamRow>, public RowTableRoles
{
    Q_OBJECT
public:
    enum Column {
        KeyColumn,
        LengthColumn,
        FirstColumn,
        LastColumn,
        GroupsColumn,
        AddedColumn,
        MaxDeletedColumn,
        GrowsColumn,
        ColumnCount
    };
    enum Role { OnlyGrowsRole = FirstExtraRole };
    explicit StreamsModel(QObject *parent = nullptr)
        : RowListModel([](const StreamRow &r) { return r.key; }, ColumnCount, -1, parent)
    { }

    static Severity severityOf(const StreamRow &row);
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};

class StreamGroupsModel : public RowListModel<StreamGroupInfo>, public RowTableRoles
{
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        ConsumersColumn,
        PendingColumn,
        LastDeliveredColumn,
        EntriesReadColumn,
        LagColumn,
        ColumnCount
    };
    explicit StreamGroupsModel(QObject *parent = nullptr)
        : RowListModel([](const StreamGroupInfo &g) { return g.name; }, ColumnCount, -1, parent)
    { }
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};

class StreamConsumersModel : public RowListModel<StreamConsumerInfo>, public RowTableRoles
{
    Q_OBJECT
public:
    enum Column { NameColumn, PendingColumn, IdleColumn, InactiveColumn, ColumnCount };
    explicit StreamConsumersModel(QObject *parent = nullptr)
        : RowListModel([](const StreamConsumerInfo &c) { return c.name; }, ColumnCount, -1, parent)
    { }
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};

// One page of the pending entries list. "Poison": delivered more often than the threshold.
// "Deleted": still pending but no longer in the stream (XRANGE id id was empty).
// SeverityRole: Bad for poison, Warning for deleted.
class PendingModel : public RowListModel<PendingEntry>, public RowTableRoles
{
    Q_OBJECT
public:
    enum Column { IdColumn, ConsumerColumn, IdleColumn, DeliveriesColumn, StateColumn, ColumnCount };
    enum Role { PoisonRole = FirstExtraRole, DeletedRole };
    explicit PendingModel(QObject *parent = nullptr)
        : RowListModel([](const PendingEntry &e) { return e.id; }, ColumnCount, -1, parent)
    { }

    void setPoisonThreshold(qint64 deliveries);
    qint64 poisonThreshold() const { return m_poison; }
    bool isPoison(int row) const { return rows().at(row).deliveries > m_poison; }
    void setDeleted(const QSet<QByteArray> &ids);
    bool isDeleted(int row) const { return m_deleted.contains(rows().at(row).id); }
    int poisonCount() const;

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void allChanged();

    qint64 m_poison = 5;
    QSet<QByteArray> m_deleted;
};

class StreamEntriesModel : public RowListModel<StreamEntry>, public RowTableRoles
{
    Q_OBJECT
public:
    enum Column { IdColumn, TimeColumn, FieldsColumn, ColumnCount };
    explicit StreamEntriesModel(QObject *parent = nullptr)
        : RowListModel([](const StreamEntry &e) { return e.id; }, ColumnCount, -1, parent)
    { }
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    // "field=value  field=value", escaped, for one line.
    static QString summary(const StreamEntry &entry, int maxChars = 200);
};

// Idle times in buckets for the histogram: <1 s, 1–10 s, 10 s–1 min, 1–10 min, 10 min–1 h,
// 1 h–1 day, over a day.
struct IdleHistogram
{
    QList<qint64> upperMs; // bucket i holds idle < upperMs[i]; the last bucket has no bound
    QList<int> counts;
    QStringList labels;
    int poison = 0;
    int total = 0;
    static IdleHistogram of(const QList<PendingEntry> &entries, qint64 poisonThreshold);
};
