// SPDX-License-Identifier: GPL-3.0-or-later
// The main window against a real server, offscreen: scan, open, delete and rename exact
// bytes, read-only refusal, a server that dies and comes back.
#include "bulkdelete.h"
#include "bulkdeletedialog.h"
#include "commandstats.h"
#include "confirmations.h"
#include "elidinglabel.h"
#include "emptydatabasedialog.h"
#include "geopanel.h"
#include "georeader.h"
#include "keybrowser.h"
#include "keyfilter.h"
#include "keyscanner.h"
#include "keytreemodel.h"
#include "leaderboardpanel.h"
#include "lockspanel.h"
#include "mainwindow.h"
#include "memorypanel.h"
#include "navigationsidebar.h"
#include "panel.h"
#include "panelaccess.h"
#include "panelparts.h"
#include "patterngroupmodel.h"
#include "patternindex.h"
#include "patternrules.h"
#include "scanpacingdialog.h"
#include "screenshots.h"
#include "settings.h"
#include "testserver.h"
#include "theme.h"
#include "valueview.h"

#include <QAction>
#include <QApplication>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>
#include <QTreeWidgetItem>

namespace {
const QByteArray kNul("bin:a\x00z", 7);
const QByteArray kInvalid("bin:\xff\xfe\nline");
} // namespace

namespace {
// NAME.png in the light palette and NAME-dark.png in the dark one; the light one stays applied.
void grabInBothThemes(QWidget *widget, const QString &name)
{
    for (const auto t : {theme::Theme::Dark, theme::Theme::Light}) {
        theme::apply(t);
        QCoreApplication::processEvents(); // the palette reaches every widget
        screenshots::save(widget->grab().toImage(),
                          t == theme::Theme::Dark ? name + QStringLiteral("-dark.png") : name + QStringLiteral(".png"));
    }
}
} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void scanFillsTreeAndOpensKeys();
    void doubleClickOpensOnce();
    void openByTypedName();
    void deleteExactBytes();
    void renameExactBytes();
    void readOnlyRefusesDelete();
    void panelsTheUserMayNotUseSaySo();
    void deleteAndRenameAsk();
    void serverDiesAndComesBack();
    void screenshot();
    void filterByNamespaceAndTtl();
    void panelFilterReachesTheBrowser();
    void onlyTheVisiblePanelIsActive();
    void sortedSetsAreClassified();
    void patternsReachBrowserAndPanels();
    void panelScreenshots_data();
    void panelScreenshots();
    void scanShowsItsPaceInTheStatusBar();
    void narrowWindowElidesThePace();
    void scanThroughReplica();
    void scanReplicaThatIsNotOne();
    void scanReplicaUncheckedWithoutInfo();
    void scanPacingDialog();
    void readOnlyTurnsEveryWriteOff();
    void emptyDatabaseAsksForTheName();
    void bulkDeleteCountsThenDeletes();

private:
    std::unique_ptr<MainWindow> makeWindow(bool readOnly = false);
    std::unique_ptr<MainWindow> makeWindow(const ConnectionProfile &p);
    bool waitForScan(MainWindow &w, int timeoutMs = 15000);

    TestServer m_server;
    Settings *m_settings = nullptr;
};

void TestMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QString error;
    QVERIFY2(m_server.start(&error), qPrintable(error));
    m_settings = new Settings(this);
}

void TestMainWindow::init()
{
    m_server.flushAll();
    QList<QList<QByteArray>> writes;
    for (int i = 0; i < 200; ++i)
        writes.append({"SET", "app:item:" + QByteArray::number(i), "v"});
    writes.append({"HSET", "session:abc", "user_id", "7", "csrf_token", "t0k"});
    writes.append({"SET", kNul, "nul value"});
    writes.append({"SET", kInvalid, "invalid utf8"});
    writes.append({"SET", "", "empty name"});
    m_server.pipeline(writes);
}

std::unique_ptr<MainWindow> TestMainWindow::makeWindow(bool readOnly)
{
    ConnectionProfile p = m_server.profile();
    p.readOnly = readOnly;
    return makeWindow(p);
}

std::unique_ptr<MainWindow> TestMainWindow::makeWindow(const ConnectionProfile &p)
{
    auto w = std::make_unique<MainWindow>(p, m_settings);
    w->resize(1200, 800);
    w->show();
    w->start();
    return w;
}

bool TestMainWindow::waitForScan(MainWindow &w, int timeoutMs)
{
    QSignalSpy done(w.keyBrowser(), &KeyBrowser::scanCompleted);
    return done.wait(timeoutMs);
}

void TestMainWindow::scanFillsTreeAndOpensKeys()
{
    auto w = makeWindow();
    QVERIFY(waitForScan(*w));
    KeyTreeModel *model = w->keyBrowser()->model();
    QCOMPARE(model->keyCount(), quint64(m_server.allKeys().size()));
    QVERIFY(model->contains(kNul));
    QVERIFY(model->contains(kInvalid));
    QVERIFY(model->contains(QByteArray("")));
    const QModelIndex app = model->indexForPrefix("app:");
    QVERIFY(app.isValid());
    QCOMPARE(model->data(app, KeyTreeModel::KeyCountRole).toULongLong(), quint64(200));
    // Clicking a key row opens it in the value panel, by its exact bytes.
    const QModelIndex nul = model->indexForKey(kNul);
    QVERIFY(nul.isValid());
    QSignalSpy opened(w->valueView(), &ValueView::keyOpened);
    w->keyBrowser()->view()->scrollTo(nul);
    QTest::mouseClick(w->keyBrowser()->view()->viewport(), Qt::LeftButton, {},
                      w->keyBrowser()->view()->visualRect(nul).center());
    QVERIFY(opened.wait(5000));
    QCOMPARE(w->valueView()->currentKey(), kNul);
    QCOMPARE(w->currentPanel(), QStringLiteral("value"));
}

void TestMainWindow::doubleClickOpensOnce()
{
    auto w = makeWindow();
    QVERIFY(waitForScan(*w));
    QTreeView *tree = w->keyBrowser()->view();
    const QModelIndex key = w->keyBrowser()->model()->indexForKey("session:abc");
    QVERIFY(key.isValid());
    tree->scrollTo(key);
    // Count on the server: a superseded open never reaches keyOpened, but it is still sent.
    auto hscanCalls = [this] {
        const QByteArray info = m_server.command({"INFO", "commandstats"}).bytes();
        const qsizetype at = info.indexOf("cmdstat_hscan:calls=");
        return at < 0 ? 0 : info.mid(at + 20, info.indexOf(',', at) - at - 20).toInt();
    };
    const int before = hscanCalls();
    QSignalSpy opened(w->valueView(), &ValueView::keyOpened);
    const QPoint at = tree->visualRect(key).center();
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, at);
    QTest::mouseDClick(tree->viewport(), Qt::LeftButton, {}, at);
    QVERIFY(opened.wait(5000));
    // Replies come in order on one connection: once a later PING is answered, a second open
    // of the key would have been answered too.
    QVERIFY(waitForReply(*w->client(), {{"PING"}}).ok());
    QCoreApplication::processEvents();
    QCOMPARE(opened.count(), 1);
    QCOMPARE(hscanCalls() - before, 1);
    QCOMPARE(w->valueView()->currentKey(), QByteArray("session:abc"));
}

