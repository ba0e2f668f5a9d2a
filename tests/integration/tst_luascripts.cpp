// SPDX-License-Identifier: GPL-3.0-or-later
#include "scriptlibrary.h"
#include "testserver.h"

#include <QDateTime>
#include <QRandomGenerator>
#include <QSet>
#include <QTest>

// The pattern scripts against a real redis-server. Clocks are injected through ARGV, so most
// checks need no waiting; where the server's own TTL matters, QTRY_* waits for it.
class TestLuaScripts : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void everyScriptParses();
    void headerFieldsAreParsed();
    void malformedHeaderIsRejected_data();
    void malformedHeaderIsRejected();
    void commandShapes();
    void shaMatchesServerAndEvalShaWorks();
    void evalRoRefusesWritingScripts();

    void fixedWindowAllowsLimitAndResets();
    void slidingWindowSameMillisecondCountsTwice();
    void slidingWindowNeverExceedsLimit();
    void tokenBucketRefillsAtRate();
    void locksRefuseWrongToken();
    void claimDueJobsIsBoundedAndExclusive();
    void claimDueJobsRejectsUnboundedLimit();
    void deadLetterMovesAndAcks();
    void deadLetterRefusesMissingEntry();
    void tagInvalidateDeletesOnlyMembers();
    void cacheGetOrLock();
    void sessionTouchSlides();

private:
    RedisValue run(const char *name, const QList<QByteArray> &keys, const QList<QByteArray> &args);

    TestServer m_server;
};

namespace {

const char *const kExpected[] = {"cache_get_or_lock",  "claim_due_jobs", "fixed_window_limit", "lock_acquire",
                                 "lock_extend",        "lock_release",   "session_touch",      "sliding_window_limit",
                                 "stream_dead_letter", "tag_invalidate", "token_bucket"};

QByteArray num(qint64 v)
{
    return QByteArray::number(v);
}

const QByteArray kGoodHeader = "-- SPDX-License-Identifier: GPL-3.0-or-later\n"
                               "-- name: sample\n"
                               "-- purpose: A sample.\n"
                               "-- keys: counter = rate:user:42 | the counter\n"
                               "-- argv: limit = 10 | hits allowed\n"
                               "-- writes: yes\n"
                               "-- single-slot: yes\n"
                               "-- returns: the count\n"
                               "\n"
                               "return 1\n";

} // namespace

void TestLuaScripts::initTestCase()
{
    QString error;
    QVERIFY2(m_server.start(&error), qPrintable(error));
}

void TestLuaScripts::init()
{
    m_server.flushAll();
}

RedisValue TestLuaScripts::run(const char *name, const QList<QByteArray> &keys, const QList<QByteArray> &args)
{
    const ScriptInfo *script = ScriptLibrary::instance().find(QString::fromLatin1(name));
    if (!script) {
        qWarning("no script %s", name);
        return {};
    }
    return m_server.command(ScriptLibrary::evalCommand(*script, keys, args));
}

void TestLuaScripts::everyScriptParses()
{
    const ScriptLibrary &lib = ScriptLibrary::instance();
    QVERIFY2(lib.errors().isEmpty(), qPrintable(lib.errors().join(QLatin1Char('\n'))));
    QStringList expected;
    for (const char *n : kExpected)
        expected << QString::fromLatin1(n);
    QCOMPARE(lib.names(), expected);
    for (const ScriptInfo &s : lib.scripts()) {
        QVERIFY2(!s.purpose.isEmpty() && !s.returns.isEmpty(), qPrintable(s.name));
        QVERIFY2(!s.keys.isEmpty(), qPrintable(s.name)); // every pattern script touches a key
        QCOMPARE(s.fileName, s.name + QStringLiteral(".lua"));
        QVERIFY(s.source.startsWith("-- SPDX-License-Identifier: GPL-3.0-or-later\n"));
        QCOMPARE(s.sha1.size(), 40);
        // Parsing the shipped text again gives the same answer.
        QString error;
        const std::optional<ScriptInfo> again = ScriptLibrary::parse(s.fileName, s.source, &error);
        QVERIFY2(again.has_value(), qPrintable(error));
        QCOMPARE(again->sha1, s.sha1);
        // Compiles on the server (SCRIPT LOAD checks the syntax).
        const RedisValue loaded = m_server.command(ScriptLibrary::loadCommand(s));
        QVERIFY2(loaded.isString(), qPrintable(s.name + QStringLiteral(": ") + loaded.toDisplayString()));
    }
}

