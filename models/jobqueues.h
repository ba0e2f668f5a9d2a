// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keytype.h"
#include "patterns.h"
#include "rowtablemodel.h"
#include "ttl.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMap>
#include <QString>

// Job queues as their users think of them: one row per queue of a job-queue library (BullMQ,
// Bull, Sidekiq, Celery, RQ, Resque, Laravel, or a library unknown to the catalogue), with its
// jobs counted per state, from the keys the pattern index found (PatternKind::JobQueue, whose
// params carry library, role and queue).

// One key of a queue: its role there ("waiting", "delayed"…).
struct JobQueueKey
{
    QByteArray key;
    KeyType type = KeyType::Unknown;
    QString role;
};

// What the scan found of one queue. Keys a library keeps for all its queues (Sidekiq's retry
// set, Celery's unacked hash) make a row of their own, with an empty name.
struct JobQueueSpec
{
    QString library;
    QByteArray name;
    QByteArray prefix; // what the queue's keys share, where the library has one ("bull:email")
    QList<JobQueueKey> keys;

    QByteArray id() const;
    bool isLibraryWide() const { return name.isEmpty(); }
    QByteArray keyOf(const QString &role) const; // the first key with that role, or empty
};

namespace jobqueues {
// The roles whose keys hold jobs, counted per state, in the order a table shows them.
const QStringList &stateRoles();
// Groups the matches of kind JobQueue into queues (keys of other roles are ignored: job hashes,
// locks, logs…). Queues in a stable order: library, then name.
QList<JobQueueSpec> group(const QList<PatternMatch> &matches);
// Whether a match is a queue's own key (a state list, a registry), not a job's or a worker's:
// the roles group() keeps.
bool isQueueKey(const PatternMatch &match);
} // namespace jobqueues

struct ActiveJob
{
    QByteArray id;
    qint64 runningMs = -1; // -1: the job carries no start time
    qint64 lockTtlMs = ttl::kUnknown; // BullMQ and Bull: the job's lock; kMissing: none (stalled)
    QString worker; // who runs it, where the library says
    bool stalled = false;
    // BullMQ and Bull: it holds its lock but has run far longer than the lock lasts (the worker
    // renews it while the job runs, so a job stuck in an endless await keeps it for ever).
    bool longRunning = false;
    QString why; // when stalled: "no lock", "worker stopped beating 2m ago"; when long running
};

struct QueueWorker
{
    QString name;
    qint64 lastSeenMs = -1; // age of the last heartbeat; -1 unknown
    bool alive = true;
    QList<QByteArray> holds; // jobs a stopped worker still holds
};

// One queue, read.
struct JobQueueInfo
{
    JobQueueSpec spec;
    QString version; // "bullmq:5.61.0", "rq 1.16.2"…; empty when the library does not record it
    QMap<QString, qint64> states; // role → jobs
    QMap<QString, double> growthPerMin; // role → change per minute since the last read
    QStringList estimated; // roles counted from a page of a bigger library-wide set, scaled
    qint64 oldestWaitingMs = -1; // age of the oldest waiting job; -1 unknown or none waiting
    QList<ActiveJob> active; // the first page (at most kActivePage)
    QList<QByteArray> stalled;
    QList<QueueWorker> workers;
    qint64 processedToday = -1; // where the library counts it (Sidekiq stat:processed:<date>)
    // BullMQ's metrics (a worker with the metrics option): jobs completed and failed since the
    // metrics began, and in the last hour (the per-minute data points); -1 where not kept.
    struct Metrics
    {
        qint64 total = -1;
        qint64 lastHour = -1;
    };
    Metrics completed, failed;
    qint64 readAtMs = 0;
    QString error; // a read that failed for this queue

    static constexpr int kActivePage = 100;
    qint64 state(const QString &role) const { return states.value(role, -1); }
    int deadWorkers() const;
    int longRunning() const;
    qint64 heldByDeadWorkers() const;
    Severity severity() const;
    QString problems() const; // one line: "2 stalled; 1 worker stopped holding 3 jobs"
};

class QJsonObject;
namespace jobqueues {
// BullMQ and Bull workers are connections, found by the name each library gives its workers'
// connections: "<prefix>:<base64 of the queue's name>", then ":w:<worker name>" for a named
// BullMQ worker (BullMQ's Queue.getWorkers and Bull's read CLIENT LIST the same way). From a
// CLIENT LIST reply, read once, every named connection as a worker (named by what follows ":w:",
// or by its address; last seen 'idle' seconds ago), by the name before ":w:"; then the workers
// of 'queue' (spec.prefix is "<prefix>:<name>") are one lookup.
using ConnectionWorkers = QHash<QByteArray, QList<QueueWorker>>;
ConnectionWorkers connectionWorkers(const QByteArray &clientList);
QList<QueueWorker> workersOf(const ConnectionWorkers &workers, const JobQueueSpec &queue);
// What `redislens show queues` prints of a queue (docs/schemas/show-queues.schema.json):
// name, library, version, prefix, states, growth, oldest_waiting_ms, active, stalled, workers.
QJsonObject toJson(const JobQueueInfo &queue);
} // namespace jobqueues

// The job queues as a table: queue, library, counts per state, oldest waiting, stalled,
// workers, problems. KeyRole is JobQueueSpec::id(); SeverityRole Bad while jobs are stalled or
// held by stopped workers, Warning while failures or dead jobs pile up.
class JobQueuesModel : public RowTableModel<JobQueueInfo>
{
    Q_OBJECT
public:
    explicit JobQueuesModel(QObject *parent = nullptr);
};

// One queue's active jobs (JobQueueInfo::active): job, running for, lock or worker, state.
// KeyRole is the job's id; SortRole the running time, the lock's time left and the severity;
// SeverityRole Bad for a stalled job, Warning for one running far past its lock's duration.
class ActiveJobsModel : public RowTableModel<ActiveJob>
{
    Q_OBJECT
public:
    enum Column { JobColumn, RunningColumn, LockColumn, StateColumn, ColumnCount };
    explicit ActiveJobsModel(QObject *parent = nullptr);

    static Severity severityOf(const ActiveJob &job);
};
