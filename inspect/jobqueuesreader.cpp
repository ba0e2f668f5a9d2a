// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobqueuesreader.h"

#include "format.h"
#include "jobpage.h"

#include "boundedread.h"
#include "clusterrouter.h"
#include "redisclient.h"
#include "rediscommand.h"

#include <QDateTime>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTimeZone>
#include <QTimer>

#include <cmath>
#include <optional>

namespace {

bool isBull(const QString &library)
{
    return library == QLatin1String("BullMQ") || library == QLatin1String("Bull");
}

using jobpages::epochMs;

// The enqueue time inside a job payload (Sidekiq: float seconds, or integer ms from 8.0).
qint64 payloadEnqueuedMs(const QByteArray &payload)
{
    const QJsonObject o = QJsonDocument::fromJson(payload).object();
    for (const char *field : {"enqueued_at", "created_at"}) {
        const QJsonValue v = o.value(QLatin1String(field));
        if (v.isDouble()) {
            const qint64 ms = epochMs(QByteArray::number(v.toDouble(), 'f', 3));
            if (ms > 0)
                return ms;
        }
    }
    return 0;
}

// A job payload's queue and id: Sidekiq's {"queue", "jid"}; Celery's message, whose id is in its
// headers and whose queue is the routing key it was delivered with.
QPair<QByteArray, QByteArray> payloadQueueAndId(const QJsonObject &o)
{
    QByteArray queue = o.value(QLatin1String("queue")).toString().toUtf8();
    QByteArray id = o.value(QLatin1String("jid")).toString().toUtf8();
    if (id.isEmpty())
        id = o.value(QLatin1String("headers")).toObject().value(QLatin1String("id")).toString().toUtf8();
    if (queue.isEmpty())
        queue = o.value(QLatin1String("properties"))
                    .toObject()
                    .value(QLatin1String("delivery_info"))
                    .toObject()
                    .value(QLatin1String("routing_key"))
                    .toString()
                    .toUtf8();
    return {queue, id};
}

// BullMQ and Bull renew a running job's lock every half of its duration, so the longest lock
// TTL among the active jobs is close to the duration. A job that has run many times longer
// still holds its lock, but it is likely stuck (an await that never settles).
void flagLongRunning(JobQueueInfo &q)
{
    qint64 lockMs = 0;
    for (const ActiveJob &a : std::as_const(q.active))
        lockMs = qMax(lockMs, a.lockTtlMs);
    if (lockMs <= 0)
        return;
    for (ActiveJob &a : q.active) {
        if (a.stalled || a.lockTtlMs < 0 || a.runningMs < JobQueuesReader::kLongRunningLocks * lockMs)
            continue;
        a.longRunning = true;
        a.why = QStringLiteral("running for %1, %2× its lock's duration (about %3)")
                    .arg(format::duration(a.runningMs))
                    .arg(a.runningMs / lockMs)
                    .arg(format::duration(lockMs));
    }
}

// The state key's length: how many jobs it holds (a string holds none).
RedisCommand lengthCommand(const JobQueueKey &k)
{
    return k.type == KeyType::String ? RedisCommand() : boundedread::lengthOf(k.key, k.type);
}

} // namespace

// One refresh: the rows being read and, per phase, what to send and how to read the answers.
struct JobQueuesReader::Round
{
    QList<JobQueueInfo> rows;
    qint64 now = 0;
    bool readClients = false; // CLIENT LIST is due this round
    std::optional<QByteArray> clients;
    int nodeListsLeft = 0; // CLIENT LIST of a cluster's primaries still to come
    bool phasesDone = false;
    QList<RedisCommand> commands;
    QList<std::function<void(const RedisValue &)>> readers;
    // What phase 0 found, for the next phases.
    struct Pending
    {
        QList<QByteArray> bullActive;
        QByteArray oldestId;
        QList<QPair<QByteArray, double>> rqStarted; // member, expiry score
        QList<QByteArray> rqWorkers; // worker keys
        QList<QByteArray> sidekiqProcesses;
        QHash<QByteArray, QByteArray> rqJobWorker; // job id → worker name
        // A library-wide key's jobs, each with the queue it names: Sidekiq's schedule, retry and
        // dead sets and its processes' work, Celery's unacked messages.
        struct Attributed
        {
            QString role;
            QByteArray queue;
            ActiveJob job;
            QByteArray tag; // Celery: the delivery tag, to find the message's time
        };
        QHash<QByteArray, double> unackedAt; // Celery: delivery tag → epoch seconds
        QList<Attributed> attributed;
        QHash<QString, qint64> sampled; // role → jobs read of it (a page, not every one)
        QList<QByteArray> queueNames; // queues the library lists (Sidekiq's queues set)
    };
    QList<Pending> pending;

