// SPDX-License-Identifier: GPL-3.0-or-later
#include "keyscanner.h"
#include "redisclient.h"
#include "testserver.h"
#include "ttlstats.h"

#include <QDateTime>
#include <QRandomGenerator>
#include <QTest>

#include <optional>

// A real KeyScanner over a seeded keyspace into TtlStats, checked against PTTL read on a plain
// socket: the histogram, the namespaces and the forecast agree with counts made directly, and
// 500 keys written with the same EXPIRE show up as a cliff at the right second.
class TestTtlDistribution : public QObject
{
    Q_OBJECT

private:
    // Each group's TTLs stay at least ten seconds inside one bucket, so a few seconds of test
    // run time and the few milliseconds between two readings cannot move a key across an edge.
    struct Group
    {
        QByteArray prefix;
        int count;
        qint64 minMs; // -1: no TTL
        qint64 maxMs;
        int bucket;
    };
    const QList<Group> m_groups{
        {"config:", 300, -1, -1, ttlbucket::NoTtl},
        {"user:", 200, -1, -1, ttlbucket::NoTtl},
        {"neg:", 150, 20'000, 40'000, ttlbucket::UnderMinute},
        {"rate:", 250, 90'000, 270'000, ttlbucket::OneToFiveMinutes},
        {"cache:", 600, 6 * 60'000, 14 * 60'000, ttlbucket::FiveToFifteenMinutes},
        {"tok:", 300, 20 * 60'000, 50 * 60'000, ttlbucket::FifteenToSixtyMinutes},
        {"session:", 700, 2 * 3'600'000, 20 * 3'600'000, ttlbucket::OneToTwentyFourHours},
        {"lb:", 100, 2 * 86'400'000LL, 6 * 86'400'000LL, ttlbucket::OverDay},
    };
    static constexpr int kWarmKeys = 500;
    static constexpr qint64 kWarmTtlMs = 1'500'000; // EXPIRE 1500: the 15–60 min bucket
    static constexpr int kPlainKeys = 100; // without separator, half with a TTL of 8–12 min

    struct Scan
    {
        QList<ScanBatch> batches;
        std::optional<ScanProgress> finished;
    };
    struct Direct
    {
        QHash<QByteArray, qint64> expireAt; // ttl.h conventions
    };

    TestServer m_server;
    qint64 m_warmFrom = 0;
    qint64 m_warmTo = 0;
    int m_totalKeys = 0;

    void scan(Scan &out, const ScanOptions &options = ScanOptions());
    Direct direct();
    static TtlStats statsOf(const Scan &scan);
    static TtlBucketCounts bucketsOf(const Direct &d, qint64 now, const QByteArray &prefix = {});

private Q_SLOTS:
    void initTestCase();
    void histogramMatchesDirectCounts();
    void namespacesMatchDirectCounts();
    void noJitterCliffAtTheRightSecond();
    void duplicateBatchesCountedOnce();
    void namesOnlyScanIsUnknown();
};

