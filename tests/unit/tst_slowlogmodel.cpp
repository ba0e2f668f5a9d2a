// SPDX-License-Identifier: GPL-3.0-or-later
#include "redisvalue.h"
#include "slowlogmodel.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QItemSelectionModel>
#include <QRandomGenerator>
#include <QSet>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>

namespace {

SlowlogEntry make(qint64 id, QList<QByteArray> args = {"GET", "k"}, qint64 durationUs = 12'000)
{
    SlowlogEntry e;
    e.id = id;
    e.timestamp = 1'700'000'000 + id;
    e.durationUs = durationUs;
    e.args = std::move(args);
    e.clientAddress = "127.0.0.1:4000";
    e.clientName = "app";
    return e;
}

// Entries with ids from..to, newest first as SLOWLOG GET answers.
QList<SlowlogEntry> page(qint64 from, qint64 to)
{
    QList<SlowlogEntry> out;
    for (qint64 id = to; id >= from; --id)
        out.append(make(id));
    return out;
}

SlowlogPage pageOf(const QList<SlowlogEntry> &entries, int requested, qint64 length, qint64 maxLength = 128,
                   const QByteArray &runId = "run-1")
{
    SlowlogPage p;
    p.entries = entries;
    p.requested = requested;
    p.length = length;
    p.maxLength = maxLength;
    p.runId = runId;
    return p;
}

QList<qint64> ids(const QList<SlowlogEntry> &entries)
{
    QList<qint64> out;
    for (const SlowlogEntry &e : entries)
        out.append(e.id);
    return out;
}

QList<qint64> range(qint64 from, qint64 to)
{
    QList<qint64> out;
    for (qint64 i = from; i <= to; ++i)
        out.append(i);
    return out;
}

QList<qint64> modelIds(const SlowlogModel &model)
{
    QList<qint64> out;
    for (int r = 0; r < model.rowCount(); ++r)
        out.append(model.index(r, SlowlogModel::IdColumn).data(SlowlogModel::IdRole).toLongLong());
    return out;
}

// Nearest rank, written out independently of the model: sort, then the value at rank
// ceil(percent * n / 100), in integers.
qint64 directPercentile(QList<qint64> values, int percent)
{
    std::sort(values.begin(), values.end());
    const qsizetype rank = (percent * values.size() + 99) / 100;
    return values.at(qMax<qsizetype>(1, rank) - 1);
}

} // namespace

class TestSlowlogModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void appendNewestFirst();
    void mergeWithoutDuplicates();
    void capacityDropsOldest();
    void clearKeepsWatermark();
    void epochsAfterRestart();
    void severalSources();
    void displayAndRoles();

    void trackerFirstPage();
    void trackerIncremental();
    void trackerGrowsRequest();
    void trackerWrapCountsMissed();
    void trackerFetchLimit();
    void trackerResetByLength();
    void trackerResetEmptyLog();
    void trackerNoFalseResetAtCap();
    void trackerMaxLengthLowered();
    void trackerRestartIdsBackwards();
    void trackerRestartRunId();
    void trackerResetSeenOnIncompletePage();

    void percentile_data();
    void percentile();
    void aggregates();
    void aggregateRowsLeave();
    void aggregateFedWithRows();
    void aggregateMergeKeepsSelection();
    void severityRole();

    void flags_data();
    void flags();
    void keySizeChangesFlag();

    void latencyEvents();
    void latencyEventsMerge();
};

