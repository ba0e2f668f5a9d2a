// SPDX-License-Identifier: GPL-3.0-or-later
// The window's navigation: the sidebar's groups and entries, clicks, Ctrl+1…9 and the Ctrl+K
// switcher, the panels' badges, the key browser's dock and the saved window state, and (with
// REDISLENS_SCREENSHOT_DIR set) a picture of every panel on the demo in light and dark.
#include "demo.h"
#include "keybrowser.h"
#include "lockspanel.h"
#include "mainwindow.h"
#include "navigationsidebar.h"
#include "panel.h"
#include "panelregistry.h"
#include "quickswitcher.h"
#include "screenshots.h"
#include "settings.h"
#include "streamspanel.h"
#include "testserver.h"
#include "theme.h"
#include "valueview.h"

#include <QApplication>
#include <QDockWidget>
#include <QGuiApplication>
#include <QLibraryInfo>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QVersionNumber>

namespace {
const QByteArray kOdd("odd:\xff\x00key", 9);

QStringList pageNames()
{
    QStringList out = panelregistry::names();
    out.removeAll(QStringLiteral("keys")); // the browser's dock, not a page
    return out;
}
} // namespace

class TestNavigation : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void sidebarListsEveryEntryUnderItsGroup();
    void clickSwitchesPageAndActivatesThatPanel();
    void ctrlDigitsJumpInSidebarOrder();
    void quickSwitcherJumpsToPanelsAndOpensKeys();
    void badgesAppearAndUpdate();
    void dockHidesShowsAndStateSurvives();
    void themeIsStoredAndApplied();
    void screenshotsOfEveryPanel();

private:
    std::unique_ptr<MainWindow> makeWindow(Settings *settings = nullptr);
    void checkOnlyActive(MainWindow &w, const QString &name);

    TestServer m_server;
    QTemporaryDir m_dir;
    Settings *m_settings = nullptr;
    QSize m_savedSize;
};

void TestNavigation::initTestCase()
{
    // The rules file, the console's history: never the user's.
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    m_settings = new Settings(m_dir.filePath(QStringLiteral("settings.ini")), this);
    QString error;
    QVERIFY2(m_server.start(&error), qPrintable(error));
    m_server.pipeline({{"SET", kOdd, "odd"}, {"SET", "plain:key", "plain"}, {"HSET", "session:1", "user", "7"}});
}

std::unique_ptr<MainWindow> TestNavigation::makeWindow(Settings *settings)
{
    auto w = std::make_unique<MainWindow>(m_server.profile(), settings ? settings : m_settings);
    w->resize(1300, 800);
    w->show();
    w->start();
    return w;
}

void TestNavigation::checkOnlyActive(MainWindow &w, const QString &name)
{
    for (const QString &other : panelregistry::names()) {
        if (Panel *p = w.panel(other))
            QVERIFY2(p->isActive() == (other == name), qPrintable(other + QStringLiteral(" while ") + name));
    }
}

void TestNavigation::sidebarListsEveryEntryUnderItsGroup()
{
    auto w = makeWindow();
    NavigationSidebar *sidebar = w->sidebar();
    QVERIFY(sidebar->isVisibleTo(w.get()));
    // Sidebar order is group order, and the registry lists the entries in that order too.
    QStringList expected;
    for (panelregistry::Group g : panelregistry::groups())
        for (const panelregistry::Entry &e : panelregistry::entriesOf(g))
            expected.append(QLatin1String(e.name));
    QCOMPARE(sidebar->entryNames(), expected);
    QCOMPARE(sidebar->entryNames(), panelregistry::names());
    for (const panelregistry::Entry &e : panelregistry::entries()) {
        const QString name = QLatin1String(e.name);
        QTreeWidgetItem *item = sidebar->item(name);
        QVERIFY2(item, qPrintable(name));
        QVERIFY(item->parent());
        QCOMPARE(item->parent()->text(0), panelregistry::groupTitle(e.group).toUpper());
        QCOMPARE(item->text(0), panelregistry::title(name));
        QVERIFY(!item->isHidden());
    }
    // Every group has entries, so every group is shown.
    for (panelregistry::Group g :
         {panelregistry::Group::Triage, panelregistry::Group::Keys, panelregistry::Group::Server,
          panelregistry::Group::Patterns, panelregistry::Group::Console})
        QVERIFY(sidebar->isGroupShown(panelregistry::groupTitle(g)));
    QCOMPARE(sidebar->current(), QStringLiteral("triage")); // the findings come first
}

