// SPDX-License-Identifier: GPL-3.0-or-later
#include "demo.h"
#include "demo_p.h"

#include "localserver.h"
#include "redisclient.h"
#include "scriptlibrary.h"

#include <QEventLoop>
#include <QTimer>
#include <QVersionNumber>

using namespace demo;

void Demo::Batch::add(RedisCommand command, std::function<void(const RedisValue &)> handler)
{
    commands.append(std::move(command));
    handlers.append(std::move(handler));
}

Demo::Demo(QObject *parent)
    : QObject(parent),
      // A fixed seed: the same demo every run, which screenshots, docs and tests rely on.
      m_rng(20261129u)
{
    m_timer = new QTimer(this);
    connect(m_timer, &QTimer::timeout, this, &Demo::onTick);
}

Demo::~Demo()
{
    m_stopping = true;
    m_timer->stop();
    m_client.reset(); // stops the worker thread before the server goes
    m_subscriber.reset();
    m_server.reset();
}

bool Demo::start(QString *error)
{
    QString why;
    if (m_server && m_server->isRunning())
        return true;
    const ScriptLibrary &library = ScriptLibrary::instance();
    for (const char *name : kScripts) {
        if (!library.find(QString::fromLatin1(name))) {
            why = QStringLiteral("the demo needs the Lua script %1, which is not in the build")
                      .arg(QLatin1String(name));
            if (error)
                *error = why;
            return false;
        }
    }

    m_client.reset();
    m_subscriber.reset();
    m_server = std::make_unique<LocalServer>();
    // Mixed cache and critical data: a memory limit with volatile-* eviction, as the
    // production checklist asks, so the memory panels have something to compare against.
    // The slowlog and the latency monitor are set low enough that the simulator's bad habits
    // (below, in onTick) show up in the slowlog panel within seconds.
    m_server->setExtraArguments({QStringLiteral("--maxmemory"), QStringLiteral("256mb"),
                                 QStringLiteral("--maxmemory-policy"), QStringLiteral("volatile-lru"),
                                 QStringLiteral("--slowlog-log-slower-than"), QStringLiteral("1000"),
                                 QStringLiteral("--latency-monitor-threshold"), QStringLiteral("2"),
                                 // Key events on, so that the key browser can follow them.
                                 QStringLiteral("--notify-keyspace-events"), QStringLiteral("KEA")});
    if (!m_server->start(&why)) {
        if (error)
            *error = QStringLiteral("cannot start the demo server: %1").arg(why);
        m_server.reset();
        return false;
    }
    connect(m_server.get(), &LocalServer::exited, this, [this](int code) {
        if (m_stopping)
            return;
        stopSimulation();
        Q_EMIT failed(QStringLiteral("the demo server exited unexpectedly (code %1)").arg(code));
    });

    ConnectionProfile own = profile();
    own.clientName = QStringLiteral("redislens-demo");
    // Our own server on loopback: a slow machine (a sanitizer build, a busy CI runner) makes
    // the seed slow, not wrong, so give its batches time.
    own.commandTimeoutMs = 60000;
    m_client = std::make_unique<RedisClient>(own);
    m_client->connectToServer();
    ConnectionProfile listener = profile();
    listener.clientName = QStringLiteral("orders-dashboard");
    m_subscriber = std::make_unique<RedisClient>(listener);
    connect(m_subscriber.get(), &RedisClient::ready, this, [this] {
        m_subscriber->sendBatch({{"SUBSCRIBE", "orders.live"}, {"PSUBSCRIBE", "notify.*"}}, this,
                                [](const RedisReply &) {});
    });
    m_subscriber->connectToServer();
    seed();
    return true;
}

ConnectionProfile Demo::profile() const
{
    ConnectionProfile p;
    p.name = QStringLiteral("Demo");
    if (m_server) {
        p.host = m_server->host();
        p.port = m_server->port();
    }
    return p;
}

qint64 Demo::serverPid() const
{
    return m_server ? m_server->pid() : 0;
}

QString Demo::serverDirectory() const
{
    return m_server ? m_server->directory() : QString();
}

bool Demo::seedBlocking(QString *error, int timeoutMs)
{
    if (m_seeded)
        return true;
    if (!m_server || !m_server->isRunning()) {
        if (!start(error))
            return false;
    } else if (!m_seeding) {
        seed(); // an earlier attempt failed: try again from an empty database
    }
    if (m_seeding) {
        QEventLoop loop;
        QTimer deadline;
        deadline.setSingleShot(true);
        connect(this, &Demo::seeded, &loop, &QEventLoop::quit);
        connect(this, &Demo::failed, &loop, &QEventLoop::quit);
        connect(&deadline, &QTimer::timeout, &loop, &QEventLoop::quit);
        deadline.start(timeoutMs);
        loop.exec();
    }
    if (m_seeded)
        return true;
    if (error)
        *error = m_seeding ? QStringLiteral("seeding did not finish within %1 ms").arg(timeoutMs) : m_seedError;
    return false;
}

// ---- helpers -------------------------------------------------------------------------------

RedisCommand Demo::script(const char *name, const QList<QByteArray> &keys, const QList<QByteArray> &args) const
{
    const ScriptInfo *info = ScriptLibrary::instance().find(QString::fromLatin1(name));
    if (!info)
        return {}; // start() checked every script; an empty command fails its batch loudly
    return ScriptLibrary::evalShaCommand(*info, keys, args);
}

