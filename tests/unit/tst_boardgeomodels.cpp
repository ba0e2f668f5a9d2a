// SPDX-License-Identifier: GPL-3.0-or-later
// The leaderboard, geo search, namespace memory and top keys tables, fed plain rows: their
// columns, cells and roles, and a second setRows() that adds, removes, moves and changes rows
// while the selection stays on its row, under QAbstractItemModelTester.
#include "format.h"
#include "geo.h"
#include "leaderboard.h"
#include "memorystats.h"

#include <QAbstractItemModelTester>
#include <QFont>
#include <QItemSelectionModel>
#include <QTest>

namespace {

LeaderboardEntry entry(const QByteArray &member, double score, qint64 rank)
{
    LeaderboardEntry e;
    e.member = member;
    e.score = score;
    e.scoreText = QByteArray::number(score);
    e.rank = rank;
    return e;
}

// One row per name, each with 'value' in the figure the table shows; ranks in list order.
QList<LeaderboardEntry> entries(const QByteArrayList &names, int value)
{
    QList<LeaderboardEntry> out;
    for (const QByteArray &n : names)
        out.append(entry(n, value * 100 + int(out.size()), out.size()));
    return out;
}

QList<GeoMember> points(const QByteArrayList &names, int value)
{
    QList<GeoMember> out;
    for (const QByteArray &n : names)
        out.append(GeoMember{n, GeoPoint{double(out.size()), double(value)}, double(value)});
    return out;
}

QList<NamespaceMemory> namespaces(const QByteArrayList &names, int value)
{
    QList<NamespaceMemory> out;
    for (const QByteArray &n : names) {
        NamespaceMemory ns;
        ns.prefix = n;
        ns.keys = ns.measured = quint64(value);
        ns.memory = value * 1000;
        out.append(ns);
    }
    return out;
}

QList<KeySize> keySizes(const QByteArrayList &names, int value)
{
    QList<KeySize> out;
    for (const QByteArray &n : names)
        out.append(KeySize{n, value * 1000, value, KeyType::Hash, quint64(out.size() + 1)});
    return out;
}

QByteArray selectedKey(const QItemSelectionModel &selection)
{
    const QModelIndexList rows = selection.selectedRows();
    return rows.size() == 1 ? rows.first().data(RowTableRoles::KeyRole).toByteArray() : QByteArray();
}

QByteArrayList keysOf(const QAbstractItemModel &model)
{
    QByteArrayList out;
    for (int r = 0; r < model.rowCount(); ++r)
        out << model.index(r, 0).data(RowTableRoles::KeyRole).toByteArray();
    return out;
}

} // namespace

