// SPDX-License-Identifier: GPL-3.0-or-later
#include "redisvalue.h"
#include "respcodec.h"
#include "slowlog.h"
#include "testdata.h"

#include <QFile>
#include <QTest>

namespace {

RedisValue bulk(const QByteArray &b)
{
    return RedisValue::bulk(b);
}

RedisValue integer(qint64 v)
{
    return RedisValue::integer(v);
}

RedisValue arr(QList<RedisValue> v)
{
    return RedisValue::array(std::move(v));
}

RedisValue argv(const QList<QByteArray> &args)
{
    QList<RedisValue> v;
    for (const QByteArray &a : args)
        v.append(bulk(a));
    return arr(v);
}

// A six-field entry as Redis >= 4.0 sends it.
RedisValue entry(qint64 id, const QList<QByteArray> &args, qint64 durationUs = 100)
{
    return arr(
        {integer(id), integer(1700000000), integer(durationUs), argv(args), bulk("127.0.0.1:5000"), bulk("app")});
}

const QByteArray x128(128, 'x');

} // namespace

class TestSlowlogParser : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void recordedSlowlog_data();
    void recordedSlowlog();
    void recordedEmpty_data();
    void recordedEmpty();
    void recordedLatency_data();
    void recordedLatency();
    void recordedConfig_data();
    void recordedConfig();

    void markers_data();
    void markers();
    void shortenedKeyIsNoKey();
    void binaryArguments();
    void oldStyleEntry();
    void newerFieldsIgnored();
    void malformed_data();
    void malformed();
    void keyIndex_data();
    void keyIndex();
    void commandName_data();
    void commandName();
    void displayText();
    void latencyWithSumAndCount();
    void configFromBothFields();
};

void TestSlowlogParser::recordedSlowlog_data()
{
    QTest::addColumn<QString>("version");
    QTest::newRow("7.0") << QStringLiteral("7.0");
    QTest::newRow("8.0") << QStringLiteral("8.0");
}

