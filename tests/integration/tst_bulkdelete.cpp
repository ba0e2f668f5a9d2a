// SPDX-License-Identifier: GPL-3.0-or-later
// Bulk delete by pattern on a real server: the count writes nothing, the delete removes exactly
// the matching keys (binary names too) in UNLINK batches, a cancelled run leaves a consistent
// keyspace and says how far it got, an ACL denial and a dead server stop it with the reason.
#include "bulkdelete.h"
#include "commandstats.h"
#include "keyscanner.h"
#include "testserver.h"

#include <QSignalSpy>
#include <QTest>

class TestBulkDelete : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void countWritesNothing();
    void deleteRemovesExactlyTheMatches();
    void cancelLeavesAConsistentKeyspace();
    void refusals();
    void aclDenialStopsWithTheReason();
    void deadServerStopsTheRun();

private:
    static BulkDeleteReport waitForFinish(BulkDelete &bulk, int timeoutMs = 30000);
    // 20,000 keys under 'prefix' on 'server', and a delete of them held to 2,000 commands a
    // second, so that the test can act mid-way: returned once the first UNLINK was answered.
    struct PacedRun
    {
        std::unique_ptr<RedisClient> client;
        std::unique_ptr<BulkDelete> bulk;
        std::unique_ptr<QSignalSpy> removed;
    };
    static PacedRun startPacedDelete(TestServer &server, const QByteArray &prefix);

    TestServer m_server;
    const QByteArray m_binary{"sess:\x00\xff\r\n", 9};
};

void TestBulkDelete::initTestCase()
{
    QString error;
    QVERIFY2(m_server.start(&error), qPrintable(error));
}

void TestBulkDelete::init()
{
    m_server.flushAll();
    QList<QList<QByteArray>> writes;
    for (int i = 0; i < 3000; ++i)
        writes.append({"SET", "sess:" + QByteArray::number(i), "v"});
    for (int i = 0; i < 200; ++i)
        writes.append({"HSET", "sess:h:" + QByteArray::number(i), "f", "v"});
    for (int i = 0; i < 500; ++i)
        writes.append({"SET", "keep:" + QByteArray::number(i), QByteArray::number(i)});
    writes.append({"SET", m_binary, "binary"});
    writes.append({"SET", "session", "not a match: no colon"});
    m_server.pipeline(writes);
}

BulkDeleteReport TestBulkDelete::waitForFinish(BulkDelete &bulk, int timeoutMs)
{
    QSignalSpy finished(&bulk, &BulkDelete::finished);
    if (bulk.isRunning() && !finished.wait(timeoutMs))
        return {};
    return bulk.report();
}

TestBulkDelete::PacedRun TestBulkDelete::startPacedDelete(TestServer &server, const QByteArray &prefix)
{
    QList<QList<QByteArray>> writes;
    for (int i = 0; i < 20000; ++i)
        writes.append({"SET", prefix + QByteArray::number(i), "v"});
    server.pipeline(writes);
    PacedRun run;
    run.client = connectedClient(server.profile());
    if (!run.client)
        return {};
    run.bulk = std::make_unique<BulkDelete>(run.client.get());
    run.bulk->setScanRate(2000);
    run.removed = std::make_unique<QSignalSpy>(run.bulk.get(), &BulkDelete::keysRemoved);
    if (!run.bulk->remove(prefix + '*') || !run.removed->wait(10000))
        return {};
    return run;
}

