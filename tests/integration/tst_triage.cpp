// SPDX-License-Identifier: GPL-3.0-or-later
// `redislens report` (the real binary) on real servers: the demo gives exactly the findings its
// truth file names; a server where every pattern is done right gives none; a server written to
// break the rules raises each of them; exit statuses, the JSON Schema, the formats, sampling,
// and that reading writes nothing and prints no password.
#include "commandstats.h"
#include "demo.h"
#include "demotruth.h"
#include "localserver.h"
#include "processrun.h"
#include "testserver.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <thread>

namespace {

const QString kPython = QStringLiteral("/usr/bin/python3");
const QByteArray kPassword = "triage-Secret-4417";

QString sourceDir()
{
    return qEnvironmentVariable("REDISLENS_SOURCE_DIR");
}

QSet<QString> ids(const QJsonObject &report)
{
    QSet<QString> out;
    for (const QJsonValue f : report.value(QStringLiteral("findings")).toArray())
        out.insert(f.toObject().value(QStringLiteral("id")).toString());
    return out;
}

QJsonObject findingOf(const QJsonObject &report, const QString &id)
{
    for (const QJsonValue f : report.value(QStringLiteral("findings")).toArray())
        if (f.toObject().value(QStringLiteral("id")).toString() == id)
            return f.toObject();
    return {};
}

QString list(const QSet<QString> &set)
{
    QStringList l(set.cbegin(), set.cend());
    l.sort();
    return l.join(QStringLiteral(", "));
}

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

} // namespace

class TestTriage : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void demoGivesItsDesignedFindings();
    void cleanServerGivesNothing();
    void brokenServerRaisesEachRule();
    void memoryRulesOnARealServer();
    void persistenceFailuresOnARealServer();
    void errorsWhileReading();
    void hotKeysUnderLfu();
    void failOnExitStatuses();
    void usageAndConnectionErrorsExitTwo_data();
    void usageAndConnectionErrorsExitTwo();
    void sampleSaysItSampled();
    void formatsNameTheSameFindings();
    void readsOnlyAndPrintsNoPassword();

private:
    ProcessRun report(const QStringList &args, int timeoutMs = 120000) const;
    QJsonObject document(const QStringList &args, int expectCode = -1);
    QString validate(const QByteArray &output);
    void writeBrokenData();

    std::unique_ptr<Demo> m_demo;
    std::unique_ptr<TestServer> m_clean;
    std::unique_ptr<TestServer> m_broken;
    QTemporaryDir m_home;
    QString m_thresholds;
};

ProcessRun TestTriage::report(const QStringList &args, int timeoutMs) const
{
    return runProgram(QStringLiteral(REDISLENS_APP_PATH), QStringList{QStringLiteral("report")} + args, timeoutMs,
                      isolatedEnvironment(m_home.path()));
}

QJsonObject TestTriage::document(const QStringList &args, int expectCode)
{
    const ProcessRun r = report(args);
    if (expectCode >= 0 && r.code != expectCode)
        qWarning("report %s: exit %d: %s", qPrintable(args.join(u' ')), r.code, r.err.constData());
    if (r.code != 0 && r.code != 1)
        qWarning("report %s: exit %d: %s", qPrintable(args.join(u' ')), r.code, r.err.constData());
    const QString problem = validate(r.out);
    if (!problem.isEmpty())
        qWarning("report %s: not the schema's shape: %s", qPrintable(args.join(u' ')), qPrintable(problem));
    return QJsonDocument::fromJson(r.out).object();
}

QString TestTriage::validate(const QByteArray &output)
{
    return validateAgainstSchema(QStringLiteral("report.schema.json"), output, QStringLiteral("json"),
                                 m_home.filePath(QStringLiteral("report.json")));
}