void TestMainWindow::openByTypedName()
{
    auto w = makeWindow();
    QVERIFY(waitForScan(*w));
    auto *field = w->keyBrowser()->findChild<QLineEdit *>(QStringLiteral("openKey"));
    QVERIFY(field);
    QSignalSpy opened(w->valueView(), &ValueView::keyOpened);
    field->setText(QStringLiteral("\"bin:\\xff\\xfe\\nline\""));
    QTest::keyClick(field, Qt::Key_Return);
    QVERIFY(opened.wait(5000));
    QCOMPARE(w->valueView()->currentKey(), kInvalid);
    // A malformed escape says why and opens nothing.
    field->setText(QStringLiteral("bad\\x4"));
    QTest::keyClick(field, Qt::Key_Return);
    auto *error = w->keyBrowser()->findChild<QLabel *>(QStringLiteral("openKeyError"));
    QVERIFY(error && error->isVisible());
    QVERIFY(error->text().contains(QLatin1String("hex")));
    QCOMPARE(w->valueView()->currentKey(), kInvalid);
}

void TestMainWindow::deleteExactBytes()
{
    auto w = makeWindow();
    QVERIFY(waitForScan(*w));
    // A key that shares a prefix with the NUL key must survive: the bytes after NUL count.
    m_server.command({"SET", "bin:a", "keep"});
    QSignalSpy deleted(w.get(), &MainWindow::keyDeleted);
    w->deleteKey(kNul, false);
    QVERIFY(deleted.wait(5000));
    QCOMPARE(m_server.command({"EXISTS", kNul}).toInteger(), 0);
    QCOMPARE(m_server.command({"EXISTS", "bin:a"}).toInteger(), 1);
    QVERIFY(!w->keyBrowser()->model()->contains(kNul));
    w->deleteKey(QByteArray(""), false);
    QVERIFY(deleted.wait(5000));
    QCOMPARE(m_server.command({"EXISTS", ""}).toInteger(), 0);
}

// Delete and rename ask first, naming the exact key (escaped) and the server: Cancel sends
// nothing, Yes acts.
void TestMainWindow::deleteAndRenameAsk()
{
    auto w = makeWindow();
    QVERIFY(waitForScan(*w));
    RawConnection raw(m_server.port());
    const qint64 writesBefore = commandCalls(raw, {"unlink", "renamenx"});
    {
        ConfirmationAnswerer answer(ConfirmationAnswerer::Reject);
        w->deleteKey(kNul);
        w->renameKey(kInvalid, "bin:renamed");
        QCOMPARE(answer.count(), 2);
        QCOMPARE(answer.objectName(), panelparts::confirmationObjectName());
        QCOMPARE(answer.textFormat(), Qt::PlainText);
        QVERIFY(answer.cancelWasDefault());
        QVERIFY2(answer.text().contains(QLatin1String("\\xff\\xfe\\nline")), qPrintable(answer.text()));
        QVERIFY2(answer.text().contains(QLatin1String("bin:renamed")), qPrintable(answer.text()));
    }
    QCoreApplication::processEvents();
    QCOMPARE(commandCalls(raw, {"unlink", "renamenx"}), writesBefore);
    QCOMPARE(m_server.command({"EXISTS", kNul, kInvalid}).toInteger(), 2);
    {
        ConfirmationAnswerer answer(ConfirmationAnswerer::Accept);
        QSignalSpy deleted(w.get(), &MainWindow::keyDeleted);
        w->deleteKey(kNul);
        QCOMPARE(answer.count(), 1);
        QVERIFY2(answer.text().contains(QLatin1String("bin:a\\x00z")), qPrintable(answer.text()));
        QVERIFY2(answer.text().contains(m_server.profile().displayName()), qPrintable(answer.text()));
        QVERIFY(deleted.wait(5000));
    }
    QCOMPARE(m_server.command({"EXISTS", kNul}).toInteger(), 0);
}

void TestMainWindow::renameExactBytes()
{
    auto w = makeWindow();
    QVERIFY(waitForScan(*w));
    const QByteArray to("bin:renamed\x00\x01", 13);
    QSignalSpy renamed(w.get(), &MainWindow::keyRenamed);
    w->renameKey(kInvalid, to, false);
    QVERIFY(renamed.wait(5000));
    QCOMPARE(m_server.command({"GET", to}).bytes(), QByteArray("invalid utf8"));
    QCOMPARE(m_server.command({"EXISTS", kInvalid}).toInteger(), 0);
    QVERIFY(w->keyBrowser()->model()->contains(to));
    QVERIFY(!w->keyBrowser()->model()->contains(kInvalid));
    // Renaming onto an existing key is refused, and nothing changes.
    QSignalSpy failed(w.get(), &MainWindow::operationFailed);
    w->renameKey(to, "session:abc", false);
    QVERIFY(failed.wait(5000));
    QVERIFY(failed.first().first().toString().contains(QLatin1String("already exists")));
    QCOMPARE(m_server.command({"TYPE", "session:abc"}).bytes(), QByteArray("hash"));
    QCOMPARE(m_server.command({"EXISTS", to}).toInteger(), 1);

    // A key written after the scan, renamed before any scan listed it: the browser shows it
    // under its new name, with its type and TTL, as soon as the rename is done.
    m_server.command({"RPUSH", "late:list", "a", "b"});
    m_server.command({"PEXPIRE", "late:list", "600000"});
    KeyTreeModel *model = w->keyBrowser()->model();
    QVERIFY(!model->contains("late:list"));
    w->renameKey("late:list", "late:renamed", false);
    QVERIFY(renamed.wait(5000));
    QVERIFY(model->contains("late:renamed"));
    QCOMPARE(model->keysOfType(KeyType::List), QList<QByteArray>{"late:renamed"});
    const ScanBatch held = model->matching(KeyFilter{}, QDateTime::currentMSecsSinceEpoch());
    qint64 pttl = -2;
    for (const ScannedKey &k : held.keys)
        pttl = k.name == "late:renamed" ? k.pttlMs : pttl;
    QVERIFY2(pttl > 590000 && pttl <= 600000, qPrintable(QString::number(pttl)));
}

