// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rediscommand.h"
#include "streaminfo.h"
#include "threadcheck.h"

#include <QAbstractTableModel>
#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>
#include <QVersionNumber>

class RedisClient;

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

// Reads streams, groups, consumers, pending pages and entries for the streams panel and fills
// its models. Every read is bounded (COUNT, at most kMaxStreams keys). A reply for a stream,
// group or page the user has left is dropped.
class StreamsLoader : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMaxStreams = 200;
    static constexpr int kSampleLimit = 1000; // pending entries read for the histogram

    explicit StreamsLoader(RedisClient *client, QObject *parent = nullptr);

    StreamsModel *streamsModel() const { return m_streams; }
    StreamGroupsModel *groupsModel() const { return m_groups; }
    StreamConsumersModel *consumersModel() const { return m_consumers; }
    PendingModel *pendingModel() const { return m_pending; }
    StreamEntriesModel *entriesModel() const { return m_entries; }

    QVersionNumber serverVersion() const;
    void overrideServerVersion(const QVersionNumber &version) { m_versionOverride = version; }

    QByteArray stream() const { return m_key; }
    QByteArray group() const { return m_group; }
    const PendingSummary &summary() const { return m_summary; }
    const PendingFilter &filter() const { return m_filter; }
    int pageSize() const { return m_pageSize; }
    int pageNumber() const { return int(m_pageStarts.size()); } // 1-based once a page arrived
    bool hasNextPage() const { return m_hasNext; }
    const QList<PendingEntry> &pendingSample() const { return m_sample; }

    // Streams of the scan: XINFO STREAM for the first kMaxStreams, pipelined.
    void setStreams(const QList<QByteArray> &keys);
    void refreshStreams();
    // XLEN of every listed stream, pipelined; adds one sample each.
    void sampleLengths();
    // The groups of a stream (XINFO GROUPS); forgets the previous stream's group and pages.
    void openStream(const QByteArray &key);
    // Consumers, pending summary, first pending page and the histogram sample of a group.
    void openGroup(const QByteArray &group);
    // Re-reads groups, consumers, summary and the current page (after an action).
    void refreshGroup();

    void setPendingFilter(const PendingFilter &filter); // reloads the first page
    void setPageSize(int rows);
    void setPoisonThreshold(qint64 deliveries);
    void firstPendingPage();
    void nextPendingPage();
    void previousPendingPage();

    // XRANGE key id id; entryLoaded(id, entry) with a null entry when it was deleted.
    void loadEntry(const QByteArray &id);

    // Entries browser, newest first: XREVRANGE key <from> - COUNT n. 'from' "+" is the end.
    void browseEntries(const QByteArray &from = "+", int count = 50);
    void browseFromTime(qint64 msSinceEpoch, int count = 50);
    void nextEntries(int count = 50);

    // Finds the stream and group whose oldest pending entry (smallest id time) is oldest.
    void findOldestPending();

    // Command choice, public so it can be tested without old servers. 'start' is "-" or an id
    // already made exclusive.
    static RedisCommand pendingCommand(const QByteArray &key, const QByteArray &group, const PendingFilter &filter,
                                       const QByteArray &start, int count, const QVersionNumber &version);
    // Start of the page after 'lastId': "(id" on 6.2+, else the next id.
    static QByteArray exclusiveAfter(const QByteArray &lastId, const QVersionNumber &version);
    static QByteArray exclusiveBefore(const QByteArray &id, const QVersionNumber &version);
    // The rows the model shows of a raw XPENDING page: the filters the server did not apply.
    static QList<PendingEntry> applyLocalFilter(const QList<PendingEntry> &rows, const PendingFilter &filter,
                                                const QVersionNumber &version);

Q_SIGNALS:
    void streamsAvailable();
    void lengthsSampled();
    void groupsAvailable(const QByteArray &key);
    void consumersAvailable();
    void summaryAvailable(const PendingSummary &summary);
    void pendingPageAvailable(int rows);
    void pendingSampleAvailable();
    void entryLoaded(const QByteArray &id, const StreamEntry &entry);
    void entriesAvailable(int rows);
    void oldestPendingFound(const QByteArray &key, const QByteArray &group);
    // One line for the panel: what could not be read and why.
    void failed(const QString &message);

