// SPDX-License-Identifier: GPL-3.0-or-later
#include "consolepanel.h"
#include "luaeditor.h"
#include "luaresult.h"
#include "redisclient.h"
#include "scriptcall.h"
#include "testserver.h"

#include <QApplication>
#include <QFile>
#include <QListWidget>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTcpSocket>
#include <QTest>

#include <memory>

// The console against a real redis-server: EVALSHA with SCRIPT LOAD after a flush, errors
// mapped to script lines as this server words them, read-only runs (EVAL_RO, and the refusal
// for servers before 7.0), BUSY from another client's endless script ended by SCRIPT KILL,
// and a cancelled wait that drops the answer.
namespace {

constexpr int kWaitMs = 20000;

} // namespace

class TestConsole : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;
    std::unique_ptr<RedisClient> m_client;

    std::unique_ptr<ConsolePanel> makePanel(RedisClient *client, const QString &script,
                                            const QList<QByteArray> &keys = {}, const QList<QByteArray> &args = {})
    {
        auto panel = std::make_unique<ConsolePanel>(client);
        panel->editor()->setPlainText(script);
        panel->setKeys(keys);
        panel->setArgs(args);
        return panel;
    }

    // Runs and waits for the answer; false when none came.
    static bool runAndWait(ConsolePanel &panel)
    {
        QSignalSpy finished(&panel, &ConsolePanel::runFinished);
        panel.run();
        return finished.wait(kWaitMs);
    }

    qint64 calls(const char *command)
    {
        const QByteArray info = m_server.command({"INFO", "commandstats"}).bytes();
        const QRegularExpression re(QStringLiteral("cmdstat_%1:calls=(\\d+)").arg(QLatin1String(command)));
        const QRegularExpressionMatch m = re.match(QString::fromLatin1(info));
        return m.hasMatch() ? m.captured(1).toLongLong() : 0;
    }

    // Another client's script, sent on a raw socket: 'prefix' runs first, then it loops for
    // about 1.5 s by the server clock and returns 'result'.
    bool startOtherClientsScript(QTcpSocket &other, const QByteArray &prefix, const QByteArray &result)
    {
        other.connectToHost(QStringLiteral("127.0.0.1"), m_server.port());
        if (!other.waitForConnected(5000))
            return false;
        const QByteArray body = prefix
            + "local s = redis.call('TIME') "
              "while true do local n = redis.call('TIME') "
              "if (n[1] - s[1]) * 1000000 + (n[2] - s[2]) > 1500000 then break end end "
              "return "
            + result;
        other.write("*3\r\n$4\r\nEVAL\r\n$" + QByteArray::number(body.size()) + "\r\n" + body + "\r\n$1\r\n0\r\n");
        return other.waitForBytesWritten(5000);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QFile::remove(LuaHistory::defaultPath());
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        m_client = connectedClient(m_server.profile());
        QVERIFY(m_client);
        // A script counts as busy after 100 ms, so BUSY and SCRIPT KILL come quickly.
        const bool seven = m_client->facts().version >= QVersionNumber(7, 0);
        QVERIFY(
            m_server.command({"CONFIG", "SET", seven ? "busy-reply-threshold" : "lua-time-limit", "100"}).isString());
    }

    void cleanupTestCase() { QFile::remove(LuaHistory::defaultPath()); }

    void evalShaAfterScriptFlush()
    {
        const QString script = QStringLiteral("local n = redis.call('INCR', KEYS[1])\nreturn {KEYS[1], ARGV[1], n}");
        auto panel = makePanel(m_client.get(), script, {"console:counter"}, {"hello"});
        QVERIFY(runAndWait(*panel));
        LuaResultModel *model = panel->resultModel();
        const QModelIndex top = model->index(0, 0);
        QCOMPARE(model->rowCount(top), 3);
        QCOMPARE(model->data(model->index(2, LuaResultModel::ValueColumn, top)).toString(), QStringLiteral("1"));
        QVERIFY(panel->elapsedText().contains(QLatin1String("took")));

        QCOMPARE(m_server.command({"SCRIPT", "FLUSH"}).bytes(), QByteArray("OK"));
        const QByteArray sha = scriptcall::sha1Hex(script.toUtf8());
        QCOMPARE(m_server.command({"SCRIPT", "EXISTS", sha}).at(0).toInteger(), 0);
        const qint64 evalBefore = calls("eval");
        QVERIFY(runAndWait(*panel));
        QCOMPARE(model->data(model->index(2, LuaResultModel::ValueColumn, model->index(0, 0))).toString(),
                 QStringLiteral("2"));
        // Loaded again by SCRIPT LOAD, never sent whole with EVAL.
        QCOMPARE(m_server.command({"SCRIPT", "EXISTS", sha}).at(0).toInteger(), 1);
        QCOMPARE(calls("eval"), evalBefore);
        QVERIFY(calls("evalsha") >= 3);
        QCOMPARE(m_server.command({"GET", "console:counter"}).bytes(), QByteArray("2"));
    }

    void errorsMappedToLines_data()
    {
        QTest::addColumn<QString>("script");
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("words");
        QTest::newRow("syntax") << "local a = 1\nlocal b = = 2\nreturn a" << 2 << "unexpected symbol";
        QTest::newRow("redis.call") << "local a = 1\nlocal b = 2\n\nreturn redis.call('INCR', KEYS[1])" << 4
                                    << "not an integer";
        QTest::newRow("error()") << "local a = 1\nerror('boom')\nreturn a" << 2 << "boom";
        QTest::newRow("index nil") << "local t = nil\nlocal a = 1\nreturn t.field" << 3 << "attempt to index";
    }

    void errorsMappedToLines()
    {
        QFETCH(QString, script);
        QFETCH(int, line);
        QFETCH(QString, words);
        QVERIFY(m_server.command({"SET", "console:text", "not a number"}).isString());
        auto panel = makePanel(m_client.get(), script, {"console:text"});
        QVERIFY(runAndWait(*panel));
        QCOMPARE(panel->resultModel()->result().kind(), RedisValue::Kind::Error);
        QCOMPARE(panel->editor()->errorLine(), line);
        QVERIFY2(panel->editor()->errorMessage().contains(words), qPrintable(panel->editor()->errorMessage()));
        QVERIFY2(panel->noticeText().startsWith(QStringLiteral("Line %1:").arg(line)), qPrintable(panel->noticeText()));
        // The mark goes away with the next edit.
        panel->editor()->moveCursor(QTextCursor::End);
        panel->editor()->insertPlainText(QStringLiteral("\n"));
        QCOMPARE(panel->editor()->errorLine(), 0);
    }

    void readOnlyRunsWithEvalRo()
    {
        ConnectionProfile p = m_server.profile();
        p.readOnly = true;
        auto ro = connectedClient(p);
        QVERIFY(ro);
        QVERIFY(ro->facts().readOnly);
        QVERIFY(m_server.command({"DEL", "console:ro"}).isInteger());

        // A writing script: the server refuses the write inside EVAL_RO, and says where.
        auto panel = makePanel(ro.get(), QStringLiteral("local v = ARGV[1]\nredis.call('SET', KEYS[1], v)\nreturn 1"),
                               {"console:ro"}, {"x"});
        QVERIFY(runAndWait(*panel));
        QCOMPARE(panel->resultModel()->result().kind(), RedisValue::Kind::Error);
        QVERIFY2(panel->noticeText().contains(QLatin1String("Write commands are not allowed")),
                 qPrintable(panel->noticeText()));
        QCOMPARE(panel->editor()->errorLine(), 2);
        QCOMPARE(m_server.command({"EXISTS", "console:ro"}).toInteger(), 0);

        // A reading script runs (EVALSHA_RO, EVAL_RO on NOSCRIPT: SCRIPT LOAD is not allowed here).
        QVERIFY(m_server.command({"SET", "console:ro", "kept"}).isString());
        panel->editor()->setPlainText(QStringLiteral("return redis.call('GET', KEYS[1])"));
        const qint64 evalRo = calls("eval_ro");
        QVERIFY(runAndWait(*panel));
        QCOMPARE(panel->resultModel()->result().bytes(), QByteArray("kept"));
        QCOMPARE(calls("eval_ro"), evalRo + 1);
        QVERIFY(calls("evalsha_ro") >= 2);
    }

    void readOnlyRefusedOnOldServer()
    {
        ConnectionProfile p = m_server.profile();
        p.readOnly = true;
        auto ro = connectedClient(p);
        QVERIFY(ro);
        auto panel = makePanel(ro.get(), QStringLiteral("return 1"));
        panel->setServerVersionForTesting(QVersionNumber(6, 2, 14));
        QVERIFY(!ConsolePanel::readOnlyRefusal(QVersionNumber(6, 2, 14)).isEmpty());
        QVERIFY(ConsolePanel::readOnlyRefusal(QVersionNumber(7, 0, 0)).isEmpty());
        const qint64 before = calls("evalsha_ro") + calls("eval_ro") + calls("eval") + calls("evalsha");
        QSignalSpy finished(panel.get(), &ConsolePanel::runFinished);
        panel->run();
        QVERIFY(!panel->isRunning());
        QVERIFY2(panel->noticeText().contains(QLatin1String("6.2.14"))
                     && panel->noticeText().contains(QLatin1String("7.0")),
                 qPrintable(panel->noticeText()));
        // Nothing went out: a PING through the same connection comes back before any script call could.
        QVERIFY(waitForReply(*ro, {{"PING"}}).ok());
        QCOMPARE(finished.count(), 0);
        QCOMPARE(calls("evalsha_ro") + calls("eval_ro") + calls("eval") + calls("evalsha"), before);
        // A read-write connection to the same old server is not refused.
        auto rw = makePanel(m_client.get(), QStringLiteral("return 1"));
        rw->setServerVersionForTesting(QVersionNumber(6, 2, 14));
        QVERIFY(runAndWait(*rw));
        QCOMPARE(rw->resultModel()->result().toInteger(), 1);
    }

    void badEscapeSendsNothing()
    {
        auto panel = makePanel(m_client.get(), QStringLiteral("return ARGV[1]"), {}, {"ok"});
        auto *item = new QTableWidgetItem(QStringLiteral("\\xZZ"));
        panel->argsTable()->setItem(0, 0, item);
        QSignalSpy finished(panel.get(), &ConsolePanel::runFinished);
        panel->run();
        QVERIFY(!panel->isRunning());
        QVERIFY2(panel->noticeText().startsWith(QLatin1String("Not sent: ARGV[1]")), qPrintable(panel->noticeText()));
        QVERIFY(waitForReply(*m_client, {{"PING"}}).ok());
        QCOMPARE(finished.count(), 0);
    }

    void clusterModeChecksSlots()
    {
        auto panel = makePanel(m_client.get(), QStringLiteral("return 1"),
                               {"{user1000}.following", "foo", "{user1000}.followers"});
        panel->setClusterMode(true);
        QSignalSpy finished(panel.get(), &ConsolePanel::runFinished);
        panel->run();
        QVERIFY(!panel->isRunning());
        QVERIFY2(panel->noticeText().contains(QLatin1String("foo"))
                     && !panel->noticeText().contains(QLatin1String("followers")),
                 qPrintable(panel->noticeText()));
        panel->setKeys({"{user1000}.following", "{user1000}.followers"});
        QVERIFY(runAndWait(*panel));
        QCOMPARE(panel->resultModel()->result().toInteger(), 1);
    }

    // Another client's endless script: our run gets BUSY, the panel offers SCRIPT KILL, and
    // the kill (on a connection of its own) ends the script.
    void busyFromAnotherClientAndScriptKill()
    {
        QTcpSocket other;
        other.connectToHost(QStringLiteral("127.0.0.1"), m_server.port());
        QVERIFY(other.waitForConnected(5000));
        other.write("*3\r\n$4\r\nEVAL\r\n$17\r\nwhile true do end\r\n$1\r\n0\r\n");
        QVERIFY(other.waitForBytesWritten(5000));

        auto panel = makePanel(m_client.get(), QStringLiteral("return 1"));
        panel->show();
        QTRY_COMPARE_WITH_TIMEOUT(m_server.command({"PING"}).errorCode(), QByteArray("BUSY"), kWaitMs);
        QVERIFY(runAndWait(*panel));
        QVERIFY2(panel->noticeText().contains(QLatin1String("BUSY")), qPrintable(panel->noticeText()));
        QCOMPARE(panel->resultModel()->result().errorCode(), QByteArray("BUSY"));
        QVERIFY(panel->noticeText().contains(QLatin1String("SHUTDOWN NOSAVE")));
        QVERIFY(panel->killButton()->isVisible());

        QSignalSpy killed(panel.get(), &ConsolePanel::killFinished);
        panel->killButton()->click();
        QVERIFY(killed.wait(kWaitMs));
        QCOMPARE(killed.first().first().value<RedisValue>().bytes(), QByteArray("OK"));
        QVERIFY(panel->noticeText().contains(QLatin1String("stopped")));
        QTRY_VERIFY_WITH_TIMEOUT(other.bytesAvailable() > 0 || other.waitForReadyRead(100), kWaitMs);
        QVERIFY(other.readAll().contains("killed"));

        QVERIFY(runAndWait(*panel));
        QCOMPARE(panel->resultModel()->result().toInteger(), 1);
    }

    // Once a script has written, SCRIPT KILL cannot stop it; the panel explains the only way out.
    void unkillableExplained()
    {
        QTcpSocket other;
        // Writes, then loops for about 1.5 s, then ends by itself.
        QVERIFY(startOtherClientsScript(other, "redis.call('SET', 'console:written', '1') ", "1"));
        auto panel = makePanel(m_client.get(), QStringLiteral("return 1"));
        QTRY_COMPARE_WITH_TIMEOUT(m_server.command({"PING"}).errorCode(), QByteArray("BUSY"), kWaitMs);
        QVERIFY(runAndWait(*panel));
        QCOMPARE(panel->resultModel()->result().errorCode(), QByteArray("BUSY"));
        QSignalSpy killed(panel.get(), &ConsolePanel::killFinished);
        panel->killScript();
        QVERIFY(killed.wait(kWaitMs));
        QCOMPARE(killed.first().first().value<RedisValue>().errorCode(), QByteArray("UNKILLABLE"));
        QVERIFY(panel->noticeText().contains(QLatin1String("SHUTDOWN NOSAVE")));
        QVERIFY(panel->noticeText().contains(QLatin1String("never sends SHUTDOWN")));
        // It ends by itself; the server answers again.
        QTRY_VERIFY_WITH_TIMEOUT(other.bytesAvailable() > 0 || other.waitForReadyRead(100), kWaitMs);
        QCOMPARE(other.readAll(), QByteArray(":1\r\n"));
    }

    // Our own endless script: cancel stops the wait (the answer is dropped when it comes), the
    // kill goes out on another connection even though ours is blocked behind the script.
    void cancelOwnScriptThenKill()
    {
        auto panel = makePanel(m_client.get(), QStringLiteral("while true do end"));
        QSignalSpy finished(panel.get(), &ConsolePanel::runFinished);
        panel->run();
        QVERIFY(panel->isRunning());
        QVERIFY(panel->killButton()->isVisibleTo(panel.get()));
        // Cancel once the script runs (cancelled earlier, its NOSCRIPT retry would never be sent).
        QTRY_COMPARE_WITH_TIMEOUT(m_server.command({"PING"}).errorCode(), QByteArray("BUSY"), kWaitMs);
        panel->cancel();
        QVERIFY(!panel->isRunning());
        QVERIFY(panel->noticeText().contains(QLatin1String("still running on the server")));
        QSignalSpy killed(panel.get(), &ConsolePanel::killFinished);
        panel->killScript();
        QVERIFY(killed.wait(kWaitMs));
        QCOMPARE(killed.last().first().value<RedisValue>().bytes(), QByteArray("OK"));
        // Our connection gets the "killed" error for the script, and then a PING answer; the
        // error was for a cancelled wait and must not reach the panel.
        QVERIFY(waitForReply(*m_client, {{"PING"}}).ok());
        QCOMPARE(finished.count(), 0);
        QVERIFY(panel->resultModel()->isEmpty());
    }

    // A read-only connection stops the script it is still waiting for: it ran with EVAL_RO, so
    // it cannot have written. SCRIPT KILL reaches the server once, through the policy.
    void readOnlyKillsOwnRunningScript()
    {
        ConnectionProfile p = m_server.profile();
        p.readOnly = true;
        auto ro = connectedClient(p);
        QVERIFY(ro && ro->facts().readOnly);
        const qint64 killsBefore = calls("script\\|kill");
        auto panel = makePanel(ro.get(), QStringLiteral("while true do end"));
        QSignalSpy finished(panel.get(), &ConsolePanel::runFinished);
        panel->run();
        QVERIFY(panel->isRunning());
        QVERIFY(panel->killButton()->isVisibleTo(panel.get()));
        QVERIFY2(panel->noticeText().contains(QLatin1String("cannot have written")), qPrintable(panel->noticeText()));
        QTRY_COMPARE_WITH_TIMEOUT(m_server.command({"PING"}).errorCode(), QByteArray("BUSY"), kWaitMs);
        QSignalSpy killed(panel.get(), &ConsolePanel::killFinished);
        panel->killButton()->click();
        QVERIFY(killed.wait(kWaitMs));
        QCOMPARE(killed.first().first().value<RedisValue>().bytes(), QByteArray("OK"));
        // The script's own answer follows: killed by the user.
        QVERIFY(finished.count() == 1 || finished.wait(kWaitMs));
        QVERIFY2(panel->resultModel()->result().isError(),
                 qPrintable(panel->resultModel()->result().toDisplayString()));
        QVERIFY(m_server.command({"PING"}).isString());
        QCOMPARE(calls("script\\|kill"), killsBefore + 1);
        QCOMPARE(calls("eval_ro") + calls("evalsha_ro") > 0, true);
    }

    // Once the console stopped waiting, the running script may be anyone's: a read-only
    // connection neither offers SCRIPT KILL nor sends it when asked, and another client's
    // BUSY script is explained, not killed.
    void readOnlyDoesNotKillOthersScripts()
    {
        ConnectionProfile p = m_server.profile();
        p.readOnly = true;
        auto ro = connectedClient(p);
        QVERIFY(ro && ro->facts().readOnly);
        const qint64 killsBefore = calls("script\\|kill");

        QTcpSocket other;
        QVERIFY(startOtherClientsScript(other, {}, "7"));
        auto panel = makePanel(ro.get(), QStringLiteral("return 1"));
        panel->show();
        QTRY_COMPARE_WITH_TIMEOUT(m_server.command({"PING"}).errorCode(), QByteArray("BUSY"), kWaitMs);
        QVERIFY(runAndWait(*panel));
        QCOMPARE(panel->resultModel()->result().errorCode(), QByteArray("BUSY"));
        QVERIFY2(panel->noticeText().contains(QLatin1String("read-only connection does not stop it")),
                 qPrintable(panel->noticeText()));
        QVERIFY(!panel->killButton()->isVisible());

        QSignalSpy killed(panel.get(), &ConsolePanel::killFinished);
        panel->killScript(); // as if asked anyway
        QVERIFY(killed.wait(kWaitMs));
        QVERIFY(!killed.first().first().value<RedisValue>().isValid());
        QVERIFY2(panel->noticeText().contains(QLatin1String("SCRIPT KILL not sent")), qPrintable(panel->noticeText()));
        QTRY_VERIFY_WITH_TIMEOUT(other.bytesAvailable() > 0 || other.waitForReadyRead(100), kWaitMs);
        QCOMPARE(other.readAll(), QByteArray(":7\r\n")); // it ran to its end
        QCOMPARE(calls("script\\|kill"), killsBefore);

        // Cancelled, the console no longer knows whose script runs: no offer either.
        auto own = makePanel(ro.get(), QStringLiteral("while true do end"));
        own->show();
        own->run();
        QTRY_COMPARE_WITH_TIMEOUT(m_server.command({"PING"}).errorCode(), QByteArray("BUSY"), kWaitMs);
        own->cancel();
        QVERIFY(!own->killButton()->isVisible());
        QSignalSpy ownKilled(own.get(), &ConsolePanel::killFinished);
        own->killScript();
        QVERIFY(ownKilled.wait(kWaitMs));
        // Clean up from the test's own (writable) connection: the one SCRIPT KILL counted.
        QCOMPARE(m_server.command({"SCRIPT", "KILL"}).bytes(), QByteArray("OK"));
        QTRY_VERIFY_WITH_TIMEOUT(m_server.command({"PING"}).isString(), kWaitMs);
        QCOMPARE(calls("script\\|kill"), killsBefore + 1);
    }

    void cancelDropsQuickReply()
    {
        auto panel = makePanel(m_client.get(), QStringLiteral("return 42"));
        QSignalSpy finished(panel.get(), &ConsolePanel::runFinished);
        panel->run();
        panel->cancel();
        QVERIFY(waitForReply(*m_client, {{"PING"}}).ok());
        QCoreApplication::processEvents();
        QCOMPARE(finished.count(), 0);
        QVERIFY(panel->resultModel()->isEmpty());
    }

    void historyKeptAcrossPanels()
    {
        {
            auto panel
                = makePanel(m_client.get(), QStringLiteral("return ARGV[1]"), {"k"}, {QByteArray("\x00\xff", 2)});
            QVERIFY(runAndWait(*panel));
        }
        LuaHistory stored;
        QVERIFY(stored.load());
        QVERIFY(!stored.runs().isEmpty());
        QCOMPARE(stored.runs().first().script, QStringLiteral("return ARGV[1]"));
        QCOMPARE(stored.runs().first().args, (QList<QByteArray>{QByteArray("\x00\xff", 2)}));
        auto fresh = makePanel(m_client.get(), QString());
        QCOMPARE(fresh->historyList()->count(), int(stored.runs().size()));
        fresh->restoreRun(0);
        QCOMPARE(fresh->editor()->toPlainText(), QStringLiteral("return ARGV[1]"));
        QCOMPARE(*fresh->args(), (QList<QByteArray>{QByteArray("\x00\xff", 2)}));
        QCOMPARE(*fresh->keys(), (QList<QByteArray>{"k"}));
    }
};

QTEST_MAIN(TestConsole)
#include "tst_console.moc"
