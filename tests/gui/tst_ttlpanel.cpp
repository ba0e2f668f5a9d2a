// SPDX-License-Identifier: GPL-3.0-or-later
#include "chartstyle.h"
#include "format.h"
#include "keyscanner.h"
#include "redisclient.h"
#include "serverinfo.h"
#include "testserver.h"
#include "ttlpanel.h"

#include "qcp.h"
#include "testdata.h"
#include <QDateTime>
#include <QDir>
#include <QImage>
#include <QLabel>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <memory>

namespace {
constexpr int kWaitMs = 20000;
constexpr qint64 kMinute = 60'000;
constexpr qint64 kHour = 60 * kMinute;
constexpr int kWarmKeys = 600;
constexpr qint64 kWarmTtlMs = 25 * kMinute;
} // namespace

// The TTL panel offscreen against a real server with a keyspace that looks like an
// application's: sliding sessions, caches with and without jitter, rate-limit windows, locks,
// leaderboards and keys without TTL.
class TestTtlPanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void serverFiguresBeforeAnyBatch();
    void scanFillsCharts();
    void clickBucketAndNamespace();
    void groupedRowsEmitNothing();
    void darkPaletteRestyles();
    void infoNotAllowed();

private:
    template <typename T> T *child(const char *name) const { return requireChild<T>(m_panel.get(), name); }
    static QList<QCPBars *> bars(QCustomPlot *plot);
    static double barValue(QCustomPlot *plot, int bucket);
    // Pixels within a small distance of 'colour' in a grab of the widget.
    static int pixelsNear(QWidget *w, const QColor &colour);
    void clickBar(int bucket);
    void clickNamespace(const QByteArray &prefix);
    QString screenshot(QWidget *w, const QString &name);
    void seed();
    QHash<QByteArray, qint64> directExpiries();

    TestServer m_server;
    std::unique_ptr<RedisClient> m_client;
    std::unique_ptr<RedisClient> m_scanClient;
    std::unique_ptr<TtlPanel> m_panel;
    std::unique_ptr<QSignalSpy> m_contentSpy;
    QTemporaryDir m_dir;
    qint64 m_warmAt = 0;
};

