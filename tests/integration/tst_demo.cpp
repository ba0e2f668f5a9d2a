// SPDX-License-Identifier: GPL-3.0-or-later
#include "bytesescape.h"
#include "demo.h"
#include "demotruth.h"
#include "queues.h"
#include "respcodec.h"
#include "scriptlibrary.h"
#include "testserver.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTest>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sys/resource.h>
#include <unistd.h>

namespace {

QByteArray num(qint64 v)
{
    return QByteArray::number(v);
}

QByteArray todayIso()
{
    return QDateTime::currentDateTimeUtc().date().toString(Qt::ISODate).toLatin1();
}

// True while the process exists and is not a zombie. A server orphaned by a crash may sit as
// a zombie until whoever adopted it reaps it; it no longer runs or listens then.
bool processAlive(qint64 pid)
{
    if (pid <= 0)
        return false;
    if (::kill(pid_t(pid), 0) != 0 && errno == ESRCH)
        return false;
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray line = stat.readAll();
    const qsizetype paren = line.lastIndexOf(')');
    const char state = paren >= 0 && paren + 2 < line.size() ? line.at(paren + 2) : '?';
    return state != 'Z' && state != 'X';
}

// Blocking checks over a socket of their own, so they do not depend on the engine the demo uses.
using Raw = RawConnection;

int crashChild(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    // No core file for a crash we cause on purpose.
    struct rlimit none = {0, 0};
    ::setrlimit(RLIMIT_CORE, &none);
    Demo demo;
    QString error;
    if (!demo.start(&error)) {
        std::fprintf(stderr, "cannot start the demo: %s\n", qPrintable(error));
        return 3;
    }
    std::printf("%lld %s\n", static_cast<long long>(demo.serverPid()), qPrintable(demo.serverDirectory()));
    std::fflush(stdout);
    std::abort();
}

} // namespace

class TestDemo : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void startsAPrivateServer();
    void seedMatchesItsTruth();
    void seedsCaches();
    void seedsSessions();
    void seedsRateLimits();
    void seedsLocks();
    void seedsLeaderboardsGeoAndCounting();
    void seedsStreams();
    void seedsQueuesAndJobs();
    void seedsBinaryKeys();
    void simulatorTicksAndChangesData();
    void simulatorStaysBounded();
    void serverGoneAfterDestruction();
    void serverGoneAfterCrash();

private:
    qint64 commandsProcessed();
    qint64 indexedSessionIds();

    Demo *m_demo = nullptr;
    std::unique_ptr<Raw> m_raw;
};

qint64 TestDemo::commandsProcessed()
{
    const QByteArray info = m_raw->command({"INFO", "stats"}).bytes();
    for (const QByteArray &line : info.split('\n')) {
        if (line.startsWith("total_commands_processed:"))
            return line.mid(25).trimmed().toLongLong();
    }
    return -1;
}

qint64 TestDemo::indexedSessionIds()
{
    qint64 total = 0;
    for (const QByteArray &index : m_raw->scan("user:*:sessions"))
        total += m_raw->command({"SCARD", index}).toInteger();
    return total;
}

void TestDemo::initTestCase()
{
    QElapsedTimer clock;
    clock.start();
    m_demo = new Demo;
    QSignalSpy seeded(m_demo, &Demo::seeded);
    QString error;
    QVERIFY2(m_demo->seedBlocking(&error, 20000), qPrintable(error));
    QCOMPARE(seeded.count(), 1);
    QVERIFY(m_demo->isSeeded());
    qInfo("seeding took %lld ms (%lld ms with starting the server)", static_cast<long long>(m_demo->seedElapsedMs()),
          static_cast<long long>(clock.elapsed()));
    QVERIFY2(m_demo->seedElapsedMs() < 2000, qPrintable(QString::number(m_demo->seedElapsedMs())));
    m_raw = std::make_unique<Raw>(m_demo->profile().port);
}

void TestDemo::cleanupTestCase()
{
    m_raw.reset();
    delete m_demo;
}

