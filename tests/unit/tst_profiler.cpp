// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler.h"
#include "redisvalue.h"
#include "serverinfo.h"

#include <QTest>
#include <cmath>

using namespace profiler;

namespace {

using Args = QList<QByteArray>;

CommandStatsSample sample(qint64 atMs, const QByteArray &text, const QByteArray &runId = "run-a")
{
    CommandStatsSample s;
    s.atMs = atMs;
    s.runId = runId;
    s.commands = parseCommandStats(ServerInfo::parse(text));
    return s;
}

const CommandRate *rateOf(const QList<CommandRate> &rates, const QByteArray &command)
{
    for (const CommandRate &r : rates)
        if (r.command == command)
            return &r;
    return nullptr;
}

} // namespace

class TestProfiler : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void parsesCommandStats();
    void ratesFromDeltas();
    void resetStatRestartsDeltas();
    void restartByRunId();
    void ignoresReadingsOutOfOrder();
    void seriesBreakAtReset();

    void parsesMonitorLine_data();
    void parsesMonitorLine();
    void rejectsMalformedLine_data();
    void rejectsMalformedLine();
    void commandNames();
    void keysOfCommands_data();
    void keysOfCommands();
    void summaryCountsAndOwn();
    void summaryBounds();

    void topKeysKeepsHighest();
    void parsesHotkeysGet();
};

void TestProfiler::parsesCommandStats()
{
    const QByteArray text
        = "# Commandstats\r\n"
          "cmdstat_get:calls=3,usec=12,usec_per_call=4.00,rejected_calls=1,failed_calls=2\r\n"
          "cmdstat_client|list:calls=7,usec=70,usec_per_call=10.00,rejected_calls=0,failed_calls=0\r\n"
          "cmdstat_SET:calls=5,usec=10,usec_per_call=2.00\r\n"
          "cmdstat_broken:usec=10\r\n"
          "errorstat_ERR:count=3\r\n";
    const auto stats = parseCommandStats(ServerInfo::parse(text));
    QCOMPARE(stats.size(), 3);
    QCOMPARE(stats.value("get").calls, 3);
    QCOMPARE(stats.value("get").usec, 12);
    QCOMPARE(stats.value("get").rejected, 1);
    QCOMPARE(stats.value("get").failed, 2);
    QCOMPARE(stats.value("client|list").calls, 7);
    // Before 7.0 there are no failed or rejected counts: unknown, not zero.
    QCOMPARE(stats.value("set").calls, 5);
    QCOMPARE(stats.value("set").failed, -1);
    QCOMPARE(stats.value("set").rejected, -1);
}

