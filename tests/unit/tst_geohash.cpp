// SPDX-License-Identifier: GPL-3.0-or-later
#include "geohash.h"

#include <QTest>

#include <cmath>

// Scores and positions below were read from redis-server 7.0.15: GEOADD with the coordinates,
// then ZSCORE and GEOPOS. Decoding must give GEOPOS's cell centre, encoding ZSCORE's integer.
class TstGeohash : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void decodeMatchesRedis_data()
    {
        QTest::addColumn<double>("lon"); // as given to GEOADD
        QTest::addColumn<double>("lat");
        QTest::addColumn<qint64>("score"); // ZSCORE
        QTest::addColumn<double>("geoposLon"); // GEOPOS
        QTest::addColumn<double>("geoposLat");
        QTest::newRow("Palermo") << 13.361389 << 38.115556 << qint64(3479099956230698) << 13.36138933897018433
                                 << 38.11555639549629859;
        QTest::newRow("Catania") << 15.087269 << 37.502669 << qint64(3479447370796909) << 15.08726745843887329
                                 << 37.50266842333162032;
        QTest::newRow("London") << -0.1276 << 51.5072 << qint64(2163557714838307) << -0.12760072946548462
                                << 51.50720053692975853;
        QTest::newRow("Sydney") << 151.2093 << -33.8688 << qint64(3252046221964352) << 151.20929986238479614
                                << -33.86880091934155956;
        QTest::newRow("New York") << -74.0060 << 40.7128 << qint64(1791873974549446) << -74.0060010552406311
                                  << 40.71279898695150479;
        QTest::newRow("lon 100, lat 10") << 100.0 << 10.0 << qint64(3949377836479807) << 100.00000208616256714
                                         << 10.00000092823272979;
        QTest::newRow("south-west corner")
            << -180.0 << -85.05112878 << qint64(0) << -179.99999731779098511 << -85.05112751263942528;
        QTest::newRow("north-east") << 179.9999 << 85.05 << qint64(4503599627286694) << 179.99990075826644897
                                    << 85.04999956172351006;
    }
    void decodeMatchesRedis()
    {
        QFETCH(double, lon);
        QFETCH(double, lat);
        QFETCH(qint64, score);
        QFETCH(double, geoposLon);
        QFETCH(double, geoposLat);
        QVERIFY(geohash::isValidScore(double(score)));
        const GeoPoint p = geohash::decodeScore(double(score));
        QVERIFY2(std::abs(p.lon - geoposLon) < 1e-9, qPrintable(QString::number(p.lon, 'g', 17)));
        QVERIFY2(std::abs(p.lat - geoposLat) < 1e-9, qPrintable(QString::number(p.lat, 'g', 17)));
        // A cell is about 0.6 m: the centre is near what was added.
        QVERIFY(std::abs(p.lon - lon) < 1e-5);
        QVERIFY(std::abs(p.lat - lat) < 1e-5);
        quint64 hash = 0;
        QVERIFY(geohash::encode(GeoPoint{lon, lat}, &hash));
        QCOMPARE(hash, quint64(score));
        QVERIFY(geohash::encode(p, &hash));
        QCOMPARE(hash, quint64(score));
    }

    // Longitude first: a point at lon 100, lat 10 (the Andaman Sea) must not come back as
    // lon 10, lat 100, nor encode like lon 10, lat 100 would (out of range) or lon 10, lat 80.
    void longitudeFirst()
    {
        const GeoPoint p = geohash::decodeScore(3949377836479807.0);
        QVERIFY(std::abs(p.lon - 100) < 1e-5);
        QVERIFY(std::abs(p.lat - 10) < 1e-5);
        quint64 straight = 0, swapped = 0;
        QVERIFY(geohash::encode(GeoPoint{100, 10}, &straight));
        QVERIFY(!geohash::encode(GeoPoint{10, 100}, &swapped)); // lat 100 is off the globe
        QVERIFY(geohash::encode(GeoPoint{10, 80}, &swapped));
        QVERIFY(straight != swapped);
        // Sydney is east and south; a swap would put it at lon -33.9.
        const GeoPoint sydney = geohash::decodeScore(3252046221964352.0);
        QVERIFY(sydney.lon > 150 && sydney.lat < -33);
    }

    void validity_data()
    {
        QTest::addColumn<double>("score");
        QTest::addColumn<bool>("valid");
        QTest::newRow("zero") << 0.0 << true;
        QTest::newRow("leaderboard integer") << 31337.0 << true;
        QTest::newRow("largest") << 4503599627370495.0 << true;
        QTest::newRow("2^52") << 4503599627370496.0 << false;
        QTest::newRow("negative") << -1.0 << false;
        QTest::newRow("fraction") << 12.5 << false;
        QTest::newRow("nan") << std::nan("") << false;
        QTest::newRow("inf") << HUGE_VAL << false;
    }
    void validity()
    {
        QFETCH(double, score);
        QFETCH(bool, valid);
        QCOMPARE(geohash::isValidScore(score), valid);
    }

    void distanceMatchesGeodist()
    {
        // GEODIST k Palermo Catania km = 166.2742 (Redis rounds to 4 decimals).
        const GeoPoint a = geohash::decodeScore(3479099956230698.0);
        const GeoPoint b = geohash::decodeScore(3479447370796909.0);
        QVERIFY(std::abs(geohash::distanceM(a, b) / 1000 - 166.2742) < 5e-5);
        QCOMPARE(geohash::distanceM(a, a), 0.0);
    }
};

QTEST_APPLESS_MAIN(TstGeohash)
#include "tst_geohash.moc"
