// SPDX-License-Identifier: GPL-3.0-or-later
#include "connectionimport.h"

#include <QFile>
#include <QJsonDocument>
#include <QTest>

// Saved connections and what they are imported from: a URI, a pasted redis-cli line, the
// exports of RedisInsight and Another Redis Desktop Manager (samples in tests/data/imports),
// and RedisLens's own export, which holds no secret.
class TestConnectionImport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void uri();
    void redisCliLine();
    void redisCliLineErrors_data();
    void redisCliLineErrors();
    void shellWords();
    void redisInsightExport();
    void ardmExport();
    void ardmLegacyExport();
    void exportRoundTripHoldsNoSecret();
    void savedConnectionErrorsNameTheField_data();
    void savedConnectionErrorsNameTheField();
    void textIsRecognised();
};

namespace {

QByteArray sample(const char *name)
{
    const QString dir = qEnvironmentVariable("REDISLENS_SOURCE_DIR");
    const QString path = dir.isEmpty() ? QFINDTESTDATA(QStringLiteral("../data/imports/") + QLatin1String(name))
                                       : dir + QStringLiteral("/tests/data/imports/") + QLatin1String(name);
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot open %s", qPrintable(path));
    return f.readAll();
}

} // namespace

void TestConnectionImport::uri()
{
    QString error;
    const auto in = connectionimport::fromUri(QStringLiteral("rediss://ops:PLACEHOLDER-URI@127.0.0.1:6380/2"), &error);
    QVERIFY2(in, qPrintable(error));
    const ConnectionProfile &p = in->connection.profile;
    QCOMPARE(p.host, QStringLiteral("127.0.0.1"));
    QCOMPARE(p.port, quint16(6380));
    QCOMPARE(p.db, 2);
    QCOMPARE(p.username, QStringLiteral("ops"));
    QVERIFY(p.tls);
    QCOMPARE(in->password, QStringLiteral("PLACEHOLDER-URI"));
    QVERIFY(p.password.isEmpty()); // secrets travel beside the connection, never in it
    QCOMPARE(p.name, QStringLiteral("127.0.0.1:6380"));
}

void TestConnectionImport::redisCliLine()
{
    QString error;
    const auto in = connectionimport::fromRedisCli(
        QStringLiteral(
            "redis-cli -h 127.0.0.1 -p 6390 --user ops -a 'pass word' --tls --cacert \"/etc/redis/my ca.pem\" "
            "--cert c.pem --key k.pem --sni redis.test -n 3 --no-auth-warning -c get foo"),
        &error);
    QVERIFY2(in, qPrintable(error));
    const ConnectionProfile &p = in->connection.profile;
    QCOMPARE(p.host, QStringLiteral("127.0.0.1"));
    QCOMPARE(p.port, quint16(6390));
    QCOMPARE(p.username, QStringLiteral("ops"));
    QCOMPARE(in->password, QStringLiteral("pass word"));
    QVERIFY(p.tls);
    QCOMPARE(p.caCertFile, QStringLiteral("/etc/redis/my ca.pem"));
    QCOMPARE(p.clientCertFile, QStringLiteral("c.pem"));
    QCOMPARE(p.clientKeyFile, QStringLiteral("k.pem"));
    QCOMPARE(p.sni, QStringLiteral("redis.test"));
    QCOMPARE(p.db, 3);
    QCOMPARE(in->notes.size(), 2);
    QVERIFY2(in->notes.at(0).startsWith(QLatin1String("-c (cluster mode)")), qPrintable(in->notes.at(0)));
    QCOMPARE(in->notes.at(1), QStringLiteral("the command \"get foo\" is left out"));

    const auto viaUri = connectionimport::fromRedisCli(
        QStringLiteral("redis-cli -u redis://app:PLACEHOLDER-U@127.0.0.1:7000/1"), &error);
    QVERIFY2(viaUri, qPrintable(error));
    QCOMPARE(viaUri->connection.profile.port, quint16(7000));
    QCOMPARE(viaUri->password, QStringLiteral("PLACEHOLDER-U"));
    QVERIFY(viaUri->connection.profile.password.isEmpty());
}

void TestConnectionImport::redisCliLineErrors_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("message");
    QTest::newRow("open quote") << "redis-cli -a 'oops"
                                << "a single quote is not closed";
    QTest::newRow("missing value") << "redis-cli -h"
                                   << "-h needs a value";
    QTest::newRow("bad port") << "redis-cli -p 70000"
                              << "invalid port '70000'";
    QTest::newRow("tls on socket") << "redis-cli -s /tmp/r.sock --tls"
                                   << "Unix socket";
    QTest::newRow("bad uri") << "redis-cli -u http://x"
                             << "unsupported scheme";
}

void TestConnectionImport::redisCliLineErrors()
{
    QFETCH(QString, line);
    QFETCH(QString, message);
    QString error;
    QVERIFY(!connectionimport::fromRedisCli(line, &error));
    QVERIFY2(error.contains(message), qPrintable(error));
}