void TestProfiler::ratesFromDeltas()
{
    CommandStatsTracker t;
    auto o = t.apply(sample(10000,
                            "cmdstat_get:calls=100,usec=1000,rejected_calls=0,failed_calls=0\r\n"
                            "cmdstat_set:calls=50,usec=500,rejected_calls=0,failed_calls=0\r\n"
                            "cmdstat_ping:calls=9,usec=9,rejected_calls=0,failed_calls=0\r\n"));
    QVERIFY(o.first);
    QVERIFY(!t.hasRates());
    QVERIFY(t.rates().isEmpty());

    // 2 s later: 200 more GETs taking 600 µs, 20 more SETs taking 1400 µs, one failed SET, and a
    // first HGET.
    o = t.apply(sample(12000,
                       "cmdstat_ping:calls=9,usec=9,rejected_calls=0,failed_calls=0\r\n"
                       "cmdstat_get:calls=300,usec=1600,rejected_calls=0,failed_calls=0\r\n"
                       "cmdstat_set:calls=70,usec=1900,rejected_calls=0,failed_calls=1\r\n"
                       "cmdstat_hget:calls=4,usec=40,rejected_calls=2,failed_calls=0\r\n"));
    QVERIFY(!o.first && !o.reset);
    QCOMPARE(o.intervalSecs, 2.0);
    QVERIFY(t.hasRates());
    const QList<CommandRate> rates = t.rates();
    QCOMPARE(rates.size(), 3); // PING ran before the session only: not listed
    QVERIFY(!rateOf(rates, "ping"));
    QCOMPARE(rates.at(0).command, QByteArray("get")); // the most calls per second first
    const CommandRate *get = rateOf(rates, "get");
    QCOMPARE(get->callsPerSec, 100.0);
    QCOMPARE(get->usecPerSec, 300.0);
    QCOMPARE(get->avgUsec, 3.0);
    QCOMPARE(get->failedPerSec, 0.0);
    QCOMPARE(get->totalCalls, 300);
    const CommandRate *set = rateOf(rates, "set");
    QCOMPARE(set->callsPerSec, 10.0);
    QCOMPARE(set->avgUsec, 70.0);
    QCOMPARE(set->failedPerSec, 0.5);
    QCOMPARE(set->timeShare, 1400.0 / 2040.0);
    const CommandRate *hget = rateOf(rates, "hget");
    QCOMPARE(hget->callsPerSec, 2.0);
    QCOMPARE(hget->rejectedPerSec, 1.0);
    QCOMPARE(hget->sessionCalls, 4);
    QCOMPARE(t.totalCallsPerSec(), 112.0);
    QCOMPARE(t.topBySessionCalls(2), (QList<QByteArray>{"get", "set"}));
    QCOMPARE(t.topBySessionTime(1), (QList<QByteArray>{"set"}));

    // Another 2 s with no SETs: the session keeps them, the interval has none.
    t.apply(sample(14000,
                   "cmdstat_ping:calls=9,usec=9,rejected_calls=0,failed_calls=0\r\n"
                   "cmdstat_get:calls=500,usec=2000,rejected_calls=0,failed_calls=0\r\n"
                   "cmdstat_set:calls=70,usec=1900,rejected_calls=0,failed_calls=1\r\n"
                   "cmdstat_hget:calls=4,usec=40,rejected_calls=2,failed_calls=0\r\n"));
    const QList<CommandRate> later = t.rates();
    set = rateOf(later, "set");
    QCOMPARE(set->callsPerSec, 0.0);
    QCOMPARE(set->avgUsec, -1.0);
    QCOMPARE(set->sessionCalls, 20);
    QCOMPARE(set->sessionFailed, 1);
    QCOMPARE(set->sessionCallsPerSec, 5.0);
    get = rateOf(later, "get");
    QCOMPARE(get->sessionCalls, 400);
    QCOMPARE(get->sessionAvgUsec, 1000.0 / 400.0);
    QCOMPARE(get->change(), 0.0); // 100/s now, 100/s on average
    QCOMPARE(t.sessionSecs(), 4.0);
}

void TestProfiler::resetStatRestartsDeltas()
{
    CommandStatsTracker t;
    t.apply(sample(1000, "cmdstat_get:calls=1000,usec=5000\r\ncmdstat_set:calls=10,usec=50\r\n"));
    t.apply(sample(2000, "cmdstat_get:calls=1100,usec=5500\r\ncmdstat_set:calls=20,usec=100\r\n"));
    QVERIFY(t.hasRates());
    // CONFIG RESETSTAT: every line goes; the commands since come back with small counts.
    const auto o = t.apply(sample(3000, "cmdstat_get:calls=7,usec=35\r\ncmdstat_config|resetstat:calls=1,usec=9\r\n"));
    QVERIFY(o.reset);
    QCOMPARE(t.resets(), 1);
    QCOMPARE(t.lastResetMs(), 3000);
    QVERIFY(!t.hasRates());
    for (const CommandRate &r : t.rates()) {
        QVERIFY2(r.callsPerSec >= 0 && r.usecPerSec >= 0, r.command.constData());
        QCOMPARE(r.callsPerSec, 0.0);
    }
    // The session keeps what ran before the reset and what the counters show since.
    QCOMPARE(rateOf(t.rates(), "get")->sessionCalls, 100 + 7);
    QCOMPARE(rateOf(t.rates(), "set")->sessionCalls, 10);
    QCOMPARE(t.sessionSecs(), 1.0);

    // The next reading has rates again, from the reset's counts.
    const auto next
        = t.apply(sample(4000, "cmdstat_get:calls=57,usec=135\r\ncmdstat_config|resetstat:calls=1,usec=9\r\n"));
    QVERIFY(!next.reset);
    QVERIFY(t.hasRates());
    QCOMPARE(rateOf(t.rates(), "get")->callsPerSec, 50.0);
    QCOMPARE(rateOf(t.rates(), "get")->avgUsec, 2.0);

    // A single counter going down (calls kept, time less) is a reset too.
    QVERIFY(
        t.apply(sample(5000, "cmdstat_get:calls=60,usec=100\r\ncmdstat_config|resetstat:calls=1,usec=9\r\n")).reset);
}