void TestTtlPanel::seed()
{
    QRandomGenerator rng(2026);
    QList<QList<QByteArray>> cmds;
    const auto num = [](qint64 v) { return QByteArray::number(v); };
    // Sessions slide to 30 min on every request; most users were active in the last minutes.
    for (int i = 0; i < 900; ++i) {
        const qint64 idle
            = qMin<qint64>(qint64(-std::log(1.0 - rng.generateDouble()) * 5 * kMinute), 29 * kMinute) + 1000;
        const QByteArray key = "session:" + QByteArray::number(0x5f3a00 + i * 7919, 16);
        cmds.append({"HSET", key, "user_id", num(1000 + i), "created_at", "1764400000"});
        cmds.append({"PEXPIRE", key, num(30 * kMinute - idle)});
    }
    // Product cache: 1 h with ±10 % jitter, written over the last hour.
    for (int i = 0; i < 1200; ++i) {
        const qint64 ttl = kHour + rng.bounded(-kHour / 10, kHour / 10) - rng.bounded(50 * kMinute);
        cmds.append({"SET", "product:" + num(i), "{\"id\":1}", "PX", num(ttl)});
    }
    // Rate-limit windows of one minute.
    for (int i = 0; i < 250; ++i)
        cmds.append({"SET", "rate:user:" + num(i) + ":29400000", num(rng.bounded(1, 40)), "PX",
                     num(rng.bounded(1000, 60'000))});
    // Short tokens 5–10 min.
    for (int i = 0; i < 150; ++i)
        cmds.append({"SET", "token:" + num(i), "t", "PX", num(rng.bounded(5 * kMinute, 10 * kMinute))});
    // Users and config: no TTL, by design.
    for (int i = 0; i < 400; ++i)
        cmds.append({"HSET", "user:" + num(i), "name", "n"});
    for (int i = 0; i < 30; ++i)
        cmds.append({"SET", "config:" + num(i), "v"});
    // Leaderboards of days.
    for (int i = 0; i < 12; ++i) {
        cmds.append({"ZADD", "lb:2026-11-" + num(10 + i), "10", "p"});
        cmds.append({"PEXPIRE", "lb:2026-11-" + num(10 + i), num(rng.bounded(2 * 24 * kHour, 7 * 24 * kHour))});
    }
    // Locks: two with a TTL, one without (the deadlock waiting to happen).
    cmds.append({"SET", "lock:invoice:7", "tok-1", "PX", "30000"});
    cmds.append({"SET", "lock:invoice:9", "tok-2", "PX", "25000"});
    cmds.append({"SET", "lock:report", "1"});
    for (int i = 0; i < 20; ++i)
        cmds.append({"SET", "counter" + num(i), "1"});
    const QList<RedisValue> replies = m_server.pipeline(cmds);
    QCOMPARE(replies.size(), cmds.size());
    for (const RedisValue &r : replies)
        QVERIFY2(!r.isError(), qPrintable(r.toDisplayString()));

    // A page cache warmed in one go with the same EXPIRE and no jitter.
    QList<QList<QByteArray>> warm;
    for (int i = 0; i < kWarmKeys; ++i)
        warm.append({"SET", "page:/catalog/" + num(i), "<html>", "PX", num(kWarmTtlMs)});
    m_warmAt = QDateTime::currentMSecsSinceEpoch();
    QCOMPARE(m_server.pipeline(warm).size(), warm.size());
}

void TestTtlPanel::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QString error;
    QVERIFY2(m_server.start(&error), qPrintable(error));
    seed();
    m_client = connectedClient(m_server.profile());
    QVERIFY(m_client);
    m_scanClient = std::make_unique<RedisClient>(m_server.profile());
    m_scanClient->connectToServer();
    QVERIFY(waitForReady(*m_scanClient));
    m_panel = std::make_unique<TtlPanel>(m_client.get());
    m_contentSpy = std::make_unique<QSignalSpy>(m_panel.get(), &Panel::contentReady);
    m_panel->resize(1100, 780);
    m_panel->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_panel.get()));
    QVERIFY(!m_panel->hasContent());
}

void TestTtlPanel::cleanupTestCase()
{
    m_contentSpy.reset();
    m_panel.reset();
    m_client.reset();
    m_scanClient.reset();
}

QString TestTtlPanel::screenshot(QWidget *w, const QString &name)
{
    // Charts replot on the next event-loop pass; draw them now so the grab shows the last state.
    for (QCustomPlot *plot : w->findChildren<QCustomPlot *>())
        plot->replot();
    if (auto *plot = qobject_cast<QCustomPlot *>(w))
        plot->replot();
    const QImage image = w->grab().toImage();
    const QString path = m_dir.filePath(name);
    if (!image.save(path))
        return {};
    const QString keep = qEnvironmentVariable("REDISLENS_SCREENSHOT_DIR");
    if (!keep.isEmpty())
        image.save(QDir(keep).filePath(name));
    return path;
}

QList<QCPBars *> TestTtlPanel::bars(QCustomPlot *plot)
{
    QList<QCPBars *> out;
    for (int i = 0; i < plot->plottableCount(); ++i)
        if (auto *b = qobject_cast<QCPBars *>(plot->plottable(i)))
            out.append(b);
    return out;
}

double TestTtlPanel::barValue(QCustomPlot *plot, int bucket)
{
    // The selection outline is drawn over a bar with the same value; count a bucket once.
    for (QCPBars *b : bars(plot)) {
        if (b->selectable() == QCP::stNone)
            continue;
        for (auto it = b->data()->constBegin(); it != b->data()->constEnd(); ++it)
            if (int(it->key) == bucket)
                return it->value;
    }
    return -1;
}

int TestTtlPanel::pixelsNear(QWidget *w, const QColor &colour)
{
    const QImage image = w->grab().toImage().convertToFormat(QImage::Format_RGB32);
    int n = 0;
    for (int y = 0; y < image.height(); ++y) {
        const auto *line = reinterpret_cast<const QRgb *>(image.constScanLine(y));
        for (int x = 0; x < image.width(); ++x)
            if (qAbs(qRed(line[x]) - colour.red()) + qAbs(qGreen(line[x]) - colour.green())
                    + qAbs(qBlue(line[x]) - colour.blue())
                < 24)
                ++n;
    }
    return n;
}

void TestTtlPanel::clickBar(int bucket)
{
    auto *plot = child<QCustomPlot>("ttlHistogram");
    plot->replot(); // lay out the axes before asking for pixel positions
    const double value = barValue(plot, bucket);
    QVERIFY(value > 0);
    const QPoint at(qRound(plot->xAxis->coordToPixel(bucket)), qRound(plot->yAxis->coordToPixel(value / 2)));
    QTest::mouseClick(plot, Qt::LeftButton, {}, at);
}

void TestTtlPanel::clickNamespace(const QByteArray &prefix)
{
    auto *table = child<QTableView>("ttlNamespaces");
    QAbstractItemModel *model = table->model();
    for (int row = 0; row < model->rowCount(); ++row) {
        const QModelIndex idx = model->index(row, 0);
        if (idx.data(RowTableRoles::KeyRole).toByteArray() == prefix
            && idx.data(TtlNamespaceModel::HasPrefixRole).toBool() == !prefix.isEmpty()) {
            table->scrollTo(idx);
            QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(idx).center());
            return;
        }
    }
    QFAIL(qPrintable(QStringLiteral("no row for %1").arg(QString::fromUtf8(prefix))));
}