void TestConnectionImport::shellWords()
{
    QString error;
    const auto w = connectionimport::splitShellWords(QStringLiteral(R"(a 'b c' "d \"e\" \$f" g\ h '' x"y"z)"), &error);
    QVERIFY2(w, qPrintable(error));
    QCOMPARE(*w, QStringList({"a", "b c", "d \"e\" $f", "g h", "", "xyz"}));
}

void TestConnectionImport::redisInsightExport()
{
    QString error;
    const auto list = connectionimport::fromRedisInsight(sample("redisinsight.json"), &error);
    QVERIFY2(list, qPrintable(error));
    QCOMPARE(list->size(), 3);
    const auto &plain = list->at(0);
    QCOMPARE(plain.connection.profile.name, QStringLiteral("local-dev"));
    QCOMPARE(plain.connection.profile.db, 2);
    QCOMPARE(plain.password, QStringLiteral("PLACEHOLDER-RI-1"));
    QVERIFY(!plain.connection.profile.tls);
    QVERIFY(plain.notes.isEmpty());

    const auto &tls = list->at(1);
    const ConnectionProfile &p = tls.connection.profile;
    QCOMPARE(p.port, quint16(6380));
    QCOMPARE(p.username, QStringLiteral("app"));
    QVERIFY(p.tls);
    QVERIFY(!p.tlsInsecure); // verifyServerCert: true
    QCOMPARE(p.sni, QStringLiteral("redis.test"));
    QVERIFY(tls.caPem.startsWith("-----BEGIN CERTIFICATE-----"));
    QVERIFY(tls.certPem.contains("MIICCA=="));
    QVERIFY(tls.keyPem.startsWith("-----BEGIN PRIVATE KEY-----"));
    QVERIFY(p.caCertFile.isEmpty()); // PEM text, not a path: the caller saves it
    QCOMPARE(tls.connection.profile.ssh.host, QStringLiteral("127.0.0.2"));
    QCOMPARE(tls.connection.profile.ssh.port, quint16(2222));
    QCOMPARE(tls.connection.profile.ssh.user, QStringLiteral("tunnel"));
    QCOMPARE(tls.sshPassphrase, QStringLiteral("PLACEHOLDER-RI-SSH"));
    QVERIFY(tls.sshKeyPem.startsWith("-----BEGIN OPENSSH PRIVATE KEY-----"));
    QVERIFY(tls.notes.join(u'|').contains(QLatin1String("compressed with GZIP")));

    const auto &sentinel = list->at(2);
    QVERIFY(sentinel.password.isEmpty()); // exported without secrets
    QVERIFY2(sentinel.notes.join(u'|').contains(QLatin1String("a Sentinel (master mymaster)")),
             qPrintable(sentinel.notes.join(u'|')));
}

void TestConnectionImport::ardmExport()
{
    QString error;
    const auto list = connectionimport::fromArdm(sample("ardm.ano"), &error);
    QVERIFY2(list, qPrintable(error));
    QCOMPARE(list->size(), 2);
    QCOMPARE(list->at(0).connection.profile.port, quint16(6379)); // "6379", a string
    QCOMPARE(list->at(0).password, QStringLiteral("PLACEHOLDER-ARDM-1"));
    const auto &second = list->at(1);
    const ConnectionProfile &p = second.connection.profile;
    QCOMPARE(p.name, QStringLiteral("Staging / tls-via-ssh"));
    QVERIFY(p.readOnly);
    QVERIFY(p.tls);
    QCOMPARE(p.caCertFile, QStringLiteral("/home/me/tls/ca.crt"));
    QCOMPARE(p.clientCertFile, QStringLiteral("/home/me/tls/client.crt"));
    QCOMPARE(p.clientKeyFile, QStringLiteral("/home/me/tls/client.key"));
    QCOMPARE(p.sni, QStringLiteral("redis.test"));
    QCOMPARE(second.connection.colour, QColor(0xe0, 0xa0, 0x30));
    QCOMPARE(second.connection.profile.ssh.keyFile, QStringLiteral("/home/me/.ssh/id_ed25519"));
    QCOMPARE(second.sshPassphrase, QStringLiteral("PLACEHOLDER-ARDM-SSH"));
    QVERIFY(second.notes.join(u'|').contains(QLatin1String("key separator '/'")));
}

void TestConnectionImport::ardmLegacyExport()
{
    QString error;
    const auto list = connectionimport::fromArdm(sample("ardm-legacy.ano"), &error);
    QVERIFY2(list, qPrintable(error));
    QCOMPARE(list->size(), 2);
    QCOMPARE(list->at(0).connection.profile.name, QStringLiteral("127.0.0.1@6379")); // no name: ARDM's
    QVERIFY(list->at(0).notes.join(u'|').contains(QLatin1String("a cluster")));
    QCOMPARE(list->at(1).connection.profile.port, quint16(26379));
    QVERIFY(list->at(1).notes.join(u'|').contains(QLatin1String("master mymaster")));
    QVERIFY(!connectionimport::fromArdm("not base64 at all!", &error));
    QVERIFY2(error.contains(QLatin1String("base64")), qPrintable(error));
}

void TestConnectionImport::exportRoundTripHoldsNoSecret()
{
    QString error;
    QList<SavedConnection> saved;
    QStringList secrets;
    for (const char *file : {"redisinsight.json"}) {
        const auto list = connectionimport::fromRedisInsight(sample(file), &error);
        QVERIFY2(list, qPrintable(error));
        for (const auto &in : *list) {
            saved.append(in.connection);
            secrets << in.password << in.sshPassphrase;
        }
    }
    const auto ardm = connectionimport::fromArdm(sample("ardm.ano"), &error);
    QVERIFY2(ardm, qPrintable(error));
    bool replicaSet = false;
    for (const auto &in : *ardm) {
        SavedConnection c = in.connection;
        c.id = QStringLiteral("id-%1").arg(saved.size());
        c.tag = SavedConnection::Tag::Production;
        // One with a scan replica: it is saved and read back.
        if (!replicaSet)
            QVERIFY(c.profile.parseScanReplica(QStringLiteral("[::1]:6390"), &error));
        replicaSet = true;
        saved.append(c);
        secrets << in.password << in.sshPassphrase;
    }
    const QByteArray json = connectionimport::exportJson(saved);
    for (const QString &s : std::as_const(secrets)) {
        if (!s.isEmpty())
            QVERIFY2(!json.contains(s.toUtf8()), qPrintable(s));
    }
    QVERIFY(!json.contains("PRIVATE KEY"));
    const auto back = connectionimport::fromExport(json, &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->size(), saved.size());
    for (qsizetype i = 0; i < saved.size(); ++i) {
        QCOMPARE(back->at(i).toJson(), saved.at(i).toJson());
        QCOMPARE(back->at(i).profile.ssh, saved.at(i).profile.ssh);
        QCOMPARE(back->at(i).profile.scanReplica(), saved.at(i).profile.scanReplica());
    }
    QVERIFY(json.contains("scan_replica") && json.contains("[::1]:6390"));
}

void TestConnectionImport::savedConnectionErrorsNameTheField_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");
    QTest::newRow("port type") << QByteArray(R"({"port": "x"})") << "\"port\" must be a whole number from 1 to 65535";
    QTest::newRow("port range") << QByteArray(R"({"port": 0})") << "\"port\" must be a whole number";
    QTest::newRow("tag") << QByteArray(R"({"tag": "prod"})") << "\"tag\" must be local, staging or production";
    QTest::newRow("colour") << QByteArray(R"({"colour": "no-such"})") << "\"colour\" 'no-such' is not a colour";
    QTest::newRow("tls field") << QByteArray(R"({"tls": {"cacert": 3}})") << "tls: \"cacert\" must be a string";
    QTest::newRow("socket tls") << QByteArray(R"({"socket": "/tmp/s", "tls": {}})") << "a Unix socket has no TLS";
    QTest::newRow("scan replica") << QByteArray(R"({"scan_replica": "r:0"})")
                                  << "scan_replica: 'r:0': the port must be a number from 1 to 65535";
}

