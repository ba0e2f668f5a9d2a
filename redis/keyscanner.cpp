// SPDX-License-Identifier: GPL-3.0-or-later
#include "keyscanner.h"
#include "threadcheck.h"

#include "clusterrouter.h"
#include "clusterscan_p.h"
#include "loadprobe.h"
#include "redisclient.h"
#include "scanjob_p.h"

#include <QDateTime>
#include <QThread>
#include <QTimer>

namespace {
// SCAN round trips slower than this shrink COUNT; faster ones grow it.
constexpr qint64 kSlowScanMs = 50;
constexpr qint64 kFastScanMs = 10;
constexpr int kHoldPollMs = 50;

// Run ids of two server processes; unknown (no INFO permission) counts as the same.
bool sameServer(const QByteArray &a, const QByteArray &b)
{
    return a.isEmpty() || b.isEmpty() || a == b;
}
} // namespace

ScanJob::ScanJob(RedisWorker *worker, const ScanOptions &options, quint64 generation)
    : m_worker(worker),
      m_options(options),
      m_generation(generation),
      m_count(qBound(10, options.initialCount, qMax(10, options.maxCount))),
      m_ceiling(options.maxCommandsPerSecond == kAdaptivePacing ? ScanPacer::kHold
                                                                : qMax(0, options.maxCommandsPerSecond))
{
    if (options.maxCommandsPerSecond == kAdaptivePacing)
        m_paceReason = QStringLiteral("measuring the server before scanning");
    m_batch.generation = generation;
}

void ScanJob::start()
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    m_clock.start();
    m_flushTimer = new QTimer(this);
    m_flushTimer->setInterval(m_options.flushIntervalMs);
    connect(m_flushTimer, &QTimer::timeout, this, &ScanJob::flush);
    m_flushTimer->start();
    // One pacing timer, so a lost connection can cancel the wait: otherwise the old wait and
    // the resumed scan would both send the next SCAN.
    m_paceTimer = new QTimer(this);
    m_paceTimer->setSingleShot(true);
    connect(m_paceTimer, &QTimer::timeout, this, [this] {
        m_scanPending = false;
        if (!m_paused && !m_waiting && !m_finished)
            sendScanPaced(m_nextCursor);
    });
    m_cursorRunId = m_worker->facts().runId;
    connect(m_worker, &RedisWorker::ready, this, [this] {
        if (m_waiting && !m_finished) {
            m_paceTimer->stop();
            m_waiting = false;
            m_error = {};
            m_scanDone = false;
            m_outstanding = 0;
            if (!m_paused)
                sendScan(m_resumeCursor);
            else
                m_nextCursor = m_resumeCursor;
        }
    });
    QPointer<ScanJob> self(this);
    m_worker->submit(nextRequestId(), {{"DBSIZE"}}, [self](const RedisReply &r) {
        if (self && r.value().isInteger()) {
            self->m_dbsize = r.value().toInteger();
            Q_EMIT self->progressChanged(self->progress());
        }
    });
    sendScan("0");
}

void ScanJob::pause()
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    m_paused = true;
    Q_EMIT progressChanged(progress());
}

void ScanJob::resume()
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    if (!m_paused)
        return;
    m_paused = false;
    if (!m_scanPending && !m_scanDone && !m_waiting && !m_finished)
        sendScan(m_nextCursor);
    Q_EMIT progressChanged(progress());
}

void ScanJob::setCeiling(int commandsPerSecond, const QString &reason)
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    if (m_finished)
        return; // queued before the probe went: the scan's last word was its finish
    m_paceReason = reason;
    if (commandsPerSecond != m_ceiling) {
        m_ceiling = qMax(ScanPacer::kHold, commandsPerSecond);
        m_paceFromMs = m_clock.elapsed();
        m_paceFromCommands = m_commandsSent;
        // A wait computed under the old ceiling ends now; the new one decides the next step.
        if (m_paceTimer && m_paceTimer->isActive())
            m_paceTimer->start(0);
    }
    Q_EMIT progressChanged(progress());
}