void TestProfiler::restartByRunId()
{
    CommandStatsTracker t;
    t.apply(sample(1000, "cmdstat_get:calls=10,usec=50\r\n", "run-a"));
    // A restart whose new counts happen to be higher: only the run id tells.
    const auto o = t.apply(sample(2000, "cmdstat_get:calls=20,usec=60\r\n", "run-b"));
    QVERIFY(o.reset);
    QCOMPARE(rateOf(t.rates(), "get")->sessionCalls, 20);
    QCOMPARE(rateOf(t.rates(), "get")->callsPerSec, 0.0);
}

void TestProfiler::ignoresReadingsOutOfOrder()
{
    CommandStatsTracker t;
    t.apply(sample(2000, "cmdstat_get:calls=10,usec=50\r\n"));
    QVERIFY(t.apply(sample(2000, "cmdstat_get:calls=20,usec=60\r\n")).ignored);
    QVERIFY(t.apply(sample(1500, "cmdstat_get:calls=20,usec=60\r\n")).ignored);
    QCOMPARE(t.readings(), 1);

    // Within one millisecond, the steady clock tells the readings apart.
    CommandStatsTracker fast;
    CommandStatsSample a = sample(2000, "cmdstat_get:calls=10,usec=50\r\n");
    a.monotonicUs = 1000;
    CommandStatsSample b = sample(2000, "cmdstat_get:calls=11,usec=55\r\n");
    b.monotonicUs = 1500;
    fast.apply(a);
    const auto o = fast.apply(b);
    QVERIFY(!o.ignored);
    QCOMPARE(o.intervalSecs, 0.0005);
    QCOMPARE(rateOf(fast.rates(), "get")->callsPerSec, 2000.0);
}

void TestProfiler::seriesBreakAtReset()
{
    CommandStatsTracker t;
    t.apply(sample(1000, "cmdstat_get:calls=0,usec=0\r\n"));
    t.apply(sample(2000, "cmdstat_get:calls=10,usec=50\r\n"));
    t.apply(sample(3000, "cmdstat_get:calls=30,usec=60\r\n"));
    t.apply(sample(4000, "cmdstat_set:calls=1,usec=1\r\n")); // reset
    t.apply(sample(5000, "cmdstat_get:calls=5,usec=5\r\ncmdstat_set:calls=1,usec=1\r\n"));
    const TimeSeries *get = t.callsSeries("get");
    QVERIFY(get);
    const QList<TimeSeries::Point> points = get->points();
    QCOMPARE(points.size(), 4);
    QCOMPARE(points.at(0).v, 10.0);
    QCOMPARE(points.at(1).v, 20.0);
    QVERIFY(std::isnan(points.at(2).v)); // the break
    QCOMPARE(points.at(3).v, 5.0);
    QVERIFY(!t.callsSeries("never"));
}

