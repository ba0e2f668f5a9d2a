// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rediscommand.h"
#include "rediserror.h"
#include "slowlog.h"

#include <QAbstractTableModel>
#include <QColor>
#include <QHash>
#include <QObject>
#include <QSet>
#include <deque>

class QTimer;
class RedisClient;

// Why an entry should not be in a live app's slow log. Diagnostic is a neutral note (DEBUG is
// somebody testing, not the app); the others are problems.
enum class SlowlogFlag : quint8 { None, Keys, Flush, BigCollection, LongScript, Diagnostic };

struct SlowlogVerdict
{
    SlowlogFlag flag = SlowlogFlag::None;
    QString reason; // one line, empty for None

    bool isProblem() const { return flag != SlowlogFlag::None && flag != SlowlogFlag::Diagnostic; }
};

namespace slowlogflags {

constexpr qint64 kBigCollectionElements = 1000; // SMEMBERS/HGETALL/LRANGE 0 -1 of this many
constexpr qint64 kBigCollectionUs = 10'000; // ... or that took this long
constexpr qint64 kLongScriptUs = 5'000; // EVAL/EVALSHA/FCALL longer than this

// The command that counts what the entry read whole, with the key: SCARD for SMEMBERS, HLEN for
// HGETALL, LLEN for LRANGE key 0 -1. Empty for every other entry.
RedisCommand sizeCommand(const SlowlogEntry &entry);
// 'keySize' is the element count of the entry's key when known, else -1.
SlowlogVerdict judge(const SlowlogEntry &entry, qint64 keySize = -1);
// Short column text: "KEYS", "FLUSH", "big collection", "long script", "debug".
QString label(SlowlogFlag flag);

} // namespace slowlogflags

// Turns successive SLOWLOG GET pages into the entries not seen before. Ids grow by one per
// logged entry, so the last id seen tells what is new:
// - a page is complete when it reaches back to the last seen id, or holds the whole log (fewer
//   entries than asked for, or as many as SLOWLOG LEN, or the fetch limit). Otherwise ask again
//   with requestCount(), which grows to what the newest id says is missing.
// - entries between the last seen id and the oldest id of a complete page came and went
//   between two polls (the log wrapped): they are counted as missed.
// - ids going backwards or a new server run id mean a restart; a log shorter than the last one
//   plus what arrived means SLOWLOG RESET. Either is reported once; what was shown stays, and a
//   restart starts a new epoch because ids begin again at 0.
class SlowlogTracker
{
public:
    static constexpr int kFirstRequest = 128; // the default slowlog-max-len: one round trip
    static constexpr int kIncrementalRequest = 32;
    static constexpr int kDefaultFetchLimit = 1000;

    struct Outcome
    {
        bool complete = true; // false: ask again with requestCount() (nothing else is set)
        QList<SlowlogEntry> fresh; // oldest first
        bool reset = false;
        qint64 missed = 0;
        int epoch = 0;
    };

    // Entries fetched per poll at most; more than that between two polls count as missed.
    void setFetchLimit(int limit);
    int fetchLimit() const { return m_limit; }
    // The count for the next SLOWLOG GET.
    int requestCount() const { return m_request; }

    Outcome apply(const SlowlogPage &page);

    qint64 lastSeenId() const { return m_lastId; } // -1: none yet
    int epoch() const { return m_epoch; }
    qint64 totalMissed() const { return m_totalMissed; }
    int resetCount() const { return m_resets; }

private:
    qint64 m_lastId = -1;
    qint64 m_lastLength = -1;
    QByteArray m_runId;
    bool m_started = false;
    bool m_pendingRestart = false;
    bool m_pendingCleared = false;
    int m_epoch = 0;
    int m_request = kFirstRequest;
    int m_limit = kDefaultFetchLimit;
    qint64 m_totalMissed = 0;
    int m_resets = 0;
};

class SlowlogAggregateModel;

// The slow log entries seen so far, newest first. Keeps the last capacity() entries (10,000 by
// default); older ones leave with one beginRemoveRows. Entries are unique by (epoch, id): a
// batch may overlap what is held, only newer entries are added, with one beginInsertRows.
// aggregate() is kept in step with what this model holds.
class SlowlogModel : public QAbstractTableModel
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
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // numbers for numeric columns
        IdRole, // qint64
        EpochRole, // int
        KeyRole, // QByteArray: the entry's key, exact bytes; invalid when it has none
        FlagRole, // int (SlowlogFlag)
        DurationUsRole, // qint64
        TimestampRole, // qint64 seconds
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
    int rowOf(int epoch, qint64 id) const; // -1 when not held
    SlowlogAggregateModel *aggregate() const { return m_aggregate; }

    static QString durationText(qint64 us); // "850 µs", "12.3 ms", "1.25 s"

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row
    {
        SlowlogEntry entry;
        int epoch = 0;
        SlowlogFlag flag = SlowlogFlag::None;
        QString reason;
        QString text; // the command as the table shows it
    };
    const Row &rowAt(int row) const { return m_rows[m_rows.size() - 1 - std::size_t(row)]; }
    void judgeRow(Row &row) const;

    std::deque<Row> m_rows; // oldest first; the view shows them newest first
    int m_capacity = kDefaultCapacity;
    int m_lastEpoch = -1;
    qint64 m_lastId = -1;
    QHash<QByteArray, qint64> m_keySizes;
    QColor m_problemColor = QColor(0xc6, 0x28, 0x28);
    SlowlogAggregateModel *m_aggregate;
};