    void add(RedisCommand command, std::function<void(const RedisValue &)> read)
    {
        commands.append(std::move(command));
        readers.append(std::move(read));
    }
};

JobQueuesReader::JobQueuesReader(RedisClient *client, QObject *parent)
    : QObject(parent), m_client(client), m_poll(new QTimer(this))
{
    m_poll->setInterval(kRefreshMs);
    connect(m_poll, &QTimer::timeout, this, &JobQueuesReader::refresh);
}

JobQueuesReader::~JobQueuesReader() = default;

qint64 JobQueuesReader::now() const
{
    return m_nowOverride > 0 ? m_nowOverride : QDateTime::currentMSecsSinceEpoch();
}

void JobQueuesReader::setQueues(const QList<JobQueueSpec> &queues)
{
    m_clientsAtMs = 0;
    delete m_context;
    m_context = new QObject(this);
    m_queues = queues.mid(0, kMaxQueues);
    m_previous.clear();
    m_reading = false;
    m_again = false;
}

void JobQueuesReader::setPolling(bool on)
{
    if (on) {
        m_poll->start();
        refresh();
    } else {
        m_poll->stop();
    }
}

void JobQueuesReader::refresh()
{
    if (m_reading) {
        m_again = true;
        return;
    }
    if (!m_context)
        m_context = new QObject(this);
    auto round = std::make_shared<Round>();
    round->now = now();
    for (const JobQueueSpec &spec : std::as_const(m_queues)) {
        JobQueueInfo info;
        info.spec = spec;
        info.readAtMs = round->now;
        round->rows.append(info);
    }
    round->pending.resize(round->rows.size());
    for (const JobQueueInfo &q : std::as_const(round->rows)) {
        if (isBull(q.spec.library) && (m_clientsAtMs == 0 || round->now - m_clientsAtMs >= kClientListMs))
            round->readClients = true;
    }
    if (round->rows.isEmpty()) {
        Q_EMIT queuesAvailable({});
        return;
    }
    m_reading = true;
    runPhase(round, 0);
}

namespace {

// The row of a library's queue, made when the scan found no key of it (an empty Sidekiq queue,
// a Celery queue whose only jobs are unacknowledged).
JobQueueInfo &rowOf(QList<JobQueueInfo> &rows, const QString &library, const QByteArray &name, qint64 readAt)
{
    for (JobQueueInfo &q : rows) {
        if (q.spec.library == library && q.spec.name == name)
            return q;
    }
    JobQueueInfo q;
    q.spec.library = library;
    q.spec.name = name;
    q.readAtMs = readAt;
    rows.append(q);
    return rows.last();
}

} // namespace

// A library-wide key's jobs go to the queues they name. Where a set holds more jobs than the
// page read of it, each queue's share of the page is scaled to the set's size and the count
// is marked as an estimate.
void JobQueuesReader::distribute(Round &round)
{
    const qsizetype wide = round.rows.size(); // rows appended below are per-queue rows
    for (qsizetype i = 0; i < wide; ++i) {
        const Round::Pending p = round.pending.at(i);
        if (p.attributed.isEmpty() && p.queueNames.isEmpty())
            continue;
        const QString library = round.rows.at(i).spec.library;
        const QMap<QString, qint64> totals = round.rows.at(i).states;
        const QList<QueueWorker> workers = round.rows.at(i).workers;
        for (const QByteArray &name : p.queueNames)
            rowOf(round.rows, library, name, round.now);
        QHash<QByteArray, QHash<QString, qint64>> counts;
        for (const Round::Pending::Attributed &a : p.attributed) {
            if (a.queue.isEmpty())
                continue;
            JobQueueInfo &q = rowOf(round.rows, library, a.queue, round.now);
            ++counts[a.queue][a.role];
            if (a.role != QLatin1String("active") && a.role != QLatin1String("unacked"))
                continue;
            ActiveJob job = a.job;
            if (a.role == QLatin1String("unacked")) {
                const double at = p.unackedAt.value(a.tag, 0);
                if (at > 0)
                    job.runningMs = qMax<qint64>(0, round.now - qint64(at * 1000));
                if (job.runningMs > kCeleryVisibilityMs) {
                    job.stalled = true;
                    job.why = QStringLiteral("unacknowledged for longer than the visibility timeout");
                }
            } else {
                for (const QueueWorker &w : workers) {
                    if (w.name == job.worker && !w.alive) {
                        job.stalled = true;
                        job.why = QStringLiteral("its worker stopped beating");
                    }
                }
            }
            if (job.stalled)
                q.stalled.append(job.id);
            if (q.active.size() < JobQueueInfo::kActivePage)
                q.active.append(job);
        }
        for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
            JobQueueInfo &q = rowOf(round.rows, library, it.key(), round.now);
            for (auto role = it->cbegin(); role != it->cend(); ++role) {
                const qint64 read = p.sampled.value(role.key(), 0);
                const qint64 total = totals.value(role.key(), -1);
                qint64 n = role.value();
                if (read > 0 && total > read) {
                    n = std::llround(double(n) * double(total) / double(read));
                    q.estimated.append(role.key());
                }
                q.states.insert(role.key(), n);
            }
        }
    }
}

