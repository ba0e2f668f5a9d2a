// SPDX-License-Identifier: GPL-3.0-or-later
#include "redisclient.h"

#include "clusterrouter.h"
#include "sentinelresolver.h"
#include "threadcheck.h"

#include <QThread>
#include <QTimer>
#include <atomic>

RequestId nextRequestId()
{
    static std::atomic<RequestId> counter{0};
    return ++counter;
}

namespace {
void registerTypes()
{
    static const bool once = [] {
        qRegisterMetaType<RedisReply>();
        qRegisterMetaType<RedisValue>();
        qRegisterMetaType<RedisError>();
        qRegisterMetaType<ServerFacts>();
        qRegisterMetaType<RedisWorker::State>();
        return true;
    }();
    Q_UNUSED(once)
}
} // namespace

namespace {
// Inspecting through a Sentinel replica is read-only, whatever the profile says.
ConnectionProfile effectiveProfile(ConnectionProfile p)
{
    if (p.usesSentinel() && p.sentinelReplica)
        p.readOnly = true;
    return p;
}
} // namespace

RedisClient::RedisClient(const ConnectionProfile &given, QObject *parent)
    : QObject(parent), m_profile(effectiveProfile(given))
{
    const ConnectionProfile &profile = m_profile;
    registerTypes();
    m_thread = new QThread(this);
    m_thread->setObjectName(QStringLiteral("redis:%1").arg(profile.displayName()));
    m_worker = new RedisWorker(profile);
    m_worker->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &RedisWorker::replyReady, this, &RedisClient::onReply, Qt::QueuedConnection);
    connect(
        m_worker, &RedisWorker::stateChanged, this,
        [this](RedisWorker::State state, const QString &detail) {
            m_state = state;
            m_detail = detail;
            Q_EMIT stateChanged(state, detail);
            // The primary went away: ask the sentinels where it is now (a failover).
            if (m_sentinel && m_wanted && state == State::Backoff && !m_resolveTimer->isActive())
                m_resolveTimer->start();
        },
        Qt::QueuedConnection);
    connect(
        m_worker, &RedisWorker::ready, this,
        [this](const ServerFacts &facts) {
            m_facts = facts;
            if (!m_router) {
                Q_EMIT ready(facts);
                return;
            }
            if (m_clusterActive) {
                // A reconnect: the map may have changed meanwhile, or another cluster answers.
                m_router->refresh([this, facts] { Q_EMIT ready(facts); });
                return;
            }
            // A cluster: ready once the slot map is known, or as one server when it is not one.
            m_router->start([this, facts](const QString &problem) {
                m_clusterActive = problem.isEmpty();
                m_clusterProblem = problem;
                Q_EMIT ready(facts);
            });
        },
        Qt::QueuedConnection);
    connect(m_worker, &RedisWorker::connectionError, this, &RedisClient::connectionError, Qt::QueuedConnection);
    connect(
        m_worker, &RedisWorker::messagesPending, this,
        [this] {
            PushQueue::Taken taken = m_worker->pushQueue()->take();
            if (taken.messages.isEmpty() && taken.dropped == 0)
                return;
            const QPointer<RedisClient> alive(this); // a listener may end the connection
            Q_EMIT messagesReceived(taken.messages, taken.dropped);
            for (const RedisValue &message : std::as_const(taken.messages)) {
                if (!alive)
                    return;
                Q_EMIT messageReceived(message);
            }
        },
        Qt::QueuedConnection);
    // Another seed of a cluster: the profile says where the connection is (titles, the topology),
    // and keeps the first seed among the others for a reconnect with a changed profile.
    connect(
        m_worker, &RedisWorker::addressChanged, this,
        [this](const QString &host, quint16 port) {
            const QString was = cluster::Address{m_profile.host, m_profile.port}.toString();
            if (!m_profile.clusterSeeds.contains(was))
                m_profile.clusterSeeds.prepend(was);
            m_profile.host = host;
            m_profile.port = port;
        },
        Qt::QueuedConnection);
    if (profile.cluster)
        m_router = new ClusterRouter(this);
    if (profile.usesSentinel()) {
        m_sentinel = new SentinelResolver(profile, this);
        m_resolveTimer = new QTimer(this);
        m_resolveTimer->setSingleShot(true);
        m_resolveTimer->setInterval(1000);
        connect(m_resolveTimer, &QTimer::timeout, this, &RedisClient::resolvePrimary);
        // A sentinel announcing the failover: no need to wait for the old primary to fail.
        connect(m_sentinel, &SentinelResolver::switched, this, [this](const cluster::Address &to) {
            m_detail = QStringLiteral("the sentinels switched %1 to %2").arg(m_profile.sentinelMaster, to.toString());
            resolvePrimary();
        });
    }
    m_thread->start();
}