void TestDemo::startsAPrivateServer()
{
    const ConnectionProfile p = m_demo->profile();
    QCOMPARE(p.host, QStringLiteral("127.0.0.1"));
    QVERIFY(p.port > 0);
    QVERIFY(processAlive(m_demo->serverPid()));
    QCOMPARE(m_raw->command({"PING"}).bytes(), QByteArray("PONG"));
    // No persistence.
    const RedisValue save = m_raw->command({"CONFIG", "GET", "save"});
    QCOMPARE(save.at(1).bytes(), QByteArray());
    const qint64 keys = m_raw->command({"DBSIZE"}).toInteger();
    QVERIFY2(keys > 2000 && keys < 10000, qPrintable(QString::number(keys)));
    // The pattern scripts are loaded, for EVALSHA.
    QList<QByteArray> exists{"SCRIPT", "EXISTS"};
    for (const ScriptInfo &s : ScriptLibrary::instance().scripts())
        exists << s.sha1;
    const RedisValue loaded = m_raw->command(exists);
    QCOMPARE(loaded.size(), ScriptLibrary::instance().scripts().size());
    for (const RedisValue &v : loaded.elements())
        QCOMPARE(v.toInteger(), 1);
}

void TestDemo::seedMatchesItsTruth()
{
    // demotruth.cpp is what the classifier is measured against; it is only worth that if every
    // key the seed writes is explained by exactly one of its rules, and every rule by the seed.
    QHash<QString, int> keysPerRule;
    QStringList unexplained, ambiguous;
    const QList<QByteArray> keys = m_raw->scan();
    QVERIFY2(keys.size() > 2000, qPrintable(QString::number(keys.size())));
    const QList<DemoTruthRule> rules = demoTruth();
    for (const QByteArray &key : keys) {
        int matching = 0;
        if (!demoTruthOf(key, &matching))
            unexplained << bytesescape::quoteIfNeeded(key);
        else if (matching > 1)
            ambiguous << bytesescape::quoteIfNeeded(key);
        for (const DemoTruthRule &r : rules) {
            if (globMatch(r.glob, key))
                ++keysPerRule[QString::fromLatin1(r.glob)];
        }
    }
    QVERIFY2(unexplained.isEmpty(), qPrintable(unexplained.mid(0, 20).join(QLatin1Char(' '))));
    QVERIFY2(ambiguous.isEmpty(), qPrintable(ambiguous.mid(0, 20).join(QLatin1Char(' '))));
    QStringList unused;
    for (const DemoTruthRule &r : rules) {
        if (!keysPerRule.contains(QString::fromLatin1(r.glob)))
            unused << QString::fromLatin1(r.glob);
    }
    QVERIFY2(unused.isEmpty(), qPrintable(unused.join(QLatin1Char(' '))));
}