// Phase 0 of every queue: each state key's length; BullMQ's metrics.
void JobQueuesReader::addCounts(Round &round, qsizetype row)
{
    JobQueueInfo *q = &round.rows[row];
    const JobQueueSpec &spec = q->spec;
    const QString &lib = spec.library;
    for (const JobQueueKey &k : spec.keys) {
        if (!jobqueues::stateRoles().contains(k.role))
            continue;
        // Celery's unacked_index holds the same messages as its unacked hash: not twice.
        if (lib == QLatin1String("Celery") && k.type == KeyType::ZSet)
            continue;
        const RedisCommand c = lengthCommand(k);
        if (c.isEmpty())
            continue;
        q->states.insert(k.role, q->states.value(k.role, 0));
        round.add(c, [q, role = k.role](const RedisValue &v) {
            if (v.isInteger())
                q->states[role] += v.toInteger();
        });
    }
    if (lib == QLatin1String("BullMQ") && !spec.prefix.isEmpty()) {
        // Metrics: a count since they began, and one data point per minute, newest first.
        for (const auto &metric : {std::pair{"completed", &q->completed}, std::pair{"failed", &q->failed}}) {
            const char *type = metric.first;
            JobQueueInfo::Metrics *m = metric.second;
            const QByteArray key = spec.prefix + ":metrics:" + type;
            round.add({"HGET", key, "count"}, [m](const RedisValue &v) {
                bool ok = false;
                const qint64 n = v.bytes().toLongLong(&ok);
                if (ok)
                    m->total = n;
            });
            round.add({"LRANGE", key + ":data", "0", "59"}, [m](const RedisValue &v) {
                if (v.size() == 0) {
                    // Kept, but no minute has closed yet (getMetrics' data is empty too).
                    if (m->total >= 0)
                        m->lastHour = 0;
                    return;
                }
                qint64 sum = 0;
                for (const RedisValue &point : v.elements())
                    sum += point.bytes().toLongLong();
                m->lastHour = sum;
            });
        }
    }
}