void TestTriage::initTestCase()
{
    QVERIFY(m_home.isValid());
    QVERIFY2(!sourceDir().isEmpty(), "REDISLENS_SOURCE_DIR is not set");
    QProcess check;
    check.start(kPython, {QStringLiteral("-c"), QStringLiteral("import jsonschema")});
    QVERIFY(check.waitForFinished(30000));
    QVERIFY2(check.exitCode() == 0, "python3-jsonschema is not installed for /usr/bin/python3");
    m_demo = std::make_unique<Demo>();
    QString error;
    QVERIFY2(m_demo->seedBlocking(&error, 30000), qPrintable(error));
    m_clean = std::make_unique<TestServer>(
        QStringList{QStringLiteral("--requirepass"), QString::fromLatin1(kPassword), QStringLiteral("--maxmemory"),
                    QStringLiteral("200mb"), QStringLiteral("--maxmemory-policy"), QStringLiteral("volatile-lru"),
                    QStringLiteral("--appendonly"), QStringLiteral("yes")});
    QVERIFY2(m_clean->start(&error), qPrintable(error));
    m_broken = std::make_unique<TestServer>();
    QVERIFY2(m_broken->start(&error), qPrintable(error));
    writeBrokenData();
    m_thresholds = m_home.filePath(QStringLiteral("thresholds.json"));
    QFile t(m_thresholds);
    QVERIFY(t.open(QIODevice::WriteOnly));
    t.write(R"({"queue.length": 100, "stream.consumer_idle_ms": 1, "server.cached_scripts": 1,
                "memory.namespace_share": 0.3, "memory.namespace_bytes": 0,
                "clients.connected": 1, "server.min_version": 99, "_comment": "the broken server's"})");
}

void TestTriage::cleanupTestCase()
{
    m_demo.reset();
    m_clean.reset();
    m_broken.reset();
}

void TestTriage::demoGivesItsDesignedFindings()
{
    const QStringList at{QStringLiteral("-p"), QString::number(m_demo->profile().port)};
    const QJsonObject doc = document(at + QStringList{QStringLiteral("--fail-on"), QStringLiteral("critical")}, 1);
    QSet<QString> expected;
    for (const DemoFindingTruth &t : demoFindings())
        expected.insert(QLatin1String(t.rule));
    const QSet<QString> found = ids(doc);
    QVERIFY2(
        found == expected,
        qPrintable(QStringLiteral("unexpected: %1; missing: %2").arg(list(found - expected), list(expected - found))));
    QVERIFY(doc.value(QStringLiteral("coverage")).toString().startsWith(QStringLiteral("from a complete scan of")));
    // Evidence names the demo's own broken keys.
    QJsonArray evidence = findingOf(doc, QStringLiteral("lock.no-ttl")).value(QStringLiteral("evidence")).toArray();
    QStringList keys;
    for (const QJsonValue e : evidence)
        keys << e.toObject().value(QStringLiteral("key")).toString();
    QVERIFY2(keys.contains(QStringLiteral("lock:migration:schema-v42")), qPrintable(keys.join(u',')));
    QCOMPARE(findingOf(doc, QStringLiteral("geo.swapped")).value(QStringLiteral("evidence")).toArray().size(), 1);
    QCOMPARE(findingOf(doc, QStringLiteral("size.big-string"))
                 .value(QStringLiteral("evidence"))
                 .toArray()
                 .first()
                 .toObject()
                 .value(QStringLiteral("key"))
                 .toString(),
             QStringLiteral("blob:export:orders.csv"));
    // The summary counts what the scan saw.
    const QJsonObject summary = doc.value(QStringLiteral("summary")).toObject();
    QVERIFY(summary.value(QStringLiteral("keys_by_kind")).toObject().value(QStringLiteral("lock")).toInt() > 0);
    QCOMPARE(summary.value(QStringLiteral("job_queue_libraries")).toObject().value(QStringLiteral("BullMQ")).toInt(),
             1);
}

