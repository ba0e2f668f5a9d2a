// SPDX-License-Identifier: GPL-3.0-or-later
#include "cachespanel.h"
#include "patterntestdata.h"
#include "redisclient.h"
#include "testdata.h"
#include "testserver.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QImage>
#include <QLabel>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

// The caches panel on a shop's caches: namespaces with and without jitter, negative markers,
// tag sets, a growing dedup set, per-event keys, a HyperLogLog and counters. Rows come from a
// real server, flagged rows are coloured, a namespace double-click filters the key browser,
// the hit ratio shows the application's lookups, and screenshots render.
namespace {
constexpr int kWaitMs = 20000;

QByteArray num(qint64 v)
{
    return QByteArray::number(v);
}

} // namespace

class TstCachesPanel : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;
    QList<PatternMatch> m_matches;

    static bool refreshed(CachesPanel &panel)
    {
        QSignalSpy spy(panel.reader(), &CachesReader::refreshed);
        panel.reader()->refresh();
        return spy.wait(kWaitMs);
    }

    static int rowOf(const QAbstractItemModel *model, const QByteArray &key)
    {
        for (int r = 0; r < model->rowCount(); ++r)
            if (model->index(r, 0).data(TagsModel::KeyRole).toByteArray() == key)
                return r;
        return -1;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        QRandomGenerator rng(11);
        QList<QList<QByteArray>> cmds;
        const auto add = [this](const QByteArray &key, PatternKind kind, KeyType type, const QString &family) {
            m_matches.append(patternMatch(key, kind, type, family));
        };
        for (int i = 0; i < 300; ++i) {
            const QByteArray key = "app:product:" + num(i);
            cmds.append({"SET", key, R"({"id":)" + num(i) + R"(,"name":"Item )" + num(i) + R"(","price":12.5})", "PX",
                         num(600'000 + rng.bounded(300'000))});
            add(key, PatternKind::CacheEntry, KeyType::String, QStringLiteral("app:product:{n}"));
        }
        for (int i = 0; i < 12; ++i) {
            const QByteArray key = "app:product:" + num(1000 + i);
            cmds.append({"SET", key, "null", "PX", num(15'000 + rng.bounded(15'000))});
            add(key, PatternKind::NegativeCache, KeyType::String, QStringLiteral("app:product:{n}"));
        }
        const qint64 cliff = (now / 1000 + 1500) * 1000 + 300;
        for (int i = 0; i < 150; ++i) {
            const QByteArray key = "app:user:" + num(i);
            cmds.append({"SET", key, R"({"id":)" + num(i) + "}", "PXAT", num(cliff)});
            add(key, PatternKind::CacheEntry, KeyType::String, QStringLiteral("app:user:{n}"));
        }
        cmds.append({"SET", "app:user:404", R"({"missing":true})"});
        add("app:user:404", PatternKind::NegativeCache, KeyType::String, QStringLiteral("app:user:{n}"));
        for (int i = 0; i < 40; ++i) {
            const QByteArray key = "api:weather:" + num(10000 + i * 7);
            cmds.append({"SET", key, R"({"t":21.5})"});
            if (i % 4)
                cmds.append({"EXPIRE", key, num(3600 + rng.bounded(1800))});
            add(key, PatternKind::CacheEntry, KeyType::String, QStringLiteral("api:weather:{n}"));
        }
        for (int t = 1; t <= 6; ++t) {
            const QByteArray tag = "tag:category:" + num(t);
            QList<QByteArray> sadd{"SADD", tag};
            for (int i = t * 20; i < t * 20 + 15; ++i)
                sadd << "app:product:" + num(i);
            if (t == 2)
                sadd << "app:product:9001"
                     << "app:product:9002";
            cmds.append(sadd);
            cmds.append({"EXPIRE", tag, t == 4 ? "120" : "1200"});
            add(tag, PatternKind::CacheTagSet, KeyType::Set, QStringLiteral("tag:category:{n}"));
        }
        QList<QByteArray> seen{"SADD", "seen:webhook:stripe"};
        for (int i = 0; i < 2400; ++i)
            seen << "evt_" + num(100000 + i);
        cmds.append(seen);
        add("seen:webhook:stripe", PatternKind::DedupSet, KeyType::Set, QStringLiteral("seen:webhook:{name}"));
        cmds.append({"SADD", "seen:import:2026-11-29", "row-1", "row-2", "row-3"});
        cmds.append({"EXPIRE", "seen:import:2026-11-29", "86400"});
        add("seen:import:2026-11-29", PatternKind::DedupSet, KeyType::Set, QStringLiteral("seen:import:{date}"));
        for (int i = 0; i < 60; ++i) {
            const QByteArray key = "seen:evt:" + num(880000 + i);
            cmds.append({"SET", key, "1", "NX", "EX", num(86'400 - i * 60)});
            add(key, PatternKind::DedupKey, KeyType::String, QStringLiteral("seen:evt:{id}"));
        }
        for (const char *day : {"2026-11-28", "2026-11-29"}) {
            const QByteArray key = "hll:pageviews:" + QByteArray(day);
            QList<QByteArray> pf{"PFADD", key};
            for (int i = 0; i < (day[9] == '8' ? 18000 : 7400); ++i)
                pf << "u" + num(i * 13);
            cmds.append(pf);
            cmds.append({"EXPIRE", key, "604800"});
            add(key, PatternKind::HyperLogLog, KeyType::String, QStringLiteral("hll:pageviews:{date}"));
        }
        cmds.append({"SET", "counter:orders:2026-11-29", "3187"});
        cmds.append({"SET", "counter:signups:2026-11-29", "212", "EX", "172800"});
        add("counter:orders:2026-11-29", PatternKind::Counter, KeyType::String,
            QStringLiteral("counter:orders:{date}"));
        add("counter:signups:2026-11-29", PatternKind::Counter, KeyType::String,
            QStringLiteral("counter:signups:{date}"));
        for (const RedisValue &v : m_server.pipeline(cmds))
            QVERIFY2(!v.isError(), qPrintable(v.toDisplayString()));
    }

    void rowsFlagsAndScreenshots()
    {
        RedisClient client(m_server.profile());
        client.connectToServer();
        QVERIFY(waitForReady(client));
        CachesPanel panel(&client);
        QCOMPARE(panel.objectName(), QStringLiteral("caches"));
        QAbstractItemModelTester tester(panel.namespacesView()->model(),
                                        QAbstractItemModelTester::FailureReportingMode::Fatal);
        panel.resize(1100, 700);
        panel.show();
        panel.reader()->setMinRatioSpanMs(0);
        QSignalSpy ready(&panel, &Panel::contentReady);
        panel.setMatches(m_matches);
        panel.setActive(true);
        QVERIFY(ready.wait(kWaitMs));

        // The application works between two polls: hits, misses, a growing dedup set.
        QList<QList<QByteArray>> app;
        for (int i = 0; i < 47; ++i)
            app.append({"GET", "app:product:" + num(i)});
        for (int i = 0; i < 3; ++i)
            app.append({"GET", "app:product:" + num(5000 + i)});
        QList<QByteArray> seen{"SADD", "seen:webhook:stripe"};
        for (int i = 0; i < 150; ++i)
            seen << "evt_" + num(200000 + i);
        app.append(seen);
        m_server.pipeline(app);
        QVERIFY(refreshed(panel));

        const QAbstractItemModel *namespaces = panel.namespacesView()->model();
        QCOMPARE(namespaces->rowCount(), 3);
        int user = -1, product = -1;
        for (int r = 0; r < namespaces->rowCount(); ++r) {
            const QString family = namespaces->index(r, 0).data().toString();
            user = family == QLatin1String("app:user:{n}") ? r : user;
            product = family == QLatin1String("app:product:{n}") ? r : product;
        }
        QVERIFY(user >= 0 && product >= 0);
        const int flags = namespaces->columnCount() - 1;
        QVERIFY(namespaces->index(user, flags).data().toString().contains(QLatin1String("no jitter")));
        QVERIFY(namespaces->index(user, 0).data(Qt::ForegroundRole).isValid()); // a marker without TTL: bad
        QVERIFY(namespaces->index(product, flags).data().toString().isEmpty());
        QVERIFY(!namespaces->index(product, 0).data(Qt::ForegroundRole).isValid());
        QVERIFY(panel.hitRatioLabel()->text().contains(QLatin1String("94.0 %")));

        // A namespace double-click filters the key browser by its prefix.
        QSignalSpy filter(&panel, &Panel::filterKeysRequested);
        const QModelIndex cell = namespaces->index(user, 0);
        // QTest's double click is the second click only: the first comes before it.
        QTest::mouseClick(panel.namespacesView()->viewport(), Qt::LeftButton, {},
                          panel.namespacesView()->visualRect(cell).center());
        QTest::mouseDClick(panel.namespacesView()->viewport(), Qt::LeftButton, {},
                           panel.namespacesView()->visualRect(cell).center());
        QTRY_COMPARE(filter.count(), 1);
        QCOMPARE(filter.first().at(0).value<KeyFilter>().prefix, QByteArray("app:user:"));

        const QAbstractItemModel *tags = panel.tagsView()->model();
        QCOMPARE(tags->rowCount(), 6);
        QVERIFY(tags->index(rowOf(tags, "tag:category:4"), tags->columnCount() - 1)
                    .data()
                    .toString()
                    .contains(QLatin1String("expires before")));
        QVERIFY(tags->index(rowOf(tags, "tag:category:2"), tags->columnCount() - 1)
                    .data()
                    .toString()
                    .contains(QLatin1String("2 dangling")));
        const QAbstractItemModel *sets = panel.dedupSetsView()->model();
        QVERIFY(sets->index(rowOf(sets, "seen:webhook:stripe"), sets->columnCount() - 1)
                    .data()
                    .toString()
                    .contains(QLatin1String("grows without TTL")));
        const QAbstractItemModel *counters = panel.countersView()->model();
        QCOMPARE(counters->rowCount(), 4);
        QCOMPARE(counters->index(rowOf(counters, "counter:orders:2026-11-29"), 2).data().toString(),
                 QStringLiteral("3187"));
        QVERIFY(counters->index(rowOf(counters, "hll:pageviews:2026-11-29"), 2)
                    .data()
                    .toString()
                    .startsWith(QStringLiteral("≈ ")));

        // Double-click on a tag opens it.
        panel.tabs()->setCurrentIndex(1);
        QSignalSpy open(&panel, &Panel::openKeyRequested);
        const QModelIndex tagCell = tags->index(0, 0);
        QTest::mouseClick(panel.tagsView()->viewport(), Qt::LeftButton, {},
                          panel.tagsView()->visualRect(tagCell).center());
        QTest::mouseDClick(panel.tagsView()->viewport(), Qt::LeftButton, {},
                           panel.tagsView()->visualRect(tagCell).center());
        QTRY_COMPARE(open.count(), 1);
        QCOMPARE(open.first().at(1).value<KeyType>(), KeyType::Set);

        const QString out = qEnvironmentVariable("REDISLENS_SCREENSHOT_DIR");
        const auto shoot = [&](int tab, const QString &name) {
            panel.tabs()->setCurrentIndex(tab);
            const QImage shot = panel.grab().toImage();
            QVERIFY(!shot.isNull());
            if (!out.isEmpty())
                QVERIFY(shot.save(out + QLatin1Char('/') + name));
        };
        shoot(1, QStringLiteral("caches-tags.png"));
        shoot(2, QStringLiteral("caches-dedup.png"));
        shoot(0, QStringLiteral("caches.png"));
        panel.setActive(false);
        QVERIFY(!panel.reader()->isPolling());
    }
};

QTEST_MAIN(TstCachesPanel)
#include "tst_cachespanel.moc"