void TestMainWindow::readOnlyRefusesDelete()
{
    auto w = makeWindow(true);
    QVERIFY(waitForScan(*w));
    QVERIFY(w->windowTitle().contains(QLatin1String("read-only")));
    QSignalSpy failed(w.get(), &MainWindow::operationFailed);
    w->deleteKey("app:item:1", false);
    QVERIFY(failed.wait(5000));
    QVERIFY2(failed.first().first().toString().contains(QLatin1String("read-only")),
             qPrintable(failed.first().first().toString()));
    QCOMPARE(m_server.command({"EXISTS", "app:item:1"}).toInteger(), 1);
}

// An ACL user without the slowlog sees it greyed with the reason before opening it, and the
// page says what it lacks; the panels it may use say nothing.
void TestMainWindow::panelsTheUserMayNotUseSaySo()
{
    QCOMPARE(m_server
                 .command({"ACL", "SETUSER", "gui-reader", "on", ">gui-reader-pw", "~*", "+@read", "+ping", "+info",
                           "+client|setname", "+acl|whoami", "-slowlog"})
                 .bytes(),
             QByteArray("OK"));
    ConnectionProfile p = m_server.profile();
    p.username = QStringLiteral("gui-reader");
    p.password = QStringLiteral("gui-reader-pw");
    MainWindow w(p, m_settings);
    w.resize(1200, 800);
    w.show();
    QSignalSpy checked(w.panelAccess(), &PanelAccess::checked);
    w.start();
    QVERIFY(checked.wait(15000));
    NavigationSidebar *bar = w.sidebar();
    QVERIFY(!bar->isUsable(QStringLiteral("slowlog")));
    QVERIFY2(bar->item(QStringLiteral("slowlog"))->toolTip(0).contains(QLatin1String("needs +slowlog|get")),
             qPrintable(bar->item(QStringLiteral("slowlog"))->toolTip(0)));
    QVERIFY(bar->isUsable(QStringLiteral("ttl")));
    QVERIFY(bar->item(QStringLiteral("ttl"))->toolTip(0).isEmpty());
    QVERIFY(w.showPanel(QStringLiteral("slowlog")));
    QVERIFY2(w.panelAccess()->lineText().contains(QLatin1String("Slowlog is unavailable to gui-reader")),
             qPrintable(w.panelAccess()->lineText()));
    QVERIFY(w.showPanel(QStringLiteral("ttl")));
    QVERIFY(w.panelAccess()->lineText().isEmpty());
    QVERIFY(w.showPanel(QStringLiteral("overview"))); // works without CONFIG GET
    QVERIFY2(w.panelAccess()->lineText().contains(QLatin1String("without the persistence settings")),
             qPrintable(w.panelAccess()->lineText()));
    QVERIFY(bar->isUsable(QStringLiteral("overview")));
}

void TestMainWindow::serverDiesAndComesBack()
{
    auto w = makeWindow();
    QVERIFY(waitForScan(*w));
    const quint64 before = w->keyBrowser()->model()->keyCount();
    m_server.server().kill();
    QTRY_VERIFY_WITH_TIMEOUT(!w->bannerText().isEmpty(), 10000);
    // What was scanned stays on screen while the connection is down.
    QCOMPARE(w->keyBrowser()->model()->keyCount(), before);
    QString error;
    QVERIFY2(m_server.server().restart(&error), qPrintable(error));
    // The restarted server is empty (no persistence) and another process (a new run_id): what
    // the window showed is stale, and it scans again by itself, showing exactly the new data.
    m_server.command({"SET", "after:restart", "1"});
    QTRY_VERIFY_WITH_TIMEOUT(w->client()->isReady(), 40000);
    QTRY_VERIFY_WITH_TIMEOUT(w->bannerText().isEmpty(), 40000);
    QTRY_COMPARE_WITH_TIMEOUT(w->keyBrowser()->model()->keyCount(), quint64(1), 20000);
    QVERIFY(w->keyBrowser()->model()->contains("after:restart"));
    QTRY_VERIFY_WITH_TIMEOUT(w->keyBrowser()->scanner()->isRunning() == false, 15000);
    QCOMPARE(w->keyBrowser()->model()->keyCount(), quint64(1));
}

void TestMainWindow::screenshot()
{
    auto w = makeWindow();
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("main.png"));
    QSignalSpy shot(w.get(), &MainWindow::screenshotDone);
    w->takeScreenshotWhenReady(file, QStringLiteral("value"));
    QVERIFY(shot.wait(20000));
    QVERIFY2(shot.first().first().toBool(), qPrintable(shot.first().at(1).toString()));
    QImage image(file);
    QVERIFY(!image.isNull());
    QVERIFY(w->keyBrowser()->model()->rowCount() > 0);
    QCOMPARE(w->valueView()->currentKey(), QByteArray("session:abc"));
}

