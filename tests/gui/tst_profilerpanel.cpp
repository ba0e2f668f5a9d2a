// SPDX-License-Identifier: GPL-3.0-or-later
#include "clientlist.h"
#include "commandstats.h"
#include "confirmations.h"
#include "hotkeysreader.h"
#include "profilerpanel.h"
#include "profilerreader.h"
#include "redisclient.h"
#include "screenshots.h"
#include "testdata.h"
#include "testserver.h"
#include "theme.h"

#include "qcp.h"

#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTest>
#include <QTimer>
#include <QUuid>

#include <memory>

namespace {

constexpr int kWaitMs = 30000;

// Rows of a table as the view shows them (sorted), one column.
QStringList column(QTableView *view, int column)
{
    QStringList out;
    const QAbstractItemModel *m = view->model();
    for (int r = 0; r < m->rowCount(); ++r)
        out << m->index(r, column).data().toString();
    return out;
}

bool hasMonitorClient(TestServer &server)
{
    for (const ClientEntry &c : parseClientList(server.command({"CLIENT", "LIST"}).bytes()))
        if (c.flags.contains('O'))
            return true;
    return false;
}

// Application traffic of a known shape, a little every 100 ms: a rate limiter's windows, a
// cache, a leaderboard, a queue, from a client named "checkout".
class Traffic
{
public:
    explicit Traffic(quint16 port) : m_raw(port)
    {
        m_raw.command({"CLIENT", "SETNAME", "checkout"});
        QObject::connect(&m_timer, &QTimer::timeout, [this] { tick(); });
        m_timer.start(100);
    }
    void tick()
    {
        QList<QList<QByteArray>> batch;
        const QByteArray window = QByteArray::number(QDateTime::currentSecsSinceEpoch() / 60);
        for (int i = 0; i < 30; ++i) {
            const QByteArray user = QByteArray::number(1000 + (m_n + i) % 7);
            batch << QList<QByteArray>{"INCR", "rate:api:" + user + ':' + window};
            batch << QList<QByteArray>{"GET", "cache:product:" + QByteArray::number((m_n + i) % 40)};
        }
        for (int i = 0; i < 8; ++i)
            batch << QList<QByteArray>{"SET", "cache:product:" + QByteArray::number((m_n + i) % 40),
                                       "{\"sku\":" + QByteArray::number(i) + "}", "EX", "300"};
        batch << QList<QByteArray>{"ZINCRBY", "leaderboard:weekly", "3", "player:" + QByteArray::number(m_n % 9)};
        batch << QList<QByteArray>{"LPUSH", "queue:emails", "job-" + QByteArray::number(m_n)};
        batch << QList<QByteArray>{"RPOP", "queue:emails"};
        batch << QList<QByteArray>{"HSET", "cache:product:1", "f", "v"}; // WRONGTYPE: a failed call
        m_raw.pipeline(batch);
        ++m_n;
    }

private:
    RawConnection m_raw;
    QTimer m_timer;
    int m_n = 0;
};

} // namespace

class TestProfilerPanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void ratesTableAndChart();
    void rankByServerTime();
    void pollsOnlyWhileActive();
    void captureAsksFirst();
    void captureSummaryAndScreenshots();
    void captureRefusedWithoutMonitorPermission();
    void hotKeysUnderLfu();
    void hotKeysExplainOtherPolicy();
    void readOnlyPanelSendsOnlyReads();

private:
    template <typename T> T *child(const char *name) const { return requireChild<T>(m_panel.get(), name); }
    bool waitForRates();
    void screenshot(const QString &name);

    TestServer m_server;
    std::unique_ptr<RedisClient> m_client;
    std::unique_ptr<ProfilerPanel> m_panel;
    std::unique_ptr<Traffic> m_traffic;
};

void TestProfilerPanel::initTestCase()
{
    QString error;
    QVERIFY2(m_server.start(&error), qPrintable(error));
    m_traffic = std::make_unique<Traffic>(m_server.port());
    m_client = connectedClient(m_server.profile());
    QVERIFY(m_client);
    m_panel = std::make_unique<ProfilerPanel>(m_client.get());
    m_panel->setPollInterval(250);
    m_panel->resize(1200, 800);
    m_panel->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_panel.get()));
    QSignalSpy ready(m_panel.get(), &Panel::contentReady);
    QVERIFY(!m_panel->hasContent());
    m_panel->setActive(true);
    QTRY_VERIFY_WITH_TIMEOUT(m_panel->hasContent(), kWaitMs);
    QCOMPARE(ready.size(), 1);
}

