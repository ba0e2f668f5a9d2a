// SPDX-License-Identifier: GPL-3.0-or-later
// RowListModel's merge: a poll that adds, removes, moves and changes rows keeps what the user
// selected and where the view stands, and every change is announced as the model test expects.
#include "rowtablemodel.h"

#include <QAbstractItemModelTester>
#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>

namespace {

struct Item
{
    QByteArray key;
    int value = 0;
};

using Rows = QList<Item>;

class ItemsModel : public RowTableModel<Item>
{
public:
    ItemsModel()
        : RowTableModel<Item>({{QStringLiteral("Key"),
                                [](const Item &i, int role) -> QVariant {
                                    return role == Qt::DisplayRole ? QVariant(QString::fromLatin1(i.key)) : QVariant();
                                }},
                               {QStringLiteral("Value"),
                                [](const Item &i, int role) -> QVariant {
                                    return role == Qt::DisplayRole ? QVariant(i.value) : QVariant();
                                }}},
                              {[](const Item &i) { return i.key; }, {}, {}})
    { }
};

Rows rows(const QByteArrayList &keys, int value = 0)
{
    Rows out;
    for (const QByteArray &k : keys)
        out.append({k, value});
    return out;
}

QByteArrayList keysOf(const ItemsModel &m)
{
    QByteArrayList out;
    for (const Item &i : m.rows())
        out << i.key;
    return out;
}

QByteArray selectedKey(const QItemSelectionModel &selection)
{
    const QModelIndexList rows = selection.selectedRows();
    return rows.size() == 1 ? rows.first().data(RowTableRoles::KeyRole).toByteArray() : QByteArray();
}

} // namespace

class TestRowListModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void mergesRowsAndKeepsSelection_data()
    {
        QTest::addColumn<QByteArrayList>("before");
        QTest::addColumn<QByteArrayList>("after");
        QTest::newRow("unchanged") << QByteArrayList{"a", "b", "c"} << QByteArrayList{"a", "b", "c"};
        QTest::newRow("added before and after") << QByteArrayList{"b", "c"} << QByteArrayList{"a", "b", "x", "c", "d"};
        QTest::newRow("removed around") << QByteArrayList{"a", "b", "c", "d", "e"} << QByteArrayList{"b", "d"};
        QTest::newRow("moved") << QByteArrayList{"a", "b", "c", "d"} << QByteArrayList{"d", "c", "b", "a"};
        QTest::newRow("everything at once")
            << QByteArrayList{"a", "b", "c", "d", "e"} << QByteArrayList{"f", "e", "b", "g", "a"};
        QTest::newRow("from empty") << QByteArrayList{} << QByteArrayList{"b"};
    }

    void mergesRowsAndKeepsSelection()
    {
        QFETCH(QByteArrayList, before);
        QFETCH(QByteArrayList, after);
        ItemsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRows(rows(before, 1));
        QItemSelectionModel selection(&model);
        const int selected = int(before.indexOf("b"));
        if (selected >= 0)
            selection.select(model.index(selected, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);

        model.setRows(rows(after, 2));

        QCOMPARE(keysOf(model), after);
        QCOMPARE(resets.count(), 0); // a merge, never a reset
        for (int r = 0; r < model.rowCount(); ++r)
            QCOMPARE(model.index(r, 1).data().toInt(), 2); // every kept row took the new values
        if (selected >= 0 && after.contains("b"))
            QCOMPARE(selectedKey(selection), QByteArray("b"));
    }

    void removedSelectionIsDropped()
    {
        ItemsModel model;
        model.setRows(rows({"a", "b", "c"}));
        QItemSelectionModel selection(&model);
        selection.select(model.index(1, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
        model.setRows(rows({"a", "c"}));
        QVERIFY(selection.selectedRows().isEmpty());
    }

    void unchangedIdsAreOneDataChanged()
    {
        ItemsModel model;
        model.setRows(rows({"a", "b", "c"}));
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy layout(&model, &QAbstractItemModel::layoutChanged);
        model.setRows(rows({"a", "b", "c"}, 5));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(inserted.count() + removed.count() + layout.count(), 0);
    }

    void insertsAndRemovesInRuns()
    {
        ItemsModel model;
        model.setRows(rows({"a", "b", "c", "d", "e", "f"}));
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        model.setRows(rows({"a", "f"}));
        QCOMPARE(removed.count(), 1); // b..e in one run
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        model.setRows(rows({"a", "x", "y", "z", "f"}));
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(inserted.first().at(1).toInt(), 1);
        QCOMPARE(inserted.first().at(2).toInt(), 3);
    }

    void duplicateIdsFallBackToReset()
    {
        ItemsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRows(rows({"a", "b"}));
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        model.setRows(rows({"a", "a", "b"}));
        QCOMPARE(resets.count(), 1);
        QCOMPARE(model.rowCount(), 3);
    }

    void sortedProxyFollowsAMove()
    {
        ItemsModel model;
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.sort(0, Qt::DescendingOrder);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRows(rows({"a", "b", "c"}));
        QItemSelectionModel selection(&proxy);
        selection.select(proxy.index(1, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows); // "b"
        model.setRows(rows({"c", "d", "b"}));
        QCOMPARE(proxy.rowCount(), 3);
        QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("d"));
        QCOMPARE(selectedKey(selection), QByteArray("b"));
    }
};

QTEST_GUILESS_MAIN(TestRowListModel)
#include "tst_rowlistmodel.moc"