void TestLuaScripts::headerFieldsAreParsed()
{
    const ScriptInfo *fw = ScriptLibrary::instance().find(QStringLiteral("fixed_window_limit"));
    QVERIFY(fw);
    QCOMPARE(fw->purpose, QStringLiteral("Count one hit in a fixed window; allow while under the limit."));
    QCOMPARE(fw->keys.size(), 1);
    QCOMPARE(fw->keys.at(0).name, QStringLiteral("counter"));
    QCOMPARE(fw->keys.at(0).example, QStringLiteral("rate:user:42:28881234"));
    QVERIFY(fw->keys.at(0).meaning.startsWith(QLatin1String("the window's counter key")));
    QCOMPARE(fw->argv.size(), 2);
    QCOMPARE(fw->argv.at(0).name, QStringLiteral("limit"));
    QCOMPARE(fw->argv.at(0).example, QStringLiteral("10"));
    QCOMPARE(fw->argv.at(0).meaning, QStringLiteral("hits allowed per window"));
    QCOMPARE(fw->argv.at(1).name, QStringLiteral("window_ms"));
    QVERIFY(fw->writes);
    QVERIFY(fw->singleSlot);
    QCOMPARE(fw->returns, QStringLiteral("{allowed (1/0), count, ms until the window resets}"));

    const ScriptInfo *tag = ScriptLibrary::instance().find(QStringLiteral("tag_invalidate"));
    QVERIFY(tag);
    QCOMPARE(tag->keys.size(), 2);
    QVERIFY(!tag->keys.at(0).variadic);
    QVERIFY(tag->keys.at(1).variadic);
    QCOMPARE(tag->keys.at(1).name, QStringLiteral("member"));
    QVERIFY(!tag->singleSlot);
    QVERIFY(tag->argv.isEmpty());

    QVERIFY(!ScriptLibrary::instance().find(QStringLiteral("no_such_script")));

    QString error;
    const std::optional<ScriptInfo> sample = ScriptLibrary::parse(QStringLiteral("sample.lua"), kGoodHeader, &error);
    QVERIFY2(sample.has_value(), qPrintable(error));
    QCOMPARE(sample->name, QStringLiteral("sample"));
}

void TestLuaScripts::malformedHeaderIsRejected_data()
{
    QTest::addColumn<QByteArray>("source");
    QTest::addColumn<QString>("fileName");
    QTest::addColumn<QString>("mustContain");

    auto replace = [](const char *from, const char *to) {
        QByteArray s = kGoodHeader;
        s.replace(from, to);
        return s;
    };
    const QString sample = QStringLiteral("sample.lua");
    QTest::newRow("no SPDX line") << replace("-- SPDX-License-Identifier: GPL-3.0-or-later\n", "") << sample
                                  << QStringLiteral("sample.lua line 1:");
    QTest::newRow("purpose missing") << replace("-- purpose: A sample.\n", "") << sample
                                     << QStringLiteral("line 3: \"purpose\" is missing");
    QTest::newRow("argv without meaning") << replace("limit = 10 | hits allowed", "limit = 10") << sample
                                          << QStringLiteral("line 5: expected \"name = example | meaning\"");
    QTest::newRow("writes not yes/no") << replace("writes: yes", "writes: maybe") << sample
                                       << QStringLiteral("line 6: writes must be");
    QTest::newRow("unknown field") << replace("-- single-slot: yes\n", "-- single-slot: yes\n-- flavour: mint\n")
                                   << sample << QStringLiteral("line 8: unknown header field \"flavour\"");
    QTest::newRow("out of order") << replace(
        "-- keys: counter = rate:user:42 | the counter\n-- argv: limit = 10 | hits allowed\n",
        "-- argv: limit = 10 | hits allowed\n-- keys: counter = rate:user:42 | the counter\n")
                                  << sample << QStringLiteral("line 5: \"keys\" is out of order");
    QTest::newRow("name differs from file") << kGoodHeader << QStringLiteral("other.lua")
                                            << QStringLiteral("other.lua line 2: name \"sample\" does not match");
    QTest::newRow("comment without field") << replace("-- writes: yes\n", "-- writes yes\n") << sample
                                           << QStringLiteral("line 6: expected \"-- field: value\"");
    QTest::newRow("header ends early") << replace("-- returns: the count\n", "") << sample
                                       << QStringLiteral("line 8: header ends before \"returns:\"");
    QTest::newRow("variadic not last") << replace(
        "-- keys: counter = rate:user:42 | the counter\n",
        "-- keys: many... = a | keys\n-- keys: counter = rate:user:42 | the counter\n")
                                       << sample << QStringLiteral("line 5: only the last keys entry may be variadic");
    QTest::newRow("duplicate key name") << replace("-- keys: counter = rate:user:42 | the counter\n",
                                                   "-- keys: counter = a | one\n-- keys: counter = b | two\n")
                                        << sample << QStringLiteral("line 5: keys \"counter\" is declared twice");
}