// BullMQ and Bull: the version, the first page of active jobs and the oldest waiting job (phase
// 0); each active job's lock and start, the oldest job's enqueue time (phase 1).
void JobQueuesReader::readBull(Round &round, qsizetype row, int phase)
{
    JobQueueInfo *q = &round.rows[row];
    Round::Pending *p = &round.pending[row];
    const JobQueueSpec &spec = q->spec;
    const QString &lib = spec.library;
    const qint64 now = round.now;
    if (phase == 0) {
        if (const QByteArray meta = spec.keyOf(QStringLiteral("meta"));
            !meta.isEmpty() && lib == QLatin1String("BullMQ"))
            round.add({"HGET", meta, "version"},
                      [q](const RedisValue &v) { q->version = QString::fromUtf8(v.bytes()); });
        if (const QByteArray active = spec.keyOf(QStringLiteral("active")); !active.isEmpty())
            round.add({"LRANGE", active, "0", QByteArray::number(JobQueueInfo::kActivePage - 1)},
                      [p](const RedisValue &v) {
                          for (const RedisValue &e : v.elements())
                              p->bullActive.append(e.bytes());
                      });
        // Producers LPUSH and workers take from the right: the oldest is last.
        if (const QByteArray wait = spec.keyOf(QStringLiteral("waiting")); !wait.isEmpty())
            round.add({"LINDEX", wait, "-1"}, [p](const RedisValue &v) { p->oldestId = v.bytes(); });
    } else if (phase == 1) {
        for (const QByteArray &id : std::as_const(p->bullActive)) {
            const QByteArray job = spec.prefix + ':' + id;
            ActiveJob active;
            active.id = id;
            q->active.append(active);
            const qsizetype at = q->active.size() - 1;
            round.add({"PTTL", job + ":lock"}, [q, at](const RedisValue &v) {
                ActiveJob &a = q->active[at];
                a.lockTtlMs = v.toInteger();
                if (a.lockTtlMs == -2) {
                    a.stalled = true;
                    a.why = QStringLiteral("active without its lock: the worker that took it has stopped");
                    q->stalled.append(a.id);
                }
            });
            round.add({"HGET", job, "processedOn"}, [q, at, now](const RedisValue &v) {
                const qint64 started = epochMs(v.bytes());
                if (started > 0)
                    q->active[at].runningMs = qMax<qint64>(0, now - started);
            });
        }
        if (!p->oldestId.isEmpty())
            round.add({"HGET", spec.prefix + ':' + p->oldestId, "timestamp"}, [q, now](const RedisValue &v) {
                const qint64 at = epochMs(v.bytes());
                if (at > 0)
                    q->oldestWaitingMs = qMax<qint64>(0, now - at);
            });
    }
}

// RQ: the started registry, the oldest waiting job and the workers (phase 0); the started
// jobs' start and worker, the workers' heartbeats (phase 1); the heartbeats of the workers the
// started jobs name (phase 2).
void JobQueuesReader::readRq(Round &round, qsizetype row, int phase)
{
    JobQueueInfo *q = &round.rows[row];
    Round::Pending *p = &round.pending[row];
    const JobQueueSpec &spec = q->spec;
    const qint64 now = round.now;
    if (phase == 0) {
        if (const QByteArray wip = spec.keyOf(QStringLiteral("active")); !wip.isEmpty())
            round.add({"ZRANGE", wip, "0", QByteArray::number(JobQueueInfo::kActivePage - 1), "WITHSCORES"},
                      [p](const RedisValue &v) { p->rqStarted = boundedread::scoredMembers(v); });
        // RQ appends with RPUSH and workers pop the left: the oldest is first.
        if (const QByteArray wait = spec.keyOf(QStringLiteral("waiting")); !wait.isEmpty())
            round.add({"LINDEX", wait, "0"}, [p](const RedisValue &v) { p->oldestId = v.bytes(); });
        if (const QByteArray workers = spec.keyOf(QStringLiteral("workers")); !workers.isEmpty())
            round.add({"SRANDMEMBER", workers, QByteArray::number(kMaxWorkers)}, [p](const RedisValue &v) {
                for (const RedisValue &e : v.elements())
                    p->rqWorkers.append(e.bytes());
            });
    } else if (phase == 1) {
        for (const auto &[member, expiry] : std::as_const(p->rqStarted)) {
            // RQ 2 writes "<job id>:<execution id>"; RQ 1 the job id alone.
            const qsizetype colon = member.indexOf(':');
            const QByteArray id = colon > 0 ? member.left(colon) : member;
            ActiveJob a;
            a.id = id;
            if (qint64(expiry * 1000) < now) {
                a.stalled = true;
                a.why = QStringLiteral("past its deadline in the started registry");
            }
            q->active.append(a);
            const qsizetype at = q->active.size() - 1;
            round.add({"HMGET", "rq:job:" + id, "started_at", "worker_name"}, [q, p, at, now](const RedisValue &v) {
                ActiveJob &job = q->active[at];
                const qint64 started = epochMs(v.at(0).bytes());
                if (started > 0)
                    job.runningMs = qMax<qint64>(0, now - started);
                job.worker = QString::fromUtf8(v.at(1).bytes());
                if (!job.worker.isEmpty())
                    p->rqJobWorker.insert(job.id, v.at(1).bytes());
            });
        }
        if (!p->oldestId.isEmpty())
            round.add({"HGET", "rq:job:" + p->oldestId, "enqueued_at"}, [q, now](const RedisValue &v) {
                const qint64 at = epochMs(v.bytes());
                if (at > 0)
                    q->oldestWaitingMs = qMax<qint64>(0, now - at);
            });
        for (const QByteArray &key : std::as_const(p->rqWorkers)) {
            QueueWorker worker;
            worker.name = QString::fromUtf8(key.mid(qstrlen("rq:worker:")));
            q->workers.append(worker);
            const qsizetype at = q->workers.size() - 1;
            round.add({"HMGET", key, "last_heartbeat", "version"}, [q, at, now](const RedisValue &v) {
                QueueWorker &w = q->workers[at];
                const qint64 beat = epochMs(v.at(0).bytes());
                w.lastSeenMs = beat > 0 ? qMax<qint64>(0, now - beat) : -1;
                w.alive = beat > 0 && now - beat <= kRqStoppedMs;
                if (q->version.isEmpty() && !v.at(1).bytes().isEmpty())
                    q->version = QStringLiteral("rq %1").arg(QString::fromUtf8(v.at(1).bytes()));
            });
        }
    } else if (phase == 2) {
        // The workers that run the started jobs, read where the queue's own set missed them.
        QSet<QByteArray> asked;
        for (auto it = p->rqJobWorker.cbegin(); it != p->rqJobWorker.cend(); ++it) {
            const QByteArray &name = it.value();
            if (asked.contains(name))
                continue;
            asked.insert(name);
            round.add({"HGET", "rq:worker:" + name, "last_heartbeat"}, [q, name, now](const RedisValue &v) {
                const qint64 beat = epochMs(v.bytes());
                const bool alive = beat > 0 && now - beat <= kRqStoppedMs;
                for (ActiveJob &a : q->active) {
                    if (a.worker.toUtf8() != name || alive || a.stalled)
                        continue;
                    a.stalled = true;
                    a.why = beat > 0 ? QStringLiteral("its worker stopped beating")
                                     : QStringLiteral("its worker is gone");
                }
                for (QueueWorker &w : q->workers) {
                    if (w.name.toUtf8() == name && !alive)
                        w.alive = false;
                }
            });
        }
    }
}

