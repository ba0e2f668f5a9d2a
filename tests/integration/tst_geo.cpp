// SPDX-License-Identifier: GPL-3.0-or-later
#include "georeader.h"
#include "redisclient.h"
#include "testserver.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QSignalSpy>
#include <QTemporaryFile>
#include <QTest>

#include <cmath>

namespace {

constexpr int kWaitMs = 30000;

struct City
{
    const char *name;
    double lon;
    double lat;
};

// Longitude first, as GEOADD takes it.
const City kCities[] = {
    {"Palermo", 13.361389, 38.115556},    {"Catania", 15.087269, 37.502669},
    {"Rome", 12.4964, 41.9028},           {"Milan", 9.19, 45.4642},
    {"Naples", 14.2681, 40.8518},         {"London", -0.1276, 51.5072},
    {"Paris", 2.3522, 48.8566},           {"Berlin", 13.405, 52.52},
    {"Madrid", -3.7038, 40.4168},         {"Lisbon", -9.1393, 38.7223},
    {"Vienna", 16.3738, 48.2082},         {"Warsaw", 21.0122, 52.2297},
    {"Stockholm", 18.0686, 59.3293},      {"Oslo", 10.7522, 59.9139},
    {"Helsinki", 24.9384, 60.1699},       {"Athens", 23.7275, 37.9838},
    {"Istanbul", 28.9784, 41.0082},       {"Moscow", 37.6173, 55.7558},
    {"Cairo", 31.2357, 30.0444},          {"Lagos", 3.3792, 6.5244},
    {"Nairobi", 36.8219, -1.2921},        {"Johannesburg", 28.0473, -26.2041},
    {"Cape Town", 18.4241, -33.9249},     {"Dubai", 55.2708, 25.2048},
    {"Mumbai", 72.8777, 19.076},          {"Delhi", 77.209, 28.6139},
    {"Bangkok", 100.5018, 13.7563},       {"Singapore", 103.8198, 1.3521},
    {"Jakarta", 106.8456, -6.2088},       {"Hong Kong", 114.1694, 22.3193},
    {"Shanghai", 121.4737, 31.2304},      {"Beijing", 116.4074, 39.9042},
    {"Seoul", 126.978, 37.5665},          {"Tokyo", 139.6917, 35.6895},
    {"Manila", 120.9842, 14.5995},        {"Sydney", 151.2093, -33.8688},
    {"Melbourne", 144.9631, -37.8136},    {"Auckland", 174.7633, -36.8485},
    {"Honolulu", -157.8583, 21.3069},     {"Anchorage", -149.9003, 61.2181},
    {"Vancouver", -123.1207, 49.2827},    {"San Francisco", -122.4194, 37.7749},
    {"Los Angeles", -118.2437, 34.0522},  {"Mexico City", -99.1332, 19.4326},
    {"Chicago", -87.6298, 41.8781},       {"Toronto", -79.3832, 43.6532},
    {"New York", -74.006, 40.7128},       {"Bogota", -74.0721, 4.711},
    {"Lima", -77.0428, -12.0464},         {"Sao Paulo", -46.6333, -23.5505},
    {"Buenos Aires", -58.3816, -34.6037}, {"Santiago", -70.6693, -33.4489},
    {"Reykjavik", -21.9426, 64.1466},
};

QList<QByteArray> geoaddCities(const QByteArray &key)
{
    QList<QByteArray> cmd{"GEOADD", key};
    for (const City &c : kCities)
        cmd << QByteArray::number(c.lon, 'g', 10) << QByteArray::number(c.lat, 'g', 10) << c.name;
    return cmd;
}

} // namespace