void TestProfilerPanel::cleanupTestCase()
{
    m_traffic.reset();
    m_panel.reset();
    m_client.reset();
}

bool TestProfilerPanel::waitForRates()
{
    QSignalSpy spy(m_panel->reader(), &ProfilerReader::statsAvailable);
    return spy.wait(kWaitMs) && (spy.size() > 1 || spy.wait(kWaitMs));
}

void TestProfilerPanel::screenshot(const QString &name)
{
    QCoreApplication::processEvents();
    m_panel->plot()->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(screenshots::save(m_panel->grab().toImage(), name + QStringLiteral(".png")));
    theme::apply(theme::Theme::Dark);
    QCoreApplication::processEvents();
    m_panel->plot()->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(screenshots::save(m_panel->grab().toImage(), name + QStringLiteral("-dark.png")));
    theme::apply(theme::Theme::Light);
    QCoreApplication::processEvents();
}

// The traffic's commands with their rates; the five busiest on the chart.
void TestProfilerPanel::ratesTableAndChart()
{
    QVERIFY(waitForRates());
    QTableView *view = m_panel->commandsView();
    QTRY_VERIFY_WITH_TIMEOUT(column(view, 0).contains(QStringLiteral("INCR")), kWaitMs);
    const QStringList commands = column(view, 0);
    for (const char *c : {"INCR", "GET", "SET", "ZINCRBY", "LPUSH", "RPOP", "HSET", "INFO"})
        QVERIFY2(commands.contains(QLatin1String(c)), c);
    // Sorted by calls per second: INCR and GET (30 a tick each) lead.
    QVERIFY(commands.indexOf(QStringLiteral("INCR")) < 2);
    QVERIFY(commands.indexOf(QStringLiteral("GET")) < 2);
    const int hset = int(commands.indexOf(QStringLiteral("HSET")));
    const QModelIndex failed = view->model()->index(hset, view->model()->columnCount() - 1);
    QVERIFY(failed.data().toString() != QStringLiteral("0")
            || failed.data(Qt::ToolTipRole).toString().contains(QStringLiteral("failed in the session")));
    QVERIFY(m_panel->statusText().contains(QStringLiteral("calls/s")));

    const QList<QByteArray> charted = m_panel->chartedCommands();
    QCOMPARE(charted.size(), ProfilerPanel::kChartedCommands);
    QVERIFY(charted.contains("incr"));
    QVERIFY(charted.contains("get"));
    QCustomPlot *plot = m_panel->plot();
    int lines = 0;
    for (int i = 0; i < plot->graphCount(); ++i)
        lines += plot->graph(i)->visible() && plot->graph(i)->dataCount() >= 1 ? 1 : 0;
    QCOMPARE(lines, ProfilerPanel::kChartedCommands);
    QCOMPARE(plot->legend->itemCount(), ProfilerPanel::kChartedCommands);
    // Commands the server ran before the session only are not the session's.
    QVERIFY(!commands.contains(QStringLiteral("CLIENT|SETNAME")));
    // A few seconds of lines for the picture.
    QTRY_VERIFY_WITH_TIMEOUT(m_panel->reader()->tracker().sessionSecs() >= 8, kWaitMs);
    QVERIFY(plot->graph(0)->dataCount() >= 10);
    screenshot(QStringLiteral("profiler-rates"));
}

void TestProfilerPanel::rankByServerTime()
{
    child<QRadioButton>("profilerByTime")->click();
    QTableView *view = m_panel->commandsView();
    QCOMPARE(view->horizontalHeader()->sortIndicatorSection(), 3);
    // Sorted by the share of server time, highest first.
    const QAbstractItemModel *m = view->model();
    for (int r = 1; r < m->rowCount(); ++r)
        QVERIFY(m->index(r - 1, 3).data(RowTableRoles::SortRole).toDouble()
                >= m->index(r, 3).data(RowTableRoles::SortRole).toDouble());
    QCOMPARE(m_panel->chartedCommands(),
             m_panel->reader()->tracker().topBySessionTime(ProfilerPanel::kChartedCommands));
    child<QRadioButton>("profilerByCalls")->click();
    QCOMPARE(view->horizontalHeader()->sortIndicatorSection(), 1);
}