void TestMainWindow::filterByNamespaceAndTtl()
{
    // Half the items get a TTL of about ten minutes, a few a TTL of a day.
    QList<QList<QByteArray>> ttls;
    for (int i = 0; i < 200; i += 2)
        ttls.append({"PEXPIRE", "app:item:" + QByteArray::number(i), "600000"});
    for (int i = 1; i < 20; i += 2)
        ttls.append({"EXPIRE", "app:item:" + QByteArray::number(i), "86400"});
    m_server.pipeline(ttls);
    auto w = makeWindow();
    QVERIFY(waitForScan(*w));
    KeyBrowser *browser = w->keyBrowser();
    QCOMPARE(browser->shownModel(), browser->model());

    KeyFilter byNamespace;
    byNamespace.prefix = "app:";
    byNamespace.label = QStringLiteral("namespace app:");
    browser->setFilter(byNamespace);
    QCOMPARE(browser->shownModel(), browser->filteredModel());
    QCOMPARE(browser->view()->model(), browser->filteredModel());
    QCOMPARE(browser->filteredModel()->keyCount(), quint64(200));
    QVERIFY(!browser->filteredModel()->contains("session:abc"));
    auto *label = browser->findChild<QLabel *>(QStringLiteral("filterLabel"));
    QVERIFY(label && label->isVisible());
    QVERIFY2(label->text().contains(QLatin1String("200")), qPrintable(label->text()));

    // Five to fifteen minutes left: exactly the hundred keys with the ten-minute TTL.
    KeyFilter byTtl;
    byTtl.ttl = KeyFilter::Ttl::Range;
    byTtl.minTtlMs = 5 * 60 * 1000;
    byTtl.maxTtlMs = 15 * 60 * 1000;
    byTtl.label = QStringLiteral("TTL 5–15 min");
    browser->setFilter(byTtl);
    QCOMPARE(browser->filteredModel()->keyCount(), quint64(100));
    QVERIFY(browser->filteredModel()->contains("app:item:0"));
    QVERIFY(!browser->filteredModel()->contains("app:item:1"));

    KeyFilter noTtl;
    noTtl.ttl = KeyFilter::Ttl::None;
    browser->setFilter(noTtl);
    // 200 items - 100 with ten minutes - 10 with a day, plus the four other keys.
    QCOMPARE(browser->filteredModel()->keyCount(), quint64(90 + 4));

    // Opening from the filtered tree opens the exact key.
    QSignalSpy opened(w->valueView(), &ValueView::keyOpened);
    QVERIFY(browser->selectKey(kNul));
    browser->view()->setCurrentIndex(QModelIndex());
    const QModelIndex nul = browser->filteredModel()->indexForKey(kNul);
    QVERIFY(nul.isValid());
    browser->view()->setCurrentIndex(nul);
    QVERIFY(opened.wait(5000));
    QCOMPARE(w->valueView()->currentKey(), kNul);

    // A rescan refills the filtered tree as keys arrive.
    browser->startScan();
    QVERIFY(waitForScan(*w));
    QCOMPARE(browser->filteredModel()->keyCount(), quint64(94));

    // Deleting a shown key removes it from both trees.
    w->deleteKey(kNul, false);
    QTRY_VERIFY_WITH_TIMEOUT(!browser->filteredModel()->contains(kNul), 5000);
    QVERIFY(!browser->model()->contains(kNul));

    browser->clearFilter();
    QCOMPARE(browser->view()->model(), browser->model());
    QVERIFY(!label->isVisible());
}

void TestMainWindow::panelFilterReachesTheBrowser()
{
    auto w = makeWindow();
    QVERIFY(waitForScan(*w));
    KeyFilter f;
    f.prefix = "session:";
    f.label = QStringLiteral("namespace session:");
    Q_EMIT w->memoryPanel()->filterKeysRequested(f);
    QCOMPARE(w->keyBrowser()->filter().prefix, QByteArray("session:"));
    QCOMPARE(w->keyBrowser()->filteredModel()->keyCount(), quint64(1));
    // A panel asking for a key opens it in the value panel.
    QSignalSpy opened(w->valueView(), &ValueView::keyOpened);
    Q_EMIT w->memoryPanel()->openKeyRequested("session:abc", KeyType::Hash);
    QVERIFY(opened.wait(5000));
    QCOMPARE(w->currentPanel(), QStringLiteral("value"));
}

void TestMainWindow::onlyTheVisiblePanelIsActive()
{
    auto w = makeWindow();
    const QStringList names{QStringLiteral("overview"), QStringLiteral("ttl"), QStringLiteral("slowlog"),
                            QStringLiteral("memory")};
    for (const QString &name : names) {
        QVERIFY(w->showPanel(name));
        QCOMPARE(w->currentPanel(), name);
        for (const QString &other : names)
            QCOMPARE(w->panel(other)->isActive(), other == name);
    }
    // Minimised or hidden, nothing polls.
    w->hide();
    for (const QString &name : names)
        QVERIFY(!w->panel(name)->isActive());
    w->show();
    QVERIFY(w->panel(QStringLiteral("memory"))->isActive());
    QVERIFY(w->showPanel(QStringLiteral("value")));
    for (const QString &name : names)
        QVERIFY(!w->panel(name)->isActive());
}

void TestMainWindow::sortedSetsAreClassified()
{
    m_server.command({"GEOADD", "geo:cities", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania",
                      "-0.1276", "51.5072", "London", "151.2093", "-33.8688", "Sydney"});
    m_server.command({"ZADD", "lb:daily", "100", "ann", "2500", "bob", "31337", "cat"});
    auto w = makeWindow();
    QVERIFY(waitForScan(*w));
    QSignalSpy idle(w->geoDetector(), &GeoDetectReader::idle);
    QVERIFY(idle.wait(10000));
    // The key browser shows the geo set as "geo", the board stays a zset.
    KeyTreeModel *model = w->keyBrowser()->model();
    QCOMPARE(model->typeHint("geo:cities"), KeyTreeModel::TypeHint::Geo);
    QCOMPARE(model->typeHint("lb:daily"), KeyTreeModel::TypeHint::None);
    QCOMPARE(model->data(model->indexForKey("geo:cities").siblingAtColumn(KeyTreeModel::TypeColumn)).toString(),
             QStringLiteral("geo"));
    // Each panel gets its own kind: the map opens the geo set, the board list holds the board.
    QTRY_VERIFY_WITH_TIMEOUT(w->geoPanel()->hasContent(), 10000);
    w->leaderboardPanel()->openBusiest();
    QTRY_VERIFY_WITH_TIMEOUT(w->leaderboardPanel()->hasContent(), 10000);
    QCOMPARE(w->leaderboardPanel()->currentBoard(), QByteArray("lb:daily"));
    // From the key browser's menu the same panels open on a chosen key.
    Q_EMIT w->keyBrowser()->panelRequested("lb:daily", QStringLiteral("leaderboard"));
    QCOMPARE(w->currentPanel(), QStringLiteral("leaderboard"));
}