void TestProfiler::parsesMonitorLine_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<double>("time");
    QTest::addColumn<int>("db");
    QTest::addColumn<QByteArray>("client");
    QTest::addColumn<QList<QByteArray>>("args");

    QTest::newRow("plain") << QByteArray(R"(1700000000.123456 [0 127.0.0.1:50000] "GET" "key")") << 1700000000.123456
                           << 0 << QByteArray("127.0.0.1:50000") << Args{"GET", "key"};
    QTest::newRow("command only") << QByteArray(R"(1700000000.000001 [3 127.0.0.1:6000] "PING")") << 1700000000.000001
                                  << 3 << QByteArray("127.0.0.1:6000") << Args{"PING"};
    QTest::newRow("lua") << QByteArray(R"(1700000001.500000 [0 lua] "incr" "counter:1")") << 1700000001.5 << 0
                         << QByteArray("lua") << Args{"incr", "counter:1"};
    QTest::newRow("unix socket") << QByteArray(R"(1700000000.1 [15 unix:/run/redis/redis.sock] "SET" "a" "b")")
                                 << 1700000000.1 << 15 << QByteArray("unix:/run/redis/redis.sock")
                                 << Args{"SET", "a", "b"};
    QTest::newRow("ipv6") << QByteArray(R"(1700000000.2 [0 [::1]:41234] "GET" "k")") << 1700000000.2 << 0
                          << QByteArray("[::1]:41234") << Args{"GET", "k"};
    QTest::newRow("escapes") << QByteArray(R"(1.5 [0 127.0.0.1:1] "SET" "a\"b\\c" "\x00\xff\xAB\n\r\t\a\b")") << 1.5
                             << 0 << QByteArray("127.0.0.1:1")
                             << Args{"SET", "a\"b\\c", QByteArray("\x00\xff\xab\n\r\t\a\b", 8)};
    QTest::newRow("empty argument") << QByteArray(R"(2.0 [0 127.0.0.1:1] "SET" "" "v")") << 2.0 << 0
                                    << QByteArray("127.0.0.1:1") << Args{"SET", "", "v"};
    // An argument holding "] \"" cannot end the client: the first one after '[' does.
    QTest::newRow("bracket in argument") << QByteArray(R"(2.0 [0 127.0.0.1:1] "SET" "x] " "y")") << 2.0 << 0
                                         << QByteArray("127.0.0.1:1") << Args{"SET", "x] ", "y"};
    QTest::newRow("spaces in argument") << QByteArray(R"(2.0 [0 127.0.0.1:1] "ECHO" "a b  c")") << 2.0 << 0
                                        << QByteArray("127.0.0.1:1") << Args{"ECHO", "a b  c"};
    QTest::newRow("trailing newline") << QByteArray("3.25 [0 127.0.0.1:1] \"PING\"\r\n") << 3.25 << 0
                                      << QByteArray("127.0.0.1:1") << Args{"PING"};
    QTest::newRow("utf-8 kept") << QByteArray("3.0 [0 127.0.0.1:1] \"SET\" \"caf\xc3\xa9\"") << 3.0 << 0
                                << QByteArray("127.0.0.1:1") << Args{"SET", "caf\xc3\xa9"};
    QTest::newRow("redacted auth") << QByteArray(R"x(4.0 [0 127.0.0.1:1] "AUTH" "(redacted)")x") << 4.0 << 0
                                   << QByteArray("127.0.0.1:1") << Args{"AUTH", "(redacted)"};
}

void TestProfiler::parsesMonitorLine()
{
    QFETCH(QByteArray, line);
    MonitorLine m;
    QString error;
    QVERIFY2(parseMonitorLine(line, &m, &error), qPrintable(error));
    QFETCH(double, time);
    QFETCH(int, db);
    QFETCH(QByteArray, client);
    QFETCH(QList<QByteArray>, args);
    QCOMPARE(m.time, time);
    QCOMPARE(m.db, db);
    QCOMPARE(m.client, client);
    QCOMPARE(m.args, args);
}