void TestDemo::seedsCaches()
{
    // Cache-aside JSON with jittered TTLs between minutes and hours.
    QList<QList<QByteArray>> ttls;
    for (int id = 1; id <= 60; ++id)
        ttls.append({"PTTL", "app:product:" + num(id)});
    QSet<qint64> distinct;
    for (const RedisValue &v : m_raw->pipeline(ttls)) {
        const qint64 ttl = v.toInteger();
        QVERIFY2(ttl > 10 * 60 * 1000 && ttl < 3 * 3600 * 1000, qPrintable(QString::number(ttl)));
        distinct.insert(ttl / 1000);
    }
    QVERIFY2(distinct.size() > 40, "TTLs are not jittered");
    QCOMPARE(m_raw->command({"TYPE", "app:product:1"}).bytes(), QByteArray("string"));
    QVERIFY(m_raw->command({"GET", "app:product:1"}).bytes().startsWith("{\"id\":1,"));
    QCOMPARE(m_raw->command({"PTTL", "app:product:167"}).toInteger(), -1); // forgotten TTL
    QCOMPARE(m_raw->command({"PTTL", "app:config:feature-flags"}).toInteger(), -1);

    // The namespace without jitter: every key expires at the same moment.
    QList<QList<QByteArray>> prices;
    for (int i = 1; i <= 200; i += 7)
        prices.append({"PTTL", "app:price:sku-" + num(i).rightJustified(6, '0')});
    qint64 low = std::numeric_limits<qint64>::max(), high = 0;
    for (const RedisValue &v : m_raw->pipeline(prices)) {
        low = qMin(low, v.toInteger());
        high = qMax(high, v.toInteger());
    }
    QVERIFY2(low > 0 && high - low <= 5, qPrintable(QStringLiteral("%1..%2").arg(low).arg(high)));

    // Negative markers with a short TTL (and one without).
    QCOMPARE(m_raw->command({"GET", "app:product:900001"}).bytes(), QByteArray("{\"missing\":true}"));
    const qint64 marker = m_raw->command({"PTTL", "app:product:900001"}).toInteger();
    QVERIFY(marker > 0 && marker <= 35000);
    QCOMPARE(m_raw->command({"GET", "app:user:9001:profile"}).bytes(), QByteArray("null"));
    QCOMPARE(m_raw->command({"PTTL", "app:product:999999"}).toInteger(), -1);

    // Tags: members are cache keys, some dangling; TTL longer than the members' except one.
    QCOMPARE(m_raw->command({"TYPE", "tag:category:7"}).bytes(), QByteArray("set"));
    QVERIFY(m_raw->command({"SCARD", "tag:category:7"}).toInteger() >= 50);
    QCOMPARE(m_raw->command({"SISMEMBER", "tag:category:7", "app:product:6"}).toInteger(), 1);
    QCOMPARE(m_raw->command({"SISMEMBER", "tag:category:7", "app:product:5070"}).toInteger(), 1);
    QCOMPARE(m_raw->command({"EXISTS", "app:product:5070"}).toInteger(), 0);
    QVERIFY(m_raw->command({"PTTL", "tag:category:7"}).toInteger() > 2 * 3600 * 1000);
    QVERIFY(m_raw->command({"PTTL", "tag:category:13"}).toInteger() <= 2 * 60 * 1000);

    // Stampede protection: recompute locks beside missing entries, one without a TTL, and
    // values with a logical expiry inside.
    const qint64 lock = m_raw->command({"PTTL", "app:product:1001:lock"}).toInteger();
    QVERIFY2(lock > 0 && lock <= 45000, qPrintable(QString::number(lock)));
    QCOMPARE(m_raw->command({"EXISTS", "app:product:1001"}).toInteger(), 0);
    QCOMPARE(m_raw->command({"PTTL", "app:product:1006:lock"}).toInteger(), -1);
    const QList<QByteArray> reports = m_raw->scan("app:report:sales:*");
    QCOMPARE(reports.size(), 20);
    QVERIFY(m_raw->command({"GET", reports.first()}).bytes().contains("\"logical_expires_at\":"));
}

void TestDemo::seedsSessions()
{
    QList<QByteArray> sessions;
    for (const QByteArray &k : m_raw->scan("session:*")) {
        if (k.count(':') == 1)
            sessions.append(k);
    }
    QVERIFY2(sessions.size() >= 400, qPrintable(QString::number(sessions.size())));
    QList<QList<QByteArray>> checks;
    for (const QByteArray &k : std::as_const(sessions))
        checks.append({"PTTL", k});
    int withoutTtl = 0;
    for (const RedisValue &v : m_raw->pipeline(checks)) {
        const qint64 ttl = v.toInteger();
        if (ttl == -1) {
            ++withoutTtl;
            continue;
        }
        QVERIFY2(ttl > 25 * 60 * 1000 && ttl <= 24 * 3600 * 1000, qPrintable(QString::number(ttl)));
    }
    QCOMPARE(withoutTtl, 2);
    const QByteArray one = sessions.first();
    QCOMPARE(one.size(), qsizetype(8 + 32)); // "session:" + 32 hex digits
    QCOMPARE(m_raw->command({"TYPE", one}).bytes(), QByteArray("hash"));
    for (const char *field : {"user_id", "created_at", "last_seen", "csrf_token"})
        QCOMPARE(m_raw->command({"HEXISTS", one, field}).toInteger(), 1);

    // Reverse index sets, with some ids whose session is gone.
    const QList<QByteArray> indexes = m_raw->scan("user:*:sessions");
    QVERIFY(indexes.size() > 100);
    int dangling = 0;
    for (const QByteArray &index : indexes) {
        QCOMPARE(m_raw->command({"TYPE", index}).bytes(), QByteArray("set"));
        const RedisValue ids = m_raw->command({"SMEMBERS", index});
        for (const RedisValue &id : ids.elements())
            dangling += m_raw->command({"EXISTS", "session:" + id.bytes()}).toInteger() == 0 ? 1 : 0;
    }
    QVERIFY(dangling > 5);
}