QHash<QByteArray, qint64> TestTtlPanel::directExpiries()
{
    RawConnection raw(m_server.port());
    const QList<QByteArray> keys = raw.scan();
    QList<QList<QByteArray>> cmds;
    for (const QByteArray &k : keys)
        cmds.append({"PTTL", k});
    const QList<RedisValue> pttls = raw.pipeline(cmds);
    const qint64 at = QDateTime::currentMSecsSinceEpoch();
    QHash<QByteArray, qint64> out;
    for (qsizetype i = 0; i < keys.size() && i < pttls.size(); ++i)
        out.insert(keys.at(i), ttl::expireAt(ttl::fromReply(pttls.at(i)), at));
    return out;
}

void TestTtlPanel::serverFiguresBeforeAnyBatch()
{
    m_panel->setActive(true);
    QTRY_VERIFY_WITH_TIMEOUT(m_panel->hasContent(), kWaitMs);
    QCOMPARE(m_contentSpy->size(), 1);
    QCOMPARE(m_panel->ttlStats().keyCount(), quint64(0));

    const QList<KeyspaceDb> info = ServerInfo::parse(m_server.command({"INFO", "keyspace"}).bytes()).keyspace();
    QCOMPARE(info.size(), 1);
    const KeyspaceDb db0 = info.first();
    const QString seedText = child<QLabel>("ttlSeed")->text();
    QVERIFY2(seedText.contains(QStringLiteral("INFO keyspace")), qPrintable(seedText));
    const QString expectedDb = QStringLiteral("db0: %1 keys, %2 with TTL")
                                   .arg(format::count(quint64(db0.keys)), format::count(quint64(db0.expires)));
    QVERIFY2(seedText.contains(expectedDb), qPrintable(seedText));
    QVERIFY2(seedText.contains(QStringLiteral("avg TTL")), qPrintable(seedText));
    QVERIFY2(child<QLabel>("ttlScan")->text().startsWith(QStringLiteral("From the scan: nothing yet")),
             qPrintable(child<QLabel>("ttlScan")->text()));
    QCOMPARE(m_panel->serverKeyspace().first().keys, db0.keys);

    // The server's own no-TTL figure is on the chart before the scan read anything.
    auto *plot = child<QCustomPlot>("ttlHistogram");
    QCOMPARE(barValue(plot, ttlbucket::NoTtl), double(db0.keys - db0.expires));
    QVERIFY(!plot->xAxis->label().isEmpty());
    QVERIFY(!plot->yAxis->label().isEmpty());
    plot->replot();
    // Drawn lighter than the scan's own bar: the warning colour at partial opacity over the base.
    const QColor warn = chartstyle::warning(plot->palette());
    const QColor base = plot->palette().color(QPalette::Base);
    const auto mix = [](int a, int b) { return (a * 140 + b * 115) / 255; };
    const QColor drawn(mix(warn.red(), base.red()), mix(warn.green(), base.green()), mix(warn.blue(), base.blue()));
    QVERIFY(pixelsNear(plot, drawn) > 200);
    QVERIFY(!screenshot(m_panel.get(), QStringLiteral("ttl-seed.png")).isEmpty());
}