class TestBoardGeoModels : public QObject
{
    Q_OBJECT

private:
    // Fills 'model' with 'first', selects 'selected', then merges 'second' (with other figures)
    // and checks that the rows are the new ones and the selection stayed.
    template <typename Model, typename Fill> void checkMerge(Model &model, Fill fill)
    {
        QFETCH(QByteArrayList, first);
        QFETCH(QByteArrayList, second);
        QFETCH(QByteArray, selected);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        fill(first, 1);
        QCOMPARE(keysOf(model), first);
        QItemSelectionModel selection(&model);
        const int row = int(first.indexOf(selected));
        selection.select(model.index(row, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        selection.setCurrentIndex(model.index(row, 1), QItemSelectionModel::NoUpdate);
        fill(second, 2);
        QCOMPARE(keysOf(model), second);
        QCOMPARE(selectedKey(selection), selected);
        QCOMPARE(selection.currentIndex().row(), int(second.indexOf(selected)));
        QCOMPARE(selection.currentIndex().column(), 1);
    }

    static void mergeData()
    {
        QTest::addColumn<QByteArrayList>("first");
        QTest::addColumn<QByteArrayList>("second");
        QTest::addColumn<QByteArray>("selected");
        const QByteArrayList abcd{"a", "b", "c", "d"};
        QTest::newRow("changed in place") << abcd << abcd << QByteArray("c");
        QTest::newRow("added") << abcd << QByteArrayList{"x", "a", "b", "y", "c", "d", "z"} << QByteArray("c");
        QTest::newRow("removed") << abcd << QByteArrayList{"b", "c"} << QByteArray("c");
        QTest::newRow("moved") << abcd << QByteArrayList{"d", "c", "b", "a"} << QByteArray("b");
        QTest::newRow("all at once") << abcd << QByteArrayList{"e", "d", "b", "f"} << QByteArray("b");
        QTest::newRow("from one row") << QByteArrayList{"a"} << QByteArrayList{"b", "c", "a"} << QByteArray("a");
    }

private Q_SLOTS:
    void leaderboardCells()
    {
        LeaderboardModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QList<LeaderboardEntry> rows{entry("alice", 30, 0), entry("bob", 20, 1), entry("carol", 20, 2),
                                     entry("dave", 10, 3)};
        LeaderboardModel::markTies(rows);
        QCOMPARE(rows.at(1).tieGroup, 0);
        QCOMPARE(rows.at(2).tieGroup, 0);
        QCOMPARE(rows.at(0).tieGroup, -1);
        model.setPage(LeaderboardPage{"board", 0, true, "carol", rows});

        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.columnCount(), int(LeaderboardModel::ColumnCount));
        QCOMPARE(model.headerData(LeaderboardModel::RankColumn, Qt::Horizontal).toString(), QStringLiteral("Rank"));
        QCOMPARE(model.headerData(LeaderboardModel::ScoreColumn, Qt::Horizontal).toString(), QStringLiteral("Score"));
        const auto cell
            = [&](int row, int column, int role = Qt::DisplayRole) { return model.index(row, column).data(role); };
        QCOMPARE(cell(0, LeaderboardModel::RankColumn).toString(), QStringLiteral("1"));
        QCOMPARE(cell(0, LeaderboardModel::TieColumn).toString(), QString());
        QCOMPARE(cell(1, LeaderboardModel::TieColumn).toString(), QStringLiteral("="));
        QCOMPARE(cell(1, LeaderboardModel::MemberColumn).toString(), QStringLiteral("bob"));
        QCOMPARE(cell(3, LeaderboardModel::ScoreColumn).toString(), QStringLiteral("10"));
        QVERIFY(!cell(2, LeaderboardModel::ScoreColumn, Qt::ToolTipRole).toString().isEmpty());
        QCOMPARE(cell(2, 0, RowTableRoles::KeyRole).toByteArray(), QByteArray("carol"));
        QCOMPARE(cell(3, LeaderboardModel::ScoreColumn, RowTableRoles::SortRole).toDouble(), 10.0);
        QCOMPARE(cell(3, LeaderboardModel::RankColumn, RowTableRoles::SortRole).toLongLong(), qint64(3));
        QCOMPARE(cell(0, 0, LeaderboardModel::ScoreRole).toDouble(), 30.0);
        QCOMPARE(cell(2, 0, LeaderboardModel::RankRole).toLongLong(), qint64(2));
        QCOMPARE(cell(2, 0, LeaderboardModel::TieGroupRole).toInt(), 0);
        QVERIFY(int(LeaderboardModel::ScoreRole) >= int(RowTableRoles::FirstExtraRole));

        // The highlight is the searched member's row, wherever a later page puts it.
        QCOMPARE(model.highlightedRow(), 2);
        QVERIFY(cell(2, 0, LeaderboardModel::HighlightRole).toBool());
        QVERIFY(cell(2, 0, Qt::FontRole).value<QFont>().bold());
        QVERIFY(!cell(1, 0, LeaderboardModel::HighlightRole).toBool());
        model.setRows({rows.at(2), rows.at(0)}, true);
        QCOMPARE(model.highlightedRow(), 0);
        model.setHighlightedMember(QByteArray());
        QCOMPARE(model.highlightedRow(), -1);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void leaderboardMerge_data() { mergeData(); }
    void leaderboardMerge()
    {
        LeaderboardModel model;
        checkMerge(model, [&](const QByteArrayList &names, int value) { model.setRows(entries(names, value), true); });
        QCOMPARE(model.index(0, LeaderboardModel::ScoreColumn).data(LeaderboardModel::ScoreRole).toDouble(), 200.0);
    }

    void geoPointsCells()
    {
        GeoPointsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResults(
            {GeoMember{"berlin", GeoPoint{13.4, 52.5}, 1.5}, GeoMember{"\x01raw", GeoPoint{-0.1, 51.5}, -1}},
            GeoUnit::Km);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(GeoPointsModel::ColumnCount));
        QCOMPARE(model.headerData(GeoPointsModel::DistanceColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Distance"));
        const auto cell
            = [&](int row, int column, int role = Qt::DisplayRole) { return model.index(row, column).data(role); };
        QCOMPARE(cell(0, GeoPointsModel::MemberColumn).toString(), QStringLiteral("berlin"));
        QCOMPARE(cell(0, GeoPointsModel::DistanceColumn).toString(), QStringLiteral("1.500 km"));
        QCOMPARE(cell(1, GeoPointsModel::DistanceColumn).toString(), QString()); // not measured
        QCOMPARE(cell(0, GeoPointsModel::LongitudeColumn).toString(), QStringLiteral("13.400000"));
        QCOMPARE(cell(0, GeoPointsModel::LatitudeColumn).toString(), QStringLiteral("52.500000"));
        QCOMPARE(cell(1, GeoPointsModel::MemberColumn).toString(), QStringLiteral("\\x01raw"));
        QCOMPARE(cell(1, 0, RowTableRoles::KeyRole).toByteArray(), QByteArray("\x01raw"));
        QCOMPARE(cell(0, GeoPointsModel::DistanceColumn, RowTableRoles::SortRole).toDouble(), 1.5);
        QCOMPARE(cell(1, GeoPointsModel::LongitudeColumn, RowTableRoles::SortRole).toDouble(), -0.1);
        QCOMPARE(cell(0, GeoPointsModel::LatitudeColumn, Qt::TextAlignmentRole).value<Qt::Alignment>(),
                 Qt::AlignRight | Qt::AlignVCenter);
        // Metres get one decimal, and the unit follows the newest results.
        model.setResults({GeoMember{"berlin", GeoPoint{13.4, 52.5}, 1500}}, GeoUnit::M);
        QCOMPARE(cell(0, GeoPointsModel::DistanceColumn).toString(), QStringLiteral("1500.0 m"));
        QCOMPARE(model.unit(), GeoUnit::M);
    }

    void geoPointsMerge_data() { mergeData(); }
    void geoPointsMerge()
    {
        GeoPointsModel model;
        checkMerge(model, [&](const QByteArrayList &names, int value) {
            model.setResults(points(names, value), GeoUnit::Mi);
        });
        QCOMPARE(model.index(0, GeoPointsModel::DistanceColumn).data().toString(), QStringLiteral("2.000 mi"));
    }

    void namespaceCells()
    {
        NamespaceMemoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        NamespaceMemory user;
        user.prefix = "user:";
        user.keys = 3;
        user.measured = 3;
        user.memory = 600;
        user.biggest = KeySize{"user:1", 300, 2, KeyType::Hash, 1};
        NamespaceMemory loose;
        loose.keys = 2;
        loose.measured = 1;
        loose.memory = 400;
        model.setResults({user, loose}, 1000);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(NamespaceMemoryModel::ColumnCount));
        QCOMPARE(model.headerData(NamespaceMemoryModel::ShareColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Share"));
        const auto cell
            = [&](int row, int column, int role = Qt::DisplayRole) { return model.index(row, column).data(role); };
        QCOMPARE(cell(0, NamespaceMemoryModel::NamespaceColumn).toString(), QStringLiteral("user:"));
        QCOMPARE(cell(1, NamespaceMemoryModel::NamespaceColumn).toString(), QStringLiteral("(no namespace)"));
        QCOMPARE(cell(0, NamespaceMemoryModel::KeysColumn).toString(), format::count(3));
        QCOMPARE(cell(0, NamespaceMemoryModel::MemoryColumn).toString(), format::bytes(600));
        QCOMPARE(cell(0, NamespaceMemoryModel::ShareColumn).toString(), QStringLiteral("60.0%"));
        QCOMPARE(cell(0, NamespaceMemoryModel::AverageColumn).toString(), format::bytes(200));
        QVERIFY(cell(0, NamespaceMemoryModel::BiggestColumn).toString().startsWith(QStringLiteral("user:1 (")));
        QVERIFY(cell(0, 0, Qt::ToolTipRole).isNull());
        QVERIFY(!cell(1, 0, Qt::ToolTipRole).toString().isEmpty()); // one key not measured
        QCOMPARE(cell(0, 0, RowTableRoles::KeyRole).toByteArray(), QByteArray("user:"));
        QCOMPARE(cell(1, 0, RowTableRoles::KeyRole).toByteArray(), QByteArray(""));
        QCOMPARE(cell(1, NamespaceMemoryModel::MemoryColumn, RowTableRoles::SortRole).toLongLong(), qint64(400));
        // A new total changes the shares of rows that stay.
        model.setResults({user, loose}, 2000);
        QCOMPARE(cell(0, NamespaceMemoryModel::ShareColumn).toString(), QStringLiteral("30.0%"));
    }

    void namespaceMerge_data() { mergeData(); }
    void namespaceMerge()
    {
        NamespaceMemoryModel model;
        checkMerge(model,
                   [&](const QByteArrayList &names, int value) { model.setResults(namespaces(names, value), 10000); });
        QCOMPARE(model.index(0, NamespaceMemoryModel::MemoryColumn).data().toString(), format::bytes(2000));
    }

    void topKeysCells()
    {
        TopKeysModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResults({KeySize{"big", 5000, 10, KeyType::Hash, 1}, KeySize{"small", 100, -1, KeyType::String, 2}});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(TopKeysModel::ColumnCount));
        QCOMPARE(model.headerData(TopKeysModel::KeyColumn, Qt::Horizontal).toString(), QStringLiteral("Key"));
        const auto cell
            = [&](int row, int column, int role = Qt::DisplayRole) { return model.index(row, column).data(role); };
        QCOMPARE(cell(0, TopKeysModel::RankColumn).toInt(), 1);
        QCOMPARE(cell(0, TopKeysModel::KeyColumn).toString(), QStringLiteral("big"));
        QCOMPARE(cell(0, TopKeysModel::TypeColumn).toString(), keyTypeName(KeyType::Hash));
        QCOMPARE(cell(0, TopKeysModel::MemoryColumn).toString(), format::bytes(5000));
        QCOMPARE(cell(0, TopKeysModel::ElementsColumn).toString(),
                 format::count(10) + QLatin1Char(' ') + keyTypeLengthUnit(KeyType::Hash));
        QCOMPARE(cell(1, TopKeysModel::ElementsColumn).toString(), QString()); // length unknown
        QCOMPARE(cell(1, 0, RowTableRoles::KeyRole).toByteArray(), QByteArray("small"));
        QCOMPARE(cell(1, 0, RowTableRoles::TypeRole).toInt(), int(KeyType::String));
        QCOMPARE(cell(0, TopKeysModel::MemoryColumn, RowTableRoles::SortRole).toLongLong(), qint64(5000));
        // The rank is the row: after a merge that swaps them, "small" is first.
        model.setResults({KeySize{"small", 9000, -1, KeyType::String, 2}, KeySize{"big", 5000, 10, KeyType::Hash, 1}});
        QCOMPARE(cell(0, 0, RowTableRoles::KeyRole).toByteArray(), QByteArray("small"));
        QCOMPARE(cell(0, TopKeysModel::RankColumn).toInt(), 1);
        QCOMPARE(cell(1, TopKeysModel::RankColumn).toInt(), 2);
    }

    void topKeysMerge_data() { mergeData(); }
    void topKeysMerge()
    {
        TopKeysModel model;
        checkMerge(model, [&](const QByteArrayList &names, int value) { model.setResults(keySizes(names, value)); });
        QCOMPARE(model.index(0, TopKeysModel::MemoryColumn).data().toString(), format::bytes(2000));
    }
};

QTEST_MAIN(TestBoardGeoModels)
#include "tst_boardgeomodels.moc"
