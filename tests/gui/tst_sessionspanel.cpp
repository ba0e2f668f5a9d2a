// SPDX-License-Identifier: GPL-3.0-or-later
#include "decodercases.h"
#include "masking.h"
#include "patterntestdata.h"
#include "qcp.h"
#include "redisclient.h"
#include "sessionspanel.h"
#include "testdata.h"
#include "testserver.h"
#include "theme.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QImage>
#include <QLabel>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

// The sessions panel on a small web app's sessions: rows come from a real server, the chart
// has bars, a session's contents show with the CSRF token masked until Reveal is ticked, a
// double-click asks to open the key, and a screenshot renders.
namespace {
constexpr int kWaitMs = 20000;
constexpr int kSessions = 40;
constexpr qint64 kMinute = 60'000;

QByteArray sid(int i)
{
    return QByteArray::number(quint64(0x9e3779b97f4a7c15ULL * quint64(i + 1)), 16);
}

} // namespace

class TstSessionsPanel : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;
    QList<PatternMatch> m_matches;

    static bool refreshed(SessionsPanel &panel)
    {
        QSignalSpy spy(panel.reader(), &SessionsReader::refreshed);
        panel.reader()->refresh();
        return spy.wait(kWaitMs);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        QRandomGenerator rng(7);
        QList<QList<QByteArray>> cmds;
        const QString family = QStringLiteral("session:{id}");
        for (int i = 0; i < kSessions; ++i) {
            const QByteArray key = "session:" + sid(i);
            QList<QByteArray> hset{"HSET",       key,
                                   "user_id",    QByteArray::number(1000 + i % 12),
                                   "created_at", QByteArray::number(1764400000 + i * 97),
                                   "ip",         "10.0.3." + QByteArray::number(i),
                                   "csrf_token", "csrf-" + sid(i + 500),
                                   "locale",     "en-GB"};
            if (i == 5) // a session someone filled with a cart and history
                for (int f = 0; f < 300; ++f)
                    hset << "viewed:" + QByteArray::number(f) << QByteArray(90, 'p');
            cmds.append(hset);
            // Logins spread over the day: 30 min idle timeouts and 24 h absolute ones.
            const qint64 ttl = i % 3 == 0 ? 24 * 60 * kMinute - rng.bounded(20 * 60) * kMinute
                                          : 30 * kMinute - rng.bounded(29) * kMinute - kMinute;
            if (i != 9)
                cmds.append({"PEXPIRE", key, QByteArray::number(ttl)});
            m_matches.append(patternMatch(key, PatternKind::Session, KeyType::Hash, family));
        }
        cmds.append({"SET", "session:json-" + sid(77),
                     R"({"user_id":1042,"access_token":"eyJhbGciOiJIUzI1NiJ9.e30.x","theme":"dark"})", "EX", "1500"});
        m_matches.append(patternMatch("session:json-" + sid(77), PatternKind::Session, KeyType::String, family));
        cmds.append({"SADD", "user:1042:sessions", sid(0), sid(12), sid(24), "0badc0ffee0ddf00d"});
        cmds.append({"SADD", "user:1003:sessions", sid(3), sid(15)});
        for (const QByteArray &k : {QByteArray("user:1042:sessions"), QByteArray("user:1003:sessions")})
            m_matches.append(
                patternMatch(k, PatternKind::SessionIndex, KeyType::Set, QStringLiteral("user:{n}:sessions")));
        for (const RedisValue &v : m_server.pipeline(cmds))
            QVERIFY2(!v.isError(), qPrintable(v.toDisplayString()));
    }

    void rowsChartAndMasking()
    {
        RedisClient client(m_server.profile());
        client.connectToServer();
        QVERIFY(waitForReady(client));
        SessionsPanel panel(&client);
        QCOMPARE(panel.objectName(), QStringLiteral("sessions"));
        QAbstractItemModelTester tester(panel.sessionsView()->model(),
                                        QAbstractItemModelTester::FailureReportingMode::Fatal);
        panel.resize(1100, 860);
        panel.show();
        QSignalSpy ready(&panel, &Panel::contentReady);
        panel.setMatches(m_matches);
        QVERIFY(!panel.hasContent());
        panel.setActive(true);
        QVERIFY(ready.wait(kWaitMs));
        QVERIFY(panel.hasContent());
        QCOMPARE(panel.sessionsView()->model()->rowCount(), kSessions + 1);
        QCOMPARE(panel.indexesView()->model()->rowCount(), 2);

        // Some users come back: their sessions slide.
        QList<QList<QByteArray>> touch;
        for (int i = 1; i < kSessions; i += 3)
            if (i != 9)
                touch.append({"PEXPIRE", "session:" + sid(i), QByteArray::number(30 * kMinute)});
        m_server.pipeline(touch);
        QVERIFY(refreshed(panel));
        const SessionsSummary s = panel.reader()->summary();
        QCOMPARE(s.sliding, int(touch.size()));
        QCOMPARE(s.noTtl, 1);
        QCOMPARE(s.outliers, 1);
        QCOMPARE(s.dangling, 1);
        QVERIFY(panel.summaryLabel()->text().contains(QLatin1String("without TTL")));

        // The no-TTL row is drawn in the "bad" colour; the chart has a red no-TTL bar.
        QAbstractItemModel *model = panel.sessionsView()->model();
        int noTtlRow = -1, bigRow = -1;
        for (int r = 0; r < model->rowCount(); ++r) {
            const QByteArray key = model->index(r, 0).data(SessionsModel::KeyRole).toByteArray();
            noTtlRow = key == "session:" + sid(9) ? r : noTtlRow;
            bigRow = key == "session:" + sid(5) ? r : bigRow;
        }
        QVERIFY(noTtlRow >= 0 && bigRow >= 0);
        QVERIFY(model->index(noTtlRow, 0).data(Qt::ForegroundRole).isValid());
        QVERIFY(model->index(bigRow, SessionsModel::FlagsColumn).data().toString().contains(QLatin1String("median")));
        QCustomPlot *plot = panel.plot();
        double total = 0;
        for (int i = 0; i < plot->plottableCount(); ++i) {
            auto *bars = qobject_cast<QCPBars *>(plot->plottable(i));
            for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
                total += it->value;
        }
        QCOMPARE(total, double(kSessions + 1));
        QVERIFY(!plot->yAxis->label().isEmpty());

        // Contents on demand, masked, then revealed.
        QSignalSpy loaded(panel.reader(), &SessionsReader::contentsAvailable);
        panel.sessionsView()->selectRow(noTtlRow);
        auto *show = requireChild<QPushButton>(&panel, "sessionsShowContents");
        QVERIFY(show->isEnabled());
        show->click();
        QVERIFY(loaded.wait(kWaitMs));
        QAbstractItemModel *contents = panel.contentsView()->model();
        QCOMPARE(contents->rowCount(), 5);
        int csrf = -1;
        for (int r = 0; r < contents->rowCount(); ++r)
            csrf = contents->index(r, 0).data().toString() == QLatin1String("csrf_token") ? r : csrf;
        QVERIFY(csrf >= 0);
        const QString secret = QString::fromLatin1("csrf-" + sid(509));
        QCOMPARE(contents->index(csrf, 1).data().toString(), masking::maskText());
        QVERIFY(requireChild<QLabel>(&panel, "sessionsContentsLabel")->text().contains(QLatin1String("1 masked")));
        panel.revealBox()->setChecked(true);
        QCOMPARE(contents->index(csrf, 1).data().toString(), secret);
        panel.revealBox()->setChecked(false);
        QCOMPARE(contents->index(csrf, 1).data().toString(), masking::maskText());

        // Loading another session masks again even after a reveal.
        panel.revealBox()->setChecked(true);
        panel.sessionsView()->selectRow(bigRow == 0 ? 1 : 0);
        panel.showSelectedContents();
        QVERIFY(loaded.wait(kWaitMs));
        QVERIFY(!panel.revealBox()->isChecked());

        // Double-click asks the window to open the key.
        QSignalSpy open(&panel, &Panel::openKeyRequested);
        const QModelIndex cell = model->index(noTtlRow, 0);
        panel.sessionsView()->scrollTo(cell);
        // QTest's double click is the second click only: the first comes before it.
        QTest::mouseClick(panel.sessionsView()->viewport(), Qt::LeftButton, {},
                          panel.sessionsView()->visualRect(cell).center());
        QTest::mouseDClick(panel.sessionsView()->viewport(), Qt::LeftButton, {},
                           panel.sessionsView()->visualRect(cell).center());
        QTRY_COMPARE(open.count(), 1);
        QCOMPARE(open.first().at(0).toByteArray(), "session:" + sid(9));
        QCOMPARE(open.first().at(1).value<KeyType>(), KeyType::Hash);

        // The family button filters the key browser to the sessions' prefix.
        QSignalSpy filter(&panel, &Panel::filterKeysRequested);
        const QList<QPushButton *> buttons = panel.findChildren<QPushButton *>();
        for (QPushButton *b : buttons)
            if (b->text().contains(QLatin1String("key browser")))
                b->click();
        QCOMPARE(filter.count(), 1);
        QCOMPARE(filter.first().at(0).value<KeyFilter>().prefix, QByteArray("session:"));

        // A session that ends resets the table; the selection stays on its key.
        panel.sessionsView()->selectRow(3);
        const QByteArray kept
            = panel.sessionsView()->selectionModel()->selectedRows().first().data(SessionsModel::KeyRole).toByteArray();
        const QByteArray ended = model->index(4, 0).data(SessionsModel::KeyRole).toByteArray();
        const QList<RedisValue> dump = m_server.pipeline({{"DUMP", ended}, {"PTTL", ended}});
        m_server.command({"DEL", ended});
        QVERIFY(refreshed(panel));
        QCOMPARE(model->rowCount(), kSessions);
        const QModelIndexList selected = panel.sessionsView()->selectionModel()->selectedRows();
        QCOMPARE(selected.size(), 1);
        QCOMPARE(selected.first().data(SessionsModel::KeyRole).toByteArray(), kept);
        QCOMPARE(m_server
                     .command({"RESTORE", ended, QByteArray::number(qMax<qint64>(0, dump.at(1).toInteger())),
                               dump.at(0).bytes()})
                     .bytes(),
                 QByteArray("OK"));

        // The screenshot: a fixed session selected with its contents masked.
        panel.sessionsView()->selectRow(bigRow == 1 ? 2 : 1);
        panel.showSelectedContents();
        QVERIFY(loaded.wait(kWaitMs));
        panel.plot()->replot();
        const QImage shot = panel.grab().toImage();
        QVERIFY(!shot.isNull());
        const QString out = qEnvironmentVariable("REDISLENS_SCREENSHOT_DIR");
        if (!out.isEmpty())
            QVERIFY(shot.save(out + QStringLiteral("/sessions.png")));
        panel.setActive(false);
        QVERIFY(!panel.reader()->isPolling());
    }

    // A session its framework pickled (Python's pickle wrote it, as Flask-Session does): its
    // fields are the object's, the csrf_token masked after decoding.
    void decodedSessionContents()
    {
        QTemporaryDir dir;
        QString error;
        const QByteArray pickled
            = valuesByName(writePythonCases(dir.path(), &error)).value(QStringLiteral("pickled object 4"));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(!pickled.isEmpty());
        const QByteArray key = "flask:session:" + sid(900);
        m_server.command({"SET", key, pickled, "EX", "1500"});

        RedisClient client(m_server.profile());
        client.connectToServer();
        QVERIFY(waitForReady(client));
        SessionsPanel panel(&client);
        panel.resize(1100, 860);
        panel.show();
        QSignalSpy ready(&panel, &Panel::contentReady);
        panel.setMatches(
            {patternMatch(key, PatternKind::Session, KeyType::String, QStringLiteral("flask:session:{id}"))});
        panel.setActive(true);
        QVERIFY(ready.wait(kWaitMs));
        QSignalSpy loaded(panel.reader(), &SessionsReader::contentsAvailable);
        panel.sessionsView()->selectRow(0);
        panel.showSelectedContents();
        QVERIFY(loaded.wait(kWaitMs));
        const QString label = panel.findChild<QLabel *>(QStringLiteral("sessionsContentsLabel"))->text();
        QVERIFY2(label.contains(QStringLiteral("(decoded: pickle)")) && label.contains(QStringLiteral("1 masked")),
                 qPrintable(label));
        const QAbstractItemModel *contents = panel.contentsView()->model();
        QStringList shown;
        for (int r = 0; r < contents->rowCount(); ++r)
            shown << contents->index(r, 0).data().toString() + QLatin1Char('=')
                    + contents->index(r, 1).data().toString();
        QVERIFY2(shown.contains(QStringLiteral("user_id=5")), qPrintable(shown.join(u' ')));
        QVERIFY2(shown.contains(QStringLiteral("csrf_token=") + masking::maskText()), qPrintable(shown.join(u' ')));
        QVERIFY2(!shown.join(u' ').contains(QLatin1String("4f1c9a7e2b")), qPrintable(shown.join(u' ')));
        const QString dirOut = qEnvironmentVariable("REDISLENS_SCREENSHOT_DIR");
        if (!dirOut.isEmpty()) {
            panel.plot()->replot();
            QVERIFY(panel.grab().toImage().save(dirOut + QStringLiteral("/sessions-decoded.png")));
            theme::apply(theme::Theme::Dark);
            QCoreApplication::processEvents();
            panel.plot()->replot();
            QVERIFY(panel.grab().toImage().save(dirOut + QStringLiteral("/sessions-decoded-dark.png")));
            theme::apply(theme::Theme::Light);
        }
        panel.revealBox()->setChecked(true);
        QVERIFY(contents->match(contents->index(0, 1), Qt::DisplayRole, QStringLiteral("4f1c9a7e2b")).size() == 1);
        m_server.command({"DEL", key});
    }

    void errorsAreOneLine()
    {
        std::unique_ptr<RedisClient> client = clientWithout(m_server, "nosscan", {"sscan"});
        QVERIFY(client);
        SessionsPanel panel(client.get());
        panel.show();
        QSignalSpy ready(&panel, &Panel::contentReady);
        panel.setMatches(m_matches);
        panel.setActive(true);
        QVERIFY(ready.wait(kWaitMs));
        QCOMPARE(panel.sessionsView()->model()->rowCount(), kSessions + 1);
        const QAbstractItemModel *indexes = panel.indexesView()->model();
        const QString why = indexes->index(0, SessionIndexesModel::ExamplesColumn).data().toString();
        QVERIFY2(why.contains(QLatin1String("sscan"), Qt::CaseInsensitive), qPrintable(why));
        QVERIFY(!why.contains(QLatin1Char('\n')));
    }
};

QTEST_MAIN(TstSessionsPanel)
#include "tst_sessionspanel.moc"