void TestTriage::cleanServerGivesNothing()
{
    RawConnection raw(m_clean->port());
    QCOMPARE(raw.command({"AUTH", kPassword}).bytes(), QByteArray("OK"));
    const qint64 now = nowMs();
    QList<QList<QByteArray>> cmds;
    // Caches with jittered TTLs, tokens in locks with TTLs, sessions and limiters that expire,
    // a trimmed stream whose group keeps up, a short queue.
    for (int i = 0; i < 300; ++i)
        cmds.append({"SET", "cache:product:" + QByteArray::number(i),
                     R"({"id":)" + QByteArray::number(i) + R"(,"name":"Widget","price":12.5})", "EX",
                     QByteArray::number(600 + (i * 37) % 300)});
    for (int i = 0; i < 5; ++i)
        cmds.append({"SET", "lock:job:" + QByteArray::number(i),
                     "d3b07384-d9a0-4c19-9a7e-" + QByteArray::number(100000000000 + i), "PX", "30000"});
    for (int i = 0; i < 40; ++i) {
        const QByteArray key = "session:" + QByteArray::number(0x5f3a9c00 + i, 16) + "e1c2b3a4d5e6f708";
        cmds.append({"HSET", key, "user_id", QByteArray::number(1000 + i), "csrf", "x"});
        cmds.append({"EXPIRE", key, QByteArray::number(1700 + i * 3)});
    }
    const qint64 window = now / 60000;
    for (int i = 0; i < 30; ++i)
        cmds.append({"SET", "rate:user:" + QByteArray::number(i) + ':' + QByteArray::number(window),
                     QByteArray::number(i % 7), "EX", "60"});
    for (int i = 0; i < 200; ++i)
        cmds.append({"XADD", "events:orders", "MAXLEN", "~", "1000", "*", "order", QByteArray::number(i)});
    cmds.append({"XGROUP", "CREATE", "events:orders", "billing", "$"});
    for (int i = 0; i < 10; ++i)
        cmds.append({"LPUSH", "q:email", R"({"to":"user)" + QByteArray::number(i) + R"("})"});
    for (int i = 0; i < 50; ++i)
        cmds.append({"ZADD", "lb:daily:2026-12-06", QByteArray::number(i * 10), "player:" + QByteArray::number(i)});
    cmds.append({"EXPIRE", "lb:daily:2026-12-06", "172800"});
    raw.pipeline(cmds);
    // The statistics start at the data: the harness's first PING, before AUTH, was refused.
    raw.command({"CONFIG", "RESETSTAT"});
    const QJsonObject doc
        = document({QStringLiteral("-p"), QString::number(m_clean->port()), QStringLiteral("-a"),
                    QString::fromLatin1(kPassword), QStringLiteral("--fail-on"), QStringLiteral("info")},
                   0);
    QVERIFY2(ids(doc).isEmpty(), QJsonDocument(doc.value(QStringLiteral("findings")).toArray()).toJson().constData());
    QVERIFY(doc.value(QStringLiteral("rules_checked")).toInt() >= 25);
    QVERIFY(doc.value(QStringLiteral("coverage")).toString().contains(QStringLiteral("complete scan")));
}

