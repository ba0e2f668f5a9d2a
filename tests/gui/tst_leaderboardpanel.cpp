// SPDX-License-Identifier: GPL-3.0-or-later
#include "leaderboardpanel.h"
#include "qcp.h"
#include "redisclient.h"
#include "testserver.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

// The leaderboard panel on a real server with a week of daily boards (with ties) and one
// all-time board too big to keep without a trim: the busiest board opens with its first page,
// its histogram and its header; a search highlights the member; a week combines with ZUNION.
namespace {
constexpr int kWaitMs = 30000;
const QByteArray kAllTime = "game:alltime";

QByteArray day(int d)
{
    return "game:daily:2024-05-0" + QByteArray::number(d);
}

int barPixels(QCustomPlot *plot, QCPBars *bars)
{
    const QImage chart = plot->grab().toImage();
    const QRgb colour = bars->brush().color().rgb();
    int n = 0;
    for (int y = 0; y < chart.height(); ++y)
        for (int x = 0; x < chart.width(); ++x)
            n += chart.pixel(x, y) == colour;
    return n;
}
} // namespace

class TstLeaderboardPanel : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;
    QList<QByteArray> m_boards;

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        static const char *const names[] = {"ada",     "grace",  "linus", "margaret", "ken",    "barbara", "dennis",
                                            "frances", "edsger", "radia", "tim",      "sophie", "guido",   "anita"};
        QList<QList<QByteArray>> cmds;
        for (int d = 1; d <= 7; ++d) {
            QList<QByteArray> zadd{"ZADD", day(d)};
            for (int i = 0; i < 300; ++i) {
                // Points in steps of 50 make plenty of ties, as real game scores do.
                const int points = ((i * 37 + d * 101) % 40) * 50 + (i < 14 ? 2500 : 0);
                zadd << QByteArray::number(points) << QByteArray(names[i % 14]) + '_' + QByteArray::number(i / 14);
            }
            cmds.append(zadd);
            m_boards.append(day(d));
        }
        for (int chunk = 0; chunk < 25; ++chunk) {
            QList<QByteArray> zadd{"ZADD", kAllTime};
            for (int i = 0; i < 1000; ++i)
                zadd << QByteArray::number((chunk * 1000 + i) % 997)
                     << "player:" + QByteArray::number(chunk * 1000 + i);
            cmds.append(zadd);
        }
        m_boards.append(kAllTime);
        m_boards.append("game:gone");
        m_server.pipeline(cmds);
    }

    void showsBusiestBoard()
    {
        RedisClient client(m_server.profile());
        client.connectToServer();
        QVERIFY(waitForReady(client));
        LeaderboardPanel panel(&client);
        QAbstractItemModelTester pageTester(panel.pageModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester unionTester(panel.unionModel(),
                                             QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.resize(1200, 760);
        panel.show();
        QVERIFY(!panel.hasContent());
        QSignalSpy ready(&panel, &Panel::contentReady);
        QSignalSpy histogram(panel.reader(), &LeaderboardReader::histogramAvailable);
        panel.setCandidates(m_boards);
        panel.openBusiest();
        QVERIFY(ready.wait(kWaitMs));
        QVERIFY(panel.hasContent());
        QCOMPARE(panel.currentBoard(), kAllTime);
        QCOMPARE(panel.boardCombo()->count(), 8); // the gone board is left out
        QCOMPARE(panel.boardCombo()->currentData(Qt::UserRole + 1).toByteArray(), kAllTime);
        QCOMPARE(panel.pageView()->model()->rowCount(), panel.reader()->pageSize());
        QCOMPARE(panel.pageView()->model()->index(0, LeaderboardModel::RankColumn).data().toString(),
                 QStringLiteral("1"));
        QCOMPARE(panel.pageModel()->at(0).scoreText, QByteArray("996"));

        QVERIFY(histogram.size() == 1 || histogram.wait(kWaitMs));
        auto *bars = qobject_cast<QCPBars *>(panel.plot()->plottable(0));
        QVERIFY(bars);
        QCOMPARE(bars->dataCount(), 20);
        double sum = 0;
        for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
            sum += it->value;
        QCOMPARE(sum, 25000.0);
        QCOMPARE(panel.plot()->xAxis->label(), QStringLiteral("Score"));
        QCOMPARE(panel.plot()->yAxis->label(), QStringLiteral("Members"));

        auto *trim = panel.findChild<QLabel *>(QStringLiteral("leaderboardTrim"));
        QTRY_VERIFY_WITH_TIMEOUT(trim->isVisible(), kWaitMs);
        QVERIFY(trim->text().contains(QLatin1String("ZREMRANGEBYRANK")));
        auto *header = panel.findChild<QLabel *>(QStringLiteral("leaderboardHeader"));
        QVERIFY2(header->text().contains(QLatin1String("25,000")), qPrintable(header->text()));

        QCoreApplication::processEvents(); // the queued replot
        QVERIFY2(barPixels(panel.plot(), bars) > 500, "the histogram bars are not painted");
        const QImage shot = panel.grab().toImage();
        QVERIFY(!shot.isNull());
        QVERIFY(shot.width() > 0 && shot.height() > 0);
    }

    void searchHighlightsAndWeekCombines()
    {
        RedisClient client(m_server.profile());
        client.connectToServer();
        QVERIFY(waitForReady(client));
        LeaderboardPanel panel(&client);
        panel.resize(1200, 760);
        panel.show();
        QSignalSpy candidates(panel.reader(), &LeaderboardReader::candidatesAvailable);
        QSignalSpy ready(&panel, &Panel::contentReady);
        QSignalSpy combined(panel.reader(), &LeaderboardReader::unionAvailable);
        panel.setCandidates(m_boards);
        QVERIFY(candidates.wait(kWaitMs));
        panel.openBoard(day(7));
        QVERIFY(ready.wait(kWaitMs));

        // A week of daily boards is offered and combined at once.
        QCOMPARE(panel.compareList()->count(), 7);
        QVERIFY(combined.wait(kWaitMs));
        const auto u = combined.first().first().value<BoardUnion>();
        QVERIFY2(u.error.isEmpty(), qPrintable(u.error));
        QCOMPARE(u.keys.size(), 7);
        QCOMPARE(panel.unionView()->model()->rowCount(), 50);

        // Search through the field, with an escape: the member's row is highlighted.
        QSignalSpy page(panel.reader(), &LeaderboardReader::pageAvailable);
        auto *search = panel.findChild<QLineEdit *>(QStringLiteral("memberSearch"));
        search->setText(QStringLiteral("\\x6ben_3")); // "ken_3"
        QTest::keyClick(search, Qt::Key_Return);
        QVERIFY(page.wait(kWaitMs));
        const LeaderboardModel *model = panel.pageModel();
        const int row = model->highlightedRow();
        QVERIFY(row >= 0);
        QCOMPARE(model->at(row).member, QByteArray("ken_3"));
        QCOMPARE(model->at(row).rank, m_server.command({"ZREVRANK", day(7), "ken_3"}).toInteger());
        QVERIFY(model->index(row, LeaderboardModel::MemberColumn).data(Qt::BackgroundRole).isValid());
        auto *status = panel.findChild<QLabel *>(QStringLiteral("searchStatus"));
        QVERIFY2(status->text().contains(QLatin1String("five above")), qPrintable(status->text()));
        // Ties are visible and explained.
        bool tieShown = false;
        for (int i = 0; i < model->rowCount(); ++i) {
            if (model->index(i, LeaderboardModel::TieColumn).data().toString() == QLatin1String("=")) {
                tieShown = true;
                QVERIFY(model->index(i, LeaderboardModel::MemberColumn)
                            .data(Qt::ToolTipRole)
                            .toString()
                            .contains(QLatin1String("member bytes")));
            }
        }
        QVERIFY(tieShown);

        search->setText(QStringLiteral("nobody"));
        QSignalSpy searched(panel.reader(), &LeaderboardReader::memberSearched);
        QTest::keyClick(search, Qt::Key_Return);
        QVERIFY(searched.wait(kWaitMs));
        QVERIFY2(status->text().contains(QLatin1String("not on this board")), qPrintable(status->text()));

        QCoreApplication::processEvents();
        QTRY_VERIFY_WITH_TIMEOUT(panel.reader()->isLoading() == false, kWaitMs);
        // Search for a member again so the screenshot shows a highlighted row.
        search->setText(QStringLiteral("grace_7"));
        QTest::keyClick(search, Qt::Key_Return);
        QVERIFY(page.wait(kWaitMs));
        QCoreApplication::processEvents();
        const QImage shot = panel.grab().toImage();
        QVERIFY(!shot.isNull());
        const QString out = qEnvironmentVariable("REDISLENS_SCREENSHOT_DIR");
        if (!out.isEmpty())
            QVERIFY(shot.save(out + QStringLiteral("/leaderboard.png")));
    }
};

QTEST_MAIN(TstLeaderboardPanel)
#include "tst_leaderboardpanel.moc"
