// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandstats.h"
#include "confirmations.h"
#include "format.h"
#include "locks.h"
#include "lockspanel.h"
#include "locksreader.h"
#include "panelparts.h"
#include "patterntestdata.h"
#include "processrun.h"
#include "redisclient.h"
#include "redlock.h"
#include "redlockreader.h"
#include "screenshots.h"
#include "testserver.h"
#include "theme.h"

#include <QAbstractItemModelTester>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

// The locks panel on a small world of locks as production leaves them: rows from a real
// server, most severe first, a countdown that runs, release and extend through the panel,
// nothing possible on a read-only connection, the explanation one click away, a screenshot.
namespace {

constexpr int kWaitMs = 15000;

// The leading number of "43 s" or "12m 03s", in seconds.
int seconds(const QString &text)
{
    const QStringList parts = text.split(QLatin1Char(' '));
    if (text.endsWith(QLatin1String(" s")))
        return parts.first().toInt();
    if (parts.size() == 2 && parts.first().endsWith(QLatin1Char('m')))
        return parts.first().chopped(1).toInt() * 60 + parts.last().chopped(1).toInt();
    return -1;
}

} // namespace

class TstLocksPanel : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;
    QList<PatternMatch> m_matches;

    void seed()
    {
        m_server.flushAll();
        QList<QList<QByteArray>> cmds;
        const QList<QByteArray> invoices{"1042", "1043", "1051", "1077", "1080"};
        const QList<QByteArray> tokens{"3f1c9a0e7b2d4c55", "b81e07d2c6a94f13", "0d9f6ab3e21c7e48", "5a2c9e71f0b3d866",
                                       "e4b0c1a9d7f25e3c"};
        for (int i = 0; i < invoices.size(); ++i) {
            cmds.append({"SET", "lock:invoice:" + invoices.at(i), tokens.at(i), "NX", "PX",
                         QByteArray::number(20000 + i * 7000)});
            m_matches << patternMatch("lock:invoice:" + invoices.at(i), PatternKind::Lock, KeyType::String,
                                      QStringLiteral("lock:invoice:{n}"));
        }
        cmds.append({"SET", "lock:invoice:2001", "9c4e2f7a10b35d68", "NX", "PX", "7200000"});
        m_matches << patternMatch("lock:invoice:2001", PatternKind::Lock, KeyType::String,
                                  QStringLiteral("lock:invoice:{n}"));
        cmds.append({"SET", "lock:report:nightly", "worker-7:31337:6f0e9a2c", "NX"});
        m_matches << patternMatch("lock:report:nightly", PatternKind::Lock, KeyType::String,
                                  QStringLiteral("lock:report:{…}"));
        cmds.append({"SET", "lock:cron:cleanup", "1", "NX", "PX", "90000"});
        m_matches << patternMatch("lock:cron:cleanup", PatternKind::Lock, KeyType::String,
                                  QStringLiteral("lock:cron:{…}"));
        cmds.append({"SET", "app:product:77:lock", "c0ffee00-1d2e-4f5a-9b8c-7d6e5f4a3b2c", "NX", "PX", "4500"});
        m_matches << patternMatch("app:product:77:lock", PatternKind::Lock, KeyType::String,
                                  QStringLiteral("app:product:{n}:lock"));
        cmds.append({"SET", QByteArray("lock:bin:\x00\xff", 11), "a1b2c3d4e5f60718", "NX", "PX", "45000"});
        m_matches << patternMatch(QByteArray("lock:bin:\x00\xff", 11), PatternKind::Lock, KeyType::String,
                                  QStringLiteral("lock:bin:{…}"));
        for (const RedisValue &v : m_server.pipeline(cmds))
            QVERIFY2(!v.isError() && !v.isNil(), qPrintable(v.toDisplayString()));
    }

    // A panel on 'profile', active, with its first data shown.
    bool openPanel(RedisClient &client, LocksPanel &panel)
    {
        client.connectToServer();
        if (!waitForReady(client))
            return false;
        QSignalSpy ready(&panel, &Panel::contentReady);
        panel.setConfirmations(false);
        panel.resize(1100, 560);
        panel.show();
        panel.setMatches(m_matches);
        // An inactive panel reads nothing; activating it does.
        if (client.pendingCount() != 0 || panel.reader()->isPolling())
            return false;
        panel.setActive(true);
        return ready.wait(kWaitMs) && panel.hasContent();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
    }

    void init()
    {
        m_matches.clear();
        seed();
    }

    void showsLocksWithALiveCountdown()
    {
        RedisClient client(m_server.profile());
        LocksPanel panel(&client);
        QAbstractItemModelTester tester(panel.view()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(!panel.hasContent());
        QVERIFY(openPanel(client, panel));
        QAbstractItemModel *m = panel.view()->model();
        QCOMPARE(m->rowCount(), 10);
        QCOMPARE(m->index(0, LocksModel::ResourceColumn).data().toString(), QStringLiteral("lock:report:nightly"));
        QCOMPARE(m->index(0, LocksModel::FlagsColumn).data().toString(), QStringLiteral("no TTL"));
        QVERIFY(m->index(0, LocksModel::FlagsColumn).data(Qt::ForegroundRole).isValid());
        QCOMPARE(m->index(1, LocksModel::ResourceColumn).data().toString(), QStringLiteral("lock:invoice:2001"));
        QCOMPARE(m->index(2, LocksModel::ResourceColumn).data().toString(), QStringLiteral("lock:cron:cleanup"));
        QVERIFY(panel.summaryText().startsWith(QStringLiteral("10 locks held · 1 without TTL")));
        // The sidebar's badge: the one lock without a TTL, as bad.
        QCOMPARE(panel.badgeCount(), 1);
        QCOMPARE(panel.badgeSeverity(), Severity::Bad);
        QVERIFY(panel.badgeToolTip().contains(QStringLiteral("without a TTL")));
        // Binary keys are escaped, not mangled.
        QVERIFY(m->match(m->index(0, 0), Qt::DisplayRole, QStringLiteral("lock:bin:\\x00\\xff")).size() == 1);

        // The countdown runs between reads.
        const int row = panel.model()->rowOf("lock:invoice:1077");
        const int start = seconds(m->index(row, LocksModel::RemainingColumn).data().toString());
        QVERIFY2(start > 30 && start <= 41, qPrintable(QString::number(start)));
        QTRY_VERIFY_WITH_TIMEOUT(
            seconds(m->index(panel.model()->rowOf("lock:invoice:1077"), LocksModel::RemainingColumn).data().toString())
                < start,
            5000);

        // A short lock expires: shown as released once, then gone.
        QTRY_VERIFY_WITH_TIMEOUT(panel.reader()->lock("app:product:77:lock")
                                     && panel.reader()->lock("app:product:77:lock")->released,
                                 15000);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.reader()->lock("app:product:77:lock"), 15000);

        // Double-click opens the key.
        QSignalSpy open(&panel, &Panel::openKeyRequested);
        Q_EMIT panel.view()->doubleClicked(m->index(0, 0));
        QCOMPARE(open.size(), 1);
        QCOMPARE(open.first().at(0).toByteArray(), QByteArray("lock:report:nightly"));
        QCOMPARE(open.first().at(1).value<KeyType>(), KeyType::String);

        panel.setActive(false);
        QVERIFY(!panel.reader()->isPolling());
    }

    // Before the panel is shown (and so before it reads anything), the badge comes from the TTLs
    // the scan read.
    void badgeFromTheScanBeforeAnyRead()
    {
        RedisClient client(m_server.profile());
        client.connectToServer();
        QVERIFY(waitForReady(client));
        LocksPanel panel(&client);
        QSignalSpy badge(&panel, &Panel::badgeChanged);
        QList<PatternMatch> matches = m_matches;
        for (PatternMatch &m : matches)
            m.pttlMs = m.key == "lock:report:nightly" ? -1 : 5000;
        panel.setMatches(matches);
        QCOMPARE(client.pendingCount(), 0);
        QCOMPARE(badge.count(), 1);
        QCOMPARE(panel.badgeCount(), 1);
        for (PatternMatch &m : matches)
            m.pttlMs = 5000;
        panel.setMatches(matches);
        QCOMPARE(panel.badgeCount(), 0); // no badge once every lock has a TTL
    }

    // A family the library catalogue recognised is named with its library; none: no line.
    void namesTheLibraries()
    {
        RedisClient client(m_server.profile());
        LocksPanel panel(&client);
        auto *line = panel.findChild<QLabel *>(QStringLiteral("libraries"));
        QVERIFY(line);
        panel.setMatches(m_matches);
        QVERIFY(line->isHidden());
        QList<PatternMatch> matches = m_matches;
        for (PatternMatch &m : matches) {
            m.params.insert(QStringLiteral("library"), QStringLiteral("python-redis-lock"));
            m.family = QStringLiteral("lock:{id}");
        }
        panel.setMatches(matches);
        QVERIFY(!line->isHidden());
        QVERIFY2(line->text().contains(QStringLiteral("python-redis-lock (lock:{id}, %1 key(s))").arg(matches.size())),
                 qPrintable(line->text()));
    }

    void releaseAndExtendThroughThePanel()
    {
        RedisClient client(m_server.profile());
        LocksPanel panel(&client);
        QVERIFY(openPanel(client, panel));
        RawConnection raw(m_server.port());
        panel.selectKey("lock:invoice:1043");
        QCOMPARE(panel.selectedKey(), QByteArray("lock:invoice:1043"));
        // Selecting fills the token field with the holder's token.
        auto *token = panel.findChild<QLineEdit *>();
        QVERIFY(token);
        QCOMPARE(token->text(), QStringLiteral("b81e07d2c6a94f13"));
        QVERIFY(panel.releaseButton()->isEnabled());
        QVERIFY(panel.extendButton()->isEnabled());

        token->setText(QStringLiteral("someone-elses-token"));
        panel.releaseButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(panel.resultText(),
                                  QStringLiteral("refused: the lock is held by another token or gone"), kWaitMs);
        QCOMPARE(raw.command({"EXISTS", "lock:invoice:1043"}).toInteger(), 1);

        panel.extendSelected(QStringLiteral("b81e07d2c6a94f13"), 600000);
        QTRY_VERIFY_WITH_TIMEOUT(panel.resultText().startsWith(QLatin1String("extended")), kWaitMs);
        QVERIFY(raw.command({"PTTL", "lock:invoice:1043"}).toInteger() > 590000);

        panel.releaseSelected(QStringLiteral("b81e07d2c6a94f13"));
        QTRY_VERIFY_WITH_TIMEOUT(panel.resultText().startsWith(QLatin1String("released")), kWaitMs);
        QCOMPARE(raw.command({"EXISTS", "lock:invoice:1043"}).toInteger(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(
            panel.reader()->lock("lock:invoice:1043") && panel.reader()->lock("lock:invoice:1043")->released, kWaitMs);
    }

    void readOnlyRefuses()
    {
        ConnectionProfile profile = m_server.profile();
        profile.readOnly = true;
        RedisClient client(profile);
        LocksPanel panel(&client);
        QVERIFY(openPanel(client, panel));
        panel.selectKey("lock:invoice:1042");
        QVERIFY(!panel.releaseButton()->isEnabled());
        QVERIFY(!panel.extendButton()->isEnabled());
        QVERIFY(panel.releaseButton()->toolTip().contains(QLatin1String("Read-only")));
        panel.releaseSelected(QStringLiteral("3f1c9a0e7b2d4c55"));
        QCOMPARE(panel.resultText(), QStringLiteral("Refused: the connection is read-only"));
        QCOMPARE(m_server.command({"GET", "lock:invoice:1042"}).bytes(), QByteArray("3f1c9a0e7b2d4c55"));
    }

    void explanationAndScreenshot()
    {
        RedisClient client(m_server.profile());
        LocksPanel panel(&client);
        QVERIFY(openPanel(client, panel));
        QVERIFY(!panel.isExplanationVisible());
        auto *explain = panel.findChild<QPushButton *>();
        QVERIFY(explain);
        QCOMPARE(explain->text(), QStringLiteral("What does a lock guarantee?"));
        explain->click();
        QVERIFY(panel.isExplanationVisible());
        for (const char *word : {"fencing", "TTL", "GC pause", "asynchronous", "Redlock"})
            QVERIFY2(LocksPanel::explanation().contains(QLatin1String(word)), word);
        explain->click();
        QVERIFY(!panel.isExplanationVisible());

        panel.selectKey("lock:invoice:1042");
        panel.releaseSelected(QStringLiteral("not-the-holder"));
        QTRY_VERIFY_WITH_TIMEOUT(panel.resultText().startsWith(QLatin1String("refused")), kWaitMs);
        QTest::qWait(0);
        const QImage shot = panel.grab().toImage();
        QVERIFY(!shot.isNull());
        QVERIFY(screenshots::save(shot, QStringLiteral("locks.png")));
        panel.showExplanation(true);
        panel.resize(1100, 820);
        QVERIFY(screenshots::save(panel.grab().toImage(), QStringLiteral("locks-explained.png")));
    }

    // A Redlock set of three servers, its locks written by the redlock npm package: the panel's
    // Redlock table shows each lock's count of nodes, the majority token and its flags, and a
    // lock the window's server does not hold; screenshots in both palettes.
    void redlockSetBesideTheServersLocks()
    {
        TestServer peers[2];
        for (TestServer &peer : peers) {
            QString error;
            QVERIFY2(peer.start(&error), qPrintable(error));
        }
        TestServer first;
        QString error;
        QVERIFY2(first.start(&error), qPrintable(error));
        QTemporaryDir home;
        const ProcessRun written
            = runNodeFixture(QStringLiteral("redlock_set_fixture.mjs"),
                             {QStringLiteral("--port"), QString::number(first.port()), QStringLiteral("--peers"),
                              QStringLiteral("%1,%2").arg(peers[0].port()).arg(peers[1].port()),
                              QStringLiteral("--truth"), home.filePath(QStringLiteral("truth.json"))},
                             home.path());
        QVERIFY2(written.code == 0, QByteArray(written.out + written.err).constData());

        ConnectionProfile profile = first.profile();
        profile.redlockPeers = {QStringLiteral("127.0.0.1:%1").arg(peers[0].port()),
                                QStringLiteral("127.0.0.1:%1").arg(peers[1].port())};
        RedisClient client(profile);
        LocksPanel panel(&client);
        QVERIFY(panel.redlockReader());
        QCOMPARE(panel.redlockReader()->quorum(), 2);
        QAbstractItemModelTester tester(panel.redlockModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QList<PatternMatch> matches;
        for (const QByteArray &key : first.allKeys())
            matches << patternMatch(key, PatternKind::Lock, KeyType::String, familyOf(key));
        m_matches = matches;
        // The window's server holds three of the five; the panel finds the other two on the peers.
        QCOMPARE(matches.size(), 3);
        client.connectToServer();
        QVERIFY(waitForReady(client));
        panel.setConfirmations(false);
        panel.resize(1100, 720);
        panel.show();
        panel.setMatches(matches);
        panel.setActive(true);
        QTRY_COMPARE_WITH_TIMEOUT(panel.redlockModel()->rowCount(), 5, kWaitMs);
        const RedlockModel *m = panel.redlockModel();
        QHash<QByteArray, QString> held, flags;
        for (int r = 0; r < m->rowCount(); ++r) {
            const QByteArray key = m->index(r, 0).data(RedlockModel::KeyRole).toByteArray();
            held.insert(key, m->index(r, RedlockModel::HeldColumn).data().toString());
            flags.insert(key, m->index(r, RedlockModel::FlagsColumn).data().toString());
        }
        QCOMPARE(held.value("locks:order:1001"), QStringLiteral("3 of 3"));
        QCOMPARE(held.value("locks:shipment:77"), QStringLiteral("2 of 3"));
        QCOMPARE(held.value("locks:report:weekly"), QStringLiteral("1 of 3"));
        QVERIFY(flags.value("locks:report:weekly").contains(QLatin1String("no majority")));
        QVERIFY(flags.value("locks:invoice:9").contains(QLatin1String("2 different tokens")));
        QVERIFY(flags.value("locks:order:1001").isEmpty());
        // The worst first: split tokens, then the lock without a majority.
        QCOMPARE(m->index(0, 0).data(RedlockModel::KeyRole).toByteArray(), QByteArray("locks:invoice:9"));
        QCOMPARE(m->index(1, 0).data(RedlockModel::KeyRole).toByteArray(), QByteArray("locks:report:weekly"));
        QTRY_VERIFY_WITH_TIMEOUT(panel.redlockStatusText().contains(QLatin1String("2 found only on the other")),
                                 kWaitMs);
        QVERIFY2(panel.redlockStatusText().startsWith(QLatin1String("4 locks held on a majority")),
                 qPrintable(panel.redlockStatusText()));
        QTest::qWait(0);
        QVERIFY(screenshots::save(panel.grab().toImage(), QStringLiteral("locks-redlock.png")));
        theme::apply(theme::Theme::Dark);
        QCoreApplication::processEvents();
        QVERIFY(screenshots::save(panel.grab().toImage(), QStringLiteral("locks-redlock-dark.png")));
        theme::apply(theme::Theme::Light);
        QCoreApplication::processEvents();
    }

    void confirmationsNameTheLockAndAnswerDecides()
    {
        RedisClient client(m_server.profile());
        LocksPanel panel(&client);
        QVERIFY(openPanel(client, panel));
        panel.setConfirmations(true); // this test is about the dialogs
        RawConnection raw(m_server.port());
        const QByteArray key("lock:bin:\x00\xff", 11);
        const QString token = QStringLiteral("a1b2c3d4e5f60718");
        panel.selectKey(key);
        QCOMPARE(panel.selectedKey(), key);
        const qint64 scriptsBefore = commandCalls(raw, {"eval", "evalsha", "script|load"});
        const qint64 ttlBefore = raw.command({"PTTL", key}).toInteger();
        QVERIFY(ttlBefore > 0);

        {
            ConfirmationAnswerer answer(ConfirmationAnswerer::Reject);
            panel.releaseSelected(token);
            QCOMPARE(answer.count(), 1);
            QCOMPARE(answer.title(), QStringLiteral("Release lock"));
            // The binary name escaped as the table shows it, the token that will be compared.
            QVERIFY2(answer.text().startsWith(
                         QStringLiteral("Release the lock \"lock:bin:\\x00\\xff\" held with token a1b2c3d4e5f60718?")),
                     qPrintable(answer.text()));
            QVERIFY(!answer.text().contains(QLatin1String("invoice")));
            // Plain text: a key name cannot inject markup, and a reflexive Enter cancels.
            QCOMPARE(answer.objectName(), panelparts::confirmationObjectName());
            QCOMPARE(answer.textFormat(), Qt::PlainText);
            QVERIFY(answer.cancelWasDefault());

            panel.extendSelected(token, 600000);
            QCOMPARE(answer.count(), 2);
            QCOMPARE(answer.title(), QStringLiteral("Extend lock"));
            QVERIFY2(answer.text().startsWith(
                         QStringLiteral(
                             "Give the lock \"lock:bin:\\x00\\xff\" held with token a1b2c3d4e5f60718 a new TTL of %1?")
                             .arg(format::duration(600000))),
                     qPrintable(answer.text()));
        }
        // Rejected: no script reached the server and the lock is as it was.
        QCOMPARE(commandCalls(raw, {"eval", "evalsha", "script|load"}), scriptsBefore);
        QCOMPARE(raw.command({"GET", key}).bytes(), token.toLatin1());
        QVERIFY(raw.command({"PTTL", key}).toInteger() <= ttlBefore);
        QVERIFY2(!panel.resultText().startsWith(QLatin1String("released"))
                     && !panel.resultText().startsWith(QLatin1String("extended")),
                 qPrintable(panel.resultText()));

        {
            ConfirmationAnswerer answer(ConfirmationAnswerer::Accept);
            panel.extendSelected(token, 600000);
            QCOMPARE(answer.count(), 1);
            QTRY_VERIFY_WITH_TIMEOUT(panel.resultText().startsWith(QLatin1String("extended")), kWaitMs);
            QVERIFY(raw.command({"PTTL", key}).toInteger() > 590000);
            panel.releaseSelected(token);
            QCOMPARE(answer.count(), 2);
            QTRY_VERIFY_WITH_TIMEOUT(panel.resultText().startsWith(QLatin1String("released")), kWaitMs);
            QCOMPARE(raw.command({"EXISTS", key}).toInteger(), 0);
        }
        QVERIFY(commandCalls(raw, {"eval", "evalsha", "script|load"}) >= scriptsBefore + 2);

        // A read-only connection refuses before asking: no dialog for an action that cannot run.
        ConnectionProfile profile = m_server.profile();
        profile.readOnly = true;
        RedisClient readOnly(profile);
        LocksPanel roPanel(&readOnly);
        QVERIFY(openPanel(readOnly, roPanel));
        roPanel.setConfirmations(true);
        roPanel.selectKey("lock:invoice:1042");
        ConfirmationAnswerer answer(ConfirmationAnswerer::Accept);
        roPanel.releaseSelected(QStringLiteral("3f1c9a0e7b2d4c55"));
        QCOMPARE(answer.count(), 0);
        QCOMPARE(roPanel.resultText(), QStringLiteral("Refused: the connection is read-only"));
    }
};

QTEST_MAIN(TstLocksPanel)
#include "tst_lockspanel.moc"
