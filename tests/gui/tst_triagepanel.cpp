// SPDX-License-Identifier: GPL-3.0-or-later
// The triage panel in the window, offscreen, on the demo's data: shown first, the demo's
// designed findings ranked, evidence leading to panels and keys, dismissals kept per connection
// and undone, nothing collected while hidden; screenshots in both palettes.
#include "demo.h"
#include "demotruth.h"
#include "keybrowser.h"
#include "mainwindow.h"
#include "navigationsidebar.h"
#include "screenshots.h"
#include "settings.h"
#include "theme.h"
#include "triagepanel.h"
#include "valueview.h"

#include <QAbstractItemModel>
#include <QElapsedTimer>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>

namespace {

constexpr int kWaitMs = 30000;

QSet<QString> shownIds(const TriagePanel &panel)
{
    QSet<QString> ids;
    for (const Finding &f : panel.shownFindings())
        ids.insert(f.id);
    return ids;
}

} // namespace

class TestTriagePanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void opensFirstWithTheDemosFindings();
    void evidenceLeadsToPanelsAndKeys();
    void dismissedPerConnectionAndBroughtBack();
    void hiddenCollectsNothing();

private:
    std::unique_ptr<MainWindow> makeWindow();
    static bool waitForFindings(MainWindow &w);

    std::unique_ptr<Demo> m_demo;
    Settings *m_settings = nullptr;
};

void TestTriagePanel::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    m_settings = new Settings(this);
    m_demo = std::make_unique<Demo>();
    QString error;
    QVERIFY2(m_demo->seedBlocking(&error, 30000), qPrintable(error));
}

void TestTriagePanel::cleanupTestCase()
{
    m_demo.reset();
}

std::unique_ptr<MainWindow> TestTriagePanel::makeWindow()
{
    auto w = std::make_unique<MainWindow>(m_demo->profile(), m_settings);
    w->resize(1400, 860);
    w->show();
    w->start();
    return w;
}

bool TestTriagePanel::waitForFindings(MainWindow &w)
{
    // The first collection after the scan's keys are classified (an earlier one may have run on
    // the first batches).
    QSignalSpy collected(w.triagePanel(), &TriagePanel::collected);
    QSignalSpy scanned(w.keyBrowser(), &KeyBrowser::scanCompleted);
    if (!scanned.wait(kWaitMs))
        return false;
    const auto settledAfterScan = [&] {
        return w.triagePanel()->coverage().complete && w.triagePanel()->result()
            && w.triagePanel()->result()->coverage.contains(QStringLiteral("complete scan"));
    };
    QElapsedTimer t;
    t.start();
    while (!settledAfterScan() && t.elapsed() < kWaitMs)
        collected.wait(1000);
    return settledAfterScan();
}

void TestTriagePanel::opensFirstWithTheDemosFindings()
{
    m_settings->setDismissedFindings(ConnectionProfile::maskedUri(m_demo->profile().toUri()), {});
    auto w = makeWindow();
    QCOMPARE(w->currentPanel(), QStringLiteral("triage"));
    QVERIFY(waitForFindings(*w));
    TriagePanel *panel = w->triagePanel();
    QSet<QString> expected;
    for (const DemoFindingTruth &t : demoFindings())
        expected.insert(QLatin1String(t.rule));
    QCOMPARE(shownIds(*panel), expected);
    // Worst first, and the sidebar's badge counts critical and warning findings.
    const QList<Finding> shown = panel->shownFindings();
    QCOMPARE(shown.constFirst().severity, FindingSeverity::Critical);
    QCOMPARE(shown.constLast().severity, FindingSeverity::Info);
    int loud = 0;
    for (const Finding &f : shown)
        loud += f.severity != FindingSeverity::Info ? 1 : 0;
    QCOMPARE(panel->badgeCount(), loud);
    QCOMPARE(panel->badgeSeverity(), Severity::Bad);
    const auto *summary = panel->findChild<QLabel *>(QStringLiteral("triageSummary"));
    QVERIFY2(summary->text().contains(QStringLiteral("complete scan of")), qPrintable(summary->text()));
    QVERIFY(panel->selectFinding(QStringLiteral("lock.no-ttl")));
    theme::apply(theme::Theme::Dark);
    QCoreApplication::processEvents();
    screenshots::save(w->grab().toImage(), QStringLiteral("triage-panel-dark.png"));
    theme::apply(theme::Theme::Light);
    QCoreApplication::processEvents();
    screenshots::save(w->grab().toImage(), QStringLiteral("triage-panel.png"));
}

