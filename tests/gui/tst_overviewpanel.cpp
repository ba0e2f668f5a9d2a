// SPDX-License-Identifier: GPL-3.0-or-later
#include "chartstyle.h"
#include "overviewpanel.h"
#include "qcp.h"
#include "redisclient.h"
#include "testdata.h"
#include "testserver.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QWheelEvent>

#include <cmath>
#include <memory>

using Series = HealthSeries::Series;

namespace {
constexpr int kWaitMs = 20000;
constexpr int kPollMs = 100;
} // namespace

// The Overview panel against a real redis-server: it polls while active, charts what it
// samples on four labelled charts, follows the window selector, freezes when paused, exports,
// explains what it cannot read, and survives a restart without negative rates.
class TestOverviewPanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void chartsFillAndAxesAreLabelled();
    void headerShowsFacts();
    void trafficShowsAsRates();
    void windowSelectorSetsRange();
    void pauseFreezesTheView();
    void wheelZoomsAllChartsAndPauses();
    void hoverShowsValues();
    void followsPalette();
    void exports();
    void pollErrorKeepsData();
    void configDeniedSaysSo();
    void pollStopsWhenInactive();
    void restartIsAGapNotASpike();

private:
    // The live view: right-aligned on the newest sample once the history is longer than the
    // window; before that, the history grows from the left edge (2 % of the window in).
    bool followsLive(const QCPRange &range) const
    {
        const HealthSeries *h = m_panel->healthSeries();
        const double last = h->lastSampleTime();
        const double window = m_panel->timeWindow();
        if (!range.contains(last) || std::abs(range.size() - window) > 1e-6)
            return false;
        return std::abs(range.upper - last) < 1e-6
            || std::abs(range.lower - (h->firstSampleTime() - window * 0.02)) < 1e-6;
    }
    template <typename T> T *child(const char *name) const { return requireChild<T>(m_panel.get(), name); }
    QString headerText(OverviewPanel *panel) const
    {
        QStringList out;
        const QList<QLabel *> labels
            = panel->findChild<QWidget *>(QStringLiteral("overviewHeader"))->findChildren<QLabel *>();
        for (const QLabel *l : labels)
            out << l->text();
        return out.join(QLatin1Char('\n'));
    }
    QCPAxis *timeAxis(int chart) const { return m_panel->plot()->axisRect(chart)->axis(QCPAxis::atBottom); }
    bool waitForSamples(int more)
    {
        const int target = m_panel->healthSeries()->sampleCount() + more;
        return QTest::qWaitFor([&] { return m_panel->healthSeries()->sampleCount() >= target; }, kWaitMs);
    }
    // Waits until the charts show every sample taken so far (they refresh on their own timer).
    bool waitForCharts()
    {
        return QTest::qWaitFor(
            [&] {
                const QCPGraph *g = m_panel->plot()->graph(0);
                return !g->data()->isEmpty()
                    && g->data()->at(g->data()->size() - 1)->key >= m_panel->healthSeries()->lastSampleTime();
            },
            kWaitMs);
    }
    // How often the server refused a command to the default user (ACL LOG counts repeats).
    qint64 deniedCount()
    {
        const RedisValue log = m_server.command({"ACL", "LOG", "1"});
        if (log.size() == 0)
            return 0;
        const RedisValue &entry = log.at(0);
        for (qsizetype i = 0; i + 1 < entry.size(); i += 2)
            if (entry.at(i).bytes() == "count")
                return entry.at(i + 1).toInteger();
        return 0;
    }
    qint64 infoCalls()
    {
        const RedisValue v = m_server.command({"INFO", "commandstats"});
        const ServerInfo stats = ServerInfo::parse(v.bytes());
        for (const auto &[k, value] : ServerInfo::subfields(stats.value("cmdstat_info")))
            if (k == "calls")
                return value.toLongLong();
        return 0;
    }
    void traffic(int n)
    {
        QList<QList<QByteArray>> cmds;
        for (int i = 0; i < n; ++i) {
            cmds << QList<QByteArray>{"SET", "k:" + QByteArray::number(i), QByteArray(200, 'x')};
            cmds << QList<QByteArray>{"GET", "k:" + QByteArray::number(i)};
            cmds << QList<QByteArray>{"GET", "missing:" + QByteArray::number(i % 3)};
        }
        m_server.pipeline(cmds);
    }
    // Saves a screenshot into the test's temporary directory (and $REDISLENS_SCREENSHOT_DIR).
    QImage screenshot(const QString &name)
    {
        // The plot replots on the next event loop pass; grab what it will show.
        m_panel->plot()->replot(QCustomPlot::rpImmediateRefresh);
        const QImage image = m_panel->grab().toImage();
        image.save(m_dir.filePath(name));
        const QString keep = qEnvironmentVariable("REDISLENS_SCREENSHOT_DIR");
        if (!keep.isEmpty())
            image.save(QDir(keep).filePath(name));
        return image;
    }
    static int distinctColours(const QImage &image)
    {
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 3)
            for (int x = 0; x < image.width(); x += 3)
                colours.insert(image.pixel(x, y));
        return int(colours.size());
    }
    // The colours of every series' pen that appear in the image: a plot that drew its lines.
    int seriesColoursDrawn(const QImage &image) const
    {
        QSet<QRgb> pens;
        for (int i = 0; i < m_panel->plot()->graphCount(); ++i)
            pens.insert(m_panel->plot()->graph(i)->pen().color().rgb());
        QSet<QRgb> seen;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                if (pens.contains(image.pixel(x, y)))
                    seen.insert(image.pixel(x, y));
        return int(seen.size());
    }

    TestServer m_server;
    std::unique_ptr<RedisClient> m_client;
    std::unique_ptr<OverviewPanel> m_panel;
    QTemporaryDir m_dir;
};

