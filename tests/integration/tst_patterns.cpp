// SPDX-License-Identifier: GPL-3.0-or-later
#include "bytesescape.h"
#include "demo.h"
#include "demotruth.h"
#include "keyscanner.h"
#include "patternindex.h"
#include "redisclient.h"
#include "testserver.h"

#include <QDateTime>
#include <QMap>
#include <QSignalSpy>
#include <QTest>

#include <memory>

// The pattern index against real servers: a fixture per kind (written with the commands
// docs/patterns.md describes) plus near misses, then the demo measured against its ground truth
// (app/demotruth). Precision and recall are printed per kind and held at 100 %.
namespace {

constexpr int kWaitMs = 60000;
constexpr qint64 kMinute = 60000;
constexpr qint64 kHour = 60 * kMinute;

QByteArray num(qint64 v)
{
    return QByteArray::number(v);
}

qint64 now()
{
    return QDateTime::currentMSecsSinceEpoch();
}

QByteArray hexToken(int i)
{
    return QByteArray::number(0x9f86d081884c7d65ULL + quint64(i) * 7919, 16) + "a2feaa0c55ad0" + num(100 + i);
}

struct Classified
{
    QHash<QByteArray, PatternMatch> matches;
    qint64 commands = 0;
    int keys = 0;
};

// Scans the whole keyspace into a PatternIndex and waits until it is idle.
bool classifyAll(const ConnectionProfile &profile, Classified *out, int maxCps = 2000)
{
    std::unique_ptr<RedisClient> client = connectedClient(profile);
    if (!client)
        return false;
    KeyScanner scanner(client.get());
    PatternIndex index(client.get());
    index.setMaxCommandsPerSecond(maxCps);
    QObject::connect(&scanner, &KeyScanner::batchAvailable, &index,
                     [&index](const ScanBatch &b) { index.addKeys(b.keys); });
    bool finished = false;
    QObject::connect(&scanner, &KeyScanner::finished, &index, [&finished](const ScanProgress &) { finished = true; });
    QSignalSpy classified(&index, &PatternIndex::classified);
    scanner.start(ScanOptions());
    if (!QTest::qWaitFor([&] { return finished && index.isIdle(); }, kWaitMs))
        return false;
    for (const PatternMatch &m : index.matches())
        out->matches.insert(m.key, m);
    out->commands = index.sampleCommandCount();
    out->keys = index.size();
    // Batches, not one signal per key.
    return classified.count() > 0 && classified.count() < qMax(2, out->keys / 4);
}

struct Score
{
    int tp = 0, fp = 0, fn = 0, support = 0;
};

// Prints precision / recall / support per kind and returns the mismatches, one line each.
QStringList report(const char *title, const QHash<QByteArray, PatternMatch> &matches,
                   const std::function<std::optional<PatternKind>(const QByteArray &)> &truth)
{
    QMap<int, Score> scores;
    QStringList wrong;
    for (auto it = matches.cbegin(); it != matches.cend(); ++it) {
        const std::optional<PatternKind> expected = truth(it.key());
        if (!expected) {
            wrong << QStringLiteral("unexplained key %1").arg(bytesescape::quoteIfNeeded(it.key()));
            continue;
        }
        const PatternKind got = it->kind;
        ++scores[int(*expected)].support;
        if (got == *expected) {
            ++scores[int(got)].tp;
        } else {
            ++scores[int(got)].fp;
            ++scores[int(*expected)].fn;
            wrong << QStringLiteral("%1: expected %2, got %3 (%4)")
                         .arg(bytesescape::quoteIfNeeded(it.key()), patternKindName(*expected), patternKindName(got),
                              it->reason);
        }
    }
    qInfo("%s: %lld keys", title, static_cast<long long>(matches.size()));
    qInfo("  %-28s %9s %9s %8s", "kind", "precision", "recall", "support");
    for (auto it = scores.cbegin(); it != scores.cend(); ++it) {
        const Score &s = it.value();
        const double precision = s.tp + s.fp ? 100.0 * s.tp / (s.tp + s.fp) : 100.0;
        const double recall = s.tp + s.fn ? 100.0 * s.tp / (s.tp + s.fn) : 100.0;
        qInfo("  %-28s %8.1f%% %8.1f%% %8d", qPrintable(patternKindName(PatternKind(it.key()))), precision, recall,
              s.support);
    }
    std::sort(wrong.begin(), wrong.end());
    return wrong;
}

} // namespace