void TestTtlPanel::scanFillsCharts()
{
    m_panel->setActive(true);
    KeyScanner scanner(m_scanClient.get());
    connect(&scanner, &KeyScanner::batchAvailable, m_panel.get(), &TtlPanel::addScanBatch);
    connect(&scanner, &KeyScanner::finished, m_panel.get(), &TtlPanel::scanFinished);
    QSignalSpy finished(&scanner, &KeyScanner::finished);
    m_panel->scanStarted(scanner.start(ScanOptions()));
    QVERIFY(finished.wait(kWaitMs));
    QTRY_VERIFY_WITH_TIMEOUT(child<QLabel>("ttlScan")->text().contains(QStringLiteral("scan complete")), kWaitMs);

    const qint64 dbsize = m_server.command({"DBSIZE"}).toInteger();
    QCOMPARE(m_panel->ttlStats().keyCount(), quint64(dbsize));
    QCOMPARE(m_panel->snapshot().keys, quint64(dbsize));

    // Every key is in one bar (nothing expires between the scan and now in this data).
    auto *hist = child<QCustomPlot>("ttlHistogram");
    double total = 0;
    for (int b = 0; b < ttlbucket::Count; ++b) {
        QCOMPARE(barValue(hist, b), double(m_panel->snapshot().buckets[size_t(b)]));
        total += barValue(hist, b);
    }
    QCOMPARE(total + double(m_panel->snapshot().expired), double(dbsize));
    QVERIFY(barValue(hist, ttlbucket::UnderMinute) > 0);
    QVERIFY(barValue(hist, ttlbucket::OverDay) > 0);
    QCOMPARE(hist->xAxis->label(), QStringLiteral("Remaining TTL"));
    QCOMPARE(hist->yAxis->label(), QStringLiteral("Keys"));

    auto *forecast = child<QCustomPlot>("ttlForecast");
    QVERIFY(!forecast->xAxis->label().isEmpty());
    QVERIFY(!forecast->yAxis->label().isEmpty());
    const QList<QCPBars *> fb = bars(forecast);
    QCOMPARE(fb.size(), 2);
    QVERIFY(fb.at(0)->dataCount() > 50); // ordinary expiries across the hour
    QVERIFY(fb.at(1)->dataCount() >= 1); // the cliff

    // The no-jitter page cache is the one cliff, named by its namespace.
    const TtlSnapshot &s = m_panel->snapshot();
    QCOMPARE(s.cliffs.size(), 1);
    QCOMPARE(s.namespaces.at(s.cliffs.first().dominantNamespace).prefix, QByteArray("page:"));
    QCOMPARE(s.cliffs.first().dominantKeys, quint64(kWarmKeys));
    QVERIFY(qAbs(s.cliffs.first().peakSecondMs - (m_warmAt + kWarmTtlMs)) < 2000);
    QVERIFY(child<QLabel>("ttlCliffs")->text().contains(QStringLiteral("page:")));
    QVERIFY(child<QLabel>("ttlForecastCounts")->text().contains(QStringLiteral("60 minutes")));
    bool labelled = false;
    for (int i = 0; i < forecast->itemCount(); ++i)
        if (auto *t = qobject_cast<QCPItemText *>(forecast->item(i)))
            labelled = labelled || (t->visible() && t->text().startsWith(QStringLiteral("page:")));
    QVERIFY(labelled);

    // The namespace table lists each namespace once with its keys.
    auto *table = child<QTableView>("ttlNamespaces");
    QCOMPARE(table->model()->rowCount(), 10); // 9 prefixes + (no namespace)

    // Rendered: bars in the series colour, the no-TTL bar in the warning colour, the cliff in
    // the bad colour.
    hist->replot();
    forecast->replot();
    const QPalette pal = hist->palette();
    QVERIFY(pixelsNear(hist, chartstyle::series(0, pal)) > 500);
    QVERIFY(pixelsNear(hist, chartstyle::warning(pal)) > 200);
    QVERIFY(pixelsNear(forecast, chartstyle::series(0, pal)) > 100);
    QVERIFY(pixelsNear(forecast, chartstyle::bad(pal)) > 20);
    QVERIFY(!screenshot(hist, QStringLiteral("ttl-histogram.png")).isEmpty());
    QVERIFY(!screenshot(forecast, QStringLiteral("ttl-forecast.png")).isEmpty());
    const QString shot = screenshot(m_panel.get(), QStringLiteral("ttl.png"));
    QVERIFY(!shot.isEmpty());
    QVERIFY(!QImage(shot).isNull());
    QCOMPARE(m_contentSpy->size(), 1); // once, not per batch
}

