// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "jobqueues.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <functional>
#include <memory>

class QTimer;
class RedisClient;

// Reads the job queues of libraries (JobQueueSpec, from the pattern index) the way the
// libraries themselves count them: every state key's length (LLEN / ZCARD / SCARD / HLEN), the
// oldest waiting job's age, the first page of active jobs with their locks (BullMQ, Bull) or
// their workers (RQ), the workers and their heartbeats (Sidekiq processes, RQ workers), and
// the work a stopped worker still holds (Sidekiq's <identity>:work, RQ's started registry,
// Celery's unacked messages). Every read is bounded (pages of kActivePage, kMaxWorkers) and
// nothing is read while not polling, but for refresh(). One round is up to three pipelined
// batches; 'queuesAvailable' brings every queue at once.
class JobQueuesReader : public QObject
{
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 5000;
    static constexpr int kMaxQueues = 200;
    static constexpr int kMaxWorkers = 100;
    // A Sidekiq process beats every 10 s: three missed beats and it has stopped.
    static constexpr qint64 kSidekiqStoppedMs = 30000;
    // An RQ worker beats while it works (every 30 s by default, with 60 s of grace).
    static constexpr qint64 kRqStoppedMs = 90000;
    // BullMQ and Bull: an active job that has run this many times its lock's duration (the
    // longest lock TTL among the queue's active jobs: workers renew it at half its duration)
    // is flagged as running far past it.
    static constexpr int kLongRunningLocks = 20;
    // BullMQ and Bull workers are connections (jobqueues::connectionWorkers): CLIENT LIST, whose
    // reply grows with every client of the server, is read at most this often.
    static constexpr qint64 kClientListMs = 30000;
    // Celery's redis transport redelivers unacked messages after its visibility timeout.
    static constexpr qint64 kCeleryVisibilityMs = 3600 * 1000;

    explicit JobQueuesReader(RedisClient *client, QObject *parent = nullptr);
    ~JobQueuesReader() override;

    void setQueues(const QList<JobQueueSpec> &queues);
    const QList<JobQueueSpec> &queues() const { return m_queues; }
    // Reads once now (a round in flight finishes first and then another follows).
    void refresh();
    void setPolling(bool on);
    // Tests pretend the clock is elsewhere; 0: the wall clock.
    void setNowForTesting(qint64 ms) { m_nowOverride = ms; }

Q_SIGNALS:
    void queuesAvailable(const QList<JobQueueInfo> &queues);
    void failed(const QString &message);

private:
    struct Round;
    void runPhase(const std::shared_ptr<Round> &round, int phase);
    // What one queue adds to a phase's batch, by library (a row of round.rows).
    static void addCounts(Round &round, qsizetype row);
    static void readBull(Round &round, qsizetype row, int phase);
    static void readRq(Round &round, qsizetype row, int phase);
    static void readSidekiq(Round &round, qsizetype row, int phase);
    static void readCelery(Round &round, qsizetype row);
    // On a cluster: CLIENT LIST of every primary, one list (a worker is connected to the node
    // that holds its queue's slot), read beside the phases.
    void readEveryNodesClients(const std::shared_ptr<Round> &round);
    // The phases are read: the round ends once the node lists are in too.
    void endPhases(const std::shared_ptr<Round> &round);
    void finishRound(const std::shared_ptr<Round> &round);
    static void distribute(Round &round);
    qint64 now() const;

    RedisClient *m_client;
    QTimer *m_poll;
    QList<JobQueueSpec> m_queues;
    QList<JobQueueInfo> m_previous; // for growth
    jobqueues::ConnectionWorkers m_clients; // the last CLIENT LIST, for BullMQ and Bull workers
    qint64 m_clientsAtMs = 0;
    QPointer<QObject> m_context; // replaced on setQueues: older replies are dropped
    qint64 m_nowOverride = 0;
    bool m_reading = false;
    bool m_again = false;
};
