// SPDX-License-Identifier: GPL-3.0-or-later
#include "latencyreader.h"

#include "redisclient.h"

LatencyReader::LatencyReader(RedisClient *client, QObject *parent) : QObject(parent), m_client(client)
{ }

LatencyReader::~LatencyReader() = default;

void LatencyReader::refresh()
{
    if (m_latestRequest || !m_client || !m_client->isReady())
        return;
    const QList<RedisCommand> commands{{"CONFIG", "GET", "latency-monitor-threshold"}, {"LATENCY", "LATEST"}};
    m_latestRequest = m_client->sendBatch(commands, this, [this](const RedisReply &r) { onLatest(r); });
}

void LatencyReader::onLatest(const RedisReply &reply)
{
    m_latestRequest = 0;
    LatencyLatest latest;
    if (!reply.ok()) {
        latest.error = reply.error;
        Q_EMIT latestAvailable(latest);
        return;
    }
    latest.configError = RedisError::fromReply(reply.value(0));
    if (!latest.configError) {
        bool known = false;
        const qint64 threshold
            = slowlog::parseConfigGet(reply.value(0)).value("latency-monitor-threshold").toLongLong(&known);
        latest.thresholdMs = known ? threshold : -1;
    }
    const RedisValue &events = reply.value(1);
    latest.latestError = RedisError::fromReply(events);
    QString error;
    if (!latest.latestError && !slowlog::parseLatencyLatest(events, &latest.events, &error))
        latest.latestError = RedisError::make(RedisError::Kind::Protocol, error);
    Q_EMIT latestAvailable(latest);
}

void LatencyReader::readHistory(const QByteArray &event)
{
    if (event.isEmpty() || !m_client || !m_client->isReady())
        return;
    if (m_historyRequest)
        m_client->cancel(m_historyRequest);
    m_historyRequest = m_client->send({"LATENCY", "HISTORY", event}, this, [this, event](const RedisReply &r) {
        m_historyRequest = 0;
        QList<LatencySample> samples;
        if (r.ok() && slowlog::parseLatencyHistory(r.value(), &samples))
            Q_EMIT historyAvailable(event, samples);
    });
}

void LatencyReader::cancel()
{
    for (RequestId *id : {&m_latestRequest, &m_historyRequest}) {
        if (*id && m_client)
            m_client->cancel(*id);
        *id = 0;
    }
}
