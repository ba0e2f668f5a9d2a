// SPDX-License-Identifier: GPL-3.0-or-later
// Read-only proven on the server, not asserted: the whole window on the demo's data, every
// panel shown and every action pressed on a --read-only connection, then INFO commandstats
// says no writing command ran and DEBUG DIGEST says the data is byte for byte the same. And
// the built-in list of reads (for users who may not run COMMAND) holds every command the
// panels send, read from the same INFO commandstats after a writable window did its reading.
#include "bulkdelete.h"
#include "clientspanel.h"
#include "commandpolicy.h"
#include "confirmations.h"
#include "consolepanel.h"
#include "demo.h"
#include "geopanel.h"
#include "keybrowser.h"
#include "leaderboardpanel.h"
#include "locks.h"
#include "lockspanel.h"
#include "luaeditor.h"
#include "mainwindow.h"
#include "memorypanel.h"
#include "monitorcapture.h"
#include "panel.h"
#include "panelregistry.h"
#include "profilerpanel.h"
#include "pubsublistener.h"
#include "pubsubpanel.h"
#include "queuespanel.h"
#include "redisclient.h"
#include "sessionspanel.h"
#include "settings.h"
#include "streamactions.h"
#include "streamspanel.h"
#include "testserver.h"
#include "valueview.h"

#include <QComboBox>
#include <QHash>
#include <QItemSelectionModel>
#include <QListWidget>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>

#include <memory>

namespace {

constexpr int kWaitMs = 30000;

struct CommandCount
{
    QByteArray name; // as commandstats names it: "get", "config|get"
    qint64 calls = 0;
};

} // namespace

class TestReadOnly : public QObject
{
    Q_OBJECT

private:
    Demo m_demo;
    std::unique_ptr<RedisClient> m_admin; // the test's own writable connection
    Settings *m_settings = nullptr;

    RedisValue admin(const QList<QByteArray> &command) { return waitForReply(*m_admin, {command}).value(); }

    QList<CommandCount> commandStats()
    {
        QList<CommandCount> out;
        const QByteArray info = admin({"INFO", "commandstats"}).bytes();
        static const QRegularExpression line(QStringLiteral("^cmdstat_([^:]+):calls=(\\d+)"),
                                             QRegularExpression::MultilineOption);
        auto it = line.globalMatch(QString::fromLatin1(info));
        while (it.hasNext()) {
            const QRegularExpressionMatch m = it.next();
            out.append({m.captured(1).toLatin1(), m.captured(2).toLongLong()});
        }
        return out;
    }

    // The server's own flags for a command or subcommand, from COMMAND INFO.
    QList<QByteArray> serverFlags(const QByteArray &name)
    {
        const QList<QByteArray> parts = name.split('|');
        const RedisValue info = admin({"COMMAND", "INFO", parts.first()});
        QList<QByteArray> flags;
        if (!info.isArray() || info.size() == 0)
            return flags;
        RedisValue entry = info.at(0);
        if (parts.size() > 1) {
            for (const RedisValue &sub : entry.at(9).elements()) {
                if (sub.at(0).bytes().toLower() == name)
                    entry = sub;
            }
        }
        for (const RedisValue &f : entry.at(2).elements())
            flags.append(f.bytes());
        return flags;
    }

    std::unique_ptr<MainWindow> openWindow(bool readOnly)
    {
        ConnectionProfile p = m_demo.profile();
        p.readOnly = readOnly;
        auto w = std::make_unique<MainWindow>(p, m_settings);
        w->resize(1400, 860);
        w->show();
        w->start();
        return w;
    }

    // Each key's DEBUG DIGEST-VALUE, to name what changed when the whole digest differs.
    QHash<QByteArray, QByteArray> valueDigests()
    {
        QHash<QByteArray, QByteArray> out;
        for (const QByteArray &key : keysMatching("*"))
            out.insert(key, admin({"DEBUG", "DIGEST-VALUE", key}).at(0).bytes());
        return out;
    }

    QList<QByteArray> keysMatching(const QByteArray &match)
    {
        QList<QByteArray> keys;
        QByteArray cursor = "0";
        do {
            const RedisValue r = admin({"SCAN", cursor, "MATCH", match, "COUNT", "1000"});
            cursor = r.at(0).bytes();
            for (const RedisValue &k : r.at(1).elements())
                keys.append(k.bytes());
        } while (cursor != "0");
        return keys;
    }

