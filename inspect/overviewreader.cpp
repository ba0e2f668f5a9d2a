// SPDX-License-Identifier: GPL-3.0-or-later
#include "overviewreader.h"

#include "clustertopology.h"
#include "redisclient.h"

#include <QDateTime>
#include <QTimer>
#include <algorithm>
#include <utility>

OverviewReader::OverviewReader(RedisClient *client, QObject *parent)
    : QObject(parent), m_client(client), m_timer(new QTimer(this))
{
    qRegisterMetaType<ServerInfo>();
    m_timer->setObjectName(QStringLiteral("overviewPollTimer"));
    m_timer->setInterval(kDefaultIntervalMs);
    connect(m_timer, &QTimer::timeout, this, &OverviewReader::refresh);
    if (m_client)
        connect(m_client, &RedisClient::ready, this, &OverviewReader::onClientReady);
}

OverviewReader::~OverviewReader() = default;

void OverviewReader::setIntervalMs(int ms)
{
    m_timer->setInterval(std::max(kMinIntervalMs, ms));
}

int OverviewReader::intervalMs() const
{
    return m_timer->interval();
}

void OverviewReader::setPolling(bool on)
{
    if (on == m_timer->isActive())
        return;
    if (!on) {
        m_timer->stop();
        return;
    }
    m_timer->start();
    refresh();
}

bool OverviewReader::isPolling() const
{
    return m_timer->isActive();
}

void OverviewReader::onClientReady()
{
    // Another connection (or the same server after a reconnect): its settings may differ.
    m_configRead = false;
    m_infoRequest = 0;
    m_configRequest = 0;
    if (isPolling())
        refresh();
}

void OverviewReader::setMergedNodes(const QList<RedisClient *> &nodes)
{
    for (const QPointer<RedisClient> &n : std::as_const(m_nodes))
        if (n)
            disconnect(n, &RedisClient::stateChanged, this, nullptr);
    m_nodes.clear();
    for (RedisClient *n : nodes) {
        m_nodes.append(n);
        // A round that waits for nodes still connecting goes on once they are up or have failed.
        // (A round in flight needs nothing: a lost connection fails its requests, which fails
        // the round.)
        connect(n, &RedisClient::stateChanged, this, [this] {
            if (std::exchange(m_waitingForNodes, false))
                refresh();
        });
    }
    ++m_generation;
    m_pending = 0;
    m_waitingForNodes = false;
}

QString OverviewReader::nodeName(const RedisClient *client)
{
    return cluster::Address{client->profile().host, client->profile().port}.toString();
}

void OverviewReader::refreshMerged()
{
    if (m_pending > 0)
        return;
    for (const QPointer<RedisClient> &n : std::as_const(m_nodes)) {
        if (n && (n->state() == RedisClient::State::Connecting || n->state() == RedisClient::State::Disconnected)) {
            // Connected on demand (the router's connections are): this round waits for it.
            m_waitingForNodes = true;
            return;
        }
    }
    for (const QPointer<RedisClient> &n : std::as_const(m_nodes)) {
        if (!n || !n->isReady()) {
            const QString who = n ? nodeName(n) : tr("a node");
            Q_EMIT infoFailed(RedisError::make(RedisError::Kind::NotConnected, tr("%1 is not connected").arg(who)),
                              QDateTime::currentMSecsSinceEpoch());
            return;
        }
    }
    const int generation = m_generation;
    m_parts = QList<ServerInfo>(m_nodes.size());
    m_roundError = {};
    m_pending = int(m_nodes.size());
    for (int i = 0; i < m_nodes.size(); ++i)
        m_nodes.at(i)->send(RedisCommand{"INFO"}, this,
                            [this, generation, i](const RedisReply &reply) { onNodeInfo(generation, i, reply); });
}

void OverviewReader::onNodeInfo(int generation, int node, const RedisReply &reply)
{
    if (generation != m_generation)
        return;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (RedisError error = reply.firstError()) {
        if (!m_roundError) {
            const RedisClient *n = m_nodes.value(node);
            error.message = tr("%1: %2").arg(n ? nodeName(n) : tr("a node"), error.message);
            m_roundError = error;
        }
    } else if (!reply.value().isString()) {
        if (!m_roundError)
            m_roundError = RedisError::make(RedisError::Kind::Protocol, tr("INFO returned no text"));
    } else {
        m_parts[node] = ServerInfo::parse(reply.value().bytes(), now);
    }
    if (--m_pending > 0)
        return;
    if (m_roundError)
        Q_EMIT infoFailed(m_roundError, now);
    else
        Q_EMIT infoAvailable(ServerInfo::merged(m_parts));
}

void OverviewReader::refresh()
{
    if (!m_nodes.isEmpty()) {
        if (!m_client || !m_client->isReady())
            return;
        if (!m_configRead && m_configRequest == 0)
            readConfig();
        refreshMerged();
        return;
    }
    if (!m_client || !m_client->isReady() || m_infoRequest != 0)
        return;
    if (!m_configRead && m_configRequest == 0)
        readConfig();
    m_infoRequest = m_client->send(RedisCommand{"INFO"}, this, [this](const RedisReply &reply) {
        // A reply from before a reconnect must not release the request that replaced it.
        if (reply.id == m_infoRequest)
            m_infoRequest = 0;
        onInfo(reply, QDateTime::currentMSecsSinceEpoch());
    });
}

void OverviewReader::readConfig()
{
    const QList<RedisCommand> commands{{"CONFIG", "GET", "save"}, {"CONFIG", "GET", "appendonly"}};
    m_configRequest = m_client->sendBatch(commands, this, [this](const RedisReply &reply) { onConfig(reply); });
}

void OverviewReader::onConfig(const RedisReply &reply)
{
    if (reply.id != m_configRequest)
        return;
    m_configRequest = 0;
    const RedisError error = reply.firstError();
    if (error.isConnectionLevel())
        return; // try again on the next round
    m_configRead = true;
    if (error) {
        Q_EMIT configUnavailable(error);
        return;
    }
    // [name, value] in RESP2, a map in RESP3: the value follows the name either way.
    auto valueOf = [](const RedisValue &v) { return v.size() >= 2 ? v.at(1).bytes() : QByteArray(); };
    Q_EMIT configAvailable(valueOf(reply.value(0)), valueOf(reply.value(1)));
}

void OverviewReader::onInfo(const RedisReply &reply, qint64 receivedAtMs)
{
    if (const RedisError error = reply.firstError()) {
        Q_EMIT infoFailed(error, receivedAtMs);
        return;
    }
    const RedisValue &value = reply.value();
    if (!value.isString()) {
        Q_EMIT infoFailed(RedisError::make(RedisError::Kind::Protocol, tr("INFO returned no text")), receivedAtMs);
        return;
    }
    Q_EMIT infoAvailable(ServerInfo::parse(value.bytes(), receivedAtMs));
}