void TestDemo::seedsRateLimits()
{
    // Fixed windows: counters with a TTL no longer than the window, some over the limit,
    // and one without a TTL.
    const QList<QByteArray> counters = m_raw->scan("rate:user:*");
    QVERIFY(counters.size() > 50);
    int over = 0;
    int withoutTtl = 0;
    for (const QByteArray &k : counters) {
        const qint64 ttl = m_raw->command({"PTTL", k}).toInteger();
        if (ttl == -1) {
            ++withoutTtl;
            QVERIFY(k.startsWith("rate:user:4242:"));
            continue;
        }
        QVERIFY(ttl > 0 && ttl <= 60000);
        over += m_raw->command({"GET", k}).toInteger() > 10 ? 1 : 0;
    }
    QCOMPARE(withoutTtl, 1);
    QVERIFY(over > 0);

    // Sliding logs: sorted sets of "<ms>:<seq>" members with ms scores, within the limit.
    const QByteArray log = "rate:sliding:user:1000";
    QCOMPARE(m_raw->command({"TYPE", log}).bytes(), QByteArray("zset"));
    const qint64 n = m_raw->command({"ZCARD", log}).toInteger();
    QVERIFY(n >= 1 && n <= 20);
    const RedisValue first = m_raw->command({"ZRANGE", log, "0", "0", "WITHSCORES"});
    QVERIFY(first.at(0).bytes().startsWith(QByteArray(first.at(1).bytes() + ':')));
    QVERIFY(first.at(1).toInteger() > QDateTime::currentMSecsSinceEpoch() - 61000);
    QVERIFY(m_raw->command({"PTTL", log}).toInteger() > 0);
    QCOMPARE(m_raw->command({"EXISTS", log + ":seq"}).toInteger(), 1);

    // Token buckets.
    const QByteArray bucket = "bucket:api:client-1";
    QCOMPARE(m_raw->command({"TYPE", bucket}).bytes(), QByteArray("hash"));
    QVERIFY(m_raw->command({"HEXISTS", bucket, "tokens"}).toInteger() == 1);
    QVERIFY(m_raw->command({"HGET", bucket, "last_refill"}).toInteger() > 0);
    QVERIFY(m_raw->command({"PTTL", bucket}).toInteger() > 0);
}

void TestDemo::seedsLocks()
{
    const RedisValue token = m_raw->command({"GET", "lock:invoice:1042"});
    QCOMPARE(token.bytes().size(), 32);
    const qint64 ttl = m_raw->command({"PTTL", "lock:invoice:1042"}).toInteger();
    QVERIFY(ttl > 0 && ttl <= 300000);
    QCOMPARE(m_raw->command({"PTTL", "lock:migration:schema-v42"}).toInteger(), -1); // stuck
    QCOMPARE(m_raw->command({"GET", "lock:cron:send-digest"}).bytes(), QByteArray("1"));
    QVERIFY(m_raw->command({"PTTL", "lock:import:catalog"}).toInteger() > 3600 * 1000);
    int stuck = 0;
    for (const QByteArray &k : m_raw->scan("lock:*"))
        stuck += m_raw->command({"PTTL", k}).toInteger() == -1 ? 1 : 0;
    QCOMPARE(stuck, 1);
}

