// SPDX-License-Identifier: GPL-3.0-or-later
#include "ttlstats.h"

#include <QAbstractItemModelTester>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>

#include <numeric>

namespace {

// A whole second plus 400 ms: forecast bins are wall-clock seconds, so "now" inside a second
// checks that the first bin is partial.
constexpr qint64 kNow = 1'800'000'000'400;
constexpr qint64 kMin = 60'000;

ScannedKey key(const QByteArray &name, qint64 pttl)
{
    ScannedKey k;
    k.name = name;
    k.pttlMs = pttl;
    k.type = KeyType::String;
    return k;
}

ScanBatch batch(const QList<ScannedKey> &keys, qint64 capturedAt = kNow)
{
    ScanBatch b;
    b.generation = 1;
    b.keys = keys;
    b.capturedAtMs = capturedAt;
    return b;
}

quint64 sum(const TtlBucketCounts &c)
{
    return std::accumulate(c.begin(), c.end(), quint64(0));
}

} // namespace

class TestTtlStats : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void bucketBoundaries_data();
    void bucketBoundaries();
    void unknownIsNotNoTtl();
    void duplicatesCountedOnce();
    void vanishedKeysIgnored();
    void median_data();
    void median();
    void remainingAgainstNow();
    void forecastWindows();
    void cliffThreshold_data();
    void cliffThreshold();
    void cliffFromSameExpire();
    void noCliffForJitteredKeys();
    void noCliffForSteadyStream();
    void separatorRegroups();
    void manyNamespacesGrouped();
    void filterMatchesCountedKeys();
    void filterLabels();
    void namespaceModel();
    void namespaceModelSorts();
};