class TestPatterns : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
    }
    void init() { m_server.flushAll(); }

    void fixtures();
    void sampleReadsArePerFamily();
    void minorityNamesTheKeyThatDisagreed();
    void keysGoneBeforeSamplingAreDropped();
    void noCeilingIsUnpaced();
    void demoMatchesItsTruth();

private:
    TestServer m_server;
};

void TestPatterns::fixtures()
{
    const qint64 t = now();
    QHash<QByteArray, PatternKind> expected;
    QList<QList<QByteArray>> cmds;
    const auto add = [&](const QByteArray &key, PatternKind kind, const QList<QList<QByteArray>> &writes) {
        expected.insert(key, kind);
        cmds += writes;
    };
    using K = PatternKind;
    // Locks: SET NX PX with a random token; going wrong: no TTL, value "1".
    add("lock:fx:order:1", K::Lock, {{"SET", "lock:fx:order:1", hexToken(1), "NX", "PX", "30000"}});
    add("lock:fx:order:2", K::Lock, {{"SET", "lock:fx:order:2", hexToken(2), "NX", "PX", "90000"}});
    add("lock:fx:stuck", K::Lock, {{"SET", "lock:fx:stuck", hexToken(3)}});
    add("lock:fx:unsafe", K::Lock, {{"SET", "lock:fx:unsafe", "1", "PX", "60000"}});
    add("report:fx:build:mutex", K::Lock, {{"SET", "report:fx:build:mutex", hexToken(4), "NX", "EX", "20"}});
    // Fixed windows: INCR + PEXPIRE on a window number.
    for (int u = 1; u <= 5; ++u) {
        const QByteArray key = "rate:fx:user:" + num(u) + ':' + num(t / kMinute);
        add(key, K::FixedWindow, {{"INCRBY", key, num(u * 2)}, {"PEXPIRE", key, "60000"}});
    }
    // Sliding-window logs: ms scores, "<ms>:<seq>" members, TTL = window.
    for (int u = 1; u <= 3; ++u) {
        const QByteArray key = "rate:fx:sliding:" + num(u);
        QList<QByteArray> zadd{"ZADD", key};
        for (int i = 0; i < 6; ++i)
            zadd << num(t - 50000 + i * 8000) << num(t - 50000 + i * 8000) + ':' + num(i + 1);
        add(key, K::SlidingWindow, {zadd, {"PEXPIRE", key, "60000"}});
    }
    // Token buckets: tokens and last_refill.
    for (int c = 1; c <= 3; ++c) {
        const QByteArray key = "bucket:fx:client-" + num(c);
        add(key, K::TokenBucket,
            {{"HSET", key, "tokens", num(c * 3), "last_refill", num(t)}, {"PEXPIRE", key, "60000"}});
    }
    add("hll:fx:visitors:2026-11-29", K::HyperLogLog, {{"PFADD", "hll:fx:visitors:2026-11-29", "a", "b", "c"}});
    // Cache entries, negative markers, tags of them.
    for (int i = 1; i <= 20; ++i) {
        const QByteArray key = "cache:fx:item:" + num(i);
        add(key, K::CacheEntry,
            {{"SET", key, "{\"id\":" + num(i) + ",\"name\":\"item\"}", "PX", num(10 * kMinute + i * 1000)}});
    }
    for (int i = 900; i < 905; ++i) {
        const QByteArray key = "cache:fx:item:" + num(i);
        add(key, K::NegativeCache, {{"SET", key, i % 2 ? "null" : "{\"missing\":true}", "EX", "30"}});
    }
    for (int tag = 1; tag <= 2; ++tag) {
        const QByteArray key = "tag:fx:category:" + num(tag);
        QList<QByteArray> sadd{"SADD", key};
        for (int i = tag; i <= 20; i += 2)
            sadd << "cache:fx:item:" + num(i);
        add(key, K::CacheTagSet, {sadd, {"PEXPIRE", key, num(kHour)}});
    }
    add("geo:fx:stores", K::GeoSet,
        {{"GEOADD", "geo:fx:stores", "13.405", "52.52", "berlin", "2.3522", "48.8566", "paris"}});
    add("events:fx:orders", K::Stream, {{"XADD", "events:fx:orders", "*", "order_id", "1"}});
    add("q:fx:jobs", K::ListQueue, {{"LPUSH", "q:fx:jobs", "{\"id\":1}", "{\"id\":2}", "{\"id\":3}"}});
    add("q:fx:jobs:processing:w1", K::ProcessingList,
        {{"LMOVE", "q:fx:jobs", "q:fx:jobs:processing:w1", "RIGHT", "LEFT"}});
    add("delayed:fx:jobs", K::DelayedJobs,
        {{"ZADD", "delayed:fx:jobs", num(t - 5 * kMinute), "{\"id\":7,\"type\":\"remind\"}", num(t + kHour),
          "{\"id\":8,\"type\":\"remind\"}"}});
    for (int i = 1; i <= 10; ++i) {
        const QByteArray key = "seen:fx:evt:" + num(1000 + i);
        add(key, K::DedupKey, {{"SET", key, "1", "NX", "EX", "3600"}});
    }
    add("dedup:fx:webhooks", K::DedupSet, {{"SADD", "dedup:fx:webhooks", "evt_1", "evt_2", "evt_3", "evt_4"}});
    for (int i = 1; i <= 5; ++i) {
        const QByteArray id = hexToken(10 + i);
        const QByteArray key = "session:fx:" + id;
        add(key, K::Session,
            {{"HSET", key, "user_id", num(40 + i % 2), "created_at", num(t), "last_seen", num(t), "csrf_token",
              hexToken(i)},
             {"PEXPIRE", key, num(2 * kHour)}});
        const QByteArray index = "user:fx:" + num(40 + i % 2) + ":sessions";
        expected.insert(index, K::SessionIndex);
        cmds += {{"SADD", index, id}, {"PEXPIRE", index, num(24 * kHour)}};
    }
    add("stats:fx:visits:2026-11-29", K::Counter, {{"INCRBY", "stats:fx:visits:2026-11-29", "42"}});
    add("lb:fx:weekly", K::Leaderboard,
        {{"ZADD", "lb:fx:weekly", "120", "player:1", "90", "player:2", "3000", "player:3"}});

    // Near misses: each looks like a kind in one way and is not.
    add("fx:greeting", K::Unknown,
        {{"SET", "fx:greeting", "hello there, nice to meet you", "PX", "30000"}}); // not a lock
    add("fx:page:about", K::CacheEntry,
        {{"SET", "fx:page:about", "About us: we make kettles", "PX", num(2 * kHour)}}); // not a lock
    add("user:fx:5:api_token", K::Unknown, {{"SET", "user:fx:5:api_token", hexToken(99)}}); // token, no lock
    add("scores:fx:game", K::Leaderboard,
        {{"ZADD", "scores:fx:game", "100", "ann", "2500", "bob", "31337", "cy"}}); // not delayed
    add("fx:cells", K::GeoSet,
        {{"ZADD", "fx:cells", "3471579339700058", "a", "3471579339701234", "b"}}); // geohashes, no board
    add("fx:orders:count", K::Counter, {{"INCR", "fx:orders:count"}, {"INCR", "fx:orders:count"}}); // no fixed window
    add("users:fx:last-seen", K::Unknown,
        {{"ZADD", "users:fx:last-seen", num(t - 9 * 24 * kHour), "u1", num(t - 1000), "u2"}}); // times, no log
    add("fx:colors", K::Unknown, {{"SADD", "fx:colors", "red", "green", "blue"}});
    add("fx:recent", K::Unknown, {{"RPUSH", "fx:recent", "red", "green"}}); // a list, no queue
    add("fx:profile", K::Unknown, {{"HSET", "fx:profile", "name", "Ann", "plan", "pro"}});

    for (const RedisValue &v : m_server.pipeline(cmds))
        QVERIFY2(!v.isError(), qPrintable(QString::fromUtf8(v.bytes())));
    QCOMPARE(m_server.allKeys().size(), expected.size());

    Classified c;
    QVERIFY(classifyAll(m_server.profile(), &c));
    QCOMPARE(c.matches.size(), expected.size());
    const QStringList wrong
        = report("fixtures", c.matches, [&expected](const QByteArray &k) -> std::optional<PatternKind> {
              const auto it = expected.constFind(k);
              return it == expected.cend() ? std::nullopt : std::optional<PatternKind>(*it);
          });
    QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(QLatin1Char('\n'))));
    // Every verdict explains itself in one line.
    for (const PatternMatch &m : std::as_const(c.matches)) {
        QVERIFY(!m.reason.isEmpty() && !m.reason.contains(QLatin1Char('\n')));
        QVERIFY(!m.family.isEmpty());
    }
    QVERIFY2(c.matches.value("lock:fx:stuck").reason.contains(QLatin1String("no TTL")),
             qPrintable(c.matches.value("lock:fx:stuck").reason));
    QVERIFY(c.matches.value("lock:fx:unsafe").reason.contains(QLatin1String("not a token")));
}