void TestOverviewPanel::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QString error;
    QVERIFY2(m_server.start(&error), qPrintable(error));
    m_client = connectedClient(m_server.profile());
    QVERIFY(m_client);
    m_panel = std::make_unique<OverviewPanel>(m_client.get());
    QCOMPARE(m_panel->pollInterval(), 1000);
    m_panel->setPollInterval(kPollMs);
    QCOMPARE(m_panel->pollInterval(), kPollMs);
    m_panel->resize(1100, 860);
    m_panel->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_panel.get()));
    QVERIFY(!m_panel->hasContent());
    QSignalSpy ready(m_panel.get(), &Panel::contentReady);
    m_panel->setActive(true);
    traffic(50);
    QVERIFY(ready.wait(kWaitMs));
    QVERIFY(m_panel->hasContent());
}

void TestOverviewPanel::cleanupTestCase()
{
    m_panel.reset();
    m_client.reset();
}

void TestOverviewPanel::chartsFillAndAxesAreLabelled()
{
    QVERIFY(waitForSamples(3));
    QVERIFY(waitForCharts());
    QCustomPlot *plot = m_panel->plot();
    QCOMPARE(plot->axisRectCount(), 4);
    for (int c = 0; c < plot->axisRectCount(); ++c) {
        QCPAxisRect *rect = plot->axisRect(c);
        QVERIFY2(!rect->axis(QCPAxis::atLeft)->label().isEmpty(), qPrintable(QString::number(c)));
        QVERIFY(!rect->graphs().isEmpty());
        // Every chart has a line with data in view.
        bool drawn = false;
        for (QCPGraph *g : rect->graphs()) {
            bool found = false;
            g->getValueRange(found, QCP::sdBoth, rect->axis(QCPAxis::atBottom)->range());
            drawn = drawn || found;
        }
        QVERIFY2(drawn, qPrintable(rect->axis(QCPAxis::atLeft)->label()));
    }
    QCOMPARE(timeAxis(3)->label(), QStringLiteral("Time"));
    QVERIFY(timeAxis(3)->tickLabels());
    QVERIFY(plot->axisRect(0)->axis(QCPAxis::atRight)->visible());
    QVERIFY(!plot->axisRect(0)->axis(QCPAxis::atRight)->label().isEmpty());
    // Memory ticks read in bytes.
    QVector<double> ticks;
    QVector<QString> labels;
    QCPAxis *memory = plot->axisRect(0)->axis(QCPAxis::atLeft);
    memory->ticker()->generate(memory->range(), QLocale::c(), QLatin1Char('g'), 6, ticks, nullptr, &labels);
    QVERIFY(labels.size() >= 2);
    QVERIFY2(labels.last().endsWith(QLatin1String("iB")) || labels.last().endsWith(QLatin1String(" B")),
             qPrintable(labels.join(QLatin1Char(','))));

    const QImage image = screenshot(QStringLiteral("overview.png"));
    QVERIFY(!image.isNull());
    QVERIFY(distinctColours(image) > 20);
    QVERIFY2(seriesColoursDrawn(plot->grab().toImage()) >= 4, "no series lines drawn");
}

