// SPDX-License-Identifier: GPL-3.0-or-later
#include "keyspacereader.h"
#include "latencyreader.h"
#include "overviewreader.h"
#include "redisclient.h"
#include "slowlog.h"
#include "slowlogmodel.h"
#include "slowlogpanel.h"
#include "slowlogreader.h"
#include "testserver.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>

#include <memory>

namespace {

constexpr int kWaitMs = 20000;
// DEBUG SLEEP 0.01 always takes >= 10 ms; nothing fast comes near 8 ms.
const QByteArray kThresholdUs = "8000";

QList<qint64> modelIds(const SlowlogModel &model)
{
    QList<qint64> out;
    for (int r = model.rowCount() - 1; r >= 0; --r)
        out.append(model.entryAt(r).id);
    return out; // oldest first
}

// The server's own slow log through a plain socket, oldest first.
QList<SlowlogEntry> serverLog(TestServer &server)
{
    QList<SlowlogEntry> entries;
    if (!slowlog::parseEntries(server.command({"SLOWLOG", "GET", "1000"}), &entries))
        qFatal("SLOWLOG GET failed on the test server");
    std::reverse(entries.begin(), entries.end());
    return entries;
}

// A reader wired to a model the way a panel wires them.
struct Watch
{
    explicit Watch(RedisClient *client)
        : reader(client), tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal)
    {
        QObject::connect(&reader, &SlowlogReader::entriesAvailable, &model,
                         [this](const QList<SlowlogEntry> &e, int epoch) { model.append(e, epoch); });
        QObject::connect(&reader, &SlowlogReader::keySizeAvailable, &model, &SlowlogModel::setKeySize);
        reader.setIntervalMs(100);
    }
    // Waits for a poll that started after this call.
    bool waitForFreshPoll()
    {
        const int before = reader.completedPolls();
        return QTest::qWaitFor([&] { return reader.completedPolls() >= before + 2; }, kWaitMs);
    }

    SlowlogModel model;
    SlowlogReader reader;
    QAbstractItemModelTester tester;
};

} // namespace

class TestSlowlog : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();

    void exactNewEntries();
    void wrapBetweenPollsCountsMissed();
    void resetDetectedAndEntriesContinue();
    void bigCollectionFlaggedFromKeySize();
    void noPermission();
    void readOnlyConnection();
    void restartStartsNewEpoch();
    void readersReadOnceWithoutWidgets();
    void overviewMergesServers();

private:
    void sleeps(int n, const QByteArray &seconds = "0.01");

    TestServer m_server;
    std::unique_ptr<RedisClient> m_client;
};

void TestSlowlog::initTestCase()
{
    QString error;
    QVERIFY2(m_server.start(&error), qPrintable(error));
    m_client = connectedClient(m_server.profile());
    QVERIFY(m_client);
}

void TestSlowlog::cleanupTestCase()
{
    m_client.reset();
}

void TestSlowlog::init()
{
    const QList<RedisValue> r = m_server.pipeline({{"CONFIG", "SET", "slowlog-log-slower-than", kThresholdUs},
                                                   {"CONFIG", "SET", "slowlog-max-len", "128"},
                                                   {"SLOWLOG", "RESET"},
                                                   {"FLUSHALL"}});
    QCOMPARE(r.size(), 4);
    for (const RedisValue &v : r)
        QVERIFY2(!v.isError(), v.bytes().constData());
}

void TestSlowlog::sleeps(int n, const QByteArray &seconds)
{
    QList<QList<QByteArray>> commands;
    for (int i = 0; i < n; ++i)
        commands.append({"DEBUG", "SLEEP", seconds});
    const QList<RedisValue> r = m_server.pipeline(commands);
    QCOMPARE(r.size(), n);
}

