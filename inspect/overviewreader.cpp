// SPDX-License-Identifier: GPL-3.0-or-later
#include "overviewreader.h"

#include "redisclient.h"

#include <QDateTime>
#include <QTimer>
#include <algorithm>

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

void OverviewReader::refresh()
{
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
