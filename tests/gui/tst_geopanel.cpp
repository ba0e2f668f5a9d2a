// SPDX-License-Identifier: GPL-3.0-or-later
#include "geopanel.h"
#include "qcp.h"
#include "redisclient.h"
#include "testserver.h"

#include <QImage>
#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include <cmath>

namespace {

constexpr int kWaitMs = 20000;

struct City
{
    const char *name;
    double lon;
    double lat;
};

// Longitude first.
const City kCities[] = {
    {"London", -0.1276, 51.5072},
    {"Paris", 2.3522, 48.8566},
    {"Madrid", -3.7038, 40.4168},
    {"Rome", 12.4964, 41.9028},
    {"Stockholm", 18.0686, 59.3293},
    {"Moscow", 37.6173, 55.7558},
    {"Istanbul", 28.9784, 41.0082},
    {"Cairo", 31.2357, 30.0444},
    {"Lagos", 3.3792, 6.5244},
    {"Nairobi", 36.8219, -1.2921},
    {"Cape Town", 18.4241, -33.9249},
    {"Dubai", 55.2708, 25.2048},
    {"Mumbai", 72.8777, 19.076},
    {"Delhi", 77.209, 28.6139},
    {"Bangkok", 100.5018, 13.7563},
    {"Singapore", 103.8198, 1.3521},
    {"Jakarta", 106.8456, -6.2088},
    {"Shanghai", 121.4737, 31.2304},
    {"Beijing", 116.4074, 39.9042},
    {"Seoul", 126.978, 37.5665},
    {"Tokyo", 139.6917, 35.6895},
    {"Sydney", 151.2093, -33.8688},
    {"Perth", 115.8605, -31.9505},
    {"Auckland", 174.7633, -36.8485},
    {"Honolulu", -157.8583, 21.3069},
    {"Anchorage", -149.9003, 61.2181},
    {"Vancouver", -123.1207, 49.2827},
    {"San Francisco", -122.4194, 37.7749},
    {"Los Angeles", -118.2437, 34.0522},
    {"Mexico City", -99.1332, 19.4326},
    {"Chicago", -87.6298, 41.8781},
    {"New York", -74.006, 40.7128},
    {"Miami", -80.1918, 25.7617},
    {"Bogota", -74.0721, 4.711},
    {"Lima", -77.0428, -12.0464},
    {"Sao Paulo", -46.6333, -23.5505},
    {"Buenos Aires", -58.3816, -34.6037},
    {"Santiago", -70.6693, -33.4489},
    {"Reykjavik", -21.9426, 64.1466},
    {"Berlin", 13.405, 52.52},
    {"Hamburg", 9.9937, 53.5511},
    {"Munich", 11.582, 48.1351},
    {"Cologne", 6.9603, 50.9375},
    {"Frankfurt", 8.6821, 50.1109},
    {"Stuttgart", 9.1829, 48.7758},
    {"Leipzig", 12.3731, 51.3397},
    {"Dresden", 13.7373, 51.0504},
};
constexpr int kStores = 600;

// A deterministic cluster of store locations around the German cities of the list.
QList<QByteArray> storeArgs()
{
    QList<QByteArray> args;
    quint32 seed = 12345;
    const auto rnd = [&seed] {
        seed = seed * 1664525u + 1013904223u;
        return (seed >> 8) / double(1 << 24);
    };
    const int firstGerman = int(std::size(kCities)) - 8;
    for (int i = 0; i < kStores; ++i) {
        const City &c = kCities[firstGerman + i % 8];
        const double r = 0.9 * std::sqrt(rnd()), a = rnd() * 6.283185307;
        args << QByteArray::number(c.lon + r * std::cos(a) * 1.5, 'f', 6)
             << QByteArray::number(c.lat + r * std::sin(a), 'f', 6) << "store:de:" + QByteArray::number(1000 + i);
    }
    return args;
}

} // namespace

