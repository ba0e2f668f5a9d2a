// SPDX-License-Identifier: GPL-3.0-or-later
// `redislens show pubsub` against real subscribers on a real server: redis-cli processes
// subscribed to channels, a pattern and a shard channel, and a raw socket that subscribes and
// never reads while 24 MiB are published to it. The channels and counts equal what PUBSUB
// NUMSUB / NUMPAT / SHARDNUMSUB say; the socket is flagged before the server cuts it; the read
// is read-only (INFO commandstats, DEBUG DIGEST).
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
#include <memory>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

class TestPubSub : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void channelsMatchTheServer();
    void stalledSubscriberFlagged();

private:
    ProcessRun show(const QStringList &args) const
    {
        return runProgram(
            QStringLiteral(REDISLENS_APP_PATH),
            QStringList{QStringLiteral("show"), QStringLiteral("pubsub")} + args
                + QStringList{QStringLiteral("-p"), QString::number(m_server.port()), QStringLiteral("--read-only")},
            60000, isolatedEnvironment(m_home.path()));
    }
    QJsonObject document(const QStringList &args)
    {
        const ProcessRun r = show(args);
        if (r.code != 0) {
            qWarning("show pubsub: exit %d: %s", r.code, r.err.constData());
            return {};
        }
        const QString invalid
            = validateAgainstSchema(QStringLiteral("show-pubsub.schema.json"), r.out, QStringLiteral("json"),
                                    m_home.filePath(QStringLiteral("out.json")));
        if (!invalid.isEmpty()) {
            qWarning("%s", qPrintable(invalid));
            return {};
        }
        return QJsonDocument::fromJson(r.out).object();
    }
    void subscribe(const QStringList &command)
    {
        auto p = startRedisCli(m_server.port(), command);
        QVERIFY(p);
        m_subscribers.push_back(std::move(p));
    }

    TestServer m_server;
    QTemporaryDir m_home;
    std::vector<std::unique_ptr<QProcess>> m_subscribers;
    int m_stalled = -1; // a socket that subscribed and never reads
    bool m_shards = false;
};