void TestPatterns::sampleReadsArePerFamily()
{
    // 5,500 keys in four families: the reads are per family and TTL class, not per key. The
    // fourth family's ids are short random ones ("Qa7kR2m"): they group like long ones.
    QList<QList<QByteArray>> cmds;
    for (int i = 0; i < 2000; ++i)
        cmds.append({"SET", "cache:bulk:item:" + num(i), "{\"id\":" + num(i) + '}', "PX", num(30 * kMinute + i * 100)});
    const qint64 window = now() / kMinute;
    for (int i = 0; i < 2000; ++i) {
        const QByteArray key = "rl:bulk:user:" + num(i) + ':' + num(window);
        cmds.append({"INCRBY", key, num(1 + i % 9)});
        cmds.append({"PEXPIRE", key, "55000"});
    }
    for (int i = 0; i < 1000; ++i) {
        const QByteArray key = "session:bulk:" + hexToken(i);
        cmds.append({"HSET", key, "user_id", num(i), "created_at", num(now())});
        cmds.append({"PEXPIRE", key, num(2 * kHour)});
    }
    for (int i = 0; i < 500; ++i) {
        const QByteArray id = QByteArray(1, char('A' + i % 26)) + char('a' + (i / 26) % 26) + char('0' + i % 10)
            + char('k' + i % 7) + char('R' + i % 5) + char('0' + (i / 10) % 10) + 'm';
        const QByteArray key = "sess:" + id;
        cmds.append({"SET", key,
                     R"({"cookie":{"originalMaxAge":86400000,"httpOnly":true,"path":"/"},"user":)" + num(i) + '}', "PX",
                     num(kHour + i * 1000)});
    }
    m_server.pipeline(cmds);
    m_server.command({"CONFIG", "RESETSTAT"});

    Classified c;
    QVERIFY(classifyAll(m_server.profile(), &c));
    QCOMPARE(c.keys, 5500);
    QCOMPARE(c.matches.size(), 5500);
    QMap<PatternKind, int> kinds;
    for (const PatternMatch &m : std::as_const(c.matches))
        ++kinds[m.kind];
    QCOMPARE(kinds.value(PatternKind::CacheEntry), 2000);
    QCOMPARE(kinds.value(PatternKind::FixedWindow), 2000);
    QCOMPARE(kinds.value(PatternKind::Session), 1500);
    QCOMPARE(c.matches.value("sess:Aa0kR0m").family, QStringLiteral("sess:{id}"));
    qInfo("5500 keys in 4 families: %lld sample commands", static_cast<long long>(c.commands));
    QVERIFY2(c.commands > 0 && c.commands <= 4 * 2 * PatternIndex::kSamplesPerGroup * 4,
             qPrintable(QString::number(c.commands)));
    // The server agrees: value reads were a handful per family.
    const QByteArray stats = m_server.command({"INFO", "commandstats"}).bytes();
    qint64 reads = 0;
    for (const QByteArray &line : stats.split('\n')) {
        for (const char *cmd : {"cmdstat_getrange:", "cmdstat_hrandfield:", "cmdstat_hscan:"}) {
            if (line.startsWith(cmd))
                reads += line.mid(line.indexOf("calls=") + 6).split(',').first().toLongLong();
        }
    }
    QVERIFY2(reads > 0 && reads <= 4 * 2 * PatternIndex::kSamplesPerGroup, qPrintable(QString::number(reads)));
}

