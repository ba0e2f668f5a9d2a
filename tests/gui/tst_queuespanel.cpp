// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandstats.h"
#include "jobbrowser.h"
#include "jobpagereader.h"
#include "qcp.h"
#include "queuespanel.h"
#include "redisclient.h"
#include "ruleseditor.h"
#include "testserver.h"
#include "theme.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDateTime>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

// The queues panel on a small world like the demo's: a mail queue with a dead and a live
// worker, a video queue, a delayed-job set in ms, and things that are not queues. Tables fill,
// the histogram has data and labelled axes, the rules tab edits and saves, screenshots render.
namespace {
constexpr int kWaitMs = 30000;
constexpr qint64 kMinute = 60000;

QByteArray num(qint64 v)
{
    return QByteArray::number(v);
}

QByteArray mail(int id, qint64 at)
{
    static const char *const templates[] = {"welcome", "password_reset", "receipt", "digest"};
    return R"({"id":"em-)" + num(id) + R"(","template":")" + QByteArray(templates[id % 4]) + R"(","user_id":)"
        + num(1000 + id % 50) + R"(,"enqueued_at":)" + num(at) + '}';
}
} // namespace

class TstQueuesPanel : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;
    QList<QByteArray> m_lists{"q:email", "q:email:proc:worker-1", "q:email:proc:worker-2", "jobs:video",
                              "recent:searches"};
    QList<QByteArray> m_zsets{"sched:due", "lb:daily"};

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        QList<QList<QByteArray>> cmds;
        QList<QByteArray> email{"LPUSH", "q:email"};
        for (int i = 0; i < 120; ++i)
            email << mail(i, now - 10 * kMinute + i * 5000);
        cmds.append(email);
        cmds.append({"LPUSH", "q:email:proc:worker-1", mail(200, now - 47 * kMinute), mail(201, now - 46 * kMinute)});
        cmds.append({"LPUSH", "q:email:proc:worker-2", mail(202, now - 3000)});
        cmds.append({"LPUSH", "jobs:video", R"({"video":81,"ts":)" + num(now / 1000 - 30) + "}",
                     R"({"video":82,"ts":)" + num(now / 1000 - 5) + "}"});
        cmds.append({"LPUSH", "recent:searches", "shoes", "socks"});
        QList<QByteArray> due{"ZADD", "sched:due"};
        for (int i = 0; i < 300; ++i) {
            const qint64 at = i < 40 ? now - (1 + (i * 37) % 180) * kMinute : now + (1 + (i * 53) % 120) * kMinute / 2;
            due << num(at) << R"({"id":)" + num(i) + R"(,"type":"send_reminder"})";
        }
        cmds.append(due);
        cmds.append({"ZADD", "lb:daily", "100", "alice", "2500", "bob"});
        for (const RedisValue &v : m_server.pipeline(cmds))
            QVERIFY2(!v.isError(), qPrintable(v.toDisplayString()));
    }

    void fillsTablesAndChart()
    {
        RedisClient client(m_server.profile());
        client.connectToServer();
        QVERIFY(waitForReady(client));
        QueuesPanel panel(&client);
        QAbstractItemModelTester t1(panel.queuesModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(panel.delayedModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t3(panel.dueView()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.resize(1200, 760);
        panel.show();
        QSignalSpy ready(&panel, &Panel::contentReady);
        QVERIFY(!panel.hasContent());
        panel.setKeys(m_lists, m_zsets);
        panel.openLongest();
        QVERIFY(ready.wait(kWaitMs));
        QVERIFY(panel.hasContent());
        QCOMPARE(panel.queuesView()->model()->rowCount(), 2);
        QCOMPARE(panel.delayedView()->model()->rowCount(), 1);
        // The sidebar's badge: the 40 jobs due in the past, as a warning.
        QCOMPARE(panel.badgeCount(), 40);
        QCOMPARE(panel.badgeSeverity(), Severity::Warning);
        // The longest queue is selected and its processing lists are shown, the dead one stale.
        const QModelIndexList selected = panel.queuesView()->selectionModel()->selectedRows();
        QCOMPARE(selected.size(), 1);
        QCOMPARE(selected.first().data(RowTableRoles::KeyRole).toByteArray(), QByteArray("q:email"));
        QCOMPARE(panel.processingTable()->model()->rowCount(), 2);
        QString ages;
        for (int r = 0; r < 2; ++r)
            ages += panel.processingTable()->model()->index(r, 2).data().toString() + QLatin1Char('|');
        QVERIFY2(ages.contains(QStringLiteral("stale")), qPrintable(ages));
        // The reason is a column and a tooltip.
        const QModelIndex reason
            = panel.queuesView()->model()->index(selected.first().row(), QueuesModel::ReasonColumn);
        QVERIFY(reason.data().toString().contains(QStringLiteral("segment 'q'")));
        QVERIFY(reason.data(Qt::ToolTipRole).toString().startsWith(QStringLiteral("classified as queue because")));

        // Histogram: seven buckets adding up to the set, both axes labelled.
        QCPBars *bars = qobject_cast<QCPBars *>(panel.plot()->plottable(0));
        QVERIFY(bars);
        QCOMPARE(bars->data()->size(), DelayedInfo::kBuckets);
        double sum = 0;
        for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
            sum += it->value;
        QCOMPARE(sum, 300.0);
        QCOMPARE(bars->data()->at(0)->value, 40.0);
        QVERIFY(!panel.plot()->xAxis->label().isEmpty());
        QVERIFY(!panel.plot()->yAxis->label().isEmpty());
        QCOMPARE(panel.dueView()->model()->rowCount(), 10);

        // Double-click asks the window to open the key.
        QSignalSpy open(&panel, &Panel::openKeyRequested);
        const QModelIndex first = panel.queuesView()->model()->index(0, 0);
        panel.queuesView()->scrollTo(first);
        const QPoint at = panel.queuesView()->visualRect(first).center();
        QTest::mouseClick(panel.queuesView()->viewport(), Qt::LeftButton, {}, at);
        QTest::mouseDClick(panel.queuesView()->viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(open.count(), 1);
        QCOMPARE(open.first().at(1).value<KeyType>(), KeyType::List);

        QCoreApplication::processEvents();
        const QImage shot = panel.grab().toImage();
        QVERIFY(!shot.isNull());
        QVERIFY(shot.pixel(10, 10) != shot.pixel(600, 200) || shot.pixel(600, 200) != shot.pixel(900, 600));
        panel.tabs()->setCurrentIndex(2);
        panel.plot()->replot();
        QCoreApplication::processEvents();
        const QImage delayedShot = panel.grab().toImage();
        QVERIFY(!delayedShot.isNull());
        const QString out = qEnvironmentVariable("REDISLENS_SCREENSHOT_DIR");
        if (!out.isEmpty()) {
            QVERIFY(shot.save(out + QStringLiteral("/queues.png")));
            QVERIFY(delayedShot.save(out + QStringLiteral("/queues-delayed.png")));
        }
    }

    // A BullMQ-shaped queue (written here: the real libraries' jobs are read in tst_libraries)
    // with 150 failed jobs and 3 waiting, paged on a read-only connection: the browser opens on
    // the failures, newest first, pages, shows a job's hash, lists the waiting jobs next to run
    // first, and nothing but reads reaches the server.
    void jobBrowserPagesAQueue()
    {
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        QList<QList<QByteArray>> cmds;
        QList<QByteArray> failed{"ZADD", "bull:mail:failed"};
        for (int id = 1; id <= 150; ++id) {
            const qint64 finished = now - (200 - id) * kMinute;
            cmds.append({"HSET", "bull:mail:" + num(id), "name", "send", "data", R"({"to":"u)" + num(id) + R"("})",
                         "timestamp", num(finished - 5000), "finishedOn", num(finished), "atm", num(1 + id % 3),
                         "failedReason", "SMTP 550 for job " + num(id)});
            failed << num(finished) << num(id);
        }
        cmds.append(failed);
        for (int id = 151; id <= 153; ++id)
            cmds.append({"HSET", "bull:mail:" + num(id), "name", "send", "timestamp", num(now - (160 - id) * 1000)});
        cmds.append({"LPUSH", "bull:mail:wait", "151", "152", "153"}); // 151 was added first: it runs next
        for (const RedisValue &v : m_server.pipeline(cmds))
            QVERIFY2(!v.isError(), qPrintable(v.toDisplayString()));
        RawConnection raw(m_server.port());
        const QByteArray digest = raw.command({"DEBUG", "DIGEST"}).bytes();
        raw.command({"CONFIG", "RESETSTAT"});

        ConnectionProfile profile = m_server.profile();
        profile.readOnly = true;
        RedisClient client(profile);
        client.connectToServer();
        QVERIFY(waitForReady(client));
        JobQueueInfo queue;
        queue.spec.library = QStringLiteral("BullMQ");
        queue.spec.name = "mail";
        queue.spec.prefix = "bull:mail";
        queue.spec.keys = {{"bull:mail:wait", KeyType::List, QStringLiteral("waiting")},
                           {"bull:mail:failed", KeyType::ZSet, QStringLiteral("failed")}};
        queue.states = {{QStringLiteral("waiting"), 3}, {QStringLiteral("failed"), 150}};
        JobBrowser browser(&client);
        QAbstractItemModelTester tester(browser.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        browser.resize(1000, 500);
        browser.show();
        QSignalSpy pages(browser.reader(), &JobPageReader::pageAvailable);
        browser.setQueue(&queue);
        QCOMPARE(pages.count(), 0); // nothing is read while the tab is hidden
        browser.setActive(true);
        QVERIFY(pages.wait(kWaitMs));
        QCOMPARE(browser.stateBox()->currentData().toString(), QStringLiteral("failed"));
        QCOMPARE(browser.model()->rowCount(), 100);
        const auto cell = [&](int row, int column) { return browser.model()->index(row, column).data().toString(); };
        QCOMPARE(cell(0, 0), QStringLiteral("150")); // the newest failure first
        QCOMPARE(cell(0, 6), QStringLiteral("SMTP 550 for job 150"));
        QCOMPARE(cell(0, 5), QStringLiteral("1"));
        QCOMPARE(browser.model()->index(0, 0).data(RowTableRoles::SeverityRole).toInt(), int(Severity::Bad));
        QCOMPARE(browser.pageLabel()->text(), QStringLiteral("page 1 of 2"));
        browser.goToPage(1);
        QVERIFY(pages.wait(kWaitMs));
        QCOMPARE(browser.model()->rowCount(), 50);
        QCOMPARE(cell(49, 0), QStringLiteral("1"));
        // A job's detail: its hash as JSON.
        QSignalSpy detail(browser.reader(), &JobPageReader::jobAvailable);
        browser.view()->selectRow(0);
        QVERIFY(detail.wait(kWaitMs));
        QVERIFY2(browser.detail()->toPlainText().contains(QStringLiteral("\"failedReason\": \"SMTP 550 for job 50\"")),
                 qPrintable(browser.detail()->toPlainText()));
        QVERIFY(browser.detail()->toPlainText().contains(QStringLiteral("\"to\": \"u50\"")));
        QCoreApplication::processEvents();
        const QImage shot = browser.grab().toImage();
        QImage darkShot;
        if (qEnvironmentVariableIsSet("REDISLENS_SCREENSHOT_DIR")) {
            theme::apply(theme::Theme::Dark);
            QCoreApplication::processEvents();
            darkShot = browser.grab().toImage();
            theme::apply(theme::Theme::System);
        }
        // The waiting jobs, the next to run first.
        browser.stateBox()->setCurrentIndex(browser.stateBox()->findData(QStringLiteral("waiting")));
        Q_EMIT browser.stateBox()->activated(browser.stateBox()->currentIndex());
        QVERIFY(pages.wait(kWaitMs));
        QCOMPARE(browser.model()->rowCount(), 3);
        QCOMPARE(cell(0, 0), QStringLiteral("151"));
        QCOMPARE(cell(2, 0), QStringLiteral("153"));
        // The next poll brings the queue again with new counts: relabelled, the choice kept, no read.
        queue.states[QStringLiteral("waiting")] = 4;
        const int pagesBefore = int(pages.count());
        QSignalSpy emptied(browser.stateBox()->model(), &QAbstractItemModel::rowsRemoved); // an open drop-down closes
        browser.setQueue(&queue);
        QCOMPARE(emptied.count(), 0);
        QCOMPARE(browser.stateBox()->currentData().toString(), QStringLiteral("waiting"));
        QCOMPARE(browser.stateBox()->currentText(), QStringLiteral("waiting (4)"));
        QCOMPARE(browser.model()->rowCount(), 3);
        QCOMPARE(int(pages.count()), pagesBefore);

        // Read-only: the data is as it was, and only reads were executed.
        QCOMPARE(raw.command({"DEBUG", "DIGEST"}).bytes(), digest);
        // The connection's handshake and the test's own DEBUG DIGEST and CONFIG RESETSTAT, then
        // the browser's reads.
        const QSet<QByteArray> reads{"hello",        "auth",           "ping",           "info",   "command",
                                     "command|docs", "client|setname", "client|setinfo", "select", "config|resetstat",
                                     "debug",        "llen",           "zcard",          "lrange", "zrevrange",
                                     "zrange",       "hmget",          "hscan"};
        const QHash<QByteArray, qint64> calls = commandCalls(raw);
        for (auto it = calls.cbegin(); it != calls.cend(); ++it)
            QVERIFY2(reads.contains(it.key()), it.key().constData());
        QVERIFY(calls.value("hmget") >= 150);
        const QString out = qEnvironmentVariable("REDISLENS_SCREENSHOT_DIR");
        if (!out.isEmpty())
            QVERIFY(shot.save(out + QStringLiteral("/queues-jobbrowser.png"))
                    && darkShot.save(out + QStringLiteral("/queues-jobbrowser-dark.png")));
    }

    void rulesTabEditsAndSaves()
    {
        RedisClient client(m_server.profile());
        client.connectToServer();
        QVERIFY(waitForReady(client));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("rules.json"));
        PatternRulesFile rulesFile(path); // missing: no rules yet
        QueuesPanel panel(&client);
        panel.resize(900, 600);
        panel.setRulesFile(&rulesFile);
        RulesEditor *editor = panel.rulesEditor();
        PatternRulesModel *model = editor->model();
        QCOMPARE(model->rowCount(), 0);
        QSignalSpy ready(&panel, &Panel::contentReady);
        panel.setKeys(m_lists, m_zsets);
        QVERIFY(ready.wait(kWaitMs));
        QCOMPARE(panel.queuesView()->model()->rowCount(), 2);

        // Make recent:searches a queue with a rule typed into the table; saving applies it.
        editor->addRule();
        QCOMPARE(model->rowCount(), 1);
        QVERIFY(model->setData(model->index(0, PatternRulesModel::GlobColumn), QStringLiteral("recent:*")));
        QVERIFY(model->setData(model->index(0, PatternRulesModel::TypeColumn), QStringLiteral("list")));
        QVERIFY(model->setData(model->index(0, PatternRulesModel::KindColumn), QStringLiteral("queue")));
        editor->addRule();
        editor->view()->selectRow(1);
        editor->moveSelectedRule(-1);
        QCOMPARE(model->rules().at(1).glob, QByteArray("recent:*"));
        editor->view()->selectRow(0);
        editor->removeSelectedRule();
        QCOMPARE(model->rowCount(), 1);
        QCOMPARE(panel.queuesView()->model()->rowCount(), 2); // not saved yet: not in use
        QVERIFY(editor->save());
        QVERIFY2(editor->status()->text().contains(QStringLiteral("Saved 1 rule")),
                 qPrintable(editor->status()->text()));
        QTRY_COMPARE_WITH_TIMEOUT(panel.queuesView()->model()->rowCount(), 3, kWaitMs);
        QVERIFY(
            panel.reader()->classifications().value("recent:searches").reason.startsWith(QStringLiteral("rule 1:")));
        PatternRules reread;
        QVERIFY(reread.load(path));
        QCOMPARE(reread.rules(), model->rules());

        // Someone else's rule on disk (a lock, say) reaches the panel too: recent:* is no queue.
        QSignalSpy changed(&rulesFile, &PatternRulesFile::rulesChanged);
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(R"({"version": 2, "rules": [{"glob": "recent:*", "kind": "lock"}]})");
        }
        QVERIFY(changed.wait(kWaitMs));
        QTRY_COMPARE_WITH_TIMEOUT(panel.queuesView()->model()->rowCount(), 2, kWaitMs);
        QCOMPARE(model->rules().at(0).kind, PatternKind::Lock); // the editor followed

        // A malformed file: the line in red, the previous rules in use, saving refused.
        QSignalSpy failed(&rulesFile, &PatternRulesFile::loadFailed);
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write("{\"rules\": [\n oops\n]}");
        }
        QVERIFY(failed.wait(kWaitMs));
        QVERIFY2(editor->status()->text().contains(QStringLiteral("line 2")), qPrintable(editor->status()->text()));
        QCOMPARE(panel.reader()->rules().userRules().rules().size(), 1);
        QVERIFY(!editor->save());
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("{\"rules\": [\n oops\n]}"));

        panel.tabs()->setCurrentIndex(3);
        const QImage rulesShot = panel.grab().toImage();
        QVERIFY(!rulesShot.isNull());
        const QString out = qEnvironmentVariable("REDISLENS_SCREENSHOT_DIR");
        if (!out.isEmpty())
            QVERIFY(rulesShot.save(out + QStringLiteral("/queues-rules.png")));
    }
};

QTEST_MAIN(TstQueuesPanel)
#include "tst_queuespanel.moc"