void TestDemo::seedsLeaderboardsGeoAndCounting()
{
    const QByteArray daily = "lb:daily:" + todayIso();
    QCOMPARE(m_raw->command({"TYPE", daily}).bytes(), QByteArray("zset"));
    QVERIFY(m_raw->command({"ZCARD", daily}).toInteger() >= 300);
    QVERIFY(m_raw->command({"PTTL", daily}).toInteger() > 0);
    const RedisValue top = m_raw->command({"ZRANGE", daily, "0", "1", "REV", "WITHSCORES"});
    QCOMPARE(top.size(), 4);
    QCOMPARE(top.at(1).bytes(), top.at(3).bytes()); // a tie at the top
    QCOMPARE(m_raw->scan("lb:daily:*").size(), 7);
    const QList<QByteArray> weekly = m_raw->scan("lb:weekly:*");
    QCOMPARE(weekly.size(), 1);
    QVERIFY(m_raw->command({"ZCARD", weekly.first()}).toInteger() >= 300);

    // Geo: longitude first, so Berlin is at 13.4 E 52.5 N and Sydney south of the equator.
    QVERIFY(m_raw->command({"ZCARD", "geo:cities"}).toInteger() >= 50);
    const RedisValue pos = m_raw->command({"GEOPOS", "geo:cities", "Berlin", "Sydney", "S\xc3\xa3o Paulo"});
    QCOMPARE(pos.size(), 3);
    QVERIFY(qAbs(pos.at(0).at(0).toDouble() - 13.405) < 0.001);
    QVERIFY(qAbs(pos.at(0).at(1).toDouble() - 52.52) < 0.001);
    QVERIFY(qAbs(pos.at(1).at(0).toDouble() - 151.2093) < 0.001);
    QVERIFY(qAbs(pos.at(1).at(1).toDouble() + 33.8688) < 0.001);
    QVERIFY(pos.at(2).at(0).toDouble() < -40);
    const double km = m_raw->command({"GEODIST", "geo:cities", "Berlin", "Paris", "km"}).toDouble();
    QVERIFY2(km > 860 && km < 890, qPrintable(QString::number(km)));

    // Unique counting, dedup, counters.
    const QByteArray hll = "hll:pageviews:" + todayIso();
    QVERIFY(m_raw->command({"PFCOUNT", hll}).toInteger() > 1000);
    QVERIFY(m_raw->command({"GET", hll}).bytes().startsWith("HYLL"));
    QVERIFY(m_raw->command({"SCARD", "seen:webhook"}).toInteger() > 900);
    QCOMPARE(m_raw->command({"PTTL", "seen:webhook"}).toInteger(), -1);
    QVERIFY(m_raw->command({"PTTL", "seen:evt:wh_1"}).toInteger() > 0);
    QVERIFY(m_raw->command({"GET", "stats:signups:" + todayIso()}).toInteger() > 0);
    QCOMPARE(m_raw->scan("stats:signups:*").size(), 14);
}

void TestDemo::seedsStreams()
{
    const QByteArray stream = "events:orders";
    QCOMPARE(m_raw->command({"TYPE", stream}).bytes(), QByteArray("stream"));
    QVERIFY(m_raw->command({"XLEN", stream}).toInteger() >= 500);

    // The billing group: two consumers and pending entries of different ages and counts.
    const RedisValue groups = m_raw->command({"XINFO", "GROUPS", stream});
    bool foundBilling = false;
    for (const RedisValue &g : groups.elements()) {
        QHash<QByteArray, RedisValue> f;
        for (qsizetype i = 0; i + 1 < g.size(); i += 2)
            f.insert(g.at(i).bytes(), g.at(i + 1));
        if (f.value("name").bytes() != "billing")
            continue;
        foundBilling = true;
        QCOMPARE(f.value("consumers").toInteger(), 2);
        QVERIFY(f.value("pending").toInteger() >= 15);
    }
    QVERIFY(foundBilling);
    const RedisValue pending = m_raw->command({"XPENDING", stream, "billing", "-", "+", "100"});
    QVERIFY(pending.size() >= 15);
    qint64 oldest = 0, newest = std::numeric_limits<qint64>::max(), most = 0;
    QSet<QByteArray> consumers;
    for (const RedisValue &p : pending.elements()) {
        consumers.insert(p.at(1).bytes());
        oldest = qMax(oldest, p.at(2).toInteger());
        newest = qMin(newest, p.at(2).toInteger());
        most = qMax(most, p.at(3).toInteger());
    }
    QCOMPARE(consumers.size(), 2);
    QVERIFY2(oldest > 3600 * 1000, "no entry idle for an hour");
    QVERIFY(newest < 60 * 1000);
    QVERIFY2(most >= 10, "no poison entry");

    // The dead-letter stream got one entry, and the audit stream is not trimmed.
    QCOMPARE(m_raw->command({"XLEN", "events:orders:dead"}).toInteger(), 1);
    QCOMPARE(m_raw->command({"XLEN", "events:audit"}).toInteger(), 300);
}