void TestTtlDistribution::initTestCase()
{
    QString error;
    QVERIFY2(m_server.start(&error), qPrintable(error));

    QRandomGenerator rng(42);
    QList<QList<QByteArray>> cmds;
    for (const Group &g : m_groups) {
        for (int i = 0; i < g.count; ++i) {
            const QByteArray key = g.prefix + QByteArray::number(i);
            const QByteArray ttl = QByteArray::number(g.minMs < 0 ? 0 : rng.bounded(g.minMs, g.maxMs));
            if (g.prefix == "user:" || g.prefix == "session:") {
                cmds.append({"HSET", key, "user_id", QByteArray::number(i)});
                if (g.minMs >= 0)
                    cmds.append({"PEXPIRE", key, ttl});
            } else if (g.prefix == "rate:") {
                cmds.append({"INCR", key});
                cmds.append({"PEXPIRE", key, ttl});
            } else if (g.prefix == "lb:") {
                cmds.append({"ZADD", key, "10", "player"});
                cmds.append({"PEXPIRE", key, ttl});
            } else if (g.minMs < 0) {
                cmds.append({"SET", key, "v"});
            } else {
                cmds.append({"SET", key, "v", "PX", ttl});
            }
        }
        m_totalKeys += g.count;
    }
    for (int i = 0; i < kPlainKeys; ++i) {
        // Jittered: 50 keys with one EXPIRE 600 in one pipeline would be a cliff of their own.
        if (i % 2)
            cmds.append(
                {"SET", "plain" + QByteArray::number(i), "v", "PX", QByteArray::number(rng.bounded(480'000, 720'000))});
        else
            cmds.append({"SET", "plain" + QByteArray::number(i), "v"});
    }
    m_totalKeys += kPlainKeys;
    const QList<RedisValue> replies = m_server.pipeline(cmds);
    QCOMPARE(replies.size(), cmds.size());
    for (const RedisValue &r : replies)
        QVERIFY2(!r.isError(), qPrintable(r.toDisplayString()));

    // A cache warmed in one go: the same EXPIRE, no jitter.
    QList<QList<QByteArray>> warm;
    for (int i = 0; i < kWarmKeys; ++i)
        warm.append({"SET", "warm:" + QByteArray::number(i), "v", "EX", QByteArray::number(kWarmTtlMs / 1000)});
    m_warmFrom = QDateTime::currentMSecsSinceEpoch();
    QCOMPARE(m_server.pipeline(warm).size(), warm.size());
    m_warmTo = QDateTime::currentMSecsSinceEpoch();
    m_totalKeys += kWarmKeys;
    QCOMPARE(m_server.command({"DBSIZE"}).toInteger(), qint64(m_totalKeys));
}

void TestTtlDistribution::scan(Scan &out, const ScanOptions &options)
{
    RedisClient client(m_server.profile());
    client.connectToServer();
    QVERIFY(waitForReady(client));
    KeyScanner scanner(&client);
    connect(&scanner, &KeyScanner::batchAvailable, this, [&out](const ScanBatch &b) { out.batches.append(b); });
    connect(&scanner, &KeyScanner::finished, this, [&out](const ScanProgress &p) { out.finished = p; });
    const quint64 generation = scanner.start(options);
    QTRY_VERIFY_WITH_TIMEOUT(out.finished.has_value(), 30000);
    QVERIFY2(!out.finished->error.isError(), qPrintable(out.finished->error.message));
    QVERIFY(!out.batches.isEmpty());
    for (const ScanBatch &b : std::as_const(out.batches))
        QCOMPARE(b.generation, generation);
}

TestTtlDistribution::Direct TestTtlDistribution::direct()
{
    RawConnection raw(m_server.port());
    const QList<QByteArray> keys = raw.scan();
    QList<QList<QByteArray>> cmds;
    for (const QByteArray &k : keys)
        cmds.append({"PTTL", k});
    const QList<RedisValue> pttls = raw.pipeline(cmds);
    const qint64 readAt = QDateTime::currentMSecsSinceEpoch();
    Direct d;
    for (qsizetype i = 0; i < keys.size() && i < pttls.size(); ++i)
        d.expireAt.insert(keys.at(i), ttl::expireAt(ttl::fromReply(pttls.at(i)), readAt));
    return d;
}

TtlStats TestTtlDistribution::statsOf(const Scan &scan)
{
    TtlStats stats;
    for (const ScanBatch &b : scan.batches)
        stats.add(b);
    return stats;
}

TtlBucketCounts TestTtlDistribution::bucketsOf(const Direct &d, qint64 now, const QByteArray &prefix)
{
    TtlBucketCounts c{};
    for (auto it = d.expireAt.cbegin(); it != d.expireAt.cend(); ++it) {
        if (!it.key().startsWith(prefix))
            continue;
        if (it.value() == -1)
            ++c[ttlbucket::NoTtl];
        else if (it.value() != ttl::kUnknown && ttlbucket::forRemaining(it.value() - now) >= 0)
            ++c[size_t(ttlbucket::forRemaining(it.value() - now))];
    }
    return c;
}