    // Shows every panel of the registry and does what a user does there: open a key of each
    // type, run the memory analysis, search the geo set, page and compare boards, open pending
    // entries, a session's contents. With 'actions', also presses every action there is.
    void driveEveryPanel(MainWindow &w, bool actions)
    {
        QSignalSpy scanned(w.keyBrowser(), &KeyBrowser::scanCompleted);
        QVERIFY(scanned.wait(kWaitMs));
        for (const QString &name : panelregistry::names()) {
            QVERIFY2(w.showPanel(name), qPrintable(name));
            Panel *panel = w.panel(name);
            if (!panel)
                continue; // keys and value
            if (name == QLatin1String("leaderboard") || name == QLatin1String("geo")) {
                // A user picks a board or a set once the scan's sorted sets are told apart.
                QTRY_VERIFY_WITH_TIMEOUT(w.leaderboardPanel()->boardCombo()->count() > 0, kWaitMs);
                if (name == QLatin1String("leaderboard"))
                    w.leaderboardPanel()->openBusiest();
                else
                    w.geoPanel()->openLargest();
            }
            if (name == QLatin1String("memory")) {
                w.memoryPanel()->startAnalysis();
                QTRY_VERIFY_WITH_TIMEOUT(!w.memoryPanel()->isRunning(), kWaitMs);
            }
            if (name == QLatin1String("console") && actions) {
                ConsolePanel *console = w.consolePanel();
                QSignalSpy finished(console, &ConsolePanel::runFinished);
                console->editor()->setPlainText(QStringLiteral("redis.call('SET', KEYS[1], 'x') return 1"));
                console->setKeys({"readonly:console"});
                console->setArgs({});
                console->run();
                QVERIFY(finished.wait(kWaitMs));
                continue; // the console has content once it ran
            }
            if (name == QLatin1String("console"))
                continue; // a writable console would write with EVALSHA: the read-only run covers it
            QTRY_VERIFY2_WITH_TIMEOUT(panel->hasContent(), qPrintable(name), kWaitMs);
        }

        // Leaderboards: the busiest board, a member's rank, a union of the boards.
        LeaderboardPanel *boards = w.leaderboardPanel();
        w.showPanel(QStringLiteral("leaderboard"));
        QTRY_VERIFY_WITH_TIMEOUT(boards->pageView()->model()->rowCount() > 0, kWaitMs);
        const QByteArray member
            = boards->pageView()->model()->index(0, 1).data(Qt::UserRole + 1).toByteArray(); // MemberRole
        boards->findMember(member.isEmpty() ? QByteArray("player:1") : member);
        for (int i = 0; i < boards->compareList()->count(); ++i)
            boards->compareList()->item(i)->setCheckState(Qt::Checked);
        boards->compareChecked();

        // Geo: the largest set, a search around its centre.
        GeoPanel *geo = w.geoPanel();
        w.showPanel(QStringLiteral("geo"));
        QTRY_VERIFY_WITH_TIMEOUT(!geo->headerText().isEmpty(), kWaitMs);
        geo->runSearch();

        // Queues, sessions' contents.
        w.showPanel(QStringLiteral("queues"));
        w.queuesPanel()->openLongest();
        SessionsPanel *sessions = w.sessionsPanel();
        w.showPanel(QStringLiteral("sessions"));
        QTRY_VERIFY_WITH_TIMEOUT(sessions->sessionsView()->model()->rowCount() > 0, kWaitMs);
        sessions->sessionsView()->selectRow(0);
        sessions->showSelectedContents();
        QTRY_VERIFY_WITH_TIMEOUT(sessions->contentsModel()->rowCount() > 0, kWaitMs);

        // Pub/sub: a tail listening to channels and a pattern, and the key events; a test publish
        // and cutting a client are refused before they are asked about.
        PubSubPanel *pubsub = w.pubSubPanel();
        w.showPanel(QStringLiteral("pubsub"));
        QSignalSpy subscribed(pubsub->listener(), &PubSubListener::stateChanged);
        pubsub->listen(QStringLiteral("orders alerts.*"));
        QVERIFY(subscribed.wait(kWaitMs));
        QVERIFY2(subscribed.last().at(0).toString().startsWith(QLatin1String("Subscribed")),
                 qPrintable(subscribed.last().at(0).toString()));
        pubsub->tailKeyEvents(QStringLiteral("*"));
        QVERIFY(subscribed.wait(kWaitMs));
        QVERIFY2(subscribed.last().at(0).toString().startsWith(QLatin1String("Subscribed")),
                 qPrintable(subscribed.last().at(0).toString()));
        if (actions) {
            ConfirmationAnswerer answer(ConfirmationAnswerer::Accept);
            QVERIFY(!pubsub->publishTestMessage("orders", "x"));
            // Another application's connection, selected and cut: refused, and it lives on.
            RawConnection victim(m_demo.profile().port);
            QCOMPARE(victim.command({"CLIENT", "SETNAME", "victim"}), RedisValue::status("OK"));
            ClientsPanel *clients = w.clientsPanel();
            w.showPanel(QStringLiteral("clients"));
            QTRY_VERIFY_WITH_TIMEOUT(
                clients->groupsView()
                        ->model()
                        ->match(clients->groupsView()->model()->index(0, 0), Qt::DisplayRole, QStringLiteral("victim"))
                        .size()
                    == 1,
                kWaitMs);
            clients->selectGroup("victim");
            clients->killSelected();
            QVERIFY2(clients->resultText().contains(QLatin1String("Read-only"), Qt::CaseInsensitive),
                     qPrintable(clients->resultText()));
            QCOMPARE(answer.count(), 0);
            QCOMPARE(victim.command({"PING"}), RedisValue::status("PONG"));
        }
        pubsub->stopListening();

        // The profiler: a bounded MONITOR capture (it watches; the capture's summary reads the
        // families' patterns), and hot keys as far as the policy allows.
        ProfilerPanel *profiler = w.profilerPanel();
        w.showPanel(QStringLiteral("profiler"));
        QSignalSpy captured(profiler->capture(), &MonitorCapture::finished);
        profiler->capture()->setLimits(500, 1500);
        profiler->capture()->start();
        QVERIFY(captured.wait(kWaitMs));
        const MonitorCapture::End end = profiler->capture()->end();
        QVERIFY2(end == MonitorCapture::End::LineBound || end == MonitorCapture::End::TimeBound,
                 qPrintable(profiler->capture()->errorText()));
        profiler->findHotKeys();

        // The value panel on a key of every type.
        const QList<QByteArray> someKeys
            = {keysMatching("session:*").value(0), keysMatching("lb:*").value(0), keysMatching("*stream*").value(0),
               keysMatching("q:*").value(0), keysMatching("app:product:*").value(0)};
        for (const QByteArray &key : someKeys) {
            if (key.isEmpty())
                continue;
            w.valueView()->openKey(key);
            QTRY_VERIFY_WITH_TIMEOUT(!w.valueView()->reader()->isLoading(), kWaitMs);
        }

        // Streams: the oldest pending entries of a group.
        StreamsPanel *streams = w.streamsPanel();
        w.showPanel(QStringLiteral("streams"));
        const auto allLoaded = [streams] {
            const auto *model = streams->streamsModel();
            for (int i = 0; i < model->rowCount(); ++i) {
                if (!model->rows().at(i).loaded)
                    return false;
            }
            return model->rowCount() > 0;
        };
        QTRY_VERIFY_WITH_TIMEOUT(allLoaded(), kWaitMs);
        // The oldest pending entry sits in the stream that is already open: the panel must
        // switch to its group (it did not, before).
        streams->openOldestPending();
        QTRY_VERIFY2_WITH_TIMEOUT(streams->pendingModel()->rowCount() > 0, qPrintable(streams->statusText()), kWaitMs);
        streams->pendingView()->selectAll();

        if (!actions)
            return;

        // Every action button's path, with the confirmations answered yes: on a read-only
        // connection each must end refused, with nothing sent.
        streams->setConfirmations(false);
        QSignalSpy streamResults(streams->actions(), &StreamActions::finished);
        streams->claimSelected("readonly-test");
        streams->autoClaim("readonly-test", 0);
        streams->ackSelected();
        streams->deadLetterSelected({});
        streams->trimStream(1);
        QTRY_COMPARE_WITH_TIMEOUT(streamResults.size(), 5, kWaitMs);
        for (const QList<QVariant> &args : std::as_const(streamResults)) {
            const auto result = args.first().value<StreamActionResult>();
            QVERIFY2(!result.ok, qPrintable(result.action + QLatin1String(": ") + result.message));
        }

        LocksPanel *locks = w.locksPanel();
        w.showPanel(QStringLiteral("locks"));
        locks->setConfirmations(false);
        const QList<QByteArray> lockKeys = keysMatching("lock:*");
        QVERIFY(!lockKeys.isEmpty());
        const QByteArray token = admin({"GET", lockKeys.first()}).bytes();
        QSignalSpy lockResults(locks->actions(), &LockActions::finished);
        locks->selectKey(lockKeys.first());
        locks->releaseSelected(QString::fromLatin1(token));
        locks->extendSelected(QString::fromLatin1(token), 600000);
        QTRY_COMPARE_WITH_TIMEOUT(lockResults.size(), 2, kWaitMs);

        QSignalSpy failed(&w, &MainWindow::operationFailed);
        w.deleteKey(lockKeys.first(), false);
        w.renameKey(lockKeys.first(), lockKeys.first() + ":renamed", false);
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 2, kWaitMs);