void TestOverviewPanel::headerShowsFacts()
{
    m_server.command({"SET", "header:a", "1", "EX", "1000"});
    m_server.command({"SET", "header:b", "1"});
    const QByteArray version = ServerInfo::parse(m_server.command({"INFO", "server"}).bytes()).value("redis_version");
    QTRY_VERIFY_WITH_TIMEOUT(headerText(m_panel.get()).contains(QString::fromLatin1(version)), kWaitMs);
    const QString text = headerText(m_panel.get());
    QVERIFY2(text.contains(QLatin1String("master")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("noeviction")), qPrintable(text));
    // The test server runs without persistence; the default user may read CONFIG.
    QTRY_VERIFY_WITH_TIMEOUT(headerText(m_panel.get()).contains(QStringLiteral("save: off · appendonly: no")), kWaitMs);
    const qint64 keys = m_server.command({"DBSIZE"}).toInteger();
    QTRY_VERIFY_WITH_TIMEOUT(headerText(m_panel.get()).contains(QStringLiteral("db0: %1 keys, 1 expires").arg(keys)),
                             kWaitMs);
}

void TestOverviewPanel::trafficShowsAsRates()
{
    QVERIFY(waitForSamples(1));
    traffic(300);
    QVERIFY(waitForSamples(2));
    const HealthSeries *h = m_panel->healthSeries();
    auto highest = [h](Series s) {
        double top = -1;
        for (const TimeSeries::Point &p : h->series(s).points())
            if (!std::isnan(p.v))
                top = std::max(top, p.v);
        return top;
    };
    QVERIFY(highest(Series::OpsPerSec) > 100);
    QVERIFY(highest(Series::NetInPerSec) > 1000);
    QVERIFY(highest(Series::HitRatio) > 0);
    QVERIFY(highest(Series::HitRatio) <= 100);
    QVERIFY(highest(Series::ConnectedClients) >= 1);
    QVERIFY(highest(Series::UsedMemory) > 0);
}

void TestOverviewPanel::windowSelectorSetsRange()
{
    auto *box = child<QComboBox>("overviewWindow");
    QCOMPARE(box->count(), 5);
    const int expected[] = {300, 900, 3600, 6 * 3600, 24 * 3600};
    for (int i = box->count() - 1; i >= 0; --i) {
        box->setCurrentIndex(i);
        QCOMPARE(m_panel->timeWindow(), expected[i]);
        for (int c = 0; c < 4; ++c)
            QVERIFY2(std::abs(timeAxis(c)->range().size() - expected[i]) < 1e-6, qPrintable(box->currentText()));
        QVERIFY(followsLive(timeAxis(0)->range()));
    }
    QCOMPARE(box->currentIndex(), 0);
}

void TestOverviewPanel::pauseFreezesTheView()
{
    m_panel->setTimeWindow(300);
    QVERIFY(waitForSamples(1));
    QVERIFY(waitForCharts());
    auto *pause = child<QToolButton>("overviewPause");
    pause->click();
    QVERIFY(m_panel->isPaused());
    const QCPRange frozen = timeAxis(0)->range();
    const int dataBefore = m_panel->plot()->graph(0)->dataCount();
    // Sampling continues and the charts take the new points, but the view stays put.
    QVERIFY(waitForSamples(3));
    QVERIFY(waitForCharts());
    QVERIFY(m_panel->plot()->graph(0)->dataCount() > dataBefore);
    QCOMPARE(timeAxis(0)->range().lower, frozen.lower);
    QCOMPARE(timeAxis(0)->range().upper, frozen.upper);
    pause->click();
    QVERIFY(!m_panel->isPaused());
    QVERIFY(followsLive(timeAxis(0)->range()));
    QVERIFY(followsLive(timeAxis(3)->range()));
}

