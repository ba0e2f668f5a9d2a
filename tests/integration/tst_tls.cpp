// SPDX-License-Identifier: GPL-3.0-or-later
// TLS against a real redis-server with a certificate made for the test by openssl.
#include "testserver.h"

#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

class TestTls : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void trustedCaConnects();
    void unknownCaIsRefusedWithReason();
    void insecureSkipsVerification();
    void plainClientOnTlsPortFailsCleanly();

private:
    bool openssl(const QStringList &args);
    ConnectionProfile tlsProfile() const;

    QTemporaryDir m_dir;
    quint16 m_tlsPort = 0;
    std::unique_ptr<TestServer> m_server;
};

bool TestTls::openssl(const QStringList &args)
{
    QProcess p;
    p.setWorkingDirectory(m_dir.path());
    p.start(QStringLiteral("openssl"), args);
    if (!p.waitForFinished(30000) || p.exitCode() != 0) {
        qWarning() << "openssl" << args << p.readAllStandardError();
        return false;
    }
    return true;
}

void TestTls::initTestCase()
{
    // script/bootstrap installs openssl: its absence is a failure, not a reason to skip.
    QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("openssl")).isEmpty(),
             "openssl is not installed (script/bootstrap installs it)");
    const QStringList ec{QStringLiteral("-newkey"), QStringLiteral("ec"), QStringLiteral("-pkeyopt"),
                         QStringLiteral("ec_paramgen_curve:prime256v1"), QStringLiteral("-nodes")};
    QVERIFY(openssl(QStringList{QStringLiteral("req"), QStringLiteral("-x509")} + ec
                    + QStringList{QStringLiteral("-keyout"), QStringLiteral("ca.key"), QStringLiteral("-out"),
                                  QStringLiteral("ca.crt"), QStringLiteral("-days"), QStringLiteral("2"),
                                  QStringLiteral("-subj"), QStringLiteral("/CN=RedisLens test CA")}));
    QVERIFY(
        openssl(QStringList{QStringLiteral("req")} + ec
                + QStringList{QStringLiteral("-keyout"), QStringLiteral("server.key"), QStringLiteral("-out"),
                              QStringLiteral("server.csr"), QStringLiteral("-subj"), QStringLiteral("/CN=127.0.0.1")}));
    QFile ext(m_dir.filePath(QStringLiteral("san.ext")));
    QVERIFY(ext.open(QIODevice::WriteOnly));
    ext.write("subjectAltName=IP:127.0.0.1\n");
    ext.close();
    QVERIFY(
        openssl({QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"), QStringLiteral("server.csr"),
                 QStringLiteral("-CA"), QStringLiteral("ca.crt"), QStringLiteral("-CAkey"), QStringLiteral("ca.key"),
                 QStringLiteral("-CAcreateserial"), QStringLiteral("-out"), QStringLiteral("server.crt"),
                 QStringLiteral("-days"), QStringLiteral("2"), QStringLiteral("-extfile"), QStringLiteral("san.ext")}));
    m_tlsPort = LocalServer::freePort();
    m_server = std::make_unique<TestServer>(QStringList{
        QStringLiteral("--tls-port"), QString::number(m_tlsPort), QStringLiteral("--tls-cert-file"),
        m_dir.filePath(QStringLiteral("server.crt")), QStringLiteral("--tls-key-file"),
        m_dir.filePath(QStringLiteral("server.key")), QStringLiteral("--tls-ca-cert-file"),
        m_dir.filePath(QStringLiteral("ca.crt")), QStringLiteral("--tls-auth-clients"), QStringLiteral("no")});
    QString error;
    QVERIFY2(m_server->start(&error), qPrintable(error));
    m_server->command({"SET", "tls:key", QByteArray("over\x00tls", 8)});
}

ConnectionProfile TestTls::tlsProfile() const
{
    ConnectionProfile p = m_server->profile();
    p.port = m_tlsPort;
    p.tls = true;
    return p;
}

void TestTls::trustedCaConnects()
{
    ConnectionProfile p = tlsProfile();
    p.caCertFile = m_dir.filePath(QStringLiteral("ca.crt"));
    RedisClient client(p);
    client.connectToServer();
    QVERIFY(waitForReady(client));
    const RedisReply r = waitForReply(client, {{"GET", "tls:key"}, {"SET", "tls:written", "yes"}});
    QVERIFY2(r.ok(), qPrintable(r.error.message));
    QCOMPARE(r.value(0).bytes(), QByteArray("over\x00tls", 8));
    QCOMPARE(m_server->command({"GET", "tls:written"}).bytes(), QByteArray("yes"));
}

void TestTls::unknownCaIsRefusedWithReason()
{
    RedisClient client(tlsProfile());
    QSignalSpy errors(&client, &RedisClient::connectionError);
    client.connectToServer();
    QVERIFY(errors.wait(10000));
    const auto e = errors.first().first().value<RedisError>();
    QCOMPARE(e.kind, RedisError::Kind::ConnectionRefused);
    QVERIFY2(e.message.contains(QLatin1String("certificate"), Qt::CaseInsensitive), qPrintable(e.message));
    QVERIFY(!client.isReady());
}

void TestTls::insecureSkipsVerification()
{
    ConnectionProfile p = tlsProfile();
    p.tlsInsecure = true;
    RedisClient client(p);
    client.connectToServer();
    QVERIFY(waitForReady(client));
    QCOMPARE(waitForReply(client, {{"PING"}}).value().bytes(), QByteArray("PONG"));
}

void TestTls::plainClientOnTlsPortFailsCleanly()
{
    ConnectionProfile p = m_server->profile();
    p.port = m_tlsPort;
    p.connectTimeoutMs = 1500;
    RedisClient client(p);
    QSignalSpy errors(&client, &RedisClient::connectionError);
    client.connectToServer();
    QVERIFY(errors.wait(10000));
    QVERIFY(!client.isReady());
}

QTEST_GUILESS_MAIN(TestTls)
#include "tst_tls.moc"
