// SPDX-License-Identifier: GPL-3.0-or-later
#include "keybrowser.h"
#include "keytreemodel.h"
#include "patterngroupmodel.h"
#include "redisclient.h"
#include "scanfeed.h"
#include "screenshots.h"
#include "theme.h"

#include <QApplication>
#include <QFontMetrics>
#include <QHeaderView>
#include <QLabel>
#include <QPalette>
#include <QScopeGuard>
#include <QStyle>
#include <QTest>
#include <QTreeView>

// The key browser as a user reads it: the Keys columns of both groupings show every count in
// full, seven digits included, in the default size and font and in a larger font, in light and
// dark palettes. The tree is fed directly (a million keys scanned from a server takes most of a
// minute; the model does not care where its batches come from).
namespace {

// Adds keys "key:<from>" .. "key:<to - 1>" in batches, as a scan would.
void feed(KeyTreeModel *model, int from, int to)
{
    constexpr int kBatch = 50000;
    for (int start = from; start < to; start += kBatch) {
        ScanBatch b;
        b.capturedAtMs = 1'000'000;
        b.keys.reserve(qMin(kBatch, to - start));
        for (int i = start; i < qMin(start + kBatch, to); ++i) {
            ScannedKey k;
            k.name = "key:" + QByteArray::number(i);
            k.type = KeyType::String;
            k.pttlMs = -1;
            b.keys.append(std::move(k));
        }
        model->appendBatch(b);
    }
    model->applyAllPending();
}

// Whether 'index' shows 'text' without eliding: its cell is at least as wide as the text plus
// the delegate's margins (QCommonStyle: PM_FocusFrameHMargin + 1 on each side).
bool fits(const QTreeView *view, const QModelIndex &index, const QString &text, QString *why)
{
    const int margin = view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, view) + 1;
    const int needed = view->fontMetrics().horizontalAdvance(text) + 2 * margin;
    const int cell = view->visualRect(index).width();
    *why = QStringLiteral("\"%1\" needs %2 px, the cell has %3").arg(text).arg(needed).arg(cell);
    return cell >= needed;
}

} // namespace