void TestProfiler::rejectsMalformedLine_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("OK reply") << QByteArray("OK");
    QTest::newRow("no time") << QByteArray(R"([0 127.0.0.1:1] "GET")");
    QTest::newRow("time without fraction") << QByteArray(R"(17 [0 127.0.0.1:1] "GET")");
    QTest::newRow("time not a number") << QByteArray(R"(1x.5 [0 127.0.0.1:1] "GET")");
    QTest::newRow("no bracket") << QByteArray(R"(1.5 0 127.0.0.1:1 "GET")");
    QTest::newRow("no db") << QByteArray(R"(1.5 [ 127.0.0.1:1] "GET")");
    QTest::newRow("no arguments") << QByteArray("1.5 [0 127.0.0.1:1]");
    QTest::newRow("unquoted argument") << QByteArray(R"(1.5 [0 127.0.0.1:1] "GET" key)");
    QTest::newRow("unclosed quote") << QByteArray(R"(1.5 [0 127.0.0.1:1] "GET" "key)");
    QTest::newRow("backslash at end") << QByteArray(R"(1.5 [0 127.0.0.1:1] "GET" "key\)");
    QTest::newRow("short hex") << QByteArray(R"(1.5 [0 127.0.0.1:1] "GET" "\x4")");
    QTest::newRow("bad hex") << QByteArray(R"(1.5 [0 127.0.0.1:1] "GET" "\xzz")");
    QTest::newRow("unknown escape") << QByteArray(R"(1.5 [0 127.0.0.1:1] "GET" "\q")");
    QTest::newRow("no space between") << QByteArray(R"(1.5 [0 127.0.0.1:1] "GET""key")");
    QTest::newRow("space at end") << QByteArray("1.5 [0 127.0.0.1:1] \"GET\" ");
}

void TestProfiler::rejectsMalformedLine()
{
    QFETCH(QByteArray, line);
    MonitorLine m;
    QString error;
    QVERIFY(!parseMonitorLine(line, &m, &error));
    QVERIFY(!error.isEmpty());
}

void TestProfiler::commandNames()
{
    QCOMPARE(commandName({"GET", "k"}), QByteArray("get"));
    QCOMPARE(commandName({"CONFIG", "GET", "maxmemory"}), QByteArray("config|get"));
    QCOMPARE(commandName({"client", "List"}), QByteArray("client|list"));
    QCOMPARE(commandName({"CLIENT"}), QByteArray("client"));
    QCOMPARE(commandName({}), QByteArray());
}

void TestProfiler::keysOfCommands_data()
{
    QTest::addColumn<QList<QByteArray>>("args");
    QTest::addColumn<QList<QByteArray>>("keys");
    QTest::newRow("get") << Args{"GET", "a"} << Args{"a"};
    QTest::newRow("set with options") << Args{"SET", "lock:1", "tok", "NX", "PX", "3000"} << Args{"lock:1"};
    QTest::newRow("mget") << Args{"MGET", "a", "b", "c"} << Args{"a", "b", "c"};
    QTest::newRow("del") << Args{"del", "a", "b"} << Args{"a", "b"};
    QTest::newRow("mset") << Args{"MSET", "a", "1", "b", "2"} << Args{"a", "b"};
    QTest::newRow("blpop") << Args{"BLPOP", "q1", "q2", "5"} << Args{"q1", "q2"};
    QTest::newRow("lmove") << Args{"LMOVE", "src", "dst", "LEFT", "RIGHT"} << Args{"src", "dst"};
    QTest::newRow("eval") << Args{"EVAL", "return 1", "2", "k1", "k2", "arg"} << Args{"k1", "k2"};
    QTest::newRow("evalsha no keys") << Args{"EVALSHA", "abc", "0", "arg"} << Args{};
    QTest::newRow("zunionstore") << Args{"ZUNIONSTORE", "dst", "2", "z1", "z2", "WEIGHTS", "1", "2"}
                                 << Args{"dst", "z1", "z2"};
    QTest::newRow("zinter") << Args{"ZINTER", "2", "z1", "z2"} << Args{"z1", "z2"};
    QTest::newRow("xreadgroup") << Args{"XREADGROUP", "GROUP", "g", "c", "COUNT", "10", "STREAMS", "s1", "s2", ">", ">"}
                                << Args{"s1", "s2"};
    QTest::newRow("object freq") << Args{"OBJECT", "FREQ", "hot"} << Args{"hot"};
    QTest::newRow("memory usage") << Args{"MEMORY", "USAGE", "big"} << Args{"big"};
    QTest::newRow("ping") << Args{"PING"} << Args{};
    QTest::newRow("info") << Args{"INFO", "commandstats"} << Args{};
    QTest::newRow("scan") << Args{"SCAN", "0", "COUNT", "100"} << Args{};
    QTest::newRow("client setname") << Args{"CLIENT", "SETNAME", "x"} << Args{};
    QTest::newRow("publish") << Args{"PUBLISH", "chan", "msg"} << Args{};
    QTest::newRow("module command") << Args{"JSON.GET", "doc:1", "$"} << Args{"doc:1"};
    QTest::newRow("binary key") << Args{"GET", QByteArray("\x00\xff", 2)} << Args{QByteArray("\x00\xff", 2)};
}

