// SPDX-License-Identifier: GPL-3.0-or-later
#include "patternrules.h"
#include "patterns.h"

#include <QDateTime>
#include <QTest>

#include <cmath>

Q_DECLARE_METATYPE(KeySample)

// The classifier decides from a sample alone: one table row per kind, and the near misses that
// must come out as something else.
class TestPatternClassifier : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void kinds_data();
    void kinds();
    void familyOf_data();
    void familyOf();
    void shapes();
    void userRuleOverridesStructure();
    void familyContext();
    void kindIdsRoundTrip();
};

namespace {

constexpr qint64 kMin = 60 * 1000;
constexpr qint64 kHour = 60 * kMin;

qint64 now()
{
    return QDateTime::currentMSecsSinceEpoch();
}

KeySample str(const QByteArray &key, const QByteArray &value, qint64 pttl)
{
    KeySample s;
    s.key = key;
    s.type = KeyType::String;
    s.pttlMs = pttl;
    s.head = value;
    s.elements = value.size();
    s.sampled = true;
    return s;
}

KeySample coll(KeyType type, const QByteArray &key, const QList<QByteArray> &members, qint64 pttl, qint64 elements = -1)
{
    KeySample s;
    s.key = key;
    s.type = type;
    s.pttlMs = pttl;
    s.members = members;
    s.elements = elements >= 0 ? elements : members.size();
    s.sampled = true;
    return s;
}

KeySample zset(const QByteArray &key, const QList<QPair<QByteArray, double>> &items, qint64 pttl)
{
    KeySample s;
    s.key = key;
    s.type = KeyType::ZSet;
    s.pttlMs = pttl;
    for (const auto &i : items) {
        s.members.append(i.first);
        s.scores.append(i.second);
    }
    s.elements = items.size();
    s.sampled = true;
    return s;
}

QByteArray num(qint64 v)
{
    return QByteArray::number(v);
}

} // namespace