// Slow log entries by command name ("GET", "CONFIG SET"): how many, total and percentile
// durations. Percentiles are exact, by nearest rank over the durations held: p of n sorted
// values is the value at rank ceil(p * n).
class SlowlogAggregateModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { CommandColumn, CountColumn, TotalColumn, P50Column, P99Column, MaxColumn, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, CommandRole };

    explicit SlowlogAggregateModel(QObject *parent = nullptr);

    // Nearest-rank percentile of ascending 'sorted' (p in (0, 1]); -1 when empty.
    static qint64 percentile(const QList<qint64> &sorted, double p);

    // Applies what the entry model added and dropped: new names are appended with one
    // beginInsertRows, changed rows get one dataChanged, names with no entries left go.
    void update(const QList<SlowlogEntry> &added, const QList<SlowlogEntry> &removed);
    void clear();

    int rowOf(const QByteArray &command) const { return int(m_order.indexOf(command)); }
    qint64 countAt(int row) const;
    qint64 totalUsAt(int row) const;
    qint64 p50UsAt(int row) const;
    qint64 p99UsAt(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Group
    {
        QList<qint64> durations; // ascending
        qint64 totalUs = 0;
        qint64 p50 = -1;
        qint64 p99 = -1;
    };
    const Group &groupAt(int row) const { return *m_groups.constFind(m_order.at(row)); }

    QHash<QByteArray, Group> m_groups;
    QList<QByteArray> m_order; // row order: first seen first
};

// Polls the slow log while running: SLOWLOG GET n, SLOWLOG LEN and CONFIG GET slowlog-* in one
// pipeline every interval (2 s by default), through a SlowlogTracker. For entries that read a
// whole collection it asks SCARD/HLEN/LLEN once per key (at most kMaxKeySizeLookups keys per
// poller), so flags can tell a big key from a small one. Headless: panels and reports wire its
// signals to a SlowlogModel.
class SlowlogPoller : public QObject
{
    Q_OBJECT
public:
    static constexpr int kDefaultIntervalMs = 2000;
    static constexpr int kMaxKeySizeLookups = 500;
    static constexpr int kKeySizesPerBatch = 32;

    explicit SlowlogPoller(RedisClient *client, QObject *parent = nullptr);
    ~SlowlogPoller() override;

    void setIntervalMs(int ms);
    int intervalMs() const { return m_intervalMs; }
    void setFetchLimit(int limit) { m_tracker.setFetchLimit(limit); }

    bool isRunning() const { return m_running; }
    // Polls at once, then every interval. stop() drops the poll in flight.
    void start();
    void stop();
    void pollNow();

    const SlowlogTracker &tracker() const { return m_tracker; }
    const SlowlogConfig &config() const { return m_config; }
    // Why the last poll of the slow log failed; kind None after a good one.
    const RedisError &lastError() const { return m_error; }
    const RedisError &configError() const { return m_configError; }
    int completedPolls() const { return m_polls; }

Q_SIGNALS:
    void entriesAvailable(const QList<SlowlogEntry> &entries, int epoch); // oldest first
    void configAvailable(const SlowlogConfig &config);
    void resetDetected();
    void entriesMissed(qint64 count);
    void keySizeAvailable(const QByteArray &key, qint64 size);
    // The slow log could not be read (NOPERM, connection lost...), or can again (kind None).
    void errorChanged(const RedisError &error);
    // After every poll, good or bad, once its pages are applied.
    void polled();

private:
    void tick();
    void request(int count, int attempt);
    void onReply(const RedisReply &reply, int count, int attempt);
    void setError(const RedisError &error);
    void askKeySizes();

    RedisClient *m_client;
    QTimer *m_timer;
    SlowlogTracker m_tracker;
    SlowlogConfig m_config;
    RedisError m_error;
    RedisError m_configError;
    RequestId m_inFlight = 0;
    RequestId m_sizesInFlight = 0;
    int m_intervalMs = kDefaultIntervalMs;
    bool m_running = false;
    int m_polls = 0;
    QSet<QByteArray> m_sizeAsked;
    QList<RedisCommand> m_sizeQueue;
    QList<RedisCommand> m_sizeBatch; // in flight
};