void TestNavigation::clickSwitchesPageAndActivatesThatPanel()
{
    auto w = makeWindow();
    QTreeWidget *tree = w->sidebar()->tree();
    const auto click = [tree](QTreeWidgetItem *item) {
        tree->scrollToItem(item);
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, tree->visualItemRect(item).center());
    };
    for (const QString &name : pageNames()) {
        click(w->sidebar()->item(name));
        QCOMPARE(w->currentPanel(), name);
        QCOMPARE(w->sidebar()->current(), name);
        checkOnlyActive(*w, name);
    }
    // "Keys" brings the browser forward and keeps the page that was shown.
    w->keyBrowserDock()->hide();
    click(w->sidebar()->item(QStringLiteral("keys")));
    QVERIFY(w->keyBrowserDock()->isVisible());
    QCOMPARE(w->currentPanel(), QStringLiteral("console"));
    QCOMPARE(w->sidebar()->current(), QStringLiteral("console"));
    checkOnlyActive(*w, QStringLiteral("console"));
    // Clicking a group header changes nothing.
    click(w->sidebar()->item(QStringLiteral("locks"))->parent());
    QCOMPARE(w->currentPanel(), QStringLiteral("console"));
    QCOMPARE(w->sidebar()->current(), QStringLiteral("console"));
    // Minimised, nothing polls, whatever the sidebar shows.
    w->showMinimized();
    QTRY_VERIFY(!w->panel(QStringLiteral("console"))->isActive());
}

void TestNavigation::ctrlDigitsJumpInSidebarOrder()
{
    auto w = makeWindow();
    w->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(w.get()));
    const QStringList names = w->sidebar()->entryNames();
    QVERIFY(names.size() >= 9);
    QString shown = w->currentPanel();
    for (int i = 0; i < 9; ++i) {
        QTest::keyClick(w.get(), Qt::Key(Qt::Key_1 + i), Qt::ControlModifier);
        if (names.at(i) != QLatin1String("keys"))
            shown = names.at(i);
        QCOMPARE(w->currentPanel(), shown);
        checkOnlyActive(*w, shown);
    }
    // The Go menu shows the shortcuts beside the entries.
    auto *third = w->findChild<QAction *>(QStringLiteral("go-") + names.at(2));
    QVERIFY(third);
    QCOMPARE(third->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_3));
    auto *tenth = w->findChild<QAction *>(QStringLiteral("go-") + names.at(9));
    QVERIFY(tenth && tenth->shortcut().isEmpty());
    auto *quick = w->findChild<QAction *>(QStringLiteral("quickSwitch"));
    QVERIFY(quick);
    QCOMPARE(quick->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_K));
}

void TestNavigation::quickSwitcherJumpsToPanelsAndOpensKeys()
{
    auto w = makeWindow();
    QVERIFY(QTest::qWaitForWindowExposed(w.get()));
    QTRY_VERIFY_WITH_TIMEOUT(w->client()->isReady(), 10000);
    w->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(w.get()));
    QuickSwitcher *quick = w->quickSwitcher();
    QTest::keyClick(w.get(), Qt::Key_K, Qt::ControlModifier);
    QVERIFY(quick->isVisible());
    // By title, part of it: "rate" is the rate limits panel.
    QTest::keyClicks(quick->input(), QStringLiteral("rate"));
    QTest::keyClick(quick->input(), Qt::Key_Return);
    QVERIFY(!quick->isVisible());
    QCOMPARE(w->currentPanel(), QStringLiteral("ratelimits"));
    checkOnlyActive(*w, QStringLiteral("ratelimits"));
    // By name.
    quick->popUp(w.get());
    QTest::keyClicks(quick->input(), QStringLiteral("leaderboard"));
    QTest::keyClick(quick->input(), Qt::Key_Return);
    QCOMPARE(w->currentPanel(), QStringLiteral("leaderboard"));

    // A key by its escaped name, exact bytes: nothing of the registry matches it.
    QSignalSpy opened(w->valueView(), &ValueView::keyOpened);
    quick->popUp(w.get());
    QTest::keyClicks(quick->input(), QStringLiteral("\"odd:\\xff\\x00key\""));
    QCOMPARE(quick->list()->count(), 1);
    QTest::keyClick(quick->input(), Qt::Key_Return);
    QVERIFY(opened.wait(5000));
    QCOMPARE(w->valueView()->currentKey(), kOdd);
    QCOMPARE(w->currentPanel(), QStringLiteral("value"));
    // A name that matches a panel can still be opened as a key: the last row, by arrow key.
    quick->popUp(w.get());
    QTest::keyClicks(quick->input(), QStringLiteral("plain:key"));
    QTest::keyClick(quick->input(), Qt::Key_Down);
    QTest::keyClick(quick->input(), Qt::Key_Return);
    QVERIFY(opened.wait(5000));
    QCOMPARE(w->valueView()->currentKey(), QByteArray("plain:key"));
    // A malformed escape says why and goes nowhere.
    quick->popUp(w.get());
    QTest::keyClicks(quick->input(), QStringLiteral("bad\\x4"));
    QTest::keyClick(quick->input(), Qt::Key_Return);
    QVERIFY(quick->isVisible());
    QVERIFY2(quick->errorText().contains(QLatin1String("hex")), qPrintable(quick->errorText()));
    QTest::keyClick(quick->input(), Qt::Key_Escape);
    QVERIFY(!quick->isVisible());
    QCOMPARE(w->valueView()->currentKey(), QByteArray("plain:key"));
}