void TestPatternClassifier::kinds_data()
{
    QTest::addColumn<KeySample>("sample");
    QTest::addColumn<int>("kind");
    const qint64 t = now();
    const QByteArray token = "9f86d081884c7d659a2feaa0c55ad015";
    const QByteArray window = num(t / 60000);
    auto row = [](const char *name, const KeySample &s, PatternKind k) { QTest::newRow(name) << s << int(k); };

    row("lock token ttl", str("lock:invoice:1042", token, 30000), PatternKind::Lock);
    row("lock without ttl", str("lock:migration:schema-v42", token, -1), PatternKind::Lock);
    row("lock value 1", str("lock:cron:send-digest", "1", 15 * kMin), PatternKind::Lock);
    row("recompute lock", str("app:product:1001:lock", "a3f9c2d18e7b6054", 20000), PatternKind::Lock);
    row("unnamed token lock", str("resource:invoice:7", "Zx9Kq2Lm8Np4Rs7Tv1Wy", 30000), PatternKind::Lock);
    row("fixed window", str("rate:user:1042:" + window, "7", 40000), PatternKind::FixedWindow);
    row("fixed window no ttl", str("rate:user:4242:" + num(t / 60000 - 37), "57", -1), PatternKind::FixedWindow);
    row("fixed window epoch s", str("api:calls:42:" + num(t / 1000 / 3600 * 3600), "3", 30 * kMin),
        PatternKind::FixedWindow);
    row("rl segment", str("rl:login:10.0.0.7", "4", 50000), PatternKind::FixedWindow);
    row("dedup key", str("seen:evt:wh_12", "1", 3600000), PatternKind::DedupKey);
    row("idempotency json", str("idempotency:req-77", "{\"status\":201}", kHour), PatternKind::DedupKey);
    row("counter no ttl", str("stats:signups:2026-11-29", "120", -1), PatternKind::Counter);
    row("counter plain", str("page:views", "90210", -1), PatternKind::Counter);
    row("sequence", str("rate:sliding:user:1000:seq", "17", 60000), PatternKind::Counter);
    row("cache json", str("app:product:12", "{\"id\":12,\"name\":\"Kettle\"}", 15 * kMin), PatternKind::CacheEntry);
    row("cache json no ttl", str("app:config:feature-flags", "{\"dark_mode\":true}", -1), PatternKind::CacheEntry);
    row("cache html", str("page:home", "<html><body>hi</body></html>", 10 * kMin), PatternKind::CacheEntry);
    row("negative missing", str("app:product:900001", "{\"missing\":true}", 30000), PatternKind::NegativeCache);
    row("negative null", str("app:user:9001:profile", "null", 28000), PatternKind::NegativeCache);
    row("negative no ttl", str("app:product:999999", "{\"missing\":true}", -1), PatternKind::NegativeCache);
    row("negative empty", str("cache:user:77", "", 20000), PatternKind::NegativeCache);
    row("hll", str("hll:pageviews:2026-11-29", QByteArray("HYLL\x01\x00\x00\x00", 8), 35 * 24 * kHour),
        PatternKind::HyperLogLog);
    row("session json", str("sess:Zx9Kq2Lm8Np4Rs7Tv1WyQ", "{\"user_id\":5,\"cart\":[]}", 2 * kHour),
        PatternKind::Session);
    row("session hash",
        coll(KeyType::Hash, "session:" + token, {"user_id", "created_at", "last_seen", "csrf_token", "ip"}, 2 * kHour),
        PatternKind::Session);
    row("session hash no ttl", coll(KeyType::Hash, "session:" + token, {"user_id", "created_at", "locale"}, -1),
        PatternKind::Session);
    row("token bucket", coll(KeyType::Hash, "bucket:api:client-7", {"tokens", "last_refill"}, 4000),
        PatternKind::TokenBucket);
    row("token bucket ts", coll(KeyType::Hash, "tb:42", {"tokens", "ts"}, -1), PatternKind::TokenBucket);
    row("session index",
        coll(KeyType::Set, "user:1042:sessions", {token, "0c1f4e9a7b2d3c5e6f708192a3b4c5d6"}, 24 * kHour),
        PatternKind::SessionIndex);
    row("tag set",
        coll(KeyType::Set, "tag:category:7", {"app:product:7", "app:product:27", "app:product:47"}, 150 * kMin),
        PatternKind::CacheTagSet);
    row("dedup set", coll(KeyType::Set, "seen:webhook", {"wh_1", "wh_8", "wh_15"}, -1, 60000), PatternKind::DedupSet);
    row("dedup set by members", coll(KeyType::Set, "webhooks:done", {"evt_1001", "evt_1002", "evt_1009"}, -1, 5000),
        PatternKind::DedupSet);
    row("leaderboard",
        zset("lb:daily:2026-11-29", {{"player:1", 0}, {"player:2", 10}, {"player:9", 6000}}, 8 * 24 * kHour),
        PatternKind::Leaderboard);
    row("geo", zset("geo:cities", {{"Berlin", 3471579339700058.0}, {"Paris", 3663832752681684.0}}, -1),
        PatternKind::GeoSet);
    row("sliding",
        zset("rate:sliding:user:1000",
             {{num(t - 50000) + ":1", double(t - 50000)}, {num(t - 2000) + ":9", double(t - 2000)}}, 60000),
        PatternKind::SlidingWindow);
    row("delayed", zset("sched:due", {{"{\"id\":1}", double(t - 60000)}, {"{\"id\":2}", double(t + 600000)}}, -1),
        PatternKind::DelayedJobs);
    row("delayed by future",
        zset("mail:later",
             {{"job-1", std::floor(double(t) / 1000) + 60}, {"job-2", std::floor(double(t) / 1000) + 7200}}, -1),
        PatternKind::DelayedJobs);
    row("queue", coll(KeyType::List, "q:email", {"{\"id\":1}"}, -1), PatternKind::ListQueue);
    row("processing", coll(KeyType::List, "q:email:proc:worker-1", {"{\"id\":1}"}, -1), PatternKind::ProcessingList);
    KeySample stream;
    stream.key = "events:orders";
    stream.type = KeyType::Stream;
    stream.pttlMs = -1;
    row("stream unsampled", stream, PatternKind::Stream);

    // Near misses.
    row("plain string with ttl is no lock", str("greeting", "hello world, how are you", 30000), PatternKind::Unknown);
    row("text with long ttl is a cache, no lock", str("page:about", "About us: we make kettles", 2 * kHour),
        PatternKind::CacheEntry);
    row("token without ttl or name is no lock", str("user:5:api_token", token, -1), PatternKind::Unknown);
    row("counter without ttl is no fixed window", str("orders:total", "4711", -1), PatternKind::Counter);
    row("leaderboard is no delayed set", zset("scores:game", {{"ann", 100}, {"bob", 2500}, {"cy", 31337}}, -1),
        PatternKind::Leaderboard);
    row("geo is no leaderboard", zset("stores", {{"s1", 3471579339700058.0}, {"s2", 3471579339700999.0}}, -1),
        PatternKind::GeoSet);
    row("time index is no sliding log",
        zset("users:last-seen", {{"u1", double(t - 9 * 24 * kHour)}, {"u2", double(t - 1000)}}, -1),
        PatternKind::Unknown);
    row("lexicographic index", zset("autocomplete", {{"apple", 0}, {"apricot", 0}}, -1), PatternKind::Unknown);
    row("plain set", coll(KeyType::Set, "colors", {"red", "green"}, -1), PatternKind::Unknown);
    row("plain hash", coll(KeyType::Hash, "user:5", {"name", "email"}, -1), PatternKind::Unknown);
    row("binary", str("bin:png", QByteArray("\x89PNG\r\n\x1a\n\x00\x00", 10), -1), PatternKind::Unknown);
    row("json with user id in plain family is cache",
        str("app:user:1042:profile", "{\"id\":1042,\"user_id\":1}", 30 * kMin), PatternKind::CacheEntry);
    row("empty json long ttl is cache", str("app:cart:5", "{}", 2 * kHour), PatternKind::CacheEntry);
}