void TestSlowlogModel::appendNewestFirst()
{
    SlowlogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester aggregateTester(model.aggregate(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QCOMPARE(model.append(page(1, 5)), 5);
    QCOMPARE(inserted.size(), 1); // one batch, one signal
    QCOMPARE(modelIds(model), (QList<qint64>{5, 4, 3, 2, 1}));
    QCOMPARE(model.append(page(6, 7)), 2);
    QCOMPARE(inserted.size(), 2);
    QCOMPARE(inserted.last().at(1).toInt(), 0);
    QCOMPARE(inserted.last().at(2).toInt(), 1);
    QCOMPARE(modelIds(model), (QList<qint64>{7, 6, 5, 4, 3, 2, 1}));
}

void TestSlowlogModel::mergeWithoutDuplicates()
{
    SlowlogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester aggregateTester(model.aggregate(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.append(page(1, 5));
    // Overlapping, unordered, with a duplicate inside the batch.
    QList<SlowlogEntry> batch = page(3, 8);
    batch.append(make(7));
    std::reverse(batch.begin(), batch.end());
    QCOMPARE(model.append(batch), 3);
    QCOMPARE(modelIds(model), (QList<qint64>{8, 7, 6, 5, 4, 3, 2, 1}));
    QCOMPARE(model.append(page(1, 8)), 0);
    QCOMPARE(model.rowCount(), 8);
    QCOMPARE(model.aggregate()->rowCount(), 1);
    QCOMPARE(model.aggregate()->countAt(0), 8);
}

void TestSlowlogModel::capacityDropsOldest()
{
    SlowlogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester aggregateTester(model.aggregate(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setCapacity(10);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    model.append(page(1, 6));
    model.append(page(7, 12));
    QCOMPARE(removed.size(), 1);
    QCOMPARE(modelIds(model), (QList<qint64>{12, 11, 10, 9, 8, 7, 6, 5, 4, 3}));
    // A batch bigger than the whole capacity keeps its newest entries.
    model.append(page(13, 40));
    QCOMPARE(modelIds(model), (QList<qint64>{40, 39, 38, 37, 36, 35, 34, 33, 32, 31}));
    QCOMPARE(model.aggregate()->countAt(0), 10);
    model.setCapacity(4);
    QCOMPARE(modelIds(model), (QList<qint64>{40, 39, 38, 37}));
    QCOMPARE(model.aggregate()->countAt(0), 4);
    QCOMPARE(SlowlogModel::kDefaultCapacity, 10'000);
}

void TestSlowlogModel::clearKeepsWatermark()
{
    SlowlogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester aggregateTester(model.aggregate(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.append(page(1, 5));
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.aggregate()->rowCount(), 0);
    QCOMPARE(model.append(page(1, 5)), 0); // what was cleared does not come back
    QCOMPARE(model.append(page(1, 7)), 2);
    QCOMPARE(modelIds(model), (QList<qint64>{7, 6}));
}

// A cluster's primaries in one model: the same ids from two nodes are two entries, each node
// keeps its own watermark, the node column names the source and rowOf finds each.
void TestSlowlogModel::severalSources()
{
    SlowlogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester aggregateTester(model.aggregate(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setSourceNames({QStringLiteral("127.0.0.1:7000"), QStringLiteral("127.0.0.1:7001")});
    QCOMPARE(model.appendFrom(0, page(1, 5)), 5);
    QCOMPARE(model.appendFrom(1, page(1, 3)), 3); // the same ids, another node
    QCOMPARE(model.rowCount(), 8);
    QCOMPARE(model.appendFrom(1, page(1, 3)), 0);
    QCOMPARE(model.appendFrom(0, page(4, 6)), 1); // node 0's watermark is its own
    QCOMPARE(model.appendFrom(1, page(2, 4)), 1);
    QCOMPARE(model.rowCount(), 10);
    // Newest read first.
    QCOMPARE(model.sourceAt(0), 1);
    QCOMPARE(model.entryAt(0).id, 4);
    QCOMPARE(model.index(0, SlowlogModel::NodeColumn).data().toString(), QStringLiteral("127.0.0.1:7001"));
    QCOMPARE(model.index(1, SlowlogModel::NodeColumn).data().toString(), QStringLiteral("127.0.0.1:7000"));
    QCOMPARE(model.index(1, 0).data(SlowlogModel::SourceRole).toInt(), 0);
    QCOMPARE(model.headerData(SlowlogModel::NodeColumn, Qt::Horizontal).toString(), QStringLiteral("Node"));
    for (int source = 0; source < 2; ++source)
        for (qint64 id = 1; id <= 3; ++id) {
            const int row = model.rowOf(0, id, source);
            QVERIFY(row >= 0);
            QCOMPARE(model.sourceAt(row), source);
            QCOMPARE(model.entryAt(row).id, id);
        }
    QCOMPARE(model.rowOf(0, 6, 1), -1);
    QCOMPARE(model.aggregate()->countAt(0), 10);
    // Cleared, each node's watermark stays.
    model.clear();
    QCOMPARE(model.appendFrom(0, page(1, 6)), 0);
    QCOMPARE(model.appendFrom(1, page(1, 5)), 1);
    QCOMPARE(model.rowOf(0, 5, 1), 0);
    // One server alone has no node name.
    SlowlogModel one;
    one.append(page(1, 2));
    QCOMPARE(one.index(0, SlowlogModel::NodeColumn).data().toString(), QString());
    QCOMPARE(one.rowOf(0, 1, 1), -1);
    QCOMPARE(one.rowOf(0, 1), 1);
}

void TestSlowlogModel::epochsAfterRestart()
{
    SlowlogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.append(page(0, 5), 0);
    // A restarted server numbers from 0 again: same ids, new epoch, both kept.
    QCOMPARE(model.append(page(0, 2), 1), 3);
    QCOMPARE(model.rowCount(), 9);
    QCOMPARE(model.epochAt(0), 1);
    QCOMPARE(model.entryAt(0).id, 2);
    QCOMPARE(model.epochAt(3), 0);
    QCOMPARE(model.entryAt(3).id, 5);
    QCOMPARE(model.rowOf(1, 0), 2);
    QCOMPARE(model.rowOf(0, 0), 8);
    QCOMPARE(model.rowOf(0, 9), -1);
    QCOMPARE(model.append(page(0, 2), 0), 0); // an older epoch never comes back
}

void TestSlowlogModel::displayAndRoles()
{
    SlowlogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    SlowlogEntry e = make(3, {"HGETALL", QByteArray("user:\x00\xff", 7)}, 1500);
    SlowlogEntry longOne = make(4, {"SET", "k", QByteArray(300, 'v')}, 250);
    model.append({e, longOne});
    QCOMPARE(model.index(1, SlowlogModel::CommandColumn).data().toString(),
             QStringLiteral("HGETALL \"user:\\x00\\xff\""));
    QCOMPARE(model.index(1, 0).data(SlowlogModel::KeyRole).toByteArray(), QByteArray("user:\x00\xff", 7));
    QCOMPARE(model.index(1, SlowlogModel::DurationColumn).data().toString(), QStringLiteral("1.5 ms"));
    QCOMPARE(model.index(0, SlowlogModel::DurationColumn).data().toString(), QStringLiteral("250 µs"));
    QCOMPARE(model.index(0, SlowlogModel::DurationColumn).data(SlowlogModel::SortRole).toLongLong(), 250);
    QCOMPARE(model.index(1, SlowlogModel::NameColumn).data().toString(), QStringLiteral("app"));
    QCOMPARE(model.index(1, SlowlogModel::ClientColumn).data().toString(), QStringLiteral("127.0.0.1:4000"));
    // Long arguments are cut for the table; the tooltip holds all the server logged.
    const QString shown = model.index(0, SlowlogModel::CommandColumn).data().toString();
    QVERIFY(shown.size() <= SlowlogModel::kDisplayChars);
    QVERIFY(shown.contains(QStringLiteral("…(+%1 bytes)").arg(300 - SlowlogModel::kDisplayArgBytes)));
    QVERIFY(model.index(0, SlowlogModel::CommandColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QString(300, QLatin1Char('v'))));
    QVERIFY(!model.index(0, 0).data(SlowlogModel::KeyRole).toByteArray().isEmpty());
    SlowlogModel keyless;
    keyless.append({make(1, {"PING"})});
    QVERIFY(!keyless.index(0, 0).data(SlowlogModel::KeyRole).isValid());
    QCOMPARE(SlowlogModel::durationText(2'500'000), QStringLiteral("2.50 s"));
    QCOMPARE(SlowlogModel::durationText(123'456), QStringLiteral("123 ms"));
}

void TestSlowlogModel::trackerFirstPage()
{
    SlowlogTracker t;
    QCOMPARE(t.requestCount(), SlowlogTracker::kFirstRequest);
    const auto out = t.apply(pageOf(page(1, 3), 128, 3));
    QVERIFY(out.complete);
    QCOMPARE(ids(out.fresh), (QList<qint64>{1, 2, 3})); // oldest first
    QVERIFY(!out.reset);
    QCOMPARE(out.missed, 0);
    QCOMPARE(t.lastSeenId(), 3);

    // A log longer than the first request: ask for all of it (SLOWLOG LEN says how much).
    SlowlogTracker big;
    const auto partial = big.apply(pageOf(page(73, 200), 128, 500, 500));
    QVERIFY(!partial.complete);
    QVERIFY(partial.fresh.isEmpty());
    QVERIFY(big.requestCount() >= 500);
    const auto whole = big.apply(pageOf(page(1, 500), big.requestCount(), 500, 500));
    QVERIFY(whole.complete);
    QCOMPARE(whole.fresh.size(), 500);
    QCOMPARE(whole.missed, 0); // history from before we looked is not "missed"
}

void TestSlowlogModel::trackerIncremental()
{
    SlowlogTracker t;
    t.apply(pageOf(page(1, 10), 128, 10));
    const auto same = t.apply(pageOf(page(1, 10), t.requestCount(), 10));
    QVERIFY(same.complete);
    QVERIFY(same.fresh.isEmpty());
    const auto more = t.apply(pageOf(page(1, 14), t.requestCount(), 14));
    QCOMPARE(ids(more.fresh), (QList<qint64>{11, 12, 13, 14}));
    QCOMPARE(more.missed, 0);
    QVERIFY(!more.reset);
    QCOMPARE(t.requestCount(), SlowlogTracker::kIncrementalRequest);
}

void TestSlowlogModel::trackerGrowsRequest()
{
    SlowlogTracker t;
    t.apply(pageOf(page(1, 10), 128, 10));
    // 50 new entries, 32 asked for: the page does not reach id 10 and the log has more.
    const auto first = t.apply(pageOf(page(29, 60), 32, 60));
    QVERIFY(!first.complete);
    QVERIFY(t.requestCount() >= 50);
    const auto second = t.apply(pageOf(page(1, 62), t.requestCount(), 62));
    QVERIFY(second.complete);
    QCOMPARE(ids(second.fresh), range(11, 62));
    QCOMPARE(second.missed, 0);
    QVERIFY(!second.reset);
}

void TestSlowlogModel::trackerWrapCountsMissed()
{
    SlowlogTracker t;
    t.apply(pageOf(page(6, 10), 128, 5, 5));
    // 20 new entries in a log of 5: 15 came and went.
    const auto out = t.apply(pageOf(page(26, 30), t.requestCount(), 5, 5));
    QVERIFY(out.complete);
    QCOMPARE(ids(out.fresh), range(26, 30));
    QCOMPARE(out.missed, 15);
    QVERIFY(!out.reset);
    QCOMPARE(t.totalMissed(), 15);
    const auto next = t.apply(pageOf(page(28, 32), t.requestCount(), 5, 5));
    QCOMPARE(ids(next.fresh), (QList<qint64>{31, 32}));
    QCOMPARE(next.missed, 0);
    QCOMPARE(t.totalMissed(), 15);
}

void TestSlowlogModel::trackerFetchLimit()
{
    SlowlogTracker t;
    t.setFetchLimit(10);
    t.apply(pageOf(page(1, 1), 10, 1, 1000));
    const auto out = t.apply(pageOf(page(92, 101), t.requestCount(), 101, 1000));
    QVERIFY(out.complete);
    QCOMPARE(ids(out.fresh), range(92, 101));
    QCOMPARE(out.missed, 90); // more than one poll may fetch: counted, not hidden
}

void TestSlowlogModel::trackerResetByLength()
{
    SlowlogTracker t;
    t.apply(pageOf(page(1, 10), 128, 10));
    // SLOWLOG RESET keeps the id counter: ids go on from 11, but the log holds only 2.
    const auto out = t.apply(pageOf(page(12, 13), t.requestCount(), 2));
    QVERIFY(out.complete);
    QVERIFY(out.reset);
    QCOMPARE(out.epoch, 0);
    QCOMPARE(ids(out.fresh), (QList<qint64>{12, 13}));
    QCOMPARE(out.missed, 1); // id 11 was logged and reset before we saw it
    QCOMPARE(t.resetCount(), 1);
    const auto after = t.apply(pageOf(page(12, 15), t.requestCount(), 4));
    QVERIFY(!after.reset);
    QCOMPARE(ids(after.fresh), (QList<qint64>{14, 15}));
}

void TestSlowlogModel::trackerResetEmptyLog()
{
    SlowlogTracker t;
    t.apply(pageOf(page(1, 10), 128, 10));
    const auto out = t.apply(pageOf({}, t.requestCount(), 0));
    QVERIFY(out.complete);
    QVERIFY(out.reset);
    QVERIFY(out.fresh.isEmpty());
    const auto next = t.apply(pageOf(page(11, 11), t.requestCount(), 1));
    QVERIFY(!next.reset);
    QCOMPARE(ids(next.fresh), QList<qint64>{11});
}

void TestSlowlogModel::trackerNoFalseResetAtCap()
{
    SlowlogTracker t;
    t.apply(pageOf(page(1, 5), 128, 5, 5));
    for (qint64 newest = 8; newest <= 20; newest += 3) {
        const auto out = t.apply(pageOf(page(newest - 4, newest), t.requestCount(), 5, 5));
        QVERIFY(!out.reset);
        QCOMPARE(out.missed, 0);
        QCOMPARE(out.fresh.size(), 3);
    }
    QCOMPARE(t.resetCount(), 0);
}

void TestSlowlogModel::trackerMaxLengthLowered()
{
    SlowlogTracker t;
    t.apply(pageOf(page(1, 128), 128, 128, 128));
    // CONFIG SET slowlog-max-len 10: the log is trimmed on the next push, not before.
    auto out = t.apply(pageOf(page(1, 128), t.requestCount(), 128, 10));
    QVERIFY(!out.reset);
    out = t.apply(pageOf(page(120, 129), t.requestCount(), 10, 10));
    QVERIFY(!out.reset);
    QCOMPARE(ids(out.fresh), QList<qint64>{129});
}

void TestSlowlogModel::trackerRestartIdsBackwards()
{
    SlowlogTracker t;
    t.apply(pageOf(page(1, 10), 128, 10));
    const auto out = t.apply(pageOf(page(0, 2), t.requestCount(), 3, 128, {}));
    QVERIFY(out.reset);
    QCOMPARE(out.epoch, 1);
    QCOMPARE(ids(out.fresh), (QList<qint64>{0, 1, 2}));
    QCOMPARE(out.missed, 0);
    QCOMPARE(t.lastSeenId(), 2);
}

void TestSlowlogModel::trackerRestartRunId()
{
    SlowlogTracker t;
    t.apply(pageOf(page(1, 3), 128, 3));
    // New run id with ids above the old ones: only the run id tells.
    const auto out = t.apply(pageOf(page(2, 20), t.requestCount(), 19, 128, "run-2"));
    QVERIFY(out.reset);
    QCOMPARE(out.epoch, 1);
    QCOMPARE(ids(out.fresh), range(2, 20));
    QCOMPARE(out.missed, 2); // ids 0 and 1 of the new server went before we looked
}

void TestSlowlogModel::trackerResetSeenOnIncompletePage()
{
    SlowlogTracker t;
    t.apply(pageOf(page(1, 100), 128, 100));
    // Reset, then 60 entries: the first page (32) is incomplete; the reset still shows once.
    const auto first = t.apply(pageOf(page(129, 160), 32, 60));
    QVERIFY(!first.complete);
    const auto second = t.apply(pageOf(page(101, 160), t.requestCount(), 60));
    QVERIFY(second.complete);
    QVERIFY(second.reset);
    QCOMPARE(ids(second.fresh), range(101, 160));
    const auto third = t.apply(pageOf(page(101, 161), t.requestCount(), 61));
    QVERIFY(!third.reset);
    QCOMPARE(t.resetCount(), 1);
}

void TestSlowlogModel::percentile_data()
{
    QTest::addColumn<QList<qint64>>("sorted");
    QTest::addColumn<double>("p");
    QTest::addColumn<qint64>("expected");
    QList<qint64> hundred = range(1, 100);
    QList<qint64> thousand = range(1, 1000);
    QTest::newRow("empty") << QList<qint64>{} << 0.5 << qint64(-1);
    QTest::newRow("one p50") << QList<qint64>{7} << 0.5 << qint64(7);
    QTest::newRow("one p99") << QList<qint64>{7} << 0.99 << qint64(7);
    QTest::newRow("two p50") << QList<qint64>{1, 9} << 0.5 << qint64(1);
    QTest::newRow("two p99") << QList<qint64>{1, 9} << 0.99 << qint64(9);
    QTest::newRow("three p50") << QList<qint64>{1, 2, 3} << 0.5 << qint64(2);
    QTest::newRow("100 p50") << hundred << 0.5 << qint64(50);
    QTest::newRow("100 p99") << hundred << 0.99 << qint64(99);
    QTest::newRow("1000 p99") << thousand << 0.99 << qint64(990);
    QTest::newRow("101 p99") << range(1, 101) << 0.99 << qint64(100);
    QTest::newRow("p100") << hundred << 1.0 << qint64(100);
}

void TestSlowlogModel::percentile()
{
    QFETCH(QList<qint64>, sorted);
    QFETCH(double, p);
    QFETCH(qint64, expected);
    QCOMPARE(SlowlogAggregateModel::percentile(sorted, p), expected);
}

void TestSlowlogModel::aggregates()
{
    SlowlogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester aggregateTester(model.aggregate(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setCapacity(700);
    QRandomGenerator rng(20240601);
    const QList<QList<QByteArray>> commands{{"GET", "k"}, {"HGETALL", "h"}, {"CONFIG", "SET", "a", "b"}, {"KEYS", "*"}};
    QHash<QByteArray, QList<qint64>> held;
    QList<SlowlogEntry> all;
    qint64 id = 0;
    for (int batch = 0; batch < 12; ++batch) {
        QList<SlowlogEntry> entries;
        const int n = 1 + int(rng.bounded(120));
        for (int i = 0; i < n; ++i) {
            const auto &args = commands.at(int(rng.bounded(commands.size())));
            entries.append(make(++id, args, 10 + rng.bounded(200'000)));
        }
        model.append(entries);
        all += entries;
    }
    // Direct computation over what the model holds: the newest 700.
    const QList<SlowlogEntry> kept = all.mid(all.size() - qMin<qsizetype>(all.size(), 700));
    for (const SlowlogEntry &e : kept)
        held[e.commandName()].append(e.durationUs);
    QCOMPARE(model.aggregate()->rowCount(), held.size());
    for (auto it = held.cbegin(); it != held.cend(); ++it) {
        const int row = model.aggregate()->rowOf(it.key());
        QVERIFY2(row >= 0, it.key().constData());
        const QList<qint64> &d = it.value();
        QCOMPARE(model.aggregate()->countAt(row), d.size());
        qint64 total = 0;
        for (qint64 v : d)
            total += v;
        QCOMPARE(model.aggregate()->totalUsAt(row), total);
        QCOMPARE(model.aggregate()->p50UsAt(row), directPercentile(d, 50));
        QCOMPARE(model.aggregate()->p99UsAt(row), directPercentile(d, 99));
        const QModelIndex count = model.aggregate()->index(row, SlowlogAggregateModel::CountColumn);
        QCOMPARE(count.data(SlowlogAggregateModel::SortRole).toLongLong(), d.size());
    }
    QVERIFY(model.aggregate()->rowOf("CONFIG SET") >= 0);
}

void TestSlowlogModel::aggregateRowsLeave()
{
    SlowlogModel model;
    QAbstractItemModelTester aggregateTester(model.aggregate(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setCapacity(3);
    model.append({make(1, {"KEYS", "*"}), make(2, {"GET", "a"})});
    QCOMPARE(model.aggregate()->rowCount(), 2);
    model.append({make(3, {"GET", "b"}), make(4, {"GET", "c"})});
    // KEYS left with entry 1.
    QCOMPARE(model.aggregate()->rowCount(), 1);
    QCOMPARE(model.aggregate()->rowOf("KEYS"), -1);
    QCOMPARE(model.aggregate()->countAt(0), 3);
}

void TestSlowlogModel::aggregateFedWithRows()
{
    // The figures of one name, and the table over rows handed to it directly.
    const SlowlogCommandStats stats = SlowlogAggregateModel::statsOf("GET", {10, 20, 30, 40});
    QCOMPARE(stats.count, 4);
    QCOMPARE(stats.totalUs, 100);
    QCOMPARE(stats.p50Us, 20);
    QCOMPARE(stats.p99Us, 40);
    QCOMPARE(stats.maxUs, 40);
    QCOMPARE(SlowlogAggregateModel::statsOf("PING", {}).maxUs, -1);

    SlowlogAggregateModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setRows({stats, SlowlogAggregateModel::statsOf("CONFIG SET", {2'500'000})});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(1, SlowlogAggregateModel::CommandColumn).data().toString(), QStringLiteral("CONFIG SET"));
    QCOMPARE(model.index(1, SlowlogAggregateModel::MaxColumn).data().toString(), QStringLiteral("2.50 s"));
    QCOMPARE(model.index(0, SlowlogAggregateModel::TotalColumn).data(RowTableRoles::SortRole).toLongLong(), 100);
    QCOMPARE(model.index(1, 0).data(SlowlogAggregateModel::CommandRole).toByteArray(), QByteArray("CONFIG SET"));
    QCOMPARE(model.rowOf("CONFIG SET"), 1);
}

void TestSlowlogModel::aggregateMergeKeepsSelection()
{
    SlowlogModel model;
    SlowlogAggregateModel *aggregate = model.aggregate();
    QAbstractItemModelTester tester(aggregate, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setCapacity(4);
    model.append({make(1, {"KEYS", "*"}), make(2, {"GET", "a"}), make(3, {"SET", "b", "v"})});
    QCOMPARE(aggregate->rowCount(), 3);
    QItemSelectionModel selection(aggregate);
    const int setRow = aggregate->rowOf("SET");
    selection.setCurrentIndex(aggregate->index(setRow, 0),
                              QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QSignalSpy reset(aggregate, &QAbstractItemModel::modelReset);
    QSignalSpy removed(aggregate, &QAbstractItemModel::rowsRemoved);
    QSignalSpy inserted(aggregate, &QAbstractItemModel::rowsInserted);
    // KEYS leaves with entry 1, HGETALL arrives: rows go and come, SET stays selected.
    model.append({make(4, {"HGETALL", "h"}), make(5, {"SET", "c", "v"})});
    QCOMPARE(reset.size(), 0);
    QCOMPARE(removed.size(), 1);
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(aggregate->rowOf("KEYS"), -1);
    QCOMPARE(selection.currentIndex().data(SlowlogAggregateModel::CommandRole).toByteArray(), QByteArray("SET"));
    QVERIFY(selection.isRowSelected(selection.currentIndex().row(), {}));
    QCOMPARE(aggregate->countAt(selection.currentIndex().row()), 2);
}

void TestSlowlogModel::severityRole()
{
    SlowlogModel model;
    model.append({make(1, {"KEYS", "*"}), make(2, {"GET", "a"}), make(3, {"DEBUG", "SLEEP", "0"})});
    // Newest first: DEBUG (a note, not a problem), GET, KEYS.
    QCOMPARE(model.index(0, 0).data(RowTableRoles::SeverityRole).toInt(), int(Severity::None));
    QCOMPARE(model.index(1, 0).data(RowTableRoles::SeverityRole).toInt(), int(Severity::None));
    QCOMPARE(model.index(2, 0).data(RowTableRoles::SeverityRole).toInt(), int(Severity::Bad));
    QCOMPARE(model.index(1, 0).data(RowTableRoles::KeyRole).toByteArray(), QByteArray("a"));
}

void TestSlowlogModel::flags_data()
{
    QTest::addColumn<QList<QByteArray>>("args");
    QTest::addColumn<qint64>("durationUs");
    QTest::addColumn<qint64>("keySize");
    QTest::addColumn<int>("flag");
    QTest::addColumn<QByteArray>("sizeCommand");

    const int none = int(SlowlogFlag::None);
    const int big = int(SlowlogFlag::BigCollection);
    QTest::newRow("GET") << QList<QByteArray>{"GET", "k"} << qint64(50'000) << qint64(-1) << none << QByteArray();
    QTest::newRow("KEYS") << QList<QByteArray>{"keys", "user:*"} << qint64(100) << qint64(-1) << int(SlowlogFlag::Keys)
                          << QByteArray();
    QTest::newRow("FLUSHALL") << QList<QByteArray>{"FLUSHALL"} << qint64(100) << qint64(-1) << int(SlowlogFlag::Flush)
                              << QByteArray();
    QTest::newRow("FLUSHDB ASYNC") << QList<QByteArray>{"flushdb", "ASYNC"} << qint64(100) << qint64(-1)
                                   << int(SlowlogFlag::Flush) << QByteArray();
    QTest::newRow("SMEMBERS size unknown, fast")
        << QList<QByteArray>{"SMEMBERS", "s"} << qint64(500) << qint64(-1) << none << QByteArray("SCARD");
    QTest::newRow("SMEMBERS small, fast")
        << QList<QByteArray>{"SMEMBERS", "s"} << qint64(500) << qint64(10) << none << QByteArray("SCARD");
    QTest::newRow("SMEMBERS big") << QList<QByteArray>{"SMEMBERS", "s"} << qint64(500) << qint64(5000) << big
                                  << QByteArray("SCARD");
    QTest::newRow("SMEMBERS slow") << QList<QByteArray>{"smembers", "s"} << qint64(10'000) << qint64(-1) << big
                                   << QByteArray("SCARD");
    QTest::newRow("HGETALL 1000") << QList<QByteArray>{"HGETALL", "h"} << qint64(300) << qint64(1000) << big
                                  << QByteArray("HLEN");
    QTest::newRow("HGETALL 999") << QList<QByteArray>{"HGETALL", "h"} << qint64(300) << qint64(999) << none
                                 << QByteArray("HLEN");
    QTest::newRow("LRANGE 0 -1 big") << QList<QByteArray>{"LRANGE", "l", "0", "-1"} << qint64(300) << qint64(2000)
                                     << big << QByteArray("LLEN");
    QTest::newRow("LRANGE page") << QList<QByteArray>{"LRANGE", "l", "0", "99"} << qint64(20'000) << qint64(2000)
                                 << none << QByteArray();
    QTest::newRow("SMEMBERS shortened key, slow")
        << QList<QByteArray>{"SMEMBERS", QByteArray(128, 'k') + "... (10 more bytes)"} << qint64(30'000) << qint64(-1)
        << big << QByteArray();
    QTest::newRow("EVAL 6 ms") << QList<QByteArray>{"EVAL", "return 1", "0"} << qint64(6000) << qint64(-1)
                               << int(SlowlogFlag::LongScript) << QByteArray();
    QTest::newRow("EVAL 5 ms") << QList<QByteArray>{"EVAL", "return 1", "0"} << qint64(5000) << qint64(-1) << none
                               << QByteArray();
    QTest::newRow("EVALSHA") << QList<QByteArray>{"EVALSHA", "abc", "1", "k"} << qint64(5001) << qint64(-1)
                             << int(SlowlogFlag::LongScript) << QByteArray();
    QTest::newRow("FCALL") << QList<QByteArray>{"FCALL", "f", "0"} << qint64(90'000) << qint64(-1)
                           << int(SlowlogFlag::LongScript) << QByteArray();
    QTest::newRow("DEBUG SLEEP") << QList<QByteArray>{"DEBUG", "SLEEP", "0.5"} << qint64(500'000) << qint64(-1)
                                 << int(SlowlogFlag::Diagnostic) << QByteArray();
}

void TestSlowlogModel::flags()
{
    QFETCH(QList<QByteArray>, args);
    QFETCH(qint64, durationUs);
    QFETCH(qint64, keySize);
    QFETCH(int, flag);
    QFETCH(QByteArray, sizeCommand);
    SlowlogEntry e;
    const RedisValue raw = [&] {
        QList<RedisValue> a;
        for (const QByteArray &b : args)
            a.append(RedisValue::bulk(b));
        return RedisValue::array(
            {RedisValue::integer(1), RedisValue::integer(1), RedisValue::integer(durationUs), RedisValue::array(a)});
    }();
    QVERIFY(slowlog::parseEntry(raw, &e));
    const SlowlogVerdict v = slowlogflags::judge(e, keySize);
    QCOMPARE(int(v.flag), flag);
    QCOMPARE(v.reason.isEmpty(), flag == int(SlowlogFlag::None));
    QCOMPARE(v.isProblem(), flag != int(SlowlogFlag::None) && flag != int(SlowlogFlag::Diagnostic));
    const QList<QByteArray> size = slowlogflags::sizeCommand(e);
    QCOMPARE(size.value(0), sizeCommand);
    if (!sizeCommand.isEmpty())
        QCOMPARE(size.value(1), args.at(1));
    if (keySize >= 1000 && flag == int(SlowlogFlag::BigCollection))
        QVERIFY(v.reason.contains(QStringLiteral("1,000")) || v.reason.contains(QStringLiteral("5,000"))
                || v.reason.contains(QStringLiteral("2,000")));
}

void TestSlowlogModel::keySizeChangesFlag()
{
    SlowlogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.append(
        {make(1, {"SMEMBERS", "tags"}, 400), make(2, {"GET", "tags"}, 400), make(3, {"SMEMBERS", "other"}, 400)});
    QCOMPARE(model.verdictAt(2).flag, SlowlogFlag::None);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setKeySize("tags", 12'000);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(model.verdictAt(2).flag, SlowlogFlag::BigCollection); // row 2 is id 1
    QVERIFY(model.verdictAt(2).reason.contains(QStringLiteral("12,000")));
    QCOMPARE(model.verdictAt(1).flag, SlowlogFlag::None); // GET tags reads no collection
    QCOMPARE(model.verdictAt(0).flag, SlowlogFlag::None);
    QCOMPARE(model.index(2, SlowlogModel::FlagColumn).data(SlowlogModel::FlagRole).toInt(),
             int(SlowlogFlag::BigCollection));
    QVERIFY(model.index(2, SlowlogModel::FlagColumn).data(Qt::ForegroundRole).isValid());
    model.setKeySize("tags", 12'000);
    QCOMPARE(changed.size(), 1); // nothing changed, nothing signalled
    // Entries arriving later for a known key are judged with its size at once.
    model.append({make(4, {"SMEMBERS", "tags"}, 400)});
    QCOMPARE(model.verdictAt(0).flag, SlowlogFlag::BigCollection);
}

namespace {

LatencyEvent latencyEvent(const QByteArray &name, qint64 latestTimestamp, qint64 latestMs, qint64 maxMs)
{
    LatencyEvent e;
    e.name = name;
    e.latestTimestamp = latestTimestamp;
    e.latestMs = latestMs;
    e.maxMs = maxMs;
    return e;
}

} // namespace

void TestSlowlogModel::latencyEvents()
{
    LatencyEventsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    // The server's clock, read in local time as the chart's axis is.
    const qint64 at = QDateTime(QDate(2025, 6, 15), QTime(14, 3, 7)).toSecsSinceEpoch();
    LatencyEvent command = latencyEvent("command", at, 120, 480);
    command.sumMs = 900; // Valkey 8.1 reports the series' sum and count
    command.count = 5;
    model.setRows({command, latencyEvent("fork\x7f", at - 60, 35, 35)});
    QCOMPARE(model.columnCount(), int(LatencyEventsModel::ColumnCount));
    QCOMPARE(model.rowCount(), 2);
    const QStringList titles{QStringLiteral("Event"), QStringLiteral("Latest at"), QStringLiteral("Latest"),
                             QStringLiteral("Max")};
    for (int c = 0; c < titles.size(); ++c)
        QCOMPARE(model.headerData(c, Qt::Horizontal).toString(), titles.at(c));

    const auto text = [&model](int row, int column, int role = Qt::DisplayRole) {
        return model.index(row, column).data(role).toString();
    };
    QCOMPARE(text(0, LatencyEventsModel::EventColumn), QStringLiteral("command"));
    QCOMPARE(text(0, LatencyEventsModel::EventColumn, Qt::ToolTipRole), QStringLiteral("5 spikes, 900 ms in all"));
    QCOMPARE(text(0, LatencyEventsModel::LatestAtColumn), QStringLiteral("14:03:07"));
    QVERIFY(
        text(0, LatencyEventsModel::LatestAtColumn, Qt::ToolTipRole).startsWith(QStringLiteral("2025-06-15T14:03:07")));
    QCOMPARE(text(0, LatencyEventsModel::LatestColumn), QStringLiteral("120 ms"));
    QCOMPARE(text(0, LatencyEventsModel::MaxColumn), QStringLiteral("480 ms"));
    // A server without sum and count: no tooltip; a name that is not plain text, escaped.
    QCOMPARE(text(1, LatencyEventsModel::EventColumn), QStringLiteral("fork\\x7f"));
    QVERIFY(!model.index(1, LatencyEventsModel::EventColumn).data(Qt::ToolTipRole).isValid());
    QCOMPARE(text(1, LatencyEventsModel::LatestAtColumn), QStringLiteral("14:02:07"));
    QCOMPARE(model.index(1, LatencyEventsModel::LatestColumn).data(Qt::TextAlignmentRole).toInt(),
             int(Qt::AlignRight | Qt::AlignVCenter));

    QCOMPARE(model.index(0, LatencyEventsModel::LatestAtColumn).data(RowTableRoles::SortRole).toLongLong(), at);
    QCOMPARE(model.index(0, LatencyEventsModel::LatestColumn).data(RowTableRoles::SortRole).toLongLong(), 120);
    QCOMPARE(model.index(0, LatencyEventsModel::MaxColumn).data(RowTableRoles::SortRole).toLongLong(), 480);
    QCOMPARE(model.index(1, 0).data(RowTableRoles::KeyRole).toByteArray(), QByteArray("fork\x7f"));
    QCOMPARE(model.index(0, 0).data(RowTableRoles::SeverityRole).toInt(), int(Severity::None));
    QCOMPARE(model.rowOf("fork\x7f"), 1);
}

void TestSlowlogModel::latencyEventsMerge()
{
    LatencyEventsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRows({latencyEvent("command", 1'700'000'000, 120, 480), latencyEvent("fork", 1'700'000'000, 35, 35)});
    QItemSelectionModel selection(&model);
    selection.setCurrentIndex(model.index(1, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    const QPersistentModelIndex held(model.index(1, LatencyEventsModel::MaxColumn));
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    // A new spike of "command", a new event "expire-cycle" at the top: "fork" stays current.
    model.setRows({latencyEvent("expire-cycle", 1'700'000'100, 12, 12),
                   latencyEvent("command", 1'700'000'100, 700, 700), latencyEvent("fork", 1'700'000'000, 35, 35)});
    QCOMPARE(reset.size(), 0);
    QVERIFY(held.isValid());
    QCOMPARE(held.row(), 2);
    QCOMPARE(held.data(RowTableRoles::KeyRole).toByteArray(), QByteArray("fork"));
    QCOMPARE(selection.currentIndex().data(RowTableRoles::KeyRole).toByteArray(), QByteArray("fork"));
    QCOMPARE(model.index(1, LatencyEventsModel::LatestColumn).data().toString(), QStringLiteral("700 ms"));
    QCOMPARE(model.index(1, LatencyEventsModel::MaxColumn).data().toString(), QStringLiteral("700 ms"));
}

QTEST_GUILESS_MAIN(TestSlowlogModel)
#include "tst_slowlogmodel.moc"
