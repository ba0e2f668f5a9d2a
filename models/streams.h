// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "streaminfo.h"
#include "threadcheck.h"

#include <QAbstractTableModel>
#include <QByteArray>
#include <QHash>
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

// Base of the stream tables: a list of plain rows, replaced as a whole.
template <typename Row> class StreamRowsModel : public QAbstractTableModel
{
public:
    using QAbstractTableModel::QAbstractTableModel;
    void setRows(const QList<Row> &rows)
    {
        REDISLENS_ASSERT_OWN_THREAD(this);
        beginResetModel();
        m_rows = rows;
        endResetModel();
    }
    void clear() { setRows({}); }
    const QList<Row> &rows() const { return m_rows; }
    const Row &at(int row) const { return m_rows.at(row); }
    int rowCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : int(m_rows.size()); }

protected:
    QList<Row> m_rows;
};

class StreamsModel : public StreamRowsModel<StreamRow>
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
    enum Role { KeyRole = Qt::UserRole + 1, OnlyGrowsRole };
    using StreamRowsModel::StreamRowsModel;

    void setKeys(const QList<QByteArray> &keys);
    void setInfo(const QByteArray &key, const StreamInfo &info);
    void setError(const QByteArray &key, const QString &error);
    // Keeps the newest kMaxSamples per stream.
    void addSample(const QByteArray &key, qint64 ms, qint64 length);
    int rowOf(const QByteArray &key) const { return m_index.value(key, -1); }
    static constexpr int kMaxSamples = 120;

    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void changed(int row);
    QHash<QByteArray, int> m_index;
};

class StreamGroupsModel : public StreamRowsModel<StreamGroupInfo>
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
    using StreamRowsModel::StreamRowsModel;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};

class StreamConsumersModel : public StreamRowsModel<StreamConsumerInfo>
{
    Q_OBJECT
public:
    enum Column { NameColumn, PendingColumn, IdleColumn, InactiveColumn, ColumnCount };
    using StreamRowsModel::StreamRowsModel;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};

// One page of the pending entries list. "Poison": delivered more often than the threshold.
// "Deleted": still pending but no longer in the stream (XRANGE id id was empty).
class PendingModel : public StreamRowsModel<PendingEntry>
{
    Q_OBJECT
public:
    enum Column { IdColumn, ConsumerColumn, IdleColumn, DeliveriesColumn, StateColumn, ColumnCount };
    enum Role { IdRole = Qt::UserRole + 1, PoisonRole, DeletedRole };
    using StreamRowsModel::StreamRowsModel;

    void setPoisonThreshold(qint64 deliveries);
    qint64 poisonThreshold() const { return m_poison; }
    bool isPoison(int row) const { return m_rows.at(row).deliveries > m_poison; }
    void setDeleted(const QSet<QByteArray> &ids);
    bool isDeleted(int row) const { return m_deleted.contains(m_rows.at(row).id); }
    int poisonCount() const;

    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    qint64 m_poison = 5;
    QSet<QByteArray> m_deleted;
};

class StreamEntriesModel : public StreamRowsModel<StreamEntry>
{
    Q_OBJECT
public:
    enum Column { IdColumn, TimeColumn, FieldsColumn, ColumnCount };
    enum Role { IdRole = Qt::UserRole + 1 };
    using StreamRowsModel::StreamRowsModel;
    int columnCount(const QModelIndex &parent = {}) const override;
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