void TestPatternClassifier::kinds()
{
    QFETCH(KeySample, sample);
    QFETCH(int, kind);
    const PatternMatch m = PatternClassifier().classify(sample);
    QVERIFY2(int(m.kind) == kind,
             qPrintable(QStringLiteral("%1: got %2 (%3)")
                            .arg(patternKindName(PatternKind(kind)), patternKindName(m.kind), m.reason)));
    QVERIFY(!m.reason.isEmpty());
    QVERIFY(!m.reason.contains(QLatin1Char('\n')));
    QVERIFY(m.confidence >= 0 && m.confidence <= 100);
    QCOMPARE(m.key, sample.key);
    QCOMPARE(m.family, ::familyOf(sample.key));
    QVERIFY(!m.fromRule);
}

void TestPatternClassifier::familyOf_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QString>("family");
    QTest::newRow("window") << QByteArray("rate:user:1042:29612345") << QStringLiteral("rate:user:{n}:{n}");
    QTest::newRow("session") << QByteArray("session:9f86d081884c7d659a2feaa0c55ad015")
                             << QStringLiteral("session:{id}");
    QTest::newRow("date") << QByteArray("hll:pageviews:2026-11-29") << QStringLiteral("hll:pageviews:{date}");
    QTest::newRow("week") << QByteArray("lb:weekly:2026-W48") << QStringLiteral("lb:weekly:{date}");
    QTest::newRow("compact date") << QByteArray("logs:20261129") << QStringLiteral("logs:{date}");
    QTest::newRow("uuid") << QByteArray("job:123e4567-e89b-12d3-a456-426614174000:state")
                          << QStringLiteral("job:{id}:state");
    QTest::newRow("suffix") << QByteArray("app:price:sku-000311") << QStringLiteral("app:price:sku-{n}");
    QTest::newRow("underscore") << QByteArray("seen:evt:wh_12") << QStringLiteral("seen:evt:wh_{n}");
    QTest::newRow("version kept") << QByteArray("lock:migration:schema-v42")
                                  << QStringLiteral("lock:migration:schema-v42");
    QTest::newRow("words kept") << QByteArray("app:config:feature-flags") << QStringLiteral("app:config:feature-flags");
    QTest::newRow("ip") << QByteArray("rl:login:10.0.0.7") << QStringLiteral("rl:login:{n}");
    QTest::newRow("slash") << QByteArray("cache/page/17") << QStringLiteral("cache/page/{n}");
    QTest::newRow("no separator") << QByteArray("counter") << QStringLiteral("counter");
    QTest::newRow("binary") << QByteArray("bin:\x00\xff", 6) << QStringLiteral("bin:\\x00\\xff");
    QTest::newRow("empty segment") << QByteArray("a::1") << QStringLiteral("a::{n}");
    // Short random ids group into one family, so a family of them costs a few samples, not one
    // per key; words with a number stay words.
    QTest::newRow("shortid") << QByteArray("sess:PPBqWA9") << QStringLiteral("sess:{id}");
    QTest::newRow("video id") << QByteArray("video:dQw4w9WgXcQ:views") << QStringLiteral("video:{id}:views");
    QTest::newRow("hashid") << QByteArray("order:k5Rj9x") << QStringLiteral("order:{id}");
    QTest::newRow("nanoid cut") << QByteArray("cart:V1StGXR8Z5") << QStringLiteral("cart:{id}");
    QTest::newRow("parts kept") << QByteArray("ReportJob-03-17:5") << QStringLiteral("ReportJob-03-{n}:{n}");
    QTest::newRow("sha256 kept") << QByteArray("digest:sha256") << QStringLiteral("digest:sha256");
    QTest::newRow("h264 kept") << QByteArray("codec:h264:profile") << QStringLiteral("codec:h264:profile");
    QTest::newRow("user42 kept") << QByteArray("profile:user42") << QStringLiteral("profile:user42");
    QTest::newRow("camelCase kept") << QByteArray("flags:darkMode") << QStringLiteral("flags:darkMode");
}