void TestOverviewPanel::wheelZoomsAllChartsAndPauses()
{
    m_panel->setTimeWindow(900);
    QCustomPlot *plot = m_panel->plot();
    const QRect memory = plot->axisRect(0)->rect();
    const QPointF at = memory.center();
    QWheelEvent wheel(at, plot->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(plot, &wheel);
    QVERIFY(m_panel->isPaused());
    const QCPRange zoomed = timeAxis(0)->range();
    QVERIFY2(zoomed.size() < 900 - 1, qPrintable(QString::number(zoomed.size())));
    for (int c = 1; c < 4; ++c) {
        QCOMPARE(timeAxis(c)->range().lower, zoomed.lower);
        QCOMPARE(timeAxis(c)->range().upper, zoomed.upper);
    }
    // Double-clicking a chart returns to the selected window, live.
    QTest::mouseDClick(plot, Qt::LeftButton, Qt::NoModifier, memory.center());
    QTest::mouseRelease(plot, Qt::LeftButton, Qt::NoModifier, memory.center());
    QVERIFY(!m_panel->isPaused());
    QVERIFY(std::abs(timeAxis(2)->range().size() - 900) < 1e-6);
}

void TestOverviewPanel::hoverShowsValues()
{
    m_panel->setTimeWindow(300);
    QVERIFY(waitForCharts());
    m_panel->plot()->replot(QCustomPlot::rpImmediateRefresh);
    QCPAxisRect *clients = m_panel->plot()->axisRect(3);
    const double t = m_panel->healthSeries()->lastSampleTime() - 0.5;
    const QPoint at(int(clients->axis(QCPAxis::atBottom)->coordToPixel(t)), clients->rect().center().y());
    QTest::mouseMove(m_panel->plot(), at);
    QTRY_VERIFY_WITH_TIMEOUT(!m_panel->hoverText().isEmpty(), kWaitMs);
    const QString text = m_panel->hoverText();
    for (const char *expected :
         {"used", "RSS", "commands/s", "errors/s", "net in", "hit ratio", "evicted/s", "connected", "blocked"})
        QVERIFY2(text.contains(QLatin1String(expected)), qPrintable(text));
    // Values, not only names: connected clients is at least our own connection.
    QVERIFY2(!text.contains(QStringLiteral("connected –")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("iB")), qPrintable(text));
    QTest::mouseMove(m_panel->plot(), QPoint(2, 2)); // outside every chart
    QTRY_VERIFY_WITH_TIMEOUT(m_panel->hoverText().isEmpty(), kWaitMs);
}

void TestOverviewPanel::followsPalette()
{
    const QPalette light = m_panel->palette();
    QPalette dark = light;
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::Text, QColor(0xe0, 0xe0, 0xe0));
    dark.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0));
    m_panel->setPalette(dark);
    QCustomPlot *plot = m_panel->plot();
    QCOMPARE(plot->axisRect(2)->backgroundBrush().color(), dark.color(QPalette::Base));
    QCOMPARE(plot->axisRect(2)->axis(QCPAxis::atLeft)->tickLabelColor(), dark.color(QPalette::Text));
    QCOMPARE(plot->graph(0)->pen().color(), chartstyle::series(0, dark));
    auto *legend = qobject_cast<QCPLegend *>(plot->axisRect(3)->insetLayout()->elementAt(0));
    QVERIFY(legend);
    QVERIFY(legend->itemCount() > 0);
    QCOMPARE(legend->item(0)->textColor(), dark.color(QPalette::Text));
    QCOMPARE(legend->brush().color(), dark.color(QPalette::Base));
    const QImage image = screenshot(QStringLiteral("overview-dark.png"));
    // Mostly the dark base inside a chart (grid and lines aside).
    const QRect inside = plot->axisRect(1)->rect().translated(plot->mapTo(m_panel.get(), QPoint()));
    int base = 0, total = 0;
    for (int y = inside.top(); y < inside.bottom(); y += 4)
        for (int x = inside.left(); x < inside.right(); x += 4, ++total)
            base += image.pixel(x, y) == dark.color(QPalette::Base).rgb();
    QVERIFY2(base > total * 8 / 10, qPrintable(QStringLiteral("%1 of %2").arg(base).arg(total)));
    m_panel->setPalette(light);
    QCOMPARE(plot->graph(0)->pen().color(), chartstyle::series(0, light));
    QCOMPARE(legend->item(0)->textColor(), light.color(QPalette::Text));
}

void TestOverviewPanel::exports()
{
    const QString png = m_dir.filePath(QStringLiteral("charts.png"));
    QString error;
    QVERIFY2(m_panel->exportPng(png, &error), qPrintable(error));
    const QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), m_panel->plot()->size());
    QVERIFY(distinctColours(image) > 20);
    QVERIFY(seriesColoursDrawn(image) >= 4);

    const QString csv = m_dir.filePath(QStringLiteral("series.csv"));
    QVERIFY2(m_panel->exportCsv(csv, &error), qPrintable(error));
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
    QVERIFY(lines.size() >= 1 + m_panel->healthSeries()->sampleCount());
    QVERIFY(lines.first().startsWith("time_utc,epoch_seconds,used_memory_bytes"));
    QCOMPARE(lines.last().count(','), lines.first().count(','));

    QVERIFY(!m_panel->exportCsv(m_dir.filePath(QStringLiteral("no/such/dir/x.csv")), &error));
    QVERIFY(!error.isEmpty());
}