void TestTtlStats::bucketBoundaries_data()
{
    QTest::addColumn<qint64>("pttl");
    QTest::addColumn<int>("bucket"); // -1 expired, -2 unknown

    QTest::newRow("no TTL") << qint64(-1) << int(ttlbucket::NoTtl);
    QTest::newRow("unknown") << ttl::kUnknown << -2;
    QTest::newRow("0 ms: expired") << qint64(0) << -1;
    QTest::newRow("1 ms") << qint64(1) << int(ttlbucket::UnderMinute);
    QTest::newRow("59 999 ms") << qint64(59'999) << int(ttlbucket::UnderMinute);
    QTest::newRow("60 000 ms") << qint64(60'000) << int(ttlbucket::OneToFiveMinutes);
    QTest::newRow("299 999 ms") << qint64(299'999) << int(ttlbucket::OneToFiveMinutes);
    QTest::newRow("300 000 ms") << qint64(300'000) << int(ttlbucket::FiveToFifteenMinutes);
    QTest::newRow("899 999 ms") << qint64(899'999) << int(ttlbucket::FiveToFifteenMinutes);
    QTest::newRow("900 000 ms") << qint64(900'000) << int(ttlbucket::FifteenToSixtyMinutes);
    QTest::newRow("3 599 999 ms") << qint64(3'599'999) << int(ttlbucket::FifteenToSixtyMinutes);
    QTest::newRow("3 600 000 ms") << qint64(3'600'000) << int(ttlbucket::OneToTwentyFourHours);
    QTest::newRow("86 399 999 ms") << qint64(86'399'999) << int(ttlbucket::OneToTwentyFourHours);
    QTest::newRow("86 400 000 ms") << qint64(86'400'000) << int(ttlbucket::OverDay);
    QTest::newRow("a year") << qint64(365) * 86'400'000 << int(ttlbucket::OverDay);
}

void TestTtlStats::bucketBoundaries()
{
    QFETCH(qint64, pttl);
    QFETCH(int, bucket);

    TtlStats stats;
    stats.add(batch({key("k", pttl)}));
    const TtlSnapshot s = stats.snapshot(kNow);
    QCOMPARE(s.keys, quint64(1));
    TtlBucketCounts expected{};
    if (bucket >= 0)
        expected[size_t(bucket)] = 1;
    QCOMPARE(s.buckets, expected);
    QCOMPARE(s.unknown, quint64(bucket == -2 ? 1 : 0));
    QCOMPARE(s.expired, quint64(bucket == -1 ? 1 : 0));
    if (pttl >= 0)
        QCOMPARE(ttlbucket::forRemaining(pttl), bucket);

    // The filter for each bucket matches the key exactly when it was counted there.
    for (int b = 0; b < ttlbucket::Count; ++b) {
        const KeyFilter f = TtlStats::filterFor(b, {});
        QCOMPARE(f.matches("k", ttl::expireAt(pttl, kNow), kNow), b == bucket);
    }
}

void TestTtlStats::unknownIsNotNoTtl()
{
    TtlStats stats;
    stats.add(batch({key("a:1", ttl::kUnknown), key("a:2", ttl::kUnknown), key("a:3", -1), key("a:4", 5000)}));
    const TtlSnapshot s = stats.snapshot(kNow);
    QCOMPARE(s.unknown, quint64(2));
    QCOMPARE(s.buckets[ttlbucket::NoTtl], quint64(1));
    QCOMPARE(sum(s.buckets), quint64(2));
    QCOMPARE(s.namespaces.size(), 1);
    const TtlNamespaceStats &ns = s.namespaces.first();
    QCOMPARE(ns.keys, quint64(4));
    QCOMPARE(ns.unknown, quint64(2));
    // The share is of the keys whose TTL state is known: one of two.
    QCOMPARE(ns.noTtlShare(), 0.5);

    TtlStats namesOnly;
    namesOnly.add(batch({key("x", ttl::kUnknown)}));
    QCOMPARE(namesOnly.snapshot(kNow).namespaces.first().noTtlShare(), -1.0);
    QVERIFY(!TtlStats::filterFor(ttlbucket::NoTtl, {}).matches("x", ttl::kUnknown, kNow));
}

void TestTtlStats::duplicatesCountedOnce()
{
    TtlStats stats;
    QCOMPARE(stats.add(batch({key("s:1", 10 * kMin), key("s:2", -1), key("s:1", 10 * kMin)})), qsizetype(2));
    // SCAN returned s:1 again in a later batch, read a moment later: still one key, first reading.
    QCOMPARE(stats.add(batch({key("s:1", 2 * kMin), key("s:3", 30'000)}, kNow + 1000)), qsizetype(1));
    const TtlSnapshot s = stats.snapshot(kNow);
    QCOMPARE(s.keys, quint64(3));
    QCOMPARE(s.buckets[ttlbucket::FiveToFifteenMinutes], quint64(1));
    QCOMPARE(s.buckets[ttlbucket::OneToFiveMinutes], quint64(0));
    QCOMPARE(s.buckets[ttlbucket::UnderMinute], quint64(1));
    QCOMPARE(s.namespaces.first().keys, quint64(3));
    QCOMPARE(stats.keyCount(), quint64(3));

    stats.clear();
    QCOMPARE(stats.keyCount(), quint64(0));
    QCOMPARE(stats.add(batch({key("s:1", 10 * kMin)})), qsizetype(1));
}

void TestTtlStats::vanishedKeysIgnored()
{
    TtlStats stats;
    stats.add(batch({key("gone", -2), key("here", -1)}));
    QCOMPARE(stats.snapshot(kNow).keys, quint64(1));
}

void TestTtlStats::median_data()
{
    QTest::addColumn<QList<qint64>>("pttls");
    QTest::addColumn<qint64>("min");
    QTest::addColumn<qint64>("median");
    QTest::addColumn<qint64>("max");

    QTest::newRow("one") << QList<qint64>{42'000} << qint64(42'000) << qint64(42'000) << qint64(42'000);
    QTest::newRow("odd") << QList<qint64>{30'000, 10'000, 20'000} << qint64(10'000) << qint64(20'000) << qint64(30'000);
    QTest::newRow("even") << QList<qint64>{40'000, 10'000, 30'000, 20'000} << qint64(10'000) << qint64(25'000)
                          << qint64(40'000);
    QTest::newRow("even, odd gap") << QList<qint64>{1000, 2001} << qint64(1000) << qint64(1500) << qint64(2001);
    QTest::newRow("no TTL and expired left out")
        << QList<qint64>{-1, -1, 0, 5000, 7000, 9000, ttl::kUnknown} << qint64(5000) << qint64(7000) << qint64(9000);
    QTest::newRow("none left") << QList<qint64>{-1, 0} << qint64(-1) << qint64(-1) << qint64(-1);
}

void TestTtlStats::median()
{
    QFETCH(QList<qint64>, pttls);
    QFETCH(qint64, min);
    QFETCH(qint64, median);
    QFETCH(qint64, max);

    TtlStats stats;
    // Across two batches, so the sorted merge of a second batch is exercised too.
    QList<ScannedKey> first;
    QList<ScannedKey> second;
    for (qsizetype i = 0; i < pttls.size(); ++i)
        (i % 2 ? second : first).append(key("ns:" + QByteArray::number(i), pttls.at(i)));
    stats.add(batch(first));
    stats.snapshot(kNow);
    stats.add(batch(second));
    const TtlNamespaceStats ns = stats.snapshot(kNow).namespaces.first();
    QCOMPARE(ns.minMs, min);
    QCOMPARE(ns.medianMs, median);
    QCOMPARE(ns.maxMs, max);
}

void TestTtlStats::remainingAgainstNow()
{
    TtlStats stats;
    stats.add(batch({key("a", 90'000), key("b", 10 * kMin)}));
    TtlSnapshot s = stats.snapshot(kNow);
    QCOMPARE(s.buckets[ttlbucket::OneToFiveMinutes], quint64(1));
    QCOMPARE(s.namespaces.first().minMs, qint64(90'000));

    // A panel opened 40 s later shows what is left then, not what the scan read.
    s = stats.snapshot(kNow + 40'000);
    QCOMPARE(s.buckets[ttlbucket::UnderMinute], quint64(1));
    QCOMPARE(s.buckets[ttlbucket::OneToFiveMinutes], quint64(0));
    QCOMPARE(s.namespaces.first().minMs, qint64(50'000));
    QCOMPARE(s.namespaces.first().maxMs, qint64(10 * kMin - 40'000));

    s = stats.snapshot(kNow + 100'000);
    QCOMPARE(s.expired, quint64(1));
    QCOMPARE(s.buckets[ttlbucket::UnderMinute], quint64(0));
    QCOMPARE(s.buckets[ttlbucket::FiveToFifteenMinutes], quint64(1));
    QCOMPARE(s.within60m, quint64(1));
}

void TestTtlStats::forecastWindows()
{
    TtlStats stats;
    stats.add(batch({key("a", 30'000), key("b", 59'999), key("c", 60'000), key("d", 4 * kMin), key("e", 50 * kMin),
                     key("f", 60 * kMin - 1), key("g", 60 * kMin), key("h", 2 * 60 * kMin), key("i", -1), key("j", 0),
                     key("k", 599)}));
    const TtlSnapshot s = stats.snapshot(kNow);
    QCOMPARE(s.within1m, quint64(3)); // a, b, k
    QCOMPARE(s.within5m, quint64(5)); // + c, d
    QCOMPARE(s.within60m, quint64(7)); // + e, f
    QCOMPARE(s.perSecond.size(), size_t(TtlStats::kForecastSeconds + 1));
    QCOMPARE(std::accumulate(s.perSecond.begin(), s.perSecond.end(), quint64(0)), s.within60m);
    // Bins are wall-clock seconds: now is 400 ms into one, so 599 ms from now is still in it,
    // 30 s from now is in the 30th after it, and the last key just before an hour in the 3600th.
    QCOMPARE(s.forecastStartMs, kNow - 400);
    QCOMPARE(s.perSecond[0], quint32(1));
    QCOMPARE(s.perSecond[30], quint32(1));
    QCOMPARE(s.perSecond[3600], quint32(1));
}

void TestTtlStats::cliffThreshold_data()
{
    QTest::addColumn<int>("background"); // keys in every second of the hour
    QTest::addColumn<int>("spike"); // keys in second 1800
    QTest::addColumn<bool>("cliff");

    // At least 20 keys ...
    QTest::newRow("quiet hour, 19") << 0 << 19 << false;
    QTest::newRow("quiet hour, 20") << 0 << 20 << true;
    // ... and at least ten times the mean of the neighbourhood (here exactly the background).
    QTest::newRow("5/s, 49") << 5 << 49 << false;
    QTest::newRow("5/s, 50") << 5 << 50 << true;
    QTest::newRow("30/s, 299") << 30 << 299 << false;
    QTest::newRow("30/s, 300") << 30 << 300 << true;
}

void TestTtlStats::cliffThreshold()
{
    QFETCH(int, background);
    QFETCH(int, spike);
    QFETCH(bool, cliff);

    TtlStats stats;
    QList<ScannedKey> keys;
    const qint64 start = kNow - 400; // whole second
    for (int sec = 1; sec <= 3599; ++sec) {
        const int n = sec == 1800 ? spike : background;
        for (int i = 0; i < n; ++i)
            keys.append(
                key("bg:" + QByteArray::number(sec) + ':' + QByteArray::number(i), start + sec * 1000 + 500 - kNow));
    }
    stats.add(batch(keys));
    const TtlSnapshot s = stats.snapshot(kNow);
    QCOMPARE(s.cliffs.size(), cliff ? 1 : 0);
    if (cliff) {
        QCOMPARE(s.cliffs.first().startMs, start + 1800 * 1000);
        QCOMPARE(s.cliffs.first().endMs, start + 1801 * 1000);
        QCOMPARE(s.cliffs.first().keys, quint64(spike));
    }
}

void TestTtlStats::cliffFromSameExpire()
{
    // 3000 jittered cache keys spread over the hour, and 500 written at once with the same
    // EXPIRE 1200 over 30 ms that happen to straddle a second boundary.
    TtlStats stats;
    QRandomGenerator rng(7);
    QList<ScannedKey> keys;
    for (int i = 0; i < 3000; ++i)
        keys.append(key("cache:" + QByteArray::number(i), rng.bounded(qint64(1000), qint64(3'590'000))));
    stats.add(batch(keys));
    const qint64 writtenAt = kNow - 400 + 985; // 15 ms before the next wall-clock second
    QList<ScannedKey> warm;
    for (int i = 0; i < 500; ++i)
        warm.append(key("warm:" + QByteArray::number(i), (writtenAt + (i % 30)) + 1'200'000 - kNow));
    stats.add(batch(warm));

    const TtlSnapshot s = stats.snapshot(kNow);
    QCOMPARE(s.cliffs.size(), 1);
    const TtlCliff &c = s.cliffs.first();
    const qint64 expectedSecond = (writtenAt + 1'200'000) / 1000 * 1000;
    QCOMPARE(c.startMs, expectedSecond);
    QCOMPARE(c.endMs, expectedSecond + 2000); // both seconds, one cliff
    QVERIFY(c.keys >= 500);
    QCOMPARE(s.namespaces.at(c.dominantNamespace).prefix, QByteArray("warm:"));
    QCOMPARE(c.dominantKeys, quint64(500));
    QVERIFY(c.peak >= 250);
    QVERIFY(c.baselinePerSecond < 2.0);
}

void TestTtlStats::noCliffForJitteredKeys()
{
    // 72 000 keys with uniform random jitter over the hour: ~20 per second, Poisson peaks in
    // the thirties, far from ten times the neighbourhood.
    TtlStats stats;
    QRandomGenerator rng(11);
    QList<ScannedKey> keys;
    for (int i = 0; i < 72'000; ++i)
        keys.append(key("api:" + QByteArray::number(i), rng.bounded(qint64(1), qint64(3'600'000))));
    stats.add(batch(keys));
    const TtlSnapshot s = stats.snapshot(kNow);
    QCOMPARE(s.within60m, quint64(72'000));
    QVERIFY(*std::max_element(s.perSecond.begin(), s.perSecond.end()) >= TtlStats::kCliffMinKeys);
    QCOMPARE(s.cliffs.size(), 0);
}

void TestTtlStats::noCliffForSteadyStream()
{
    // 100 writes a second for ten minutes, all with the same TTL: they expire at the rate they
    // were written, which is no stampede.
    TtlStats stats;
    QList<ScannedKey> keys;
    for (int sec = 0; sec < 600; ++sec)
        for (int i = 0; i < 100; ++i)
            keys.append(key("rate:" + QByteArray::number(sec * 100 + i), 10 * kMin + sec * 1000 + i * 10));
    stats.add(batch(keys));
    QCOMPARE(stats.snapshot(kNow).cliffs.size(), 0);
}

void TestTtlStats::separatorRegroups()
{
    TtlStats stats;
    stats.add(batch({key("app:user:1", -1), key("app:user:2", 5000), key("plain", -1), key("a/b", 5000)}));
    TtlSnapshot s = stats.snapshot(kNow);
    QCOMPARE(s.namespaces.size(), 2);
    QCOMPARE(s.namespaceIndex("app:"), 0);
    QCOMPARE(s.namespaces.at(0).keys, quint64(2));
    QCOMPARE(s.namespaces.at(1).kind, TtlNamespaceStats::Kind::NoSeparator);
    QCOMPARE(s.namespaces.at(1).keys, quint64(2));
    const quint64 epoch = s.layoutEpoch;

    stats.setSeparator("/");
    s = stats.snapshot(kNow);
    QVERIFY(s.layoutEpoch != epoch);
    QCOMPARE(s.keys, quint64(4));
    QCOMPARE(s.namespaces.at(s.namespaceIndex("a/")).keys, quint64(1));
    QCOMPARE(s.namespaceIndex("app:"), -1);

    stats.setSeparator({});
    s = stats.snapshot(kNow);
    QCOMPARE(s.namespaces.size(), 1);
    QCOMPARE(s.namespaces.first().displayName(), QStringLiteral("(no namespace)"));
    QCOMPARE(s.buckets[ttlbucket::NoTtl], quint64(2));
}

void TestTtlStats::manyNamespacesGrouped()
{
    TtlStats stats;
    QList<ScannedKey> keys;
    for (int i = 0; i < TtlStats::kMaxNamespaces + 500; ++i)
        keys.append(key("u" + QByteArray::number(i) + ":cart", -1));
    stats.add(batch(keys));
    const TtlSnapshot s = stats.snapshot(kNow);
    QCOMPARE(s.namespaces.size(), TtlStats::kMaxNamespaces + 1);
    QCOMPARE(s.namespaces.last().kind, TtlNamespaceStats::Kind::Other);
    QCOMPARE(s.namespaces.last().keys, quint64(500));
    QCOMPARE(s.keys, quint64(TtlStats::kMaxNamespaces + 500));
}

void TestTtlStats::filterMatchesCountedKeys()
{
    // A mixed keyspace; every bucket × namespace filter selects exactly the keys counted there,
    // also after time has moved on (some keys expired, others moved down a bucket).
    TtlStats stats;
    QRandomGenerator rng(3);
    QList<std::pair<QByteArray, qint64>> all; // name, expireAt
    const QByteArray prefixes[] = {"session:", "cache:", "lock:", ""};
    for (int batchNo = 0; batchNo < 4; ++batchNo) {
        QList<ScannedKey> keys;
        const qint64 capturedAt = kNow + batchNo * 250;
        for (int i = 0; i < 2000; ++i) {
            const QByteArray name = prefixes[rng.bounded(4)] + QByteArray::number(batchNo * 10'000 + i);
            qint64 pttl;
            switch (rng.bounded(6)) {
            case 0: pttl = -1; break;
            case 1: pttl = ttl::kUnknown; break;
            case 2: // right on the edges
                pttl = qMax<qint64>(0, ttlbucket::minMs(1 + rng.bounded(ttlbucket::Count - 1)) + rng.bounded(-2, 3));
                break;
            default: pttl = rng.bounded(qint64(0), qint64(3) * 86'400'000);
            }
            keys.append(key(name, pttl));
            all.append({name, ttl::expireAt(pttl, capturedAt)});
        }
        stats.add(batch(keys, capturedAt));
    }

    for (const qint64 now : {kNow + 1000, kNow + 61'000, kNow + 3'600'000}) {
        const TtlSnapshot s = stats.snapshot(now);
        for (int ns = -1; ns < s.namespaces.size(); ++ns) {
            const TtlNamespaceStats *st = ns < 0 ? nullptr : &s.namespaces.at(ns);
            if (st && !st->hasPrefix())
                continue;
            for (int b = 0; b < ttlbucket::Count; ++b) {
                const KeyFilter f = TtlStats::filterFor(b, st ? st->prefix : QByteArray());
                quint64 matching = 0;
                for (const auto &[name, expireAt] : std::as_const(all))
                    matching += f.matches(name, expireAt, now) ? 1 : 0;
                const quint64 counted = st ? st->buckets[size_t(b)] : s.buckets[size_t(b)];
                QVERIFY2(matching == counted,
                         qPrintable(QStringLiteral("%1 %2 at +%3 ms: %4 match, %5 counted")
                                        .arg(st ? st->displayName() : QStringLiteral("all"), ttlbucket::label(b))
                                        .arg(now - kNow)
                                        .arg(matching)
                                        .arg(counted)));
            }
        }
    }
}

void TestTtlStats::filterLabels()
{
    KeyFilter f = TtlStats::filterFor(ttlbucket::OneToFiveMinutes, "session:");
    QCOMPARE(f.prefix, QByteArray("session:"));
    QCOMPARE(f.ttl, KeyFilter::Ttl::Range);
    QCOMPARE(f.minTtlMs, qint64(60'000));
    QCOMPARE(f.maxTtlMs, qint64(300'000));
    QCOMPARE(f.label, QStringLiteral("TTL 1–5 min in session:"));

    f = TtlStats::filterFor(ttlbucket::NoTtl, {});
    QCOMPARE(f.ttl, KeyFilter::Ttl::None);
    QCOMPARE(f.label, QStringLiteral("no TTL"));

    f = TtlStats::filterFor(-1, QByteArray("bin\xff:", 5));
    QCOMPARE(f.ttl, KeyFilter::Ttl::Any);
    QCOMPARE(f.label, QStringLiteral("namespace \"bin\\xff:\""));

    QVERIFY(TtlStats::filterFor(-1, {}).isEmpty());
}

void TestTtlStats::namespaceModel()
{
    TtlStats stats;
    TtlNamespaceModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(TtlNamespaceModel::SortRole);
    proxy.sort(TtlNamespaceModel::KeysColumn, Qt::DescendingOrder);
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);

    stats.add(batch({key("session:1", 30 * kMin), key("session:2", 10 * kMin), key("plain", -1)}));
    model.setSnapshot(stats.snapshot(kNow));
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), int(TtlNamespaceModel::ColumnCount));
    QCOMPARE(model.headerData(TtlNamespaceModel::MedianColumn, Qt::Horizontal).toString(),
             QStringLiteral("Median TTL"));
    QCOMPARE(model.index(0, TtlNamespaceModel::NamespaceColumn).data().toString(), QStringLiteral("session:"));
    QCOMPARE(model.index(0, TtlNamespaceModel::KeysColumn).data().toString(), QStringLiteral("2"));
    QCOMPARE(model.index(0, TtlNamespaceModel::NoTtlColumn).data().toString(), QStringLiteral("0.0 %"));
    QCOMPARE(model.index(0, TtlNamespaceModel::MinColumn).data().toString(), QStringLiteral("10m 00s"));
    QCOMPARE(model.index(0, TtlNamespaceModel::MedianColumn).data().toString(), QStringLiteral("20m 00s"));
    QCOMPARE(model.index(0, TtlNamespaceModel::MaxColumn).data().toString(), QStringLiteral("30m 00s"));
    QCOMPARE(model.index(0, 0).data(TtlNamespaceModel::KeyRole).toByteArray(), QByteArray("session:"));
    QCOMPARE(model.index(1, 0).data().toString(), QStringLiteral("(no namespace)"));
    QCOMPARE(model.index(1, TtlNamespaceModel::NoTtlColumn).data().toString(), QStringLiteral("100.0 %"));
    QCOMPARE(model.index(1, TtlNamespaceModel::MedianColumn).data().toString(), QStringLiteral("—"));
    QVERIFY(!model.index(1, 0).data(TtlNamespaceModel::HasPrefixRole).toBool());
    QVERIFY(model.flags(model.index(0, 0)) & Qt::ItemIsSelectable);
    QVERIFY(!(model.flags(model.index(1, 0)) & Qt::ItemIsSelectable));

    // A refresh with new namespaces: rows are updated in one go and the new ones inserted.
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QList<ScannedKey> more;
    for (int i = 0; i < 100; ++i)
        more.append(key("cache:" + QByteArray::number(i), i % 2 ? -1 : 5 * kMin));
    more.append(key("lock:a", 5000));
    stats.add(batch(more));
    model.setSnapshot(stats.snapshot(kNow));
    QCOMPARE(reset.size(), 0);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("cache:"));
    QCOMPARE(proxy.index(0, TtlNamespaceModel::NoTtlColumn).data().toString(), QStringLiteral("50.0 %"));

    // The same snapshot again: one dataChanged, nothing else.
    model.setSnapshot(stats.snapshot(kNow + 1000));
    QCOMPARE(changed.size(), 2);
    QCOMPARE(inserted.size(), 1);

    // New grouping: a reset.
    stats.setSeparator("/");
    model.setSnapshot(stats.snapshot(kNow));
    QCOMPARE(reset.size(), 1);
    QCOMPARE(model.rowCount(), 1);

    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void TestTtlStats::namespaceModelSorts()
{
    TtlStats stats;
    TtlNamespaceModel model;
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(TtlNamespaceModel::SortRole);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    // Keys 3, 20, 100 so that text order ("100" < "20" < "3") differs from number order.
    QList<ScannedKey> keys;
    for (int i = 0; i < 3; ++i)
        keys.append(key("a:" + QByteArray::number(i), 3 * kMin));
    for (int i = 0; i < 20; ++i)
        keys.append(key("b:" + QByteArray::number(i), 20 * kMin));
    for (int i = 0; i < 100; ++i)
        keys.append(key("c:" + QByteArray::number(i), 100 * kMin));
    stats.add(batch(keys));
    model.setSnapshot(stats.snapshot(kNow));

    proxy.sort(TtlNamespaceModel::KeysColumn, Qt::AscendingOrder);
    QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("a:"));
    QCOMPARE(proxy.index(2, 0).data().toString(), QStringLiteral("c:"));
    proxy.sort(TtlNamespaceModel::MedianColumn, Qt::DescendingOrder);
    QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("c:"));
    QCOMPARE(proxy.index(0, 0).data(TtlNamespaceModel::NamespaceIndexRole).toInt(), 2);
}

QTEST_GUILESS_MAIN(TestTtlStats)
#include "tst_ttlstats.moc"