void TestMainWindow::patternsReachBrowserAndPanels()
{
    m_server.command({"SET", "lock:invoice:7", "3f1c9a0e7b2d4c5561aa", "PX", "60000"});
    m_server.command({"SET", "lock:report:nightly", "9b2e61d04a7c3f18d2e4"}); // no TTL: the worst kind
    // A user rule (written before the window opens) names what structure cannot tell.
    const QString rulesPath
        = QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation) + QStringLiteral("/rules.json");
    QDir().mkpath(QFileInfo(rulesPath).absolutePath());
    QFile::remove(rulesPath);
    auto w = makeWindow();
    QVERIFY(waitForScan(*w));
    QTRY_VERIFY_WITH_TIMEOUT(w->patternIndex()->isIdle() && w->patternIndex()->size() > 0, 15000);
    KeyTreeModel *model = w->keyBrowser()->model();
    const auto patternOf = [model](const QByteArray &key) {
        return model->data(model->indexForKey(key).siblingAtColumn(KeyTreeModel::PatternColumn)).toString();
    };
    // The tree shows only the first folders' keys; open the lock folder to read its rows.
    w->keyBrowser()->view()->expand(model->indexForPrefix("lock:"));
    w->keyBrowser()->view()->expand(model->indexForPrefix("lock:invoice:"));
    QCOMPARE(patternOf("lock:invoice:7"), patternKindName(PatternKind::Lock));
    QVERIFY(
        model->data(model->indexForKey("lock:invoice:7").siblingAtColumn(KeyTreeModel::PatternColumn), Qt::ToolTipRole)
            .toString()
            .contains(QLatin1String("token")));
    // The locks panel holds both locks; the one without a TTL is the first.
    w->showPanel(QStringLiteral("locks"));
    QTRY_VERIFY_WITH_TIMEOUT(w->locksPanel()->hasContent(), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(w->locksPanel()->summaryText().contains(QLatin1String("1 without TTL")), 10000);
    // The by-pattern grouping lists the same verdicts.
    w->keyBrowser()->setGrouping(KeyBrowser::Grouping::Pattern);
    QVERIFY(w->keyBrowser()->patternView()->isVisibleTo(w.get()));
    const PatternGroupModel *groups = w->keyBrowser()->patternModel();
    QStringList kinds;
    for (int r = 0; r < groups->rowCount(); ++r)
        kinds << groups->index(r, 0).data().toString();
    QVERIFY2(kinds.contains(patternKindName(PatternKind::Lock)), qPrintable(kinds.join(QLatin1Char(','))));
    w->keyBrowser()->setGrouping(KeyBrowser::Grouping::Namespace);

    // Editing the rules file is picked up live and reclassifies what is known.
    QSignalSpy reloaded(w->rulesFile(), &PatternRulesFile::rulesChanged);
    QFile f(rulesPath);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"version": 2, "rules": [{"glob": "app:item:*", "type": "string", "kind": "counter"}]})");
    f.close();
    QVERIFY(reloaded.wait(5000));
    QTRY_COMPARE_WITH_TIMEOUT(w->patternIndex()->match("app:item:1") ? int(w->patternIndex()->match("app:item:1")->kind)
                                                                     : -1,
                              int(PatternKind::Counter), 10000);
    QVERIFY(w->patternIndex()->match("app:item:1")->fromRule);
    QFile::remove(rulesPath);
}

void TestMainWindow::panelScreenshots_data()
{
    QTest::addColumn<QString>("panel");
    for (const QString &name :
         {QStringLiteral("overview"), QStringLiteral("ttl"), QStringLiteral("slowlog"), QStringLiteral("memory"),
          QStringLiteral("topology"), QStringLiteral("locks"), QStringLiteral("ratelimits"), QStringLiteral("sessions"),
          QStringLiteral("caches"), QStringLiteral("console")})
        QTest::newRow(qPrintable(name)) << name;
}

void TestMainWindow::panelScreenshots()
{
    QFETCH(QString, panel);
    // Every command is slow enough to log: the slowlog screenshot waits for a few entries.
    m_server.command({"CONFIG", "SET", "slowlog-log-slower-than", panel == QLatin1String("slowlog") ? "0" : "10000"});
    auto w = makeWindow();
    QTemporaryDir dir;
    const QString file = dir.filePath(panel + QStringLiteral(".png"));
    QSignalSpy shot(w.get(), &MainWindow::screenshotDone);
    w->takeScreenshotWhenReady(file, panel);
    QVERIFY(shot.wait(30000));
    QVERIFY2(shot.first().first().toBool(), qPrintable(shot.first().at(1).toString()));
    QCOMPARE(w->currentPanel(), panel);
    QVERIFY(w->panel(panel)->hasContent());
    QVERIFY(!QImage(file).isNull());
}

// The default pacing is adaptive: while the scan runs, the status bar says what it sends and
// why at that pace; when it is done the line goes. Pictured in both palettes.
void TestMainWindow::scanShowsItsPaceInTheStatusBar()
{
    QCOMPARE(m_settings->scanRate(), kAdaptivePacing);
    m_server.command({"DEBUG", "POPULATE", "300000", "bulk"});
    auto w = makeWindow();
    auto *label = w->findChild<QLabel *>(QStringLiteral("scanLoad"));
    QVERIFY(label);
    QTRY_VERIFY_WITH_TIMEOUT(label->isVisible() && label->toolTip().contains(QLatin1String("no other load")), 15000);
    QVERIFY2(label->text().startsWith(QLatin1String("Scan: ")), qPrintable(label->text()));
    QVERIFY2(label->toolTip().contains(QStringLiteral("commands/s · adaptive: ")), qPrintable(label->toolTip()));
    grabInBothThemes(w.get(), QStringLiteral("scan-pace"));
    // 300,000 keys take a few seconds alone; under ThreadSanitizer, sharing two cores with the
    // rest of the suite, they took more than 15 s.
    QVERIFY(waitForScan(*w, 120000));
    QTRY_VERIFY(!label->isVisible());
}

// A pace line wider than its place in the status bar shows its start ending in "…" (it used to
// be cut off mid-figure: "raising to 16,0"); the text stays whole, and a wide window shows it all.
void TestMainWindow::narrowWindowElidesThePace()
{
    auto w = makeWindow();
    auto *label = qobject_cast<ElidingLabel *>(w->findChild<QLabel *>(QStringLiteral("scanLoad")));
    QVERIFY(label);
    QVERIFY(waitForScan(*w, 120000));
    // Longer than any the pacer writes, so that it overflows whatever the window's least width.
    const QString line = QStringLiteral("Scan: 180,000 commands/s · adaptive: ")
        + QStringLiteral("others busy, unharmed: raising to 16,000,000/s; ").repeated(4);
    label->setText(line);
    label->show();
    w->resize(w->minimumSizeHint().width(), w->height());
    QTRY_VERIFY(label->fontMetrics().horizontalAdvance(line) > label->contentsRect().width());
    QVERIFY2(label->shownText().endsWith(QChar(0x2026)), qPrintable(label->shownText()));
    QVERIFY(label->fontMetrics().horizontalAdvance(label->shownText()) <= label->contentsRect().width());
    QCOMPARE(label->text(), line);
    grabInBothThemes(w.get(), QStringLiteral("scan-pace-narrow"));
    label->setText(line.left(60));
    QTRY_COMPARE(label->shownText(), line.left(60));
}