void TestLuaScripts::malformedHeaderIsRejected()
{
    QFETCH(QByteArray, source);
    QFETCH(QString, fileName);
    QFETCH(QString, mustContain);
    QString error;
    const std::optional<ScriptInfo> info = ScriptLibrary::parse(fileName, source, &error);
    QVERIFY(!info.has_value());
    QVERIFY2(error.contains(mustContain), qPrintable(error));
}

void TestLuaScripts::commandShapes()
{
    const ScriptInfo *s = ScriptLibrary::instance().find(QStringLiteral("lock_release"));
    QVERIFY(s);
    const RedisCommand eval = ScriptLibrary::evalCommand(*s, {"lock:a"}, {"tok"});
    QCOMPARE(eval, (RedisCommand{"EVAL", s->source, "1", "lock:a", "tok"}));
    QCOMPARE(ScriptLibrary::evalCommand(*s, {"k1", "k2"}, {}, true),
             (RedisCommand{"EVAL_RO", s->source, "2", "k1", "k2"}));
    QCOMPARE(ScriptLibrary::evalShaCommand(*s, {"lock:a"}, {"tok"}),
             (RedisCommand{"EVALSHA", s->sha1, "1", "lock:a", "tok"}));
    QCOMPARE(ScriptLibrary::evalShaCommand(*s, {}, {}, true).value(0), QByteArray("EVALSHA_RO"));
    QCOMPARE(ScriptLibrary::loadCommand(*s), (RedisCommand{"SCRIPT", "LOAD", s->source}));
    QVERIFY(ScriptLibrary::isNoScript(RedisValue::error("NOSCRIPT No matching script. Please use EVAL.")));
    QVERIFY(!ScriptLibrary::isNoScript(RedisValue::error("ERR something else")));
}

void TestLuaScripts::shaMatchesServerAndEvalShaWorks()
{
    const ScriptInfo *s = ScriptLibrary::instance().find(QStringLiteral("lock_acquire"));
    QVERIFY(s);
    m_server.command({"SCRIPT", "FLUSH"});
    // Not loaded yet: the caller is told, and can fall back to EVAL.
    const RedisValue missing = m_server.command(ScriptLibrary::evalShaCommand(*s, {"lock:x"}, {"t", "1000"}));
    QVERIFY(ScriptLibrary::isNoScript(missing));
    QCOMPARE(m_server.command(ScriptLibrary::loadCommand(*s)).bytes(), s->sha1);
    const RedisValue ok = m_server.command(ScriptLibrary::evalShaCommand(*s, {"lock:x"}, {"t", "1000"}));
    QVERIFY2(ok.isArray(), qPrintable(ok.toDisplayString()));
    QCOMPARE(ok.at(0).toInteger(), 1);
}

void TestLuaScripts::evalRoRefusesWritingScripts()
{
    const ScriptInfo *s = ScriptLibrary::instance().find(QStringLiteral("lock_acquire"));
    QVERIFY(s);
    QVERIFY(s->writes);
    const RedisValue r = m_server.command(ScriptLibrary::evalCommand(*s, {"lock:ro"}, {"t", "1000"}, true));
    QVERIFY2(r.isError(), qPrintable(r.toDisplayString()));
    QCOMPARE(m_server.command({"EXISTS", "lock:ro"}).toInteger(), 0);
}

