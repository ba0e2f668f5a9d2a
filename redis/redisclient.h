// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redisworker.h"

#include <QHash>
#include <QObject>
#include <QPointer>

class ClusterRouter;
class SentinelResolver;
class QTimer;
class QThread;

// The GUI-thread face of one connection. Owns the worker thread. Requests carry an id and
// a context object; a reply whose request was cancelled, or whose context is gone, is dropped
// on arrival, so a view that moved on never sees an answer meant for its previous state.
class RedisClient : public QObject
{
    Q_OBJECT
public:
    using State = RedisWorker::State;
    using Callback = std::function<void(const RedisReply &)>;

    explicit RedisClient(const ConnectionProfile &profile, QObject *parent = nullptr);
    ~RedisClient() override;

    const ConnectionProfile &profile() const { return m_profile; }
    State state() const { return m_state; }
    QString stateDetail() const { return m_detail; }
    const ServerFacts &facts() const { return m_facts; }
    bool isReady() const { return m_state == State::Ready; }
    // Writes are refused by RedisLens: the profile is read-only (the facts say so once connected).
    bool isReadOnly() const { return m_facts.readOnly || m_profile.readOnly; }
    // What this connection may send, for a second connection of the same profile (SCRIPT KILL):
    // the server's policy once known, before that the built-in one for a read-only profile.
    CommandPolicy policy() const;

    void connectToServer();
    void disconnectFromServer();
    // Connects again with changed settings (a password typed after NOAUTH, say).
    void reconnectWith(const ConnectionProfile &profile);

    RequestId send(const RedisCommand &command, QObject *context, Callback callback, int timeoutMs = -1);
    RequestId sendBatch(const QList<RedisCommand> &commands, QObject *context, Callback callback, int timeoutMs = -1);
    void cancel(RequestId id);
    int pendingCount() const;
    // How many messages, and how many bytes of them, wait for the window at most before the
    // oldest are dropped (PushQueue): a subscriber's or a MONITOR's memory bound.
    void setMessageBound(int count, qint64 bytes);

    // A Redis Cluster (the profile says so and the seed answered with a slot map): commands are
    // routed to the node that owns their keys. Null for one server.
    ClusterRouter *cluster() const { return m_clusterActive ? m_router : nullptr; }
    // Why a profile marked `cluster` runs as one server (the server is not a cluster), or empty.
    QString clusterProblem() const { return m_clusterProblem; }
    // A cluster profile whose slot map has not been read yet.
    bool clusterPending() const { return m_router && !m_clusterActive && m_clusterProblem.isEmpty(); }

    // A Sentinel-managed primary: the sentinels asked for its address (and again after a failover).
    SentinelResolver *sentinel() const { return m_sentinel; }

    // For jobs that run on the worker thread (see KeyScanner).
    RedisWorker *worker() const { return m_worker; }
    QThread *workerThread() const { return m_thread; }

Q_SIGNALS:
    void stateChanged(RedisClient::State state, const QString &detail);
    void ready(const ServerFacts &facts);
    void connectionError(const RedisError &error);
    // What arrived unasked (RedisWorker::messagesPending): messages of this connection's
    // subscriptions and lines of its MONITOR, oldest first, in batches as the window can take
    // them. 'dropped' counts those left out before these because of the bound.
    void messagesReceived(const QList<RedisValue> &messages, qint64 dropped);
    // The same messages one by one, for a listener that expects a few (a sentinel's events).
    void messageReceived(const RedisValue &message);

private:
    friend class ClusterRouter;
    void onReply(const RedisReply &reply);
    // This connection's own server, whatever the command's keys (the router's seed requests).
    RequestId sendDirect(const QList<RedisCommand> &commands, QObject *context, Callback callback, int timeoutMs = -1);
    void cancelDirect(RequestId id);
    // Sentinel: asks for the primary, and connects there (again, when it moved).
    void resolvePrimary();

    struct Waiting
    {
        QPointer<QObject> context;
        Callback callback;
    };

    ConnectionProfile m_profile;
    QThread *m_thread = nullptr;
    RedisWorker *m_worker = nullptr;
    QHash<RequestId, Waiting> m_pending;
    State m_state = State::Disconnected;
    QString m_detail;
    ServerFacts m_facts;
    ClusterRouter *m_router = nullptr;
    SentinelResolver *m_sentinel = nullptr;
    QTimer *m_resolveTimer = nullptr; // paces re-asking the sentinels while the primary is away
    bool m_resolving = false;
    bool m_wanted = false;
    bool m_clusterActive = false;
    QString m_clusterProblem;
};

// Request ids are unique across every connection of the process.
RequestId nextRequestId();
