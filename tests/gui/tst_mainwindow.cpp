// SPDX-License-Identifier: GPL-3.0-or-later
// The main window against a real server, offscreen: scan, open, delete and rename exact
// bytes, read-only refusal, a server that dies and comes back.
#include "keybrowser.h"
#include "keytreemodel.h"
#include "mainwindow.h"
#include "settings.h"
#include "testserver.h"
#include "valueview.h"

#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

namespace {
const QByteArray kNul("bin:a\x00z", 7);
const QByteArray kInvalid("bin:\xff\xfe\nline");
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
    void serverDiesAndComesBack();
    void screenshot();

private:
    std::unique_ptr<MainWindow> makeWindow(bool readOnly = false);
    bool waitForScan(MainWindow &w);

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
    auto w = std::make_unique<MainWindow>(p, m_settings);
    w->resize(1200, 800);
    w->show();
    w->start();
    return w;
}

bool TestMainWindow::waitForScan(MainWindow &w)
{
    QSignalSpy done(w.keyBrowser(), &KeyBrowser::scanCompleted);
    return done.wait(15000);
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
    QTRY_VERIFY_WITH_TIMEOUT(w->client()->isReady(), 40000);
    QTRY_VERIFY_WITH_TIMEOUT(w->bannerText().isEmpty(), 40000);
    // The restarted server is empty (no persistence): a rescan shows exactly that.
    m_server.command({"SET", "after:restart", "1"});
    QSignalSpy done(w->keyBrowser(), &KeyBrowser::scanCompleted);
    QTRY_VERIFY_WITH_TIMEOUT(w->keyBrowser()->scanner()->isRunning() == false, 10000);
    w->keyBrowser()->startScan();
    QVERIFY(done.wait(15000));
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

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