void TestProfiler::keysOfCommands()
{
    QFETCH(QList<QByteArray>, args);
    QFETCH(QList<QByteArray>, keys);
    QCOMPARE(keysOf(args), keys);
}

void TestProfiler::summaryCountsAndOwn()
{
    MonitorSummary s;
    s.setOwnClients({"127.0.0.1:7000"});
    const QList<QByteArray> lines{
        R"(1.0 [0 127.0.0.1:5000] "GET" "user:1001:profile")",
        R"(1.1 [0 127.0.0.1:5000] "GET" "user:1002:profile")",
        R"(1.2 [0 127.0.0.1:5000] "GET" "user:1001:profile")",
        R"(1.3 [0 127.0.0.1:5001] "INCR" "rate:42:1700000000")",
        R"(1.4 [0 lua] "SET" "lock:orders" "t")",
        R"(1.5 [0 127.0.0.1:7000] "INFO" "commandstats")",
        R"(1.6 [0 127.0.0.1:7000] "SCAN" "0")",
        "not a monitor line",
    };
    for (const QByteArray &l : lines)
        s.addLine(l);
    QCOMPARE(s.lines(), 7);
    QCOMPARE(s.ownLines(), 2);
    QCOMPARE(s.malformed(), 1);
    QCOMPARE(s.firstMalformed(), QByteArray("not a monitor line"));
    QCOMPARE(s.firstTime(), 1.0);
    QCOMPARE(s.lastTime(), 1.6);

    const auto commands = s.topCommands(10);
    QCOMPARE(commands.size(), 3); // RedisLens's INFO and SCAN are left out
    QCOMPARE(commands.at(0).name, QByteArray("get"));
    QCOMPARE(commands.at(0).lines, 3);

    const auto families = s.topFamilies(10);
    QCOMPARE(families.size(), 3);
    QCOMPARE(families.at(0).family, familyOf("user:1001:profile"));
    QCOMPARE(families.at(0).lines, 3);
    QCOMPARE(families.at(0).keys, 2);
    QCOMPARE(families.at(0).sampleKey, QByteArray("user:1001:profile")); // the busiest key
    QCOMPARE(families.at(0).topCommand, QByteArray("get"));
    QVERIFY(!families.at(0).kindKnown);
    s.setFamilyKind(families.at(0).family, PatternKind::CacheEntry);
    QCOMPARE(s.topFamilies(1).at(0).kind, PatternKind::CacheEntry);
    QVERIFY(s.topFamilies(1).at(0).kindKnown);

    const auto keys = s.topKeys(1);
    QCOMPARE(keys.at(0).name, QByteArray("user:1001:profile"));
    QCOMPARE(keys.at(0).lines, 2);

    s.setClientNames({{"127.0.0.1:5000", "web"}, {"127.0.0.1:7000", "redislens"}}, {"127.0.0.1:5001"});
    const auto clients = s.topClients(10);
    QCOMPARE(clients.size(), 4);
    QCOMPARE(clients.at(0).addr, QByteArray("127.0.0.1:5000"));
    QCOMPARE(clients.at(0).name, QByteArray("web"));
    QCOMPARE(clients.at(0).lines, 3);
    QVERIFY(!clients.at(0).own);
    QCOMPARE(clients.at(1).addr, QByteArray("127.0.0.1:7000"));
    QVERIFY(clients.at(1).own);
    QCOMPARE(clients.at(1).lines, 2);
    bool sawLua = false, laterOwn = false;
    for (const auto &c : clients) {
        sawLua = sawLua || (c.addr == "lua" && c.topCommand == "set");
        laterOwn = laterOwn || (c.addr == "127.0.0.1:5001" && c.own);
    }
    QVERIFY(sawLua);
    QVERIFY(laterOwn);
}

