// SPDX-License-Identifier: GPL-3.0-or-later
// TLS against real redis-servers with a throwaway CA and certificates made for the test by
// openssl: a good certificate, an expired one, one for another name, and a server that wants a
// client certificate. Each failure has its own one-line reason. Sentinels that speak TLS are
// asked for a primary that speaks TLS.
#include "testsentinel.h"
#include "testserver.h"
#include "tlsconfig.h"

#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

class TestTls : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void trustedCaConnects();
    void unknownCaIsRefusedWithReason();
    void insecureSkipsVerification();
    void plainClientOnTlsPortFailsCleanly();
    void caCertDirTrustsItsCertificates();
    void wrongHostNameIsRefusedWithReason();
    void expiredCertificateIsRefusedWithReason();
    void sniNamesTheHostToVerify();
    void missingClientCertificateIsRefusedWithReason();
    void clientCertificateWithEncryptedKey();
    void unusableFilesFailWithoutConnecting();
    void sentinelsOverTls();

private:
    bool openssl(const QStringList &args);
    // A key and a certificate signed by the test CA for 'subjectAltName' ("IP:127.0.0.1",
    // "DNS:redis.test"); 'start'/'end' (YYYYMMDDHHMMSSZ) backdate it through `openssl ca`.
    bool makeCertificate(const QString &name, const QString &subjectAltName, const QString &start = {},
                         const QString &end = {});
    std::unique_ptr<TestServer> tlsServer(const QString &certName, bool authClients, quint16 *port);
    ConnectionProfile tlsProfile(quint16 port = 0) const;
    RedisError refusal(const ConnectionProfile &profile);

    QTemporaryDir m_dir;
    quint16 m_tlsPort = 0;
    std::unique_ptr<TestServer> m_server;
    quint16 m_expiredPort = 0;
    std::unique_ptr<TestServer> m_expired;
    quint16 m_mutualPort = 0; // tls-auth-clients yes, a certificate for redis.test only
    std::unique_ptr<TestServer> m_mutual;
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

bool TestTls::makeCertificate(const QString &name, const QString &subjectAltName, const QString &start,
                              const QString &end)
{
    const QStringList ec{QStringLiteral("-newkey"), QStringLiteral("ec"), QStringLiteral("-pkeyopt"),
                         QStringLiteral("ec_paramgen_curve:prime256v1"), QStringLiteral("-nodes")};
    if (!openssl(QStringList{QStringLiteral("req")} + ec
                 + QStringList{QStringLiteral("-keyout"), name + QStringLiteral(".key"), QStringLiteral("-out"),
                               name + QStringLiteral(".csr"), QStringLiteral("-subj"), QStringLiteral("/CN=") + name}))
        return false;
    // `openssl ca` signs with any dates (x509 -req cannot backdate on OpenSSL 3.0).
    QFile conf(m_dir.filePath(name + QStringLiteral(".cnf")));
    if (!conf.open(QIODevice::WriteOnly))
        return false;
    conf.write(QStringLiteral("[ca]\ndefault_ca = test\n[test]\ndatabase = index.txt\nnew_certs_dir = .\n"
                              "serial = serial\ndefault_md = sha256\npolicy = any\nx509_extensions = ext\n"
                              "unique_subject = no\ndefault_days = 2\n[any]\ncommonName = supplied\n"
                              "[ext]\nsubjectAltName = %1\n")
                   .arg(subjectAltName)
                   .toUtf8());
    conf.close();
    QStringList args{QStringLiteral("ca"),          QStringLiteral("-batch"), QStringLiteral("-config"),
                     name + QStringLiteral(".cnf"), QStringLiteral("-cert"),  QStringLiteral("ca.crt"),
                     QStringLiteral("-keyfile"),    QStringLiteral("ca.key"), QStringLiteral("-in"),
                     name + QStringLiteral(".csr"), QStringLiteral("-out"),   name + QStringLiteral(".crt"),
                     QStringLiteral("-notext")};
    if (!start.isEmpty())
        args << QStringLiteral("-startdate") << start << QStringLiteral("-enddate") << end;
    return openssl(args);
}

