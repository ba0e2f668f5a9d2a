// SPDX-License-Identifier: GPL-3.0-or-later
#include "clientlist.h"
#include "commandstats.h"
#include "hotkeysreader.h"
#include "monitorcapture.h"
#include "profilerreader.h"
#include "redisclient.h"
#include "testserver.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QUuid>

#include <memory>
#include <optional>

namespace {

constexpr int kWaitMs = 30000;

using profiler::CommandRate;

// A copy, not a pointer: callers pass the tracker's rates(), a temporary.
std::optional<CommandRate> rateOf(const QList<CommandRate> &rates, const QByteArray &command)
{
    for (const CommandRate &r : rates)
        if (r.command == command)
            return r;
    return std::nullopt;
}

// One reading of the reader, waited for.
bool readOnce(ProfilerReader &reader, profiler::CommandStatsTracker::Outcome *outcome = nullptr)
{
    QSignalSpy spy(&reader, &ProfilerReader::statsAvailable);
    reader.refresh();
    if (!spy.wait(kWaitMs))
        return false;
    if (outcome)
        *outcome = spy.first().first().value<profiler::CommandStatsTracker::Outcome>();
    return true;
}

// A redis-benchmark run in the background: far more commands per second than a bound of a
// few thousand lines, for as long as the test needs.
class Benchmark
{
public:
    explicit Benchmark(quint16 port, const QStringList &tests = {QStringLiteral("set,get")}, int clients = 4,
                       int pipeline = 16)
    {
        const QString program = QStandardPaths::findExecutable(QStringLiteral("redis-benchmark"));
        if (program.isEmpty())
            return;
        m_process.setProgram(program);
        m_process.setArguments({QStringLiteral("-h"), QStringLiteral("127.0.0.1"), QStringLiteral("-p"),
                                QString::number(port), QStringLiteral("-c"), QString::number(clients),
                                QStringLiteral("-n"), QStringLiteral("100000000"), QStringLiteral("-P"),
                                QString::number(pipeline), QStringLiteral("-r"), QStringLiteral("1000"),
                                QStringLiteral("-q"), QStringLiteral("-t"), tests.join(QLatin1Char(','))});
        m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_process.setStandardOutputFile(QProcess::nullDevice());
        m_process.start();
        m_process.waitForStarted();
    }
    ~Benchmark()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }
    bool running() const { return m_process.state() == QProcess::Running; }

private:
    QProcess m_process;
};

// The calls of every command since the last reading, from a raw connection.
QHash<QByteArray, qint64> callsSince(RawConnection &raw, const QHash<QByteArray, qint64> &before)
{
    QHash<QByteArray, qint64> now = commandCalls(raw), out;
    for (auto it = now.cbegin(); it != now.cend(); ++it)
        if (it.value() != before.value(it.key()))
            out.insert(it.key(), it.value() - before.value(it.key()));
    return out;
}

bool hasMonitorClient(TestServer &server)
{
    // CLIENT LIST flags a MONITOR connection with O.
    for (const ClientEntry &c : parseClientList(server.command({"CLIENT", "LIST"}).bytes()))
        if (c.flags.contains('O'))
            return true;
    return false;
}

} // namespace

class TestMonitorCapture : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();

    void commandStatsDeltasMatchTraffic();
    void resetStatRestartsDeltas();
    void captureSummarisesKnownTraffic();
    void captureStopsAtLineBound();
    void captureStopsAtTimeBound();
    void captureStoppedByUser();
    void boundsAreClamped();
    void userWithoutMonitorIsRefused();
    void readOnlyConnectionMayCapture();
    void hotKeysUnderLfu();
    void hotKeysUnavailableUnderOtherPolicy();
    void hotkeysCommandAbsentOnThisServer();

private:
    bool capture(MonitorCapture &capture, MonitorCapture::End *end);

    TestServer m_server;
    std::unique_ptr<RedisClient> m_client;
};

void TestMonitorCapture::initTestCase()
{
    QString error;
    QVERIFY2(m_server.start(&error), qPrintable(error));
    m_client = connectedClient(m_server.profile());
    QVERIFY(m_client);
}

void TestMonitorCapture::cleanupTestCase()
{
    m_client.reset();
}

void TestMonitorCapture::init()
{
    m_server.flushAll();
    m_server.command({"CONFIG", "SET", "maxmemory-policy", "noeviction"});
}