// One family, two structures: 17 counters of a fixed window and 3 token buckets (hashes) under the
// same name shape. Each keeps its kind, and the three say why they differ from the family,
// naming a key that read that way; the majority says nothing of the kind.
void TestPatterns::minorityNamesTheKeyThatDisagreed()
{
    QList<QList<QByteArray>> cmds;
    for (int i = 0; i < 17; ++i) {
        cmds.append({"INCRBY", "rl:api:" + num(1000 + i), num(3 + i)});
        cmds.append({"PEXPIRE", "rl:api:" + num(1000 + i), "55000"});
    }
    for (int i = 0; i < 3; ++i) {
        const QByteArray key = "rl:api:" + num(2000 + i);
        cmds.append({"HSET", key, "tokens", num(7 + i), "last_refill_ms", num(now())});
        cmds.append({"PEXPIRE", key, "55000"});
    }
    m_server.pipeline(cmds);
    Classified c;
    QVERIFY(classifyAll(m_server.profile(), &c));
    QCOMPARE(c.keys, 20);
    int notes = 0;
    for (const PatternMatch &m : std::as_const(c.matches)) {
        const bool hash = m.key.startsWith("rl:api:2");
        QCOMPARE(m.family, QStringLiteral("rl:api:{n}"));
        QCOMPARE(m.kind, hash ? PatternKind::TokenBucket : PatternKind::FixedWindow);
        if (!hash) {
            QVERIFY2(!m.reason.contains(QLatin1String("unlike")), qPrintable(m.reason));
            continue;
        }
        QVERIFY2(m.reason.contains(QLatin1String("unlike the rest of rl:api:{n} (")), qPrintable(m.reason));
        QVERIFY2(m.reason.contains(QLatin1String("is a hash, the others string")), qPrintable(m.reason));
        QVERIFY2(m.reason.contains(QLatin1String("rl:api:200")), qPrintable(m.reason)); // the key that disagreed
        ++notes;
    }
    QCOMPARE(notes, 3);
}

