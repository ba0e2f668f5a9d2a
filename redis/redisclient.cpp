// SPDX-License-Identifier: GPL-3.0-or-later
#include "redisclient.h"

#include "clusterrouter.h"
#include "threadcheck.h"

#include <QThread>
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

RedisClient::RedisClient(const ConnectionProfile &profile, QObject *parent) : QObject(parent), m_profile(profile)
{
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
    if (profile.cluster)
        m_router = new ClusterRouter(this);
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
    QMetaObject::invokeMethod(m_worker, &RedisWorker::start, Qt::QueuedConnection);
}

void RedisClient::disconnectFromServer()
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    QMetaObject::invokeMethod(m_worker, &RedisWorker::stop, Qt::QueuedConnection);
}

void RedisClient::reconnectWith(const ConnectionProfile &profile)
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    m_profile = profile;
    RedisWorker *worker = m_worker;
    QMetaObject::invokeMethod(
        m_worker, [worker, profile] { worker->reconfigure(profile); }, Qt::QueuedConnection);
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
    const auto it = m_pending.find(reply.id);
    if (it == m_pending.end())
        return; // cancelled: the view has moved on
    Waiting waiting = std::move(it.value());
    m_pending.erase(it);
    if (!waiting.context || !waiting.callback)
        return;
    waiting.callback(reply);
}
