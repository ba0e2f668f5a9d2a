// SPDX-License-Identifier: GPL-3.0-or-later
// `redislens show clients` against real clients on a real server: a python3-redis connection
// pool of a known size (tests/fixtures/clients/pool.py), a client that opens a connection per
// request from a loopback address of its own (per_request.py), and RedisLens itself. The groups
// hold what CLIENT LIST holds, the pool's size is the one python3-redis reports, the per-request
// client and the unnamed connections are hinted at, and the read is read-only.
#include "clientlist.h"
#include "commandstats.h"
#include "processrun.h"
#include "testserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestClients : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void poolAndPerRequestClient();
    void groupByOptions();

private:
    ProcessRun show(const QStringList &args) const
    {
        return runProgram(
            QStringLiteral(REDISLENS_APP_PATH),
            QStringList{QStringLiteral("show"), QStringLiteral("clients")} + args
                + QStringList{QStringLiteral("-p"), QString::number(m_server.port()), QStringLiteral("--read-only")},
            60000, isolatedEnvironment(m_home.path()));
    }
    QJsonObject document(const ProcessRun &r)
    {
        if (r.code != 0) {
            qWarning("show clients: exit %d: %s", r.code, r.err.constData());
            return {};
        }
        const QString invalid
            = validateAgainstSchema(QStringLiteral("show-clients.schema.json"), r.out, QStringLiteral("json"),
                                    m_home.filePath(QStringLiteral("out.json")));
        if (!invalid.isEmpty()) {
            qWarning("%s", qPrintable(invalid));
            return {};
        }
        return QJsonDocument::fromJson(r.out).object();
    }

    TestServer m_server;
    QTemporaryDir m_home;
    QProcess m_pool;
    int m_poolSize = -1;
};

void TestClients::initTestCase()
{
    QVERIFY(m_home.isValid());
    QString error;
    QVERIFY2(m_server.start(&error), qPrintable(error));
    // The per-request client connects from 127.0.0.3, which protected mode turns away (it admits
    // 127.0.0.1 and ::1); the server still listens on loopback only.
    RawConnection raw(m_server.port());
    QCOMPARE(raw.command({"CONFIG", "SET", "protected-mode", "no"}).bytes(), QByteArray("OK"));
    const QString fixtures = qEnvironmentVariable("REDISLENS_SOURCE_DIR") + QStringLiteral("/tests/fixtures/clients/");
    m_pool.start(QStringLiteral("/usr/bin/python3"),
                 {fixtures + QStringLiteral("pool.py"), QStringLiteral("--port"), QString::number(m_server.port()),
                  QStringLiteral("--size"), QStringLiteral("8"), QStringLiteral("--name"),
                  QStringLiteral("billing-pool")});
    QVERIFY(m_pool.waitForStarted());
    QVERIFY(m_pool.waitForReadyRead(30000));
    m_poolSize = QJsonDocument::fromJson(m_pool.readLine()).object().value(QStringLiteral("in_use")).toInt();
    QCOMPARE(m_poolSize, 8);
}

void TestClients::cleanupTestCase()
{
    m_pool.closeWriteChannel();
    if (!m_pool.waitForFinished(10000))
        m_pool.kill();
}