void TestLuaScripts::fixedWindowAllowsLimitAndResets()
{
    const QByteArray key = "rate:user:42:" + num(QDateTime::currentMSecsSinceEpoch() / 400);
    for (int i = 1; i <= 5; ++i) {
        const RedisValue r = run("fixed_window_limit", {key}, {"5", "400"});
        QVERIFY2(r.isArray(), qPrintable(r.toDisplayString()));
        QCOMPARE(r.at(0).toInteger(), 1);
        QCOMPARE(r.at(1).toInteger(), i);
        QVERIFY(r.at(2).toInteger() > 0 && r.at(2).toInteger() <= 400);
    }
    const RedisValue denied = run("fixed_window_limit", {key}, {"5", "400"});
    QCOMPARE(denied.at(0).toInteger(), 0);
    QCOMPARE(denied.at(1).toInteger(), 6);
    // The TTL was set on the first hit, not pushed back by later ones.
    const qint64 pttl = m_server.command({"PTTL", key}).toInteger();
    QVERIFY2(pttl > 0 && pttl <= 400, qPrintable(QString::number(pttl)));

    // The window ends with the key: the same caller is allowed again, counting from one.
    QTRY_VERIFY_WITH_TIMEOUT(m_server.command({"EXISTS", key}).toInteger() == 0, 5000);
    const RedisValue again = run("fixed_window_limit", {key}, {"5", "400"});
    QCOMPARE(again.at(0).toInteger(), 1);
    QCOMPARE(again.at(1).toInteger(), 1);

    // A counter left without a TTL (older code) gets one instead of locking the caller out.
    m_server.command({"SET", "rate:user:7:1", "99"});
    const RedisValue healed = run("fixed_window_limit", {"rate:user:7:1"}, {"5", "60000"});
    QCOMPARE(healed.at(0).toInteger(), 0);
    QVERIFY(m_server.command({"PTTL", "rate:user:7:1"}).toInteger() > 0);
}

void TestLuaScripts::slidingWindowSameMillisecondCountsTwice()
{
    const QByteArray log = "rate:sliding:user:42";
    const QByteArray seq = log + ":seq";
    const qint64 t0 = 1764412345678;
    const QList<QByteArray> keys{log, seq};
    QCOMPARE(run("sliding_window_limit", keys, {num(t0), "1000", "3"}).at(1).toInteger(), 1);
    const RedisValue second = run("sliding_window_limit", keys, {num(t0), "1000", "3"});
    QCOMPARE(second.at(0).toInteger(), 1);
    QCOMPARE(second.at(1).toInteger(), 2);
    QCOMPARE(m_server.command({"ZCARD", log}).toInteger(), 2);
    // Members keep the full millisecond value (no exponent notation) and stay unique.
    const RedisValue members = m_server.command({"ZRANGE", log, "0", "-1"});
    QCOMPARE(members.size(), 2);
    QVERIFY(members.at(0).bytes().startsWith(QByteArray(num(t0) + ':')));
    QVERIFY(members.at(0).bytes() != members.at(1).bytes());

    QCOMPARE(run("sliding_window_limit", keys, {num(t0 + 1), "1000", "3"}).at(0).toInteger(), 1);
    const RedisValue denied = run("sliding_window_limit", keys, {num(t0 + 2), "1000", "3"});
    QCOMPARE(denied.at(0).toInteger(), 0);
    QCOMPARE(denied.at(1).toInteger(), 3);
    QCOMPARE(denied.at(2).toInteger(), 998); // the two at t0 leave the window at t0 + 1000
    QCOMPARE(run("sliding_window_limit", keys, {num(t0 + 999), "1000", "3"}).at(0).toInteger(), 0);
    const RedisValue later = run("sliding_window_limit", keys, {num(t0 + 1000), "1000", "3"});
    QCOMPARE(later.at(0).toInteger(), 1);
    QCOMPARE(later.at(1).toInteger(), 2); // t0 + 1 and t0 + 1000
    const qint64 pttl = m_server.command({"PTTL", log}).toInteger();
    QVERIFY(pttl > 0 && pttl <= 1000);
}

