// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "commandpolicy.h"
#include "connectionprofile.h"
#include "pushqueue.h"
#include "rediscommand.h"
#include "rediserror.h"
#include "redisvalue.h"

#include <QElapsedTimer>
#include <QObject>
#include <QVersionNumber>
#include <atomic>
#include <deque>
#include <functional>
#include <memory>

class Transport;
class SshTunnel;
class QTimer;
namespace resp {
class ReplyReader;
}

// What we learned about the server on connecting.
struct ServerFacts
{
    QVersionNumber version; // null when INFO was not allowed
    QByteArray runId; // changes when the server process does (a restart, a failover)
    QByteArray mode; // INFO's redis_mode: standalone, cluster or sentinel; empty when not allowed
    bool readOnly = false; // the connection refuses writing commands
    bool policyFromServer = false;
    CommandPolicy policy; // what the connection may send; a second connection to it uses the same
};
Q_DECLARE_METATYPE(ServerFacts)

// Owns one connection: the transport, the hiredis reader, the queue of requests in flight.
// Lives on its own thread; every member function must be called on that thread. The GUI talks
// to it through RedisClient; background jobs (the key scanner) that live on the same thread may
// call submit() directly and get their callback on this thread.
class RedisWorker : public QObject
{
    Q_OBJECT
public:
    enum class State : quint8 { Disconnected, Connecting, Ready, Backoff };
    Q_ENUM(State)

    explicit RedisWorker(const ConnectionProfile &profile, QObject *parent = nullptr);
    ~RedisWorker() override;

    using Done = std::function<void(RedisReply)>;
    // Sends the batch as one pipeline. 'done' runs on this thread; without it, replyReady is
    // emitted. Requests made while connecting wait for the handshake; while disconnected they
    // fail at once with NotConnected.
    void submit(RequestId id, const QList<RedisCommand> &commands, Done done = {}, int timeoutMs = -1);
    // Drops a request that has not been written yet.
    void cancel(RequestId id);

    State state() const { return m_state; }
    const ServerFacts &facts() const { return m_facts; }
    const ConnectionProfile &profile() const { return m_profile; }
    // Commands written to the server since this worker was made. Any thread may read it (the
    // scan's load probe subtracts it from the server's count).
    quint64 commandsWritten() const { return m_commandsWritten.load(std::memory_order_relaxed); }
    // Messages and MONITOR lines, taken by any thread (RedisClient, on messagesPending()).
    PushQueue *pushQueue() const { return m_pushes.get(); }

public Q_SLOTS:
    void start();
    void stop();
    // New credentials or address: drops the connection and connects with these.
    void reconfigure(const ConnectionProfile &profile);

Q_SIGNALS:
    void replyReady(const RedisReply &reply);
    void stateChanged(RedisWorker::State state, const QString &detail);
    void ready(const ServerFacts &facts);
    void connectionError(const RedisError &error);
    // A cluster profile with several seeds moved on to the next one: host:port is where the
    // connection goes now.
    void addressChanged(const QString &host, quint16 port);
    // Something arrived unasked and waits in pushQueue(): a message on a channel this connection
    // subscribed to (SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE: ["message", channel, payload],
    // ["pmessage", pattern, channel, payload] or ["smessage", …]), or a line of a MONITOR (a
    // status). Emitted once until the queue is taken. A subscription or a MONITOR lasts as long
    // as its connection: the owner asks again on ready().
    void messagesPending();

private:
    struct Pending
    {
        RequestId id = 0;
        QList<RedisCommand> commands;
        Done done;
        int timeoutMs = -1;
        QList<RedisValue> values;
        int expected = 0; // replies owed: one per command, one per channel of a (un)subscribe
        QList<int> owed; // per command
        qsizetype commandAt = 0; // the command the next reply answers
        int repliesOfCommand = 0; // replies it has had
        qint64 deadlineMs = 0;
        QElapsedTimer started;
        bool internal = false;
    };

    void openTransport();
    void dropTransport();
    void onOpened();
    void onReadyRead();
    void onClosed(RedisError::Kind kind, const QString &reason);
    void onTimeoutTick();
    void handshake();
    void finishHandshake(const RedisReply &reply);
    void queryServer();
    void setState(State state, const QString &detail = {});
    void write(std::unique_ptr<Pending> p);
    void finish(std::unique_ptr<Pending> p, const RedisError &error = {});
    void failAll(const RedisError &error);
    // Only the requests written on the connection that closed (the handshake's, while
    // connecting); those held for the handshake wait for the next one.
    void failInFlight(const RedisError &error);
    // A cluster profile's seeds: host:port, then clusterSeeds, each once. Empty for one address.
    void loadSeeds();
    void nextSeed();
    void scheduleReconnect(const QString &reason);
    void armTimeout();
    struct Due
    {
        qint64 deadlineMs; // on m_clock
        int timeoutMs; // the timeout of the request that decides it, for the message
    };
    Due firstDue() const;
    void resetReader();
    void holdTunnel();
    void submitInternal(const QList<RedisCommand> &commands, Done done);

    ConnectionProfile m_profile;
    std::unique_ptr<Transport> m_transport;
    // The SSH bastion's tunnel, held between attempts: its session is reused, and a refusal
    // (an untrusted host key, a refused key) answers the retries instead of a new login each.
    std::shared_ptr<SshTunnel> m_tunnel;
    std::unique_ptr<resp::ReplyReader> m_reader;
    QByteArray m_readBuffer;
    std::deque<std::unique_ptr<Pending>> m_inFlight; // written, awaiting replies
    std::deque<std::unique_ptr<Pending>> m_waiting; // held until the handshake is done
    QTimer *m_timeoutTimer = nullptr;
    QTimer *m_connectTimer = nullptr;
    QTimer *m_reconnectTimer = nullptr;
    QElapsedTimer m_clock;
    State m_state = State::Disconnected;
    bool m_wanted = false; // the user wants a connection: reconnect after losing it
    int m_attempt = 0;
    QList<QPair<QString, quint16>> m_seeds;
    int m_seedIndex = 0;
    int m_seedsFailed = 0; // in a row since the last connection
    QStringList m_seedFailures; // their reasons, for the message when every seed failed
    CommandPolicy m_policy;
    bool m_subscribed = false; // a subscribe was written on this connection: messages may arrive
    bool m_monitoring = false; // a MONITOR was written: unasked status lines are its lines
    std::unique_ptr<PushQueue> m_pushes;
    ServerFacts m_facts;
    std::atomic<quint64> m_commandsWritten{0};
    RedisError m_lastError;
    RequestId m_internalIds = 0;
};