void TestPubSub::initTestCase()
{
    QVERIFY(m_home.isValid());
    QString error;
    QVERIFY2(m_server.start(&error), qPrintable(error));
    RawConnection raw(m_server.port());
    m_shards = raw.command({"PUBSUB", "SHARDCHANNELS"}).kind() != RedisValue::Kind::Error;
    subscribe({QStringLiteral("SUBSCRIBE"), QStringLiteral("orders")});
    subscribe({QStringLiteral("SUBSCRIBE"), QStringLiteral("orders")});
    subscribe({QStringLiteral("SUBSCRIBE"), QStringLiteral("news"), QStringLiteral("alerts")});
    subscribe({QStringLiteral("PSUBSCRIBE"), QStringLiteral("jobs.*")});
    if (m_shards)
        subscribe({QStringLiteral("SSUBSCRIBE"), QStringLiteral("shard:1")});

    m_stalled = ::socket(AF_INET, SOCK_STREAM, 0);
    QVERIFY(m_stalled >= 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(m_server.port());
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    QCOMPARE(::connect(m_stalled, reinterpret_cast<const sockaddr *>(&to), sizeof to), 0);
    const QByteArray hello = "*2\r\n$9\r\nSUBSCRIBE\r\n$5\r\nflood\r\n";
    QCOMPARE(::send(m_stalled, hello.constData(), size_t(hello.size()), 0), ssize_t(hello.size()));

    QTRY_VERIFY_WITH_TIMEOUT(raw.command({"PUBSUB", "NUMSUB", "orders", "flood", "alerts"}).elements().size() == 6
                                 && raw.command({"PUBSUB", "NUMSUB", "orders"}).elements().at(1).toInteger() == 2
                                 && raw.command({"PUBSUB", "NUMSUB", "flood"}).elements().at(1).toInteger() == 1
                                 && raw.command({"PUBSUB", "NUMSUB", "alerts"}).elements().at(1).toInteger() == 1
                                 && raw.command({"PUBSUB", "NUMPAT"}).toInteger() == 1,
                             10000);
}

void TestPubSub::cleanupTestCase()
{
    for (auto &p : m_subscribers) {
        p->kill();
        p->waitForFinished();
    }
    if (m_stalled >= 0)
        ::close(m_stalled);
}

// Every channel and its count as the server's own PUBSUB NUMSUB says; the pattern count as NUMPAT.
void TestPubSub::channelsMatchTheServer()
{
    const QJsonObject doc = document({});
    QVERIFY(!doc.isEmpty());
    RawConnection raw(m_server.port());
    QList<QByteArray> truth;
    const RedisValue channels = raw.command({"PUBSUB", "CHANNELS"});
    for (const RedisValue &v : channels.elements())
        truth.append(v.bytes());
    std::sort(truth.begin(), truth.end());
    const QJsonArray records = doc.value(QStringLiteral("records")).toArray();
    QStringList shown;
    for (const QJsonValue r : records) {
        if (r[QStringLiteral("shard")].toBool())
            continue;
        const QByteArray name = r[QStringLiteral("name")].toString().toUtf8();
        shown << QString::fromUtf8(name);
        QCOMPARE(r[QStringLiteral("subscribers")].toInteger(),
                 raw.command({"PUBSUB", "NUMSUB", name}).elements().at(1).toInteger());
    }
    QStringList expected;
    for (const QByteArray &t : truth)
        expected << QString::fromUtf8(t);
    QCOMPARE(shown, expected);
    QVERIFY(shown.contains(QStringLiteral("orders")) && shown.contains(QStringLiteral("flood")));
    const QJsonObject coverage = doc.value(QStringLiteral("coverage")).toObject();
    QCOMPARE(coverage.value(QStringLiteral("pattern_subscriptions")).toInteger(),
             raw.command({"PUBSUB", "NUMPAT"}).toInteger());
    const QJsonArray holders = doc[QStringLiteral("patterns")][QStringLiteral("clients")].toArray();
    QCOMPARE(holders.size(), 1);
    QCOMPARE(holders.at(0)[QStringLiteral("patterns")].toInt(), 1);
    QCOMPARE(coverage.value(QStringLiteral("subscribers")).toInt(), m_shards ? 6 : 5);
    if (m_shards) {
        bool found = false;
        for (const QJsonValue r : records)
            if (r[QStringLiteral("shard")].toBool()
                && r[QStringLiteral("name")].toString() == QLatin1String("shard:1")) {
                found = true;
                QCOMPARE(r[QStringLiteral("subscribers")].toInteger(),
                         raw.command({"PUBSUB", "SHARDNUMSUB", "shard:1"}).elements().at(1).toInteger());
            }
        QVERIFY(found);
    }
    // An unknown table is named, with the ones there are.
    const ProcessRun wrong = show({QStringLiteral("--table"), QStringLiteral("patterns")});
    QCOMPARE(wrong.code, 1);
    QVERIFY2(wrong.err.contains("pubsub has no table 'patterns' (tables: channels, subscribers)"),
             wrong.err.constData());
    // jsonl holds the same rows.
    const ProcessRun lines = show({QStringLiteral("--format"), QStringLiteral("jsonl")});
    QCOMPARE(lines.code, 0);
    QCOMPARE(lines.out.count('\n'), records.size());
}

// A subscriber that stops reading while 24 MiB are published to it is flagged (over the soft
// limit, towards the hard one) before the server cuts it; the others are not. Only reads reach
// the server from the show.
void TestPubSub::stalledSubscriberFlagged()
{
    RawConnection raw(m_server.port());
    const QByteArray mib(1 << 20, 'x');
    for (int i = 0; i < 24; ++i)
        QCOMPARE(raw.command({"PUBLISH", "flood", mib}).toInteger(), 1);
    const auto stalledOmem = [&raw] {
        for (const ClientEntry &c : parseClientList(raw.command({"CLIENT", "LIST", "TYPE", "pubsub"}).bytes()))
            if (c.sub == 1 && c.cmd == "subscribe" && c.omem > 0)
                return c.omem;
        return qint64(0);
    };
    QTRY_VERIFY_WITH_TIMEOUT(stalledOmem() > 8 * (1 << 20), 10000);

    const QByteArray digest = raw.command({"DEBUG", "DIGEST"}).bytes();
    const QHash<QByteArray, qint64> before = commandCalls(raw);
    const QJsonObject doc = document({QStringLiteral("--table"), QStringLiteral("subscribers")});
    QVERIFY(!doc.isEmpty());
    const QJsonArray records = doc.value(QStringLiteral("records")).toArray();
    int bad = 0;
    for (const QJsonValue r : records) {
        if (r[QStringLiteral("output_bytes")].toInteger() > 8 * (1 << 20)) {
            ++bad;
            QCOMPARE(r[QStringLiteral("severity")].toString(), QStringLiteral("bad"));
            QVERIFY2(r[QStringLiteral("verdict")].toString().startsWith(
                         QLatin1String("over the soft limit (8.0 MiB): cut after 60 s")),
                     qPrintable(r[QStringLiteral("verdict")].toString()));
            QCOMPARE(r[QStringLiteral("channels")].toInt(), 1);
        } else {
            QCOMPARE(r[QStringLiteral("severity")].toString(), QStringLiteral("none"));
        }
    }
    QCOMPARE(bad, 1);
    QCOMPARE(doc[QStringLiteral("coverage")][QStringLiteral("slow_subscribers")].toInt(), 1);
    QCOMPARE(doc[QStringLiteral("coverage")][QStringLiteral("pubsub_output_limit")][QStringLiteral("hard_bytes")]
                 .toInteger(),
             32 * (1 << 20));

    const QHash<QByteArray, qint64> after = commandCalls(raw);
    static const QSet<QByteArray> reads{"pubsub|channels",    "pubsub|numsub", "pubsub|numpat",  "pubsub|shardchannels",
                                        "pubsub|shardnumsub", "client|list",   "client|setname", "client|setinfo",
                                        "config|get",         "hello",         "info",           "command",
                                        "command|docs",       "ping",          "select",         "debug",
                                        "readonly",           "auth"};
    for (auto it = after.constBegin(); it != after.constEnd(); ++it)
        if (it.value() != before.value(it.key()))
            QVERIFY2(reads.contains(it.key()), it.key().constData());
    QCOMPARE(raw.command({"DEBUG", "DIGEST"}).bytes(), digest);
}

QTEST_GUILESS_MAIN(TestPubSub)
#include "tst_pubsub.moc"