private:
    void send(const QList<RedisCommand> &commands, std::function<void(const RedisReply &)> done);
    void loadPendingPage(const QByteArray &start);
    void loadGroupFacts();
    void loadSample();
    static bool serverIdle(const QVersionNumber &version);

    RedisClient *m_client;
    StreamsModel *m_streams;
    StreamGroupsModel *m_groups;
    StreamConsumersModel *m_consumers;
    PendingModel *m_pending;
    StreamEntriesModel *m_entries;
    QVersionNumber m_versionOverride;
    QByteArray m_key;
    QByteArray m_group;
    PendingSummary m_summary;
    PendingFilter m_filter;
    QList<PendingEntry> m_sample;
    QList<QByteArray> m_pageStarts; // start of every page shown so far; the last is the current one
    QByteArray m_pageLastId; // last raw id of the current page (filters applied here do not matter)
    QByteArray m_entriesLastId;
    quint64 m_streamGen = 0; // bumped when the stream or group changes
    quint64 m_pageRequest = 0;
    quint64 m_listRequest = 0;
    quint64 m_entryRequest = 0;
    quint64 m_browseRequest = 0;
    int m_pageSize = 50;
    bool m_hasNext = false;
};

// What an action did.
struct StreamActionResult
{
    QString action; // "claim", "autoclaim", "ack", "deadletter", "trim"
    bool ok = false;
    QString message; // one line for the screen
    qint64 count = 0; // entries claimed / acknowledged / moved / removed
    QList<QByteArray> deletedIds; // XAUTOCLAIM (7.0+): pending ids no longer in the stream
    QList<QByteArray> failedIds; // dead letter: ids the script refused, with the reasons in message
};
Q_DECLARE_METATYPE(StreamActionResult)

// Writes to a stream's groups. Each method refuses at once on a read-only connection
// (finished() with ok = false, nothing sent); the engine would refuse the commands too.
// One action at a time: a call while busy is refused.
class StreamActions : public QObject
{
    Q_OBJECT
public:
    static constexpr int kAutoClaimCount = 100;
    static constexpr qint64 kDeadMaxLen = 10000;

    explicit StreamActions(RedisClient *client, QObject *parent = nullptr);

    // The dead-letter script (lua/stream_dead_letter.lua: source and its SHA1), given by whoever
    // links the script library. Without it deadLetter() refuses.
    void setDeadLetterScript(const QByteArray &source, const QByteArray &sha1);
    bool hasDeadLetterScript() const { return !m_deadSource.isEmpty(); }
    bool isBusy() const { return m_busy; }
    bool isReadOnly() const;
    static QByteArray defaultDeadKey(const QByteArray &stream) { return stream + ":dead"; }

    // Each returns false when refused without sending anything (finished() was emitted).
    bool claim(const QByteArray &key, const QByteArray &group, const QList<QByteArray> &ids, const QByteArray &consumer,
               qint64 minIdleMs = 0);
    // XAUTOCLAIM … COUNT 100 JUSTID from cursor 0-0 until the server answers 0-0 (6.2+).
    bool autoClaim(const QByteArray &key, const QByteArray &group, const QByteArray &consumer, qint64 minIdleMs);
    bool ack(const QByteArray &key, const QByteArray &group, const QList<QByteArray> &ids);
    // One script call per id: copies the entry to 'deadKey' and acknowledges it atomically.
    bool deadLetter(const QByteArray &key, const QByteArray &group, const QList<QByteArray> &ids,
                    const QByteArray &deadKey, const QByteArray &reason);
    bool trim(const QByteArray &key, qint64 maxLen);

Q_SIGNALS:
    void progress(qint64 done);
    void finished(const StreamActionResult &result);

private:
    bool refuse(const QString &action);
    void done(const StreamActionResult &result);
    void autoClaimStep(const QByteArray &key, const QByteArray &group, const QByteArray &consumer, qint64 minIdleMs,
                       const QByteArray &cursor, StreamActionResult acc);
    void runDeadLetter(const QList<RedisCommand> &calls, const QList<QByteArray> &ids, bool loaded);

    RedisClient *m_client;
    QByteArray m_deadSource;
    QByteArray m_deadSha;
    bool m_busy = false;
};