void TestProfiler::summaryBounds()
{
    MonitorSummary s;
    // More distinct keys than are tracked: counted, not kept.
    for (int i = 0; i < MonitorSummary::kMaxKeys + 100; ++i) {
        MonitorLine m;
        m.time = 1;
        m.client = "127.0.0.1:1";
        m.args = {"GET", "k:" + QByteArray::number(i)};
        s.add(m);
    }
    QCOMPARE(s.topKeys(-1).size(), MonitorSummary::kMaxKeys);
    QCOMPARE(s.untrackedKeyLines(), 100);
    QCOMPARE(s.topFamilies(-1).size(), 1);
    QCOMPARE(s.topFamilies(1).at(0).lines, MonitorSummary::kMaxKeys + 100);
    // A line naming many keys counts at most kMaxKeysPerLine of them.
    Args del{"DEL"};
    for (int i = 0; i < 1000; ++i)
        del << "d:" + QByteArray::number(i);
    QCOMPARE(keysOf(del).size(), kMaxKeysPerLine);
}

void TestProfiler::topKeysKeepsHighest()
{
    TopKeys top(3);
    top.add("a", 5);
    top.add("b", 9);
    top.add("c", 1);
    top.add("d", 7);
    top.add("e", 0);
    top.add("b", 10); // read again
    QCOMPARE(top.added(), 6);
    const QList<HotKey> keys = top.top();
    QCOMPARE(keys.size(), 3);
    QCOMPARE(keys.at(0).key, QByteArray("b"));
    QCOMPARE(keys.at(0).value, 10);
    QCOMPARE(keys.at(1).key, QByteArray("d"));
    QCOMPARE(keys.at(2).key, QByteArray("a"));
    QCOMPARE(keys.at(2).family, familyOf("a"));
}

void TestProfiler::parsesHotkeysGet()
{
    // The layout HOTKEYS GET documents (Redis 8.6): names and values, the rankings as flat lists.
    const RedisValue reply = RedisValue::array({
        RedisValue::bulk("tracking-active"),
        RedisValue::integer(0),
        RedisValue::bulk("sample-ratio"),
        RedisValue::integer(1),
        RedisValue::bulk("selected-slots"),
        RedisValue::array({}),
        RedisValue::bulk("collection-start-time-unix-ms"),
        RedisValue::integer(1769420604522),
        RedisValue::bulk("collection-duration-ms"),
        RedisValue::integer(6408),
        RedisValue::bulk("by-cpu-time-us"),
        RedisValue::array({RedisValue::bulk("user:1:cart"), RedisValue::integer(104), RedisValue::bulk("y"),
                           RedisValue::integer(98)}),
        RedisValue::bulk("by-net-bytes"),
        RedisValue::array({RedisValue::bulk("y"), RedisValue::integer(4000)}),
    });
    const HotkeysReport r = parseHotkeysGet(reply);
    QVERIFY(r.present);
    QVERIFY(!r.active);
    QCOMPARE(r.startMs, 1769420604522);
    QCOMPARE(r.durationMs, 6408);
    QCOMPARE(r.byCpuUs.size(), 2);
    QCOMPARE(r.byCpuUs.at(0).key, QByteArray("user:1:cart"));
    QCOMPARE(r.byCpuUs.at(0).value, 104);
    QCOMPARE(r.byCpuUs.at(0).family, familyOf("user:1:cart"));
    QCOMPARE(r.byNetBytes.size(), 1);
    QCOMPARE(r.byNetBytes.at(0).value, 4000);
    QVERIFY(!parseHotkeysGet(RedisValue::nil()).present);
    QVERIFY(!parseHotkeysGet(RedisValue::array({})).present);
}

QTEST_GUILESS_MAIN(TestProfiler)
#include "tst_profiler.moc"