void TestLuaScripts::slidingWindowNeverExceedsLimit()
{
    // Random request times over a minute of simulated time: every allowed request leaves at
    // most 'limit' allowed ones in (t - window, t], and a request is refused only when the
    // window is full.
    const QByteArray log = "rate:sliding:prop";
    const qint64 window = 5000;
    const int limit = 7;
    qint64 t = 1764400000000;
    QList<qint64> allowed;
    QRandomGenerator rng(42);
    for (int i = 0; i < 300; ++i) {
        t += rng.bounded(0, 400); // many in the same millisecond too
        const RedisValue r = run("sliding_window_limit", {log, log + ":seq"}, {num(t), num(window), num(limit)});
        QVERIFY2(r.isArray(), qPrintable(r.toDisplayString()));
        int inWindow = 0;
        for (qint64 a : std::as_const(allowed))
            inWindow += (a > t - window) ? 1 : 0;
        if (r.at(0).toInteger() == 1) {
            QVERIFY2(inWindow < limit,
                     qPrintable(QStringLiteral("allowed at %1 with %2 in the window").arg(t).arg(inWindow)));
            allowed.append(t);
            QCOMPARE(r.at(1).toInteger(), inWindow + 1);
        } else {
            QCOMPARE(inWindow, limit);
        }
    }
    QVERIFY(allowed.size() > limit); // the window moved several times
}

void TestLuaScripts::tokenBucketRefillsAtRate()
{
    const QByteArray bucket = "bucket:api:client-7";
    const qint64 t0 = 1764412345000;
    // capacity 5, 2 tokens per second
    auto take = [&](qint64 at) { return run("token_bucket", {bucket}, {"5", "2", num(at), "1"}); };
    for (int i = 0; i < 5; ++i) {
        const RedisValue r = take(t0);
        QVERIFY2(r.isArray(), qPrintable(r.toDisplayString()));
        QCOMPARE(r.at(0).toInteger(), 1);
        QCOMPARE(r.at(1).toInteger(), 4 - i);
    }
    const RedisValue empty = take(t0);
    QCOMPARE(empty.at(0).toInteger(), 0);
    QCOMPARE(empty.at(2).toInteger(), 500); // one token every 500 ms
    QCOMPARE(take(t0 + 499).at(0).toInteger(), 0);
    QCOMPARE(take(t0 + 500).at(0).toInteger(), 1);
    QCOMPARE(take(t0 + 500).at(0).toInteger(), 0);
    // A clock that goes backwards adds nothing.
    QCOMPARE(take(t0 - 10000).at(0).toInteger(), 0);
    // A long pause fills the bucket to its capacity, not beyond.
    int granted = 0;
    for (int i = 0; i < 8; ++i)
        granted += int(take(t0 + 60000).at(0).toInteger());
    QCOMPARE(granted, 5);
    QCOMPARE(m_server.command({"HGET", bucket, "last_refill"}).bytes(), num(t0 + 60000));
    QCOMPARE(m_server.command({"HGET", bucket, "tokens"}).bytes(), QByteArray("0"));
    QVERIFY(m_server.command({"PTTL", bucket}).toInteger() > 0);
    // Fractional refill: 250 ms at 2/s is half a token, not enough; 500 ms is one.
    QCOMPARE(take(t0 + 60250).at(0).toInteger(), 0);
    QCOMPARE(m_server.command({"HGET", bucket, "tokens"}).bytes(), QByteArray("0.5"));
    QCOMPARE(take(t0 + 60500).at(0).toInteger(), 1);
}

void TestLuaScripts::locksRefuseWrongToken()
{
    const QByteArray lock = "lock:invoice:1042";
    const RedisValue got = run("lock_acquire", {lock}, {"token-a", "5000"});
    QCOMPARE(got.at(0).toInteger(), 1);
    QCOMPARE(got.at(1).toInteger(), 5000);
    const RedisValue busy = run("lock_acquire", {lock}, {"token-b", "5000"});
    QCOMPARE(busy.at(0).toInteger(), 0);
    QVERIFY(busy.at(1).toInteger() > 0 && busy.at(1).toInteger() <= 5000);
    QCOMPARE(m_server.command({"GET", lock}).bytes(), QByteArray("token-a"));

    QCOMPARE(run("lock_release", {lock}, {"token-b"}).toInteger(), 0);
    QCOMPARE(run("lock_extend", {lock}, {"token-b", "60000"}).toInteger(), 0);
    QCOMPARE(m_server.command({"GET", lock}).bytes(), QByteArray("token-a"));
    QVERIFY(m_server.command({"PTTL", lock}).toInteger() <= 5000);

    QCOMPARE(run("lock_extend", {lock}, {"token-a", "60000"}).toInteger(), 1);
    QVERIFY(m_server.command({"PTTL", lock}).toInteger() > 5000);
    QCOMPARE(run("lock_release", {lock}, {"token-a"}).toInteger(), 1);
    QCOMPARE(m_server.command({"EXISTS", lock}).toInteger(), 0);
    QCOMPARE(run("lock_release", {lock}, {"token-a"}).toInteger(), 0);
    QCOMPARE(run("lock_extend", {lock}, {"token-a", "1000"}).toInteger(), 0);
    QCOMPARE(m_server.command({"EXISTS", lock}).toInteger(), 0); // extend never creates

    // A lock whose holder set no TTL reports -1, so the dashboard can flag it.
    m_server.command({"SET", "lock:stuck", "x"});
    QCOMPARE(run("lock_acquire", {"lock:stuck"}, {"t", "1000"}).at(1).toInteger(), -1);
}