void TestTriagePanel::evidenceLeadsToPanelsAndKeys()
{
    auto w = makeWindow();
    QVERIFY(waitForFindings(*w));
    TriagePanel *panel = w->triagePanel();
    QVERIFY(panel->selectFinding(QStringLiteral("lock.no-ttl")));
    auto *evidence = panel->findChild<QTableView *>(QStringLiteral("evidence"));
    QVERIFY(evidence->model()->rowCount() >= 2);
    auto *open = panel->findChild<QPushButton *>(QStringLiteral("triageOpenPanel"));
    QCOMPARE(open->text(), QStringLiteral("Show in Locks"));
    QTest::qWait(100); // the details, just shown, are laid out
    QTest::mouseClick(open, Qt::LeftButton);
    QCOMPARE(w->currentPanel(), QStringLiteral("locks"));
    // Back to the findings: a double-click on a key's evidence opens the key.
    QVERIFY(w->showPanel(QStringLiteral("triage")));
    QVERIFY(panel->selectFinding(QStringLiteral("lock.no-ttl")));
    int row = -1;
    for (int r = 0; r < evidence->model()->rowCount(); ++r)
        if (evidence->model()->index(r, 0).data().toString() == QLatin1String("lock:migration:schema-v42"))
            row = r;
    QVERIFY(row >= 0);
    QTest::qWait(100); // shown again: laid out before a cell's place is asked
    QSignalSpy opened(w->valueView(), &ValueView::keyOpened);
    const QRect cell = evidence->visualRect(evidence->model()->index(row, 0));
    // A user's double-click: the cell is selected by the first click, opened by the second.
    QTest::mouseClick(evidence->viewport(), Qt::LeftButton, {}, cell.center());
    QTest::mouseDClick(evidence->viewport(), Qt::LeftButton, {}, cell.center());
    QVERIFY(opened.wait(kWaitMs));
    QCOMPARE(w->valueView()->currentKey(), QByteArray("lock:migration:schema-v42"));
    QCOMPARE(w->currentPanel(), QStringLiteral("value"));
}

void TestTriagePanel::dismissedPerConnectionAndBroughtBack()
{
    const QString connection = ConnectionProfile::maskedUri(m_demo->profile().toUri());
    m_settings->setDismissedFindings(connection, {});
    {
        auto w = makeWindow();
        QVERIFY(waitForFindings(*w));
        TriagePanel *panel = w->triagePanel();
        QVERIFY(panel->selectFinding(QStringLiteral("cache.no-jitter")));
        QTest::qWait(100);
        QTest::mouseClick(panel->findChild<QPushButton *>(QStringLiteral("triageDismiss")), Qt::LeftButton);
        QVERIFY(!shownIds(*panel).contains(QStringLiteral("cache.no-jitter")));
        QCOMPARE(m_settings->dismissedFindings(connection), QStringList{QStringLiteral("cache.no-jitter")});
        QCOMPARE(panel->findChild<QPushButton *>(QStringLiteral("triageDismissed"))->text(),
                 QStringLiteral("Dismissed (1)"));
    }
    // Another window on the same connection keeps it dismissed, and brings it back.
    auto w = makeWindow();
    QVERIFY(waitForFindings(*w));
    TriagePanel *panel = w->triagePanel();
    QVERIFY(!shownIds(*panel).contains(QStringLiteral("cache.no-jitter")));
    QVERIFY(shownIds(*panel).contains(QStringLiteral("lock.no-ttl")));
    QMenu *menu = panel->findChild<QPushButton *>(QStringLiteral("triageDismissed"))->menu();
    QCOMPARE(menu->actions().size(), 1);
    menu->actions().constFirst()->trigger();
    QVERIFY(shownIds(*panel).contains(QStringLiteral("cache.no-jitter")));
    QVERIFY(m_settings->dismissedFindings(connection).isEmpty());
}

void TestTriagePanel::hiddenCollectsNothing()
{
    auto w = makeWindow();
    QVERIFY(waitForFindings(*w));
    TriagePanel *panel = w->triagePanel();
    QVERIFY(w->showPanel(QStringLiteral("console")));
    QVERIFY(!panel->isActive());
    QSignalSpy collected(panel, &TriagePanel::collected);
    QSignalSpy scanned(w->keyBrowser(), &KeyBrowser::scanCompleted);
    w->keyBrowser()->startScan();
    QVERIFY(scanned.wait(kWaitMs));
    QTest::qWait(TriagePanel::kSettleMs + 1000);
    QCOMPARE(collected.size(), 0);
    // Shown again, it collects what it missed.
    QVERIFY(w->showPanel(QStringLiteral("triage")));
    QVERIFY(collected.wait(kWaitMs));
}

QTEST_MAIN(TestTriagePanel)
#include "tst_triagepanel.moc"