void TestTriage::writeBrokenData()
{
    RawConnection raw(m_broken->port());
    const qint64 now = nowMs();
    QList<QList<QByteArray>> cmds;
    // Locks: one without TTL, one holding "1", a family of 30 s locks with one held for an hour.
    cmds.append({"SET", "lock:job:1", "a1b2c3d4-e5f6-4789-9abc-def012345678"});
    cmds.append({"SET", "lock:job:2", "1", "PX", "30000"});
    for (int i = 3; i < 9; ++i)
        cmds.append({"SET", "lock:job:" + QByteArray::number(i),
                     "a1b2c3d4-e5f6-4789-9abc-def01234567" + QByteArray::number(i), "PX", "30000"});
    cmds.append({"SET", "lock:job:9", "a1b2c3d4-e5f6-4789-9abc-def012345699", "PX", "3600000"});
    // Cache values whose logical expiry passed two hours ago, inside a day-long TTL.
    for (int i = 0; i < 20; ++i)
        cmds.append({"SET", "app:report:" + QByteArray::number(i),
                     R"({"data":{"total":)" + QByteArray::number(i) + R"(},"logical_expires_at":)"
                         + QByteArray::number(now / 1000 - 7200) + '}',
                     "EX", QByteArray::number(86400 + i * 30)});
    // Sizes: a 200 KB string, a set of 6,000 members, 9,000 one-byte flags (fewer keys in all
    // than the length probe's 10,000, so it reads every one).
    cmds.append({"SET", "blob:report.csv", QByteArray(200 * 1024, 'x')});
    QList<QByteArray> sadd{"SADD", "members:all"};
    for (int i = 0; i < 6000; ++i)
        sadd.append("m" + QByteArray::number(i));
    cmds.append(sadd);
    for (int i = 0; i < 9000; ++i)
        cmds.append({"SET", "flag:user:" + QByteArray::number(100000 + i), "1"});
    // A name that holds an e-mail address; a second database in use.
    cmds.append({"SET", "cart:ann.lee@example.com", "3", "EX", "3600"});
    // Geo written latitude first.
    QList<QByteArray> geo{"GEOADD", "geo:shops"};
    const double places[][2] = {{2.35, 48.86},  {13.40, 52.52}, {-3.70, 40.42}, {12.50, 41.90}, {16.37, 48.21},
                                {21.01, 52.23}, {4.90, 52.37},  {14.42, 50.08}, {19.04, 47.50}, {23.73, 37.98}};
    for (int i = 0; i < 10; ++i)
        geo << QByteArray::number(places[i][1]) << QByteArray::number(places[i][0]) << "shop-" + QByteArray::number(i);
    cmds.append(geo);
    // A stream of 12,000 entries, never trimmed, a group that has read nothing but ten entries,
    // which were then delivered nine times and left for an hour.
    for (int i = 0; i < 12000; ++i)
        cmds.append({"XADD", "events:audit", "*", "n", QByteArray::number(i)});
    cmds.append({"XGROUP", "CREATE", "events:audit", "auditors", "0"});
    cmds.append({"XREADGROUP", "GROUP", "auditors", "c1", "COUNT", "10", "STREAMS", "events:audit", ">"});
    // Queues: a backlog of 150 items, a processing list whose item is two hours old, jobs
    // due an hour ago.
    for (int i = 0; i < 150; ++i)
        cmds.append({"LPUSH", "q:mail",
                     R"({"id":)" + QByteArray::number(i) + R"(,"enqueued_at":)" + QByteArray::number(now) + '}'});
    cmds.append(
        {"LPUSH", "q:mail:proc:w1", R"({"id":9999,"enqueued_at":)" + QByteArray::number(now - 7'200'000) + '}'});
    for (int i = 0; i < 10; ++i)
        cmds.append({"ZADD", "sched:due", QByteArray::number(now - 3'600'000 + i), "job-" + QByteArray::number(i)});
    for (int i = 0; i < 10; ++i)
        cmds.append({"ZADD", "sched:due", QByteArray::number(now + 3'600'000 + i), "later-" + QByteArray::number(i)});
    cmds.append({"SCRIPT", "LOAD", "return 1"});
    cmds.append({"SCRIPT", "LOAD", "return 2"});
    raw.pipeline(cmds);
    // Deliveries: claim the pending entries nine times over, an hour idle.
    const RedisValue pending = raw.command({"XPENDING", "events:audit", "auditors", "-", "+", "10"});
    QList<QByteArray> claim{"XCLAIM", "events:audit", "auditors", "c1", "0"};
    for (const RedisValue &p : pending.elements())
        claim.append(p.elements().value(0).bytes());
    claim << "IDLE"
          << "3600000"
          << "RETRYCOUNT"
          << "9";
    raw.command(claim);
    raw.command({"SELECT", "2"});
    raw.command({"SET", "other:db", "1"});
    raw.command({"SELECT", "0"});
    // The slow log: KEYS, a whole read and a long script.
    raw.command({"SLOWLOG", "RESET"});
    raw.command({"CONFIG", "SET", "slowlog-log-slower-than", "0"});
    raw.command({"KEYS", "flag:*"});
    raw.command({"SMEMBERS", "members:all"});
    raw.command({"EVAL", "local i = 0 while i < 20000000 do i = i + 1 end return i", "0"});
    raw.command({"CONFIG", "SET", "slowlog-log-slower-than", "10000"});
}

