// SPDX-License-Identifier: GPL-3.0-or-later
// The job-queues reader on a BullMQ-shaped queue written here (the libraries' own data is read
// in tst_libraries): an active job whose lock has expired is stalled, one that holds its lock
// but has run far past the lock's duration is flagged long running, and one that started a
// minute ago is neither.
#include "jobqueuesreader.h"
#include "redisclient.h"
#include "testserver.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

class TestJobQueues : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void flagsStalledAndLongRunningJobs();
};

void TestJobQueues::flagsStalledAndLongRunningJobs()
{
    TestServer server;
    QString error;
    QVERIFY2(server.start(&error), qPrintable(error));
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const auto num = [](qint64 v) { return QByteArray::number(v); };
    QList<QList<QByteArray>> cmds;
    // Job 1 started 20 minutes ago and its 30 s lock is still renewed; job 2 started a minute
    // ago; job 3 lost its lock.
    cmds.append({"HSET", "bull:img:1", "name", "resize", "timestamp", num(now - 21 * 60000), "processedOn",
                 num(now - 20 * 60000)});
    cmds.append(
        {"HSET", "bull:img:2", "name", "resize", "timestamp", num(now - 61000), "processedOn", num(now - 60000)});
    cmds.append(
        {"HSET", "bull:img:3", "name", "resize", "timestamp", num(now - 61000), "processedOn", num(now - 60000)});
    cmds.append({"SET", "bull:img:1:lock", "token-1", "PX", "30000"});
    cmds.append({"SET", "bull:img:2:lock", "token-2", "PX", "29000"});
    cmds.append({"LPUSH", "bull:img:active", "1", "2", "3"});
    for (const RedisValue &v : server.pipeline(cmds))
        QVERIFY2(!v.isError(), qPrintable(v.toDisplayString()));

    std::unique_ptr<RedisClient> client = connectedClient(server.profile());
    QVERIFY(client);
    JobQueuesReader reader(client.get());
    JobQueueSpec spec;
    spec.library = QStringLiteral("BullMQ");
    spec.name = "img";
    spec.prefix = "bull:img";
    spec.keys = {{"bull:img:active", KeyType::List, QStringLiteral("active")}};
    reader.setQueues({spec});
    QSignalSpy read(&reader, &JobQueuesReader::queuesAvailable);
    reader.refresh();
    QVERIFY(read.wait(10000));
    const QList<JobQueueInfo> queues = read.first().first().value<QList<JobQueueInfo>>();
    QCOMPARE(queues.size(), 1);
    const JobQueueInfo &q = queues.first();
    QCOMPARE(q.active.size(), 3);
    QHash<QByteArray, ActiveJob> byId;
    for (const ActiveJob &a : q.active)
        byId.insert(a.id, a);
    QVERIFY(byId.value("1").longRunning);
    QVERIFY(!byId.value("1").stalled);
    QVERIFY2(byId.value("1").why.contains(QStringLiteral("lock's duration")), qPrintable(byId.value("1").why));
    QVERIFY(!byId.value("2").longRunning);
    QVERIFY(!byId.value("2").stalled);
    QVERIFY(byId.value("3").stalled);
    QVERIFY(!byId.value("3").longRunning);
    QCOMPARE(q.longRunning(), 1);
    QCOMPARE(q.stalled, QList<QByteArray>{"3"});
    QVERIFY2(q.problems().contains(QStringLiteral("1 running far past their lock's duration")),
             qPrintable(q.problems()));
    bool flagged = false;
    for (const QJsonValue a : jobqueues::toJson(q).value(QStringLiteral("active")).toArray())
        flagged |= a.toObject().value(QStringLiteral("long_running")).toBool();
    QVERIFY(flagged);

    // Without the stalled job the queue is a warning, not an error.
    server.command({"LREM", "bull:img:active", "0", "3"});
    read.clear();
    reader.refresh();
    QVERIFY(read.wait(10000));
    QCOMPARE(read.first().first().value<QList<JobQueueInfo>>().first().severity(), Severity::Warning);
}

QTEST_GUILESS_MAIN(TestJobQueues)
#include "tst_jobqueues.moc"
