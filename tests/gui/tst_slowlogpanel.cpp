// SPDX-License-Identifier: GPL-3.0-or-later
#include "redisclient.h"
#include "slowlogmodel.h"
#include "slowlogpanel.h"
#include "slowlogreader.h"
#include "testserver.h"

#include "qcp.h"
#include "testdata.h"

#include <QDir>
#include <QImage>
#include <QLabel>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

namespace {

constexpr int kWaitMs = 20000;
const QByteArray kBinaryKey("cart:\x00\xff\r\n \"x\"", 13);

// Distinct colours in an image: a blank or one-colour grab has one or two.
int colourCount(const QImage &image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 2) {
        for (int x = 0; x < image.width(); x += 2)
            colours.insert(image.pixel(x, y));
    }
    return int(colours.size());
}

int points(QCustomPlot *plot)
{
    int n = 0;
    for (int i = 0; i < plot->graphCount(); ++i)
        n += plot->graph(i)->dataCount();
    return n;
}

} // namespace

class TestSlowlogPanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void latencyHintWhenMonitorOff();
    void plotTablesAndFlags();
    void activatingEntryOpensKey();
    void latencyTableWhenMonitorOn();
    void clearViewKeepsServerLog();

private:
    template <typename T> T *child(const char *name) const { return requireChild<T>(m_panel.get(), name); }
    QTableView *table() const { return child<QTableView>("slowlogTable"); }
    // Saves a screenshot into the test's temporary directory (and $REDISLENS_SCREENSHOT_DIR).
    QString screenshot(QWidget *widget, const QString &name);
    int rowWithKey(const QByteArray &key) const;

    TestServer m_server;
    std::unique_ptr<RedisClient> m_client;
    std::unique_ptr<SlowlogPanel> m_panel;
    QTemporaryDir m_dir;
};

void TestSlowlogPanel::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QString error;
    QVERIFY2(m_server.start(&error), qPrintable(error));
    m_server.command({"CONFIG", "SET", "latency-monitor-threshold", "0"});

    // A slow log with something of everything, logged at threshold 0 for a moment so fast
    // commands show up as well; DEBUG SLEEP and the long script are slow at any threshold.
    QList<QByteArray> sadd{"SADD", "tags:all"};
    for (int i = 0; i < 1200; ++i)
        sadd << "tag-" + QByteArray::number(i);
    QList<QByteArray> hset{"HSET", kBinaryKey};
    for (int i = 0; i < 20; ++i)
        hset << "item:" + QByteArray::number(i) << QByteArray::number(i);
    using Cmd = QList<QByteArray>;
    QList<Cmd> setup{sadd, hset, Cmd{"RPUSH", "queue", "a", "b", "c"}};
    setup << Cmd{"CONFIG", "SET", "slowlog-log-slower-than", "0"};
    setup << Cmd{"SLOWLOG", "RESET"};
    setup << Cmd{"HGETALL", kBinaryKey};
    setup << Cmd{"SMEMBERS", "tags:all"};
    setup << Cmd{"LRANGE", "queue", "0", "-1"};
    setup << Cmd{"KEYS", "*"};
    setup << Cmd{"GET", "session:42"};
    setup << Cmd{"CONFIG", "SET", "slowlog-log-slower-than", "5000"};
    for (const char *s : {"0.012", "0.03", "0.02", "0.06", "0.015"})
        setup << Cmd{"DEBUG", "SLEEP", s};
    // A script that spins for 8 ms of server time, however fast the machine.
    setup << Cmd{"EVAL",
                 "local t = redis.call('TIME') local s = t[1] * 1000000 + t[2] local n "
                 "repeat n = redis.call('TIME') until n[1] * 1000000 + n[2] - s >= 8000 return 1",
                 "0"};
    const QList<RedisValue> replies = m_server.pipeline(setup);
    QCOMPARE(replies.size(), setup.size());
    for (const RedisValue &v : replies)
        QVERIFY2(!v.isError(), v.bytes().constData());

    m_client = connectedClient(m_server.profile());

    QVERIFY(m_client);
    m_panel = std::make_unique<SlowlogPanel>(m_client.get());
    m_panel->reader()->setIntervalMs(150);
    m_panel->resize(1200, 820);
    m_panel->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_panel.get()));
    QSignalSpy ready(m_panel.get(), &Panel::contentReady);
    QVERIFY(!m_panel->hasContent());
    m_panel->setActive(true);
    QTRY_VERIFY_WITH_TIMEOUT(m_panel->hasContent(), kWaitMs);
    QCOMPARE(ready.size(), 1);
}