void TestDemo::seedsQueuesAndJobs()
{
    QCOMPARE(m_raw->command({"LLEN", "q:email"}).toInteger(), 120);
    QCOMPARE(m_raw->command({"LLEN", "q:email:proc:worker-1"}).toInteger(), 3);
    const QByteArray oldest = m_raw->command({"LINDEX", "q:email:proc:worker-1", "-1"}).bytes();
    QVERIFY2(oldest.contains("\"enqueued_at\":"), oldest.constData());

    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    QCOMPARE(m_raw->command({"ZCARD", "sched:due"}).toInteger(), 290); // 10 claimed by the script
    const qint64 overdue = m_raw->command({"ZCOUNT", "sched:due", "-inf", num(now)}).toInteger();
    QCOMPARE(overdue, 30);
    const RedisValue first = m_raw->command({"ZRANGE", "sched:due", "0", "0", "WITHSCORES"});
    QVERIFY(first.at(1).toInteger() < now - 60 * 1000); // scores are epoch milliseconds
    QVERIFY(first.at(1).toInteger() > now - 4 * 3600 * 1000);
}

void TestDemo::seedsBinaryKeys()
{
    const QByteArray nul("bin:nul\x00name", 12);
    const QByteArray mixed("bin:\x00\xff\nkey", 10);
    QCOMPARE(m_raw->command({"EXISTS", nul, mixed, "bin:\xff\xfe-not-utf8"}).toInteger(), 3);
    QVERIFY(m_raw->command({"GET", mixed}).bytes().contains(QByteArray("\x00\xff", 2)));
    QVERIFY(m_raw->command({"STRLEN", "blob:export:orders.csv"}).toInteger() >= 2 * 1024 * 1024);
}

void TestDemo::simulatorTicksAndChangesData()
{
    const QByteArray orders = "stats:orders:" + todayIso();
    const qint64 ordersBefore = m_raw->command({"GET", orders}).toInteger();
    const QByteArray lastBefore
        = m_raw->command({"XREVRANGE", "events:orders", "+", "-", "COUNT", "1"}).at(0).at(0).bytes();

    QSignalSpy ticks(m_demo, &Demo::tick);
    m_demo->startSimulation(50);
    QVERIFY(m_demo->isSimulating());
    QTRY_VERIFY_WITH_TIMEOUT(ticks.count() >= 5, 15000);
    m_demo->stopSimulation();
    QVERIFY(!m_demo->isSimulating());
    QVERIFY2(m_demo->tickErrorCount() == 0, qPrintable(m_demo->lastTickError()));
    QCOMPARE(ticks.first().at(0).toInt(), 1);

    // The slowlog panel has something to teach: the simulator's whole-set read is logged, and
    // the seed's big writes are not (the log was reset when the seed finished).
    const RedisValue slowlog = m_raw->command({"SLOWLOG", "GET", "128"});
    bool smembers = false;
    for (const RedisValue &entry : slowlog.elements()) {
        const RedisValue &args = entry.at(3);
        if (args.size() == 2 && args.at(0).bytes() == "SMEMBERS" && args.at(1).bytes() == "seen:webhook")
            smembers = true;
        QVERIFY2(!(args.at(0).bytes() == "PFADD" && args.size() == 32), "a seed command is still in the slowlog");
    }
    QVERIFY(smembers);

    QVERIFY(m_raw->command({"GET", orders}).toInteger() > ordersBefore);
    const QByteArray lastAfter
        = m_raw->command({"XREVRANGE", "events:orders", "+", "-", "COUNT", "1"}).at(0).at(0).bytes();
    QVERIFY(lastAfter != lastBefore);
    // Bounded: the stream stays capped, worker-2's processing list drains.
    QVERIFY(m_raw->command({"XLEN", "events:orders"}).toInteger() <= 1200);
    QVERIFY(m_raw->command({"LLEN", "q:email:proc:worker-2"}).toInteger() <= 10);
    // Counters the simulator touched carry the window's TTL (only the seeded one has none).
    for (const QByteArray &k : m_raw->scan("rate:user:*")) {
        const qint64 ttl = m_raw->command({"PTTL", k}).toInteger();
        QVERIFY(k.startsWith("rate:user:4242:") || (ttl > 0 && ttl <= 60000));
    }
}