void TestNavigation::badgesAppearAndUpdate()
{
    auto w = makeWindow();
    NavigationSidebar *sidebar = w->sidebar();
    for (const QString &name : panelregistry::names())
        QVERIFY(sidebar->badgeText(name).isEmpty());
    Panel *locks = w->panel(QStringLiteral("locks"));
    QSignalSpy changed(locks, &Panel::badgeChanged);
    locks->setBadge(3, Severity::Bad, QStringLiteral("3 locks without a TTL"));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(sidebar->badgeText(QStringLiteral("locks")), QStringLiteral("3"));
    QCOMPARE(sidebar->badgeToolTip(QStringLiteral("locks")), QStringLiteral("3 locks without a TTL"));
    // The same badge again is no change.
    locks->setBadge(3, Severity::Bad, QStringLiteral("3 locks without a TTL"));
    QCOMPARE(changed.count(), 1);
    w->panel(QStringLiteral("streams"))->setBadge(1200, Severity::Warning, QStringLiteral("poison entries"));
    QCOMPARE(sidebar->badgeText(QStringLiteral("streams")), QStringLiteral("999+"));
    locks->setBadge(1, Severity::Warning, QStringLiteral("1 lock without a TTL"));
    QCOMPARE(sidebar->badgeText(QStringLiteral("locks")), QStringLiteral("1"));
    QCOMPARE(sidebar->badgeToolTip(QStringLiteral("locks")), QStringLiteral("1 lock without a TTL"));
    locks->clearBadge();
    QVERIFY(sidebar->badgeText(QStringLiteral("locks")).isEmpty());
    QVERIFY(sidebar->badgeToolTip(QStringLiteral("locks")).isEmpty());
    QCOMPARE(sidebar->badgeText(QStringLiteral("streams")), QStringLiteral("999+"));
    // Badges do not move the page.
    QCOMPARE(w->currentPanel(), QStringLiteral("triage"));
    const QImage shot = w->grab().toImage();
    QVERIFY(!shot.isNull());
    screenshots::save(shot, QStringLiteral("navigation-badges.png"));
}