bool TestMonitorCapture::capture(MonitorCapture &capture, MonitorCapture::End *end)
{
    QSignalSpy finished(&capture, &MonitorCapture::finished);
    capture.start();
    if (!finished.wait(kWaitMs))
        return false;
    *end = finished.first().first().value<MonitorCapture::End>();
    return true;
}

// Known counts of SET, GET and HSET between two readings are what the deltas say, exactly.
void TestMonitorCapture::commandStatsDeltasMatchTraffic()
{
    ProfilerReader reader(m_client.get());
    profiler::CommandStatsTracker::Outcome outcome;
    QVERIFY(readOnce(reader, &outcome));
    QVERIFY(outcome.first);

    RawConnection raw(m_server.port());
    QList<QList<QByteArray>> traffic;
    for (int i = 0; i < 500; ++i)
        traffic << QList<QByteArray>{"SET", "k:" + QByteArray::number(i), "v"};
    for (int i = 0; i < 200; ++i)
        traffic << QList<QByteArray>{"GET", "k:" + QByteArray::number(i)};
    for (int i = 0; i < 30; ++i)
        traffic << QList<QByteArray>{"HSET", "h", "f" + QByteArray::number(i), "v"};
    traffic << QList<QByteArray>{"HSET", "k:1", "f", "v"}; // WRONGTYPE: a failed call (7.0+)
    const QList<RedisValue> replies = raw.pipeline(traffic);
    QCOMPARE(replies.size(), traffic.size());
    const QHash<QByteArray, qint64> before = commandCalls(raw);

    QTest::qWait(300); // a measurable interval
    QVERIFY(readOnce(reader, &outcome));
    QVERIFY(!outcome.first && !outcome.reset);
    const QList<CommandRate> rates = reader.tracker().rates();
    const auto set = rateOf(rates, "set");
    const auto get = rateOf(rates, "get");
    const auto hset = rateOf(rates, "hset");
    QVERIFY(set && get && hset);
    QCOMPARE(set->sessionCalls, 500);
    QCOMPARE(get->sessionCalls, 200);
    QCOMPARE(hset->sessionCalls, 31);
    QCOMPARE(hset->sessionFailed, 1);
    QCOMPARE(set->totalCalls, before.value("set"));
    // The rate is the count over the interval the reader measured.
    QCOMPARE(set->callsPerSec, 500.0 / outcome.intervalSecs);
    QVERIFY(set->avgUsec > 0);
    QVERIFY(set->usecPerSec > 0);
    QVERIFY(set->timeShare > 0 && set->timeShare < 1);
    // The reader sends two INFO a reading (the first reading's INFO commandstats counts from
    // the second on); the third is the check's own.
    const auto info = rateOf(rates, "info");
    QVERIFY(info);
    QCOMPARE(info->sessionCalls, 3);
    QCOMPARE(reader.tracker().topBySessionCalls(1), QList<QByteArray>{"set"});

    // Nothing more: the next interval has no SET at all, the session keeps them.
    QVERIFY(readOnce(reader, &outcome));
    const QList<CommandRate> quiet = reader.tracker().rates();
    const auto quietSet = rateOf(quiet, "set");
    const auto quietInfo = rateOf(quiet, "info");
    QVERIFY(quietSet && quietInfo);
    QCOMPARE(quietSet->callsPerSec, 0.0);
    QCOMPARE(quietSet->sessionCalls, 500);
    QCOMPARE(quietInfo->sessionCalls, 5);
}

// CONFIG RESETSTAT between two readings: a reset, no negative rate, and rates again after.
void TestMonitorCapture::resetStatRestartsDeltas()
{
    ProfilerReader reader(m_client.get());
    RawConnection raw(m_server.port());
    QList<QList<QByteArray>> traffic;
    for (int i = 0; i < 300; ++i)
        traffic << QList<QByteArray>{"INCR", "counter"};
    raw.pipeline(traffic);
    QVERIFY(readOnce(reader));
    raw.pipeline(traffic);
    QVERIFY(readOnce(reader));
    const auto first = rateOf(reader.tracker().rates(), "incr");
    QVERIFY(first);
    QCOMPARE(first->sessionCalls, 300);

    QCOMPARE(raw.command({"CONFIG", "RESETSTAT"}).bytes(), QByteArray("OK"));
    raw.pipeline(traffic.mid(0, 40));
    profiler::CommandStatsTracker::Outcome outcome;
    QVERIFY(readOnce(reader, &outcome));
    QVERIFY(outcome.reset);
    QCOMPARE(reader.tracker().resets(), 1);
    for (const CommandRate &r : reader.tracker().rates()) {
        QVERIFY2(r.callsPerSec >= 0 && r.usecPerSec >= 0 && r.sessionCalls >= 0, r.command.constData());
    }
    const auto afterReset = rateOf(reader.tracker().rates(), "incr");
    QVERIFY(afterReset);
    QCOMPARE(afterReset->sessionCalls, 340);

    raw.pipeline(traffic.mid(0, 60));
    QVERIFY(readOnce(reader, &outcome));
    QVERIFY(!outcome.reset);
    const auto incr = rateOf(reader.tracker().rates(), "incr");
    QVERIFY(incr);
    QCOMPARE(incr->sessionCalls, 400);
    QCOMPARE(incr->callsPerSec, 60.0 / outcome.intervalSecs);
}