void TestSlowlogPanel::cleanupTestCase()
{
    m_panel.reset();
    m_client.reset();
}

QString TestSlowlogPanel::screenshot(QWidget *widget, const QString &name)
{
    const QImage image = widget->grab().toImage();
    const QString path = m_dir.filePath(name);
    if (!image.save(path))
        return {};
    const QString keep = qEnvironmentVariable("REDISLENS_SCREENSHOT_DIR");
    if (!keep.isEmpty())
        image.save(QDir(keep).filePath(name));
    return path;
}

int TestSlowlogPanel::rowWithKey(const QByteArray &key) const
{
    const QAbstractItemModel *model = table()->model();
    for (int r = 0; r < model->rowCount(); ++r) {
        const QVariant k = model->index(r, 0).data(SlowlogModel::KeyRole);
        if (k.isValid() && k.toByteArray() == key)
            return r;
    }
    return -1;
}

void TestSlowlogPanel::latencyHintWhenMonitorOff()
{
    auto *stack = child<QStackedWidget>("slowlogLatencyStack");
    auto *hint = child<QLabel>("slowlogLatencyHint");
    QTRY_VERIFY_WITH_TIMEOUT(hint->text().startsWith(QStringLiteral("latency monitor is off")), kWaitMs);
    QVERIFY(hint->text().contains(QStringLiteral("CONFIG SET latency-monitor-threshold 100")));
    QCOMPARE(stack->currentWidget(), hint);
    QVERIFY(hint->isVisible());
    QVERIFY(!m_panel->latencyMonitorOn());
    // Showing how is all the panel does: the monitor stays off.
    const RedisValue threshold = m_server.command({"CONFIG", "GET", "latency-monitor-threshold"});
    QCOMPARE(threshold.at(1).bytes(), QByteArray("0"));
}