void TestLuaScripts::claimDueJobsIsBoundedAndExclusive()
{
    const qint64 now = 1764412345678;
    QList<QByteArray> zadd{"ZADD", "sched:due"};
    for (int i = 0; i < 20; ++i)
        zadd << num(now - 100000 + i * 1000) << "job:due:" + num(i);
    for (int i = 0; i < 5; ++i)
        zadd << num(now + 1 + i) << "job:later:" + num(i);
    QCOMPARE(m_server.command(zadd).toInteger(), 25);

    QSet<QByteArray> claimed;
    QList<int> sizes;
    for (int claimer = 0; claimer < 4; ++claimer) {
        const RedisValue r = run("claim_due_jobs", {"sched:due"}, {num(now), "8"});
        QVERIFY2(r.isArray(), qPrintable(r.toDisplayString()));
        sizes << int(r.size());
        for (const RedisValue &job : r.elements()) {
            QVERIFY2(job.bytes().startsWith("job:due:"), job.bytes().constData());
            QVERIFY2(!claimed.contains(job.bytes()), "a job was handed out twice");
            claimed.insert(job.bytes());
        }
    }
    QCOMPARE(sizes, (QList<int>{8, 8, 4, 0}));
    QCOMPARE(claimed.size(), 20);
    QCOMPARE(m_server.command({"ZCARD", "sched:due"}).toInteger(), 5);
    // Oldest due first.
    m_server.command({"ZADD", "sched:due", num(now - 5), "b", num(now - 9), "a"});
    const RedisValue ordered = run("claim_due_jobs", {"sched:due"}, {num(now), "10"});
    QCOMPARE(ordered.size(), 2);
    QCOMPARE(ordered.at(0).bytes(), QByteArray("a"));
    QCOMPARE(ordered.at(1).bytes(), QByteArray("b"));
}

void TestLuaScripts::claimDueJobsRejectsUnboundedLimit()
{
    const qint64 now = 1764412345678;
    QList<QByteArray> zadd{"ZADD", "sched:due"};
    for (int i = 0; i < 1500; ++i)
        zadd << num(now - i) << "job:" + num(i);
    m_server.command(zadd);
    QVERIFY(run("claim_due_jobs", {"sched:due"}, {num(now), "5000"}).isError());
    QVERIFY(run("claim_due_jobs", {"sched:due"}, {num(now), "0"}).isError());
    QCOMPARE(m_server.command({"ZCARD", "sched:due"}).toInteger(), 1500);
    // The largest batch allowed, removed in slices.
    QCOMPARE(run("claim_due_jobs", {"sched:due"}, {num(now), "1000"}).size(), 1000);
    QCOMPARE(m_server.command({"ZCARD", "sched:due"}).toInteger(), 500);
}

