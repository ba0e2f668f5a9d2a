// SPDX-License-Identifier: GPL-3.0-or-later
// RedisClient against a fake server on loopback that answers the handshake as Redis does and
// then, to one command, sends what no Redis sends: bytes that are not RESP, a reply cut short,
// a bulk claiming 1 GB, an array claiming ten million elements, 100,000 levels of nesting.
// Each gives the caller a clear one-line error, keeps memory bounded (measured), and the
// connection works again afterwards.
#include "redisclient.h"
#include "testserver.h"

#include <QFile>
#include <QHostAddress>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <hiredis/hiredis.h>

namespace {
qint64 residentBytes()
{
    QFile statm(QStringLiteral("/proc/self/statm"));
    if (!statm.open(QIODevice::ReadOnly))
        return 0;
    const QList<QByteArray> fields = statm.readAll().split(' ');
    return fields.size() > 1 ? fields.at(1).toLongLong() * 4096 : 0;
}

// Reads RESP requests (arrays of bulk strings, pipelined) and answers each: the handshake as a
// Redis 7.0 would, "GET evil" with the payload set for the test, anything else with nil.
class FakeServer : public QObject
{
public:
    FakeServer()
    {
        m_listener.listen(QHostAddress::LocalHost);
        connect(&m_listener, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *s = m_listener.nextPendingConnection()) {
                ++m_connections;
                connect(s, &QTcpSocket::readyRead, this, [this, s] { serve(s); });
                connect(s, &QTcpSocket::disconnected, s, &QObject::deleteLater);
            }
        });
    }
    quint16 port() const { return m_listener.serverPort(); }
    int connections() const { return m_connections; }
    // What "GET evil" gets; with 'close', the connection is closed after it.
    void setEvil(QByteArray payload, bool close = false)
    {
        m_evil = std::move(payload);
        m_closeAfter = close;
    }

private:
    void serve(QTcpSocket *s)
    {
        QByteArray &in = m_buffers[s];
        in += s->readAll();
        for (;;) {
            QList<QByteArray> argv;
            const qsizetype used = parse(in, &argv);
            if (used <= 0)
                return;
            in.remove(0, used);
            const QByteArray name = argv.value(0).toUpper();
            if (name == "GET" && argv.value(1) == "evil") {
                s->write(m_evil);
                if (m_closeAfter) {
                    s->flush();
                    s->disconnectFromHost();
                    return;
                }
            } else if (name == "PING") {
                s->write("+PONG\r\n");
            } else if (name == "INFO") {
                const QByteArray info = "# Server\r\nredis_version:7.0.15\r\nrun_id:fake\r\nredis_mode:standalone\r\n";
                s->write("$" + QByteArray::number(info.size()) + "\r\n" + info + "\r\n");
            } else if (name == "CLIENT" || name == "SELECT" || name == "AUTH") {
                s->write("+OK\r\n");
            } else {
                s->write("$-1\r\n");
            }
        }
    }

    // One request off the front of 'in': the bytes it took, 0 when it is not all there yet.
    static qsizetype parse(const QByteArray &in, QList<QByteArray> *argv)
    {
        if (!in.startsWith('*'))
            return 0;
        qsizetype at = in.indexOf("\r\n");
        if (at < 0)
            return 0;
        const int n = in.mid(1, at - 1).toInt();
        at += 2;
        for (int i = 0; i < n; ++i) {
            const qsizetype eol = in.indexOf("\r\n", at);
            if (eol < 0 || in.at(at) != '$')
                return 0;
            const qsizetype len = in.mid(at + 1, eol - at - 1).toLongLong();
            if (in.size() < eol + 2 + len + 2)
                return 0;
            argv->append(in.mid(eol + 2, len));
            at = eol + 2 + len + 2;
        }
        return at;
    }

    QTcpServer m_listener;
    QHash<QTcpSocket *, QByteArray> m_buffers;
    QByteArray m_evil;
    bool m_closeAfter = false;
    int m_connections = 0;
};
} // namespace

class TestFakeServer : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void badReplies_data();
    void badReplies();

private:
    std::unique_ptr<FakeServer> m_server;
};

void TestFakeServer::initTestCase()
{
    m_server = std::make_unique<FakeServer>();
    QVERIFY(m_server->port() != 0);
}

void TestFakeServer::badReplies_data()
{
    QTest::addColumn<QByteArray>("payload");
    QTest::addColumn<bool>("close");
    QTest::addColumn<int>("errorKind");
    QTest::addColumn<QString>("says");
    QTest::newRow("not RESP") << QByteArray("?this is not a reply\r\n") << false << int(RedisError::Kind::Protocol)
                              << QStringLiteral("protocol");
    QTest::newRow("cut short") << QByteArray("$10\r\nabc") << true << int(RedisError::Kind::ConnectionLost)
                               << QStringLiteral("lost");
    // Claims the server never makes good: the command timeout ends the wait, and what the
    // claim would have cost is never allocated.
    QTest::newRow("1 GB bulk") << QByteArray("$1073741824\r\nabc") << false << int(RedisError::Kind::Timeout)
                               << QStringLiteral("timeout");
    QTest::newRow("10 M elements") << QByteArray("*10000000\r\n:1\r\n:2\r\n") << false << int(RedisError::Kind::Timeout)
                                   << QStringLiteral("timeout");
    QTest::newRow("100,000 levels") << QByteArray("*1\r\n").repeated(100000) + ":1\r\n"
                                    << false << int(RedisError::Kind::Protocol) << QStringLiteral("nested");
}

void TestFakeServer::badReplies()
{
    QFETCH(QByteArray, payload);
    QFETCH(bool, close);
    QFETCH(int, errorKind);
    QFETCH(QString, says);
    m_server->setEvil(payload, close);
    ConnectionProfile p;
    p.host = QStringLiteral("127.0.0.1");
    p.port = m_server->port();
    p.commandTimeoutMs = 1500;
    p.connectTimeoutMs = 3000;
    RedisClient client(p);
    client.connectToServer();
    QVERIFY2(waitForReady(client), qPrintable(client.stateDetail()));
    const qint64 before = residentBytes();
    const RedisReply r = waitForReply(client, {{"GET", "evil"}}, 15000);
    const qint64 grown = residentBytes() - before;
    QVERIFY(r.error);
    QCOMPARE(int(r.error.kind), errorKind);
#if HIREDIS_MAJOR < 1
    // hiredis 0.14 refuses past 7 levels of nesting itself, with words of its own.
    if (says != QLatin1String("nested"))
#endif
        QVERIFY2(r.error.message.contains(says, Qt::CaseInsensitive), qPrintable(r.error.message));
    QVERIFY2(!r.error.message.contains(QLatin1Char('\n')), qPrintable(r.error.message));
    QVERIFY2(grown < 32 * 1024 * 1024, qPrintable(QStringLiteral("resident memory grew by %1 bytes").arg(grown)));
    qInfo("%s: %s; resident memory grew by %lld KB", QTest::currentDataTag(), qPrintable(r.error.message),
          grown / 1024);
    // The connection comes back by itself and works.
    m_server->setEvil("+fine\r\n");
    QTRY_VERIFY_WITH_TIMEOUT(client.isReady(), 15000);
    const RedisReply again = waitForReply(client, {{"GET", "evil"}}, 15000);
    QVERIFY2(again.ok(), qPrintable(again.error.message));
    QCOMPARE(again.value(), RedisValue::status("fine"));
}

QTEST_MAIN(TestFakeServer)
#include "tst_fakeserver.moc"
