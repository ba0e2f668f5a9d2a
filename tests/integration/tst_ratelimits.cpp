// SPDX-License-Identifier: GPL-3.0-or-later
#include "patterntestdata.h"
#include "ratelimits.h"
#include "ratelimitsreader.h"
#include "redisclient.h"
#include "scriptlibrary.h"
#include "testserver.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QSignalSpy>
#include <QTest>

#include <memory>

// The rate-limit reader against data written the way production writes it: the project's own
// fixed_window_limit, sliding_window_limit and token_bucket scripts, run with EVALSHA on an
// independent connection, beside the mistakes the panel must flag (a counter without TTL, a
// sliding log whose writer forgot to trim, a bucket without TTL). Counts, windows, limits
// (inferred, and a rule's winning over inference) and who is at or over the limit.
namespace {

constexpr int kWaitMs = 20000;
constexpr qint64 kWindowMs = 60000;

QByteArray num(qint64 v)
{
    return QByteArray::number(v);
}

// One EVALSHA of a library script per call, all in one pipeline.
struct ScriptRunner
{
    RawConnection &raw;
    QList<QList<QByteArray>> cmds;

    void call(const char *script, const QList<QByteArray> &keys, const QList<QByteArray> &args)
    {
        const ScriptInfo *info = ScriptLibrary::instance().find(QLatin1String(script));
        QVERIFY(info);
        QList<QByteArray> c{"EVALSHA", info->sha1, num(keys.size())};
        c << keys << args;
        cmds.append(c);
    }
    bool flush()
    {
        for (const char *s : {"fixed_window_limit", "sliding_window_limit", "token_bucket"}) {
            const ScriptInfo *info = ScriptLibrary::instance().find(QLatin1String(s));
            if (!info || raw.command({"SCRIPT", "LOAD", info->source}).bytes() != info->sha1)
                return false;
        }
        const QList<RedisValue> replies = raw.pipeline(cmds);
        cmds.clear();
        for (const RedisValue &v : replies) {
            if (v.isError()) {
                qWarning() << v.toDisplayString();
                return false;
            }
        }
        return true;
    }
};

} // namespace