// Sidekiq: the oldest waiting job, a page of the shared sets, the queues and processes, today's
// processed count (phase 0); each process's beat and its work (phase 1).
void JobQueuesReader::readSidekiq(Round &round, qsizetype row, int phase)
{
    JobQueueInfo *q = &round.rows[row];
    Round::Pending *p = &round.pending[row];
    const JobQueueSpec &spec = q->spec;
    const qint64 now = round.now;
    if (phase == 0) {
        if (const QByteArray wait = spec.keyOf(QStringLiteral("waiting")); !wait.isEmpty())
            round.add({"LINDEX", wait, "-1"}, [q, now](const RedisValue &v) {
                const qint64 at = payloadEnqueuedMs(v.bytes());
                if (at > 0)
                    q->oldestWaitingMs = qMax<qint64>(0, now - at);
            });
        for (const JobQueueKey &k : spec.keys) {
            // The scheduled, retry and dead sets serve every queue: a page of their jobs
            // says which queue each belongs to.
            if (k.type == KeyType::ZSet
                && (k.role == QLatin1String("scheduled") || k.role == QLatin1String("retry")
                    || k.role == QLatin1String("dead"))) {
                round.add({"ZRANGE", k.key, "0", QByteArray::number(JobQueueInfo::kActivePage - 1)},
                          [p, role = k.role](const RedisValue &v) {
                              for (const RedisValue &e : v.elements()) {
                                  const auto [queue, id]
                                      = payloadQueueAndId(QJsonDocument::fromJson(e.bytes()).object());
                                  ActiveJob job;
                                  job.id = id;
                                  p->attributed.append({role, queue, job, {}});
                              }
                              p->sampled[role] += v.size();
                          });
            } else if (k.role == QLatin1String("queues") && k.type == KeyType::Set) {
                round.add({"SRANDMEMBER", k.key, QByteArray::number(kMaxQueues)}, [p](const RedisValue &v) {
                    for (const RedisValue &e : v.elements())
                        p->queueNames.append(e.bytes());
                });
            }
        }
        if (const QByteArray processes = spec.keyOf(QStringLiteral("workers")); !processes.isEmpty()) {
            round.add({"SRANDMEMBER", processes, QByteArray::number(kMaxWorkers)}, [p](const RedisValue &v) {
                for (const RedisValue &e : v.elements())
                    p->sidekiqProcesses.append(e.bytes());
            });
            const QByteArray today
                = QDateTime::fromMSecsSinceEpoch(now, QTimeZone::utc()).date().toString(Qt::ISODate).toLatin1();
            round.add({"GET", "stat:processed:" + today}, [q](const RedisValue &v) {
                bool ok = false;
                const qint64 n = v.toInteger(&ok);
                q->processedToday = ok ? n : 0;
            });
        }
    } else if (phase == 1) {
        for (const QByteArray &identity : std::as_const(p->sidekiqProcesses)) {
            QueueWorker worker;
            worker.name = QString::fromUtf8(identity);
            q->workers.append(worker);
            const qsizetype at = q->workers.size() - 1;
            round.add({"HMGET", identity, "beat", "busy"}, [q, at, now](const RedisValue &v) {
                QueueWorker &w = q->workers[at];
                const qint64 beat = epochMs(v.at(0).bytes());
                // The process hash expires 60 s after the last beat: no hash, no process.
                w.lastSeenMs = beat > 0 ? qMax<qint64>(0, now - beat) : -1;
                w.alive = beat > 0 && now - beat <= kSidekiqStoppedMs;
            });
            // Sidekiq 7 and later keep a process's work in "<identity>:work", 6 in ":workers".
            for (const char *suffix : {":work", ":workers"}) {
                round.add({"HSCAN", identity + suffix, "0", "COUNT", QByteArray::number(kMaxWorkers)},
                          [q, p, at, now](const RedisValue &v) {
                              const RedisValue &fields = v.at(1);
                              for (qsizetype k = 1; k < fields.size(); k += 2) {
                                  const QJsonObject work = QJsonDocument::fromJson(fields.at(k).bytes()).object();
                                  const QJsonValue payload = work.value(QLatin1String("payload"));
                                  const QJsonObject job = payload.isString()
                                      ? QJsonDocument::fromJson(payload.toString().toUtf8()).object()
                                      : payload.toObject();
                                  auto [queue, id] = payloadQueueAndId(job);
                                  if (queue.isEmpty())
                                      queue = work.value(QLatin1String("queue")).toString().toUtf8();
                                  ActiveJob active;
                                  active.id = id;
                                  active.worker = q->workers.at(at).name;
                                  const QJsonValue runAt = work.value(QLatin1String("run_at"));
                                  const qint64 started
                                      = runAt.isDouble() ? epochMs(QByteArray::number(runAt.toDouble(), 'f', 3)) : 0;
                                  if (started > 0)
                                      active.runningMs = qMax<qint64>(0, now - started);
                                  q->workers[at].holds.append(id);
                                  p->attributed.append({QStringLiteral("active"), queue, active, {}});
                              }
                          });
            }
        }
    }
}