void TestTtlPanel::clickBucketAndNamespace()
{
    QVERIFY(m_panel->ttlStats().keyCount() > 0);
    QSignalSpy filters(m_panel.get(), &Panel::filterKeysRequested);

    clickBar(ttlbucket::FifteenToSixtyMinutes);
    QCOMPARE(filters.size(), 1);
    KeyFilter f = filters.takeFirst().at(0).value<KeyFilter>();
    QCOMPARE(f.prefix, QByteArray());
    QCOMPARE(f.ttl, KeyFilter::Ttl::Range);
    QCOMPARE(f.minTtlMs, 15 * kMinute);
    QCOMPARE(f.maxTtlMs, kHour);
    QCOMPARE(m_panel->selectedBucket(), int(ttlbucket::FifteenToSixtyMinutes));

    // The namespace combines with the bucket; the histogram now shows that namespace.
    clickNamespace("session:");
    QCOMPARE(filters.size(), 1);
    f = filters.takeFirst().at(0).value<KeyFilter>();
    QCOMPARE(f.prefix, QByteArray("session:"));
    QCOMPARE(f.ttl, KeyFilter::Ttl::Range);
    QCOMPARE(f.minTtlMs, 15 * kMinute);
    QCOMPARE(f.label, QStringLiteral("TTL 15–60 min in session:"));
    QVERIFY(child<QLabel>("ttlHistogramTitle")->text().contains(QStringLiteral("session:")));

    // The filter selects the keys the bar counts (read again on a plain socket).
    m_panel->refresh();
    const QHash<QByteArray, qint64> direct = directExpiries();
    const qint64 now = m_panel->snapshot().nowMs;
    quint64 matching = 0;
    for (auto it = direct.cbegin(); it != direct.cend(); ++it)
        matching += f.matches(it.key(), it.value(), now) ? 1 : 0;
    auto *hist = child<QCustomPlot>("ttlHistogram");
    QVERIFY(matching > 0);
    QVERIFY2(qAbs(double(matching) - barValue(hist, ttlbucket::FifteenToSixtyMinutes)) <= 1,
             qPrintable(QStringLiteral("%1 keys match, bar shows %2")
                            .arg(matching)
                            .arg(barValue(hist, ttlbucket::FifteenToSixtyMinutes))));
    QVERIFY(!screenshot(m_panel.get(), QStringLiteral("ttl-selected.png")).isEmpty());

    // A second click on the bar lets the bucket go: the namespace alone remains.
    clickBar(ttlbucket::FifteenToSixtyMinutes);
    QCOMPARE(filters.size(), 1);
    f = filters.takeFirst().at(0).value<KeyFilter>();
    QCOMPARE(f.prefix, QByteArray("session:"));
    QCOMPARE(f.ttl, KeyFilter::Ttl::Any);

    // The no-TTL bar of the namespace "user:".
    clickNamespace("user:");
    filters.clear();
    clickBar(ttlbucket::NoTtl);
    QCOMPARE(filters.size(), 1);
    f = filters.takeFirst().at(0).value<KeyFilter>();
    QCOMPARE(f.prefix, QByteArray("user:"));
    QCOMPARE(f.ttl, KeyFilter::Ttl::None);

    // Letting both go asks for every key.
    clickBar(ttlbucket::NoTtl);
    clickNamespace("user:");
    QCOMPARE(filters.size(), 2);
    QVERIFY(filters.at(1).at(0).value<KeyFilter>().isEmpty());
    QCOMPARE(m_panel->selectedPrefix(), QByteArray());
}

