// SPDX-License-Identifier: GPL-3.0-or-later
#include "keyspacereader.h"

#include "redisclient.h"

KeyspaceReader::KeyspaceReader(RedisClient *client, QObject *parent) : QObject(parent), m_client(client)
{ }

KeyspaceReader::~KeyspaceReader() = default;

void KeyspaceReader::refresh()
{
    if (!m_client || !m_client->isReady() || m_request != 0)
        return;
    m_request = m_client->send(RedisCommand{"INFO", "keyspace"}, this, [this](const RedisReply &r) {
        if (r.id == m_request)
            onReply(r);
    });
}

void KeyspaceReader::onReply(const RedisReply &reply)
{
    m_request = 0;
    if (const RedisError e = reply.firstError()) {
        Q_EMIT failed(e);
        return;
    }
    Q_EMIT keyspaceAvailable(ServerInfo::parse(reply.value().bytes()).keyspace());
}