// Celery: a page of the unacknowledged messages and when each was delivered (phase 0).
void JobQueuesReader::readCelery(Round &round, qsizetype row)
{
    JobQueueInfo *q = &round.rows[row];
    Round::Pending *p = &round.pending[row];
    const JobQueueSpec &spec = q->spec;
    for (const JobQueueKey &k : spec.keys) {
        if (k.role != QLatin1String("unacked"))
            continue;
        if (k.type == KeyType::ZSet) {
            round.add({"ZRANGE", k.key, "0", QByteArray::number(JobQueueInfo::kActivePage - 1), "WITHSCORES"},
                      [p](const RedisValue &v) {
                          for (const auto &[tag, score] : boundedread::scoredMembers(v))
                              p->unackedAt.insert(tag, score);
                      });
        } else if (k.type == KeyType::Hash) {
            // tag → [message, exchange, routing key]: the routing key names the queue.
            round.add({"HSCAN", k.key, "0", "COUNT", QByteArray::number(JobQueueInfo::kActivePage)},
                      [p](const RedisValue &v) {
                          const RedisValue &fields = v.at(1);
                          for (qsizetype f = 0; f + 1 < fields.size(); f += 2) {
                              const QJsonArray entry = QJsonDocument::fromJson(fields.at(f + 1).bytes()).array();
                              auto [queue, id] = payloadQueueAndId(entry.at(0).toObject());
                              if (!entry.at(2).toString().isEmpty())
                                  queue = entry.at(2).toString().toUtf8();
                              ActiveJob job;
                              job.id = id;
                              p->attributed.append({QStringLiteral("unacked"), queue, job, fields.at(f).bytes()});
                          }
                          p->sampled[QStringLiteral("unacked")] += fields.size() / 2;
                      });
        }
    }
}