// --scan-rate 0 means no ceiling for the classifier too: its batches are no longer cut to
// what 2,000 commands a second allow (500 a batch), and at the default they are.
void TestPatterns::noCeilingIsUnpaced()
{
    m_server.flushAll();
    QList<QList<QByteArray>> writes;
    // Letters only, no variable segment: each name is a shape of its own, and is read.
    for (int i = 0; i < 1500; ++i) {
        QByteArray name = "single";
        for (int n = i + 1; n > 0; n /= 26)
            name += char('a' + n % 26);
        writes.append({"SET", name, "v"});
    }
    m_server.pipeline(writes);
    for (const int ceiling : {2000, 0}) {
        std::unique_ptr<RedisClient> client = connectedClient(m_server.profile());
        QVERIFY(client);
        PatternIndex index(client.get());
        index.setMaxCommandsPerSecond(ceiling);
        QCOMPARE(index.maxCommandsPerSecond(), ceiling);
        QList<ScannedKey> keys;
        for (const QByteArray &k : m_server.allKeys())
            keys.append(ScannedKey{k, -1, -1, -1, KeyType::String});
        QSignalSpy idle(&index, &PatternIndex::idle);
        index.addKeys(keys);
        QVERIFY(idle.wait(kWaitMs));
        QVERIFY(index.sampleCommandCount() > 1000);
        if (ceiling > 0)
            QVERIFY2(index.largestSampleBatch() <= ceiling / 4,
                     qPrintable(QString::number(index.largestSampleBatch())));
        else
            QVERIFY2(index.largestSampleBatch() > 2000 / 4, qPrintable(QString::number(index.largestSampleBatch())));
    }
}