void TestLuaScripts::deadLetterMovesAndAcks()
{
    const QByteArray stream = "events:orders";
    const QByteArray dead = "events:orders:dead";
    m_server.command({"XADD", stream, "1-0", "order_id", "1"});
    m_server.command({"XADD", stream, "2-0", "order_id", "2", "amount_cents", "999"});
    m_server.command({"XADD", stream, "3-0", "order_id", "3"});
    QCOMPARE(m_server.command({"XGROUP", "CREATE", stream, "billing", "0"}).bytes(), QByteArray("OK"));
    m_server.command({"XREADGROUP", "GROUP", "billing", "worker-1", "COUNT", "3", "STREAMS", stream, ">"});
    m_server.command({"XCLAIM", stream, "billing", "worker-1", "0", "2-0", "RETRYCOUNT", "17", "JUSTID"});

    const RedisValue r = run("stream_dead_letter", {stream, dead}, {"billing", "2-0", "poison", "100"});
    QVERIFY2(r.isArray(), qPrintable(r.toDisplayString()));
    QCOMPARE(r.at(1).toInteger(), 17);
    const QByteArray deadId = r.at(0).bytes();

    const RedisValue copy = m_server.command({"XRANGE", dead, "-", "+"});
    QCOMPARE(copy.size(), 1);
    QCOMPARE(copy.at(0).at(0).bytes(), deadId);
    const RedisValue fields = copy.at(0).at(1);
    QHash<QByteArray, QByteArray> map;
    for (qsizetype i = 0; i + 1 < fields.size(); i += 2)
        map.insert(fields.at(i).bytes(), fields.at(i + 1).bytes());
    QCOMPARE(map.value("dead_source_id"), QByteArray("2-0"));
    QCOMPARE(map.value("dead_group"), QByteArray("billing"));
    QCOMPARE(map.value("dead_reason"), QByteArray("poison"));
    QCOMPARE(map.value("dead_deliveries"), QByteArray("17"));
    QCOMPARE(map.value("order_id"), QByteArray("2"));
    QCOMPARE(map.value("amount_cents"), QByteArray("999"));

    // Acknowledged in the same step: two left pending, and not 2-0.
    const RedisValue pending = m_server.command({"XPENDING", stream, "billing", "-", "+", "10"});
    QCOMPARE(pending.size(), 2);
    QCOMPARE(pending.at(0).at(0).bytes(), QByteArray("1-0"));
    QCOMPARE(pending.at(1).at(0).bytes(), QByteArray("3-0"));
    QCOMPARE(m_server.command({"XLEN", stream}).toInteger(), 3); // the original stays for the record

    // Dead-lettering the same entry again is refused: it is no longer pending.
    const RedisValue twice = run("stream_dead_letter", {stream, dead}, {"billing", "2-0", "poison", "100"});
    QVERIFY(twice.isError());
    QCOMPARE(twice.errorCode(), QByteArray("NOTPENDING"));
    QCOMPARE(m_server.command({"XLEN", dead}).toInteger(), 1);
}

void TestLuaScripts::deadLetterRefusesMissingEntry()
{
    const QByteArray stream = "events:orders";
    const QByteArray dead = "events:orders:dead";
    m_server.command({"XADD", stream, "1-0", "order_id", "1"});
    m_server.command({"XADD", stream, "2-0", "order_id", "2"});
    m_server.command({"XGROUP", "CREATE", stream, "billing", "0"});
    m_server.command({"XREADGROUP", "GROUP", "billing", "worker-1", "COUNT", "2", "STREAMS", stream, ">"});
    // Pending but deleted from the stream (as trimming does): refused, nothing written or acked.
    m_server.command({"XDEL", stream, "1-0"});
    const RedisValue gone = run("stream_dead_letter", {stream, dead}, {"billing", "1-0", "r", "100"});
    QVERIFY2(gone.isError(), qPrintable(gone.toDisplayString()));
    QCOMPARE(gone.errorCode(), QByteArray("NOENTRY"));
    QCOMPARE(m_server.command({"EXISTS", dead}).toInteger(), 0);
    QCOMPARE(m_server.command({"XPENDING", stream, "billing"}).at(0).toInteger(), 2);

    // An id that never existed.
    const RedisValue never = run("stream_dead_letter", {stream, dead}, {"billing", "9-0", "r", "100"});
    QVERIFY(never.isError());
    // A group that does not exist.
    QVERIFY(run("stream_dead_letter", {stream, dead}, {"nogroup", "2-0", "r", "100"}).isError());
    QCOMPARE(m_server.command({"EXISTS", dead}).toInteger(), 0);
    QCOMPARE(m_server.command({"XPENDING", stream, "billing"}).at(0).toInteger(), 2);
}