void TestProfilerPanel::pollsOnlyWhileActive()
{
    RawConnection raw(m_server.port());
    m_panel->setActive(false);
    QTest::qWait(400); // a reading on the wire lands or is dropped
    const qint64 before = commandCalls(raw, {"info"});
    QTest::qWait(1200);
    // Only this check's own INFO.
    QCOMPARE(commandCalls(raw, {"info"}), before + 1);
    m_panel->setActive(true);
    QTRY_VERIFY_WITH_TIMEOUT(commandCalls(raw, {"info"}) > before + 4, kWaitMs);
}

void TestProfilerPanel::captureAsksFirst()
{
    m_panel->showTab(ProfilerPanel::CaptureTab);
    ConfirmationAnswerer answer(ConfirmationAnswerer::Reject);
    child<QPushButton>("captureStart")->click();
    QCOMPARE(answer.count(), 1);
    QCOMPARE(answer.objectName(), QStringLiteral("confirmation"));
    QVERIFY(answer.cancelWasDefault());
    QVERIFY(answer.text().contains(QStringLiteral("it can halve")));
    QVERIFY(answer.text().contains(QStringLiteral("10,000 lines")));
    QCOMPARE(m_panel->capture()->state(), MonitorCapture::State::Idle);
    QTest::qWait(300);
    QVERIFY(!hasMonitorClient(m_server));
    // The spin boxes cannot ask for more than the bounds.
    auto *lines = child<QSpinBox>("captureMaxLines");
    auto *seconds = child<QSpinBox>("captureMaxSeconds");
    lines->setValue(10000000);
    seconds->setValue(600);
    QCOMPARE(lines->value(), MonitorCapture::kMaxLines);
    QCOMPARE(seconds->value(), MonitorCapture::kMaxMs / 1000);
}

void TestProfilerPanel::captureSummaryAndScreenshots()
{
    m_panel->showTab(ProfilerPanel::CaptureTab);
    child<QSpinBox>("captureMaxLines")->setValue(50000);
    child<QSpinBox>("captureMaxSeconds")->setValue(2);
    ConfirmationAnswerer answer(ConfirmationAnswerer::Accept);
    QSignalSpy finished(m_panel->capture(), &MonitorCapture::finished);
    child<QPushButton>("captureStart")->click();
    QCOMPARE(answer.count(), 1);
    QTRY_VERIFY_WITH_TIMEOUT(m_panel->capture()->state() == MonitorCapture::State::Running, kWaitMs);
    QVERIFY(child<QPushButton>("captureStop")->isEnabled());
    QVERIFY(!child<QPushButton>("captureStart")->isEnabled());
    QVERIFY(m_panel->captureStatusText().startsWith(QStringLiteral("Capturing:")));
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(m_panel->capture()->end(), MonitorCapture::End::TimeBound);
    QVERIFY2(m_panel->captureStatusText().startsWith(QStringLiteral("Ran its 2.0 s")),
             qPrintable(m_panel->captureStatusText()));
    QVERIFY(m_panel->captureStatusText().contains(QStringLiteral("RedisLens's own connections, left out")));
    QVERIFY(!hasMonitorClient(m_server));

    auto *families = child<QTableView>("captureFamilies");
    const QStringList names = column(families, 0);
    QVERIFY(names.size() >= 4);
    // INCR and GET name a key 30 times a tick each, SET 8: the rate windows and the cache lead.
    QVERIFY(names.indexOf(familyOf("rate:api:1000:1")) < 2);
    QVERIFY(names.indexOf(familyOf("cache:product:1")) < 2);
    const QStringList kinds = column(families, 1);
    QCOMPARE(kinds.at(names.indexOf(familyOf("cache:product:1"))), patternKindName(PatternKind::CacheEntry));
    QCOMPARE(kinds.at(names.indexOf(familyOf("rate:api:1000:1"))), patternKindName(PatternKind::FixedWindow));
    QCOMPARE(kinds.at(names.indexOf(QStringLiteral("leaderboard:weekly"))), patternKindName(PatternKind::Leaderboard));
    // The queue is drained as fast as it fills: its key is gone by the time it is read.
    QCOMPARE(kinds.at(names.indexOf(QStringLiteral("queue:emails"))), QStringLiteral("the key no longer exists"));

    auto *clients = child<QTableView>("captureClients");
    const QStringList clientNames = column(clients, 1);
    QCOMPARE(clientNames.first(), QStringLiteral("checkout"));
    QVERIFY(column(clients, 4).contains(QStringLiteral("own connection")));
    QVERIFY(!column(child<QTableView>("captureCommands"), 0).contains(QStringLiteral("INFO")));
    screenshot(QStringLiteral("profiler-capture"));

    // Stopped by the user: at once, with what arrived.
    child<QSpinBox>("captureMaxSeconds")->setValue(10);
    finished.clear();
    child<QPushButton>("captureStart")->click();
    QTRY_VERIFY_WITH_TIMEOUT(m_panel->capture()->lineCount() > 0, kWaitMs);
    child<QPushButton>("captureStop")->click();
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(m_panel->capture()->end(), MonitorCapture::End::Stopped);
    QVERIFY(m_panel->capture()->elapsedMs() < 10000);
    QVERIFY(m_panel->captureStatusText().startsWith(QStringLiteral("Stopped after")));
}