void TestTtlDistribution::histogramMatchesDirectCounts()
{
    Scan s;
    scan(s);
    if (QTest::currentTestFailed())
        return;
    const Direct d = direct();
    QCOMPARE(d.expireAt.size(), qsizetype(m_totalKeys));
    TtlStats stats = statsOf(s);
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const TtlSnapshot snap = stats.snapshot(now);

    // By construction, every group in its bucket.
    TtlBucketCounts expected{};
    for (const Group &g : m_groups)
        expected[size_t(g.bucket)] += quint64(g.count);
    expected[ttlbucket::FifteenToSixtyMinutes] += kWarmKeys;
    expected[ttlbucket::NoTtl] += kPlainKeys / 2;
    expected[ttlbucket::FiveToFifteenMinutes] += kPlainKeys / 2;

    QCOMPARE(snap.keys, quint64(m_totalKeys));
    QCOMPARE(snap.unknown, quint64(0));
    QCOMPARE(snap.expired, quint64(0));
    QCOMPARE(bucketsOf(d, now), expected);
    QCOMPARE(snap.buckets, expected);

    // The forecast windows are the buckets below their length.
    QCOMPARE(snap.within1m, expected[ttlbucket::UnderMinute]);
    QCOMPARE(snap.within5m, snap.within1m + expected[ttlbucket::OneToFiveMinutes]);
    QCOMPARE(snap.within60m,
             snap.within5m + expected[ttlbucket::FiveToFifteenMinutes] + expected[ttlbucket::FifteenToSixtyMinutes]);

    // The key-browser filter of each bucket selects the keys counted in it.
    for (int b = 0; b < ttlbucket::Count; ++b) {
        const KeyFilter f = TtlStats::filterFor(b, {});
        quint64 matching = 0;
        for (auto it = d.expireAt.cbegin(); it != d.expireAt.cend(); ++it)
            matching += f.matches(it.key(), it.value(), now) ? 1 : 0;
        QCOMPARE(matching, snap.buckets[size_t(b)]);
    }
}

void TestTtlDistribution::namespacesMatchDirectCounts()
{
    Scan s;
    scan(s);
    if (QTest::currentTestFailed())
        return;
    const Direct d = direct();
    TtlStats stats = statsOf(s);
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const TtlSnapshot snap = stats.snapshot(now);
    QCOMPARE(snap.namespaces.size(), m_groups.size() + 2); // + warm: + (no namespace)

    QList<QByteArray> prefixes;
    for (const Group &g : m_groups)
        prefixes.append(g.prefix);
    prefixes.append("warm:");
    for (const QByteArray &prefix : std::as_const(prefixes)) {
        const int i = snap.namespaceIndex(prefix);
        QVERIFY2(i >= 0, prefix.constData());
        const TtlNamespaceStats &ns = snap.namespaces.at(i);
        QCOMPARE(ns.buckets, bucketsOf(d, now, prefix));

        std::vector<qint64> left;
        quint64 keys = 0;
        quint64 noTtl = 0;
        for (auto it = d.expireAt.cbegin(); it != d.expireAt.cend(); ++it) {
            if (!it.key().startsWith(prefix))
                continue;
            ++keys;
            if (it.value() == -1)
                ++noTtl;
            else
                left.push_back(it.value() - now);
        }
        QCOMPARE(ns.keys, keys);
        QCOMPARE(ns.noTtl, noTtl);
        if (left.empty()) {
            QCOMPARE(ns.noTtlShare(), 1.0);
            QCOMPARE(ns.medianMs, qint64(-1));
            continue;
        }
        std::sort(left.begin(), left.end());
        const size_t n = left.size();
        const qint64 median = n % 2 ? left[n / 2] : left[n / 2 - 1] + (left[n / 2] - left[n / 2 - 1]) / 2;
        // The scan and the direct reading happened at different moments: each estimate of an
        // expiry is off by the time between the PTTL reply and the clock reading, a few ms.
        QVERIFY2(qAbs(ns.minMs - left.front()) < 500, prefix.constData());
        QVERIFY2(qAbs(ns.medianMs - median) < 500, prefix.constData());
        QVERIFY2(qAbs(ns.maxMs - left.back()) < 500, prefix.constData());
    }
    const auto plain = *std::find_if(snap.namespaces.cbegin(), snap.namespaces.cend(), [](const TtlNamespaceStats &ns) {
        return ns.kind == TtlNamespaceStats::Kind::NoSeparator;
    });
    QCOMPARE(plain.keys, quint64(kPlainKeys));
    QCOMPARE(plain.noTtlShare(), 0.5);
}