std::unique_ptr<TestServer> TestTls::tlsServer(const QString &certName, bool authClients, quint16 *port)
{
    *port = LocalServer::freePort();
    auto server = std::make_unique<TestServer>(
        QStringList{QStringLiteral("--tls-port"), QString::number(*port), QStringLiteral("--tls-cert-file"),
                    m_dir.filePath(certName + QStringLiteral(".crt")), QStringLiteral("--tls-key-file"),
                    m_dir.filePath(certName + QStringLiteral(".key")), QStringLiteral("--tls-ca-cert-file"),
                    m_dir.filePath(QStringLiteral("ca.crt")), QStringLiteral("--tls-auth-clients"),
                    authClients ? QStringLiteral("yes") : QStringLiteral("no")});
    QString error;
    if (!server->start(&error)) {
        qWarning() << error;
        return nullptr;
    }
    return server;
}

void TestTls::initTestCase()
{
    // script/bootstrap installs openssl: its absence is a failure, not a reason to skip.
    QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("openssl")).isEmpty(),
             "openssl is not installed (script/bootstrap installs it)");
    QVERIFY(openssl({QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"), QStringLiteral("ec"),
                     QStringLiteral("-pkeyopt"), QStringLiteral("ec_paramgen_curve:prime256v1"),
                     QStringLiteral("-nodes"), QStringLiteral("-keyout"), QStringLiteral("ca.key"),
                     QStringLiteral("-out"), QStringLiteral("ca.crt"), QStringLiteral("-days"), QStringLiteral("2"),
                     QStringLiteral("-subj"), QStringLiteral("/CN=RedisLens test CA")}));
    QFile index(m_dir.filePath(QStringLiteral("index.txt")));
    QVERIFY(index.open(QIODevice::WriteOnly));
    index.close();
    QFile serial(m_dir.filePath(QStringLiteral("serial")));
    QVERIFY(serial.open(QIODevice::WriteOnly));
    serial.write("1000\n");
    serial.close();
    QVERIFY(makeCertificate(QStringLiteral("server"), QStringLiteral("IP:127.0.0.1")));
    QVERIFY(makeCertificate(QStringLiteral("expired"), QStringLiteral("IP:127.0.0.1"),
                            QStringLiteral("20200101000000Z"), QStringLiteral("20200102000000Z")));
    QVERIFY(makeCertificate(QStringLiteral("named"), QStringLiteral("DNS:redis.test")));
    QVERIFY(makeCertificate(QStringLiteral("client"), QStringLiteral("DNS:client.test")));
    // The client key again, encrypted.
    QVERIFY(openssl({QStringLiteral("pkey"), QStringLiteral("-in"), QStringLiteral("client.key"),
                     QStringLiteral("-aes256"), QStringLiteral("-passout"), QStringLiteral("pass:tls-key-passphrase"),
                     QStringLiteral("-out"), QStringLiteral("client-encrypted.key")}));

    m_server = tlsServer(QStringLiteral("server"), false, &m_tlsPort);
    QVERIFY(m_server);
    m_expired = tlsServer(QStringLiteral("expired"), false, &m_expiredPort);
    QVERIFY(m_expired);
    m_mutual = tlsServer(QStringLiteral("named"), true, &m_mutualPort);
    QVERIFY(m_mutual);
    m_server->command({"SET", "tls:key", QByteArray("over\x00tls", 8)});
}

ConnectionProfile TestTls::tlsProfile(quint16 port) const
{
    ConnectionProfile p = m_server->profile();
    p.port = port == 0 ? m_tlsPort : port;
    p.tls = true;
    p.connectTimeoutMs = 5000;
    return p;
}