void TestProfilerPanel::captureRefusedWithoutMonitorPermission()
{
    const QByteArray secret = QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
    QCOMPARE(
        m_server.command({"ACL", "SETUSER", "analyst", "reset", "on", ">" + secret, "~*", "+@all", "-monitor"}).bytes(),
        QByteArray("OK"));
    ConnectionProfile profile = m_server.profile();
    profile.username = QStringLiteral("analyst");
    profile.password = QString::fromLatin1(secret);
    std::unique_ptr<RedisClient> client = connectedClient(profile);
    QVERIFY(client);
    ProfilerPanel panel(client.get());
    panel.resize(1000, 600);
    panel.show();
    panel.showTab(ProfilerPanel::CaptureTab);
    ConfirmationAnswerer answer(ConfirmationAnswerer::Accept);
    QSignalSpy finished(panel.capture(), &MonitorCapture::finished);
    panel.startCapture();
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(panel.captureStatusText(),
             QStringLiteral("MONITOR refused: this user may not run MONITOR (ACL +monitor)"));
    QVERIFY(requireChild<QPushButton>(&panel, "captureStart")->isEnabled());
}

void TestProfilerPanel::hotKeysUnderLfu()
{
    // Keys written under another policy carry an access clock where LFU reads a counter: the
    // sample starts from keys written under LFU.
    m_server.flushAll();
    m_server.command({"CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"});
    QList<QList<QByteArray>> setup;
    for (int i = 0; i < 500; ++i)
        setup << QList<QByteArray>{"SET", "session:" + QUuid::createUuid().toByteArray(QUuid::Id128),
                                   "{\"user_id\":" + QByteArray::number(i) + "}", "EX", "1800"};
    for (int i = 0; i < 3000; ++i)
        setup << QList<QByteArray>{"GET", "config:feature-flags"};
    setup.prepend({"SET", "config:feature-flags", "{\"beta\":true}"});
    m_server.pipeline(setup);

    m_panel->showTab(ProfilerPanel::HotKeysTab);
    QSignalSpy finished(m_panel->hotKeys(), &HotKeysReader::finished);
    child<QPushButton>("hotKeysFind")->click();
    QVERIFY(finished.wait(kWaitMs));
    auto *table = child<QTableView>("hotKeysTable");
    QVERIFY(table->model()->rowCount() > 10);
    QCOMPARE(table->model()->index(0, 0).data().toString(), QStringLiteral("config:feature-flags"));
    QVERIFY2(m_panel->hotKeysText().startsWith(QStringLiteral("OBJECT FREQ of ")), qPrintable(m_panel->hotKeysText()));
    QVERIFY(m_panel->hotKeysText().contains(QStringLiteral("allkeys-lfu")));
    // The sessions' kind, from a sample of their keys.
    QVERIFY(column(table, 2).contains(patternKindName(PatternKind::Session)));
    screenshot(QStringLiteral("profiler-hotkeys"));
    m_server.command({"CONFIG", "SET", "maxmemory-policy", "noeviction"});
}