void TestSlowlog::exactNewEntries()
{
    Watch w(m_client.get());
    w.reader.start();
    QVERIFY(w.waitForFreshPoll());
    QCOMPARE(w.model.rowCount(), 0);

    // Slow and fast commands interleaved; only the slow ones belong in the log.
    constexpr int kSlow = 6;
    QList<QList<QByteArray>> commands;
    for (int i = 0; i < kSlow; ++i) {
        commands.append({"DEBUG", "SLEEP", "0.01"});
        commands.append({"SET", "fast:" + QByteArray::number(i), "v"});
        commands.append({"GET", "fast:" + QByteArray::number(i)});
    }
    QCOMPARE(m_server.pipeline(commands).size(), commands.size());

    QTRY_COMPARE_WITH_TIMEOUT(w.model.rowCount(), kSlow, kWaitMs);
    // More polls bring nothing twice.
    QVERIFY(w.waitForFreshPoll());
    QVERIFY(w.waitForFreshPoll());
    QCOMPARE(w.model.rowCount(), kSlow);

    const QList<SlowlogEntry> server = serverLog(m_server);
    QCOMPARE(server.size(), kSlow);
    QList<qint64> expectedIds;
    for (const SlowlogEntry &e : server)
        expectedIds.append(e.id);
    QCOMPARE(modelIds(w.model), expectedIds);
    for (int i = 1; i < expectedIds.size(); ++i)
        QCOMPARE(expectedIds.at(i), expectedIds.at(i - 1) + 1);
    for (int r = 0; r < w.model.rowCount(); ++r) {
        const SlowlogEntry &e = w.model.entryAt(r);
        QCOMPARE(e.args, (QList<QByteArray>{"DEBUG", "SLEEP", "0.01"}));
        QCOMPARE(e.commandName(), QByteArray("DEBUG SLEEP"));
        QVERIFY2(e.durationUs >= 10'000, qPrintable(QString::number(e.durationUs)));
        QVERIFY(e.clientAddress.startsWith("127.0.0.1:"));
        QCOMPARE(w.model.verdictAt(r).flag, SlowlogFlag::Diagnostic);
    }
    QCOMPARE(w.model.aggregate()->rowCount(), 1);
    QCOMPARE(w.model.aggregate()->countAt(0), kSlow);
    QCOMPARE(w.reader.tracker().totalMissed(), 0);
    QCOMPARE(w.reader.tracker().resetCount(), 0);
    QVERIFY(w.reader.config().known);
    QCOMPARE(w.reader.config().slowerThanUs, kThresholdUs.toLongLong());
    QCOMPARE(w.reader.config().maxLength, 128);
    QVERIFY(!w.reader.lastError().isError());
}

void TestSlowlog::wrapBetweenPollsCountsMissed()
{
    QCOMPARE(m_server.command({"CONFIG", "SET", "slowlog-max-len", "4"}).bytes(), QByteArray("OK"));
    Watch w(m_client.get());
    QSignalSpy missed(&w.reader, &SlowlogReader::entriesMissed);
    w.reader.start();
    sleeps(2);
    QTRY_COMPARE_WITH_TIMEOUT(w.model.rowCount(), 2, kWaitMs);
    QVERIFY(w.waitForFreshPoll());

    // Ten entries while nobody polls: the log of four keeps the last four.
    w.reader.stop();
    sleeps(10);
    const QList<SlowlogEntry> server = serverLog(m_server);
    QCOMPARE(server.size(), 4);
    w.reader.start();
    QTRY_COMPARE_WITH_TIMEOUT(w.model.rowCount(), 6, kWaitMs);
    QCOMPARE(missed.size(), 1);
    QCOMPARE(missed.first().first().toLongLong(), 6);
    QCOMPARE(w.reader.tracker().totalMissed(), 6);
    QCOMPARE(w.reader.tracker().resetCount(), 0); // a full log is not a reset
    const QList<qint64> ids = modelIds(w.model);
    for (int i = 0; i < 4; ++i)
        QCOMPARE(ids.at(2 + i), server.at(i).id);
    QCOMPARE(ids.at(2) - ids.at(1) - 1, 6);
}

void TestSlowlog::resetDetectedAndEntriesContinue()
{
    Watch w(m_client.get());
    QSignalSpy resets(&w.reader, &SlowlogReader::resetDetected);
    w.reader.start();
    sleeps(3);
    QTRY_COMPARE_WITH_TIMEOUT(w.model.rowCount(), 3, kWaitMs);
    const qint64 lastBefore = w.model.entryAt(0).id;

    QCOMPARE(m_server.command({"SLOWLOG", "RESET"}).bytes(), QByteArray("OK"));
    QTRY_COMPARE_WITH_TIMEOUT(resets.size(), 1, kWaitMs);
    QCOMPARE(w.model.rowCount(), 3); // what was shown stays

    sleeps(2);
    QTRY_COMPARE_WITH_TIMEOUT(w.model.rowCount(), 5, kWaitMs);
    // The server keeps counting ids across SLOWLOG RESET.
    QCOMPARE(w.model.entryAt(1).id, lastBefore + 1);
    QCOMPARE(w.model.entryAt(0).id, lastBefore + 2);
    QCOMPARE(w.model.epochAt(0), 0);
    QVERIFY(w.waitForFreshPoll());
    QCOMPARE(resets.size(), 1);
    QCOMPARE(w.reader.tracker().totalMissed(), 0);
}

void TestSlowlog::bigCollectionFlaggedFromKeySize()
{
    QList<QByteArray> sadd{"SADD", "big:set"};
    for (int i = 0; i < 1500; ++i)
        sadd << "m" + QByteArray::number(i);
    QList<QByteArray> saddSmall{"SADD", "small:set", "a", "b"};
    // Log everything for a moment, so the fast SMEMBERS calls are entries too.
    const QList<RedisValue> r = m_server.pipeline({sadd,
                                                   saddSmall,
                                                   {"CONFIG", "SET", "slowlog-log-slower-than", "0"},
                                                   {"SMEMBERS", "big:set"},
                                                   {"SMEMBERS", "small:set"},
                                                   {"CONFIG", "SET", "slowlog-log-slower-than", kThresholdUs}});
    QCOMPARE(r.size(), 6);

    Watch w(m_client.get());
    w.reader.start();
    auto rowOf = [&](const QByteArray &key) {
        for (int row = 0; row < w.model.rowCount(); ++row) {
            if (w.model.entryAt(row).args == QList<QByteArray>{"SMEMBERS", key})
                return row;
        }
        return -1;
    };
    QTRY_VERIFY_WITH_TIMEOUT(rowOf("big:set") >= 0 && rowOf("small:set") >= 0, kWaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(w.model.keySize("big:set"), 1500, kWaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(w.model.keySize("small:set"), 2, kWaitMs);
    QCOMPARE(w.model.verdictAt(rowOf("big:set")).flag, SlowlogFlag::BigCollection);
    QVERIFY(w.model.verdictAt(rowOf("big:set")).reason.contains(QStringLiteral("1,500")));
    QCOMPARE(w.model.verdictAt(rowOf("small:set")).flag, SlowlogFlag::None);
}

void TestSlowlog::noPermission()
{
    QCOMPARE(m_server.command({"ACL", "SETUSER", "viewer", "on", ">secret", "~*", "+@all", "-slowlog"}).bytes(),
             QByteArray("OK"));
    QCOMPARE(
        m_server.command({"ACL", "SETUSER", "blind", "on", ">secret", "~*", "+@all", "-slowlog", "-config", "-latency"})
            .bytes(),
        QByteArray("OK"));

    ConnectionProfile profile = m_server.profile();
    profile.username = QStringLiteral("viewer");
    profile.password = QStringLiteral("secret");
    RedisClient viewer(profile);
    viewer.connectToServer();
    QVERIFY(waitForReady(viewer));
    {
        SlowlogPanel panel(&viewer);
        panel.reader()->setIntervalMs(100);
        panel.setActive(true);
        QTRY_VERIFY_WITH_TIMEOUT(panel.hasContent(), kWaitMs);
        QCOMPARE(panel.errorText(), QStringLiteral("Slow log: needs +slowlog for user viewer"));
        QCOMPARE(panel.reader()->lastError().kind, RedisError::Kind::NoPerm);
        // The rest keeps working: CONFIG GET is allowed for this user.
        QTRY_VERIFY_WITH_TIMEOUT(panel.configText().contains(QStringLiteral("slowlog-max-len 128")), kWaitMs);
        QCOMPARE(panel.model()->rowCount(), 0);
    }

    profile.username = QStringLiteral("blind");
    RedisClient blind(profile);
    blind.connectToServer();
    QVERIFY(waitForReady(blind));
    SlowlogPanel panel(&blind);
    panel.reader()->setIntervalMs(100);
    panel.setActive(true);
    QTRY_VERIFY_WITH_TIMEOUT(panel.hasContent(), kWaitMs);
    QCOMPARE(panel.errorText(), QStringLiteral("Slow log: needs +slowlog for user blind"));
    QTRY_COMPARE_WITH_TIMEOUT(panel.configText(),
                              QStringLiteral("slowlog-log-slower-than and slowlog-max-len unknown: "
                                             "CONFIG GET needs +config|get for user blind"),
                              kWaitMs);
    auto *hint = panel.findChild<QLabel *>(QStringLiteral("slowlogLatencyHint"));
    QVERIFY(hint);
    QTRY_COMPARE_WITH_TIMEOUT(hint->text(), QStringLiteral("Latency monitor: needs +latency for user blind"), kWaitMs);
}

void TestSlowlog::readOnlyConnection()
{
    // Everything the panel sends is allowed on a read-only (production) connection.
    m_server.command({"SADD", "ro:set", "a"});
    m_server.pipeline({{"CONFIG", "SET", "slowlog-log-slower-than", "0"},
                       {"SMEMBERS", "ro:set"},
                       {"CONFIG", "SET", "slowlog-log-slower-than", kThresholdUs}});
    ConnectionProfile profile = m_server.profile();
    profile.readOnly = true;
    RedisClient client(profile);
    client.connectToServer();
    QVERIFY(waitForReady(client));
    QVERIFY(client.facts().readOnly);
    SlowlogPanel panel(&client);
    panel.reader()->setIntervalMs(100);
    panel.setActive(true);
    sleeps(2);
    QTRY_VERIFY_WITH_TIMEOUT(panel.model()->rowCount() >= 3, kWaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(panel.model()->keySize("ro:set"), 1, kWaitMs); // SCARD went through
    QVERIFY(panel.errorText().isEmpty());
    QVERIFY(panel.configText().startsWith(QStringLiteral("slowlog-log-slower-than 8000 µs")));
    auto *header = panel.findChild<QLabel *>(QStringLiteral("slowlogLatencyHeader"));
    QVERIFY(header);
    QTRY_VERIFY_WITH_TIMEOUT(header->text().contains(QStringLiteral("latency-monitor-threshold")), kWaitMs);
}

void TestSlowlog::restartStartsNewEpoch()
{
    Watch w(m_client.get());
    QSignalSpy resets(&w.reader, &SlowlogReader::resetDetected);
    w.reader.start();
    sleeps(3);
    // The three sleeps, and whatever else a loaded machine made slower than the threshold.
    auto sleepsIn = [&](int epoch) {
        int n = 0;
        for (int r = 0; r < w.model.rowCount(); ++r)
            n += w.model.epochAt(r) == epoch && w.model.entryAt(r).commandName() == "DEBUG SLEEP" ? 1 : 0;
        return n;
    };
    QTRY_COMPARE_WITH_TIMEOUT(sleepsIn(0), 3, kWaitMs);
    const QByteArray runIdBefore = m_client->facts().runId;
    QVERIFY(!runIdBefore.isEmpty());

    // A restart forgets the log and the id counter.
    m_server.server().kill();
    QString error;
    QVERIFY2(m_server.server().restart(&error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(m_client->isReady() && m_client->facts().runId != runIdBefore, kWaitMs);
    QCOMPARE(m_server.command({"CONFIG", "SET", "slowlog-log-slower-than", kThresholdUs}).bytes(), QByteArray("OK"));
    sleeps(2);
    QTRY_COMPARE_WITH_TIMEOUT(sleepsIn(1), 2, kWaitMs);
    QVERIFY(w.waitForFreshPoll());
    QCOMPARE(resets.size(), 1);
    QCOMPARE(w.reader.tracker().epoch(), 1);
    // The new server's log, all of it (the reconnect itself may have been slow enough to be in
    // it), after the entries of the first run.
    const QList<SlowlogEntry> server = serverLog(m_server);
    int firstRun = 0;
    for (int r = 0; r < w.model.rowCount(); ++r)
        firstRun += w.model.epochAt(r) == 0 ? 1 : 0;
    QCOMPARE(w.model.rowCount(), firstRun + server.size());
    for (int i = 0; i < server.size(); ++i) {
        const int row = int(server.size()) - 1 - i;
        QCOMPARE(w.model.epochAt(row), 1);
        QCOMPARE(w.model.entryAt(row).id, server.at(i).id);
    }
    QCOMPARE(w.model.epochAt(int(server.size())), 0);
    QCOMPARE(server.constLast().commandName(), QByteArray("DEBUG SLEEP"));
}

// What the headless command does: construct a reader, read once, take the signal; no widget,
// no timer.
void TestSlowlog::readersReadOnceWithoutWidgets()
{
    m_server.command({"SET", "k", "v"});
    m_server.command({"CONFIG", "SET", "latency-monitor-threshold", "5"});
    sleeps(1);

    SlowlogReader slowlog(m_client.get());
    QSignalSpy entries(&slowlog, &SlowlogReader::entriesAvailable);
    QSignalSpy polled(&slowlog, &SlowlogReader::polled);
    slowlog.pollNow();
    QVERIFY(polled.wait(kWaitMs));
    QCOMPARE(entries.size(), 1);
    QVERIFY(!slowlog.isRunning());

    OverviewReader overview(m_client.get());
    QSignalSpy info(&overview, &OverviewReader::infoAvailable);
    QSignalSpy config(&overview, &OverviewReader::configAvailable);
    overview.refresh();
    QVERIFY(info.wait(kWaitMs));
    QVERIFY(!overview.isPolling());
    const auto snapshot = info.first().first().value<ServerInfo>();
    QVERIFY(!snapshot.keyspace().isEmpty());
    QVERIFY(config.size() == 1 || config.wait(kWaitMs));
    QCOMPARE(config.first().at(1).toByteArray(), QByteArray("no"));

    KeyspaceReader keyspace(m_client.get());
    QSignalSpy databases(&keyspace, &KeyspaceReader::keyspaceAvailable);
    keyspace.refresh();
    QVERIFY(databases.wait(kWaitMs));
    const auto dbs = databases.first().first().value<QList<KeyspaceDb>>();
    QCOMPARE(dbs.size(), 1);
    QCOMPARE(dbs.first().keys, 1);

    LatencyReader latency(m_client.get());
    QSignalSpy latest(&latency, &LatencyReader::latestAvailable);
    QSignalSpy history(&latency, &LatencyReader::historyAvailable);
    latency.refresh();
    QVERIFY(latest.wait(kWaitMs));
    const auto read = latest.first().first().value<LatencyLatest>();
    QVERIFY(!read.error.isError());
    QCOMPARE(read.thresholdMs, 5);
    QVERIFY(!read.events.isEmpty()); // DEBUG SLEEP 0.01 is a "command" spike over 5 ms
    latency.readHistory(read.events.first().name);
    QVERIFY(history.wait(kWaitMs));
    QVERIFY(!history.first().at(1).value<QList<LatencySample>>().isEmpty());
    m_server.command({"CONFIG", "SET", "latency-monitor-threshold", "0"});
}

// The overview of several servers as one (a cluster's primaries): their keys and clients add up;
// a server that stops fails the round with its address, and the next round after it is back
// merges again.
void TestSlowlog::overviewMergesServers()
{
    TestServer second;
    QString error;
    QVERIFY2(second.start(&error), qPrintable(error));
    auto other = connectedClient(second.profile());
    QVERIFY(other);
    m_server.pipeline({{"SET", "a", "1"}, {"SET", "b", "2", "EX", "100"}});
    second.pipeline({{"SET", "c", "3"}, {"SET", "d", "4"}, {"SET", "e", "5", "EX", "100"}});

    OverviewReader overview(m_client.get());
    overview.setMergedNodes({m_client.get(), other.get()});
    QCOMPARE(overview.mergedNodeCount(), 2);
    QSignalSpy info(&overview, &OverviewReader::infoAvailable);
    QSignalSpy failed(&overview, &OverviewReader::infoFailed);
    overview.refresh();
    QVERIFY(info.wait(kWaitMs));
    auto merged = info.takeFirst().first().value<ServerInfo>();
    QCOMPARE(merged.mergedNodes(), 2);
    QCOMPARE(merged.keyspace().size(), 1);
    QCOMPARE(merged.keyspace().first().keys, qint64(5));
    QCOMPARE(merged.keyspace().first().expires, qint64(2));
    QVERIFY(merged.integer("connected_clients") >= 2); // at least the two readers' own
    QVERIFY(merged.value("run_id").contains(','));

    // The second server goes away: the round fails, naming it.
    second.server().stop();
    QTRY_VERIFY_WITH_TIMEOUT(!other->isReady(), kWaitMs);
    overview.refresh();
    QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), kWaitMs);
    const auto why = failed.first().first().value<RedisError>();
    QVERIFY2(why.message.contains(QStringLiteral("127.0.0.1:%1").arg(second.port())), qPrintable(why.message));
    QVERIFY(info.isEmpty());

    // Back alone: the reader reads its one client again.
    overview.setMergedNodes({});
    overview.refresh();
    QVERIFY(info.wait(kWaitMs));
    merged = info.takeFirst().first().value<ServerInfo>();
    QCOMPARE(merged.mergedNodes(), 0);
    QCOMPARE(merged.keyspace().first().keys, qint64(2));
}

QTEST_MAIN(TestSlowlog)
#include "tst_slowlog.moc"