RedisClient::~RedisClient()
{
    QMetaObject::invokeMethod(m_worker, &RedisWorker::stop, Qt::BlockingQueuedConnection);
    m_thread->quit();
    m_thread->wait();
}

void RedisClient::connectToServer()
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    m_wanted = true;
    if (m_sentinel) {
        m_sentinel->watchSwitches();
        resolvePrimary();
        return;
    }
    QMetaObject::invokeMethod(m_worker, &RedisWorker::start, Qt::QueuedConnection);
}

void RedisClient::resolvePrimary()
{
    if (m_resolving || !m_wanted)
        return;
    m_resolving = true;
    m_sentinel->resolve([this](const cluster::Address &primary, const QString &error) {
        m_resolving = false;
        if (!m_wanted)
            return;
        if (!error.isEmpty()) {
            m_detail = QStringLiteral("Sentinel: %1").arg(error);
            Q_EMIT connectionError(RedisError::make(RedisError::Kind::ConnectionRefused, m_detail));
            m_resolveTimer->start(); // the sentinels may come back, or learn of the master
            return;
        }
        const bool moved = primary.host != m_profile.host || primary.port != m_profile.port;
        if (!moved && m_state != State::Disconnected)
            return; // the same primary: the worker's own reconnect goes on
        m_profile.host = primary.host;
        m_profile.port = primary.port;
        const ConnectionProfile profile = m_profile;
        RedisWorker *worker = m_worker;
        QMetaObject::invokeMethod(
            m_worker, [worker, profile] { worker->reconfigure(profile); }, Qt::QueuedConnection);
    });
}

void RedisClient::disconnectFromServer()
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    m_wanted = false;
    QMetaObject::invokeMethod(m_worker, &RedisWorker::stop, Qt::QueuedConnection);
}

void RedisClient::reconnectWith(const ConnectionProfile &profile)
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    const ConnectionProfile before = m_profile;
    m_profile = effectiveProfile(profile);
    if (m_sentinel) {
        // Where the sentinels said the primary is, not the address the profile was made with.
        m_profile.host = before.host;
        m_profile.port = before.port;
    }
    RedisWorker *worker = m_worker;
    QMetaObject::invokeMethod(
        m_worker, [worker, p = m_profile] { worker->reconfigure(p); }, Qt::QueuedConnection);
}

CommandPolicy RedisClient::policy() const
{
    if (m_profile.readOnly && !m_facts.policy.isReadOnly())
        return CommandPolicy::builtinReadOnly();
    return m_facts.policy;
}

RequestId RedisClient::send(const RedisCommand &command, QObject *context, Callback callback, int timeoutMs)
{
    return sendBatch({command}, context, std::move(callback), timeoutMs);
}

RequestId RedisClient::sendBatch(const QList<RedisCommand> &commands, QObject *context, Callback callback,
                                 int timeoutMs)
{
    if (m_clusterActive)
        return m_router->sendBatch(commands, context, std::move(callback), timeoutMs);
    return sendDirect(commands, context, std::move(callback), timeoutMs);
}

RequestId RedisClient::sendDirect(const QList<RedisCommand> &commands, QObject *context, Callback callback,
                                  int timeoutMs)
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    const RequestId id = nextRequestId();
    m_pending.insert(id, Waiting{QPointer<QObject>(context), std::move(callback)});
    RedisWorker *worker = m_worker;
    QMetaObject::invokeMethod(
        m_worker, [worker, id, commands, timeoutMs] { worker->submit(id, commands, {}, timeoutMs); },
        Qt::QueuedConnection);
    return id;
}

int RedisClient::pendingCount() const
{
    return int(m_pending.size()) + (m_clusterActive ? m_router->pendingCount() : 0);
}

void RedisClient::setMessageBound(int count, qint64 bytes)
{
    m_worker->pushQueue()->setBound(count, bytes);
}

void RedisClient::cancel(RequestId id)
{
    if (m_clusterActive)
        m_router->cancel(id);
    cancelDirect(id);
}

void RedisClient::cancelDirect(RequestId id)
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    if (m_pending.remove(id) == 0)
        return;
    RedisWorker *worker = m_worker;
    QMetaObject::invokeMethod(
        m_worker, [worker, id] { worker->cancel(id); }, Qt::QueuedConnection);
}

void RedisClient::onReply(const RedisReply &reply)
{
    // The primary became a replica under a live connection: a failover. Ask the sentinels.
    if (m_sentinel && std::any_of(reply.values.cbegin(), reply.values.cend(), [](const RedisValue &v) {
            return v.isError() && RedisError::fromReply(v).kind == RedisError::Kind::ReadOnly;
        }))
        resolvePrimary();
    const auto it = m_pending.find(reply.id);
    if (it == m_pending.end())
        return; // cancelled: the view has moved on
    Waiting waiting = std::move(it.value());
    m_pending.erase(it);
    if (!waiting.context || !waiting.callback)
        return;
    waiting.callback(reply);
}
