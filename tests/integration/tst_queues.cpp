// SPDX-License-Identifier: GPL-3.0-or-later
#include "demo.h"
#include "queuesreader.h"
#include "redisclient.h"
#include "testserver.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <memory>

// The queues reader against a real server: exactly the queues, processing lists and delayed
// sets are found (no ordinary list, leaderboard, geo set or rate-limit log), and every count
// equals what the server says on an independent connection. Then the same on the demo data.
namespace {

constexpr int kWaitMs = 30000;
constexpr qint64 kMinute = 60000;

QByteArray num(qint64 v)
{
    return QByteArray::number(v);
}

QByteArray job(int id, qint64 enqueuedAtMs)
{
    return R"({"id":)" + num(id) + R"(,"enqueued_at":)" + num(enqueuedAtMs) + '}';
}

bool runReader(QueuesReader &reader, const QList<QByteArray> &lists, const QList<QByteArray> &zsets)
{
    QSignalSpy refreshed(&reader, &QueuesReader::queuesAvailable);
    reader.setKeys(lists, zsets);
    return !refreshed.isEmpty() || refreshed.wait(kWaitMs);
}

// The reader with the models a panel feeds from it.
struct Fed
{
    explicit Fed(RedisClient *client) : reader(client)
    {
        QObject::connect(&reader, &QueuesReader::queuesAvailable, &queues,
                         [this](const QList<QueueInfo> &q, const QList<DelayedInfo> &d) {
                             queues.setRows(q);
                             delayed.setRows(d);
                         });
    }
    QueuesReader reader;
    QueuesModel queues;
    DelayedModel delayed;
};

// Lists and sorted sets of the whole keyspace, as the scan would hand them over.
void keysByType(RawConnection &raw, QList<QByteArray> *lists, QList<QByteArray> *zsets)
{
    const QList<QByteArray> keys = raw.scan();
    QList<QList<QByteArray>> types;
    for (const QByteArray &k : keys)
        types.append({"TYPE", k});
    const QList<RedisValue> replies = raw.pipeline(types);
    for (qsizetype i = 0; i < keys.size(); ++i) {
        if (replies.at(i).bytes() == "list")
            lists->append(keys.at(i));
        else if (replies.at(i).bytes() == "zset")
            zsets->append(keys.at(i));
    }
}

} // namespace