void TestProfilerPanel::hotKeysExplainOtherPolicy()
{
    m_server.command({"CONFIG", "SET", "maxmemory-policy", "volatile-ttl"});
    QSignalSpy finished(m_panel->hotKeys(), &HotKeysReader::finished);
    m_panel->findHotKeys();
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(m_panel->hotKeysText(),
             QStringLiteral("No hot keys: OBJECT FREQ needs maxmemory-policy allkeys-lfu or volatile-lfu (this server: "
                            "volatile-ttl); RedisLens does not change it"));
    QCOMPARE(child<QTableView>("hotKeysTable")->model()->rowCount(), 0);
    QCOMPARE(m_server.command({"CONFIG", "GET", "maxmemory-policy"}).at(1).bytes(), QByteArray("volatile-ttl"));
    m_server.command({"CONFIG", "SET", "maxmemory-policy", "noeviction"});
}

// Everything the panel does, on a read-only connection: the server ran no command that writes
// and its data is byte for byte what it was.
void TestProfilerPanel::readOnlyPanelSendsOnlyReads()
{
    m_traffic.reset();
    m_panel->setActive(false);
    m_server.command({"CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"});
    RawConnection raw(m_server.port());
    const QByteArray digest = raw.command({"DEBUG", "DIGEST"}).bytes();
    QVERIFY(!digest.isEmpty());
    const QHash<QByteArray, qint64> before = commandCalls(raw);

    ConnectionProfile profile = m_server.profile();
    profile.readOnly = true;
    std::unique_ptr<RedisClient> client = connectedClient(profile);
    QVERIFY(client);
    QVERIFY(client->isReadOnly());
    ProfilerPanel panel(client.get());
    panel.setPollInterval(200);
    panel.resize(1000, 700);
    panel.show();
    panel.setActive(true);
    QTRY_VERIFY_WITH_TIMEOUT(panel.hasContent(), kWaitMs);
    ConfirmationAnswerer answer(ConfirmationAnswerer::Accept);
    QSignalSpy captured(panel.capture(), &MonitorCapture::finished);
    requireChild<QSpinBox>(&panel, "captureMaxSeconds")->setValue(1);
    panel.startCapture();
    QVERIFY(captured.wait(kWaitMs));
    QCOMPARE(panel.capture()->end(), MonitorCapture::End::TimeBound);
    QSignalSpy hot(panel.hotKeys(), &HotKeysReader::finished);
    panel.findHotKeys();
    QVERIFY(hot.wait(kWaitMs));
    QVERIFY(!panel.hotKeys()->keys().isEmpty());
    panel.resetSession();
    QTRY_VERIFY_WITH_TIMEOUT(panel.reader()->tracker().readings() >= 2, kWaitMs);
    panel.setActive(false);

    QCOMPARE(raw.command({"DEBUG", "DIGEST"}).bytes(), digest);
    const QHash<QByteArray, qint64> after = commandCalls(raw);
    QStringList sent;
    for (auto it = after.cbegin(); it != after.cend(); ++it) {
        if (it.value() == before.value(it.key()))
            continue;
        sent << QString::fromLatin1(it.key());
        // The server's own word on each: none of them may write.
        const RedisValue info = raw.command({"COMMAND", "INFO", it.key()});
        QVERIFY2(info.isArray() && info.size() == 1 && info.at(0).isArray(), it.key().constData());
        for (const RedisValue &flag : info.at(0).at(2).elements())
            QVERIFY2(flag.bytes() != "write", it.key().constData());
    }
    for (const char *expected : {"info", "monitor", "client|list", "scan", "object|freq"})
        QVERIFY2(sent.contains(QLatin1String(expected)), expected);
    qInfo("commands the read-only panel sent: %s", qPrintable(sent.join(QLatin1Char(' '))));
    m_server.command({"CONFIG", "SET", "maxmemory-policy", "noeviction"});
}

QTEST_MAIN(TestProfilerPanel)
#include "tst_profilerpanel.moc"