void ScanJob::sendScanPaced(const QByteArray &cursor)
{
    // Held while the load probe measures the server without the scan: look again shortly.
    if (m_ceiling == ScanPacer::kHold) {
        m_nextCursor = cursor;
        m_scanPending = true;
        m_paceTimer->start(kHoldPollMs);
        return;
    }
    // The ceiling is an average since it was set: a burst after an idle moment is allowed,
    // a sustained rate above the ceiling is not.
    if (m_ceiling > 0) {
        const qint64 dueMs = m_paceFromMs + (m_commandsSent - m_paceFromCommands) * 1000 / m_ceiling;
        const qint64 wait = dueMs - m_clock.elapsed();
        if (wait > 0) {
            // Remember the cursor now: a pause before the timer fires must resume here, not
            // at the step before (which would scan it twice).
            m_nextCursor = cursor;
            m_scanPending = true;
            m_paceTimer->start(int(qMin<qint64>(wait, 1000)));
            return;
        }
    }
    sendScan(cursor);
}

void ScanJob::sendScan(const QByteArray &resumeAt)
{
    // A cursor means nothing to another server process (its hash seed differs): after a
    // restart or a failover, walk the keyspace again. The model drops the duplicates.
    const QByteArray runId = m_worker->facts().runId;
    const QByteArray cursor = sameServer(runId, m_cursorRunId) ? resumeAt : QByteArray("0");
    m_nextCursor = cursor;
    if (m_paused || m_finished)
        return;
    int count = m_count;
    // With a ceiling, one step never carries more than a tenth of a second's budget; with a
    // measured one, a fiftieth: a long pipeline is what other clients' tail latency sees.
    const int perKey = commandsPerKey();
    const int stepsPerSecond = m_options.maxCommandsPerSecond == kAdaptivePacing ? 50 : 10;
    if (m_ceiling > 0 && perKey > 0)
        count = qMax(1, qMin(count, m_ceiling / stepsPerSecond / perKey));
    RedisCommand scan{"SCAN", cursor};
    if (!m_options.match.isEmpty())
        scan << "MATCH" << m_options.match;
    scan << "COUNT" << QByteArray::number(count);
    const QByteArray typeArg = keyTypeScanArgument(m_options.type);
    if (!typeArg.isEmpty())
        scan << "TYPE" << typeArg;
    ++m_outstanding;
    ++m_commandsSent;
    m_scanPending = true;
    const qint64 sentAt = m_clock.elapsed();
    QPointer<ScanJob> self(this);
    m_worker->submit(nextRequestId(), {scan}, [self, cursor, sentAt, runId](const RedisReply &r) {
        if (self)
            self->onScanReply(cursor, r, sentAt, runId);
    });
}

void ScanJob::onScanReply(const QByteArray &cursor, const RedisReply &reply, qint64 sentAtMs,
                          const QByteArray &sentRunId)
{
    --m_outstanding;
    m_scanPending = false;
    if (m_finished)
        return;
    const RedisError err = reply.firstError();
    if (err) {
        onFailure(err);
        return;
    }
    const RedisValue &v = reply.value();
    if (!v.isArray() || v.size() != 2 || !v.at(1).isArray()) {
        onFailure(RedisError::make(RedisError::Kind::Protocol, QStringLiteral("SCAN returned an unexpected reply")));
        return;
    }
    // Sent before a reconnect and answered by another server process: the names are real
    // keys, but the cursor it continued from was not this server's. Start the walk over.
    const QByteArray runId = m_worker->facts().runId;
    const bool restart = cursor != "0" && !sameServer(runId, sentRunId);
    m_cursorRunId = runId;
    const QByteArray next = restart ? QByteArray("0") : v.at(0).bytes();
    const QList<RedisValue> &names = v.at(1).elements();
    m_returned += quint64(names.size());

    const qint64 took = m_clock.elapsed() - sentAtMs;
    if (took > kSlowScanMs)
        m_count = qMax(10, m_count / 2);
    else if (took < kFastScanMs && !names.isEmpty())
        m_count = qMin(m_options.maxCount, m_count * 2);

    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (m_options.details && !names.isEmpty()) {
        QList<QByteArray> keys;
        keys.reserve(names.size());
        QList<RedisCommand> cmds;
        cmds.reserve(names.size() * (1 + (m_options.ttl ? 1 : 0) + (m_options.memory ? 1 : 0)));
        // Shared command names: a million keys should not mean two million small allocations.
        static const QByteArray type("TYPE"), pttl("PTTL"), memory("MEMORY"), usage("USAGE");
        for (const RedisValue &n : names) {
            keys.append(n.bytes());
            cmds.append(RedisCommand{type, n.bytes()});
            if (m_options.ttl)
                cmds.append(RedisCommand{pttl, n.bytes()});
            if (m_options.memory)
                cmds.append(RedisCommand{memory, usage, n.bytes()});
        }
        ++m_outstanding;
        m_commandsSent += cmds.size();
        QPointer<ScanJob> self(this);
        m_worker->submit(nextRequestId(), cmds, [self, keys, next](const RedisReply &r) {
            if (self)
                self->onDetails(keys, next, r);
        });
    } else {
        m_batch.capturedAtMs = now;
        for (const RedisValue &n : names) {
            ScannedKey k;
            k.name = n.bytes();
            m_batch.keys.append(std::move(k));
        }
        m_resumeCursor = next;
    }
    if (next == "0" && !restart) {
        m_scanDone = true;
        maybeFinish();
    } else {
        // Sent right behind the details request: the server works on the next step while
        // this thread parses the previous one.
        sendScanPaced(next);
    }
}