// The geo panel offscreen on a real server: outline, points in the right places (longitude on
// x), equal scale, hover text, searches from a member and from a click, GEODIST, sampling said
// on screen, and a screenshot.
class TstGeoPanel : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;
    std::unique_ptr<RedisClient> m_client;

    static const QCPGraphData *find(QCPGraph *graph, double lon, double lat)
    {
        for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
            if (std::abs(it->key - lon) < 1e-4 && std::abs(it->value - lat) < 1e-4)
                return &*it;
        return nullptr;
    }

    bool openWorld(GeoPanel &panel)
    {
        panel.resize(1280, 760);
        panel.show();
        if (!QTest::qWaitForWindowExposed(&panel))
            return false;
        QSignalSpy loaded(&panel, &GeoPanel::sampleLoaded);
        panel.setCandidates({"geo:tiny", "geo:world"});
        if (!loaded.wait(kWaitMs))
            return false;
        panel.plot()->replot();
        return true;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        QList<QByteArray> add{"GEOADD", "geo:world"};
        for (const City &c : kCities)
            add << QByteArray::number(c.lon, 'g', 10) << QByteArray::number(c.lat, 'g', 10) << c.name;
        add += storeArgs();
        m_server.command(add);
        m_server.command({"GEOADD", "geo:tiny", "13.361389", "38.115556", "Palermo"});
        const RedisValue big = m_server.command(
            {"EVAL",
             "for b = 0, 24 do local a = {} for j = 0, 999 do local k = b * 1000 + j "
             "a[#a + 1] = ((k * 7919) % 359999) / 1000 - 179.9995 a[#a + 1] = ((k * 104729) % 169999) / 1000 - 84.9995 "
             "a[#a + 1] = 'p' .. k end redis.call('GEOADD', KEYS[1], unpack(a)) end return redis.call('ZCARD', "
             "KEYS[1])",
             "1", "geo:big"});
        QCOMPARE(big.toInteger(), qint64(25000));
        m_client = connectedClient(m_server.profile());
        QVERIFY(m_client);
    }

    void cleanupTestCase() { m_client.reset(); }

    void mapShowsTheWorld()
    {
        GeoPanel panel(m_client.get());
        QVERIFY(!panel.hasContent());
        QSignalSpy ready(&panel, &Panel::contentReady);
        QVERIFY(openWorld(panel));
        QCOMPARE(panel.currentKey(), QByteArray("geo:world")); // the larger candidate
        QCOMPARE(ready.size(), 1);
        QVERIFY(panel.hasContent());
        QVERIFY2(panel.headerText().contains(QStringLiteral("all 647 members")), qPrintable(panel.headerText()));

        QCustomPlot *plot = panel.plot();
        QVERIFY(panel.coastline()->dataCount() > 1000);
        QCOMPARE(panel.pointsGraph()->dataCount(), int(std::size(kCities)) + kStores);
        QCOMPARE(plot->xAxis->label(), QStringLiteral("Longitude (°)"));
        QCOMPARE(plot->yAxis->label(), QStringLiteral("Latitude (°)"));
        // The whole world is in view, at equal scale.
        QVERIFY(plot->xAxis->range().lower <= -180 && plot->xAxis->range().upper >= 180);
        QVERIFY(plot->yAxis->range().lower <= -85 && plot->yAxis->range().upper >= 85);
        const double pxPerLon = plot->xAxis->coordToPixel(10) - plot->xAxis->coordToPixel(0);
        const double pxPerLat = plot->yAxis->coordToPixel(0) - plot->yAxis->coordToPixel(10);
        QVERIFY2(std::abs(pxPerLon / pxPerLat - 1) < 0.01,
                 qPrintable(QStringLiteral("%1 %2").arg(pxPerLon).arg(pxPerLat)));

        // Sydney is at x 151.2, y -33.9: a swap would put it at x -33.9.
        const QCPGraphData *sydney = find(panel.pointsGraph(), 151.2093, -33.8688);
        QVERIFY(sydney);
        QVERIFY(!find(panel.pointsGraph(), -33.8688, 151.2093));
        const QPoint sydneyPx(qRound(plot->xAxis->coordToPixel(sydney->key)),
                              qRound(plot->yAxis->coordToPixel(sydney->value)));
        const QRect rect = plot->axisRect()->rect();
        QVERIFY(sydneyPx.x() > rect.center().x() && sydneyPx.y() > rect.center().y()); // east and south
        const QCPGraphData *reykjavik = find(panel.pointsGraph(), -21.9426, 64.1466);
        QVERIFY(reykjavik);
        QVERIFY(plot->xAxis->coordToPixel(reykjavik->key) < rect.center().x());
        QVERIFY(plot->yAxis->coordToPixel(reykjavik->value) < rect.center().y()); // west and north

        // Hover names the member, longitude first.
        const QString hover = panel.hoverText(sydneyPx);
        QVERIFY2(hover.contains(QStringLiteral("Sydney")), qPrintable(hover));
        QVERIFY2(hover.contains(QStringLiteral("151.2093")) && hover.contains(QStringLiteral(", -33.8688")),
                 qPrintable(hover));
        QVERIFY(hover.indexOf(QStringLiteral("151.2093")) < hover.indexOf(QStringLiteral("-33.8688")));
        QVERIFY(panel.hoverText(QPoint(rect.left() + 2, rect.top() + 2)).isEmpty());
    }

    void searchFromMemberAndDistance()
    {
        GeoPanel panel(m_client.get());
        QVERIFY(openWorld(panel));
        QSignalSpy done(&panel, &GeoPanel::searchFinished);
        GeoQuery q;
        q.key = "geo:world";
        q.member = "Berlin";
        q.radius = 250;
        q.unit = GeoUnit::Km;
        q.count = 40;
        panel.search(q);
        QVERIFY(done.wait(kWaitMs));
        const RedisValue direct = m_server.command({"GEOSEARCH", "geo:world", "FROMMEMBER", "Berlin", "BYRADIUS", "250",
                                                    "km", "WITHDIST", "WITHCOORD", "ASC", "COUNT", "40"});
        GeoPointsModel *model = panel.resultsModel();
        QCOMPARE(model->rowCount(), int(direct.size()));
        QVERIFY(model->rowCount() > 5);
        for (int i = 0; i < model->rowCount(); ++i)
            QCOMPARE(model->at(i).member, direct.at(i).at(0).bytes());
        QCOMPARE(panel.resultsGraph()->dataCount(), model->rowCount());
        QVERIFY(find(panel.resultsGraph(), 13.405, 52.52)); // Berlin itself, at distance 0

        // GEODIST between the first two rows (the view sorts by distance, as the model is).
        QTableView *view = panel.resultsView();
        view->selectionModel()->select(view->model()->index(0, 0),
                                       QItemSelectionModel::Select | QItemSelectionModel::Rows);
        view->selectionModel()->select(view->model()->index(1, 0),
                                       QItemSelectionModel::Select | QItemSelectionModel::Rows);
        QSignalSpy measured(&panel, &GeoPanel::distanceMeasured);
        panel.measureSelected();
        QVERIFY(measured.wait(kWaitMs));
        const QByteArray a = view->model()->index(0, 0).data(GeoPointsModel::KeyRole).toByteArray();
        const QByteArray b = view->model()->index(1, 0).data(GeoPointsModel::KeyRole).toByteArray();
        QCOMPARE(measured.first().first().toDouble(),
                 m_server.command({"GEODIST", "geo:world", a, b, "km"}).bytes().toDouble());
        QVERIFY(panel.distanceText().contains(QStringLiteral(" km")));
    }

    void clickSearchesFromPoint()
    {
        GeoPanel panel(m_client.get());
        QVERIFY(openWorld(panel));
        QCustomPlot *plot = panel.plot();
        // Zoom to Germany, then click near Frankfurt.
        panel.zoomTo(QRectF(5, 47, 11, 8));
        plot->replot();
        QVERIFY(plot->xAxis->range().lower >= 0 && plot->xAxis->range().upper <= 25);
        const QPoint at(qRound(plot->xAxis->coordToPixel(8.68)), qRound(plot->yAxis->coordToPixel(50.11)));
        const double clickLon = plot->xAxis->pixelToCoord(at.x()), clickLat = plot->yAxis->pixelToCoord(at.y());
        QVERIFY(std::abs(clickLon - 8.68) < 0.05 && std::abs(clickLat - 50.11) < 0.05);
        QSignalSpy done(&panel, &GeoPanel::searchFinished);
        QTest::mouseClick(plot, Qt::LeftButton, {}, at);
        QVERIFY(done.wait(kWaitMs));
        QVERIFY(panel.resultsModel()->rowCount() > 0);
        QVERIFY(find(panel.resultsGraph(), 8.6821, 50.1109)); // Frankfurt is in the 100 km default radius
        // The centre is where the click was, longitude on x.
        QCPGraph *centre = plot->graph(2);
        QCOMPARE(centre->dataCount(), 1);
        QVERIFY(std::abs(centre->data()->at(0)->key - clickLon) < 1e-5);
        QVERIFY(std::abs(centre->data()->at(0)->value - clickLat) < 1e-5);
        for (int i = 0; i < panel.resultsModel()->rowCount(); ++i)
            QVERIFY(panel.resultsModel()->at(i).distance <= 100.0);

        plot->replot();
        const QImage shot = panel.grab().toImage();
        QVERIFY(!shot.isNull());
        const QString out = qEnvironmentVariable("REDISLENS_SCREENSHOT_DIR");
        if (!out.isEmpty())
            shot.save(out + QStringLiteral("/geo-panel-zoomed.png"));
    }

    void bigSetIsSampledOnScreen()
    {
        GeoPanel panel(m_client.get());
        panel.resize(1000, 600);
        panel.show();
        QSignalSpy loaded(&panel, &GeoPanel::sampleLoaded);
        panel.openGeoSet("geo:big");
        QVERIFY(loaded.wait(kWaitMs));
        QCOMPARE(panel.pointsGraph()->dataCount(), GeoSampleReader::kSample);
        QVERIFY2(panel.headerText().contains(QStringLiteral("showing 10,000 of 25,000 (sampled)")),
                 qPrintable(panel.headerText()));
    }

    void screenshot()
    {
        GeoPanel panel(m_client.get());
        QVERIFY(openWorld(panel));
        QSignalSpy done(&panel, &GeoPanel::searchFinished);
        GeoQuery q;
        q.key = "geo:world";
        q.fromMember = false;
        q.centre = GeoPoint{10.0, 51.0};
        q.radius = 400;
        q.count = 50;
        panel.search(q);
        QVERIFY(done.wait(kWaitMs));
        panel.zoomTo(QRectF(-25, 28, 80, 38)); // Europe and around: cities, the cluster, the search
        panel.plot()->replot();
        QCoreApplication::processEvents(); // the replot queued when the ranges moved
        const QImage shot = panel.grab().toImage();
        QVERIFY(!shot.isNull());
        // The map is painted: the points' colour is on screen.
        const QImage map = panel.plot()->grab().toImage();
        const QRgb colour = panel.pointsGraph()->scatterStyle().brush().color().rgb();
        int hits = 0;
        for (int y = 0; y < map.height(); ++y)
            for (int x = 0; x < map.width(); ++x)
                hits += map.pixel(x, y) == colour;
        QVERIFY2(hits > 100, qPrintable(QString::number(hits)));
        const QString out = qEnvironmentVariable("REDISLENS_SCREENSHOT_DIR");
        if (!out.isEmpty())
            shot.save(out + QStringLiteral("/geo-panel.png"));
    }
};

QTEST_MAIN(TstGeoPanel)
#include "tst_geopanel.moc"