void TestDemo::simulatorStaysBounded()
{
    // Hundreds of ticks as fast as the server answers: everything that grows has a cap.
    const qint64 sessionsBefore = m_raw->scan("session:*").size();
    const qint64 indexedBefore = indexedSessionIds();
    const qint64 commandsBefore = commandsProcessed();
    const int start = m_demo->tickCount();
    m_demo->startSimulation(1);
    QTRY_VERIFY_WITH_TIMEOUT(m_demo->tickCount() >= start + 300, 60000);
    m_demo->stopSimulation();
    const int ticks = m_demo->tickCount() - start;
    // Counts what the scripts run as well, and perhaps one batch sent before stopSimulation().
    const qint64 perTick = (commandsProcessed() - commandsBefore) / ticks;
    qInfo("%d ticks, about %lld commands each", ticks, static_cast<long long>(perTick));
    QVERIFY2(perTick <= 300, qPrintable(QString::number(perTick)));
    QVERIFY2(m_demo->tickErrorCount() == 0, qPrintable(m_demo->lastTickError()));

    QVERIFY(m_raw->command({"XLEN", "events:orders"}).toInteger() <= 1200);
    const qint64 pending = m_raw->command({"XPENDING", "events:orders", "billing"}).at(0).toInteger();
    QVERIFY2(pending <= 60, qPrintable(QString::number(pending)));
    QVERIFY(m_raw->command({"XLEN", "events:orders:dead"}).toInteger() >= 2); // the simulator dead-letters too
    QVERIFY(m_raw->command({"LLEN", "q:email"}).toInteger() <= 400);
    QVERIFY(m_raw->command({"LLEN", "q:email:proc:worker-2"}).toInteger() <= 10);
    QVERIFY(m_raw->command({"ZCARD", "lb:daily:" + todayIso()}).toInteger() <= 400);
    QVERIFY(m_raw->command({"ZCARD", "sched:due"}).toInteger() <= 290 + 3 * ticks);
    QVERIFY(m_raw->command({"SCARD", "seen:webhook"}).toInteger()
            <= 60000 + 3000); // the seed, then ids from a bounded space
    // Logins replace logouts one for one.
    QVERIFY(qAbs(m_raw->scan("session:*").size() - sessionsBefore) <= 1);
    const qint64 indexedAfter = indexedSessionIds();
    QVERIFY2(qAbs(indexedAfter - indexedBefore) <= 1,
             qPrintable(QStringLiteral("%1 -> %2").arg(indexedBefore).arg(indexedAfter)));
    const qint64 keys = m_raw->command({"DBSIZE"}).toInteger();
    QVERIFY2(keys < 10000, qPrintable(QString::number(keys)));
    // Locks the simulator takes always carry a TTL.
    int withoutTtl = 0;
    for (const QByteArray &k : m_raw->scan("lock:*"))
        withoutTtl += m_raw->command({"PTTL", k}).toInteger() == -1 ? 1 : 0;
    QCOMPARE(withoutTtl, 1);
}

void TestDemo::serverGoneAfterDestruction()
{
    auto demo = std::make_unique<Demo>();
    QString error;
    QVERIFY2(demo->start(&error), qPrintable(error));
    const qint64 pid = demo->serverPid();
    QVERIFY(processAlive(pid));
    demo.reset(); // while seeding is still in flight
    QTRY_VERIFY_WITH_TIMEOUT(!processAlive(pid), 10000);
}

void TestDemo::serverGoneAfterCrash()
{
    QProcess child;
    child.setProcessChannelMode(QProcess::SeparateChannels);
    child.start(QCoreApplication::applicationFilePath(), {QStringLiteral("--crash-child")});
    QVERIFY(child.waitForStarted(10000));
    QVERIFY(child.waitForFinished(20000));
    QCOMPARE(child.exitStatus(), QProcess::CrashExit);
    const QList<QByteArray> out = child.readAllStandardOutput().trimmed().split(' ');
    bool ok = false;
    const qint64 pid = out.value(0).toLongLong(&ok);
    QVERIFY2(ok && pid > 0, child.readAllStandardError().constData());
    QTRY_VERIFY_WITH_TIMEOUT(!processAlive(pid), 10000);
    // The crash skipped the temporary directory's clean-up; do it here.
    const QString dir = QString::fromLocal8Bit(out.value(1));
    if (dir.startsWith(QDir::tempPath() + QStringLiteral("/redislens-server-")))
        QVERIFY(QDir(dir).removeRecursively());
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        if (qstrcmp(argv[i], "--crash-child") == 0)
            return crashChild(argc, argv);
    }
    QCoreApplication app(argc, argv);
    TestDemo test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "tst_demo.moc"