// --scan-replica: the key browser's scan and the pattern index read the replica, which the
// status bar names; the server itself sees no SCAN, TYPE or PTTL; a delete goes to the server.
void TestMainWindow::scanThroughReplica()
{
    TestServer replica({QStringLiteral("--replicaof"), QStringLiteral("127.0.0.1"), QString::number(m_server.port())});
    QString error;
    QVERIFY2(replica.start(&error), qPrintable(error));
    m_server.command({"DEBUG", "POPULATE", "500", "rep"});
    const qint64 keys = m_server.command({"DBSIZE"}).toInteger(); // with init()'s
    QTRY_COMPARE_WITH_TIMEOUT(replica.command({"DBSIZE"}).toInteger(), keys, 15000);
    m_server.command({"CONFIG", "RESETSTAT"});
    replica.command({"CONFIG", "RESETSTAT"});
    ConnectionProfile p = m_server.profile();
    QVERIFY(p.parseScanReplica(QStringLiteral("127.0.0.1:%1").arg(replica.port()), &error));
    auto w = makeWindow(p);
    // The findings read what panels read (a session's PTTL), on the server like every panel:
    // shown instead, a panel that reads nothing, so the counts below are the scan's alone.
    QVERIFY(w->showPanel(QStringLiteral("console")));
    QVERIFY(waitForScan(*w, 60000));
    QCOMPARE(qint64(w->keyBrowser()->model()->keyCount()), keys);
    auto *state = w->findChild<QLabel *>(QStringLiteral("connectionState"));
    QVERIFY(state);
    const QString where = QStringLiteral("127.0.0.1:%1").arg(replica.port());
    QTRY_VERIFY2(state->text().contains(QStringLiteral("scanning through replica ") + where),
                 qPrintable(state->text()));
    QVERIFY2(w->windowTitle().contains(QStringLiteral("scan via ") + where), qPrintable(w->windowTitle()));
    RawConnection server(m_server.port());
    RawConnection copy(replica.port());
    QCOMPARE(commandCalls(server, {"scan", "type", "pttl"}), qint64(0));
    QVERIFY(commandCalls(copy, {"scan"}) > 0);
    QVERIFY(commandCalls(copy, {"type"}) >= keys);
    grabInBothThemes(w.get(), QStringLiteral("scan-replica"));
    // Writes go to the server (the replica would answer READONLY).
    QSignalSpy deleted(w.get(), &MainWindow::keyDeleted);
    w->deleteKey("rep:1", false);
    QVERIFY(deleted.wait(10000));
    QCOMPARE(m_server.command({"EXISTS", "rep:1"}).toInteger(), 0);
    // The replica applies the delete from its replication stream; nothing was refused there.
    QVERIFY(!copy.command({"INFO", "errorstats"}).bytes().contains("READONLY"));
    QTRY_COMPARE(replica.command({"EXISTS", "rep:1"}).toInteger(), 0);
}

// A scan replica that is no replica of the server (another primary): its keys are not the
// server's, so the scan reads the server and the status bar says why.
void TestMainWindow::scanReplicaThatIsNotOne()
{
    TestServer stranger;
    QString error;
    QVERIFY2(stranger.start(&error), qPrintable(error));
    stranger.command({"SET", "stranger:1", "x"});
    const qint64 keys = m_server.command({"DBSIZE"}).toInteger();
    ConnectionProfile p = m_server.profile();
    QVERIFY(p.parseScanReplica(QStringLiteral("127.0.0.1:%1").arg(stranger.port()), &error));
    auto w = makeWindow(p);
    auto *state = w->findChild<QLabel *>(QStringLiteral("connectionState"));
    QTRY_VERIFY_WITH_TIMEOUT(state->text().contains(QLatin1String("it is not a replica (role master)")), 15000);
    QVERIFY2(state->text().contains(QStringLiteral("scanning the server, not 127.0.0.1:%1").arg(stranger.port())),
             qPrintable(state->text()));
    QVERIFY(waitForScan(*w, 60000));
    QTRY_COMPARE(qint64(w->keyBrowser()->model()->keyCount()), keys);
    QVERIFY(!w->keyBrowser()->model()->contains("stranger:1"));
}

// A user who may not run INFO on the server (ACLs are each server's own): the replica's role is
// checked alone, and the status bar says the replica was not checked against the server.
void TestMainWindow::scanReplicaUncheckedWithoutInfo()
{
    TestServer replica({QStringLiteral("--replicaof"), QStringLiteral("127.0.0.1"), QString::number(m_server.port())});
    QString error;
    QVERIFY2(replica.start(&error), qPrintable(error));
    const qint64 keys = m_server.command({"DBSIZE"}).toInteger();
    QTRY_COMPARE_WITH_TIMEOUT(replica.command({"DBSIZE"}).toInteger(), keys, 15000);
    QCOMPARE(m_server.command({"ACL", "SETUSER", "noinfo", "reset", "on", ">pw", "~*", "+@all", "-info"}),
             RedisValue::status("OK"));
    QCOMPARE(replica.command({"ACL", "SETUSER", "noinfo", "reset", "on", ">pw", "~*", "+@all"}),
             RedisValue::status("OK"));
    const auto dropUser = qScopeGuard([this] { m_server.command({"ACL", "DELUSER", "noinfo"}); });
    ConnectionProfile p = m_server.profile();
    p.username = QStringLiteral("noinfo");
    p.password = QStringLiteral("pw");
    QVERIFY(p.parseScanReplica(QStringLiteral("127.0.0.1:%1").arg(replica.port()), &error));
    auto w = makeWindow(p);
    // The findings read what panels read (a session's PTTL), on the server like every panel:
    // shown instead, a panel that reads nothing, so the counts below are the scan's alone.
    QVERIFY(w->showPanel(QStringLiteral("console")));
    QVERIFY(waitForScan(*w, 60000));
    QCOMPARE(qint64(w->keyBrowser()->model()->keyCount()), keys);
    auto *state = w->findChild<QLabel *>(QStringLiteral("connectionState"));
    QTRY_VERIFY2(state->text().contains(QLatin1String("not checked against the server: NOPERM")),
                 qPrintable(state->text()));
}

// View → Scan pacing: adaptive or a fixed ceiling, saved in the settings.
void TestMainWindow::scanPacingDialog()
{
    auto w = makeWindow();
    auto *action = w->findChild<QAction *>(QStringLiteral("scanPacingAction"));
    QVERIFY(action);
    bool seen = false;
    QTimer::singleShot(0, this, [&] {
        auto *d = qobject_cast<QDialog *>(QApplication::activeModalWidget());
        QVERIFY(d);
        QCOMPARE(d->objectName(), QStringLiteral("scanPacingDialog"));
        auto *adaptive = d->findChild<QRadioButton *>(QStringLiteral("adaptive"));
        auto *fixed = d->findChild<QRadioButton *>(QStringLiteral("fixed"));
        auto *rate = d->findChild<QSpinBox *>(QStringLiteral("rate"));
        QVERIFY(adaptive->isChecked());
        QVERIFY(!rate->isEnabled());
        screenshots::save(d->grab().toImage(), QStringLiteral("scan-pacing-dialog.png"));
        fixed->setChecked(true);
        QVERIFY(rate->isEnabled());
        rate->setValue(12000);
        seen = true;
        d->accept();
    });
    action->trigger();
    QVERIFY(seen);
    QCOMPARE(m_settings->scanRate(), 12000);
    QTimer::singleShot(0, this, [&] {
        auto *d = qobject_cast<QDialog *>(QApplication::activeModalWidget());
        QVERIFY(d);
        QCOMPARE(d->findChild<QSpinBox *>(QStringLiteral("rate"))->value(), 12000);
        d->findChild<QRadioButton *>(QStringLiteral("adaptive"))->setChecked(true);
        d->accept();
    });
    action->trigger();
    QCOMPARE(m_settings->scanRate(), kAdaptivePacing);
    // Saved, not only held for this run (the configuration directory did not exist before).
    QCOMPARE(m_settings->problem(), QString());
    QCOMPARE(Settings().scanRate(), kAdaptivePacing);
}

