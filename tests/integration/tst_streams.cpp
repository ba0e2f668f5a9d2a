// SPDX-License-Identifier: GPL-3.0-or-later
#include "redisclient.h"
#include "scriptlibrary.h"
#include "streamactions.h"
#include "streamsreader.h"
#include "testserver.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

#include <memory>

// The streams reader and actions against a real server. Every pending page is compared with
// the server's own XPENDING read on an independent connection; every action is checked to
// change exactly what it says and nothing on a read-only connection.
namespace {

constexpr int kWaitMs = 30000;
const QByteArray kStream = "orders";
const QByteArray kGroup = "billing";
const QByteArray kJobs = "jobs";

QList<PendingEntry> pendingOf(const RedisValue &v)
{
    QList<PendingEntry> out;
    streaminfo::parsePending(v, &out);
    return out;
}

QByteArray describe(const QList<PendingEntry> &rows)
{
    QByteArray out;
    for (const PendingEntry &e : rows)
        out += e.id + '/' + e.consumer + '/' + QByteArray::number(e.deliveries) + ' ';
    return out;
}

// Idle times move on while a test runs: compare everything else, and idle within a margin.
bool samePending(const QList<PendingEntry> &a, const QList<PendingEntry> &b)
{
    if (a.size() != b.size())
        return false;
    for (int i = 0; i < a.size(); ++i) {
        if (a.at(i).id != b.at(i).id || a.at(i).consumer != b.at(i).consumer || a.at(i).deliveries != b.at(i).deliveries
            || qAbs(a.at(i).idleMs - b.at(i).idleMs) > 20000)
            return false;
    }
    return true;
}

// The reader with the models a panel feeds from it.
struct Fed
{
    explicit Fed(RedisClient *client) : reader(client)
    {
        QObject::connect(&reader, &StreamsReader::streamsListed, &streams, &StreamsModel::setRows);
        QObject::connect(&reader, &StreamsReader::streamsAvailable, &streams, &StreamsModel::setRows);
        QObject::connect(&reader, &StreamsReader::lengthsSampled, &streams, &StreamsModel::setRows);
        QObject::connect(&reader, &StreamsReader::streamOpened, &groups, [this] {
            groups.clear();
            consumers.clear();
            pending.clear();
            entries.clear();
        });
        QObject::connect(&reader, &StreamsReader::groupOpened, &groups, [this] {
            consumers.clear();
            pending.clear();
        });
        QObject::connect(&reader, &StreamsReader::groupsAvailable, &groups,
                         [this](const QByteArray &, const QList<StreamGroupInfo> &rows) { groups.setRows(rows); });
        QObject::connect(&reader, &StreamsReader::consumersAvailable, &consumers, &StreamConsumersModel::setRows);
        QObject::connect(&reader, &StreamsReader::pendingPageAvailable, &pending,
                         [this](const QList<PendingEntry> &rows) {
                             pending.setDeleted({});
                             pending.setRows(rows);
                         });
        QObject::connect(&reader, &StreamsReader::deletedPendingAvailable, &pending, &PendingModel::setDeleted);
        QObject::connect(&reader, &StreamsReader::entriesAvailable, &entries, &StreamEntriesModel::setRows);
    }
    StreamsReader reader;
    StreamsModel streams;
    StreamGroupsModel groups;
    StreamConsumersModel consumers;
    PendingModel pending;
    StreamEntriesModel entries;
};

} // namespace