void TestTriage::brokenServerRaisesEachRule()
{
    QTest::qWait(20); // the consumers' idle time passes the 1 ms the thresholds file sets
    const QJsonObject doc
        = document({QStringLiteral("-p"), QString::number(m_broken->port()), QStringLiteral("--thresholds"),
                    m_thresholds, QStringLiteral("--fail-on"), QStringLiteral("critical")},
                   1);
    const QSet<QString> found = ids(doc);
    const QStringList expected{
        QStringLiteral("lock.no-ttl"),
        QStringLiteral("lock.not-token"),
        QStringLiteral("lock.long-ttl"),
        QStringLiteral("cache.logical-expiry"),
        QStringLiteral("size.big-string"),
        QStringLiteral("size.big-collection"),
        QStringLiteral("size.tiny-strings"),
        QStringLiteral("keys.sensitive-names"),
        QStringLiteral("geo.swapped"),
        QStringLiteral("stream.untrimmed"),
        QStringLiteral("stream.pending-idle"),
        QStringLiteral("stream.poison"),
        QStringLiteral("stream.idle-consumer"),
        QStringLiteral("stream.lag"),
        QStringLiteral("queue.long"),
        QStringLiteral("queue.stale-processing"),
        QStringLiteral("queue.delayed-overdue"),
        QStringLiteral("commands.dangerous"),
        QStringLiteral("commands.whole-reads"),
        QStringLiteral("commands.long-scripts"),
        QStringLiteral("server.databases"),
        QStringLiteral("server.scripts"),
        QStringLiteral("server.old-version"),
        QStringLiteral("clients.too-many"),
        QStringLiteral("memory.no-maxmemory"),
        QStringLiteral("memory.namespace-dominates"),
        QStringLiteral("persistence.off"),
        QStringLiteral("security.default-nopass"),
    };
    for (const QString &id : expected)
        QVERIFY2(found.contains(id), qPrintable(QStringLiteral("%1 not found; found: %2").arg(id, list(found))));
    // Evidence names the keys.
    const QJsonArray sensitive
        = findingOf(doc, QStringLiteral("keys.sensitive-names")).value(QStringLiteral("evidence")).toArray();
    QCOMPARE(sensitive.first().toObject().value(QStringLiteral("key")).toString(),
             QStringLiteral("cart:ann.lee@example.com"));
    QCOMPARE(findingOf(doc, QStringLiteral("stream.poison")).value(QStringLiteral("affected")).toInt(), 10);
    QCOMPARE(findingOf(doc, QStringLiteral("queue.delayed-overdue")).value(QStringLiteral("affected")).toInt(), 10);
    // --only narrows, --exclude removes.
    const QJsonObject locks = document(
        {QStringLiteral("-p"), QString::number(m_broken->port()), QStringLiteral("--only"), QStringLiteral("lock")});
    QCOMPARE(ids(locks),
             QSet<QString>(
                 {QStringLiteral("lock.no-ttl"), QStringLiteral("lock.not-token"), QStringLiteral("lock.long-ttl")}));
    const QJsonObject without = document({QStringLiteral("-p"), QString::number(m_broken->port()),
                                          QStringLiteral("--exclude"), QStringLiteral("lock,stream.poison")});
    QVERIFY(!ids(without).contains(QStringLiteral("lock.no-ttl")));
    QVERIFY(!ids(without).contains(QStringLiteral("stream.poison")));
    QVERIFY(ids(without).contains(QStringLiteral("stream.lag")));
}

void TestTriage::memoryRulesOnARealServer()
{
    TestServer server;
    QString error;
    QVERIFY2(server.start(&error), qPrintable(error));
    RawConnection raw(server.port());
    QList<QList<QByteArray>> cmds;
    for (int i = 0; i < 2000; ++i)
        cmds.append(
            {"SET", "cache:" + QByteArray::number(i), QByteArray(500, 'v'), "EX", QByteArray::number(3000 + i)});
    cmds.append({"XADD", "events:x", "*", "a", "1"});
    raw.pipeline(cmds);
    const QStringList at{QStringLiteral("-p"), QString::number(server.port()), QStringLiteral("--only"),
                         QStringLiteral("memory")};
    QVERIFY(ids(document(at)).contains(QStringLiteral("memory.no-maxmemory")));
    // Near the limit, with a policy that may evict the stream.
    const QByteArray memory = raw.command({"INFO", "memory"}).bytes();
    const qsizetype from = memory.indexOf("used_memory:") + 12;
    const qint64 used = memory.mid(from, memory.indexOf('\r', from) - from).toLongLong();
    QVERIFY(used > 0);
    raw.command({"CONFIG", "SET", "maxmemory", QByteArray::number(qint64(used * 1.04))});
    raw.command({"CONFIG", "SET", "maxmemory-policy", "allkeys-lru"});
    QJsonObject doc = document(at);
    QVERIFY2(ids(doc).contains(QStringLiteral("memory.near-limit")), qPrintable(list(ids(doc))));
    QVERIFY(ids(doc).contains(QStringLiteral("memory.policy-mismatch")));
    QVERIFY(!ids(doc).contains(QStringLiteral("memory.no-maxmemory")));
    // Evictions: a write past the limit.
    raw.command({"SET", "big", QByteArray(400 * 1024, 'b')});
    doc = document(at);
    QVERIFY2(ids(doc).contains(QStringLiteral("memory.evictions")), qPrintable(list(ids(doc))));
    // Room again, a fitting policy: none of them.
    raw.command({"CONFIG", "SET", "maxmemory", "1gb"});
    raw.command({"CONFIG", "SET", "maxmemory-policy", "volatile-lru"});
    raw.command({"CONFIG", "RESETSTAT"});
    doc = document(at);
    QVERIFY2(ids(doc).isEmpty(), qPrintable(list(ids(doc))));
}

