// SPDX-License-Identifier: GPL-3.0-or-later
#include "caches.h"
#include "cachesreader.h"
#include "patterntestdata.h"
#include "redisclient.h"
#include "testserver.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTest>
#include <memory>

// Caches on a real server: a namespace written with jitter and one whose keys all expire in
// the same second (flagged as no jitter by the TTL panel's own cliff rule), negative markers
// with and without TTL, tag sets with dangling members and one that expires before its
// members, a dedup set without TTL that grows between polls, per-event dedup keys, a
// HyperLogLog (PFCOUNT as the server says) and plain counters; the hit ratio from INFO.
namespace {
constexpr int kWaitMs = 20000;
constexpr int kJittered = 120;
constexpr int kSynchronized = 80;

QByteArray num(qint64 v)
{
    return QByteArray::number(v);
}

ServerInfo info(qint64 hits, qint64 misses, qint64 at)
{
    return ServerInfo::parse("# Stats\r\nkeyspace_hits:" + num(hits) + "\r\nkeyspace_misses:" + num(misses) + "\r\n",
                             at);
}
} // namespace

class TstCaches : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;
    QList<PatternMatch> m_matches;
    QList<QByteArray> m_hllItems;
    qint64 m_cliffSecondMs = 0;

    static bool poll(CachesReader &reader)
    {
        QSignalSpy spy(&reader, &CachesReader::refreshed);
        reader.refresh();
        return spy.wait(kWaitMs);
    }

    static const CacheNamespaceRow *row(const CachesReader &reader, const QString &family)
    {
        for (const CacheNamespaceRow &r : reader.results().namespaces)
            if (r.family == family)
                return &r;
        return nullptr;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        QList<QList<QByteArray>> cmds;
        QRandomGenerator rng(42);
        const QString product = QStringLiteral("app:product:{n}");
        const QString user = QStringLiteral("app:user:{n}");
        // Jittered: 10 min plus up to 5 min at random, a couple of keys per second at most.
        for (int i = 0; i < kJittered; ++i) {
            const QByteArray key = "app:product:" + num(i);
            const qint64 ttl = 600'000 + qint64(rng.bounded(300'000));
            cmds.append({"SET", key, R"({"id":)" + num(i) + R"(,"price":9.99})", "PX", num(ttl)});
            m_matches.append(patternMatch(key, PatternKind::CacheEntry, KeyType::String, product, ttl));
        }
        // Without jitter: every key written with the same absolute expiry.
        m_cliffSecondMs = (now / 1000 + 1200) * 1000;
        for (int i = 0; i < kSynchronized; ++i) {
            const QByteArray key = "app:user:" + num(i);
            cmds.append({"SET", key, R"({"id":)" + num(i) + "}", "PXAT", num(m_cliffSecondMs + 400)});
            m_matches.append(
                patternMatch(key, PatternKind::CacheEntry, KeyType::String, user, m_cliffSecondMs + 400 - now));
        }
        // Negative markers: short TTL in the product namespace, one without TTL among users.
        for (int i = 0; i < 5; ++i) {
            const QByteArray key = "app:product:missing-" + num(i);
            cmds.append({"SET", key, "null", "PX", num(20'000 + i * 1000)});
            m_matches.append(
                patternMatch(key, PatternKind::NegativeCache, KeyType::String, product, 20'000 + i * 1000));
        }
        cmds.append({"SET", "app:user:9999", R"({"missing":true})"});
        m_matches.append(patternMatch("app:user:9999", PatternKind::NegativeCache, KeyType::String, user, -1));

        // Tags: category 1 outlives its members and has three dangling ones; category 2
        // expires in a minute while its members live for ten.
        QList<QByteArray> tag1{"SADD", "tag:category:1"};
        for (int i = 0; i < 10; ++i)
            tag1 << "app:product:" + num(i);
        tag1 << "app:product:gone-1"
             << "app:product:gone-2"
             << "app:product:gone-3";
        cmds.append(tag1);
        cmds.append({"PEXPIRE", "tag:category:1", "3600000"});
        QList<QByteArray> tag2{"SADD", "tag:category:2"};
        for (int i = 20; i < 25; ++i)
            tag2 << "app:product:" + num(i);
        cmds.append(tag2);
        cmds.append({"PEXPIRE", "tag:category:2", "60000"});
        const QString tags = QStringLiteral("tag:category:{n}");
        m_matches.append(patternMatch("tag:category:1", PatternKind::CacheTagSet, KeyType::Set, tags, 3'600'000));
        m_matches.append(patternMatch("tag:category:2", PatternKind::CacheTagSet, KeyType::Set, tags, 60'000));

        // Dedup: a set without TTL, per-event keys with a day's TTL (two without).
        QList<QByteArray> seen{"SADD", "seen:webhook"};
        for (int i = 0; i < 100; ++i)
            seen << "evt_" + num(i);
        cmds.append(seen);
        m_matches.append(
            patternMatch("seen:webhook", PatternKind::DedupSet, KeyType::Set, QStringLiteral("seen:webhook"), -1));
        const QString events = QStringLiteral("seen:evt:{id}");
        for (int i = 0; i < 30; ++i) {
            const QByteArray key = "seen:evt:" + num(5000 + i);
            const bool noTtl = i >= 28;
            if (noTtl)
                cmds.append({"SET", key, "1", "NX"});
            else
                cmds.append({"SET", key, "1", "NX", "EX", num(86'000 + i)});
            m_matches.append(
                patternMatch(key, PatternKind::DedupKey, KeyType::String, events, noTtl ? -1 : 86'000'000));
        }

        // Unique counting and counters.
        QList<QByteArray> pfadd{"PFADD", "hll:pageviews:2026-11-29"};
        for (int i = 0; i < 5000; ++i)
            pfadd << "visitor-" + num(i * 31);
        cmds.append(pfadd);
        cmds.append({"EXPIRE", "hll:pageviews:2026-11-29", "172800"});
        m_matches.append(patternMatch("hll:pageviews:2026-11-29", PatternKind::HyperLogLog, KeyType::String,
                                      QStringLiteral("hll:pageviews:{date}"), 172'800'000));
        cmds.append({"SET", "counter:signups:2026-11-29", "1200"});
        cmds.append({"INCRBY", "counter:signups:2026-11-29", "34"});
        cmds.append({"SET", "counter:odd", "not-a-number"});
        m_matches.append(patternMatch("counter:signups:2026-11-29", PatternKind::Counter, KeyType::String,
                                      QStringLiteral("counter:signups:{date}"), -1));
        m_matches.append(
            patternMatch("counter:odd", PatternKind::Counter, KeyType::String, QStringLiteral("counter:odd"), -1));
        // Not ours: ignored.
        m_matches.append(
            patternMatch("session:abc", PatternKind::Session, KeyType::Hash, QStringLiteral("session:{id}"), 1000));
        for (const RedisValue &v : m_server.pipeline(cmds))
            QVERIFY2(!v.isError(), qPrintable(v.toDisplayString()));
    }

    void hitRatio_data()
    {
        QTest::addColumn<qint64>("h0");
        QTest::addColumn<qint64>("m0");
        QTest::addColumn<qint64>("h1");
        QTest::addColumn<qint64>("m1");
        QTest::addColumn<qint64>("own");
        QTest::addColumn<double>("sinceStart");
        QTest::addColumn<double>("recent");
        QTest::newRow("plain") << qint64(80) << qint64(20) << qint64(170) << qint64(30) << qint64(0) << 0.85 << 0.9;
        QTest::newRow("own reads taken out")
            << qint64(80) << qint64(20) << qint64(190) << qint64(30) << qint64(20) << 190.0 / 220.0 << 0.9;
        QTest::newRow("no lookups between")
            << qint64(5) << qint64(5) << qint64(5) << qint64(5) << qint64(0) << 0.5 << -1.0;
        QTest::newRow("counters reset") << qint64(500) << qint64(5) << qint64(3) << qint64(1) << qint64(0) << 0.75
                                        << -1.0;
        QTest::newRow("nothing yet") << qint64(0) << qint64(0) << qint64(0) << qint64(0) << qint64(0) << -1.0 << -1.0;
    }
    void hitRatio()
    {
        QFETCH(qint64, h0);
        QFETCH(qint64, m0);
        QFETCH(qint64, h1);
        QFETCH(qint64, m1);
        QFETCH(qint64, own);
        QFETCH(double, sinceStart);
        QFETCH(double, recent);
        const ServerInfo before = info(h0, m0, 1000);
        const HitRatio h = HitRatio::from(info(h1, m1, 11000), &before, own, 0);
        QVERIFY(qAbs(h.sinceStart - sinceStart) < 1e-9);
        QVERIFY2(qAbs(h.recent - recent) < 1e-9, qPrintable(QString::number(h.recent)));
        QCOMPARE(h.recentSpanMs, 10000);
        QCOMPARE(HitRatio::from(ServerInfo::parse("# Stats\r\n"), nullptr).sinceStart, -1.0);
    }

    void namespaceStatsHeadless()
    {
        // 40 keys in one second among keys spread over ten minutes: the cliff rule fires.
        const qint64 now = 1'700'000'000'000;
        QList<CacheKeyState> keys;
        for (int i = 0; i < 40; ++i)
            keys.append({"a:" + num(i), PatternKind::CacheEntry, now + 300'000 + 200});
        for (int i = 0; i < 60; ++i)
            keys.append({"a:s" + num(i), PatternKind::CacheEntry, now + 10'000 * (i + 1) + 3'000});
        keys.append({"a:none", PatternKind::CacheEntry, -1});
        keys.append({"a:neg", PatternKind::NegativeCache, now + 30'000});
        keys.append({"a:unknown", PatternKind::CacheEntry, ttl::kUnknown});
        const CacheNamespaceRow r = caches::namespaceRow(QStringLiteral("a:{n}"), keys, now);
        QCOMPARE(r.keys, quint64(103));
        QCOMPARE(r.noTtl, quint64(1));
        QCOMPARE(r.unknown, quint64(1));
        QCOMPARE(r.withTtl, quint64(101));
        QCOMPARE(r.negatives, quint64(1));
        QCOMPARE(r.negativeMaxMs, 30'000);
        QCOMPARE(r.minMs, 13'000);
        QCOMPARE(r.maxMs, 603'000);
        QCOMPARE(r.cliffs.size(), 1);
        QCOMPARE(r.cliffs.first().peak, quint32(40));
        QCOMPARE(r.cliffs.first().peakSecondMs, now + 300'000);
        QVERIFY(r.noJitter());
        QCOMPARE(r.severity(), Severity::Warning);
        QCOMPARE(r.prefix, QByteArray("a:"));
        QCOMPARE(caches::filterFor(QStringLiteral("a:{n}")).prefix, QByteArray("a:"));
        QVERIFY(caches::filterFor(QStringLiteral("{n}:x")).isEmpty());

        // Hours ahead, too: a batch written with a 6 h TTL and no jitter is found today, not
        // only in its last hour.
        QList<CacheKeyState> later;
        for (int i = 0; i < 40; ++i)
            later.append({"b:" + num(i), PatternKind::CacheEntry, now + 6 * 3'600'000 + 200});
        for (int i = 0; i < 60; ++i)
            later.append({"b:s" + num(i), PatternKind::CacheEntry, now + 600'000 * (i + 1) + 3'000});
        const CacheNamespaceRow b = caches::namespaceRow(QStringLiteral("b:{n}"), later, now);
        QCOMPARE(b.cliffs.size(), 1);
        QCOMPARE(b.cliffs.first().peakSecondMs, now + 6 * 3'600'000);
        QVERIFY(b.noJitter());
    }

    void monitorsRealCaches()
    {
        RedisClient client(m_server.profile());
        client.connectToServer();
        QVERIFY(waitForReady(client));
        CachesReader reader(&client);
        reader.setMinRatioSpanMs(0);
        // The panel's models, fed by the reader's results.
        CacheNamespacesModel namespacesModel;
        TagsModel tagsModel;
        DedupSetsModel dedupSetsModel;
        DedupFamiliesModel dedupFamiliesModel;
        CountersModel countersModel;
        QObject::connect(&reader, &CachesReader::cachesAvailable, &namespacesModel, [&](const CachesResults &r) {
            namespacesModel.setRows(r.namespaces);
            tagsModel.setRows(r.tags);
            dedupSetsModel.setRows(r.dedupSets);
            dedupFamiliesModel.setRows(r.dedupFamilies);
            countersModel.setRows(r.counters);
        });
        QAbstractItemModelTester t1(&namespacesModel, QAbstractItemModelTester::FailureReportingMode::Fatal);
        QAbstractItemModelTester t2(&tagsModel, QAbstractItemModelTester::FailureReportingMode::Fatal);
        QAbstractItemModelTester t3(&dedupSetsModel, QAbstractItemModelTester::FailureReportingMode::Fatal);
        QAbstractItemModelTester t4(&dedupFamiliesModel, QAbstractItemModelTester::FailureReportingMode::Fatal);
        QAbstractItemModelTester t5(&countersModel, QAbstractItemModelTester::FailureReportingMode::Fatal);
        reader.setMatches(m_matches);
        // Some lookups of our own, for the hit ratio.
        m_server.pipeline({{"GET", "app:product:1"}, {"GET", "app:product:2"}, {"GET", "app:product:nope"}});
        QVERIFY(poll(reader));

        // Namespaces.
        QCOMPARE(namespacesModel.rowCount(), 2);
        const CacheNamespaceRow *product = row(reader, QStringLiteral("app:product:{n}"));
        const CacheNamespaceRow *user = row(reader, QStringLiteral("app:user:{n}"));
        QVERIFY(product && user);
        QCOMPARE(product->keys, quint64(kJittered + 5));
        QCOMPARE(product->withTtl, quint64(kJittered + 5));
        QCOMPARE(product->negatives, quint64(5));
        QCOMPARE(product->negativesNoTtl, quint64(0));
        QVERIFY(product->negativeMaxMs <= 24'000 && product->negativeMaxMs > 15'000);
        QVERIFY2(!product->noJitter(), qPrintable(product->flags()));
        QCOMPARE(product->severity(), Severity::None);
        QCOMPARE(user->keys, quint64(kSynchronized + 1));
        QCOMPARE(user->noTtl, quint64(1));
        QCOMPARE(user->negativesNoTtl, quint64(1));
        QVERIFY(user->noJitter());
        QCOMPARE(user->cliffs.first().peak, quint32(kSynchronized));
        QCOMPARE(user->cliffs.first().peakSecondMs, m_cliffSecondMs);
        QCOMPARE(user->severity(), Severity::Bad);
        QVERIFY(user->flags().contains(QLatin1String("no jitter")));
        QVERIFY(user->minMs > 1'100'000 && user->maxMs <= 1'201'000);

        // Tags, checked against the server.
        const TagsModel *tags = &tagsModel;
        const TagRow &t1row = tags->rows().at(tags->rowOf("tag:category:1"));
        QCOMPARE(t1row.cardinality, 13);
        QVERIFY(t1row.complete);
        QCOMPARE(t1row.dangling, (QList<QByteArray>{"app:product:gone-1", "app:product:gone-2", "app:product:gone-3"}));
        QCOMPARE(t1row.outlivingMembers, 0);
        QCOMPARE(t1row.severity(), Severity::Warning);
        const TagRow &t2row = tags->rows().at(tags->rowOf("tag:category:2"));
        QVERIFY(t2row.dangling.isEmpty());
        QCOMPARE(t2row.outlivingMembers, 5);
        QVERIFY(t2row.maxMemberTtlMs > t2row.pttlMs);
        QCOMPARE(t2row.severity(), Severity::Bad);

        // Dedup: the set's growth is known after the second read.
        const DedupSetsModel *sets = &dedupSetsModel;
        QCOMPARE(sets->rowCount(), 1);
        QCOMPARE(sets->rows().first().cardinality, 100);
        QCOMPARE(sets->rows().first().pttlMs, -1);
        QVERIFY(qIsNaN(sets->rows().first().growthPerMin));
        QCOMPARE(sets->rows().first().severity(), Severity::Warning);
        const DedupFamiliesModel *families = &dedupFamiliesModel;
        QCOMPARE(families->rowCount(), 1);
        QCOMPARE(families->rows().first().keys, quint64(30));
        QCOMPARE(families->rows().first().noTtl, quint64(2));
        QVERIFY(families->rows().first().minMs > 85'000'000 && families->rows().first().maxMs <= 86'030'000);

        // Counters: PFCOUNT exactly as the server estimates it, within 0.81 % x 3 of the truth.
        const CountersModel *counters = &countersModel;
        const CounterRow &hll = counters->rows().at(counters->rowOf("hll:pageviews:2026-11-29"));
        QVERIFY(hll.hll && hll.known);
        const qint64 estimate = hll.value;
        QVERIFY(qAbs(hll.value - 5000) <= 5000 * 0.0243);
        QVERIFY(hll.pttlMs > 172'000'000);
        const CounterRow &signups = counters->rows().at(counters->rowOf("counter:signups:2026-11-29"));
        QVERIFY(signups.known);
        QCOMPARE(signups.value, 1234);
        QCOMPARE(signups.pttlMs, -1);
        const CounterRow &odd = counters->rows().at(counters->rowOf("counter:odd"));
        QVERIFY(!odd.known);
        QCOMPARE(odd.raw, QByteArray("not-a-number"));

        // Hit ratio since start: the server's figures, our reads included.
        const HitRatio h = reader.hitRatio();
        QVERIFY(h.hits >= 2 && h.misses >= 1);
        QVERIFY(h.sinceStart > 0 && h.sinceStart < 1);
        QCOMPARE(h.recent, -1.0); // one read: nothing to compare with

        // Between polls: the set grows, a tag member appears, lookups of the application.
        QList<QList<QByteArray>> more;
        QList<QByteArray> add{"SADD", "seen:webhook"};
        for (int i = 100; i < 160; ++i)
            add << "evt_" + num(i);
        more.append(add);
        more.append({"SET", "app:product:gone-1", "{}", "PX", "600000"});
        for (int i = 0; i < 9; ++i)
            more.append({"GET", "app:product:" + num(i)});
        more.append(QList<QByteArray>{"GET", "app:product:nope"});
        m_server.pipeline(more);
        QVERIFY(poll(reader));
        const DedupSetRow &seen = sets->rows().first();
        QCOMPARE(seen.cardinality, 160);
        QVERIFY(seen.growthPerMin > 0);
        QVERIFY(seen.growingWithoutTtl());
        QCOMPARE(seen.severity(), Severity::Bad);
        const QList<QByteArray> dangling = tags->rows().at(tags->rowOf("tag:category:1")).dangling;
        QCOMPARE(dangling, (QList<QByteArray>{"app:product:gone-2", "app:product:gone-3"}));
        // The application's 9 hits and 1 miss, without the reader's own reads.
        const HitRatio h2 = reader.hitRatio();
        QVERIFY2(qAbs(h2.recent - 0.9) < 1e-9, qPrintable(QString::number(h2.recent)));
        QCOMPARE(h2.recentLookups, 10);

        // Checks on a plain socket, after the polls so their lookups stay out of the ratio.
        for (const QByteArray &m : dangling)
            QCOMPARE(m_server.command({"EXISTS", m}).toInteger(), 0);
        QCOMPARE(estimate, m_server.command({"PFCOUNT", "hll:pageviews:2026-11-29"}).toInteger());
    }

    void recentRatioWaitsForSpan()
    {
        RedisClient client(m_server.profile());
        client.connectToServer();
        QVERIFY(waitForReady(client));
        CachesReader reader(&client); // the default minimum span: polls milliseconds apart
        reader.setMatches(m_matches);
        QVERIFY(poll(reader));
        m_server.pipeline({{"GET", "app:product:1"}, {"GET", "app:product:nope"}});
        QVERIFY(poll(reader));
        QCOMPARE(reader.hitRatio().recent, -1.0);
        QVERIFY(reader.hitRatio().sinceStart > 0);
    }

    void infoRefusedIsOneLine()
    {
        std::unique_ptr<RedisClient> client = clientWithout(m_server, "noinfo", {"info"});
        QVERIFY(client);
        CachesReader reader(client.get());
        reader.setMatches(m_matches);
        QVERIFY(poll(reader));
        QVERIFY(!reader.infoError().isEmpty());
        QVERIFY(!reader.infoError().contains(QLatin1Char('\n')));
        QCOMPARE(reader.hitRatio().sinceStart, -1.0);
        // The rest still works.
        QCOMPARE(int(reader.results().namespaces.size()), 2);
        QCOMPARE(int(reader.results().counters.size()), 3);
    }
};

QTEST_GUILESS_MAIN(TstCaches)
#include "tst_caches.moc"