class TestStreams : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;
    std::unique_ptr<RedisClient> m_client;
    QList<QByteArray> m_ids; // of kStream, oldest first
    QList<QByteArray> m_deleted; // XDEL'd while pending
    QList<QByteArray> m_poison; // delivery count 7

    QList<PendingEntry> serverPending(const QByteArray &key = kStream, const QByteArray &group = kGroup)
    {
        return pendingOf(m_server.command({"XPENDING", key, group, "-", "+", "100000"}));
    }

    static StreamActionResult runAction(StreamActions &actions, const std::function<bool()> &start)
    {
        QSignalSpy finished(&actions, &StreamActions::finished);
        const bool started = start();
        if (started && finished.isEmpty() && !finished.wait(kWaitMs))
            return {};
        if (finished.isEmpty())
            return {};
        return finished.first().first().value<StreamActionResult>();
    }

    static bool openGroup(Fed &fed, const QByteArray &key, const QByteArray &group)
    {
        StreamsReader &reader = fed.reader;
        QSignalSpy groups(&reader, &StreamsReader::groupsAvailable);
        reader.openStream(key);
        if (!groups.wait(kWaitMs))
            return false;
        QSignalSpy page(&reader, &StreamsReader::pendingPageAvailable);
        QSignalSpy summary(&reader, &StreamsReader::summaryAvailable);
        reader.openGroup(group);
        return page.wait(kWaitMs) && (!summary.isEmpty() || summary.wait(kWaitMs));
    }

    // All pages, following nextPendingPage(); each page is checked against the same XPENDING.
    QList<PendingEntry> allPages(Fed &fed, int *pages)
    {
        StreamsReader &reader = fed.reader;
        QList<PendingEntry> all = fed.pending.rows();
        *pages = 1;
        while (reader.hasNextPage()) {
            QSignalSpy page(&reader, &StreamsReader::pendingPageAvailable);
            reader.nextPendingPage();
            if (!page.wait(kWaitMs))
                return {};
            all.append(fed.pending.rows());
            ++*pages;
        }
        return all;
    }

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<StreamActionResult>();
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        m_client = connectedClient(m_server.profile());
        QVERIFY(m_client);
    }

    void cleanupTestCase() { m_client.reset(); }

    // 40 entries; alice reads 20, bob 20; 6 get a long idle time and 3 of them 7 deliveries;
    // 4 acknowledged; 2 deleted from the stream while pending. 36 pending in the end.
    void init()
    {
        m_server.flushAll();
        m_server.command({"SCRIPT", "FLUSH"});
        m_ids.clear();
        for (int i = 0; i < 40; ++i)
            m_ids.append(m_server
                             .command({"XADD", kStream, "*", "order", QByteArray::number(1000 + i), "amount",
                                       QByteArray::number(i * 3)})
                             .bytes());
        QCOMPARE(m_server.command({"XGROUP", "CREATE", kStream, kGroup, "0"}).bytes(), QByteArray("OK"));
        m_server.command({"XREADGROUP", "GROUP", kGroup, "alice", "COUNT", "20", "STREAMS", kStream, ">"});
        m_server.command({"XREADGROUP", "GROUP", kGroup, "bob", "COUNT", "20", "STREAMS", kStream, ">"});
        // Ten minutes idle for three of alice's and three of bob's; those of bob's delivered 7 times.
        m_server.command({"XCLAIM", kStream, kGroup, "alice", "0", m_ids.at(1), m_ids.at(2), m_ids.at(3), "IDLE",
                          "600000", "JUSTID"});
        m_poison = {m_ids.at(21), m_ids.at(22), m_ids.at(23)};
        m_server.command({"XCLAIM", kStream, kGroup, "bob", "0", m_ids.at(21), m_ids.at(22), m_ids.at(23), "IDLE",
                          "600000", "RETRYCOUNT", "7", "JUSTID"});
        QCOMPARE(m_server.command({"XACK", kStream, kGroup, m_ids.at(5), m_ids.at(6), m_ids.at(30), m_ids.at(31)})
                     .toInteger(),
                 qint64(4));
        m_deleted = {m_ids.at(10), m_ids.at(25)};
        QCOMPARE(m_server.command({"XDEL", kStream, m_deleted.at(0), m_deleted.at(1)}).toInteger(), qint64(2));
        QCOMPARE(serverPending().size(), 36);
    }

    void streamsListMatchesXinfo()
    {
        m_server.command({"SET", "notastream", "x"});
        Fed fed(m_client.get());
        StreamsReader &reader = fed.reader;
        QAbstractItemModelTester tester(&fed.streams, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy spy(&reader, &StreamsReader::streamsAvailable);
        reader.setStreams({kStream, "notastream"});
        QVERIFY(spy.wait(kWaitMs));
        StreamsModel *m = &fed.streams;
        QCOMPARE(m->rowCount(), 2);
        StreamInfo direct;
        QVERIFY(streaminfo::parseStream(m_server.command({"XINFO", "STREAM", kStream}), &direct));
        const StreamRow &row = m->rows().at(0);
        QVERIFY(row.loaded);
        QCOMPARE(row.info.length, direct.length);
        QCOMPARE(row.info.length, qint64(38));
        QCOMPARE(row.info.firstEntry.id, m_ids.first());
        QCOMPARE(row.info.lastEntry.id, m_ids.last());
        QCOMPARE(row.info.groups, qint64(1));
        QCOMPARE(row.info.entriesAdded.value_or(-1), qint64(40)); // the local server is 7.0
        QCOMPARE(row.info.maxDeletedEntryId, m_deleted.last());
        QVERIFY(!row.onlyGrows()); // entries were deleted
        QVERIFY(!m->rows().at(1).error.isEmpty());
        QVERIFY(m->rows().at(1).error.contains(QLatin1String("WRONGTYPE")));

        // Samples: two equal lengths but deletions on record -> not "only grows"; a fresh stream
        // that was never trimmed is.
        m_server.command({"XADD", "fresh", "*", "a", "1"});
        reader.setStreams({kStream, "fresh"});
        QVERIFY(spy.wait(kWaitMs));
        QSignalSpy sampled(&reader, &StreamsReader::lengthsSampled);
        reader.sampleLengths();
        QVERIFY(sampled.wait(kWaitMs));
        m_server.command({"XADD", "fresh", "*", "a", "2"});
        reader.sampleLengths();
        QVERIFY(sampled.wait(kWaitMs));
        QCOMPARE(m->rows().at(1).samples.size(), 2);
        QCOMPARE(m->rows().at(1).samples.last().second, qint64(2));
        QVERIFY(m->rows().at(1).onlyGrows());
        QVERIFY(!m->rows().at(0).onlyGrows());
    }

    void groupsAndConsumers()
    {
        Fed fed(m_client.get());
        StreamsReader &reader = fed.reader;
        QAbstractItemModelTester t1(&fed.groups, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&fed.consumers, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(openGroup(fed, kStream, kGroup));
        QTRY_COMPARE_WITH_TIMEOUT(fed.consumers.rowCount(), 2, kWaitMs);
        QList<StreamGroupInfo> groups;
        QVERIFY(streaminfo::parseGroups(m_server.command({"XINFO", "GROUPS", kStream}), &groups));
        QCOMPARE(fed.groups.rowCount(), 1);
        const StreamGroupInfo &g = fed.groups.rows().at(0);
        QCOMPARE(g.name, kGroup);
        QCOMPARE(g.pending, qint64(36));
        QCOMPARE(g.consumers, qint64(2));
        QCOMPARE(g.lastDeliveredId, m_ids.last());
        QCOMPARE(g.entriesRead, groups.first().entriesRead);
        QVERIFY(g.lagKnown); // 7.0 reports lag (here nil or a number, as the server says)
        QCOMPARE(g.lag, groups.first().lag);
        QCOMPARE(fed.consumers.rows().at(0).name, QByteArray("alice"));
        QCOMPARE(fed.consumers.rows().at(0).pending, qint64(18)); // 20 - 2 acked
        QCOMPARE(fed.consumers.rows().at(1).pending, qint64(18));
        QCOMPARE(reader.summary().count, qint64(36));
        QCOMPARE(reader.summary().minId, m_ids.first());
    }

    void pendingPagesMatchServer_data()
    {
        QTest::addColumn<int>("pageSize");
        QTest::addColumn<QString>("version");
        QTest::newRow("7 per page") << 7 << QString();
        QTest::newRow("7 per page as 6.0") << 7 << QStringLiteral("6.0.16");
        QTest::newRow("36 per page") << 36 << QString();
        QTest::newRow("100 per page") << 100 << QString();
    }
    void pendingPagesMatchServer()
    {
        QFETCH(int, pageSize);
        QFETCH(QString, version);
        Fed fed(m_client.get());
        StreamsReader &reader = fed.reader;
        if (!version.isEmpty())
            reader.overrideServerVersion(QVersionNumber::fromString(version));
        QAbstractItemModelTester tester(&fed.pending, QAbstractItemModelTester::FailureReportingMode::QtTest);
        reader.setPageSize(pageSize);
        QVERIFY(openGroup(fed, kStream, kGroup));
        // The first page is exactly what the same XPENDING returns.
        QVERIFY(samePending(
            fed.pending.rows(),
            pendingOf(m_server.command({"XPENDING", kStream, kGroup, "-", "+", QByteArray::number(pageSize)}))));
        int pages = 0;
        const QList<PendingEntry> all = allPages(fed, &pages);
        const QList<PendingEntry> direct = serverPending();
        QVERIFY2(samePending(all, direct), QByteArray(describe(all) + "\n" + describe(direct)).constData());
        QCOMPARE(pages, 36 / pageSize + 1);
        // Deleted-but-pending rows are marked once their XRANGE answers (first page has m_ids[10]
        // only with a big page; check on a fresh first page).
        reader.firstPendingPage();
        QTRY_VERIFY_WITH_TIMEOUT(reader.pageNumber() == 1, kWaitMs);
        PendingModel *m = &fed.pending;
        for (int row = 0; row < m->rowCount(); ++row) {
            const bool shouldBeDeleted = m_deleted.contains(m->rows().at(row).id);
            QTRY_COMPARE_WITH_TIMEOUT(m->isDeleted(row), shouldBeDeleted, kWaitMs);
            QCOMPARE(m->isPoison(row), m_poison.contains(m->rows().at(row).id));
        }
        // Previous page after two pages is the first again.
        if (reader.hasNextPage()) {
            QSignalSpy page(&reader, &StreamsReader::pendingPageAvailable);
            reader.nextPendingPage();
            QVERIFY(page.wait(kWaitMs));
            if (m->rowCount() == 0) // the page after a full last page is empty
                return;
            const QByteArray secondFirst = m->rows().at(0).id;
            reader.previousPendingPage();
            QVERIFY(page.wait(kWaitMs));
            QCOMPARE(m->rows().at(0).id, m_ids.first());
            QVERIFY(secondFirst != m_ids.first());
        }
    }

    void pendingFilters_data()
    {
        QTest::addColumn<qint64>("minIdle");
        QTest::addColumn<QByteArray>("consumer");
        QTest::addColumn<qint64>("minDeliveries");
        QTest::addColumn<QString>("version");
        QTest::addColumn<int>("expected");
        QTest::newRow("idle 5 min") << qint64(300000) << QByteArray() << qint64(0) << QString() << 6;
        QTest::newRow("idle 5 min as 6.0")
            << qint64(300000) << QByteArray() << qint64(0) << QStringLiteral("6.0.16") << 6;
        QTest::newRow("bob") << qint64(0) << QByteArray("bob") << qint64(0) << QString() << 18;
        QTest::newRow("bob idle") << qint64(300000) << QByteArray("bob") << qint64(0) << QString() << 3;
        QTest::newRow("delivered 5+") << qint64(0) << QByteArray() << qint64(5) << QString() << 3;
        QTest::newRow("nobody") << qint64(0) << QByteArray("carol") << qint64(0) << QString() << 0;
    }
    void pendingFilters()
    {
        QFETCH(qint64, minIdle);
        QFETCH(QByteArray, consumer);
        QFETCH(qint64, minDeliveries);
        QFETCH(QString, version);
        QFETCH(int, expected);
        Fed fed(m_client.get());
        StreamsReader &reader = fed.reader;
        if (!version.isEmpty())
            reader.overrideServerVersion(QVersionNumber::fromString(version));
        reader.setPageSize(5);
        QVERIFY(openGroup(fed, kStream, kGroup));
        QSignalSpy page(&reader, &StreamsReader::pendingPageAvailable);
        reader.setPendingFilter({minIdle, consumer, minDeliveries});
        QVERIFY(page.wait(kWaitMs));
        int pages = 0;
        const QList<PendingEntry> all = allPages(fed, &pages);
        // The server's answer, filtered the way the filter says.
        QList<PendingEntry> direct;
        for (const PendingEntry &e : serverPending()) {
            if (e.idleMs >= minIdle && (consumer.isEmpty() || e.consumer == consumer) && e.deliveries >= minDeliveries)
                direct.append(e);
        }
        QVERIFY2(samePending(all, direct), QByteArray(describe(all) + "\n" + describe(direct)).constData());
        QCOMPARE(all.size(), expected);
    }

    void entryFieldsAndDeleted()
    {
        Fed fed(m_client.get());
        StreamsReader &reader = fed.reader;
        QVERIFY(openGroup(fed, kStream, kGroup));
        QSignalSpy loaded(&reader, &StreamsReader::entryLoaded);
        reader.loadEntry(m_ids.at(3));
        QVERIFY(loaded.wait(kWaitMs));
        auto entry = loaded.last().at(1).value<StreamEntry>();
        QCOMPARE(entry.id, m_ids.at(3));
        QCOMPARE(entry.fields, (QList<QByteArray>{"order", "1003", "amount", "9"}));
        reader.loadEntry(m_deleted.first());
        QVERIFY(loaded.wait(kWaitMs));
        QVERIFY(loaded.last().at(1).value<StreamEntry>().isNull());
        QCOMPARE(loaded.last().at(0).toByteArray(), m_deleted.first());
    }

    void entriesBrowser_data()
    {
        QTest::addColumn<QString>("version");
        QTest::newRow("7.0") << QString();
        QTest::newRow("as 6.0") << QStringLiteral("6.0.16");
    }
    void entriesBrowser()
    {
        QFETCH(QString, version);
        Fed fed(m_client.get());
        StreamsReader &reader = fed.reader;
        if (!version.isEmpty())
            reader.overrideServerVersion(QVersionNumber::fromString(version));
        QAbstractItemModelTester tester(&fed.entries, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy groups(&reader, &StreamsReader::groupsAvailable);
        reader.openStream(kStream);
        QVERIFY(groups.wait(kWaitMs));
        QSignalSpy spy(&reader, &StreamsReader::entriesAvailable);
        QList<StreamEntry> seen;
        reader.browseEntries("+", 10);
        while (spy.wait(kWaitMs)) {
            if (fed.entries.rowCount() == 0)
                break;
            seen.append(fed.entries.rows());
            reader.nextEntries(10);
        }
        QList<StreamEntry> direct;
        QVERIFY(streaminfo::parseEntries(m_server.command({"XREVRANGE", kStream, "+", "-"}), &direct));
        QCOMPARE(seen.size(), direct.size());
        for (int i = 0; i < seen.size(); ++i) {
            QCOMPARE(seen.at(i).id, direct.at(i).id);
            QCOMPARE(seen.at(i).fields, direct.at(i).fields);
        }
        // Jump to a time: the entry of that millisecond or the newest before it comes first.
        const qint64 ms = streamid::milliseconds(m_ids.at(12));
        reader.browseFromTime(ms, 5);
        QVERIFY(spy.wait(kWaitMs));
        QVERIFY(fed.entries.rowCount() > 0);
        QVERIFY(streamid::milliseconds(fed.entries.rows().at(0).id) <= ms);
        QVERIFY(!streamid::less(fed.entries.rows().at(0).id, m_ids.at(12)));
    }

    void claimChangesOnlyThose()
    {
        StreamActions actions(m_client.get());
        const QList<PendingEntry> before = serverPending();
        const QList<QByteArray> ids{m_ids.at(0), m_ids.at(24)};
        const auto r = runAction(actions, [&] { return actions.claim(kStream, kGroup, ids, "carol"); });
        QVERIFY2(r.ok, qPrintable(r.message));
        QCOMPARE(r.count, qint64(2));
        const QList<PendingEntry> after = serverPending();
        QCOMPARE(after.size(), before.size());
        for (int i = 0; i < after.size(); ++i) {
            QCOMPARE(after.at(i).id, before.at(i).id);
            if (ids.contains(after.at(i).id)) {
                QCOMPARE(after.at(i).consumer, QByteArray("carol"));
                QCOMPARE(after.at(i).deliveries, before.at(i).deliveries + 1);
            } else {
                QCOMPARE(after.at(i).consumer, before.at(i).consumer);
                QCOMPARE(after.at(i).deliveries, before.at(i).deliveries);
            }
        }
        QCOMPARE(m_server.command({"XLEN", kStream}).toInteger(), qint64(38));
    }

    void ackChangesOnlyThose()
    {
        StreamActions actions(m_client.get());
        const QList<PendingEntry> before = serverPending();
        const QList<QByteArray> ids{m_ids.at(1), m_ids.at(20), m_deleted.first()};
        const auto r = runAction(actions, [&] { return actions.ack(kStream, kGroup, ids); });
        QVERIFY2(r.ok, qPrintable(r.message));
        QCOMPARE(r.count, qint64(3));
        QList<PendingEntry> expected;
        for (const PendingEntry &e : before) {
            if (!ids.contains(e.id))
                expected.append(e);
        }
        QVERIFY(samePending(serverPending(), expected));
        QCOMPARE(m_server.command({"XLEN", kStream}).toInteger(), qint64(38));
    }

    void trimRemovesWholeNodes()
    {
        QList<QList<QByteArray>> cmds;
        for (int i = 0; i < 1000; ++i)
            cmds.append({"XADD", "big", "*", "n", QByteArray::number(i)});
        m_server.pipeline(cmds);
        StreamActions actions(m_client.get());
        const QList<PendingEntry> before = serverPending();
        const auto r = runAction(actions, [&] { return actions.trim("big", 100); });
        QVERIFY2(r.ok, qPrintable(r.message));
        QVERIFY(r.count > 0);
        const qint64 len = m_server.command({"XLEN", "big"}).toInteger();
        QCOMPARE(len, 1000 - r.count);
        QVERIFY(len >= 100);
        QVERIFY(samePending(serverPending(), before)); // other streams untouched
        QCOMPARE(m_server.command({"XLEN", kStream}).toInteger(), qint64(38));
    }

    void deadLetterCopiesAndAcks()
    {
        const ScriptInfo *script = ScriptLibrary::instance().find(QStringLiteral("stream_dead_letter"));
        QVERIFY(script);
        StreamActions actions(m_client.get());
        actions.setDeadLetterScript(script->source, script->sha1);
        const QList<PendingEntry> before = serverPending();
        const QList<QByteArray> ids{m_poison.at(0), m_poison.at(1)};
        // The script cache is empty (init flushed it): the first EVALSHA meets NOSCRIPT.
        const auto r = runAction(actions, [&] {
            return actions.deadLetter(kStream, kGroup, ids, StreamActions::defaultDeadKey(kStream), "poison");
        });
        QVERIFY2(r.ok, qPrintable(r.message));
        QCOMPARE(r.count, qint64(2));
        QList<StreamEntry> dead;
        QVERIFY(streaminfo::parseEntries(m_server.command({"XRANGE", "orders:dead", "-", "+"}), &dead));
        QCOMPARE(dead.size(), 2);
        for (int i = 0; i < 2; ++i) {
            const QList<QByteArray> &f = dead.at(i).fields;
            QCOMPARE(f.at(0), QByteArray("dead_source_id"));
            QCOMPARE(f.at(1), ids.at(i));
            QVERIFY(f.contains("poison"));
            QCOMPARE(f.at(f.indexOf("dead_deliveries") + 1), QByteArray("7"));
            QCOMPARE(
                f.mid(8),
                (QList<QByteArray>{"order", QByteArray::number(1021 + i), "amount", QByteArray::number((21 + i) * 3)}));
        }
        QList<PendingEntry> expected;
        for (const PendingEntry &e : before) {
            if (!ids.contains(e.id))
                expected.append(e);
        }
        QVERIFY(samePending(serverPending(), expected));
        QCOMPARE(m_server.command({"XLEN", kStream}).toInteger(), qint64(38)); // copied, not removed
    }

    // Redis does not roll a script back when a command fails after an earlier write. The script
    // is safe because every check comes first and the copy (XADD) is the first write: when it
    // fails, nothing has been written; the XACK after it cannot fail, the entry was just seen
    // pending. A dead key of the wrong type makes the XADD fail in the middle of the script.
    void deadLetterFailureInTheMiddleLeavesNothing_data()
    {
        QTest::addColumn<int>("failingIndex"); // in m_ids
        QTest::addColumn<QByteArray>("deadValue"); // empty: no dead key before
        QTest::addColumn<QString>("expectedError");
        QTest::newRow("dead key is a string") << 21 << QByteArray("occupied") << QStringLiteral("WRONGTYPE");
        QTest::newRow("entry deleted") << 10 << QByteArray() << QStringLiteral("NOENTRY");
        QTest::newRow("entry acknowledged") << 5 << QByteArray() << QStringLiteral("NOTPENDING");
    }
    void deadLetterFailureInTheMiddleLeavesNothing()
    {
        QFETCH(int, failingIndex);
        QFETCH(QByteArray, deadValue);
        QFETCH(QString, expectedError);
        const ScriptInfo *script = ScriptLibrary::instance().find(QStringLiteral("stream_dead_letter"));
        QVERIFY(script);
        if (!deadValue.isEmpty())
            m_server.command({"SET", "orders:dead", deadValue});
        StreamActions actions(m_client.get());
        actions.setDeadLetterScript(script->source, script->sha1);
        const QList<PendingEntry> before = serverPending();
        const QList<QByteArray> ids{m_ids.at(failingIndex)};
        const auto r = runAction(actions, [&] { return actions.deadLetter(kStream, kGroup, ids, {}, "test"); });
        QVERIFY(!r.ok);
        QCOMPARE(r.count, qint64(0));
        QCOMPARE(r.failedIds, ids);
        QVERIFY2(r.message.contains(expectedError), qPrintable(r.message));
        QVERIFY(samePending(serverPending(), before)); // still pending, same delivery count
        if (deadValue.isEmpty())
            QCOMPARE(m_server.command({"EXISTS", "orders:dead"}).toInteger(), qint64(0));
        else
            QCOMPARE(m_server.command({"GET", "orders:dead"}).bytes(), deadValue);
        QCOMPARE(m_server.command({"XLEN", kStream}).toInteger(), qint64(38));
    }

    void autoClaimLoopsUntilDone()
    {
        QList<QList<QByteArray>> cmds;
        for (int i = 0; i < 3000; ++i)
            cmds.append({"XADD", kJobs, "*", "job", QByteArray::number(i)});
        m_server.pipeline(cmds);
        m_server.command({"XGROUP", "CREATE", kJobs, "workers", "0"});
        const RedisValue read
            = m_server.command({"XREADGROUP", "GROUP", "workers", "w1", "COUNT", "3000", "STREAMS", kJobs, ">"});
        QCOMPARE(read.at(0).at(1).size(), qsizetype(3000));
        // Five are deleted while pending: 7.0 drops them from the PEL and reports them.
        const QList<PendingEntry> pel = serverPending(kJobs, "workers");
        QList<QByteArray> gone;
        for (int i : {0, 777, 1500, 2222, 2999})
            gone.append(pel.at(i).id);
        m_server.command(QList<QByteArray>{"XDEL", kJobs} + gone);
        // All of them idle longer than 1 ms by the time the loop runs.
        QTRY_VERIFY_WITH_TIMEOUT(serverPending(kJobs, "workers").first().idleMs > 5, kWaitMs);

        StreamActions actions(m_client.get());
        QSignalSpy progress(&actions, &StreamActions::progress);
        const auto r = runAction(actions, [&] { return actions.autoClaim(kJobs, "workers", "w2", 1); });
        QVERIFY2(r.ok, qPrintable(r.message));
        QCOMPARE(r.count, qint64(2995));
        QCOMPARE(r.deletedIds.size(), 5);
        QVERIFY(progress.size() >= 30); // COUNT 100 per call: the loop really looped
        PendingSummary s;
        QVERIFY(streaminfo::parsePendingSummary(m_server.command({"XPENDING", kJobs, "workers"}), &s));
        QCOMPARE(s.count, qint64(2995));
        QCOMPARE(s.perConsumer.size(), 1);
        QCOMPARE(s.perConsumer.first().first, QByteArray("w2"));
    }

    void readOnlyRefusesAndChangesNothing()
    {
        ConnectionProfile profile = m_server.profile();
        profile.readOnly = true;
        RedisClient client(profile);
        client.connectToServer();
        QVERIFY(waitForReady(client));
        const ScriptInfo *script = ScriptLibrary::instance().find(QStringLiteral("stream_dead_letter"));
        QVERIFY(script);
        StreamActions actions(&client);
        actions.setDeadLetterScript(script->source, script->sha1);
        QVERIFY(actions.isReadOnly());
        const QList<PendingEntry> before = serverPending();
        const QList<QByteArray> ids{m_ids.at(0), m_ids.at(21)};
        const QList<std::function<bool()>> attempts{
            [&] { return actions.claim(kStream, kGroup, ids, "carol"); },
            [&] { return actions.autoClaim(kStream, kGroup, "carol", 0); },
            [&] { return actions.ack(kStream, kGroup, ids); },
            [&] { return actions.deadLetter(kStream, kGroup, ids, {}, "x"); },
            [&] { return actions.trim(kStream, 0); },
        };
        for (const auto &attempt : attempts) {
            QSignalSpy finished(&actions, &StreamActions::finished);
            QVERIFY(!attempt());
            QCOMPARE(finished.size(), 1);
            const auto r = finished.first().first().value<StreamActionResult>();
            QVERIFY(!r.ok);
            QVERIFY(r.message.contains(QLatin1String("read-only")));
        }
        // The engine refuses the same commands on its own.
        const RedisReply direct = waitForReply(client, {{"XACK", kStream, kGroup, m_ids.at(0)}});
        QCOMPARE(direct.firstError().kind, RedisError::Kind::ReadOnlyRefused);
        QVERIFY(samePending(serverPending(), before));
        QCOMPARE(m_server.command({"XLEN", kStream}).toInteger(), qint64(38));
        QCOMPARE(m_server.command({"EXISTS", "orders:dead"}).toInteger(), qint64(0));
        // Reading still works on a read-only connection.
        Fed fed(&client);
        StreamsReader &reader = fed.reader;
        QVERIFY(openGroup(fed, kStream, kGroup));
        QCOMPARE(reader.summary().count, qint64(36));
    }

    void oldestPending()
    {
        m_server.command({"XADD", "other", "9999999999999-0", "a", "1"}); // added "later" than orders
        m_server.command({"XGROUP", "CREATE", "other", "g", "0"});
        m_server.command({"XREADGROUP", "GROUP", "g", "c", "STREAMS", "other", ">"});
        Fed fed(m_client.get());
        StreamsReader &reader = fed.reader;
        QSignalSpy spy(&reader, &StreamsReader::streamsAvailable);
        reader.setStreams({"other", kStream});
        QVERIFY(spy.wait(kWaitMs));
        QSignalSpy found(&reader, &StreamsReader::oldestPendingFound);
        reader.findOldestPending();
        QVERIFY(found.wait(kWaitMs));
        QCOMPARE(found.first().at(0).toByteArray(), kStream);
        QCOMPARE(found.first().at(1).toByteArray(), kGroup);
    }
};

QTEST_GUILESS_MAIN(TestStreams)
#include "tst_streams.moc"
