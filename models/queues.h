// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keytype.h"
#include "patternrules.h"
#include "rediscommand.h"
#include "rowtablemodel.h"

#include <QAbstractTableModel>
#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QVersionNumber>
#include <optional>

class QTimer;
class RedisClient;

enum class QueueKind : quint8 { Queue, ProcessingList, DelayedJobs, NotAQueue };
QString queueKindName(QueueKind kind); // "queue", "processing list", "delayed jobs", "not a queue"
QByteArray queueKindId(QueueKind kind); // "queue", "processing", "delayed", "none" (the JSON file's spelling)
std::optional<QueueKind> queueKindFromId(const QByteArray &id);

enum class EpochUnit : quint8 { None, Seconds, Milliseconds };
// Seconds or milliseconds when every score is an epoch time within ten years of nowMs; the
// test itself is ZSetKind's (models/geo.h), so queues and geo detection never disagree.
EpochUnit detectEpochUnit(const QList<double> &scores, qint64 nowMs);

// The epoch time an item carries, in ms: a JSON object's enqueued_at / created_at / ts /
// timestamp / queued_at field (epoch s or ms, number or numeric string), or a leading epoch
// number ("1718000000123:payload"). 'source' says what was read ("enqueued_at (ms)").
std::optional<qint64> itemTimestampMs(const QByteArray &item, qint64 nowMs, QString *source = nullptr);

// The pattern kinds that are queues here; a user rule of another kind says "not a queue".
std::optional<QueueKind> queueKindOf(PatternKind kind);
PatternKind patternKindOf(QueueKind kind);

struct QueueClassification
{
    QueueKind kind = QueueKind::NotAQueue;
    QString reason; // one line: why
    QByteArray queue; // for a processing list: the queue it belongs to
    EpochUnit unit = EpochUnit::None; // for delayed jobs: the unit of the scores
};

// What counts as a queue, in one place. User rules (the shared rules file, ordered, first
// match wins) come before the built-in ones, which look at name segments (split on ':', '.',
// '/') and, for sorted sets, at the scores. A user rule of a kind that is not a queue kind
// (a lock, a leaderboard…) makes the key "not a queue".
class QueueRules
{
public:
    const PatternRules &userRules() const { return m_rules; }
    void setUserRules(const PatternRules &rules) { m_rules = rules; }
    void setUserRules(const QList<PatternRule> &rules) { m_rules.setRules(rules); }

    // 'scores': a sample of a sorted set's scores (lowest few and the highest), if read.
    QueueClassification classify(const QByteArray &key, KeyType type, const QList<double> *scores = nullptr,
                                 qint64 nowMs = 0) const;

    // One line per built-in rule, for the rules tab.
    static QStringList builtInDescriptions();
    static const QList<QByteArray> &queueSegments();
    static const QList<QByteArray> &processingSegments();
    static const QList<QByteArray> &delayedSegments();

private:
    PatternRules m_rules;
};

// ---- what the loader reads ----

struct ProcessingListInfo
{
    QByteArray key;
    qint64 length = 0;
    QByteArray tail; // the oldest item (see QueuesLoader)
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

// ---- the loader ----

// Classifies the scan's lists and sorted sets with QueueRules (sorted sets from a paced
// sample, at most kMaxZSets), then reads each queue, its processing lists and each delayed-job
// set with bounded commands, again every kRefreshMs while polling.
class QueuesLoader : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMaxZSets = 300;
    static constexpr int kMaxLists = 1000;
    static constexpr int kZSetsPerRound = 20;
    static constexpr int kRefreshMs = 5000;
    static constexpr int kPeekBytes = 200;
    static constexpr qint64 kDefaultStaleMs = 5 * 60 * 1000;

    explicit QueuesLoader(RedisClient *client, QObject *parent = nullptr);

    QueueRules &rules() { return m_rules; }
    void setKeys(const QList<QByteArray> &lists, const QList<QByteArray> &zsets);
    // Classifies again (after the rules changed) without forgetting growth samples.
    void reclassify();
    void refresh();
    void setPolling(bool on);
    void setStaleThresholdMs(qint64 ms) { m_staleMs = ms; }
    qint64 staleThresholdMs() const { return m_staleMs; }
    void overrideServerVersion(const QVersionNumber &v) { m_versionOverride = v; }

    bool isClassified() const { return m_classified; }
    const QHash<QByteArray, QueueClassification> &classifications() const { return m_classes; }
    QList<QByteArray> keysOfKind(QueueKind kind) const;

    QueuesModel *queuesModel() const { return m_queues; }
    DelayedModel *delayedModel() const { return m_delayed; }

    // The next-due read, by server version (BYSCORE needs 6.2).
    static RedisCommand nextDueCommand(const QByteArray &key, const QByteArray &now, const QVersionNumber &version);

Q_SIGNALS:
    void classified();
    void refreshed();
    void failed(const QString &message);

private:
    void sampleRound();
    void finishClassification();
    QList<double> parseScores(const RedisValue &v) const;

    RedisClient *m_client;
    QueueRules m_rules;
    QueuesModel *m_queues;
    DelayedModel *m_delayed;
    QTimer *m_pace;
    QTimer *m_poll;
    QList<QByteArray> m_lists, m_zsets, m_toSample;
    QHash<QByteArray, QList<double>> m_samples;
    QHash<QByteArray, QueueClassification> m_classes;
    QHash<QByteArray, QList<QPair<qint64, qint64>>> m_lengthSamples; // key → (ms, LLEN)
    QVersionNumber m_versionOverride;
    QPointer<QObject> m_context; // replaced on setKeys: older replies are dropped
    qint64 m_staleMs = kDefaultStaleMs;
    bool m_classified = false;
    bool m_refreshing = false;
    bool m_refreshAgain = false; // asked while a refresh was in flight (the rules changed)
};