// Traffic of known shape: its commands, key families, client names, and RedisLens's own
// commands (the profiler polling during the capture) kept apart.
void TestMonitorCapture::captureSummarisesKnownTraffic()
{
    ProfilerReader reader(m_client.get());
    reader.setPolling(true); // RedisLens's own traffic during the capture

    MonitorCapture capture(m_client.get());
    capture.setLimits(MonitorCapture::kMaxLines, 1500);
    QSignalSpy state(&capture, &MonitorCapture::stateChanged);
    QSignalSpy finished(&capture, &MonitorCapture::finished);
    capture.start();
    QTRY_VERIFY_WITH_TIMEOUT(capture.state() == MonitorCapture::State::Running, kWaitMs);

    const QByteArray binaryKey("bin:\x00\xff\"\\ \n", 10);
    RawConnection app(m_server.port());
    QList<QList<QByteArray>> traffic{{"CLIENT", "SETNAME", "billing-app"}};
    // A fixed window per user and minute, as a rate limiter writes it.
    const QByteArray window = QByteArray::number(QDateTime::currentSecsSinceEpoch() / 60);
    for (int i = 0; i < 40; ++i) {
        const QByteArray key = "rate:user:" + QByteArray::number(1000 + i % 4) + ':' + window;
        traffic << QList<QByteArray>{"INCR", key};
        if (i < 4)
            traffic << QList<QByteArray>{"EXPIRE", key, "60"};
    }
    for (int i = 0; i < 25; ++i)
        traffic << QList<QByteArray>{"SET", "cache:product:" + QByteArray::number(i), "{\"price\":1}", "EX", "60"};
    traffic << QList<QByteArray>{"SET", binaryKey, "x"} << QList<QByteArray>{"GET", binaryKey};
    traffic << QList<QByteArray>{"EVAL", "return redis.call('GET', KEYS[1])", "1", "cache:product:1"};
    app.pipeline(traffic);

    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(capture.end(), MonitorCapture::End::TimeBound);
    QVERIFY(!hasMonitorClient(m_server));
    const profiler::MonitorSummary &s = capture.summary();
    QCOMPARE(s.malformed(), 0);
    // RedisLens's INFO readings are RedisLens's own: counted apart, not among the commands.
    QVERIFY(s.ownLines() > 0);
    bool sawInfo = false;
    for (const auto &c : s.topCommands(-1))
        sawInfo = sawInfo || c.name == "info";
    QVERIFY(!sawInfo);

    const auto commands = s.topCommands(3);
    QCOMPARE(commands.at(0).name, QByteArray("incr"));
    QCOMPARE(commands.at(0).lines, 40);
    QCOMPARE(commands.at(1).name, QByteArray("set"));
    QCOMPARE(commands.at(1).lines, 26);

    const auto families = s.topFamilies(10);
    QVERIFY(families.size() >= 3);
    QCOMPARE(families.at(0).family, familyOf("rate:user:1000:" + window));
    QCOMPARE(families.at(0).lines, 44);
    QCOMPARE(families.at(0).keys, 4);
    // The busiest families' kinds were read from a sample of their keys.
    QVERIFY(families.at(0).kindKnown);
    QCOMPARE(families.at(0).kind, PatternKind::FixedWindow);
    QCOMPARE(families.at(1).family, familyOf("cache:product:1"));
    // 25 SETs, the script's GET (shown from the "lua" client) and the EVAL naming it.
    QCOMPARE(families.at(1).lines, 27);
    QVERIFY(families.at(1).kindKnown);
    QCOMPARE(families.at(1).kind, PatternKind::CacheEntry);

    // The binary key came through the escapes byte for byte.
    bool sawBinary = false;
    for (const auto &k : s.topKeys(-1))
        sawBinary = sawBinary || (k.name == binaryKey && k.lines == 2);
    QVERIFY(sawBinary);

    const auto clients = s.topClients(-1);
    bool sawApp = false, sawLua = false, sawOwn = false;
    for (const auto &c : clients) {
        if (c.name == "billing-app") {
            sawApp = true;
            QCOMPARE(c.lines, traffic.size());
            QVERIFY(!c.own);
        }
        sawLua = sawLua || (c.addr == "lua" && c.lines == 1);
        sawOwn = sawOwn || (c.own && c.name.startsWith("redislens"));
    }
    QVERIFY(sawApp);
    QVERIFY(sawLua);
    QVERIFY(sawOwn);
    QVERIFY(capture.elapsedMs() >= 1500);
}