// A read-only connection: the banner says so, and every write the window offers is there but
// off, saying why: the key menu's Rename and Delete, Keys → Empty database, the bulk delete's
// Delete (its count works). Driving them all sends no writing command.
void TestMainWindow::readOnlyTurnsEveryWriteOff()
{
    RawConnection raw(m_server.port());
    const QByteArray digest = raw.command({"DEBUG", "DIGEST"}).bytes();
    const qint64 writesBefore = commandCalls(raw, {"unlink", "del", "renamenx", "flushdb", "flushall"});
    auto w = makeWindow(true);
    QVERIFY(waitForScan(*w));
    QVERIFY2(w->environmentBannerText().contains(QLatin1String("read-only")), qPrintable(w->environmentBannerText()));

    KeyBrowser *browser = w->keyBrowser();
    QVERIFY(browser->selectKey("app:item:1"));
    const QModelIndex key = browser->findChild<QTreeView *>()->currentIndex();
    QVERIFY(key.isValid());
    QMenu menu;
    browser->fillContextMenu(&menu, key);
    for (const QString &name : {QStringLiteral("rename"), QStringLiteral("delete")}) {
        auto *a = menu.findChild<QAction *>(name);
        QVERIFY2(a, qPrintable(name));
        QVERIFY(!a->isEnabled());
        QVERIFY2(a->toolTip().contains(QLatin1String("read-only")), qPrintable(a->toolTip()));
    }
    QVERIFY(menu.toolTipsVisible());
    QMenu folderMenu;
    browser->fillContextMenu(&folderMenu, key.parent());
    auto *bulkAction = folderMenu.findChild<QAction *>(QStringLiteral("bulkDelete"));
    QVERIFY(bulkAction && bulkAction->isEnabled());
    QVERIFY2(bulkAction->toolTip().contains(QLatin1String("counted")), qPrintable(bulkAction->toolTip()));

    auto *empty = w->findChild<QAction *>(QStringLiteral("emptyDatabaseAction"));
    QVERIFY(empty);
    QVERIFY(!empty->isEnabled());
    QVERIFY2(empty->toolTip().contains(QLatin1String("read-only")), qPrintable(empty->toolTip()));
    w->openEmptyDatabase(); // refused before any dialog
    QVERIFY(!QApplication::activeModalWidget());

    // The bulk delete counts (a read) and keeps Delete off.
    QSignalSpy finished(w->bulkDelete(), &BulkDelete::finished);
    w->openBulkDelete("app:item:*");
    auto *dialog = w->findChild<BulkDeleteDialog *>();
    QVERIFY(dialog);
    dialog->count();
    QVERIFY(finished.wait(15000));
    QCOMPARE(w->bulkDelete()->report().matched, 200);
    auto *del = dialog->findChild<QPushButton *>(QStringLiteral("deleteButton"));
    QVERIFY(!del->isEnabled());
    QVERIFY2(del->toolTip().contains(QLatin1String("read-only")), qPrintable(del->toolTip()));
    dialog->deleteMatching(); // asks nothing, sends nothing
    QVERIFY(!w->bulkDelete()->remove("app:item:*"));
    QVERIFY(w->bulkDelete()->report().error.message.contains(QLatin1String("read-only")));
    grabInBothThemes(w.get(), QStringLiteral("read-only-window"));
    dialog->close();
    QCoreApplication::processEvents();
    QCOMPARE(commandCalls(raw, {"unlink", "del", "renamenx", "flushdb", "flushall"}), writesBefore);
    QCOMPARE(raw.command({"DEBUG", "DIGEST"}).bytes(), digest);
}

// Keys → Empty database: says how many keys of which database, and empties it only once the
// connection's name is typed exactly; the other databases keep their keys.
void TestMainWindow::emptyDatabaseAsksForTheName()
{
    m_server.pipeline({{"SELECT", "1"}, {"SET", "other:db", "stays"}});
    RawConnection raw(m_server.port());
    const qint64 flushAllBefore = commandCalls(raw, {"flushall"});
    const qint64 flushDbBefore = commandCalls(raw, {"flushdb"});
    ConnectionProfile p = m_server.profile();
    p.name = QStringLiteral("orders-cache");
    MainWindow w(p, m_settings);
    w.resize(1200, 800);
    w.show();
    w.start();
    QVERIFY(waitForScan(w));
    QCOMPARE(w.nameToType(), QStringLiteral("orders-cache"));
    auto *action = w.findChild<QAction *>(QStringLiteral("emptyDatabaseAction"));
    QVERIFY(action && action->isEnabled());

    // Cancelled after a wrong name: the button never came on, nothing was sent.
    bool seen = false;
    QTimer::singleShot(0, this, [&] {
        auto *d = qobject_cast<EmptyDatabaseDialog *>(QApplication::activeModalWidget());
        QVERIFY(d);
        auto *typed = d->findChild<QLineEdit *>(QStringLiteral("typedName"));
        auto *button = d->findChild<QPushButton *>(QStringLiteral("emptyButton"));
        QTRY_VERIFY2(d->question().contains(QLatin1String("all 204 keys")), qPrintable(d->question()));
        QVERIFY(d->question().contains(QLatin1String("database 0 of orders-cache")));
        QVERIFY(!button->isEnabled());
        QTest::keyClicks(typed, QStringLiteral("orders-cach"));
        QVERIFY(!button->isEnabled());
        QTest::keyClick(typed, Qt::Key_Return); // Enter is Cancel's, not Empty's
        seen = true;
        if (d->isVisible())
            d->reject();
    });
    action->trigger();
    QVERIFY(seen);
    QCoreApplication::processEvents();
    QCOMPARE(commandCalls(raw, {"flushdb"}), flushDbBefore);
    QCOMPARE(m_server.command({"DBSIZE"}).toInteger(), 204);

    seen = false;
    QTimer::singleShot(0, this, [&] {
        auto *d = qobject_cast<EmptyDatabaseDialog *>(QApplication::activeModalWidget());
        QVERIFY(d);
        auto *typed = d->findChild<QLineEdit *>(QStringLiteral("typedName"));
        auto *button = d->findChild<QPushButton *>(QStringLiteral("emptyButton"));
        QTest::keyClicks(typed, QStringLiteral("orders-cache"));
        QVERIFY(button->isEnabled());
        grabInBothThemes(d, QStringLiteral("empty-database"));
        seen = true;
        button->click();
    });
    QSignalSpy scan(w.keyBrowser(), &KeyBrowser::scanCompleted);
    action->trigger();
    QVERIFY(seen);
    QTRY_COMPARE_WITH_TIMEOUT(m_server.command({"DBSIZE"}).toInteger(), 0, 10000);
    QCOMPARE(commandCalls(raw, {"flushdb"}), flushDbBefore + 1);
    QCOMPARE(commandCalls(raw, {"flushall"}), flushAllBefore);
    const QList<RedisValue> other = m_server.pipeline({{"SELECT", "1"}, {"GET", "other:db"}});
    QCOMPARE(other.at(1).bytes(), QByteArray("stays"));
    // The browser scanned again and holds nothing.
    QVERIFY(scan.wait(15000));
    QCOMPARE(w.keyBrowser()->model()->keyCount(), 0);
}