void TestTtlPanel::groupedRowsEmitNothing()
{
    QSignalSpy filters(m_panel.get(), &Panel::filterKeysRequested);
    clickNamespace({}); // "(no namespace)": no prefix can select its keys
    QCOMPARE(filters.size(), 0);
    QCOMPARE(m_panel->selectedPrefix(), QByteArray());
}

void TestTtlPanel::darkPaletteRestyles()
{
    auto *hist = child<QCustomPlot>("ttlHistogram");
    const QPalette light = m_panel->palette();
    QPalette dark = light;
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::Window, QColor(0x2a, 0x2a, 0x2a));
    dark.setColor(QPalette::Text, QColor(0xe0, 0xe0, 0xe0));
    dark.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0));
    m_panel->setPalette(dark);
    QVERIFY(chartstyle::isDark(hist->palette()));
    hist->replot();
    // The chart background follows, and the bars take the dark theme's lighter series colour.
    QCOMPARE(hist->grab().toImage().pixelColor(2, 2), QColor(0x1e, 0x1e, 0x1e));
    QVERIFY(pixelsNear(hist, chartstyle::series(0, dark)) > 200);
    QVERIFY(!screenshot(m_panel.get(), QStringLiteral("ttl-dark.png")).isEmpty());
    m_panel->setPalette(light);
}

void TestTtlPanel::infoNotAllowed()
{
    QCOMPARE(m_server.command({"ACL", "SETUSER", "inspector", "on", ">secret", "~*", "+@all", "-info"}),
             RedisValue::status("OK"));
    ConnectionProfile p = m_server.profile();
    p.username = QStringLiteral("inspector");
    p.password = QStringLiteral("secret");
    RedisClient client(p);
    client.connectToServer();
    QVERIFY(waitForReady(client));
    TtlPanel panel(&client);
    panel.resize(900, 700);
    panel.show();
    panel.setActive(true);
    auto *error = panel.findChild<QLabel *>(QStringLiteral("ttlError"));
    QVERIFY(error);
    QTRY_VERIFY_WITH_TIMEOUT(error->isVisible(), kWaitMs);
    QVERIFY2(error->text().contains(QStringLiteral("+info for user inspector")), qPrintable(error->text()));
    QVERIFY(!panel.hasContent());
    // The scan side keeps working.
    ScanBatch b;
    b.generation = 1;
    b.capturedAtMs = QDateTime::currentMSecsSinceEpoch();
    ScannedKey k;
    k.name = "session:1";
    k.pttlMs = 10 * kMinute;
    b.keys = {k};
    panel.scanStarted(1);
    ScanProgress progress;
    progress.generation = 1;
    progress.dbsize = 4;
    panel.setScanProgress(progress);
    panel.addScanBatch(b);
    panel.refresh();
    const QString scanText = panel.findChild<QLabel *>(QStringLiteral("ttlScan"))->text();
    QVERIFY2(scanText.contains(QStringLiteral("about 25.0 % of the server's 4 keys")), qPrintable(scanText));
    panel.scanFinished();
    QVERIFY(panel.hasContent());
    QCOMPARE(panel.snapshot().buckets[ttlbucket::FiveToFifteenMinutes], quint64(1));
}

QTEST_MAIN(TestTtlPanel)
#include "tst_ttlpanel.moc"