class TestRateLimits : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;
    std::unique_ptr<RedisClient> m_client;
    QList<PatternMatch> m_matches;
    qint64 m_window = 0; // the fixed window number now

    const QString kFixed = QStringLiteral("rate:user:{n}:{n}");
    const QString kIp = QStringLiteral("rate:ip:{n}:{n}");
    const QString kSliding = QStringLiteral("rate:sliding:user:{n}");
    const QString kBucket = QStringLiteral("bucket:api:client-{n}");

    std::unique_ptr<RateLimitsReader> read()
    {
        auto reader = std::make_unique<RateLimitsReader>(m_client.get());
        QSignalSpy refreshed(reader.get(), &RateLimitsReader::refreshed);
        reader->setMatches(m_matches);
        reader->refresh();
        if (!refreshed.wait(kWaitMs))
            return nullptr;
        return reader;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        m_client = connectedClient(m_server.profile());
        QVERIFY(m_client);
        RawConnection raw(m_server.port());
        ScriptRunner run{raw, {}};
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        m_window = now / kWindowMs;
        const QByteArray window = num(m_window);

        // Fixed window, limit 100 (known only to the script's callers): 10 callers use their
        // whole quota, 3 push past it, 7 are light; caller 5 also left last window's counter.
        auto fixedKey = [&](int caller, qint64 w) -> QByteArray { return "rate:user:" + num(caller) + ':' + num(w); };
        const QList<int> hits{100, 100, 100, 100, 100, 100, 100, 100, 100, 100,
                              120, 130, 145, 3,   9,   17,  26,  41,  58,  77};
        for (int c = 0; c < hits.size(); ++c) {
            for (int h = 0; h < hits.at(c); ++h)
                run.call("fixed_window_limit", {fixedKey(c + 1, m_window)}, {"100", num(kWindowMs)});
            m_matches << patternMatch(fixedKey(c + 1, m_window), PatternKind::FixedWindow, KeyType::String, kFixed);
        }
        for (int h = 0; h < 100; ++h)
            run.call("fixed_window_limit", {fixedKey(5, m_window - 1)}, {"100", num(kWindowMs)});
        m_matches << patternMatch(fixedKey(5, m_window - 1), PatternKind::FixedWindow, KeyType::String, kFixed);

        // A second fixed-window limiter whose rule says 50; its callers all stop at 40.
        QVariantMap ipRule{{QStringLiteral("limit"), 50}, {QStringLiteral("window_ms"), kWindowMs}};
        for (int c = 1; c <= 5; ++c) {
            const QByteArray key = "rate:ip:" + num(c) + ':' + window;
            for (int h = 0; h < 40; ++h)
                run.call("fixed_window_limit", {key}, {"50", num(kWindowMs)});
            m_matches << patternMatch(key, PatternKind::FixedWindow, KeyType::String, kIp, ttl::kUnknown, ipRule);
        }

        // Sliding log, limit 20 per 60 s: callers 1-4 hit 20, caller 5 tries 25 (refused after
        // 20), caller 6 makes 7 requests.
        const QList<int> sliding{20, 20, 20, 20, 25, 7};
        for (int c = 0; c < sliding.size(); ++c) {
            const QByteArray log = "rate:sliding:user:" + num(c + 1);
            for (int h = 0; h < sliding.at(c); ++h)
                run.call("sliding_window_limit", {log, log + ":seq"}, {num(now + h), num(kWindowMs), "20"});
            m_matches << patternMatch(log, PatternKind::SlidingWindow, KeyType::ZSet, kSliding);
        }

        // Token buckets: capacity 20, 3 tokens a minute (a slow refill keeps them alive for the test). client-1 drains
        // it, client-2 takes 3.
        QVariantMap bucketRule{{QStringLiteral("capacity"), 20}, {QStringLiteral("rate"), 0.05}};
        for (int h = 0; h < 25; ++h)
            run.call("token_bucket", {"bucket:api:client-1"}, {"20", "0.05", num(now), "1"});
        for (int h = 0; h < 3; ++h)
            run.call("token_bucket", {"bucket:api:client-2"}, {"20", "0.05", num(now), "1"});
        QVERIFY(run.flush());

        // What older or buggy code leaves behind.
        QList<QList<QByteArray>> bad;
        bad.append({"SET", fixedKey(99, m_window), "7"}); // INCR without EXPIRE
        QList<QByteArray> untrimmed{"ZADD", "rate:sliding:user:77"};
        for (int i = 0; i < 12; ++i) // 100-200 s old: the writer never trimmed
            untrimmed << num(now - 200000 + i * 9000) << num(now - 200000 + i * 9000) + ":" + num(i);
        for (int i = 0; i < 5; ++i)
            untrimmed << num(now - 5000 + i) << num(now - 5000 + i) + ":x" + num(i);
        bad.append(untrimmed);
        bad.append({"PEXPIRE", "rate:sliding:user:77", num(kWindowMs - 5000)});
        bad.append({"HSET", "bucket:api:client-9", "tokens", "4", "last_refill", num(now - 600000)});
        for (const RedisValue &v : raw.pipeline(bad))
            QVERIFY2(!v.isError(), qPrintable(v.toDisplayString()));
        m_matches << patternMatch(fixedKey(99, m_window), PatternKind::FixedWindow, KeyType::String, kFixed)
                  << patternMatch("rate:sliding:user:77", PatternKind::SlidingWindow, KeyType::ZSet, kSliding);
        for (const QByteArray &b :
             {QByteArray("bucket:api:client-1"), QByteArray("bucket:api:client-2"), QByteArray("bucket:api:client-9")})
            m_matches << patternMatch(b, PatternKind::TokenBucket, KeyType::Hash, kBucket, ttl::kUnknown, bucketRule);
        // Not a limiter: ignored.
        m_matches << patternMatch("lock:x", PatternKind::Lock, KeyType::String, QStringLiteral("lock:{…}"));
    }

    void callerNames_data()
    {
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<QString>("family");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QByteArray>("caller");
        QTest::addColumn<QByteArray>("window");
        QTest::newRow("fixed") << QByteArray("rate:user:42:28881234") << QStringLiteral("rate:user:{n}:{n}")
                               << int(LimiterKind::FixedWindow) << QByteArray("42") << QByteArray("28881234");
        QTest::newRow("fixed, prefix family")
            << QByteArray("rate:user:42:28881234") << QStringLiteral("rate:user:{…}") << int(LimiterKind::FixedWindow)
            << QByteArray("42") << QByteArray("28881234");
        QTest::newRow("fixed, two id segments")
            << QByteArray("rl:api:tenant-3:user-9:1764") << QStringLiteral("rl:api:{…}")
            << int(LimiterKind::FixedWindow) << QByteArray("tenant-3:user-9") << QByteArray("1764");
        QTest::newRow("fixed, no family")
            << QByteArray("rate:user:42:28881234") << QString() << int(LimiterKind::FixedWindow) << QByteArray("42")
            << QByteArray("28881234");
        QTest::newRow("sliding") << QByteArray("rate:sliding:user:42") << QStringLiteral("rate:sliding:user:{n}")
                                 << int(LimiterKind::SlidingWindow) << QByteArray("42") << QByteArray();
        QTest::newRow("bucket") << QByteArray("bucket:api:client-7") << QStringLiteral("bucket:api:client-{n}")
                                << int(LimiterKind::TokenBucket) << QByteArray("client-7") << QByteArray();
    }

    void callerNames()
    {
        QFETCH(QByteArray, key);
        QFETCH(QString, family);
        QFETCH(int, kind);
        QFETCH(QByteArray, caller);
        QFETCH(QByteArray, window);
        QByteArray w;
        QCOMPARE(rateLimitCaller(key, family, LimiterKind(kind), &w), caller);
        QCOMPARE(w, window);
    }

    void ceiling_data()
    {
        QTest::addColumn<QList<qint64>>("maxima");
        QTest::addColumn<qint64>("ceiling"); // -1: none
        QTest::addColumn<int>("at");
        QTest::newRow("half stop at 100")
            << QList<qint64>{100, 100, 100, 100, 100, 100, 3, 9, 17, 26, 41, 120} << qint64(100) << 6;
        QTest::newRow("light callers are no ceiling") << QList<qint64>{1, 1, 1, 2, 2, 2, 3, 3, 4, 5} << qint64(-1) << 0;
        QTest::newRow("too few") << QList<qint64>{100, 100, 7} << qint64(-1) << 0;
        QTest::newRow("all the same") << QList<qint64>{20, 20, 20, 20} << qint64(20) << 4;
        QTest::newRow("empty") << QList<qint64>{} << qint64(-1) << 0;
    }

    void ceiling()
    {
        QFETCH(QList<qint64>, maxima);
        QFETCH(qint64, ceiling);
        QFETCH(int, at);
        int n = 0;
        const std::optional<qint64> c = inferCeiling(maxima, &n);
        QCOMPARE(c.value_or(-1), ceiling);
        QCOMPARE(n, at);
    }

    void fixedWindowCounters()
    {
        auto reader = read();
        QVERIFY(reader);
        LimitersModel limiters;
        CallersModel callers;
        QAbstractItemModelTester t1(&limiters, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&callers, QAbstractItemModelTester::FailureReportingMode::QtTest);
        limiters.setRows(reader->analysis().limiters);
        callers.setRows(reader->analysis().callers);
        QCOMPARE(limiters.rowCount(), 4);

        const LimiterInfo *l = reader->limiter(kFixed);
        QVERIFY(l);
        QCOMPARE(l->kind, LimiterKind::FixedWindow);
        QCOMPARE(l->callers, 21); // 20 + the counter without TTL; caller 5's two windows are one caller
        QCOMPARE(l->limit, 100);
        QCOMPARE(l->limitSource, QStringLiteral("100 (inferred: 10 of 21 callers stop at 100)"));
        QCOMPARE(l->windowMs, kWindowMs);
        QVERIFY(l->windowSource.contains(QLatin1String("window number")));
        QCOMPARE(l->atLimit, 13);
        QCOMPARE(l->overLimit, 3);
        QCOMPARE(l->noTtl, 1);
        QVERIFY(l->note().contains(QStringLiteral("200 requests (2 × 100)")));

        // Counts and the remaining window agree with the server.
        RawConnection raw(m_server.port());
        const QByteArray key12 = "rate:user:12:" + num(m_window);
        const CallerState *c12 = reader->caller(key12);
        QVERIFY(c12);
        QCOMPARE(c12->caller, QByteArray("12"));
        QCOMPARE(c12->count, 130);
        QCOMPARE(c12->count, raw.command({"GET", key12}).toInteger());
        QVERIFY(c12->pttlMs > 0 && c12->pttlMs <= kWindowMs);
        QVERIFY(c12->flags & CallerState::OverLimit);
        QCOMPARE(c12->pressure(), 1.3);
        // The newest window stands for caller 5.
        QVERIFY(reader->caller("rate:user:5:" + num(m_window)));
        QVERIFY(!reader->caller("rate:user:5:" + num(m_window - 1)));
        const CallerState *light = reader->caller("rate:user:14:" + num(m_window));
        QVERIFY(light);
        QCOMPARE(light->count, 3);
        QCOMPARE(light->flags, quint8(0));
        const CallerState *forever = reader->caller("rate:user:99:" + num(m_window));
        QVERIFY(forever);
        QCOMPARE(forever->pttlMs, -1);
        QVERIFY(forever->flags & CallerState::NoTtl);
        QVERIFY(forever->flagsText().contains(QLatin1String("locked out for ever")));

        // Top callers by pressure: the three over the limit first, highest first.
        const QList<CallerState> &rows = reader->analysis().callers;
        QCOMPARE(rows.at(0).count, 145);
        QCOMPARE(rows.at(1).count, 130);
        QCOMPARE(rows.at(2).count, 120);
        for (int i = 1; i < rows.size(); ++i)
            QVERIFY(rows.at(i - 1).pressure() >= rows.at(i).pressure());
        // The model shows them.
        QCOMPARE(callers.index(0, CallersModel::UsedColumn).data().toString(), QStringLiteral("145"));
        QCOMPARE(callers.index(0, CallersModel::PressureColumn).data().toString(), QStringLiteral("145 %"));
        QVERIFY(callers.index(0, CallersModel::FlagsColumn).data().toString().contains(QLatin1String("over limit")));
    }

    void ruleLimitWinsOverInference()
    {
        auto reader = read();
        QVERIFY(reader);
        const LimiterInfo *l = reader->limiter(kIp);
        QVERIFY(l);
        QCOMPARE(l->limit, 50); // inference alone would say 40: all five stop there
        QCOMPARE(l->limitSource, QStringLiteral("50 (rule)"));
        QCOMPARE(l->windowSource, QStringLiteral("rule"));
        QCOMPARE(l->atLimit, 0);
        const CallerState *c = reader->caller("rate:ip:3:" + num(m_window));
        QVERIFY(c);
        QCOMPARE(c->count, 40);
        QCOMPARE(c->pressure(), 0.8);
    }

    void slidingLogs()
    {
        auto reader = read();
        QVERIFY(reader);
        const LimiterInfo *l = reader->limiter(kSliding);
        QVERIFY(l);
        QCOMPARE(l->kind, LimiterKind::SlidingWindow);
        QCOMPARE(l->callers, 7);
        QCOMPARE(l->windowMs, kWindowMs); // from TTL + time since the newest member
        QCOMPARE(l->limit, 20);
        QVERIFY2(l->limitSource.contains(QLatin1String("5 of 7 callers stop at 20")), qPrintable(l->limitSource));
        QCOMPARE(l->atLimit, 5);
        QCOMPARE(l->overLimit, 0); // the script refuses, it does not log refused requests
        QCOMPARE(l->untrimmed, 1);

        const CallerState *five = reader->caller("rate:sliding:user:5");
        QVERIFY(five);
        QCOMPARE(five->count, 20);
        QCOMPARE(five->total, 20);
        QVERIFY(five->flags & CallerState::AtLimit);
        QVERIFY(five->pttlMs > 0 && five->pttlMs <= kWindowMs);
        const CallerState *six = reader->caller("rate:sliding:user:6");
        QVERIFY(six);
        QCOMPARE(six->count, 7);
        QCOMPARE(six->flags, quint8(0));
        // The log nobody trimmed: 5 requests inside the window, 12 older ones still logged.
        const CallerState *bad = reader->caller("rate:sliding:user:77");
        QVERIFY(bad);
        QCOMPARE(bad->count, 5);
        QCOMPARE(bad->total, 17);
        QCOMPARE(bad->untrimmed, 12);
        QVERIFY(bad->flags & CallerState::Untrimmed);
        QVERIFY(bad->flagsText().contains(QLatin1String("12 members older than the window not trimmed")));
        CallersModel callers;
        callers.setRows(reader->analysis().callers);
        const int row = callers.rowOf("rate:sliding:user:77");
        QCOMPARE(callers.index(row, CallersModel::DetailColumn).data().toString(), QStringLiteral("17 logged"));
    }

    void tokenBuckets()
    {
        auto reader = read();
        QVERIFY(reader);
        const LimiterInfo *l = reader->limiter(kBucket);
        QVERIFY(l);
        QCOMPARE(l->kind, LimiterKind::TokenBucket);
        QCOMPARE(l->capacity, 20.0);
        QCOMPARE(l->refillPerSec, 0.05);
        QCOMPARE(l->noTtl, 1);
        QCOMPARE(l->atLimit, 1);
        const CallerState *drained = reader->caller("bucket:api:client-1");
        QVERIFY(drained);
        QCOMPARE(drained->caller, QByteArray("client-1"));
        QVERIFY(drained->tokens < 1);
        QVERIFY(drained->flags & CallerState::AtLimit);
        QVERIFY(drained->pttlMs > 0);
        QVERIFY(drained->refillAgeMs >= 0 && drained->refillAgeMs < 15000);
        const CallerState *two = reader->caller("bucket:api:client-2");
        QVERIFY(two);
        QCOMPARE(two->tokens, 17.0);
        QCOMPARE(two->pressure(), 0.15);
        const CallerState *idle = reader->caller("bucket:api:client-9");
        QVERIFY(idle);
        QCOMPARE(idle->tokens, 4.0);
        QVERIFY(idle->refillAgeMs >= 600000 && idle->refillAgeMs < 615000);
        QVERIFY(idle->flags & CallerState::NoTtl);
        QVERIFY(idle->flagsText().contains(QLatin1String("bucket without TTL")));
    }

    void noPermissionIsOneLine()
    {
        std::unique_ptr<RedisClient> client = clientWithout(m_server, "viewer", {"get"});
        QVERIFY(client);
        RateLimitsReader reader(client.get());
        const QString message = firstFailure(reader, m_matches, kWaitMs);
        QVERIFY2(isOneLinePermissionError(message), qPrintable(message));
    }
};

QTEST_GUILESS_MAIN(TestRateLimits)
#include "tst_ratelimits.moc"