// Keys → Delete keys matching: Count reads only; Delete names the count, asks, deletes exactly
// the matching keys (binary names included) in paced UNLINK batches, and reports.
void TestMainWindow::bulkDeleteCountsThenDeletes()
{
    const QByteArray binary("app:item:\x00\xff", 11);
    m_server.command({"SET", binary, "binary"});
    m_server.command({"SET", "app:other", "stays"});
    RawConnection raw(m_server.port());
    const QList<QByteArray> truth = raw.scan("app:item:*");
    QCOMPARE(truth.size(), 201);
    auto w = makeWindow();
    QVERIFY(waitForScan(*w));
    const QByteArray digest = raw.command({"DEBUG", "DIGEST"}).bytes();
    const qint64 unlinkBefore = commandCalls(raw, {"unlink"});
    QSignalSpy finished(w->bulkDelete(), &BulkDelete::finished);
    w->openBulkDelete("app:item:*");
    auto *dialog = w->findChild<BulkDeleteDialog *>();
    QVERIFY(dialog);
    auto *del = dialog->findChild<QPushButton *>(QStringLiteral("deleteButton"));
    QVERIFY(!del->isEnabled()); // not counted yet
    QVERIFY2(del->toolTip().contains(QLatin1String("Count")), qPrintable(del->toolTip()));
    dialog->count();
    QVERIFY(finished.wait(15000));
    QCOMPARE(w->bulkDelete()->report().matched, 201);
    QCOMPARE(w->bulkDelete()->report().byType.value(KeyType::String), 201);
    QVERIFY2(dialog->summaryText().contains(QLatin1String("201 keys match")), qPrintable(dialog->summaryText()));
    QVERIFY(dialog->findChild<QPlainTextEdit *>(QStringLiteral("names"))
                ->toPlainText()
                .contains(QLatin1String("app:item:\\x00\\xff")));
    QCOMPARE(raw.command({"DEBUG", "DIGEST"}).bytes(), digest); // the count wrote nothing
    QCOMPARE(commandCalls(raw, {"unlink"}), unlinkBefore);
    QVERIFY(del->isEnabled());
    grabInBothThemes(dialog, QStringLiteral("bulk-delete-count"));

    // Cancel at the question: nothing is deleted.
    {
        ConfirmationAnswerer answer(ConfirmationAnswerer::Reject);
        dialog->deleteMatching();
        QCOMPARE(answer.count(), 1);
        QVERIFY2(answer.text().contains(QLatin1String("201 keys matching app:item:*")), qPrintable(answer.text()));
        QVERIFY(answer.cancelWasDefault());
    }
    QCOMPARE(commandCalls(raw, {"unlink"}), unlinkBefore);
    {
        ConfirmationAnswerer answer(ConfirmationAnswerer::Accept);
        dialog->deleteMatching();
        QCOMPARE(answer.count(), 1);
    }
    QVERIFY(finished.wait(15000));
    const BulkDeleteReport report = w->bulkDelete()->report();
    QCOMPARE(report.stage, BulkDeleteReport::Stage::Deleting);
    QVERIFY2(!report.error, qPrintable(report.error.message));
    QCOMPARE(report.deleted, 201);
    QVERIFY(raw.scan("app:item:*").isEmpty());
    QCOMPARE(m_server.command({"GET", "app:other"}).bytes(), QByteArray("stays"));
    QCOMPARE(m_server.command({"DBSIZE"}).toInteger(), 5); // session, two bin keys, "" and app:other
    QVERIFY(commandCalls(raw, {"unlink"}) - unlinkBefore >= 1);
    // The browser dropped them.
    QVERIFY(!w->keyBrowser()->model()->contains("app:item:7"));
    QVERIFY(!w->keyBrowser()->model()->contains(binary));
    QVERIFY(w->keyBrowser()->model()->contains("app:other"));
    QVERIFY2(dialog->summaryText().contains(QLatin1String("201 keys deleted")), qPrintable(dialog->summaryText()));
    grabInBothThemes(dialog, QStringLiteral("bulk-delete-done"));
    // The report lists every deleted name, escaped.
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("report.txt"));
    QString error;
    QVERIFY2(dialog->saveReport(file, &error), qPrintable(error));
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray text = f.readAll();
    QVERIFY(text.contains("app:item:\\x00\\xff\n"));
    QVERIFY(text.contains("app:item:199\n"));
    QVERIFY(!text.contains("app:other"));
    QCOMPARE(text.count('\n'), 201 + 4); // the header lines and one line a key
    // Asked again (a folder's menu), the one dialog comes back with the new pattern.
    w->openBulkDelete("app:*");
    QCOMPARE(w->findChildren<BulkDeleteDialog *>().size(), 1);
    QCOMPARE(dialog->findChild<QLineEdit *>(QStringLiteral("pattern"))->text(), QStringLiteral("app:*"));
    // A pattern that matches everything is refused: that is Empty database's job.
    QVERIFY(!w->bulkDelete()->remove("*"));
    QVERIFY(w->bulkDelete()->report().error.message.contains(QLatin1String("Empty database")));
    dialog->close();
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
