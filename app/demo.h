// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "connectionprofile.h"
#include "rediscommand.h"

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QRandomGenerator>
#include <QString>
#include <functional>
#include <memory>

class LocalServer;
class RedisClient;
class QTimer;

// --demo: a private redis-server filled with every pattern of docs/patterns.md, healthy and broken
// variants side by side, and a small simulator that keeps the patterns moving. The server
// lives on a free loopback port with persistence off and dies with this object (or with the
// process, however it ends).
class Demo : public QObject
{
    Q_OBJECT
public:
    explicit Demo(QObject *parent = nullptr);
    ~Demo() override;

    // Starts the server and connects; seeding then runs asynchronously and ends with seeded()
    // or failed(). Returns false (with a reason) when the server cannot be started.
    bool start(QString *error);
    // Starts if needed and waits, processing events, until seeding is done.
    bool seedBlocking(QString *error, int timeoutMs = 15000);
    // Where the demo server listens, for the rest of the app to connect to.
    ConnectionProfile profile() const;

    bool isSeeded() const { return m_seeded; }
    qint64 seedElapsedMs() const { return m_seedMs; }
    qint64 serverPid() const;
    QString serverDirectory() const; // the server's temporary directory

    // Runs the patterns every intervalMs; starts after seeding when called before it is done.
    void startSimulation(int intervalMs = 1000);
    void stopSimulation();
    bool isSimulating() const { return m_simulate; }
    int tickCount() const { return m_ticks; }
    // Error replies the simulator got so far (none expected unless someone edits its keys).
    int tickErrorCount() const { return m_tickErrors; }
    QString lastTickError() const { return m_lastTickError; }

Q_SIGNALS:
    void seeded();
    void failed(const QString &reason);
    void tick(int n);

private:
    // Commands and, per command, what to do with its reply.
    struct Batch
    {
        QList<RedisCommand> commands;
        QList<std::function<void(const RedisValue &)>> handlers;
        void add(RedisCommand command, std::function<void(const RedisValue &)> handler = {});
    };
    struct KnownSession
    {
        QByteArray id;
        int user = 0;
    };
    struct HeldLock
    {
        QByteArray key;
        QByteArray token;
        int age = 0; // ticks held
    };

    void seed();
    void seedCaches(Batch &b);
    void seedSessions(Batch &b);
    void seedRateLimits(Batch &b);
    void seedLocks(Batch &b);
    void seedLeaderboards(Batch &b);
    void seedGeo(Batch &b);
    void seedStreams(Batch &b);
    void seedQueues(Batch &b);
    void seedLibraryQueue(Batch &b);
    void seedMisc(Batch &b);
    void onSeedBatch(const RedisReply &reply, const QList<RedisCommand> &commands, int remaining);
    void finishSeeding(const QString &error);

    void onTick();
    // One tick of each pattern's clients, added to the tick's batch.
    void tickCaches(Batch &b);
    void tickSessions(Batch &b, qint64 now);
    void tickRateLimits(Batch &b, qint64 now);
    void tickLocks(Batch &b);
    void tickLeaderboard(Batch &b);
    void tickStream(Batch &b);
    void tickQueues(Batch &b, qint64 now);
    void tickCounters(Batch &b);
    void onTickReply(const RedisReply &reply, const Batch &batch);

    RedisCommand script(const char *name, const QList<QByteArray> &keys, const QList<QByteArray> &args) const;
    QByteArray hex(int bytes);
    int between(int low, int high); // inclusive
    QByteArray productJson(int id);
    QByteArray newSession(Batch &b, int userId, qint64 nowMs, qint64 ttlMs);
    QByteArray jobJson(int id);
    QByteArray emailJob(int id, qint64 enqueuedAtMs);

    std::unique_ptr<LocalServer> m_server;
    std::unique_ptr<RedisClient> m_client;
    // An application's dashboard listening to the orders the simulator publishes, so that the
    // pub/sub panel has channels, a pattern and subscribers to show.
    std::unique_ptr<RedisClient> m_subscriber;
    QTimer *m_timer = nullptr;
    QRandomGenerator m_rng;
    QElapsedTimer m_seedClock;
    qint64 m_seedMs = -1;
    QString m_seedError;
    bool m_seeding = false;
    bool m_seeded = false;
    bool m_stopping = false;

    // Simulator state.
    bool m_simulate = false;
    bool m_tickBusy = false;
    bool m_reloadScripts = false;
    int m_ticks = 0;
    int m_tickErrors = 0;
    QString m_lastTickError;
    int m_intervalMs = 1000;
    qint64 m_queueLength = 0;
    int m_nextJob = 100000;
    int m_nextEmail = 100000;
    QList<KnownSession> m_sessions; // sessions the simulator may touch, bounded
    QList<KnownSession> m_staleSessions; // gone: drop them from their user's index
    QList<HeldLock> m_locks; // locks the simulator holds
    QList<QPair<QByteArray, QByteArray>> m_recompute; // cache key, recompute-lock token
    QList<QByteArray> m_invalidate; // a tag, then the batch of its members to invalidate
    QList<QByteArray> m_toAck; // stream ids read last tick
    QList<QByteArray> m_leftPending; // ids deliberately left unacknowledged, bounded
    QList<QByteArray> m_processing; // items in worker-2's processing list
};
