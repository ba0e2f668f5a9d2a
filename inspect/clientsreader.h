// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clients.h"
#include "rediscommand.h"

#include <QElapsedTimer>
#include <QMetaType>
#include <QObject>
#include <QPointer>
#include <QSet>

class RedisClient;

// One reading of the server's connections: CLIENT LIST, INFO clients and stats, CONFIG GET
// maxclients. The connection rate comes from this reading and the one before it (the first
// reading has none). Reads only; one reading on the wire at a time.
struct ClientsReading
{
    QList<ClientEntry> clients;
    clients::Churn churn;
    QString error; // CLIENT LIST refused (ACL) or the read failed; the rest may still be there
    bool denied = false; // the refusal was the ACL's (NOPERM)
};
Q_DECLARE_METATYPE(ClientsReading)

class ClientsReader : public QObject
{
    Q_OBJECT
public:
    explicit ClientsReader(RedisClient *client, QObject *parent = nullptr);
    ~ClientsReader() override;

    void read();
    bool isBusy() const { return m_request != 0; }

Q_SIGNALS:
    void readingAvailable(const ClientsReading &reading);
    void failed(const QString &message);

private:
    void onReply(const RedisReply &reply);

    QPointer<RedisClient> m_client;
    RequestId m_request = 0;
    qint64 m_lastAccepted = -1; // total_connections_received at the last reading
    QSet<qint64> m_lastIds; // the connections of the last reading
    bool m_read = false; // a reading was made
    QElapsedTimer m_since; // since the last reading
};