void TestNavigation::dockHidesShowsAndStateSurvives()
{
    Settings settings(m_dir.filePath(QStringLiteral("state.ini")));
    {
        auto w = makeWindow(&settings);
        QDockWidget *dock = w->keyBrowserDock();
        QVERIFY(dock->isVisible());
        QCOMPARE(w->dockWidgetArea(dock), Qt::LeftDockWidgetArea);
        QAction *toggle = dock->toggleViewAction();
        QVERIFY(toggle->isChecked());
        toggle->trigger();
        QVERIFY(!dock->isVisible());
        QVERIFY(!toggle->isChecked());
        toggle->trigger();
        QVERIFY(dock->isVisible());
        // Moved to the right of the pages, and kept there.
        w->addDockWidget(Qt::RightDockWidgetArea, dock);
        QCOMPARE(w->dockWidgetArea(dock), Qt::RightDockWidgetArea);
        w->resize(1100, 700);
        w->close();
    }
    QVERIFY(!settings.windowState().isEmpty());
    QVERIFY(!settings.windowGeometry().isEmpty());
    {
        auto w = makeWindow(&settings);
        QCOMPARE(w->dockWidgetArea(w->keyBrowserDock()), Qt::RightDockWidgetArea);
        QVERIFY(w->keyBrowserDock()->isVisible());
        QVERIFY(w->sidebar()->isVisible());
        // Hidden is kept too.
        w->keyBrowserDock()->toggleViewAction()->trigger();
        w->resize(1000, 650);
        m_savedSize = w->size(); // the panels' minimum width may have the last word
        w->close();
    }
    {
        auto w = std::make_unique<MainWindow>(m_server.profile(), &settings);
        w->show();
        QVERIFY(!w->keyBrowserDock()->isVisible());
        // The size comes back where the platform lets a window choose its own (Qt 6.8's offscreen
        // platform fits a restored window to its screen).
        if (QGuiApplication::platformName() != QLatin1String("offscreen")
            || QLibraryInfo::version() < QVersionNumber(6, 8))
            QCOMPARE(w->size(), m_savedSize);
        // --panel keys brings it back.
        QVERIFY(w->showPanel(QStringLiteral("keys")));
        QVERIFY(w->keyBrowserDock()->isVisible());
    }
}

void TestNavigation::themeIsStoredAndApplied()
{
    const QPalette before = QApplication::palette();
    Settings settings(m_dir.filePath(QStringLiteral("theme.ini")));
    QCOMPARE(settings.theme(), theme::Theme::System);
    {
        auto w = makeWindow(&settings);
        auto *dark = w->findChild<QAction *>(QStringLiteral("theme-dark"));
        QVERIFY(dark);
        dark->trigger();
        QCOMPARE(settings.theme(), theme::Theme::Dark);
        QVERIFY(QApplication::palette().color(QPalette::Base).lightness() < 80);
        QTRY_VERIFY(w->sidebar()->tree()->palette().color(QPalette::Base).lightness() < 80);
        w->findChild<QAction *>(QStringLiteral("theme-light"))->trigger();
        QVERIFY(QApplication::palette().color(QPalette::Base).lightness() > 200);
        w->findChild<QAction *>(QStringLiteral("theme-dark"))->trigger();
    }
    {
        // A new window starts in the stored theme, its menu ticked.
        QApplication::setPalette(before);
        auto w = makeWindow(&settings);
        QVERIFY(QApplication::palette().color(QPalette::Base).lightness() < 80);
        QVERIFY(w->findChild<QAction *>(QStringLiteral("theme-dark"))->isChecked());
        w->findChild<QAction *>(QStringLiteral("theme-system"))->trigger();
        QCOMPARE(settings.theme(), theme::Theme::System);
    }
    QCOMPARE(QApplication::palette().color(QPalette::Base), before.color(QPalette::Base));
}

void TestNavigation::screenshotsOfEveryPanel()
{
    if (qEnvironmentVariableIsEmpty("REDISLENS_SCREENSHOT_DIR"))
        QSKIP("REDISLENS_SCREENSHOT_DIR is not set: no pictures to keep");
    Demo demo;
    QString error;
    QVERIFY2(demo.seedBlocking(&error, 60000), qPrintable(error));
    demo.startSimulation();
    Settings settings(m_dir.filePath(QStringLiteral("shots.ini")));
    for (const theme::Theme look : {theme::Theme::Light, theme::Theme::Dark}) {
        settings.setTheme(look);
        MainWindow w(demo.profile(), &settings);
        w.resize(1400, 860);
        w.show();
        w.start();
        for (const QString &name : panelregistry::names()) {
            const QString file = QDir(screenshots::directory())
                                     .filePath(QStringLiteral("navigation-%1-%2.png").arg(theme::name(look), name));
            QSignalSpy shot(&w, &MainWindow::screenshotDone);
            w.takeScreenshotWhenReady(file, name);
            QVERIFY2(shot.wait(60000), qPrintable(name));
            QVERIFY2(shot.first().first().toBool(), qPrintable(shot.first().at(1).toString()));
            QVERIFY(!QImage(file).isNull());
            if (name == QLatin1String("keys"))
                w.keyBrowser()->setGrouping(KeyBrowser::Grouping::Namespace);
        }
    }
    settings.setTheme(theme::Theme::System);
}

QTEST_MAIN(TestNavigation)
#include "tst_navigation.moc"