void ScanJob::onDetails(const QList<QByteArray> &keys, const QByteArray &cursorAfter, const RedisReply &reply)
{
    --m_outstanding;
    if (m_finished)
        return;
    if (!reply.ok()) {
        onFailure(reply.error);
        return;
    }
    const int ttlAt = m_options.ttl ? 1 : 0; // reply offsets within one key's stride
    const int memoryAt = m_options.memory ? 1 + ttlAt : 0;
    const int stride = 1 + ttlAt + (m_options.memory ? 1 : 0);
    const qint64 capturedAt = QDateTime::currentMSecsSinceEpoch();
    QList<ScannedKey> found;
    found.reserve(keys.size());
    for (qsizetype i = 0; i < keys.size(); ++i) {
        const RedisValue &type = reply.value(i * stride);
        ScannedKey k;
        k.name = keys.at(i);
        k.type = type.isError() ? KeyType::Unknown : keyTypeFromReply(type.bytes());
        if (ttlAt)
            k.pttlMs = ttl::fromReply(reply.value(i * stride + ttlAt));
        // Deleted (or expired) between SCAN and TYPE: not part of the keyspace any more.
        if (k.type == KeyType::None || k.pttlMs == -2) {
            ++m_vanished;
            continue;
        }
        if (memoryAt) {
            const RedisValue &mem = reply.value(i * stride + memoryAt);
            k.memoryBytes = mem.isInteger() ? mem.toInteger() : -1;
        }
        found.append(std::move(k));
    }
    if (!m_options.elements || found.isEmpty()) {
        deliver(found, cursorAfter, capturedAt);
        return;
    }
    QList<RedisCommand> cmds;
    cmds.reserve(found.size());
    QList<ScannedKey> sized; // the keys whose type has a length command, in command order
    sized.reserve(found.size());
    QList<ScannedKey> unsized;
    for (ScannedKey &k : found) {
        const QByteArray cmd = keyTypeLengthCommand(k.type);
        if (cmd.isEmpty()) {
            unsized.append(std::move(k));
        } else {
            cmds.append(RedisCommand{cmd, k.name});
            sized.append(std::move(k));
        }
    }
    if (cmds.isEmpty()) {
        deliver(unsized, cursorAfter, capturedAt);
        return;
    }
    sized.append(unsized); // replies cover the first cmds.size() entries only
    ++m_outstanding;
    m_commandsSent += cmds.size();
    QPointer<ScanJob> self(this);
    m_worker->submit(nextRequestId(), cmds, [self, sized, cursorAfter, capturedAt](const RedisReply &r) mutable {
        if (self)
            self->onCounts(std::move(sized), cursorAfter, capturedAt, r);
    });
}