void TestConnectionImport::savedConnectionErrorsNameTheField()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    QString error;
    QVERIFY(!SavedConnection::fromJson(QJsonDocument::fromJson(json).object(), &error));
    QVERIFY2(error.contains(message), qPrintable(error));
}

void TestConnectionImport::textIsRecognised()
{
    QString error;
    auto r = connectionimport::fromText("  redis://127.0.0.1:6379/4\n", &error);
    QVERIFY2(r && r->size() == 1 && r->first().connection.profile.db == 4, qPrintable(error));
    r = connectionimport::fromText("redis-cli -p 6381", &error);
    QVERIFY2(r && r->first().connection.profile.port == 6381, qPrintable(error));
    r = connectionimport::fromText(sample("redisinsight.json"), &error);
    QVERIFY2(r && r->size() == 3, qPrintable(error));
    r = connectionimport::fromText(sample("ardm.ano"), &error);
    QVERIFY2(r && r->size() == 2, qPrintable(error));
    SavedConnection c;
    c.id = QStringLiteral("x");
    c.profile.name = QStringLiteral("mine");
    r = connectionimport::fromText(connectionimport::exportJson({c}), &error);
    QVERIFY2(r && r->first().connection.profile.name == QLatin1String("mine"), qPrintable(error));
    QVERIFY(!connectionimport::fromText("hello there", &error));
    QVERIFY2(error.startsWith(QLatin1String("expected a redis:// URI")), qPrintable(error));
}

QTEST_GUILESS_MAIN(TestConnectionImport)
#include "tst_connectionimport.moc"