// Traffic far above the bound: the capture stops at exactly its line bound and the
// server's MONITOR connection goes.
void TestMonitorCapture::captureStopsAtLineBound()
{
    Benchmark bench(m_server.port());
    if (!bench.running())
        QSKIP("redis-benchmark is not installed");
    RawConnection raw(m_server.port());
    QTRY_VERIFY_WITH_TIMEOUT(commandCalls(raw, {"set"}) > 10000, kWaitMs);

    MonitorCapture capture(m_client.get());
    capture.setLimits(5000, MonitorCapture::kMaxMs);
    MonitorCapture::End end = MonitorCapture::End::None;
    QElapsedTimer clock;
    clock.start();
    QVERIFY(this->capture(capture, &end));
    QCOMPARE(end, MonitorCapture::End::LineBound);
    QCOMPARE(capture.lineCount(), 5000);
    QVERIFY(capture.summary().lines() <= 5000);
    QCOMPARE(capture.summary().malformed(), 0);
    QVERIFY(capture.elapsedMs() < MonitorCapture::kMaxMs);
    qInfo("5,000 lines in %lld ms (%lld dropped by the window's bound) under redis-benchmark", capture.elapsedMs(),
          capture.droppedLines());
    QVERIFY(!capture.monitorClient());
    QTRY_VERIFY_WITH_TIMEOUT(!hasMonitorClient(m_server), kWaitMs);
    // redis-benchmark's commands are what the capture saw (its SET test runs first).
    qint64 benchmarkLines = 0;
    for (const auto &c : capture.summary().topCommands(-1)) {
        QVERIFY2(c.name == "set" || c.name == "get", c.name.constData());
        benchmarkLines += c.lines;
    }
    QCOMPARE(benchmarkLines + capture.summary().ownLines(), capture.summary().lines());

    // The largest bound there is, the same way.
    capture.setLimits(MonitorCapture::kMaxLines, MonitorCapture::kMaxMs);
    QVERIFY(this->capture(capture, &end));
    QCOMPARE(end, MonitorCapture::End::LineBound);
    QCOMPARE(capture.lineCount(), MonitorCapture::kMaxLines);
    qInfo("100,000 lines in %lld ms (%lld dropped by the window's bound)", capture.elapsedMs(), capture.droppedLines());
    QTRY_VERIFY_WITH_TIMEOUT(!hasMonitorClient(m_server), kWaitMs);
}

void TestMonitorCapture::captureStopsAtTimeBound()
{
    Benchmark bench(m_server.port(), {QStringLiteral("get")}, 1, 1);
    MonitorCapture capture(m_client.get());
    capture.setLimits(MonitorCapture::kMaxLines, 1000);
    QElapsedTimer clock;
    clock.start();
    MonitorCapture::End end = MonitorCapture::End::None;
    QVERIFY(this->capture(capture, &end));
    QCOMPARE(end, MonitorCapture::End::TimeBound);
    QVERIFY2(capture.elapsedMs() >= 1000 && capture.elapsedMs() < 2000,
             qPrintable(QString::number(capture.elapsedMs())));
    QVERIFY(capture.lineCount() < MonitorCapture::kMaxLines);
    QTRY_VERIFY_WITH_TIMEOUT(!hasMonitorClient(m_server), kWaitMs);
}