void ScanJob::onCounts(QList<ScannedKey> keys, const QByteArray &cursorAfter, qint64 capturedAt,
                       const RedisReply &reply)
{
    --m_outstanding;
    if (m_finished)
        return;
    if (!reply.ok()) {
        onFailure(reply.error);
        return;
    }
    const qsizetype replies = reply.values.size();
    for (qsizetype i = 0; i < replies && i < keys.size(); ++i) {
        const RedisValue &n = reply.value(i);
        // A key replaced by another type between TYPE and the count answers WRONGTYPE: its
        // size stays unknown rather than wrong.
        keys[i].elements = n.isInteger() ? n.toInteger() : -1;
    }
    deliver(keys, cursorAfter, capturedAt);
}

void ScanJob::deliver(QList<ScannedKey> &keys, const QByteArray &cursorAfter, qint64 capturedAtMs)
{
    m_batch.capturedAtMs = capturedAtMs; // when the TTLs were read
    if (m_batch.keys.isEmpty())
        m_batch.keys.swap(keys);
    else
        m_batch.keys.append(std::move(keys));
    m_resumeCursor = cursorAfter;
    maybeFinish();
}

int ScanJob::commandsPerKey() const
{
    if (!m_options.details)
        return 0;
    return 1 + (m_options.ttl ? 1 : 0) + (m_options.memory ? 1 : 0) + (m_options.elements ? 1 : 0);
}

void ScanJob::onFailure(const RedisError &error)
{
    m_error = error;
    if (error.isConnectionLevel() || error.kind == RedisError::Kind::NotConnected) {
        // The cursor survives the connection; pick up from the last complete step.
        m_waiting = true;
        m_outstanding = 0;
        m_scanPending = false;
        m_paceTimer->stop();
        flush();
        return;
    }
    m_finished = true;
    m_flushTimer->stop();
    m_paceTimer->stop();
    flush();
    Q_EMIT finished(progress());
}

void ScanJob::maybeFinish()
{
    if (m_scanDone && m_outstanding == 0 && !m_finished) {
        m_finished = true;
        m_flushTimer->stop();
        flush();
        Q_EMIT finished(progress());
    }
}

void ScanJob::flush()
{
    const qint64 now = m_clock.elapsed();
    if (now - m_rateAtMs >= 500) {
        m_recentRate = double(m_commandsSent - m_rateCommands) * 1000.0 / double(now - m_rateAtMs);
        m_rateAtMs = now;
        m_rateCommands = m_commandsSent;
    }
    if (!m_batch.keys.isEmpty()) {
        ScanBatch out;
        out.generation = m_generation;
        out.capturedAtMs = m_batch.capturedAtMs;
        out.keys.swap(m_batch.keys);
        Q_EMIT batchAvailable(out);
    }
    if (!m_finished)
        Q_EMIT progressChanged(progress());
}

ScanProgress ScanJob::progress() const
{
    ScanProgress p;
    p.generation = m_generation;
    p.returned = m_returned;
    p.vanished = m_vanished;
    p.dbsize = m_dbsize;
    p.count = m_count;
    p.commandsPerSecond = m_recentRate;
    p.ceiling = m_ceiling;
    p.adaptive = m_options.maxCommandsPerSecond == kAdaptivePacing;
    p.paceReason = m_paceReason;
    p.elapsedSeconds = m_clock.isValid() ? m_clock.nsecsElapsed() / 1e9 : 0;
    p.keysPerSecond = p.elapsedSeconds > 0 ? double(m_returned) / p.elapsedSeconds : 0;
    p.finished = m_finished;
    p.paused = m_paused;
    p.waitingForConnection = m_waiting;
    p.error = m_error;
    return p;
}

// ---------------------------------------------------------------------------------------------

KeyScanner::KeyScanner(RedisClient *client, QObject *parent) : QObject(parent), m_client(client)
{
    static const bool registered = [] {
        qRegisterMetaType<ScanBatch>();
        qRegisterMetaType<ScanProgress>();
        return true;
    }();
    Q_UNUSED(registered)
}

KeyScanner::~KeyScanner()
{
    stopJob();
}

void KeyScanner::stopJob()
{
    QObject::disconnect(m_waitForCluster);
    if (m_cluster) {
        // Not deleted at once: this may run inside one of its signals.
        m_cluster->disconnect(this);
        m_cluster->halt();
        m_cluster->deleteLater();
        m_cluster = nullptr;
    }
    delete m_probe;
    m_probe = nullptr;
    if (m_job) {
        m_job->disconnect(this);
        QMetaObject::invokeMethod(m_job, &QObject::deleteLater, Qt::QueuedConnection);
        m_job = nullptr;
    }
    m_running = false;
    m_paused = false;
}