void TestTtlDistribution::noJitterCliffAtTheRightSecond()
{
    Scan s;
    scan(s);
    if (QTest::currentTestFailed())
        return;
    TtlStats stats = statsOf(s);
    const TtlSnapshot snap = stats.snapshot(QDateTime::currentMSecsSinceEpoch());
    QCOMPARE(snap.cliffs.size(), 1);
    const TtlCliff &c = snap.cliffs.first();
    // The server set each expiry between our clock readings around the pipeline.
    const qint64 firstSecond = (m_warmFrom + kWarmTtlMs) / 1000 * 1000;
    const qint64 lastSecond = (m_warmTo + kWarmTtlMs) / 1000 * 1000;
    // The scan estimates each expiry from its own clock when the PTTL reply arrives; on a slow
    // machine (a sanitizer build) that estimate can land in the next second: one second of
    // slack on each side, still far narrower than the hour the cliff is looked for in.
    QVERIFY2(c.startMs >= firstSecond - 1000 && c.endMs <= lastSecond + 2000,
             qPrintable(QStringLiteral("cliff [%1, %2) outside [%3, %4]")
                            .arg(c.startMs)
                            .arg(c.endMs)
                            .arg(firstSecond)
                            .arg(lastSecond + 1000)));
    QVERIFY(c.keys >= quint64(kWarmKeys));
    QVERIFY(c.peak >= quint32(kWarmKeys / 2));
    QCOMPARE(snap.namespaces.at(c.dominantNamespace).prefix, QByteArray("warm:"));
    QCOMPARE(c.dominantKeys, quint64(kWarmKeys));
}

void TestTtlDistribution::duplicateBatchesCountedOnce()
{
    Scan s;
    scan(s);
    if (QTest::currentTestFailed())
        return;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    TtlStats once = statsOf(s);
    // SCAN may return a key twice: here every batch arrives twice, in a different order.
    TtlStats twice = statsOf(s);
    for (qsizetype i = s.batches.size() - 1; i >= 0; --i)
        QCOMPARE(twice.add(s.batches.at(i)), qsizetype(0));
    const TtlSnapshot a = once.snapshot(now);
    const TtlSnapshot b = twice.snapshot(now);
    QCOMPARE(b.keys, quint64(m_totalKeys));
    QCOMPARE(b.buckets, a.buckets);
    QCOMPARE(b.perSecond, a.perSecond);
}

void TestTtlDistribution::namesOnlyScanIsUnknown()
{
    ScanOptions o;
    o.details = false;
    Scan s;
    scan(s, o);
    if (QTest::currentTestFailed())
        return;
    TtlStats stats = statsOf(s);
    const TtlSnapshot snap = stats.snapshot(QDateTime::currentMSecsSinceEpoch());
    QCOMPARE(snap.keys, quint64(m_totalKeys));
    QCOMPARE(snap.unknown, quint64(m_totalKeys));
    QCOMPARE(snap.buckets, TtlBucketCounts{});
    QVERIFY(snap.cliffs.isEmpty());
}

QTEST_GUILESS_MAIN(TestTtlDistribution)
#include "tst_ttldistribution.moc"
