// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "queues.h"
#include "rediscommand.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QVersionNumber>

class QTimer;
class RedisClient;
class RedisValue;

// Classifies the scan's lists and sorted sets with QueueRules (sorted sets from a paced
// sample, at most kMaxZSets), then reads each queue, its processing lists and each delayed-job
// set with bounded commands and emits the rows (queuesAvailable), again every kRefreshMs while
// polling. Read once: setKeys(), then one queuesAvailable (refresh() reads again, no timer).
class QueuesReader : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMaxZSets = 300;
    static constexpr int kMaxLists = 1000;
    static constexpr int kZSetsPerRound = 20;
    static constexpr int kRefreshMs = 5000;
    static constexpr qint64 kDefaultStaleMs = 5 * 60 * 1000;

    explicit QueuesReader(RedisClient *client, QObject *parent = nullptr);

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

    // The next-due read, by server version (BYSCORE needs 6.2).
    static RedisCommand nextDueCommand(const QByteArray &key, const QByteArray &now, const QVersionNumber &version);

Q_SIGNALS:
    void classified();
    // One round's results: every queue with its processing lists, every delayed-job set.
    void queuesAvailable(const QList<QueueInfo> &queues, const QList<DelayedInfo> &delayed);
    void failed(const QString &message);

private:
    void sampleRound();
    void finishClassification();
    QList<double> parseScores(const RedisValue &v) const;
    // A round: the rows to read, their commands, then the replies read into the rows in order.
    QList<QueueInfo> plannedQueues() const;
    QList<DelayedInfo> plannedDelayed(qint64 now) const;
    static QList<RedisCommand> queueCommands(const QList<QueueInfo> &queues);
    static QList<RedisCommand> delayedCommands(const QList<DelayedInfo> &delayed, qint64 now,
                                               const QVersionNumber &version);
    void readQueue(const RedisReply &r, qsizetype *i, qint64 now, QueueInfo *q);
    static void readDelayed(const RedisReply &r, qsizetype *i, qint64 now, DelayedInfo *d);

    RedisClient *m_client;
    QueueRules m_rules;
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