void TestSlowlogParser::recordedSlowlog()
{
    QFETCH(QString, version);
    QList<SlowlogEntry> entries;
    QString error;
    QVERIFY2(slowlog::parseEntries(recordedValue(QStringLiteral("slowlog-get-%1.resp").arg(version)), &entries, &error),
             qPrintable(error));
    // See tests/data/replies/README.md for the commands behind each entry.
    QCOMPARE(entries.size(), 8);
    for (int i = 0; i < entries.size(); ++i) {
        QCOMPARE(entries.at(i).id, qint64(8 - i)); // newest first
        QVERIFY(entries.at(i).timestamp > 1'600'000'000);
        QCOMPARE(entries.at(i).clientName, QByteArray("recorder"));
        QVERIFY(entries.at(i).clientAddress.startsWith("127.0.0.1:"));
    }
    auto byId = [&](qint64 id) -> const SlowlogEntry & { return entries.at(8 - id); };

    const SlowlogEntry &eval = byId(8);
    QCOMPARE(eval.args, (QList<QByteArray>{"EVAL", "return 1", "0"}));
    QCOMPARE(eval.keyIndex(), -1); // numkeys 0
    QVERIFY(!eval.truncated);

    const SlowlogEntry &hgetall = byId(7);
    QCOMPARE(hgetall.commandName(), QByteArray("HGETALL"));
    QCOMPARE(hgetall.key(), QByteArray("somehash"));

    const SlowlogEntry &bin = byId(6);
    QCOMPARE(bin.key(), QByteArray("slow:bin\x00\xff", 10));
    QCOMPARE(bin.args.at(2),
             QByteArray("\x00\xff\x01"
                        "binary\xfe\r\n",
                        12));
    QVERIFY(!bin.truncated);

    const SlowlogEntry &longArg = byId(5);
    QVERIFY(longArg.truncated);
    QCOMPARE(longArg.args.size(), 3);
    QCOMPARE(longArg.args.at(2), QByteArray(128, 'x'));
    QCOMPARE(longArg.argMissingBytes, (QList<qint64>{0, 0, 172}));
    QVERIFY(!longArg.isArgumentComplete(2));
    QCOMPARE(longArg.key(), QByteArray("slow:long"));
    QVERIFY(slowlog::displayText(longArg).endsWith(QStringLiteral("…(+172 bytes)")));

    const SlowlogEntry &rpush = byId(4);
    QVERIFY(rpush.truncated);
    QCOMPARE(rpush.args.size(), 31);
    QCOMPARE(rpush.moreArguments, 10);
    QCOMPARE(rpush.originalArgumentCount(), 41); // RPUSH biglist a1..a39
    QCOMPARE(rpush.args.constLast(), QByteArray("a29"));
    QVERIFY(!rpush.args.contains("... (10 more arguments)"));
    QCOMPARE(rpush.key(), QByteArray("biglist"));

    const SlowlogEntry &sleep = byId(3);
    QCOMPARE(sleep.commandName(), QByteArray("DEBUG SLEEP"));
    QVERIFY(sleep.durationUs >= 20'000);
    QVERIFY(!sleep.hasKey());

    QCOMPARE(byId(2).args, (QList<QByteArray>{"SET", "slow:key", "value"}));
    QCOMPARE(byId(1).commandName(), QByteArray("SLOWLOG RESET"));
    QVERIFY(!byId(1).hasKey());
}

void TestSlowlogParser::recordedEmpty_data()
{
    recordedSlowlog_data();
}

void TestSlowlogParser::recordedEmpty()
{
    QFETCH(QString, version);
    QList<SlowlogEntry> entries{SlowlogEntry()};
    QVERIFY(slowlog::parseEntries(recordedValue(QStringLiteral("slowlog-empty-%1.resp").arg(version)), &entries));
    QVERIFY(entries.isEmpty());
}

void TestSlowlogParser::recordedLatency_data()
{
    recordedSlowlog_data();
}

void TestSlowlogParser::recordedLatency()
{
    QFETCH(QString, version);
    QList<LatencyEvent> events;
    QString error;
    QVERIFY2(slowlog::parseLatencyLatest(recordedValue(QStringLiteral("latency-latest-%1.resp").arg(version)), &events,
                                         &error),
             qPrintable(error));
    QCOMPARE(events.size(), 1);
    QCOMPARE(events.first().name, QByteArray("command"));
    QVERIFY(events.first().latestTimestamp > 1'600'000'000);
    QCOMPARE(events.first().latestMs, 20); // DEBUG SLEEP 0.02
    QCOMPARE(events.first().maxMs, 20);
    QCOMPARE(events.first().count, -1);

    QList<LatencySample> samples;
    QVERIFY2(slowlog::parseLatencyHistory(recordedValue(QStringLiteral("latency-history-%1.resp").arg(version)),
                                          &samples, &error),
             qPrintable(error));
    QCOMPARE(samples.size(), 2);
    QVERIFY(samples.at(0).timestamp < samples.at(1).timestamp); // 1.1 s apart
    QCOMPARE(samples.at(0).latencyMs, 20);
    QCOMPARE(samples.at(1).latencyMs, 20);
    QCOMPARE(samples.at(1).timestamp, events.first().latestTimestamp);

    events = {LatencyEvent()};
    QVERIFY(slowlog::parseLatencyLatest(recordedValue(QStringLiteral("latency-latest-empty-%1.resp").arg(version)),
                                        &events));
    QVERIFY(events.isEmpty());
}

void TestSlowlogParser::recordedConfig_data()
{
    recordedSlowlog_data();
}

void TestSlowlogParser::recordedConfig()
{
    QFETCH(QString, version);
    const auto config = slowlog::parseConfigGet(recordedValue(QStringLiteral("config-slowlog-%1.resp").arg(version)));
    QCOMPARE(config.size(), 1);
    QCOMPARE(config.value("slowlog-log-slower-than"), QByteArray("10000"));
    // Half of what the header needs is not enough to claim it is known.
    QVERIFY(!slowlog::configFrom(config).known);
}

void TestSlowlogParser::markers_data()
{
    QTest::addColumn<QList<QByteArray>>("raw");
    QTest::addColumn<QList<QByteArray>>("args");
    QTest::addColumn<qint64>("moreArguments");
    QTest::addColumn<QList<qint64>>("missing");

    QList<QByteArray> thirtyOne{"MSET"};
    for (int i = 1; i < 31; ++i)
        thirtyOne << "k" + QByteArray::number(i);
    QTest::newRow("more arguments") << (thirtyOne + QList<QByteArray>{"... (7 more arguments)"}) << thirtyOne
                                    << qint64(7) << QList<qint64>();
    // Only the 32nd argument can be the server's marker; elsewhere it is what the client sent.
    QTest::newRow("marker text as 31st argument")
        << (thirtyOne.mid(0, 30) + QList<QByteArray>{"... (7 more arguments)"})
        << (thirtyOne.mid(0, 30) + QList<QByteArray>{"... (7 more arguments)"}) << qint64(0) << QList<qint64>();
    QTest::newRow("32nd argument not a count")
        << (thirtyOne + QList<QByteArray>{"... (seven more arguments)"})
        << (thirtyOne + QList<QByteArray>{"... (seven more arguments)"}) << qint64(0) << QList<qint64>();
    QTest::newRow("shortened string") << QList<QByteArray>{"SET", "k", x128 + "... (5 more bytes)"}
                                      << QList<QByteArray>{"SET", "k", x128} << qint64(0) << QList<qint64>{0, 0, 5};
    QTest::newRow("marker after 127 bytes is real")
        << QList<QByteArray>{"SET", "k", QByteArray(127, 'y') + "... (5 more bytes)"}
        << QList<QByteArray>{"SET", "k", QByteArray(127, 'y') + "... (5 more bytes)"} << qint64(0) << QList<qint64>();
    QTest::newRow("short text that looks like a marker")
        << QList<QByteArray>{"SET", "k", "abc... (3 more bytes)"}
        << QList<QByteArray>{"SET", "k", "abc... (3 more bytes)"} << qint64(0) << QList<qint64>();
    QTest::newRow("zero more bytes is not a marker")
        << QList<QByteArray>{"SET", "k", x128 + "... (0 more bytes)"}
        << QList<QByteArray>{"SET", "k", x128 + "... (0 more bytes)"} << qint64(0) << QList<qint64>();
    QTest::newRow("binary shortened string")
        << QList<QByteArray>{"SET", "k", QByteArray(128, '\0') + "... (900 more bytes)"}
        << QList<QByteArray>{"SET", "k", QByteArray(128, '\0')} << qint64(0) << QList<qint64>{0, 0, 900};
    QTest::newRow("both") << (QList<QByteArray>{"MSET", x128 + "... (1 more bytes)"} + thirtyOne.mid(2)
                              + QList<QByteArray>{"... (4 more arguments)"})
                          << (QList<QByteArray>{"MSET", x128} + thirtyOne.mid(2)) << qint64(4)
                          << (QList<qint64>{0, 1} + QList<qint64>(29, 0));
}

void TestSlowlogParser::markers()
{
    QFETCH(QList<QByteArray>, raw);
    QFETCH(QList<QByteArray>, args);
    QFETCH(qint64, moreArguments);
    QFETCH(QList<qint64>, missing);
    SlowlogEntry e;
    QString error;
    QVERIFY2(slowlog::parseEntry(entry(1, raw), &e, &error), qPrintable(error));
    QCOMPARE(e.args, args);
    QCOMPARE(e.moreArguments, moreArguments);
    QCOMPARE(e.argMissingBytes, missing);
    QCOMPARE(e.truncated, moreArguments > 0 || !missing.isEmpty());
    for (int i = 0; i < e.args.size(); ++i)
        QCOMPARE(e.isArgumentComplete(i), missing.isEmpty() || missing.at(i) == 0);
}

void TestSlowlogParser::shortenedKeyIsNoKey()
{
    SlowlogEntry e;
    QVERIFY(slowlog::parseEntry(entry(1, {"GET", x128 + "... (40 more bytes)"}), &e));
    QVERIFY(e.truncated);
    QCOMPARE(e.keyIndex(), -1);
    QVERIFY(e.key().isNull());

    // A key past the logged arguments is gone too: EVAL with 40 keys keeps only the first ones.
    QList<QByteArray> raw{"EVAL", "return 1", "40"};
    for (int i = 0; i < 28; ++i)
        raw << "key" + QByteArray::number(i);
    raw << "... (13 more arguments)";
    QVERIFY(slowlog::parseEntry(entry(2, raw), &e));
    QCOMPARE(e.key(), QByteArray("key0"));
    QVERIFY(slowlog::parseEntry(entry(3, {"EVAL", x128 + "... (9 more bytes)", "1", "k"}), &e));
    QCOMPARE(e.key(), QByteArray("k")); // the script was shortened, not the key
}

void TestSlowlogParser::binaryArguments()
{
    const QByteArray key("\x00\xff\r\n \"q\"", 8);
    SlowlogEntry e;
    QVERIFY(slowlog::parseEntry(entry(9, {"HGETALL", key}), &e));
    QCOMPARE(e.key(), key);
    QCOMPARE(e.key().size(), 8);
    QCOMPARE(slowlog::displayText(e), QStringLiteral("HGETALL \"\\x00\\xff\\r\\n \\\"q\\\"\""));
}

void TestSlowlogParser::oldStyleEntry()
{
    // Redis before 4.0: id, time, duration, arguments.
    SlowlogEntry e;
    QString error;
    QVERIFY2(slowlog::parseEntry(arr({integer(14), integer(1309448221), integer(15), argv({"ping"})}), &e, &error),
             qPrintable(error));
    QCOMPARE(e.id, 14);
    QCOMPARE(e.timestamp, 1309448221);
    QCOMPARE(e.durationUs, 15);
    QCOMPARE(e.args, QList<QByteArray>{"ping"});
    QVERIFY(e.clientAddress.isEmpty());
    QVERIFY(e.clientName.isEmpty());
    QCOMPARE(e.commandName(), QByteArray("PING"));
}

void TestSlowlogParser::newerFieldsIgnored()
{
    SlowlogEntry e;
    QVERIFY(slowlog::parseEntry(arr({integer(1), integer(2), integer(3), argv({"GET", "k"}), bulk("addr"), bulk("name"),
                                     integer(99), bulk("future")}),
                                &e));
    QCOMPARE(e.clientAddress, QByteArray("addr"));
    QCOMPARE(e.clientName, QByteArray("name"));
    QCOMPARE(e.key(), QByteArray("k"));
}

void TestSlowlogParser::malformed_data()
{
    QTest::addColumn<RedisValue>("reply");
    QTest::newRow("error reply") << RedisValue::error(
        "NOPERM this user has no permissions to run the 'slowlog|get' command");
    QTest::newRow("not an array") << bulk("nope");
    QTest::newRow("entry not an array") << arr({bulk("x")});
    QTest::newRow("three fields") << arr({arr({integer(1), integer(2), integer(3)})});
    QTest::newRow("id not integer") << arr({arr({bulk("one"), integer(2), integer(3), argv({"GET"})})});
    QTest::newRow("duration not integer") << arr({arr({integer(1), integer(2), bulk("fast"), argv({"GET"})})});
    QTest::newRow("arguments not an array") << arr({arr({integer(1), integer(2), integer(3), bulk("GET k")})});
    QTest::newRow("argument is an array") << arr({arr({integer(1), integer(2), integer(3), arr({arr({})})})});
}

void TestSlowlogParser::malformed()
{
    QFETCH(RedisValue, reply);
    QList<SlowlogEntry> entries;
    QString error;
    QVERIFY(!slowlog::parseEntries(reply, &entries, &error));
    QVERIFY(!error.isEmpty());
}

void TestSlowlogParser::keyIndex_data()
{
    QTest::addColumn<QList<QByteArray>>("args");
    QTest::addColumn<int>("index");
    QTest::newRow("GET") << QList<QByteArray>{"GET", "k"} << 1;
    QTest::newRow("lower case") << QList<QByteArray>{"hgetall", "h"} << 1;
    QTest::newRow("no arguments") << QList<QByteArray>{"GET"} << -1;
    QTest::newRow("KEYS pattern") << QList<QByteArray>{"KEYS", "*"} << -1;
    QTest::newRow("FLUSHALL") << QList<QByteArray>{"FLUSHALL", "ASYNC"} << -1;
    QTest::newRow("DEBUG SLEEP") << QList<QByteArray>{"DEBUG", "SLEEP", "0.01"} << -1;
    QTest::newRow("CONFIG SET") << QList<QByteArray>{"CONFIG", "SET", "maxmemory", "0"} << -1;
    QTest::newRow("PUBLISH channel") << QList<QByteArray>{"PUBLISH", "news", "hi"} << -1;
    QTest::newRow("EVAL with keys") << QList<QByteArray>{"EVAL", "return 1", "2", "a", "b"} << 3;
    QTest::newRow("EVAL no keys") << QList<QByteArray>{"EVAL", "return 1", "0", "arg"} << -1;
    QTest::newRow("EVALSHA") << QList<QByteArray>{"evalsha", "abc", "1", "k"} << 3;
    QTest::newRow("FCALL") << QList<QByteArray>{"FCALL", "f", "1", "k", "arg"} << 3;
    QTest::newRow("FCALL_RO no keys") << QList<QByteArray>{"FCALL_RO", "f", "0"} << -1;
    QTest::newRow("EVAL numkeys beyond") << QList<QByteArray>{"EVAL", "return 1", "1"} << -1;
    QTest::newRow("ZUNION") << QList<QByteArray>{"ZUNION", "2", "a", "b"} << 2;
    QTest::newRow("ZUNIONSTORE") << QList<QByteArray>{"ZUNIONSTORE", "dest", "2", "a", "b"} << 1;
    QTest::newRow("BLMPOP") << QList<QByteArray>{"BLMPOP", "0", "1", "l", "LEFT"} << 3;
    QTest::newRow("BITOP") << QList<QByteArray>{"BITOP", "AND", "dest", "a", "b"} << 2;
    QTest::newRow("XREAD") << QList<QByteArray>{"XREAD", "COUNT", "2", "STREAMS", "s1", "s2", "0", "0"} << 4;
    QTest::newRow("XREADGROUP") << QList<QByteArray>{"XREADGROUP", "GROUP", "g", "c", "streams", "s", ">"} << 5;
    QTest::newRow("OBJECT ENCODING") << QList<QByteArray>{"OBJECT", "ENCODING", "k"} << 2;
    QTest::newRow("OBJECT HELP") << QList<QByteArray>{"OBJECT", "HELP"} << -1;
    QTest::newRow("MEMORY USAGE") << QList<QByteArray>{"MEMORY", "USAGE", "k"} << 2;
    QTest::newRow("XINFO STREAM") << QList<QByteArray>{"XINFO", "STREAM", "s"} << 2;
    QTest::newRow("MIGRATE one key") << QList<QByteArray>{"MIGRATE", "h", "6379", "k", "0", "5000"} << 3;
    QTest::newRow("MIGRATE KEYS") << QList<QByteArray>{"MIGRATE", "h", "6379", "", "0", "5000", "KEYS", "a", "b"} << 7;
    QTest::newRow("module index") << QList<QByteArray>{"FT.SEARCH", "idx", "*"} << -1;
}

void TestSlowlogParser::keyIndex()
{
    QFETCH(QList<QByteArray>, args);
    QFETCH(int, index);
    QCOMPARE(slowlog::keyIndexOf(args), index);
    SlowlogEntry e;
    e.args = args;
    QCOMPARE(e.hasKey(), index >= 0);
    if (index >= 0)
        QCOMPARE(e.key(), args.at(index));
}

void TestSlowlogParser::commandName_data()
{
    QTest::addColumn<QList<QByteArray>>("args");
    QTest::addColumn<QByteArray>("name");
    QTest::newRow("plain") << QList<QByteArray>{"get", "k"} << QByteArray("GET");
    QTest::newRow("subcommand") << QList<QByteArray>{"config", "set", "a", "b"} << QByteArray("CONFIG SET");
    QTest::newRow("container alone") << QList<QByteArray>{"CLIENT"} << QByteArray("CLIENT");
    QTest::newRow("odd subcommand") << QList<QByteArray>{"DEBUG", "a b"} << QByteArray("DEBUG");
    QTest::newRow("not a container") << QList<QByteArray>{"SET", "k", "v"} << QByteArray("SET");
    QTest::newRow("empty") << QList<QByteArray>{} << QByteArray();
}

void TestSlowlogParser::commandName()
{
    QFETCH(QList<QByteArray>, args);
    QFETCH(QByteArray, name);
    SlowlogEntry e;
    e.args = args;
    QCOMPARE(e.commandName(), name);
}

void TestSlowlogParser::displayText()
{
    SlowlogEntry e;
    QList<QByteArray> raw{"SET", "user:1", x128 + "... (872 more bytes)"};
    for (int i = 3; i < 31; ++i)
        raw << "x";
    raw << "... (3 more arguments)";
    QVERIFY(slowlog::parseEntry(entry(1, raw), &e));
    const QString full = slowlog::displayText(e);
    QVERIFY(full.startsWith(QStringLiteral("SET user:1 ") + QString(128, QLatin1Char('x'))
                            + QStringLiteral("…(+872 bytes) x")));
    QVERIFY(full.endsWith(QStringLiteral(" x …(+3 more arguments)")));

    // Cut per argument: the bytes we hide add to what the server left out.
    const QString cut = slowlog::displayText(e, 10);
    QVERIFY(cut.startsWith(QStringLiteral("SET user:1 xxxxxxxxxx…(+990 bytes) x")));
    const QString shortText = slowlog::displayText(e, 10, 30);
    QCOMPARE(shortText.size(), 30);
    QVERIFY(shortText.endsWith(QStringLiteral("…")));

    // A UTF-8 sequence is not split by the cut.
    SlowlogEntry u;
    u.args = {"GET", QByteArray("ab\xc3\xa9\xc3\xa9")};
    QCOMPARE(slowlog::displayText(u, 3), QStringLiteral("GET ab…(+4 bytes)"));
    QCOMPARE(slowlog::displayText(u, 4), QStringLiteral("GET abé…(+2 bytes)"));
}

void TestSlowlogParser::latencyWithSumAndCount()
{
    QList<LatencyEvent> events;
    QVERIFY(slowlog::parseLatencyLatest(
        arr({arr({bulk("command"), integer(1738651470), integer(254), integer(1005), integer(1259), integer(2)}),
             arr({bulk("fork"), integer(1738651400), integer(12), integer(30)})}),
        &events));
    QCOMPARE(events.size(), 2);
    QCOMPARE(events.at(0).sumMs, 1259);
    QCOMPARE(events.at(0).count, 2);
    QCOMPARE(events.at(1).name, QByteArray("fork"));
    QCOMPARE(events.at(1).sumMs, -1);

    QString error;
    QVERIFY(!slowlog::parseLatencyLatest(arr({arr({bulk("command"), integer(1)})}), &events, &error));
    QVERIFY(!error.isEmpty());
    QList<LatencySample> samples;
    QVERIFY(!slowlog::parseLatencyHistory(arr({arr({integer(1)})}), &samples, &error));
    QVERIFY(!slowlog::parseLatencyHistory(RedisValue::error("ERR x"), &samples, &error));
    QCOMPARE(error, QStringLiteral("ERR x"));
}

void TestSlowlogParser::configFromBothFields()
{
    const auto config = slowlog::parseConfigGet(
        arr({bulk("slowlog-max-len"), bulk("64"), bulk("slowlog-log-slower-than"), bulk("-1")}));
    const SlowlogConfig c = slowlog::configFrom(config);
    QVERIFY(c.known);
    QCOMPARE(c.slowerThanUs, -1);
    QCOMPARE(c.maxLength, 64);
    QVERIFY(!slowlog::configFrom(slowlog::parseConfigGet(RedisValue::error("NOPERM"))).known);
}

QTEST_GUILESS_MAIN(TestSlowlogParser)
#include "tst_slowlogparser.moc"
