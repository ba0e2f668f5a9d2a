// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "localserver.h"
#include "redisclient.h"

#include <QList>
#include <memory>

class QTcpSocket;

// A plain socket that speaks RESP, for set-up and checks. It never goes through RedisLens's
// engine, so a check does not depend on the code it checks. Reconnects when needed.
class RawConnection
{
public:
    explicit RawConnection(quint16 port);
    ~RawConnection();

    QList<RedisValue> pipeline(const QList<QList<QByteArray>> &commands, int timeoutMs = 30000);
    RedisValue command(const QList<QByteArray> &argv);
    // All keys matching 'match' (empty: all) via a plain SCAN loop, COUNT 1000.
    QList<QByteArray> scan(const QByteArray &match = {});

private:
    quint16 m_port;
    std::unique_ptr<QTcpSocket> m_socket;
};

// A real redis-server for one test class: started on a free loopback port in a temporary
// directory (no persistence, DEBUG allowed), stopped at the end.
class TestServer
{
public:
    explicit TestServer(const QStringList &extraArgs = {});
    ~TestServer();

    bool start(QString *error = nullptr);
    LocalServer &server() { return *m_server; }
    quint16 port() const { return m_server->port(); }
    ConnectionProfile profile() const;

    // Blocking helpers for test set-up and checks, each on a fresh RawConnection.
    RedisValue command(const QList<QByteArray> &argv);
    QList<RedisValue> pipeline(const QList<QList<QByteArray>> &commands);
    // All keys via a plain SCAN loop (COUNT 1000).
    QList<QByteArray> allKeys(const QByteArray &match = {});
    void flushAll();

private:
    std::unique_ptr<LocalServer> m_server;
    QStringList m_extra;
};

// Sends a batch through a RedisClient and waits for the reply (processing events meanwhile).
RedisReply waitForReply(RedisClient &client, const QList<QList<QByteArray>> &commands, int timeoutMs = 15000);
// Waits until the client reports Ready; false on timeout.
bool waitForReady(RedisClient &client, int timeoutMs = 10000);
// A client connected to 'profile' and ready; nullptr when it did not get ready in time.
std::unique_ptr<RedisClient> connectedClient(const ConnectionProfile &profile, int timeoutMs = 10000);
