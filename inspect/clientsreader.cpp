// SPDX-License-Identifier: GPL-3.0-or-later
#include "clientsreader.h"

#include "redisclient.h"
#include "serverinfo.h"
#include "slowlog.h"

ClientsReader::ClientsReader(RedisClient *client, QObject *parent) : QObject(parent), m_client(client)
{ }

ClientsReader::~ClientsReader()
{
    if (m_request && m_client)
        m_client->cancel(m_request);
}

void ClientsReader::read()
{
    if (m_request || !m_client || !m_client->isReady())
        return;
    const QList<RedisCommand> commands{
        {"CLIENT", "LIST"}, {"INFO", "clients"}, {"INFO", "stats"}, {"CONFIG", "GET", "maxclients"}};
    m_request = m_client->sendBatch(commands, this, [this](const RedisReply &r) { onReply(r); });
}

void ClientsReader::onReply(const RedisReply &reply)
{
    m_request = 0;
    if (!reply.ok()) {
        Q_EMIT failed(reply.error.message);
        return;
    }
    ClientsReading r;
    if (const RedisError e = RedisError::fromReply(reply.value(0)); e) {
        r.error = QStringLiteral("CLIENT LIST: %1").arg(e.message);
        r.denied = e.kind == RedisError::Kind::NoPerm;
    } else
        r.clients = parseClientList(reply.value(0).bytes());
    if (!RedisError::fromReply(reply.value(1)))
        r.churn.connected = ServerInfo::parse(reply.value(1).bytes()).integer("connected_clients");
    // Connections that came since the last reading, by host: ids CLIENT LIST did not show then.
    const qint64 elapsedMs = m_since.isValid() ? m_since.elapsed() : -1;
    QSet<qint64> ids;
    for (const ClientEntry &c : std::as_const(r.clients)) {
        ids.insert(c.id);
        if (m_read && elapsedMs > 0 && !m_lastIds.contains(c.id))
            r.churn.newPerSecondByHost[c.host()] += 1000.0 / double(elapsedMs);
    }
    if (r.error.isEmpty()) {
        m_lastIds = ids;
        m_read = true;
    }
    if (!RedisError::fromReply(reply.value(2))) {
        const ServerInfo stats = ServerInfo::parse(reply.value(2).bytes());
        r.churn.rejected = stats.integer("rejected_connections");
        const qint64 accepted = stats.integer("total_connections_received");
        // The rate between two readings; a restart (the count going down) starts again.
        if (accepted >= 0 && m_lastAccepted >= 0 && accepted >= m_lastAccepted && m_since.isValid()
            && m_since.elapsed() > 0)
            r.churn.acceptedPerSecond = double(accepted - m_lastAccepted) * 1000.0 / double(m_since.elapsed());
        m_lastAccepted = accepted;
        m_since.start();
    }
    if (!RedisError::fromReply(reply.value(3))) {
        bool ok = false;
        const qint64 max = slowlog::parseConfigGet(reply.value(3)).value("maxclients").toLongLong(&ok);
        r.churn.maxClients = ok ? max : -1;
    }
    Q_EMIT readingAvailable(r);
}