void TestSlowlogPanel::plotTablesAndFlags()
{
    SlowlogModel *model = m_panel->model();
    // The setup logged SLOWLOG RESET's successors: 5 fast reads, KEYS, 5 sleeps, the script.
    QTRY_VERIFY_WITH_TIMEOUT(model->rowCount() >= 12, kWaitMs);
    QVERIFY(m_panel->errorText().isEmpty());
    QCOMPARE(table()->model()->rowCount(), model->rowCount());
    QCOMPARE(m_panel->configText(), QStringLiteral("slowlog-log-slower-than 5000 µs (5.0 ms) · slowlog-max-len 128"));

    // Flags: KEYS and the long script at once, SMEMBERS once SCARD says the set is big.
    auto flagOf = [model](const QByteArray &command) {
        for (int r = 0; r < model->rowCount(); ++r) {
            if (model->entryAt(r).commandName() == command)
                return model->verdictAt(r).flag;
        }
        return SlowlogFlag::None;
    };
    QCOMPARE(flagOf("KEYS"), SlowlogFlag::Keys);
    QCOMPARE(flagOf("EVAL"), SlowlogFlag::LongScript);
    QCOMPARE(flagOf("DEBUG SLEEP"), SlowlogFlag::Diagnostic);
    QTRY_COMPARE_WITH_TIMEOUT(flagOf("SMEMBERS"), SlowlogFlag::BigCollection, kWaitMs);
    QCOMPARE(flagOf("HGETALL"), SlowlogFlag::None); // 20 fields, fast
    QCOMPARE(flagOf("LRANGE"), SlowlogFlag::None);
    QVERIFY(m_panel->statusText().contains(QStringLiteral("3 flagged")));

    auto *aggregate = child<QTableView>("slowlogAggregate");
    QVERIFY(aggregate->model()->rowCount() >= 7);
    // Sorted by total duration, largest first. (Which command is on top depends on the server:
    // Redis 8 runs the test's script slower than the five sleeps take.)
    const QAbstractItemModel *agg = aggregate->model();
    for (int r = 1; r < agg->rowCount(); ++r)
        QVERIFY(agg->index(r - 1, SlowlogAggregateModel::TotalColumn).data(SlowlogAggregateModel::SortRole).toDouble()
                >= agg->index(r, SlowlogAggregateModel::TotalColumn).data(SlowlogAggregateModel::SortRole).toDouble());
    int sleepRow = -1;
    for (int r = 0; r < agg->rowCount(); ++r)
        if (agg->index(r, SlowlogAggregateModel::CommandColumn).data().toString() == QLatin1String("DEBUG SLEEP"))
            sleepRow = r;
    QVERIFY(sleepRow >= 0);
    QCOMPARE(agg->index(sleepRow, SlowlogAggregateModel::CountColumn).data().toString(), QStringLiteral("5"));

    auto *plot = child<QCustomPlot>("slowlogPlot");
    QTRY_COMPARE_WITH_TIMEOUT(points(plot), model->rowCount(), kWaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(plot->graph(1)->dataCount(), 3, kWaitMs); // the flagged ones
    QVERIFY(!plot->xAxis->label().isEmpty());
    QVERIFY(!plot->yAxis->label().isEmpty());
    QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLogarithmic);
    // Every point is inside the visible ranges.
    for (int g = 0; g < plot->graphCount(); ++g) {
        for (auto it = plot->graph(g)->data()->constBegin(); it != plot->graph(g)->data()->constEnd(); ++it) {
            QVERIFY(plot->xAxis->range().contains(it->key));
            QVERIFY(plot->yAxis->range().contains(it->value));
        }
    }

    const QString shot = screenshot(m_panel.get(), QStringLiteral("slowlog-panel.png"));
    QVERIFY(!shot.isEmpty());
    const QImage image(shot);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), m_panel->size() * m_panel->devicePixelRatio());
    QVERIFY(colourCount(image) > 20);
    const QImage plotImage = plot->grab().toImage();
    QVERIFY(colourCount(plotImage) > 10);
}

void TestSlowlogPanel::activatingEntryOpensKey()
{
    QSignalSpy open(m_panel.get(), &Panel::openKeyRequested);
    const int row = rowWithKey(kBinaryKey);
    QVERIFY(row >= 0);
    table()->setFocus();
    table()->setCurrentIndex(table()->model()->index(row, SlowlogModel::CommandColumn));
    QTest::keyClick(table(), Qt::Key_Return);
    QCOMPARE(open.size(), 1);
    QCOMPARE(open.first().at(0).toByteArray(), kBinaryKey);
    QCOMPARE(open.first().at(0).toByteArray().size(), 13);
    QCOMPARE(open.first().at(1).value<KeyType>(), KeyType::Unknown);

    // An entry without a key argument opens nothing.
    const QAbstractItemModel *model = table()->model();
    int keyless = -1;
    for (int r = 0; r < model->rowCount() && keyless < 0; ++r) {
        if (model->index(r, SlowlogModel::CommandColumn).data().toString().startsWith(QStringLiteral("DEBUG")))
            keyless = r;
    }
    QVERIFY(keyless >= 0);
    table()->setCurrentIndex(model->index(keyless, SlowlogModel::CommandColumn));
    QTest::keyClick(table(), Qt::Key_Return);
    QCOMPARE(open.size(), 1);

    // Double-clicking the row works the same way.
    const QModelIndex index = model->index(rowWithKey(kBinaryKey), SlowlogModel::TimeColumn);
    table()->scrollTo(index);
    const QPoint centre = table()->visualRect(index).center();
    // QTest's double click on a widget is the second click only: the first comes before it.
    QTest::mouseClick(table()->viewport(), Qt::LeftButton, {}, centre);
    QCOMPARE(open.size(), 1); // a single click selects, it does not navigate away
    QTest::mouseDClick(table()->viewport(), Qt::LeftButton, {}, centre);
    QTRY_COMPARE(open.size(), 2);
    QCOMPARE(open.last().at(0).toByteArray(), kBinaryKey);
}