void TestPatternClassifier::familyOf()
{
    QFETCH(QByteArray, key);
    QFETCH(QString, family);
    QCOMPARE(::familyOf(key), family);
}

void TestPatternClassifier::shapes()
{
    using namespace patternshape;
    QVERIFY(isRandomToken("9f86d081884c7d659a2feaa0c55ad015"));
    QVERIFY(isRandomToken("123e4567-e89b-12d3-a456-426614174000"));
    QVERIFY(isRandomToken("Zx9Kq2Lm8Np4Rs7Tv1Wy"));
    QVERIFY(!isRandomToken("MyVariableName2024Edition"));
    QVERIFY(!isRandomToken("order_confirmation_email"));
    QVERIFY(!isRandomToken("1234567890123456")); // a number
    QVERIFY(!isRandomToken("deadbeef")); // too short
    qint64 v = 0;
    QVERIFY(isInteger("57", &v));
    QCOMPARE(v, 57);
    QVERIFY(isInteger("-3"));
    QVERIFY(!isInteger("007"));
    QVERIFY(!isInteger("1.5"));
    QVERIFY(!isInteger(""));
    QVERIFY(isMissingMarker("{\"missing\":true}"));
    QVERIFY(isMissingMarker("null"));
    QVERIFY(isMissingMarker(""));
    QVERIFY(isExplicitMissingMarker("{\"found\":false}"));
    QVERIFY(!isExplicitMissingMarker("{}"));
    QVERIFY(!isMissingMarker("{\"missing\":false}"));
    const qint64 t = now();
    QVERIFY(isEpochBucket(t / 60000, t));
    QVERIFY(isEpochBucket(t / 60000 - 37, t));
    QVERIFY(isEpochBucket(t / 86400000, t));
    QVERIFY(!isEpochBucket(1042, t));
    QVERIFY(!isEpochBucket(t / 60000 - 200000, t)); // months ago
}