void TestBulkDelete::countWritesNothing()
{
    RawConnection raw(m_server.port());
    const QList<QByteArray> truth = raw.scan("sess:*");
    QCOMPARE(truth.size(), 3201);
    const QByteArray digest = raw.command({"DEBUG", "DIGEST"}).bytes();
    const qint64 writes = commandCalls(raw, {"unlink", "del"});
    auto client = connectedClient(m_server.profile());
    QVERIFY(client);
    BulkDelete bulk(client.get());
    QVERIFY(bulk.count("sess:*"));
    const BulkDeleteReport r = waitForFinish(bulk);
    QVERIFY(r.finished);
    QVERIFY2(!r.error, qPrintable(r.error.message));
    QCOMPARE(r.stage, BulkDeleteReport::Stage::Counting);
    QCOMPARE(r.matched, truth.size());
    QCOMPARE(r.byType.value(KeyType::String), 3001);
    QCOMPARE(r.byType.value(KeyType::Hash), 200);
    QCOMPARE(r.deleted, 0);
    QVERIFY(r.namesComplete);
    QCOMPARE(QSet<QByteArray>(r.names.cbegin(), r.names.cend()), QSet<QByteArray>(truth.cbegin(), truth.cend()));
    QVERIFY2(r.summary().contains(QLatin1String("3,201 keys match")), qPrintable(r.summary()));
    QCOMPARE(raw.command({"DEBUG", "DIGEST"}).bytes(), digest);
    QCOMPARE(commandCalls(raw, {"unlink", "del"}), writes);
}

void TestBulkDelete::deleteRemovesExactlyTheMatches()
{
    RawConnection raw(m_server.port());
    const QList<QByteArray> keep = raw.scan("keep:*");
    QList<QList<QByteArray>> digests;
    for (const QByteArray &k : keep)
        digests.append({"DEBUG", "DIGEST-VALUE", k});
    const QList<RedisValue> before = raw.pipeline(digests);
    const qint64 unlinks = commandCalls(raw, {"unlink"});
    auto client = connectedClient(m_server.profile());
    QVERIFY(client);
    BulkDelete bulk(client.get());
    bulk.setScanRate(0);
    qint64 removed = 0;
    connect(&bulk, &BulkDelete::keysRemoved, this, [&](const QList<QByteArray> &keys) {
        QVERIFY(keys.size() <= BulkDelete::kUnlinkBatch);
        removed += keys.size();
    });
    QVERIFY(bulk.remove("sess:*"));
    const BulkDeleteReport r = waitForFinish(bulk);
    QVERIFY(r.finished);
    QVERIFY2(!r.error, qPrintable(r.error.message));
    QCOMPARE(r.deleted, 3201);
    QCOMPARE(r.matched, 3201);
    QCOMPARE(removed, 3201);
    QVERIFY(raw.scan("sess:*").isEmpty());
    QCOMPARE(raw.command({"EXISTS", m_binary}).toInteger(), 0);
    QCOMPARE(raw.command({"GET", "session"}).bytes(), QByteArray("not a match: no colon"));
    QCOMPARE(raw.pipeline(digests), before);
    // In batches: at least 3201 / 500 UNLINK commands, and not one a key.
    const qint64 sent = commandCalls(raw, {"unlink"}) - unlinks;
    QVERIFY2(sent >= 7 && sent < 3201 / 10, qPrintable(QString::number(sent)));
    QVERIFY2(r.summary().contains(QLatin1String("3,201 keys deleted")), qPrintable(r.summary()));
}

// Cancelled mid-way (the scan held to 2,000 commands a second, so it is mid-way): what was
// deleted is what is missing, nothing else, and the report says it was cancelled.
void TestBulkDelete::cancelLeavesAConsistentKeyspace()
{
    const PacedRun run = startPacedDelete(m_server, "bulk:");
    QVERIFY(run.bulk);
    BulkDelete &bulk = *run.bulk;
    QSignalSpy &removed = *run.removed;
    QVERIFY(!bulk.remove("bulk:*")); // one run at a time
    bulk.cancel();
    const BulkDeleteReport r = waitForFinish(bulk);
    QVERIFY(r.finished);
    QVERIFY(r.cancelled);
    QVERIFY2(!r.error, qPrintable(r.error.message));
    RawConnection raw(m_server.port());
    const qsizetype left = raw.scan("bulk:*").size();
    QVERIFY2(left > 0, "the run was not stopped mid-way");
    QCOMPARE(r.deleted, 20000 - left);
    QCOMPARE(raw.scan("sess:*").size(), 3201);
    QVERIFY2(r.summary().contains(QLatin1String("cancelled")), qPrintable(r.summary()));
    // The keys were reported as they went: after the finish nothing more is removed.
    const qsizetype reported = removed.size();
    QTest::qWait(300);
    QCOMPARE(removed.size(), reported);
}