void JobQueuesReader::runPhase(const std::shared_ptr<Round> &round, int phase)
{
    round->commands.clear();
    round->readers.clear();
    if (phase == 0 && round->readClients) {
        if (m_client->cluster())
            readEveryNodesClients(round);
        else
            round->add({"CLIENT", "LIST"}, [round](const RedisValue &v) { round->clients = v.bytes(); });
    }
    for (qsizetype i = 0; i < round->rows.size(); ++i) {
        const QString lib = round->rows.at(i).spec.library;
        if (phase == 0)
            addCounts(*round, i);
        if (isBull(lib))
            readBull(*round, i, phase);
        else if (lib == QLatin1String("RQ"))
            readRq(*round, i, phase);
        else if (lib == QLatin1String("Sidekiq"))
            readSidekiq(*round, i, phase);
        else if (lib == QLatin1String("Celery") && phase == 0)
            readCelery(*round, i);
    }
    if (round->commands.isEmpty() && phase < 2) {
        runPhase(round, phase + 1);
        return;
    }
    if (round->commands.isEmpty()) {
        endPhases(round);
        return;
    }
    m_client->sendBatch(round->commands, m_context, [this, round, phase](const RedisReply &r) {
        if (!r.ok()) {
            m_reading = false;
            Q_EMIT failed(r.error.message);
            return;
        }
        for (qsizetype i = 0; i < round->readers.size(); ++i) {
            const RedisValue &v = r.value(i);
            if (!v.isError())
                round->readers.at(i)(v);
        }
        if (phase < 2)
            runPhase(round, phase + 1);
        else
            endPhases(round);
    });
}

void JobQueuesReader::readEveryNodesClients(const std::shared_ptr<Round> &round)
{
    const QList<RedisClient *> nodes = m_client->cluster()->primaryClients();
    round->nodeListsLeft = int(nodes.size());
    for (RedisClient *node : nodes) {
        node->send({"CLIENT", "LIST"}, m_context, [this, round](const RedisReply &r) {
            // A node that refuses (ACL) or is down leaves its workers out; the others count.
            if (r.ok() && !r.value().isError()) {
                if (!round->clients)
                    round->clients.emplace();
                *round->clients += r.value().bytes();
                if (!round->clients->endsWith('\n'))
                    *round->clients += '\n';
            }
            if (--round->nodeListsLeft == 0 && round->phasesDone)
                finishRound(round);
        });
    }
}

void JobQueuesReader::endPhases(const std::shared_ptr<Round> &round)
{
    round->phasesDone = true;
    if (round->nodeListsLeft == 0)
        finishRound(round);
}

// The round is read: the library-wide sets go to their queues, then stalls, workers, growth.
void JobQueuesReader::finishRound(const std::shared_ptr<Round> &round)
{
    m_reading = false;
    distribute(*round);
    if (round->clients) {
        m_clients = jobqueues::connectionWorkers(*round->clients); // parsed once, not per queue
        m_clientsAtMs = round->now;
    }
    for (JobQueueInfo &q : round->rows) {
        if (isBull(q.spec.library)) {
            flagLongRunning(q);
            q.workers += jobqueues::workersOf(m_clients, q.spec);
        }
        if (q.spec.library == QLatin1String("RQ")) {
            for (const ActiveJob &a : std::as_const(q.active)) {
                if (a.stalled)
                    q.stalled.append(a.id);
            }
            for (QueueWorker &w : q.workers) {
                if (w.alive)
                    continue;
                for (const ActiveJob &a : std::as_const(q.active)) {
                    if (a.worker == w.name)
                        w.holds.append(a.id);
                }
            }
        }
        for (const JobQueueInfo &before : std::as_const(m_previous)) {
            if (before.spec.id() != q.spec.id() || before.readAtMs >= q.readAtMs)
                continue;
            const double minutes = double(q.readAtMs - before.readAtMs) / 60000.0;
            for (auto it = q.states.cbegin(); it != q.states.cend(); ++it) {
                if (before.states.contains(it.key()))
                    q.growthPerMin.insert(it.key(), double(it.value() - before.states.value(it.key())) / minutes);
            }
        }
    }
    m_previous = round->rows;
    Q_EMIT queuesAvailable(round->rows);
    if (m_again) {
        m_again = false;
        refresh();
    }
}