        // The bulk delete counts (a read) and refuses to delete; Empty database opens nothing.
        QSignalSpy bulkDone(w.bulkDelete(), &BulkDelete::finished);
        QVERIFY(w.bulkDelete()->count("lock:*"));
        QVERIFY(bulkDone.wait(kWaitMs));
        QCOMPARE(w.bulkDelete()->report().matched, lockKeys.size());
        QVERIFY(!w.bulkDelete()->remove("lock:*"));
        w.openEmptyDatabase();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QString error;
        QVERIFY2(m_demo.seedBlocking(&error, 60000), qPrintable(error));
        m_admin = connectedClient(m_demo.profile());
        QVERIFY(m_admin);
        m_settings = new Settings(this);
        // Keys that expire on their own would change the digest without any write: the test
        // keeps every key, so that only a write could change the data.
        for (const QByteArray &key : keysMatching("*")) {
            if (admin({"PTTL", key}).toInteger() >= 0)
                admin({"PERSIST", key});
        }
        // Entries for the slowlog panel.
        admin({"CONFIG", "SET", "slowlog-log-slower-than", "0"});
    }

    // Everything on a read-only connection: no writing command reaches the server and the data
    // stays byte for byte the same.
    void readOnlyWindowChangesNothing()
    {
        const QByteArray digestBefore = admin({"DEBUG", "DIGEST"}).bytes();
        const QHash<QByteArray, QByteArray> valuesBefore = valueDigests();
        const qint64 keysBefore = admin({"DBSIZE"}).toInteger();
        QVERIFY(keysBefore > 1000);
        QVERIFY(admin({"CONFIG", "RESETSTAT"}).isString());

        {
            auto w = openWindow(true);
            driveEveryPanel(*w, true);
            if (QTest::currentTestFailed())
                return;
        }

        // Every command that reached the server: none that the server flags as writing, and
        // none of the unflagged ones that change data or other clients.
        const QSet<QByteArray> unflaggedChanges{
            "eval",         "evalsha",        "fcall",         "publish",         "spublish",       "script|load",
            "script|flush", "script|kill",    "function|load", "function|delete", "function|flush", "function|kill",
            "config|set",   "config|rewrite", "client|kill",   "client|pause",    "slowlog|reset",  "latency|reset",
            "acl|setuser",  "debug",          "shutdown",      "flushall",        "flushdb",        "swapdb"};
        const QList<CommandCount> stats = commandStats();
        QVERIFY(stats.size() > 15); // the panels really read
        QStringList sent;
        for (const CommandCount &c : stats) {
            // A write the server refused (the console's SET inside EVAL_RO) is listed with
            // calls=0 and rejected_calls=1: it never ran.
            if (c.calls == 0)
                continue;
            sent << QString::fromLatin1(c.name);
            if (c.name == "config|resetstat" || c.name == "info")
                continue; // the test's own
            QVERIFY2(!unflaggedChanges.contains(c.name), c.name.constData());
            QVERIFY2(!serverFlags(c.name).contains("write"), c.name.constData());
        }
        qInfo("read-only window sent: %s", qPrintable(sent.join(QLatin1Char(' '))));
        QVERIFY2(sent.contains(QLatin1String("eval_ro")) || sent.contains(QLatin1String("evalsha_ro")),
                 "the console's run did not reach the server");
        QCOMPARE(admin({"DBSIZE"}).toInteger(), keysBefore);
        const QByteArray digestAfter = admin({"DEBUG", "DIGEST"}).bytes();
        if (digestAfter != digestBefore) {
            const QHash<QByteArray, QByteArray> valuesAfter = valueDigests();
            QStringList changed;
            for (auto it = valuesBefore.cbegin(); it != valuesBefore.cend(); ++it) {
                if (valuesAfter.value(it.key()) != it.value())
                    changed << QString::fromLatin1(it.key());
            }
            QFAIL(qPrintable(QLatin1String("the data changed: ") + changed.join(QLatin1String(", "))));
        }
    }

    // The built-in read list is complete: a writable window reads with nothing that a
    // read-only connection without COMMAND would refuse.
    void builtinListCoversEveryRead()
    {
        QVERIFY(admin({"CONFIG", "RESETSTAT"}).isString());
        {
            auto w = openWindow(false);
            driveEveryPanel(*w, false);
            if (QTest::currentTestFailed())
                return;
        }
        const CommandPolicy builtin = CommandPolicy::builtinReadOnly();
        QStringList missing;
        int checked = 0;
        for (const CommandCount &c : commandStats()) {
            if (c.calls == 0)
                continue;
            if (c.name == "config|resetstat" || c.name == "debug" || c.name == "persist")
                continue; // the test's own
            QList<QByteArray> argv = c.name.split('|');
            argv.append("x");
            ++checked;
            if (!builtin.refusal(argv).isEmpty())
                missing << QString::fromLatin1(c.name);
        }
        QVERIFY(checked > 15);
        QVERIFY2(missing.isEmpty(),
                 qPrintable(QLatin1String("not on the built-in list: ") + missing.join(QLatin1String(", "))));
    }
};

QTEST_MAIN(TestReadOnly)
#include "tst_readonly.moc"