void TestPatternClassifier::userRuleOverridesStructure()
{
    PatternRule rule;
    rule.glob = "lock:*";
    rule.type = KeyType::String;
    rule.kind = PatternKind::Counter;
    rule.params.insert(QStringLiteral("limit"), 100);
    rule.note = QStringLiteral("our locks are counters");
    rule.line = 3;
    PatternRules rules;
    rules.setRules({rule});
    PatternClassifier c(&rules);
    const KeySample lock = str("lock:invoice:1", "9f86d081884c7d659a2feaa0c55ad015", 30000);
    const PatternMatch m = c.classify(lock);
    QCOMPARE(m.kind, PatternKind::Counter);
    QVERIFY(m.fromRule);
    QCOMPARE(m.confidence, 100);
    QCOMPARE(m.params.value(QStringLiteral("limit")).toInt(), 100);
    QVERIFY2(m.reason.contains(QLatin1String("line 3")) && m.reason.contains(QLatin1String("our locks")),
             qPrintable(m.reason));
    QCOMPARE(m.pttlMs, 30000);
    // Another type or name: structure decides again.
    KeySample hash = coll(KeyType::Hash, "lock:x", {"tokens", "last_refill"}, 1000);
    QCOMPARE(c.classify(hash).kind, PatternKind::TokenBucket);
    QCOMPARE(c.classify(str("lck:invoice:1", "9f86d081884c7d659a2feaa0c55ad015", 30000)).kind, PatternKind::Lock);
    // A rule can say "not a pattern".
    rule.kind = PatternKind::Unknown;
    rule.type = KeyType::Unknown;
    rules.setRules({rule});
    QCOMPARE(c.classify(lock).kind, PatternKind::Unknown);
    QVERIFY(c.ruleMatch("lock:a", KeyType::Hash).has_value());
    QVERIFY(!c.ruleMatch("other", KeyType::String).has_value());
    c.setRules(nullptr);
    QCOMPARE(c.classify(lock).kind, PatternKind::Lock);
}

void TestPatternClassifier::familyContext()
{
    PatternClassifier c;
    const QByteArray token = "Zx9Kq2Lm8Np4Rs7Tv1Wy";
    // A token without TTL and no lock in its name: unknown alone, a lock in a family of locks.
    KeySample s = str("resource:invoice:9", token, -1);
    QCOMPARE(c.classify(s).kind, PatternKind::Unknown);
    PatternContext ctx;
    ctx.familyKind = PatternKind::Lock;
    const PatternMatch m = c.classify(s, ctx);
    QCOMPARE(m.kind, PatternKind::Lock);
    QVERIFY2(m.reason.contains(QLatin1String("no TTL")), qPrintable(m.reason));
    // Tag members known as keys raise the confidence.
    const KeySample tag = coll(KeyType::Set, "groups:7", {"app:product:7", "app:product:27"}, -1);
    const int alone = c.classify(tag).confidence;
    ctx = {};
    ctx.keyKnown = [](const QByteArray &k) { return k.startsWith("app:product:"); };
    const PatternMatch known = c.classify(tag, ctx);
    QCOMPARE(known.kind, PatternKind::CacheTagSet);
    QVERIFY(known.confidence > alone);
    // Session ids whose session keys exist: a session index even without a telling name.
    const KeySample ids = coll(KeyType::Set, "u:5:s", {"9f86d081884c7d659a2feaa0c55ad015"}, -1);
    QVERIFY(c.classify(ids).kind != PatternKind::SessionIndex);
    ctx.keyKnown = [](const QByteArray &k) { return k == "session:9f86d081884c7d659a2feaa0c55ad015"; };
    QCOMPARE(c.classify(ids, ctx).kind, PatternKind::SessionIndex);
}

void TestPatternClassifier::kindIdsRoundTrip()
{
    QSet<QByteArray> ids;
    QSet<QString> names;
    for (int i = 0; i < kPatternKindCount; ++i) {
        const PatternKind k = PatternKind(i);
        const QByteArray id = patternKindId(k);
        QVERIFY(!id.isEmpty());
        QCOMPARE(patternKindFromId(id), std::optional<PatternKind>(k));
        ids.insert(id);
        names.insert(patternKindName(k));
    }
    QCOMPARE(ids.size(), kPatternKindCount);
    QCOMPARE(names.size(), kPatternKindCount);
    QCOMPARE(patternKindId(PatternKind::Unknown), QByteArray("none"));
    QCOMPARE(patternKindId(PatternKind::ListQueue), QByteArray("queue"));
    QCOMPARE(patternKindId(PatternKind::ProcessingList), QByteArray("processing"));
    QCOMPARE(patternKindId(PatternKind::DelayedJobs), QByteArray("delayed"));
    QVERIFY(!patternKindFromId("lok"));
    QVERIFY(!patternKindFromId(""));
}

QTEST_GUILESS_MAIN(TestPatternClassifier)
#include "tst_patternclassifier.moc"