// The geo model layer against a real server: detection of geo sets among sorted sets, the map
// sampler, and searches and distances compared with what the server answers directly.
class TstGeo : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;
    std::unique_ptr<RedisClient> m_client;

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        QList<QList<QByteArray>> cmds;
        cmds.append(geoaddCities("geo:cities"));
        cmds.append({"ZADD", "lb:points", "100", "alice", "2500", "bob", "31337", "carol", "7", "dave", "0", "erin",
                     "90000", "frank"});
        cmds.append({"ZADD", "lb:big", "1000000000", "a", "10000000000", "b", "100000000000", "c", "1000000000000", "d",
                     "500000000000", "e", "3000000000", "f"});
        cmds.append({"ZADD", "lb:float", "1.5", "a", "2.25", "b", "99.75", "c"});
        cmds.append({"ZADD", "lb:negative", "-5", "a", "10", "b"});
        QList<QByteArray> jobsMs{"ZADD", "sched:due:ms"}, jobsS{"ZADD", "sched:due:s"};
        for (int i = 0; i < 20; ++i) {
            jobsMs << QByteArray::number(now + i * 60000 - 300000) << "job:" + QByteArray::number(i);
            jobsS << QByteArray::number(now / 1000 + i * 3600) << "job:" + QByteArray::number(i);
        }
        cmds.append(jobsMs);
        cmds.append(jobsS);
        // More leaderboards than one detector round holds.
        for (int i = 0; i < 12; ++i)
            cmds.append({"ZADD", "lb:season:" + QByteArray::number(i), QByteArray::number(i * 10), "p1",
                         QByteArray::number(i * 1000 + 5), "p2"});
        for (const RedisValue &v : m_server.pipeline(cmds))
            QVERIFY2(!v.isError(), qPrintable(v.toDisplayString()));
        m_client = connectedClient(m_server.profile());
        QVERIFY(m_client);
    }

    void cleanupTestCase() { m_client.reset(); }

    // The rule itself, without a server.
    void classify_data()
    {
        const double now = 1.8e12;
        QTest::addColumn<QList<double>>("scores");
        QTest::addColumn<bool>("geopos"); // GEOPOS answered consistently
        QTest::addColumn<int>("kind");
        QTest::addColumn<double>("nowMs");
        QTest::newRow("geo") << QList<double>{3479099956230698, 3479447370796909, 2163557714838307} << true
                             << int(ZSetKind::Geo) << now;
        QTest::newRow("geo without GEOPOS")
            << QList<double>{3479099956230698, 3479447370796909} << false << int(ZSetKind::Leaderboard) << now;
        QTest::newRow("small integers") << QList<double>{0, 7, 100, 2500, 31337} << true << int(ZSetKind::Leaderboard)
                                        << now;
        QTest::newRow("large integers") << QList<double>{1e9, 1e10, 1e11, 1e12} << true << int(ZSetKind::Leaderboard)
                                        << now;
        QTest::newRow("fractions") << QList<double>{1.5, 3479099956230698} << true << int(ZSetKind::Leaderboard) << now;
        QTest::newRow("negative") << QList<double>{-1, 3479099956230698} << true << int(ZSetKind::Leaderboard) << now;
        QTest::newRow("2^52") << QList<double>{4503599627370496.0} << true << int(ZSetKind::Leaderboard) << now;
        QTest::newRow("epoch ms") << QList<double>{now - 5000, now, now + 86400000} << true
                                  << int(ZSetKind::TimeScheduled) << now;
        QTest::newRow("epoch s") << QList<double>{now / 1000, now / 1000 + 30.5} << true << int(ZSetKind::TimeScheduled)
                                 << now;
        QTest::newRow("epoch ms 20 years ago")
            << QList<double>{now - 20 * 365.25 * 86400000} << true << int(ZSetKind::Leaderboard) << now;
        QTest::newRow("empty") << QList<double>{} << true << int(ZSetKind::Leaderboard) << now;
    }
    void classify()
    {
        QFETCH(QList<double>, scores);
        QFETCH(bool, geopos);
        QFETCH(int, kind);
        QFETCH(double, nowMs);
        QList<std::optional<GeoPoint>> positions;
        if (geopos)
            for (double s : scores)
                positions.append(geohash::isValidScore(s) ? std::optional<GeoPoint>(geohash::decodeScore(s))
                                                          : std::nullopt);
        QCOMPARE(int(classifyZSetSample(scores, positions, qint64(nowMs))), kind);
        // Positions that disagree with the scores are never Geo.
        if (geopos && !positions.isEmpty() && positions.first()) {
            positions.first()->lon += 1;
            QVERIFY(classifyZSetSample(scores, positions, qint64(nowMs)) != ZSetKind::Geo);
        }
    }

    // The shipped outline: complete, inside the map, and longitude first (Great Britain is at
    // lon -5..2, lat 50..58; swapped it would be at lon 50..58).
    void coastline()
    {
        const QString dir = qEnvironmentVariable("REDISLENS_SOURCE_DIR");
        QVERIFY2(!dir.isEmpty(), "REDISLENS_SOURCE_DIR is set by ctest");
        const QString file = dir + QStringLiteral("/resources/land-110m.bin");
        const QList<QList<GeoPoint>> lines = loadCoastline(file);
        QVERIFY(lines.size() > 100);
        qsizetype points = 0;
        bool britain = false, sydneyCoast = false;
        for (const QList<GeoPoint> &line : lines) {
            QVERIFY(line.size() >= 2);
            points += line.size();
            for (const GeoPoint &p : line) {
                QVERIFY(p.lon >= -180 && p.lon <= 180 && p.lat >= -90 && p.lat <= 90);
                britain |= std::abs(p.lon - -5.0) < 1.0 && std::abs(p.lat - 56.0) < 2.0;
                sydneyCoast |= std::abs(p.lon - 151.2) < 0.5 && std::abs(p.lat - -33.9) < 0.5;
            }
        }
        QVERIFY(points > 5000);
        QVERIFY(britain);
        QVERIFY(sydneyCoast);
        QVERIFY(loadCoastline(dir + QStringLiteral("/resources/no-such-file.bin")).isEmpty());
        // A truncated file is refused whole, not drawn in part.
        QFile in(file);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QTemporaryFile cut;
        QVERIFY(cut.open());
        cut.write(in.read(in.size() / 2));
        cut.close();
        QVERIFY(loadCoastline(cut.fileName()).isEmpty());
    }

    void detector()
    {
        GeoDetectReader detector(m_client.get());
        QList<QByteArray> keys{"geo:cities",  "lb:points",    "lb:big",      "lb:float",
                               "lb:negative", "sched:due:ms", "sched:due:s", "missing"};
        for (int i = 0; i < 12; ++i)
            keys.append("lb:season:" + QByteArray::number(i));
        QSignalSpy verdicts(&detector, &GeoDetectReader::verdict);
        QSignalSpy idle(&detector, &GeoDetectReader::idle);
        detector.addKeys(keys);
        QVERIFY(idle.wait(kWaitMs));
        QVERIFY(detector.isIdle());
        const auto &v = detector.verdicts();
        QCOMPARE(v.size(), keys.size() - 1); // no verdict for a key that does not exist
        QCOMPARE(verdicts.size(), keys.size() - 1);
        QCOMPARE(v.value("geo:cities"), ZSetKind::Geo);
        QCOMPARE(v.value("lb:points"), ZSetKind::Leaderboard);
        QCOMPARE(v.value("lb:big"), ZSetKind::Leaderboard);
        QCOMPARE(v.value("lb:float"), ZSetKind::Leaderboard);
        QCOMPARE(v.value("lb:negative"), ZSetKind::Leaderboard);
        QCOMPARE(v.value("sched:due:ms"), ZSetKind::TimeScheduled);
        QCOMPARE(v.value("sched:due:s"), ZSetKind::TimeScheduled);
        for (int i = 0; i < 12; ++i)
            QCOMPARE(v.value("lb:season:" + QByteArray::number(i)), ZSetKind::Leaderboard);
        QCOMPARE(detector.keysOfKind(ZSetKind::Geo), QList<QByteArray>{"geo:cities"});
        // Keys seen before are not asked again.
        detector.addKeys({"geo:cities"});
        QVERIFY(detector.isIdle());
    }

    void search_data()
    {
        QTest::addColumn<bool>("fromMember");
        QTest::addColumn<bool>("byBox");
        QTest::addColumn<int>("unit");
        QTest::addColumn<double>("size");
        QTest::newRow("radius from member, km") << true << false << int(GeoUnit::Km) << 1500.0;
        QTest::newRow("radius from point, mi") << false << false << int(GeoUnit::Mi) << 3000.0;
        QTest::newRow("radius from point, m") << false << false << int(GeoUnit::M) << 2500000.0;
        QTest::newRow("box from member, km") << true << true << int(GeoUnit::Km) << 4000.0;
        QTest::newRow("box from point, mi") << false << true << int(GeoUnit::Mi) << 2500.0;
    }
    void search()
    {
        QFETCH(bool, fromMember);
        QFETCH(bool, byBox);
        QFETCH(int, unit);
        QFETCH(double, size);
        GeoQuery q;
        q.key = "geo:cities";
        q.fromMember = fromMember;
        q.member = "Palermo";
        q.centre = GeoPoint{12.5, 42.0}; // near Rome: lon 12.5, lat 42
        q.byBox = byBox;
        q.radius = size;
        q.width = size;
        q.height = size * 0.75;
        q.unit = GeoUnit(unit);
        q.count = 12;

        GeoSearchReader search(m_client.get());
        QSignalSpy done(&search, &GeoSearchReader::resultsAvailable);
        search.search(q);
        QVERIFY(done.wait(kWaitMs));
        const auto results = done.first().at(1).value<QList<GeoMember>>();

        // The same question asked directly.
        QList<QByteArray> direct{"GEOSEARCH", "geo:cities"};
        if (fromMember)
            direct << "FROMMEMBER"
                   << "Palermo";
        else
            direct << "FROMLONLAT"
                   << "12.5"
                   << "42";
        if (byBox)
            direct << "BYBOX" << QByteArray::number(size, 'g', 17) << QByteArray::number(size * 0.75, 'g', 17);
        else
            direct << "BYRADIUS" << QByteArray::number(size, 'g', 17);
        direct << geoUnitArg(GeoUnit(unit)) << "WITHDIST"
               << "WITHCOORD"
               << "ASC"
               << "COUNT"
               << "12";
        const RedisValue expected = m_server.command(direct);
        QVERIFY(expected.isArray());
        QVERIFY(expected.size() >= 3); // the query finds several cities
        QCOMPARE(results.size(), expected.size());
        for (qsizetype i = 0; i < results.size(); ++i) {
            const RedisValue &e = expected.at(i);
            QCOMPARE(results.at(i).member, e.at(0).bytes());
            QVERIFY(std::abs(results.at(i).distance - e.at(1).bytes().toDouble()) < 1e-4);
            QVERIFY(std::abs(results.at(i).pos.lon - e.at(2).at(0).bytes().toDouble()) < 1e-9);
            QVERIFY(std::abs(results.at(i).pos.lat - e.at(2).at(1).bytes().toDouble()) < 1e-9);
        }
        // Ascending by distance.
        for (qsizetype i = 1; i < results.size(); ++i)
            QVERIFY(results.at(i - 1).distance <= results.at(i).distance);

        // The pre-6.2 fallback (GEORADIUS*_RO) answers the same for radius searches.
        const QList<QByteArray> old = geoSearchCommand(q, false);
        if (byBox) {
            QVERIFY(old.isEmpty());
        } else {
            bool ok = false;
            const QList<GeoMember> viaOld = parseGeoSearchReply(m_server.command(old), &ok);
            QVERIFY(ok);
            QCOMPARE(viaOld.size(), results.size());
            for (qsizetype i = 0; i < results.size(); ++i) {
                QCOMPARE(viaOld.at(i).member, results.at(i).member);
                QVERIFY(std::abs(viaOld.at(i).distance - results.at(i).distance) < 1e-4);
            }
        }

        // Under the model tester, showing the same rows.
        GeoPointsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResults(results, q.unit);
        QCOMPARE(model.rowCount(), int(results.size()));
        QCOMPARE(model.columnCount(), int(GeoPointsModel::ColumnCount));
        QCOMPARE(model.index(0, GeoPointsModel::MemberColumn).data(GeoPointsModel::KeyRole).toByteArray(),
                 results.first().member);
        QVERIFY(model.index(0, GeoPointsModel::DistanceColumn).data().toString().endsWith(u' ' + geoUnitName(q.unit)));
        QCOMPARE(model.index(0, GeoPointsModel::LongitudeColumn).data(GeoPointsModel::SortRole).toDouble(),
                 results.first().pos.lon);
        QCOMPARE(model.index(0, GeoPointsModel::LatitudeColumn).data(GeoPointsModel::SortRole).toDouble(),
                 results.first().pos.lat);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void searchFromMissingMemberFails()
    {
        GeoSearchReader search(m_client.get());
        QSignalSpy failed(&search, &GeoSearchReader::failed);
        GeoQuery q;
        q.key = "geo:cities";
        q.member = "Atlantis";
        search.search(q);
        QVERIFY(failed.wait(kWaitMs));
        QVERIFY(!failed.first().first().toString().isEmpty());
    }

    void distance_data()
    {
        QTest::addColumn<QByteArray>("a");
        QTest::addColumn<QByteArray>("b");
        QTest::addColumn<int>("unit");
        QTest::newRow("Palermo-Catania km") << QByteArray("Palermo") << QByteArray("Catania") << int(GeoUnit::Km);
        QTest::newRow("London-New York mi") << QByteArray("London") << QByteArray("New York") << int(GeoUnit::Mi);
        QTest::newRow("Sydney-Tokyo m") << QByteArray("Sydney") << QByteArray("Tokyo") << int(GeoUnit::M);
        QTest::newRow("missing") << QByteArray("Sydney") << QByteArray("Atlantis") << int(GeoUnit::M);
    }
    void distance()
    {
        QFETCH(QByteArray, a);
        QFETCH(QByteArray, b);
        QFETCH(int, unit);
        GeoSearchReader search(m_client.get());
        QSignalSpy done(&search, &GeoSearchReader::distanceAvailable);
        search.distance("geo:cities", a, b, GeoUnit(unit));
        QVERIFY(done.wait(kWaitMs));
        const double d = done.first().at(2).toDouble();
        const RedisValue expected = m_server.command({"GEODIST", "geo:cities", a, b, geoUnitArg(GeoUnit(unit))});
        if (expected.isNil()) {
            QCOMPARE(d, -1.0);
        } else {
            QVERIFY(d > 0);
            QCOMPARE(d, expected.bytes().toDouble());
        }
    }

    void samplerLoadsSmallSetWhole()
    {
        GeoSampleReader sampler(m_client.get());
        QSignalSpy loaded(&sampler, &GeoSampleReader::sampleAvailable);
        sampler.load("geo:cities");
        QVERIFY(loaded.wait(kWaitMs));
        const auto sample = loaded.first().first().value<GeoSample>();
        QVERIFY(!sample.sampled);
        QCOMPARE(sample.zcard, qint64(std::size(kCities)));
        QCOMPARE(sample.points.size(), qsizetype(std::size(kCities)));
        QCOMPARE(sample.description(), QStringLiteral("all 53 members"));
        for (const GeoMember &m : sample.points) {
            const City *city = std::find_if(std::begin(kCities), std::end(kCities),
                                            [&](const City &c) { return m.member == c.name; });
            QVERIFY(city != std::end(kCities));
            QVERIFY2(std::abs(m.pos.lon - city->lon) < 1e-5 && std::abs(m.pos.lat - city->lat) < 1e-5, city->name);
        }
    }

    void samplerSamplesMillion()
    {
        // A million members, written inside the server in GEOADDs of 1000.
        const RedisValue fill = m_server.command({"EVAL",
                                                  "local n = 0\n"
                                                  "for b = 0, 999 do\n"
                                                  "  local args = {}\n"
                                                  "  for j = 0, 999 do\n"
                                                  "    local k = b * 1000 + j\n"
                                                  "    args[#args + 1] = ((k * 7919) % 359999) / 1000 - 179.9995\n"
                                                  "    args[#args + 1] = ((k * 104729) % 169999) / 1000 - 84.9995\n"
                                                  "    args[#args + 1] = 'm' .. k\n"
                                                  "  end\n"
                                                  "  n = n + redis.call('GEOADD', KEYS[1], unpack(args))\n"
                                                  "end\n"
                                                  "return n",
                                                  "1", "geo:big"});
        QCOMPARE(fill.toInteger(), qint64(1000000));
        GeoSampleReader sampler(m_client.get());
        QSignalSpy loaded(&sampler, &GeoSampleReader::sampleAvailable);
        sampler.load("geo:big");
        QVERIFY(loaded.wait(kWaitMs));
        const auto sample = loaded.first().first().value<GeoSample>();
        QVERIFY(sample.sampled);
        QCOMPARE(sample.zcard, qint64(1000000));
        QCOMPARE(sample.points.size(), qsizetype(GeoSampleReader::kSample));
        QCOMPARE(sample.description(), QStringLiteral("showing 10,000 of 1,000,000 (sampled)"));
        // Spread over the world, not one patch.
        double minLon = 180, maxLon = -180;
        for (const GeoMember &m : sample.points) {
            minLon = qMin(minLon, m.pos.lon);
            maxLon = qMax(maxLon, m.pos.lon);
        }
        QVERIFY(maxLon - minLon > 300);
        // Decoded locally = what GEOPOS says.
        QList<QByteArray> geopos{"GEOPOS", "geo:big"};
        for (int i = 0; i < 8; ++i)
            geopos.append(sample.points.at(i * 1000).member);
        const RedisValue pos = m_server.command(geopos);
        QCOMPARE(pos.size(), qsizetype(8));
        for (int i = 0; i < 8; ++i) {
            const GeoMember &m = sample.points.at(i * 1000);
            QVERIFY(std::abs(m.pos.lon - pos.at(i).at(0).bytes().toDouble()) < 1e-9);
            QVERIFY(std::abs(m.pos.lat - pos.at(i).at(1).bytes().toDouble()) < 1e-9);
        }
        // And the big set is detected as geo too.
        GeoDetectReader detector(m_client.get());
        QSignalSpy idle(&detector, &GeoDetectReader::idle);
        detector.addKeys({"geo:big"});
        QVERIFY(idle.wait(kWaitMs));
        QCOMPARE(detector.verdicts().value("geo:big"), ZSetKind::Geo);
    }
};

QTEST_GUILESS_MAIN(TstGeo)
#include "tst_geo.moc"