// The one-line reason a connection with 'profile' is refused.
RedisError TestTls::refusal(const ConnectionProfile &profile)
{
    RedisClient client(profile);
    QSignalSpy errors(&client, &RedisClient::connectionError);
    client.connectToServer();
    if (!errors.wait(10000))
        return {};
    const auto e = errors.first().first().value<RedisError>();
    if (client.isReady() || e.message.contains(QLatin1Char('\n')))
        return {};
    return e;
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
    QVERIFY2(e.message.contains(QLatin1String("unknown CA \"RedisLens test CA\"")), qPrintable(e.message));
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

void TestTls::caCertDirTrustsItsCertificates()
{
    QTemporaryDir cas;
    QVERIFY(QFile::copy(m_dir.filePath(QStringLiteral("ca.crt")), cas.filePath(QStringLiteral("test-ca.pem"))));
    QFile other(cas.filePath(QStringLiteral("README")));
    QVERIFY(other.open(QIODevice::WriteOnly)); // not a certificate: skipped
    other.write("certificates of the team\n");
    other.close();
    ConnectionProfile p = tlsProfile();
    p.caCertDir = cas.path();
    const auto client = connectedClient(p);
    QVERIFY(client);
    QCOMPARE(waitForReply(*client, {{"GET", "tls:key"}}).value().bytes(), QByteArray("over\x00tls", 8));
}

void TestTls::wrongHostNameIsRefusedWithReason()
{
    ConnectionProfile p = tlsProfile();
    p.caCertFile = m_dir.filePath(QStringLiteral("ca.crt"));
    p.sni = QStringLiteral("cache.other.test"); // the certificate is for IP 127.0.0.1 only
    const RedisError e = refusal(p);
    QCOMPARE(e.kind, RedisError::Kind::ConnectionRefused);
    QVERIFY2(e.message.contains(QLatin1String("certificate is for 127.0.0.1, not cache.other.test")),
             qPrintable(e.message));
}

void TestTls::expiredCertificateIsRefusedWithReason()
{
    ConnectionProfile p = tlsProfile(m_expiredPort);
    p.caCertFile = m_dir.filePath(QStringLiteral("ca.crt"));
    const RedisError e = refusal(p);
    QCOMPARE(e.kind, RedisError::Kind::ConnectionRefused);
    QVERIFY2(e.message.contains(QLatin1String("certificate expired on 2020-01-02")), qPrintable(e.message));
}

void TestTls::sniNamesTheHostToVerify()
{
    // The certificate names redis.test, not the address: --sni verifies that name.
    ConnectionProfile p = tlsProfile(m_mutualPort);
    p.caCertFile = m_dir.filePath(QStringLiteral("ca.crt"));
    p.clientCertFile = m_dir.filePath(QStringLiteral("client.crt"));
    p.clientKeyFile = m_dir.filePath(QStringLiteral("client.key"));
    const RedisError withoutSni = refusal(p);
    QVERIFY2(withoutSni.message.contains(QLatin1String("certificate is for redis.test, not 127.0.0.1")),
             qPrintable(withoutSni.message));
    p.sni = QStringLiteral("redis.test");
    const auto client = connectedClient(p);
    QVERIFY(client);
    QCOMPARE(waitForReply(*client, {{"PING"}}).value().bytes(), QByteArray("PONG"));
}

void TestTls::missingClientCertificateIsRefusedWithReason()
{
    ConnectionProfile p = tlsProfile(m_mutualPort);
    p.caCertFile = m_dir.filePath(QStringLiteral("ca.crt"));
    p.sni = QStringLiteral("redis.test");
    const RedisError e = refusal(p);
    QVERIFY2(e.message.contains(QLatin1String("the server requires a client certificate (--cert and --key)")),
             qPrintable(e.message));
}

void TestTls::clientCertificateWithEncryptedKey()
{
    ConnectionProfile p = tlsProfile(m_mutualPort);
    p.caCertFile = m_dir.filePath(QStringLiteral("ca.crt"));
    p.sni = QStringLiteral("redis.test");
    p.clientCertFile = m_dir.filePath(QStringLiteral("client.crt"));
    p.clientKeyFile = m_dir.filePath(QStringLiteral("client-encrypted.key"));
    QVERIFY(tlsconfig::keyIsEncrypted(p.clientKeyFile));
    QVERIFY(!tlsconfig::keyIsEncrypted(m_dir.filePath(QStringLiteral("client.key"))));
    QVERIFY2(refusal(p).message.contains(QLatin1String("is encrypted: its passphrase is needed")),
             qPrintable(refusal(p).message));
    p.keyPassphrase = QStringLiteral("not-the-passphrase");
    QVERIFY2(refusal(p).message.contains(QLatin1String("wrong passphrase for the client key")),
             qPrintable(refusal(p).message));
    p.keyPassphrase = QStringLiteral("tls-key-passphrase");
    const auto client = connectedClient(p);
    QVERIFY(client);
    QCOMPARE(waitForReply(*client, {{"PING"}}).value().bytes(), QByteArray("PONG"));
}

void TestTls::unusableFilesFailWithoutConnecting()
{
    ConnectionProfile p = tlsProfile();
    p.caCertFile = m_dir.filePath(QStringLiteral("missing-ca.crt"));
    QVERIFY2(refusal(p).message.contains(QLatin1String("cannot read the CA certificate file")),
             qPrintable(refusal(p).message));
    p.caCertFile.clear();
    p.clientCertFile = m_dir.filePath(QStringLiteral("client.crt"));
    QVERIFY2(refusal(p).message.contains(QLatin1String("needs its key")), qPrintable(refusal(p).message));
    p.clientKeyFile = m_dir.filePath(QStringLiteral("ca.crt")); // a certificate, not a key
    QVERIFY2(refusal(p).message.contains(QLatin1String("no PEM private key")), qPrintable(refusal(p).message));
}

// Sentinel over TLS: the addresses given are the sentinels' TLS ports, the primary they name is
// its TLS port; the profile's TLS reaches both (the CA trusted, 127.0.0.1 in the certificate),
// and the same profile without TLS is refused at the sentinels.
void TestTls::sentinelsOverTls()
{
    TestSentinel sentinel;
    sentinel.useTls(m_dir.filePath(QStringLiteral("server.crt")), m_dir.filePath(QStringLiteral("server.key")),
                    m_dir.filePath(QStringLiteral("ca.crt")));
    QString error;
    QVERIFY2(sentinel.start(&error), qPrintable(error));
    const QByteArray marker = QUuid::createUuid().toByteArray(QUuid::Id128);
    sentinel.primary().command({"SET", "tls:sentinel", marker});
    const quint16 primaryTls = sentinel.currentPrimaryPort();
    QVERIFY(primaryTls != 0 && primaryTls != sentinel.primary().port());

    ConnectionProfile p;
    p.sentinels = sentinel.sentinelAddresses();
    p.sentinelMaster = QString::fromUtf8(TestSentinel::masterName());
    p.tls = true;
    p.caCertFile = m_dir.filePath(QStringLiteral("ca.crt"));
    p.connectTimeoutMs = 5000;
    RedisClient client(p);
    client.connectToServer();
    QVERIFY(waitForReady(client, 20000));
    QCOMPARE(client.profile().port, primaryTls);
    const RedisReply r = waitForReply(client, {{"GET", "tls:sentinel"}});
    QVERIFY2(r.ok(), qPrintable(r.error.message));
    QCOMPARE(r.value(0).bytes(), marker);

    // Plain to TLS sentinels: refused, with a reason, and nothing read.
    p.tls = false;
    RedisClient plain(p);
    QSignalSpy errors(&plain, &RedisClient::connectionError);
    plain.connectToServer();
    QVERIFY(errors.wait(20000));
    QVERIFY(!plain.isReady());
    QVERIFY(!errors.constFirst().constFirst().value<RedisError>().message.isEmpty());
}

QTEST_GUILESS_MAIN(TestTls)
#include "tst_tls.moc"