quint64 KeyScanner::start(const ScanOptions &options)
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    stopJob();
    ++m_generation;
    // A cluster profile before its slot map is read: walking the seed alone would show a third
    // of the keys. Start when the client is ready (as one server if it turns out not to be one).
    if (m_client->clusterPending()) {
        m_running = true;
        m_waitForCluster = connect(m_client, &RedisClient::ready, this, [this, options] {
            QObject::disconnect(m_waitForCluster);
            launch(options);
        });
        return m_generation;
    }
    launch(options);
    return m_generation;
}

void KeyScanner::launch(const ScanOptions &options)
{
    if (m_client->cluster()) {
        startCluster(options);
        return;
    }
    auto *job = new ScanJob(m_client->worker(), options, m_generation);
    job->moveToThread(m_client->workerThread());
    connect(m_client->workerThread(), &QThread::finished, job, &QObject::deleteLater);
    connect(job, &ScanJob::batchAvailable, this, &KeyScanner::onBatch, Qt::QueuedConnection);
    connect(job, &ScanJob::progressChanged, this, &KeyScanner::onProgress, Qt::QueuedConnection);
    connect(
        job, &ScanJob::finished, this,
        [this](const ScanProgress &p) {
            if (p.generation != m_generation)
                return;
            m_running = false;
            delete m_probe;
            m_probe = nullptr;
            Q_EMIT finished(p);
        },
        Qt::QueuedConnection);
    if (options.maxCommandsPerSecond == kAdaptivePacing) {
        m_probe = new LoadProbe(m_client->profile(), m_client->worker(), this);
        connect(m_probe, &LoadProbe::paceChanged, job, &ScanJob::setCeiling, Qt::QueuedConnection);
        m_probe->start();
    }
    m_job = job;
    m_running = true;
    QMetaObject::invokeMethod(job, &ScanJob::start, Qt::QueuedConnection);
}

void KeyScanner::startCluster(const ScanOptions &options)
{
    ScanOptions o = options;
    o.replicas = o.replicas || m_client->profile().clusterScanReplicas;
    m_cluster = new ClusterScan(m_client->cluster(), o, m_generation, this);
    connect(m_cluster, &ClusterScan::batchAvailable, this, &KeyScanner::onBatch);
    connect(m_cluster, &ClusterScan::progressChanged, this, &KeyScanner::onProgress);
    connect(m_cluster, &ClusterScan::finished, this, [this](const ScanProgress &p) {
        if (p.generation != m_generation)
            return;
        m_running = false;
        Q_EMIT finished(p);
    });
    m_running = true;
    m_cluster->start();
}

void KeyScanner::pause()
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    if (m_cluster) {
        m_paused = true;
        m_cluster->setPaused(true);
        return;
    }
    if (!m_job)
        return;
    m_paused = true;
    QMetaObject::invokeMethod(m_job, &ScanJob::pause, Qt::QueuedConnection);
}

void KeyScanner::resume()
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    if (m_cluster) {
        m_paused = false;
        m_cluster->setPaused(false);
        return;
    }
    if (!m_job)
        return;
    m_paused = false;
    QMetaObject::invokeMethod(m_job, &ScanJob::resume, Qt::QueuedConnection);
}

void KeyScanner::cancel()
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    const bool wasRunning = m_running;
    stopJob();
    ++m_generation; // anything still queued from the old job is now stale
    if (wasRunning) {
        ScanProgress p;
        p.generation = m_generation;
        p.finished = true;
        p.error = RedisError::make(RedisError::Kind::Cancelled, QStringLiteral("scan cancelled"));
        Q_EMIT finished(p);
    }
}

void KeyScanner::onBatch(const ScanBatch &batch)
{
    if (batch.generation == m_generation)
        Q_EMIT batchAvailable(batch);
}

void KeyScanner::onProgress(const ScanProgress &progress)
{
    if (progress.generation == m_generation)
        Q_EMIT progressChanged(progress);
}