void TestTriage::persistenceFailuresOnARealServer()
{
    // 'dir' is a protected setting: a local connection may change it here.
    TestServer server({QStringLiteral("--enable-protected-configs"), QStringLiteral("local")});
    QString error;
    QVERIFY2(server.start(&error), qPrintable(error));
    RawConnection raw(server.port());
    raw.command({"SET", "a", "1"});
    QTemporaryDir gone;
    const QByteArray dir = QFile::encodeName(gone.path() + QStringLiteral("/data"));
    QVERIFY(QDir().mkpath(QString::fromLocal8Bit(dir)));
    raw.command({"CONFIG", "SET", "dir", dir});
    raw.command({"CONFIG", "SET", "save", "3600 1"});
    QVERIFY(QDir(QString::fromLocal8Bit(dir)).removeRecursively());
    // With the directory gone, the snapshot and the AOF cannot be written.
    raw.command({"BGSAVE"});
    QTRY_VERIFY_WITH_TIMEOUT(raw.command({"INFO", "persistence"}).bytes().contains("rdb_last_bgsave_status:err"),
                             10000);
    raw.command({"CONFIG", "SET", "appendonly", "yes"});
    QTRY_VERIFY_WITH_TIMEOUT(raw.command({"INFO", "persistence"}).bytes().contains("aof_last_bgrewrite_status:err"),
                             10000);
    const QJsonObject doc = document(
        {QStringLiteral("-p"), QString::number(server.port()), QStringLiteral("--only"), QStringLiteral("persistence")},
        1);
    QCOMPARE(findingOf(doc, QStringLiteral("persistence.save-failing")).value(QStringLiteral("severity")).toString(),
             QStringLiteral("critical"));
    QVERIFY2(ids(doc).contains(QStringLiteral("persistence.aof-failing")), qPrintable(list(ids(doc))));
    raw.command({"CONFIG", "SET", "appendonly", "no"});
    raw.command({"CONFIG", "SET", "save", ""});
}

void TestTriage::errorsWhileReading()
{
    TestServer server;
    QString error;
    QVERIFY2(server.start(&error), qPrintable(error));
    RawConnection raw(server.port());
    raw.command({"SET", "s", "text"});
    // A client that gets WRONGTYPE over and over while the report reads INFO twice.
    std::atomic<bool> stop{false};
    std::thread errors([&] {
        RawConnection client(server.port());
        while (!stop)
            client.command({"LPUSH", "s", "x"});
    });
    const QJsonObject doc = document(
        {QStringLiteral("-p"), QString::number(server.port()), QStringLiteral("--only"), QStringLiteral("errors")});
    stop = true;
    errors.join();
    const QJsonObject rising = findingOf(doc, QStringLiteral("errors.rising"));
    QVERIFY2(!rising.isEmpty(), qPrintable(list(ids(doc))));
    QCOMPARE(rising.value(QStringLiteral("evidence"))
                 .toArray()
                 .first()
                 .toObject()
                 .value(QStringLiteral("subject"))
                 .toString(),
             QStringLiteral("WRONGTYPE"));
    QVERIFY(ids(doc).contains(QStringLiteral("errors.recorded")));
    // Nobody erring: the errors since the start stay, the rate goes.
    const QJsonObject calm = document(
        {QStringLiteral("-p"), QString::number(server.port()), QStringLiteral("--only"), QStringLiteral("errors")});
    QCOMPARE(ids(calm), QSet<QString>({QStringLiteral("errors.recorded")}));
}

void TestTriage::hotKeysUnderLfu()
{
    TestServer server;
    QString error;
    QVERIFY2(server.start(&error), qPrintable(error));
    RawConnection raw(server.port());
    QList<QList<QByteArray>> cmds;
    for (int i = 0; i < 50; ++i)
        cmds.append({"SET", "item:" + QByteArray::number(i), "v"});
    raw.pipeline(cmds);
    const QStringList at{QStringLiteral("-p"), QString::number(server.port()), QStringLiteral("--only"),
                         QStringLiteral("commands.hot-keys")};
    // Not LFU: not checked, and it says why.
    QJsonObject doc = document(at);
    QVERIFY(ids(doc).isEmpty());
    const QJsonArray notChecked = doc.value(QStringLiteral("not_checked")).toArray();
    QCOMPARE(notChecked.size(), 1);
    QVERIFY(notChecked.first().toObject().value(QStringLiteral("why")).toString().contains(QStringLiteral("LFU")));
    // LFU, every access counted: one key read 300 times.
    raw.command({"CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"});
    raw.command({"CONFIG", "SET", "lfu-log-factor", "0"});
    cmds.clear();
    for (int i = 0; i < 300; ++i)
        cmds.append(QList<QByteArray>{"GET", "item:7"});
    raw.pipeline(cmds);
    doc = document(at);
    const QJsonArray evidence
        = findingOf(doc, QStringLiteral("commands.hot-keys")).value(QStringLiteral("evidence")).toArray();
    QCOMPARE(evidence.size(), 1);
    QCOMPARE(evidence.first().toObject().value(QStringLiteral("key")).toString(), QStringLiteral("item:7"));
}