// ---- seeding -------------------------------------------------------------------------------

void Demo::seed()
{
    if (!m_client)
        return;
    m_seeding = true;
    m_seeded = false;
    m_seedError.clear();
    m_seedClock.start();
    m_sessions.clear();
    m_staleSessions.clear();
    m_locks.clear();
    m_recompute.clear();
    m_invalidate.clear();
    m_toAck.clear();
    m_leftPending.clear();
    m_processing.clear();

    Batch b;
    // The server is ours alone; starting empty makes a second attempt behave like the first.
    b.add({"FLUSHDB"});
    for (const ScriptInfo &s : ScriptLibrary::instance().scripts())
        b.add(ScriptLibrary::loadCommand(s));
    seedCaches(b);
    seedSessions(b);
    seedRateLimits(b);
    seedLocks(b);
    seedLeaderboards(b);
    seedGeo(b);
    seedStreams(b);
    seedQueues(b);
    seedLibraryQueue(b);
    seedMisc(b);
    // The statistics start at the demo's data: its own FLUSHDB above is not the triage's business.
    b.add({"CONFIG", "RESETSTAT"});

    // Replies come back in order, so the last batch to answer ends the seeding.
    const int batches = int((b.commands.size() + kSeedBatchSize - 1) / kSeedBatchSize);
    for (int i = 0; i < batches; ++i) {
        const QList<RedisCommand> part = b.commands.mid(qsizetype(i) * kSeedBatchSize, kSeedBatchSize);
        const int remaining = batches - 1 - i;
        m_client->sendBatch(part, this,
                            [this, part, remaining](const RedisReply &reply) { onSeedBatch(reply, part, remaining); });
    }
}

void Demo::onSeedBatch(const RedisReply &reply, const QList<RedisCommand> &commands, int remaining)
{
    if (!m_seeding)
        return; // an earlier batch already failed
    if (!reply.ok()) {
        finishSeeding(QStringLiteral("seeding the demo failed: %1").arg(reply.error.message));
        return;
    }
    for (qsizetype i = 0; i < reply.values.size(); ++i) {
        const RedisValue &v = reply.values.at(i);
        if (v.isError()) {
            finishSeeding(QStringLiteral("seeding the demo failed at %1: %2")
                              .arg(describe(commands.value(i)), QString::fromUtf8(v.bytes())));
            return;
        }
    }
    if (remaining == 0)
        finishSeeding({});
}

void Demo::finishSeeding(const QString &error)
{
    m_seedMs = m_seedClock.elapsed();
    if (!error.isEmpty()) {
        m_seeding = false;
        m_seedError = error;
        Q_EMIT failed(error);
        return;
    }
    // Loading the seed is not what the slowlog panel is there to show: start it empty, so
    // what it fills with is the simulator's traffic. Seeded means after it: a reader that
    // starts then finds the state it will keep (and a command counter that stays still).
    m_client->send({"SLOWLOG", "RESET"}, this, [this](const RedisReply &) {
        m_seeding = false;
        m_seeded = true;
        Q_EMIT seeded();
        if (m_simulate && !m_timer->isActive())
            m_timer->start(m_intervalMs);
    });
}

// ---- simulation ----------------------------------------------------------------------------

void Demo::startSimulation(int intervalMs)
{
    m_simulate = true;
    m_intervalMs = qMax(10, intervalMs);
    if (m_seeded)
        m_timer->start(m_intervalMs);
}

void Demo::stopSimulation()
{
    m_simulate = false;
    m_timer->stop();
}

void Demo::onTick()
{
    // One batch at a time: a slow server delays ticks instead of piling them up.
    if (!m_seeded || m_tickBusy || !m_client)
        return;
    const qint64 now = nowMs();
    Batch b;

    if (m_reloadScripts) {
        for (const ScriptInfo &s : ScriptLibrary::instance().scripts())
            b.add(ScriptLibrary::loadCommand(s));
        m_reloadScripts = false;
    }

    tickCaches(b);
    tickSessions(b, now);
    tickRateLimits(b, now);
    tickLocks(b);
    tickLeaderboard(b);
    tickStream(b);
    tickQueues(b, now);
    tickCounters(b);

    m_tickBusy = true;
    m_client->sendBatch(b.commands, this, [this, b](const RedisReply &reply) { onTickReply(reply, b); });
}

void Demo::onTickReply(const RedisReply &reply, const Batch &batch)
{
    m_tickBusy = false;
    for (qsizetype i = 0; i < reply.values.size() && i < batch.handlers.size(); ++i) {
        const RedisValue &v = reply.values.at(i);
        if (ScriptLibrary::isNoScript(v)) {
            m_reloadScripts = true; // somebody ran SCRIPT FLUSH
            continue;
        }
        if (v.isError()) {
            ++m_tickErrors;
            m_lastTickError = describe(batch.commands.value(i)) + QStringLiteral(": ") + QString::fromUtf8(v.bytes());
            continue;
        }
        if (!batch.handlers.at(i))
            continue;
        batch.handlers.at(i)(v);
    }
    if (!reply.ok())
        return; // connection trouble: the client reconnects, the next tick tries again
    ++m_ticks;
    Q_EMIT tick(m_ticks);
}
