// SPDX-License-Identifier: GPL-3.0-or-later
#include "consolepanel.h"
#include "luaeditor.h"
#include "luaresult.h"
#include "redisclient.h"
#include "scriptlibrary.h"
#include "testserver.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QFile>
#include <QImage>
#include <QListWidget>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QTreeView>

#include <memory>

// The console offscreen on a real server: Ctrl+Enter runs, the tree shows the reply, a
// library script comes in with its example KEYS/ARGV, binary ARGV reaches the server byte
// for byte, files save and open. Set CONSOLE_PNG to a file name to keep a screenshot.
namespace {

constexpr int kWaitMs = 20000;

int distinctColours(const QImage &image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 2) {
        for (int x = 0; x < image.width(); x += 2)
            colours.insert(image.pixel(x, y));
    }
    return int(colours.size());
}

} // namespace

class TestConsolePanel : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;
    std::unique_ptr<RedisClient> m_client;
    std::unique_ptr<ConsolePanel> m_panel;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QFile::remove(LuaHistory::defaultPath());
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        m_client = connectedClient(m_server.profile());
        QVERIFY(m_client);
        m_panel = std::make_unique<ConsolePanel>(m_client.get());
        m_panel->resize(1280, 760);
        m_panel->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_panel.get()));
    }

    void cleanupTestCase()
    {
        m_panel.reset();
        QFile::remove(LuaHistory::defaultPath());
    }

    void ctrlEnterRunsAndTreeShowsReply()
    {
        QAbstractItemModelTester tester(m_panel->resultModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_panel->editor()->setPlainText(QStringLiteral("return {1, 'two', {}, false, {3}}"));
        m_panel->setKeys({});
        m_panel->setArgs({});
        QSignalSpy finished(m_panel.get(), &ConsolePanel::runFinished);
        m_panel->editor()->setFocus();
        QTest::keyClick(m_panel->editor(), Qt::Key_Return, Qt::ControlModifier);
        QVERIFY(finished.wait(kWaitMs));
        QCOMPARE(finished.count(), 1);
        QTreeView *view = m_panel->resultView();
        const QAbstractItemModel *m = view->model();
        const QModelIndex top = m->index(0, 0);
        QCOMPARE(m->data(m->index(0, LuaResultModel::ValueColumn)).toString(), QStringLiteral("5 element(s)"));
        QCOMPARE(m->rowCount(top), 5);
        QCOMPARE(m->data(m->index(0, LuaResultModel::ValueColumn, top)).toString(), QStringLiteral("1"));
        QCOMPARE(m->data(m->index(1, LuaResultModel::ValueColumn, top)).toString(), QStringLiteral("\"two\""));
        QCOMPARE(m->data(m->index(2, LuaResultModel::ValueColumn, top)).toString(), QStringLiteral("(empty array)"));
        // Lua false arrives as nil over RESP2; the row says so instead of guessing.
        QCOMPARE(m->data(m->index(3, LuaResultModel::ValueColumn, top)).toString(), QStringLiteral("(nil)"));
        QVERIFY(m->data(m->index(3, LuaResultModel::ValueColumn, top), Qt::ToolTipRole)
                    .toString()
                    .contains(QLatin1String("false")));
        QCOMPARE(m->rowCount(m->index(4, 0, top)), 1);
        QVERIFY(view->isExpanded(top));
        QVERIFY(m_panel->elapsedText().contains(QLatin1String("took")));
        QVERIFY(m_panel->hasContent());
    }

    void insertFromLibraryFillsKeysAndArgv()
    {
        const ScriptInfo *s = ScriptLibrary::instance().find(QStringLiteral("token_bucket"));
        QVERIFY(s);
        QCOMPARE(m_panel->libraryList()->count(), int(ScriptLibrary::instance().scripts().size()));
        QVERIFY(m_panel->loadScript(QStringLiteral("token_bucket"), false));
        QCOMPARE(m_panel->editor()->toPlainText().toUtf8(), s->source);
        QCOMPARE(m_panel->keysTable()->rowCount(), int(s->keys.size()));
        QCOMPARE(m_panel->argsTable()->rowCount(), int(s->argv.size()));
        for (int i = 0; i < s->argv.size(); ++i) {
            QCOMPARE(m_panel->argsTable()->item(i, 0)->text(), s->argv.at(i).example);
            QVERIFY(m_panel->argsTable()->item(i, 1)->text().contains(s->argv.at(i).meaning));
        }
        QCOMPARE(m_panel->keysTable()->item(0, 0)->text(), s->keys.first().example);
        QCOMPARE(m_panel->keysTable()->verticalHeaderItem(0)->text(), QStringLiteral("KEYS[1]"));
        QCOMPARE(m_panel->libraryList()->currentItem()->text(), QStringLiteral("token_bucket"));
        QVERIFY(!m_panel->loadScript(QStringLiteral("no_such_script"), false));
    }

    void binaryArgvReachesServerExactly()
    {
        m_panel->editor()->setPlainText(QStringLiteral("redis.call('SET', KEYS[1], ARGV[1])\nreturn ARGV[1]"));
        m_panel->setKeys({"console:bin"});
        m_panel->argsTable()->setRowCount(1);
        // Typed as text, the way a user writes it.
        m_panel->argsTable()->setItem(0, 0, new QTableWidgetItem(QStringLiteral("\\x00\\xff")));
        QSignalSpy finished(m_panel.get(), &ConsolePanel::runFinished);
        m_panel->run();
        QVERIFY(finished.wait(kWaitMs));
        const QByteArray expected("\x00\xff", 2);
        QCOMPARE(m_panel->resultModel()->result().bytes(), expected);
        QCOMPARE(m_server.command({"GET", "console:bin"}).bytes(), expected);
        const QAbstractItemModel *m = m_panel->resultView()->model();
        QCOMPARE(m->data(m->index(0, LuaResultModel::ValueColumn)).toString(), QStringLiteral("\"\\x00\\xff\""));
        m_panel->hexToggle()->click();
        QCOMPARE(m->data(m->index(0, LuaResultModel::ValueColumn)).toString(), QStringLiteral("00 ff"));
        m_panel->hexToggle()->click();
    }

    void tablesReorder()
    {
        m_panel->setKeys({"a", "b", "c"});
        m_panel->keysTable()->setCurrentCell(2, 0);
        QList<QToolButton *> buttons = m_panel->keysTable()->parentWidget()->findChildren<QToolButton *>();
        QToolButton *up = nullptr;
        QToolButton *minus = nullptr;
        QToolButton *add = nullptr;
        for (QToolButton *b : buttons) {
            if (b->text() == QStringLiteral("↑"))
                up = b;
            else if (b->text() == QStringLiteral("−"))
                minus = b;
            else if (b->text() == QStringLiteral("+"))
                add = b;
        }
        QVERIFY(up && minus && add);
        up->click();
        QCOMPARE(*m_panel->keys(), (QList<QByteArray>{"a", "c", "b"}));
        minus->click(); // the moved row stays selected
        QCOMPARE(*m_panel->keys(), (QList<QByteArray>{"a", "b"}));
        add->click();
        QCOMPARE(m_panel->keysTable()->rowCount(), 3);
        QCOMPARE(m_panel->keysTable()->verticalHeaderItem(2)->text(), QStringLiteral("KEYS[3]"));
    }

    void saveAndOpen()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("script.lua"));
        m_panel->editor()->setPlainText(QStringLiteral("-- ünïcode\nreturn 1\n"));
        QString error;
        QVERIFY2(m_panel->saveTo(path, &error), qPrintable(error));
        m_panel->editor()->clear();
        QVERIFY2(m_panel->openFrom(path, &error), qPrintable(error));
        QCOMPARE(m_panel->editor()->toPlainText(), QStringLiteral("-- ünïcode\nreturn 1\n"));
        QVERIFY(!m_panel->openFrom(dir.filePath(QStringLiteral("missing.lua")), &error));
        QVERIFY(error.contains(QLatin1String("missing.lua")));
    }

    void errorLineMarkedInEditor()
    {
        QVERIFY(m_server.command({"SET", "console:text", "abc"}).isString());
        m_panel->editor()->setPlainText(
            QStringLiteral("local key = KEYS[1]\n-- counts visits\nreturn redis.call('INCR', key)\n"));
        m_panel->setKeys({"console:text"});
        m_panel->setArgs({});
        QSignalSpy finished(m_panel.get(), &ConsolePanel::runFinished);
        m_panel->run();
        QVERIFY(finished.wait(kWaitMs));
        QCOMPARE(m_panel->editor()->errorLine(), 3);
        QVERIFY(m_panel->noticeText().startsWith(QLatin1String("Line 3: value is not an integer")));
        const QAbstractItemModel *m = m_panel->resultView()->model();
        QCOMPARE(m->data(m->index(0, LuaResultModel::TypeColumn)).toString(), QStringLiteral("error"));
        const QString path = qEnvironmentVariable("CONSOLE_ERROR_PNG");
        if (!path.isEmpty())
            QVERIFY(m_panel->grab().save(path));
    }

    // Last: the picture of a library script, highlighted where the build can, and its result.
    void screenshot()
    {
        QSignalSpy finished(m_panel.get(), &ConsolePanel::runFinished);
        QVERIFY(m_panel->loadScript(QStringLiteral("fixed_window_limit"), true));
        QVERIFY(finished.wait(kWaitMs));
        const QAbstractItemModel *m = m_panel->resultView()->model();
        QCOMPARE(m->rowCount(m->index(0, 0)), 3); // {allowed, count, ms until reset}
        QCOMPARE(m->data(m->index(0, LuaResultModel::ValueColumn, m->index(0, 0))).toString(), QStringLiteral("1"));
        m_panel->editor()->markErrorLine(0, {});
        QCoreApplication::processEvents();
        const QImage image = m_panel->grab().toImage();
        QVERIFY(distinctColours(image) > 20);
        const QString path = qEnvironmentVariable("CONSOLE_PNG");
        if (!path.isEmpty())
            QVERIFY(image.save(path));
    }
};

QTEST_MAIN(TestConsolePanel)
#include "tst_consolepanel.moc"