void TestTriage::failOnExitStatuses()
{
    const QStringList demo{QStringLiteral("-p"), QString::number(m_demo->profile().port)};
    const auto code = [this](const QStringList &args) { return report(args).code; };
    QCOMPARE(code(demo), 1); // critical by default: the lock without TTL
    QCOMPARE(code(demo + QStringList{QStringLiteral("--only"), QStringLiteral("security")}), 0); // info only
    QCOMPARE(code(demo
                  + QStringList{QStringLiteral("--only"), QStringLiteral("security"), QStringLiteral("--fail-on"),
                                QStringLiteral("info")}),
             1);
    QCOMPARE(code(demo
                  + QStringList{QStringLiteral("--only"), QStringLiteral("cache.no-jitter"),
                                QStringLiteral("--fail-on"), QStringLiteral("warning")}),
             1);
    QCOMPARE(code(demo + QStringList{QStringLiteral("--only"), QStringLiteral("cache.no-jitter")}), 0);
}

void TestTriage::usageAndConnectionErrorsExitTwo_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("fail-on") << QStringList{QStringLiteral("--fail-on"), QStringLiteral("fatal")}
                             << QStringLiteral("--fail-on");
    QTest::newRow("only") << QStringList{QStringLiteral("--only"), QStringLiteral("lock.nope")}
                          << QStringLiteral("lock.nope");
    QTest::newRow("sample") << QStringList{QStringLiteral("--sample"), QStringLiteral("0")}
                            << QStringLiteral("--sample");
    QTest::newRow("format") << QStringList{QStringLiteral("--format"), QStringLiteral("xml")}
                            << QStringLiteral("--format");
    QTest::newRow("thresholds") << QStringList{QStringLiteral("--thresholds"), QStringLiteral("/nonexistent.json")}
                                << QStringLiteral("thresholds");
    QTest::newRow("uri") << QStringList{QStringLiteral("redis://127.0.0.1:notaport")} << QStringLiteral("port");
}

void TestTriage::usageAndConnectionErrorsExitTwo()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const QStringList at{QStringLiteral("-p"), QString::number(m_demo->profile().port)};
    const ProcessRun r = report(args.first().startsWith(QLatin1String("redis://")) ? args : at + args);
    QCOMPARE(r.code, 2);
    QVERIFY(r.out.isEmpty());
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
    QCOMPARE(r.err.count('\n'), 1);
    // Nobody listens: exit 2 with the reason.
    const ProcessRun dead = report({QStringLiteral("-p"), QString::number(LocalServer::freePort())}, 30000);
    QCOMPARE(dead.code, 2);
    QVERIFY2(dead.err.contains("cannot connect"), dead.err.constData());
}

void TestTriage::sampleSaysItSampled()
{
    const QJsonObject doc = document(
        {QStringLiteral("-p"), QString::number(m_broken->port()), QStringLiteral("--sample"), QStringLiteral("500")});
    QVERIFY2(doc.value(QStringLiteral("coverage")).toString().startsWith(QStringLiteral("from a sample of")),
             qPrintable(doc.value(QStringLiteral("coverage")).toString()));
    const QJsonObject coverage
        = doc.value(QStringLiteral("summary")).toObject().value(QStringLiteral("coverage")).toObject();
    QVERIFY(coverage.value(QStringLiteral("sampled")).toBool());
    QVERIFY(coverage.value(QStringLiteral("keys_examined")).toInt() >= 500);
    QVERIFY(coverage.value(QStringLiteral("keys_examined")).toInt()
            < coverage.value(QStringLiteral("keys_total")).toInt());
    // A key finding from a sample says it is an estimate.
    const QJsonObject flags = findingOf(doc, QStringLiteral("keys.sensitive-names"));
    if (!flags.isEmpty())
        QVERIFY(flags.value(QStringLiteral("title")).toString().contains(QStringLiteral("estimated")));
}

