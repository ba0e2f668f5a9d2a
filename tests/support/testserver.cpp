// SPDX-License-Identifier: GPL-3.0-or-later
#include "testserver.h"

#include "respcodec.h"

#include <QEventLoop>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>

TestServer::TestServer(const QStringList &extraArgs)
    : m_server(std::make_unique<LocalServer>()), m_extra(extraArgs)
{
}

TestServer::~TestServer() = default;

bool TestServer::start(QString *error)
{
    m_server->setExtraArguments(m_extra);
    return m_server->start(error);
}

ConnectionProfile TestServer::profile() const
{
    ConnectionProfile p;
    p.host = QStringLiteral("127.0.0.1");
    p.port = m_server->port();
    p.connectTimeoutMs = 3000;
    p.commandTimeoutMs = 10000;
    return p;
}

QList<RedisValue> TestServer::pipeline(const QList<QList<QByteArray>> &commands)
{
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, m_server->port());
    QList<RedisValue> out;
    if (!socket.waitForConnected(3000))
        return out;
    socket.write(resp::formatCommands(commands));
    QByteArray buffer;
    while (socket.waitForReadyRead(30000) || socket.bytesAvailable() > 0) {
        buffer += socket.readAll();
        out.clear();
        if (resp::parseAll(buffer, &out) && out.size() >= commands.size())
            break;
    }
    return out;
}

RedisValue TestServer::command(const QList<QByteArray> &argv)
{
    const QList<RedisValue> r = pipeline({argv});
    return r.isEmpty() ? RedisValue() : r.first();
}

QList<QByteArray> TestServer::allKeys(const QByteArray &match)
{
    QList<QByteArray> keys;
    QByteArray cursor = "0";
    do {
        QList<QByteArray> argv{"SCAN", cursor, "COUNT", "1000"};
        if (!match.isEmpty())
            argv << "MATCH" << match;
        const RedisValue r = command(argv);
        if (!r.isArray() || r.size() != 2)
            break;
        cursor = r.at(0).bytes();
        for (const RedisValue &k : r.at(1).elements())
            keys.append(k.bytes());
    } while (cursor != "0");
    return keys;
}

void TestServer::flushAll()
{
    command({"FLUSHALL"});
}

RedisReply waitForReply(RedisClient &client, const QList<QList<QByteArray>> &commands, int timeoutMs)
{
    RedisReply result;
    bool done = false;
    QObject context;
    QEventLoop loop;
    client.sendBatch(commands, &context, [&](const RedisReply &r) {
        result = r;
        done = true;
        loop.quit();
    });
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    if (!done)
        loop.exec();
    if (!done)
        result.error = RedisError::make(RedisError::Kind::Timeout, QStringLiteral("test waited too long"));
    return result;
}

bool waitForReady(RedisClient &client, int timeoutMs)
{
    if (client.isReady())
        return true;
    QSignalSpy spy(&client, &RedisClient::ready);
    return spy.wait(timeoutMs) || client.isReady();
}