void TestClients::poolAndPerRequestClient()
{
    // A connection per request, 40 a second, each held 2 s, from 127.0.0.3 for 5 s; the show runs
    // while it does.
    const QString fixtures = qEnvironmentVariable("REDISLENS_SOURCE_DIR") + QStringLiteral("/tests/fixtures/clients/");
    QProcess perRequest;
    perRequest.start(QStringLiteral("/usr/bin/python3"),
                     {fixtures + QStringLiteral("per_request.py"), QStringLiteral("--port"),
                      QString::number(m_server.port()), QStringLiteral("--source"), QStringLiteral("127.0.0.3"),
                      QStringLiteral("--rate"), QStringLiteral("40"), QStringLiteral("--hold"), QStringLiteral("2"),
                      QStringLiteral("--seconds"), QStringLiteral("5")});
    QVERIFY(perRequest.waitForStarted());
    RawConnection raw(m_server.port());
    QTRY_VERIFY_WITH_TIMEOUT(raw.command({"CLIENT", "LIST"}).bytes().count("addr=127.0.0.3:") >= 20, 10000);
    const QByteArray digest = raw.command({"DEBUG", "DIGEST"}).bytes();
    const QHash<QByteArray, qint64> before = commandCalls(raw);

    const QJsonObject byName = document(show({}));
    QVERIFY(!byName.isEmpty());
    const QJsonArray groups = byName.value(QStringLiteral("records")).toArray();
    QJsonObject pool, own, unnamed;
    for (const QJsonValue g : groups) {
        QCOMPARE(g[QStringLiteral("by")].toString(), QStringLiteral("name"));
        const QString name = g[QStringLiteral("name")].toString();
        if (name == QLatin1String("billing-pool"))
            pool = g.toObject();
        else if (name == QLatin1String("redislens"))
            own = g.toObject();
        else if (name == QLatin1String("(no name)"))
            unnamed = g.toObject();
    }
    QCOMPARE(pool.value(QStringLiteral("connections")).toInt(), m_poolSize);
    QVERIFY(!pool.value(QStringLiteral("own")).toBool());
    QVERIFY(own.value(QStringLiteral("own")).toBool());
    QVERIFY(unnamed.value(QStringLiteral("connections")).toInt() >= 20);
    QStringList ids;
    for (const QJsonValue h : byName.value(QStringLiteral("hints")).toArray()) {
        ids << h[QStringLiteral("id")].toString();
        if (h[QStringLiteral("id")].toString() == QLatin1String("connection-per-request"))
            QCOMPARE(h[QStringLiteral("group")].toString(), QStringLiteral("127.0.0.3"));
    }
    QVERIFY2(ids.contains(QStringLiteral("connection-per-request")) && ids.contains(QStringLiteral("no-client-name")),
             qPrintable(ids.join(u' ')));
    QVERIFY(byName[QStringLiteral("churn")][QStringLiteral("accepted_per_second")].toDouble() >= 5);
    QCOMPARE(byName[QStringLiteral("churn")][QStringLiteral("maxclients")].toInteger(),
             raw.command({"CONFIG", "GET", "maxclients"}).elements().at(1).bytes().toLongLong());

    const QHash<QByteArray, qint64> after = commandCalls(raw);
    static const QSet<QByteArray> reads{
        "client|list",  "client|setname", "client|setinfo", "config|get", "info",     "hello", "command",
        "command|docs", "ping",           "select",         "debug",      "readonly", "auth"};
    for (auto it = after.constBegin(); it != after.constEnd(); ++it)
        if (it.value() != before.value(it.key()))
            QVERIFY2(reads.contains(it.key()), it.key().constData()); // "ping": the per-request client's
    QCOMPARE(raw.command({"DEBUG", "DIGEST"}).bytes(), digest);
    QVERIFY(perRequest.waitForFinished(30000));
    QVERIFY2(perRequest.exitCode() == 0, perRequest.readAllStandardError().constData());
}

void TestClients::groupByOptions()
{
    const QJsonObject byAddr = document(show({QStringLiteral("--group-by"), QStringLiteral("addr")}));
    QVERIFY(!byAddr.isEmpty());
    for (const QJsonValue g : byAddr.value(QStringLiteral("records")).toArray())
        QCOMPARE(g[QStringLiteral("by")].toString(), QStringLiteral("addr"));
    const ProcessRun wrong = show({QStringLiteral("--group-by"), QStringLiteral("host")});
    QCOMPARE(wrong.code, 1);
    QVERIFY2(wrong.err.contains("unknown --group-by 'host' (known: name, lib, addr, user, db, cmd)"),
             wrong.err.constData());
    const ProcessRun elsewhere
        = runProgram(QStringLiteral(REDISLENS_APP_PATH),
                     {QStringLiteral("show"), QStringLiteral("keys"), QStringLiteral("--group-by"),
                      QStringLiteral("addr"), QStringLiteral("-p"), QString::number(m_server.port())},
                     60000, isolatedEnvironment(m_home.path()));
    QCOMPARE(elsewhere.code, 2);
}

QTEST_GUILESS_MAIN(TestClients)
#include "tst_clients.moc"