void TestBulkDelete::refusals()
{
    RawConnection raw(m_server.port());
    const qint64 writes = commandCalls(raw, {"unlink", "del"});
    {
        ConnectionProfile p = m_server.profile();
        p.readOnly = true;
        auto client = connectedClient(p);
        QVERIFY(client);
        BulkDelete bulk(client.get());
        QSignalSpy finished(&bulk, &BulkDelete::finished);
        QVERIFY(!bulk.remove("sess:*"));
        QCOMPARE(finished.size(), 1);
        QVERIFY2(bulk.report().error.message.contains(QLatin1String("read-only")),
                 qPrintable(bulk.report().error.message));
        // Counting is a read: it works on a read-only connection.
        QVERIFY(bulk.count("sess:*"));
        QCOMPARE(waitForFinish(bulk).matched, 3201);
    }
    auto client = connectedClient(m_server.profile());
    QVERIFY(client);
    BulkDelete bulk(client.get());
    for (const QByteArray &every : {QByteArray("*"), QByteArray("**"), QByteArray()}) {
        QVERIFY(!bulk.remove(every));
        QVERIFY2(bulk.report().error.message.contains(QLatin1String("Empty database")),
                 qPrintable(bulk.report().error.message));
        QVERIFY(!bulk.count(every));
    }
    QVERIFY(BulkDelete::matchesEverything("***"));
    QVERIFY(!BulkDelete::matchesEverything("*:*"));
    QVERIFY(!BulkDelete::matchesEverything("\\*"));
    QCOMPARE(commandCalls(raw, {"unlink", "del"}), writes);
    QCOMPARE(raw.command({"DBSIZE"}).toInteger(), 3702);
}

// A user who may read but not UNLINK: the count works; the delete stops at the first UNLINK with
// the server's NOPERM, deleting nothing.
void TestBulkDelete::aclDenialStopsWithTheReason()
{
    QCOMPARE(m_server.command({"ACL", "SETUSER", "looker", "reset", "on", ">pw", "~*", "+@all", "-unlink", "-del"}),
             RedisValue::status("OK"));
    ConnectionProfile p = m_server.profile();
    p.username = QStringLiteral("looker");
    p.password = QStringLiteral("pw");
    auto client = connectedClient(p);
    QVERIFY(client);
    BulkDelete bulk(client.get());
    QVERIFY(bulk.remove("sess:*"));
    const BulkDeleteReport r = waitForFinish(bulk);
    QVERIFY(r.finished);
    QCOMPARE(r.error.kind, RedisError::Kind::NoPerm);
    QVERIFY2(r.summary().contains(QLatin1String("stopped")), qPrintable(r.summary()));
    QVERIFY2(r.error.message.contains(QLatin1String("unlink"), Qt::CaseInsensitive), qPrintable(r.error.message));
    QCOMPARE(r.deleted, 0);
    QCOMPARE(m_server.command({"DBSIZE"}).toInteger(), 3702);
    m_server.command({"ACL", "DELUSER", "looker"});
}

// The server dies mid-delete: the run stops with the connection's reason instead of resuming on
// a server that may have changed; what was deleted before is counted.
void TestBulkDelete::deadServerStopsTheRun()
{
    TestServer own;
    QString error;
    QVERIFY2(own.start(&error), qPrintable(error));
    const PacedRun run = startPacedDelete(own, "gone:");
    QVERIFY(run.bulk);
    BulkDelete &bulk = *run.bulk;
    own.server().kill();
    const BulkDeleteReport r = waitForFinish(bulk);
    QVERIFY(r.finished);
    QVERIFY(r.error);
    QVERIFY2(r.error.isConnectionLevel(), qPrintable(r.error.message));
    QVERIFY(r.deleted > 0 && r.deleted < 20000);
    QVERIFY2(r.summary().contains(QLatin1String("stopped")), qPrintable(r.summary()));
}

QTEST_MAIN(TestBulkDelete)
#include "tst_bulkdelete.moc"