void TestPatterns::keysGoneBeforeSamplingAreDropped()
{
    m_server.pipeline(
        {{"SET", "lock:gone:1", hexToken(1), "PX", "60000"}, {"SET", "lock:kept:1", hexToken(2), "PX", "60000"}});
    std::unique_ptr<RedisClient> client = connectedClient(m_server.profile());
    QVERIFY(client);
    PatternIndex index(client.get());
    QSignalSpy removed(&index, &PatternIndex::removed);
    QSignalSpy idle(&index, &PatternIndex::idle);
    ScannedKey gone{"lock:gone:1", 60000, -1, -1, KeyType::String};
    ScannedKey kept{"lock:kept:1", 60000, -1, -1, KeyType::String};
    m_server.command({"DEL", "lock:gone:1"});
    index.addKeys({gone, kept});
    QVERIFY(idle.wait(kWaitMs));
    QCOMPARE(removed.count(), 1);
    QCOMPARE(removed.first().first().value<QList<QByteArray>>(), QList<QByteArray>{"lock:gone:1"});
    QVERIFY(!index.match("lock:gone:1"));
    QVERIFY(index.match("lock:kept:1"));
    QCOMPARE(index.match("lock:kept:1")->kind, PatternKind::Lock);
    QCOMPARE(index.count(PatternKind::Lock), 1);
    QCOMPARE(index.matchesOf(PatternKind::Lock).size(), 1);
    // clear() drops what is in flight: nothing arrives for the old state.
    QSignalSpy classified(&index, &PatternIndex::classified);
    index.clear();
    index.addKeys({kept});
    index.clear();
    QVERIFY(index.isIdle());
    QCOMPARE(index.size(), 0);
    QVERIFY(!QTest::qWaitFor([&] { return classified.count() > 0; }, 500));
}

void TestPatterns::demoMatchesItsTruth()
{
    // The truth's globs are disjoint: at most one rule per key.
    Demo demo;
    QString error;
    QVERIFY2(demo.seedBlocking(&error, 30000), qPrintable(error));
    // The simulator keeps the short-lived keys (token buckets live a few seconds) present.
    demo.startSimulation(200);
    QTRY_VERIFY_WITH_TIMEOUT(demo.tickCount() >= 3, kWaitMs);

    Classified c;
    QVERIFY(classifyAll(demo.profile(), &c));
    demo.stopSimulation();
    QVERIFY2(c.keys > 2000, qPrintable(QString::number(c.keys)));
    QStringList ambiguous;
    for (auto it = c.matches.cbegin(); it != c.matches.cend(); ++it) {
        int n = 0;
        demoTruthOf(it.key(), &n);
        if (n > 1)
            ambiguous << bytesescape::quoteIfNeeded(it.key());
    }
    QVERIFY2(ambiguous.isEmpty(), qPrintable(ambiguous.join(QLatin1Char(' '))));
    const QStringList wrong = report("demo", c.matches, [](const QByteArray &k) { return demoTruthOf(k); });
    QVERIFY2(wrong.isEmpty(), qPrintable(wrong.mid(0, 40).join(QLatin1Char('\n'))));
    // Every kind the demo writes was found.
    QSet<PatternKind> found;
    for (const PatternMatch &m : std::as_const(c.matches))
        found.insert(m.kind);
    for (const DemoTruthRule &r : demoTruth())
        QVERIFY2(found.contains(r.kind), qPrintable(patternKindName(r.kind)));
    qInfo("demo: %d keys, %lld sample commands", c.keys, static_cast<long long>(c.commands));
    // One verdict per kind, as a user reads it.
    QMap<int, PatternMatch> examples;
    for (const PatternMatch &m : std::as_const(c.matches)) {
        if (!examples.contains(int(m.kind)) || m.key < examples.value(int(m.kind)).key)
            examples.insert(int(m.kind), m);
    }
    for (const PatternMatch &m : std::as_const(examples))
        qInfo("  %s → %s %d%%: %s", qPrintable(bytesescape::quoteIfNeeded(m.key)), qPrintable(patternKindName(m.kind)),
              m.confidence, qPrintable(m.reason));
}

QTEST_GUILESS_MAIN(TestPatterns)
#include "tst_patterns.moc"