void TestMonitorCapture::captureStoppedByUser()
{
    MonitorCapture capture(m_client.get());
    capture.setLimits(MonitorCapture::kMaxLines, MonitorCapture::kMaxMs);
    QSignalSpy finished(&capture, &MonitorCapture::finished);
    capture.start();
    QTRY_VERIFY_WITH_TIMEOUT(capture.state() == MonitorCapture::State::Running, kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(hasMonitorClient(m_server), kWaitMs);
    m_server.command({"SET", "stopped:key", "1"});
    QTRY_VERIFY_WITH_TIMEOUT(capture.lineCount() >= 1, kWaitMs);
    QElapsedTimer clock;
    clock.start();
    capture.stop();
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(capture.end(), MonitorCapture::End::Stopped);
    QVERIFY(capture.elapsedMs() < MonitorCapture::kMaxMs);
    QTRY_VERIFY_WITH_TIMEOUT(!hasMonitorClient(m_server), kWaitMs);
    QCOMPARE(capture.summary().topCommands(1).at(0).name, QByteArray("set"));
}

void TestMonitorCapture::boundsAreClamped()
{
    MonitorCapture capture(m_client.get());
    capture.setLimits(1000000, 60000);
    QCOMPARE(capture.maxLines(), MonitorCapture::kMaxLines);
    QCOMPARE(capture.maxMs(), MonitorCapture::kMaxMs);
    capture.setLimits(0, 0);
    QCOMPARE(capture.maxLines(), 1);
    QCOMPARE(capture.maxMs(), 100);
}

void TestMonitorCapture::userWithoutMonitorIsRefused()
{
    const QByteArray secret = QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
    QCOMPARE(
        m_server.command({"ACL", "SETUSER", "watcher", "reset", "on", ">" + secret, "~*", "+@all", "-monitor"}).bytes(),
        QByteArray("OK"));
    ConnectionProfile profile = m_server.profile();
    profile.username = QStringLiteral("watcher");
    profile.password = QString::fromLatin1(secret);
    std::unique_ptr<RedisClient> client = connectedClient(profile);
    QVERIFY(client);
    MonitorCapture capture(client.get());
    MonitorCapture::End end = MonitorCapture::End::None;
    QVERIFY(this->capture(capture, &end));
    QCOMPARE(end, MonitorCapture::End::Refused);
    QCOMPARE(capture.errorText(), QStringLiteral("this user may not run MONITOR (ACL +monitor)"));
    QCOMPARE(capture.lineCount(), 0);
    QVERIFY(!capture.monitorClient());
}

// MONITOR changes no data: a read-only connection may capture.
void TestMonitorCapture::readOnlyConnectionMayCapture()
{
    ConnectionProfile profile = m_server.profile();
    profile.readOnly = true;
    std::unique_ptr<RedisClient> client = connectedClient(profile);
    QVERIFY(client);
    MonitorCapture capture(client.get());
    capture.setLimits(3, MonitorCapture::kMaxMs);
    QSignalSpy finished(&capture, &MonitorCapture::finished);
    capture.start();
    QTRY_VERIFY_WITH_TIMEOUT(capture.state() == MonitorCapture::State::Running, kWaitMs);
    m_server.pipeline({{"SET", "ro:1", "a"}, {"SET", "ro:2", "b"}, {"GET", "ro:1"}});
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(capture.end(), MonitorCapture::End::LineBound);
    QCOMPARE(capture.summary().lines(), 3);
}

// Under allkeys-lfu the key that was hammered is the hottest; the policy is left as it was and
// nothing is written.
void TestMonitorCapture::hotKeysUnderLfu()
{
    m_server.command({"CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"});
    RawConnection raw(m_server.port());
    QList<QList<QByteArray>> setup;
    for (int i = 0; i < 2000; ++i)
        setup << QList<QByteArray>{"SET", "session:" + QByteArray::number(i), "x"};
    setup << QList<QByteArray>{"SET", "hot:counter", "0"};
    raw.pipeline(setup);
    QList<QList<QByteArray>> hammer;
    for (int i = 0; i < 5000; ++i)
        hammer << QList<QByteArray>{"GET", "hot:counter"};
    raw.pipeline(hammer);
    const QByteArray digest = raw.command({"DEBUG", "DIGEST"}).bytes();
    const QHash<QByteArray, qint64> before = commandCalls(raw);

    HotKeysReader reader(m_client.get());
    QSignalSpy finished(&reader, &HotKeysReader::finished);
    reader.start();
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(reader.unavailableReason(), QString());
    QCOMPARE(reader.source(), HotKeysReader::Source::ObjectFreq);
    QVERIFY(reader.scanComplete());
    QCOMPARE(reader.sampledKeys(), 2001);
    const QList<profiler::HotKey> keys = reader.keys();
    QVERIFY(!keys.isEmpty());
    QCOMPARE(keys.at(0).key, QByteArray("hot:counter"));
    QVERIFY(keys.at(0).value > keys.at(1).value);
    QVERIFY(keys.at(0).kindKnown);

    QCOMPARE(raw.command({"CONFIG", "GET", "maxmemory-policy"}).at(1).bytes(), QByteArray("allkeys-lfu"));
    QCOMPARE(raw.command({"DEBUG", "DIGEST"}).bytes(), digest);
    // Reads only: SCAN, OBJECT FREQ, the probe, and the kinds' TYPE/PTTL/GETRANGE/STRLEN.
    const QHash<QByteArray, qint64> sent = callsSince(raw, before);
    const QSet<QByteArray> reads{"scan", "object|freq", "command|info", "config|get", "type",
                                 "pttl", "getrange",    "strlen",       "debug",      "info"};
    for (auto it = sent.cbegin(); it != sent.cend(); ++it)
        QVERIFY2(reads.contains(it.key()), it.key().constData());
    QCOMPARE(sent.value("object|freq"), 2001);

    // A bound below the keyspace: a sample of that many keys.
    reader.setMaxKeys(500);
    finished.clear();
    reader.start();
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(reader.sampledKeys(), 500);
    QVERIFY(!reader.scanComplete());
}

void TestMonitorCapture::hotKeysUnavailableUnderOtherPolicy()
{
    m_server.command({"SET", "some:key", "1"});
    HotKeysReader reader(m_client.get());
    QSignalSpy finished(&reader, &HotKeysReader::finished);
    reader.start();
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(reader.source(), HotKeysReader::Source::None);
    QVERIFY2(reader.unavailableReason().startsWith(QStringLiteral(
                 "OBJECT FREQ needs maxmemory-policy allkeys-lfu or volatile-lfu (this server: noeviction)")),
             qPrintable(reader.unavailableReason()));
    QVERIFY(reader.keys().isEmpty());
    QCOMPARE(m_server.command({"CONFIG", "GET", "maxmemory-policy"}).at(1).bytes(), QByteArray("noeviction"));

    // A user who may not read the configuration: OBJECT FREQ's own error says why.
    const QByteArray secret = QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
    m_server.command({"ACL", "SETUSER", "noconfig", "reset", "on", ">" + secret, "~*", "+@all", "-config"});
    ConnectionProfile profile = m_server.profile();
    profile.username = QStringLiteral("noconfig");
    profile.password = QString::fromLatin1(secret);
    std::unique_ptr<RedisClient> client = connectedClient(profile);
    QVERIFY(client);
    HotKeysReader limited(client.get());
    QSignalSpy limitedDone(&limited, &HotKeysReader::finished);
    limited.start();
    QVERIFY(limitedDone.wait(kWaitMs));
    QVERIFY2(limited.unavailableReason().startsWith(
                 QStringLiteral("OBJECT FREQ needs maxmemory-policy allkeys-lfu or volatile-lfu")),
             qPrintable(limited.unavailableReason()));
}

// HOTKEYS came with Redis 8.6: this server (7.0 or 8.0) does not have it, and the reader
// falls back to OBJECT FREQ without a note of failure.
void TestMonitorCapture::hotkeysCommandAbsentOnThisServer()
{
    const RedisValue info = m_server.command({"COMMAND", "INFO", "HOTKEYS"});
    QVERIFY(info.isArray());
    if (info.size() == 1 && info.at(0).isArray() && info.at(0).size() > 0)
        QSKIP("this server has HOTKEYS");
    m_server.command({"CONFIG", "SET", "maxmemory-policy", "volatile-lfu"});
    m_server.command({"SET", "t:1", "1", "EX", "100"});
    HotKeysReader reader(m_client.get());
    QSignalSpy finished(&reader, &HotKeysReader::finished);
    reader.start();
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(reader.source(), HotKeysReader::Source::ObjectFreq);
    QCOMPARE(reader.note(), QString());
    QCOMPARE(reader.keys().size(), 1);
}

QTEST_GUILESS_MAIN(TestMonitorCapture)
#include "tst_monitorcapture.moc"
