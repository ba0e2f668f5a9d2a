// SPDX-License-Identifier: GPL-3.0-or-later
#include "testserver.h"

#include "respcodec.h"

#include <QEventLoop>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>

TestServer::TestServer(const QStringList &extraArgs) : m_server(std::make_unique<LocalServer>()), m_extra(extraArgs)
{ }

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

RawConnection::RawConnection(quint16 port) : m_port(port)
{ }

RawConnection::~RawConnection() = default;

QList<RedisValue> RawConnection::pipeline(const QList<QList<QByteArray>> &commands, int timeoutMs)
{
    QList<RedisValue> out;
    if (!m_socket || m_socket->state() != QAbstractSocket::ConnectedState) {
        m_socket = std::make_unique<QTcpSocket>();
        m_socket->connectToHost(QHostAddress::LocalHost, m_port);
        if (!m_socket->waitForConnected(3000))
            return out;
    }
    m_socket->write(resp::formatCommands(commands));
    resp::ReplyReader reader;
    RedisValue value;
    while (out.size() < commands.size()) {
        if (m_socket->bytesAvailable() == 0 && !m_socket->waitForReadyRead(timeoutMs))
            break;
        const QByteArray chunk = m_socket->readAll();
        if (!reader.feed(chunk.constData(), chunk.size()))
            break;
        resp::ReplyReader::Result r;
        while ((r = reader.next(&value)) == resp::ReplyReader::Result::Reply)
            out.append(std::move(value));
        if (r == resp::ReplyReader::Result::Error)
            break;
    }
    return out;
}

RedisValue RawConnection::command(const QList<QByteArray> &argv)
{
    const QList<RedisValue> r = pipeline({argv});
    return r.isEmpty() ? RedisValue() : r.first();
}

QList<QByteArray> RawConnection::scan(const QByteArray &match)
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

QList<RedisValue> TestServer::pipeline(const QList<QList<QByteArray>> &commands)
{
    return RawConnection(m_server->port()).pipeline(commands);
}

RedisValue TestServer::command(const QList<QByteArray> &argv)
{
    return RawConnection(m_server->port()).command(argv);
}

QList<QByteArray> TestServer::allKeys(const QByteArray &match)
{
    return RawConnection(m_server->port()).scan(match);
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

std::unique_ptr<RedisClient> connectedClient(const ConnectionProfile &profile, int timeoutMs)
{
    auto client = std::make_unique<RedisClient>(profile);
    client->connectToServer();
    if (!waitForReady(*client, timeoutMs))
        return nullptr;
    return client;
}