void TestLuaScripts::tagInvalidateDeletesOnlyMembers()
{
    m_server.pipeline(
        {{"SET", "app:product:1", "{}"},
         {"SET", "app:product:2", "{}"},
         {"SET", "app:product:3", "{}"},
         {"SET", "app:product:99", "{}"},
         {"SADD", "tag:category:7", "app:product:1", "app:product:2", "app:product:3", "app:product:404"}});
    // app:product:99 is not in the tag: a stale batch must not delete it.
    const RedisValue first
        = run("tag_invalidate", {"tag:category:7", "app:product:1", "app:product:404", "app:product:99"}, {});
    QVERIFY2(first.isArray(), qPrintable(first.toDisplayString()));
    QCOMPARE(first.at(0).toInteger(), 1);
    QCOMPARE(first.at(1).toInteger(), 2);
    QCOMPARE(m_server.command({"EXISTS", "app:product:99"}).toInteger(), 1);
    QCOMPARE(m_server.command({"EXISTS", "app:product:1"}).toInteger(), 0);

    // The caller's loop: SRANDMEMBER a batch, invalidate it, until nothing is left.
    int rounds = 0;
    qint64 left = first.at(1).toInteger();
    while (left > 0 && rounds < 10) {
        const RedisValue batch = m_server.command({"SRANDMEMBER", "tag:category:7", "1"});
        QList<QByteArray> keys{"tag:category:7"};
        for (const RedisValue &m : batch.elements())
            keys << m.bytes();
        left = run("tag_invalidate", keys, {}).at(1).toInteger();
        ++rounds;
    }
    QCOMPARE(left, 0);
    QCOMPARE(rounds, 2);
    QCOMPARE(m_server.command({"EXISTS", "tag:category:7", "app:product:2", "app:product:3"}).toInteger(), 0);
    QVERIFY(run("tag_invalidate", {"tag:category:7"}, {}).isError()); // an empty batch is a caller bug
}

void TestLuaScripts::cacheGetOrLock()
{
    const QList<QByteArray> keys{"app:product:5", "app:product:5:lock"};
    const RedisValue first = run("cache_get_or_lock", keys, {"caller-1", "5000"});
    QVERIFY2(first.isArray() && first.size() == 3, qPrintable(first.toDisplayString()));
    QVERIFY(first.at(0).isNil());
    QCOMPARE(first.at(1).toInteger(), 1);
    const RedisValue second = run("cache_get_or_lock", keys, {"caller-2", "5000"});
    QVERIFY(second.at(0).isNil());
    QCOMPARE(second.at(1).toInteger(), 0); // waits for caller-1
    QVERIFY(second.at(2).toInteger() > 0);
    QCOMPARE(m_server.command({"GET", "app:product:5:lock"}).bytes(), QByteArray("caller-1"));
    m_server.command({"SET", "app:product:5", "{\"id\":5}"});
    const RedisValue hit = run("cache_get_or_lock", keys, {"caller-3", "5000"});
    QCOMPARE(hit.at(0).bytes(), QByteArray("{\"id\":5}"));
    QCOMPARE(hit.at(1).toInteger(), 0);
}

void TestLuaScripts::sessionTouchSlides()
{
    const QByteArray session = "session:4f9c2a7d1e8b6035";
    m_server.pipeline({{"HSET", session, "user_id", "1042", "created_at", "1"}, {"PEXPIRE", session, "1000"}});
    const RedisValue r = run("session_touch", {session}, {"1800000", "1764412345678", "user_id"});
    QVERIFY2(r.isArray(), qPrintable(r.toDisplayString()));
    QCOMPARE(r.at(0).toInteger(), 1);
    QVERIFY(r.at(1).toInteger() > 1000);
    QCOMPARE(r.at(2).bytes(), QByteArray("1042"));
    QCOMPARE(m_server.command({"HGET", session, "last_seen"}).bytes(), QByteArray("1764412345678"));
    QVERIFY(m_server.command({"PTTL", session}).toInteger() > 1000);

    const RedisValue gone = run("session_touch", {"session:missing"}, {"1800000", "1", "user_id"});
    QCOMPARE(gone.at(0).toInteger(), 0);
    QCOMPARE(gone.at(1).toInteger(), -2);
    QVERIFY(gone.at(2).isNil());
    QCOMPARE(m_server.command({"EXISTS", "session:missing"}).toInteger(), 0); // not recreated
}

QTEST_GUILESS_MAIN(TestLuaScripts)
#include "tst_luascripts.moc"