class TestKeyBrowser : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void keysColumnShowsSevenDigitCounts_data()
    {
        QTest::addColumn<int>("pointSize"); // 0: the application's font
        QTest::addColumn<bool>("dark");
        QTest::newRow("default font, light") << 0 << false;
        QTest::newRow("default font, dark") << 0 << true;
        QTest::newRow("14 pt, light") << 14 << false;
    }
    void keysColumnShowsSevenDigitCounts()
    {
        QFETCH(int, pointSize);
        QFETCH(bool, dark);
        const QPalette light = QApplication::palette();
        const auto restore = qScopeGuard([&light] { QApplication::setPalette(light); }); // also on failure
        if (dark)
            QApplication::setPalette(theme::darkPalette());
        RedisClient client(ConnectionProfile{}); // never connected: the test feeds the tree
        KeyBrowser browser(&client);
        if (pointSize > 0) {
            QFont f = browser.font();
            f.setPointSize(pointSize);
            browser.setFont(f);
        }
        browser.resize(560, 760); // the key browser's share of the default window
        browser.setGrouping(KeyBrowser::Grouping::Namespace);
        browser.show();
        QVERIFY(QTest::qWaitForWindowExposed(&browser));
        QTreeView *tree = browser.view();
        const int before = tree->columnWidth(KeyTreeModel::KeysColumn);

        // A few keys: the column keeps its width.
        feed(browser.model(), 0, 999);
        QCOMPARE(tree->columnWidth(KeyTreeModel::KeysColumn), before);

        // A million and then some, the counts growing between slices as in a scan.
        feed(browser.model(), 999, 1'000'000);
        feed(browser.model(), 1'000'000, 1'012'345);
        QCOMPARE(browser.model()->keyCount(), quint64(1'012'345));
        const QModelIndex folder = browser.model()->index(0, KeyTreeModel::KeysColumn);
        QCOMPARE(folder.data().toString(), QStringLiteral("1,012,345"));
        QString why;
        QVERIFY2(fits(tree, folder, folder.data().toString(), &why), qPrintable(why));
        // Any seven-digit count up to the total, whatever its digits' widths.
        QVERIFY2(fits(tree, folder, QStringLiteral("1,000,000"), &why), qPrintable(why));
        QVERIFY2(fits(tree, folder, QStringLiteral("1,011,111"), &why), qPrintable(why));
        // The header says what the column is.
        QVERIFY(tree->columnWidth(KeyTreeModel::KeysColumn)
                >= tree->header()->sectionSizeHint(KeyTreeModel::KeysColumn));
        QVERIFY(screenshots::save(browser.grab().toImage(),
                                  QStringLiteral("keybrowser-1m-%1pt-%2.png")
                                      .arg(pointSize)
                                      .arg(dark ? QLatin1String("dark") : QLatin1String("light"))));

        // The by-pattern grouping's Keys column, sized by the same bound.
        PatternMatch m;
        m.kind = PatternKind::Unknown;
        m.family = QStringLiteral("key:{n}");
        m.type = KeyType::String;
        QList<PatternMatch> matches;
        for (int i = 0; i < 2000; ++i) {
            m.key = "key:" + QByteArray::number(i);
            matches.append(m);
        }
        browser.setPatternMatches(matches);
        browser.setGrouping(KeyBrowser::Grouping::Pattern);
        QTreeView *byPattern = browser.patternView();
        const QModelIndex group = byPattern->model()->index(0, PatternGroupModel::KeysColumn);
        QVERIFY(group.isValid());
        QVERIFY2(fits(byPattern, group, QStringLiteral("1,012,345"), &why), qPrintable(why));
    }

    // A width the user widened the column to stays; the fit only ever widens.
    void userWidthIsKept()
    {
        RedisClient client(ConnectionProfile{});
        KeyBrowser browser(&client);
        browser.resize(560, 760);
        browser.show();
        QTreeView *tree = browser.view();
        tree->setColumnWidth(KeyTreeModel::KeysColumn, 150);
        feed(browser.model(), 0, 20000);
        QCOMPARE(tree->columnWidth(KeyTreeModel::KeysColumn), 150);
        QVERIFY(KeyBrowser::countColumnWidth(tree, KeyTreeModel::KeysColumn, 20000) <= 150);
    }

    // The status line counts what the tree holds: keys applied after the scan's last progress
    // signal (the tree applies batches in slices) show up in it, during the scan and after.
    void statusCountFollowsTheTree()
    {
        RedisClient client(ConnectionProfile{});
        KeyBrowser browser(&client);
        browser.show();
        auto *status = browser.findChild<QLabel *>(QStringLiteral("scanStatus"));
        QVERIFY(status);
        feed(browser.model(), 0, 344);
        ScanProgress p;
        p.returned = 344;
        p.dbsize = 300000;
        Q_EMIT browser.feed()->progressChanged(p);
        QVERIFY2(status->text().startsWith(QStringLiteral("344 keys · 344 scanned of ~300,000")),
                 qPrintable(status->text()));
        feed(browser.model(), 344, 2140);
        QVERIFY2(status->text().startsWith(QStringLiteral("2,140 keys · 344 scanned")), qPrintable(status->text()));
        p.finished = true;
        p.elapsedSeconds = 2.5;
        Q_EMIT browser.feed()->completed(p);
        QCOMPARE(status->text(), QStringLiteral("2,140 keys in 2.5 s"));
        feed(browser.model(), 2140, 3000);
        QCOMPARE(status->text(), QStringLiteral("3,000 keys in 2.5 s"));
    }
};

QTEST_MAIN(TestKeyBrowser)
#include "tst_keybrowser.moc"