class TestQueues : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;
    std::unique_ptr<RedisClient> m_client;
    qint64 m_now = 0;
    QList<QByteArray> m_lists, m_zsets;

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        m_now = QDateTime::currentMSecsSinceEpoch();
        QList<QList<QByteArray>> cmds;
        QList<QByteArray> email{"LPUSH", "q:email"};
        for (int i = 0; i < 25; ++i)
            email << job(i, m_now - 10 * kMinute + i * 1000);
        cmds.append(email);
        cmds.append({"LPUSH", "jobs:video", "v1", "v2", "v3"});
        cmds.append({"LPUSH", "q:email:proc:worker-1", job(100, m_now - 40 * kMinute), job(101, m_now - 39 * kMinute)});
        cmds.append({"LPUSH", "q:email:proc:worker-2", job(102, m_now - 2000)});
        QList<QByteArray> dueMs{"ZADD", "sched:due"};
        for (int i = 0; i < 8; ++i) // overdue by 10 to 80 minutes
            dueMs << num(m_now - (i + 1) * 10 * kMinute) << "overdue:" + num(i);
        for (int i = 0; i < 12; ++i) // due in 3 minutes to about two days
            dueMs << num(m_now + 3 * kMinute + qint64(i) * i * 20 * kMinute) << "future:" + num(i);
        cmds.append(dueMs);
        const qint64 nowS = m_now / 1000;
        cmds.append({"ZADD", "retry:payments", num(nowS - 3600), "p1", num(nowS - 120), "p2", num(nowS - 60), "p3",
                     num(nowS + 600), "p4", num(nowS + 7200), "p5"});
        // Things that are not queues.
        cmds.append({"LPUSH", "recent:searches", "shoes", "red shoes", "socks"});
        cmds.append({"LPUSH", "notifications:user:7", job(1, m_now), job(2, m_now)});
        cmds.append({"ZADD", "lb:daily", "100", "alice", "2500", "bob", "31337", "carol", "7", "dave"});
        cmds.append({"GEOADD", "geo:cities", "13.405", "52.52", "berlin", "2.3522", "48.8566", "paris", "-0.1276",
                     "51.5072", "london"});
        cmds.append(
            {"ZADD", "rate:sliding:user:1", num(m_now - 5000), "a", num(m_now - 3000), "b", num(m_now - 100), "c"});
        for (const RedisValue &v : m_server.pipeline(cmds))
            QVERIFY2(!v.isError(), qPrintable(v.toDisplayString()));
        RawConnection raw(m_server.port());
        keysByType(raw, &m_lists, &m_zsets);
        QCOMPARE(m_lists.size(), 6);
        QCOMPARE(m_zsets.size(), 5);
        m_client = connectedClient(m_server.profile());
        QVERIFY(m_client);
    }

    void cleanupTestCase() { m_client.reset(); }

    void classifiesExactly()
    {
        Fed fed(m_client.get());
        QueuesReader &reader = fed.reader;
        QAbstractItemModelTester t1(&fed.queues, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&fed.delayed, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(runReader(reader, m_lists, m_zsets));
        QCOMPARE(reader.keysOfKind(QueueKind::Queue), (QList<QByteArray>{"jobs:video", "q:email"}));
        QCOMPARE(reader.keysOfKind(QueueKind::ProcessingList),
                 (QList<QByteArray>{"q:email:proc:worker-1", "q:email:proc:worker-2"}));
        QCOMPARE(reader.keysOfKind(QueueKind::DelayedJobs), (QList<QByteArray>{"retry:payments", "sched:due"}));
        QCOMPARE(reader.classifications().value("retry:payments").unit, EpochUnit::Seconds);
        QCOMPARE(reader.classifications().value("sched:due").unit, EpochUnit::Milliseconds);
        for (const QByteArray &key :
             {QByteArray("recent:searches"), QByteArray("notifications:user:7"), QByteArray("lb:daily"),
              QByteArray("geo:cities"), QByteArray("rate:sliding:user:1")}) {
            const QueueClassification c = reader.classifications().value(key);
            QVERIFY2(c.kind == QueueKind::NotAQueue, QByteArray(key + ": " + c.reason.toUtf8()).constData());
            QVERIFY(!c.reason.isEmpty());
        }
    }

    void queueCountsMatchTheServer()
    {
        Fed fed(m_client.get());
        QueuesReader &reader = fed.reader;
        QVERIFY(runReader(reader, m_lists, m_zsets));
        const qint64 firstSample = QDateTime::currentMSecsSinceEpoch();
        RawConnection raw(m_server.port());
        const QList<QueueInfo> &rows = fed.queues.rows();
        QCOMPARE(rows.size(), 2);
        for (const QueueInfo &q : rows) {
            QCOMPARE(q.length, raw.command({"LLEN", q.key}).toInteger());
            QCOMPARE(q.head, raw.command({"LINDEX", q.key, "0"}).bytes());
            QCOMPARE(q.tail, raw.command({"LINDEX", q.key, "-1"}).bytes());
            QVERIFY(q.reason.contains(QStringLiteral("segment")));
        }
        const QueueInfo &email = rows.at(fed.queues.rowOf("q:email"));
        QCOMPARE(email.processing.size(), 2);
        QVERIFY(email.stale());
        for (const ProcessingListInfo &p : email.processing) {
            QCOMPARE(p.length, raw.command({"LLEN", p.key}).toInteger());
            QCOMPARE(p.tail, raw.command({"LINDEX", p.key, "-1"}).bytes());
            QCOMPARE(p.ageSource, QStringLiteral("enqueued_at (ms)"));
            if (p.key.endsWith("worker-1")) {
                QVERIFY(p.stale);
                // The tail is the item taken first: 40 minutes old.
                QVERIFY2(p.oldestAgeMs >= 40 * kMinute && p.oldestAgeMs < 45 * kMinute,
                         qPrintable(QString::number(p.oldestAgeMs)));
            } else {
                QVERIFY(!p.stale);
                QVERIFY(p.oldestAgeMs >= 0 && p.oldestAgeMs < kMinute);
            }
        }
        const QueueInfo &video = rows.at(fed.queues.rowOf("jobs:video"));
        QVERIFY(video.processing.isEmpty());
        QVERIFY(!video.stale());

        // Growth: a second sample after the queue grew.
        QVERIFY(std::isnan(email.growthPerMin));
        m_server.command({"LPUSH", "jobs:video", "v4", "v5"});
        // The growth rate needs two samples at different milliseconds.
        QTRY_VERIFY_WITH_TIMEOUT(QDateTime::currentMSecsSinceEpoch() > firstSample + 5, kWaitMs);
        QSignalSpy refreshed(&reader, &QueuesReader::queuesAvailable);
        reader.refresh();
        QVERIFY(refreshed.wait(kWaitMs));
        const QueueInfo &grown = fed.queues.rows().at(fed.queues.rowOf("jobs:video"));
        QCOMPARE(grown.length, 5);
        QVERIFY2(grown.growthPerMin > 0, qPrintable(QString::number(grown.growthPerMin)));
        m_server.command({"RPOP", "jobs:video", "2"});
    }

    void delayedCountsMatchTheServer_data()
    {
        QTest::addColumn<QString>("version");
        QTest::newRow("BYSCORE") << QStringLiteral("7.0");
        QTest::newRow("ZRANGEBYSCORE") << QStringLiteral("6.0");
    }

    void delayedCountsMatchTheServer()
    {
        QFETCH(QString, version);
        Fed fed(m_client.get());
        QueuesReader &reader = fed.reader;
        reader.overrideServerVersion(QVersionNumber::fromString(version));
        QVERIFY(runReader(reader, m_lists, m_zsets));
        RawConnection raw(m_server.port());
        const QList<DelayedInfo> &rows = fed.delayed.rows();
        QCOMPARE(rows.size(), 2);
        for (const DelayedInfo &d : rows) {
            const qint64 zcard = raw.command({"ZCARD", d.key}).toInteger();
            QCOMPARE(d.total, zcard);
            QCOMPARE(d.histogram.size(), DelayedInfo::kBuckets);
            qint64 sum = 0;
            for (qint64 n : d.histogram)
                sum += n;
            QCOMPARE(sum, zcard);
            const QByteArray now = d.unit == EpochUnit::Seconds ? num(d.readAtMs / 1000) : num(d.readAtMs);
            QCOMPARE(d.overdue, raw.command({"ZCOUNT", d.key, "-inf", now}).toInteger());
            const RedisValue next = raw.command({"ZRANGEBYSCORE", d.key, '(' + now, "+inf", "LIMIT", "0", "10"});
            QCOMPARE(d.next.size(), next.size());
            for (qsizetype i = 0; i < next.size(); ++i)
                QCOMPARE(d.next.at(i).member, next.at(i).bytes());
            QVERIFY(d.oldestOverdueAgeMs > 0);
        }
        const DelayedInfo &ms = rows.at(fed.delayed.rowOf("sched:due"));
        QCOMPARE(ms.overdue, 8);
        QVERIFY(ms.oldestOverdueAgeMs >= 80 * kMinute && ms.oldestOverdueAgeMs < 85 * kMinute);
        QCOMPARE(ms.next.first().member, QByteArray("future:0"));
        QVERIFY(ms.next.first().dueMs > ms.readAtMs);
        QCOMPARE(ms.histogram.at(0), 8);
        QCOMPARE(ms.histogram.at(2), 1); // future:0, due in 3 minutes: the "≤5 min" bucket
        const DelayedInfo &s = rows.at(fed.delayed.rowOf("retry:payments"));
        QCOMPARE(s.overdue, 3);
        QVERIFY(s.oldestOverdueAgeMs >= 3600 * 1000 && s.oldestOverdueAgeMs < 3700 * 1000);
        QCOMPARE(s.next.first().member, QByteArray("p4"));
        QCOMPARE(s.next.first().dueMs / 1000, m_now / 1000 + 600);
    }

    void userRuleReclassifies()
    {
        Fed fed(m_client.get());
        QueuesReader &reader = fed.reader;
        QVERIFY(runReader(reader, m_lists, m_zsets));
        reader.rules().setUserRules(QList<PatternRule>{{"recent:*", KeyType::List, PatternKind::ListQueue, {}, {}, 0}});
        QSignalSpy refreshed(&reader, &QueuesReader::queuesAvailable);
        reader.reclassify();
        QVERIFY(!refreshed.isEmpty() || refreshed.wait(kWaitMs));
        QVERIFY(reader.keysOfKind(QueueKind::Queue).contains("recent:searches"));
        QVERIFY(reader.classifications().value("recent:searches").reason.startsWith(QStringLiteral("rule 1:")));
    }

    void demoData()
    {
        Demo demo;
        QString error;
        QVERIFY2(demo.seedBlocking(&error, 60000), qPrintable(error));
        RawConnection raw(demo.profile().port);
        QList<QByteArray> lists, zsets;
        keysByType(raw, &lists, &zsets);
        QVERIFY(!zsets.isEmpty());
        RedisClient client(demo.profile());
        client.connectToServer();
        QVERIFY(waitForReady(client));
        Fed fed(&client);
        QueuesReader &reader = fed.reader;
        QVERIFY(runReader(reader, lists, zsets));
        QCOMPARE(reader.keysOfKind(QueueKind::Queue), QList<QByteArray>{"q:email"});
        QVERIFY(reader.keysOfKind(QueueKind::ProcessingList).contains("q:email:proc:worker-2"));
        for (const QByteArray &p : reader.keysOfKind(QueueKind::ProcessingList))
            QCOMPARE(reader.classifications().value(p).queue, QByteArray("q:email"));
        // The demo's BullMQ-shaped queue keeps its delayed jobs in ms × 4096 + a sequence.
        QCOMPARE(reader.keysOfKind(QueueKind::DelayedJobs), (QList<QByteArray>{"bull:emails:delayed", "sched:due"}));
        QCOMPARE(reader.classifications().value("bull:emails:delayed").unit, EpochUnit::MsTimes4096);
        for (const QByteArray &key : lists + zsets) {
            if (key.startsWith("lb:")) {
                QCOMPARE(reader.classifications().value(key).kind, QueueKind::NotAQueue);
            }
        }
        const QueueInfo &email = fed.queues.rows().first();
        QCOMPARE(email.length, raw.command({"LLEN", "q:email"}).toInteger());
        const DelayedInfo *due = fed.delayed.find("sched:due");
        QVERIFY(due);
        QCOMPARE(due->total, raw.command({"ZCARD", "sched:due"}).toInteger());
        QVERIFY(due->overdue > 0);
        // BullMQ's three delayed jobs are due in 15, 30 and 45 minutes: none overdue.
        const DelayedInfo *bull = fed.delayed.find("bull:emails:delayed");
        QVERIFY(bull);
        QCOMPARE(bull->total, 3);
        QCOMPARE(bull->overdue, 0);
        QVERIFY(!bull->next.isEmpty());
        QVERIFY(bull->next.first().dueMs > QDateTime::currentMSecsSinceEpoch() + 10 * 60000);
    }
};

QTEST_GUILESS_MAIN(TestQueues)
#include "tst_queues.moc"