void TestOverviewPanel::pollErrorKeepsData()
{
    QVERIFY(waitForSamples(1));
    m_server.command({"ACL", "SETUSER", "default", "-info"});
    QTRY_VERIFY_WITH_TIMEOUT(m_panel->statusText().contains(QLatin1String("+info")), kWaitMs);
    const int samples = m_panel->healthSeries()->sampleCount();
    const int points = m_panel->plot()->graph(0)->dataCount();
    QVERIFY(points >= 2);
    QVERIFY(!m_panel->statusText().contains(QLatin1Char('\n')));
    // Still failing a few polls later; nothing charted was dropped.
    const qint64 denied = deniedCount();
    QVERIFY(denied >= 1);
    QTRY_VERIFY_WITH_TIMEOUT(deniedCount() >= denied + 3, kWaitMs);
    QCOMPARE(m_panel->healthSeries()->sampleCount(), samples);
    QVERIFY(m_panel->plot()->graph(0)->dataCount() >= points);
    QVERIFY(m_panel->hasContent());

    m_server.command({"ACL", "SETUSER", "default", "+info"});
    QVERIFY(waitForSamples(1));
    QTRY_VERIFY_WITH_TIMEOUT(m_panel->statusText().isEmpty(), kWaitMs);
}

void TestOverviewPanel::configDeniedSaysSo()
{
    QCOMPARE(m_server.command({"ACL", "SETUSER", "watcher", "on", ">secret", "~*", "&*", "+@all", "-config"}).bytes(),
             QByteArray("OK"));
    ConnectionProfile profile = m_server.profile();
    profile.username = QStringLiteral("watcher");
    profile.password = QStringLiteral("secret");
    RedisClient client(profile);
    client.connectToServer();
    QVERIFY(waitForReady(client));
    OverviewPanel panel(&client);
    panel.setPollInterval(kPollMs);
    panel.resize(900, 700);
    panel.show();
    panel.setActive(true);
    QTRY_VERIFY_WITH_TIMEOUT(headerText(&panel).contains(QLatin1String("save: unknown (no CONFIG permission)")),
                             kWaitMs);
    // Persistence still says what INFO knows.
    QVERIFY2(headerText(&panel).contains(QLatin1String("appendonly: no")), qPrintable(headerText(&panel)));
    QTRY_VERIFY_WITH_TIMEOUT(panel.hasContent(), kWaitMs);
    QVERIFY(panel.statusText().isEmpty());
    panel.setActive(false);
}

void TestOverviewPanel::pollStopsWhenInactive()
{
    QSignalSpy samples(m_panel->healthSeries(), &HealthSeries::sampleAdded);
    m_panel->setActive(false);
    QTRY_COMPARE_WITH_TIMEOUT(m_client->pendingCount(), 0, kWaitMs);
    samples.clear();
    const qint64 calls = infoCalls();
    // Ten poll intervals without a single INFO from the panel (the check's own INFO is one).
    QVERIFY(!samples.wait(10 * kPollMs));
    QCOMPARE(infoCalls(), calls + 1);
    QCOMPARE(samples.size(), 0);
    const double hiddenAt = m_panel->healthSeries()->lastSampleTime();
    m_panel->setActive(true);
    QVERIFY(samples.wait(kWaitMs));
    // The time it was inactive is a gap in the lines, and no rate spans it.
    const QList<TimeSeries::Point> used = m_panel->healthSeries()->series(Series::UsedMemory).points();
    QVERIFY(used.size() >= 3);
    QVERIFY(std::isnan(used[used.size() - 2].v));
    QVERIFY(used[used.size() - 2].t > hiddenAt);
    QVERIFY(std::isnan(m_panel->healthSeries()->series(Series::OpsPerSec).last().v));
}

void TestOverviewPanel::restartIsAGapNotASpike()
{
    m_panel->setTimeWindow(300);
    traffic(200);
    QVERIFY(waitForSamples(2));
    const int resets = m_panel->healthSeries()->resetCount();
    const QByteArray runBefore = m_panel->healthSeries()->latest().value("run_id");
    m_server.server().kill();
    QString error;
    QVERIFY2(m_server.server().restart(&error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(m_panel->healthSeries()->latest().value("run_id") != runBefore, kWaitMs);
    QVERIFY(m_panel->healthSeries()->resetCount() > resets);
    QVERIFY(waitForSamples(2));
    for (int s = 0; s < HealthSeries::kSeriesCount; ++s)
        for (const TimeSeries::Point &p : m_panel->healthSeries()->series(Series(s)).points())
            QVERIFY2(std::isnan(p.v) || p.v >= 0, qPrintable(HealthSeries::columnName(Series(s))));
    QTRY_VERIFY_WITH_TIMEOUT(m_panel->statusText().isEmpty(), kWaitMs);
    QVERIFY(waitForCharts());
    screenshot(QStringLiteral("overview-after-restart.png"));
}

QTEST_MAIN(TestOverviewPanel)
#include "tst_overviewpanel.moc"