void TestTriage::formatsNameTheSameFindings()
{
    const QStringList at{QStringLiteral("-p"), QString::number(m_demo->profile().port)};
    const QSet<QString> json = ids(document(at));
    for (const QString &format : {QStringLiteral("markdown"), QStringLiteral("text")}) {
        const ProcessRun r = report(at + QStringList{QStringLiteral("--format"), format});
        QCOMPARE(r.code, 1);
        for (const QString &id : json)
            QVERIFY2(r.out.contains(id.toUtf8()), qPrintable(format + QLatin1Char(' ') + id));
    }
    const ProcessRun md = report(at + QStringList{QStringLiteral("--format"), QStringLiteral("markdown")});
    QVERIFY(md.out.startsWith("# RedisLens report: redis://127.0.0.1:"));
    QVERIFY(md.out.contains("| severity | rule | finding | affected |"));
}

void TestTriage::readsOnlyAndPrintsNoPassword()
{
    // A server of its own, whose keys do not expire while the report reads (the digest covers them).
    TestServer server({QStringLiteral("--requirepass"), QString::fromLatin1(kPassword)});
    QString error;
    QVERIFY2(server.start(&error), qPrintable(error));
    RawConnection raw(server.port());
    QCOMPARE(raw.command({"AUTH", kPassword}).bytes(), QByteArray("OK"));
    QList<QList<QByteArray>> cmds;
    for (int i = 0; i < 200; ++i)
        cmds.append({"SET", "cache:item:" + QByteArray::number(i), R"({"v":1})", "EX", QByteArray::number(7200 + i)});
    cmds.append({"SET", "lock:job:1", "a1b2c3d4-e5f6-4789-9abc-def012345678"});
    cmds.append({"HSET", "session:0f3a9c00e1c2b3a4d5e6f708", "user_id", "7", "csrf_token", "t0k"});
    for (int i = 0; i < 100; ++i)
        cmds.append({"XADD", "events:orders", "*", "n", QByteArray::number(i)});
    cmds.append({"XGROUP", "CREATE", "events:orders", "billing", "0"});
    cmds.append({"XREADGROUP", "GROUP", "billing", "c1", "COUNT", "5", "STREAMS", "events:orders", ">"});
    cmds.append({"LPUSH", "q:mail", "job"});
    cmds.append({"GEOADD", "geo:shops", "2.35", "48.86", "paris"});
    raw.pipeline(cmds);
    const QByteArray digest = raw.command({"DEBUG", "DIGEST"}).bytes();
    const QHash<QByteArray, qint64> before = commandCalls(raw);
    const ProcessRun r = report({QStringLiteral("-p"), QString::number(server.port()), QStringLiteral("-a"),
                                 QString::fromLatin1(kPassword), QStringLiteral("--read-only"),
                                 QStringLiteral("--format"), QStringLiteral("markdown")});
    QCOMPARE(r.code, 1); // the lock without TTL
    QVERIFY(r.out.contains("lock.no-ttl"));
    QVERIFY(!r.out.contains(kPassword));
    QVERIFY(!r.err.contains(kPassword));
    QCOMPARE(raw.command({"DEBUG", "DIGEST"}).bytes(), digest);
    const QHash<QByteArray, qint64> after = commandCalls(raw);
    QVERIFY(after.value("xinfo|groups") > before.value("xinfo|groups")); // it did read
    const QSet<QByteArray> writes{"set",
                                  "del",
                                  "unlink",
                                  "expire",
                                  "pexpire",
                                  "hset",
                                  "zadd",
                                  "xadd",
                                  "xack",
                                  "xclaim",
                                  "xautoclaim",
                                  "xgroup|create",
                                  "xgroup|delconsumer",
                                  "lpush",
                                  "rpush",
                                  "lmove",
                                  "eval",
                                  "evalsha",
                                  "eval_ro",
                                  "evalsha_ro",
                                  "flushdb",
                                  "flushall",
                                  "script|kill",
                                  "config|set",
                                  "client|kill",
                                  "persist"};
    for (auto it = after.cbegin(); it != after.cend(); ++it)
        QVERIFY2(!writes.contains(it.key()) || before.value(it.key()) == it.value(), it.key().constData());
}

QTEST_GUILESS_MAIN(TestTriage)
#include "tst_triage.moc"