void TestSlowlogPanel::latencyTableWhenMonitorOn()
{
    QCOMPARE(m_server.command({"CONFIG", "SET", "latency-monitor-threshold", "5"}).bytes(), QByteArray("OK"));
    m_server.command({"DEBUG", "SLEEP", "0.03"});
    auto *stack = child<QStackedWidget>("slowlogLatencyStack");
    auto *latencyTable = child<QTableView>("slowlogLatencyTable");
    QTRY_VERIFY_WITH_TIMEOUT(stack->currentWidget() != child<QLabel>("slowlogLatencyHint"), kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(latencyTable->model()->rowCount() >= 1, kWaitMs);
    QVERIFY(m_panel->latencyMonitorOn());
    QCOMPARE(latencyTable->model()->index(0, 0).data().toString(), QStringLiteral("command"));
    // The server slept at least 30 ms; a loaded machine adds a little.
    const QString latest = latencyTable->model()->index(0, 3).data().toString();
    QVERIFY2(latest.endsWith(QLatin1String(" ms")) && latest.chopped(3).toInt() >= 30, qPrintable(latest));
    QCOMPARE(child<QLabel>("slowlogLatencyHeader")->text(),
             QStringLiteral("Latency monitor · latency-monitor-threshold 5 ms"));
    auto *plot = child<QCustomPlot>("slowlogLatencyPlot");
    QTRY_VERIFY_WITH_TIMEOUT(points(plot) >= 1, kWaitMs);
    // The sleep is in the history (at least the 30 ms slept); every point is above the
    // monitor's 5 ms threshold, whatever else a loaded machine made slow meanwhile.
    double highest = 0;
    for (auto it = plot->graph(0)->data()->constBegin(); it != plot->graph(0)->data()->constEnd(); ++it) {
        QVERIFY2(it->value >= 5.0, qPrintable(QString::number(it->value)));
        highest = qMax(highest, it->value);
    }
    QVERIFY2(highest >= 30.0, qPrintable(QString::number(highest)));
    QVERIFY(!plot->xAxis->label().isEmpty());
    QVERIFY(!plot->yAxis->label().isEmpty());
    QCOMPARE(plot->graph(0)->name(), QStringLiteral("event “command”"));
    QVERIFY(colourCount(plot->grab().toImage()) > 10);
    const QString shot = screenshot(m_panel.get(), QStringLiteral("slowlog-panel-latency.png"));
    QVERIFY(!QImage(shot).isNull());
}

void TestSlowlogPanel::clearViewKeepsServerLog()
{
    // The sleep of the latency test is in the view before it is cleared.
    QTRY_VERIFY_WITH_TIMEOUT(m_panel->model()->rowCount() > 0
                                 && m_panel->model()->entryAt(0).args == QList<QByteArray>({"DEBUG", "SLEEP", "0.03"}),
                             kWaitMs);
    const qint64 before = m_server.command({"SLOWLOG", "LEN"}).toInteger();
    QVERIFY(before > 0);
    QTest::mouseClick(child<QPushButton>("slowlogClear"), Qt::LeftButton);
    QCOMPARE(m_panel->model()->rowCount(), 0);
    QCOMPARE(m_panel->model()->aggregate()->rowCount(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(points(child<QCustomPlot>("slowlogPlot")), 0, kWaitMs);
    QVERIFY(m_server.command({"SLOWLOG", "LEN"}).toInteger() >= before);
    // Cleared entries stay away; new ones still come.
    m_server.command({"DEBUG", "SLEEP", "0.01"});
    QTRY_COMPARE_WITH_TIMEOUT(m_panel->model()->rowCount(), 1, kWaitMs);
    QCOMPARE(m_panel->model()->entryAt(0).args, (QList<QByteArray>{"DEBUG", "SLEEP", "0.01"}));
    m_panel->setActive(false);
    QVERIFY(!m_panel->reader()->isRunning());
}

QTEST_MAIN(TestSlowlogPanel)
#include "tst_slowlogpanel.moc"
