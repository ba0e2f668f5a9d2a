// SPDX-License-Identifier: GPL-3.0-or-later
#include "memorypanel.h"
#include "qcp.h"
#include "redisclient.h"
#include "testserver.h"

#include <QImage>
#include <QLabel>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

// The memory panel on a real server: one analysis fills the chart and both tables, a click
// on a namespace asks the key browser to filter, a double-click on a key opens it, and a user
// without +memory sees why the figures are missing.
class TstMemoryPanel : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;

    static bool runAnalysis(MemoryPanel &panel)
    {
        QSignalSpy done(&panel, &MemoryPanel::analysisFinished);
        panel.startAnalysis();
        return done.wait(30000);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        QList<QList<QByteArray>> cmds;
        for (int i = 0; i < 300; ++i) {
            cmds.append({"SET", "cache:page:" + QByteArray::number(i), QByteArray(200 + i, 'p')});
            cmds.append({"HSET", "session:" + QByteArray::number(i), "user", QByteArray::number(i), "csrf", "t0k3n"});
        }
        for (int i = 0; i < 20; ++i)
            cmds.append({"RPUSH", "queue:" + QByteArray::number(i), "a", "b", QByteArray::number(i)});
        cmds.append({"SET", "plain", "x"});
        cmds.append({"SET", QByteArray("bin\x00:ary", 8), QByteArray(9000, 'z')});
        m_server.pipeline(cmds);
    }

    void analysisFillsChartAndTables()
    {
        RedisClient client(m_server.profile());
        client.connectToServer();
        QVERIFY(waitForReady(client));
        MemoryPanel panel(&client);
        panel.resize(1000, 700);
        panel.show();
        QVERIFY(!panel.hasContent());
        QSignalSpy ready(&panel, &Panel::contentReady);
        QVERIFY(runAnalysis(panel));
        QCOMPARE(ready.size(), 1);
        QVERIFY(panel.hasContent());
        QCOMPARE(panel.stats().keyCount(), quint64(300 + 300 + 20 + 2));

        // Namespaces: cache:, session:, queue:, bin\x00:, and the key without one.
        QCOMPARE(panel.namespaceModel()->rowCount(), 5);
        // The chart: one bar per namespace, largest first, labelled axes.
        QCustomPlot *plot = panel.plot();
        QCOMPARE(plot->plottableCount(), 1);
        auto *bars = qobject_cast<QCPBars *>(plot->plottable(0));
        QVERIFY(bars);
        QCOMPARE(bars->dataCount(), 5);
        QCOMPARE(qint64(bars->data()->at(0)->value), panel.stats().namespaces(1).first().memory);
        QVERIFY(!plot->xAxis->label().isEmpty());
        QVERIFY(!plot->yAxis->label().isEmpty());

        // By length, per type: the longest list is queue:N with 3 items, all equal — the first found.
        panel.setTopKeysView(KeyType::String, true);
        QCOMPARE(panel.topKeysModel()->at(0).name, QByteArray("bin\x00:ary", 8));
        QCOMPARE(panel.topKeysModel()->at(0).elements, qint64(9000));
        panel.setTopKeysView(KeyType::Unknown, false);
        QCOMPARE(panel.topKeysModel()->rowCount(), 50);

        QCoreApplication::processEvents(); // the queued replot
        const QImage shot = panel.grab().toImage();
        QVERIFY(!shot.isNull());
        // The bars are painted: a good share of the plot is in the bars' colour.
        const QImage chart = plot->grab().toImage();
        const QRgb barColour = bars->brush().color().rgb();
        int barPixels = 0;
        for (int y = 0; y < chart.height(); ++y)
            for (int x = 0; x < chart.width(); ++x)
                barPixels += chart.pixel(x, y) == barColour;
        QVERIFY2(barPixels > chart.width() * chart.height() / 50, qPrintable(QString::number(barPixels)));
        const QString out = qEnvironmentVariable("REDISLENS_SCREENSHOT_DIR");
        if (!out.isEmpty())
            shot.save(out + QStringLiteral("/memory-panel.png"));
    }

    void clicksFilterAndOpen()
    {
        RedisClient client(m_server.profile());
        client.connectToServer();
        QVERIFY(waitForReady(client));
        MemoryPanel panel(&client);
        panel.resize(1000, 700);
        panel.show();
        QVERIFY(runAnalysis(panel));

        QSignalSpy filter(&panel, &Panel::filterKeysRequested);
        QTableView *namespaces = panel.namespaceView();
        // Row 0 after sorting by memory is the largest namespace.
        const QModelIndex first = namespaces->model()->index(0, 0);
        namespaces->scrollTo(first);
        QTest::mouseClick(namespaces->viewport(), Qt::LeftButton, {}, namespaces->visualRect(first).center());
        QCOMPARE(filter.size(), 1);
        const auto f = filter.first().first().value<KeyFilter>();
        QCOMPARE(f.prefix, panel.stats().namespaces(1).first().prefix);
        QCOMPARE(f.ttl, KeyFilter::Ttl::Any);

        QSignalSpy open(&panel, &Panel::openKeyRequested);
        panel.setTopKeysView(KeyType::String, false);
        QTableView *top = panel.topKeysView();
        const QModelIndex key = top->model()->index(0, 1);
        top->setCurrentIndex(key);
        Q_EMIT top->activated(key);
        QCOMPARE(open.size(), 1);
        QCOMPARE(open.first().first().toByteArray(), QByteArray("bin\x00:ary", 8));
        QCOMPARE(open.first().at(1).value<KeyType>(), KeyType::String);
    }

    void deniedMemoryUsageSaysWhy()
    {
        m_server.command({"ACL", "SETUSER", "nomem", "on", ">pw", "~*", "+@all", "-memory"});
        ConnectionProfile profile = m_server.profile();
        profile.username = QStringLiteral("nomem");
        profile.password = QStringLiteral("pw");
        RedisClient client(profile);
        client.connectToServer();
        QVERIFY(waitForReady(client));
        MemoryPanel panel(&client);
        panel.show();
        QVERIFY(runAnalysis(panel));
        QCOMPARE(panel.stats().keyCount(), quint64(622));
        QCOMPARE(panel.stats().measuredCount(), quint64(0));
        auto *error = panel.findChild<QLabel *>(QStringLiteral("memoryError"));
        QVERIFY(error && error->isVisible());
        QVERIFY2(error->text().contains(QLatin1String("+memory")), qPrintable(error->text()));
        // Lengths still work: the biggest string by length is known.
        QCOMPARE(panel.stats().biggestByElements(KeyType::String).elements, qint64(9000));
    }
};

QTEST_MAIN(TstMemoryPanel)
#include "tst_memorypanel.moc"
