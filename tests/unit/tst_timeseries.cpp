// SPDX-License-Identifier: GPL-3.0-or-later
#include "timeseries.h"

#include <QTest>

#include <cmath>

// The bounded series under the Overview charts: exact recent samples, bucketed older ones,
// a day at most, and breaks that survive folding.
class TstTimeSeries : public QObject
{
    Q_OBJECT

private:
    static bool isSorted(const QList<TimeSeries::Point> &pts)
    {
        for (qsizetype i = 1; i < pts.size(); ++i)
            if (pts[i].t < pts[i - 1].t)
                return false;
        return true;
    }
    static qsizetype countNaN(const QList<TimeSeries::Point> &pts)
    {
        return std::count_if(pts.cbegin(), pts.cend(), [](const TimeSeries::Point &p) { return std::isnan(p.v); });
    }

private Q_SLOTS:
    void rawSamplesAreExact()
    {
        TimeSeries s;
        QVERIFY(s.isEmpty());
        QVERIFY(std::isnan(s.last().t));
        QVERIFY(s.append(100, 1));
        QVERIFY(s.append(101, 2.5));
        QVERIFY(s.append(102, std::numeric_limits<double>::quiet_NaN()));
        QVERIFY(s.append(103, std::numeric_limits<double>::infinity())); // no value, like NaN
        const QList<TimeSeries::Point> pts = s.points();
        QCOMPARE(pts.size(), 4);
        QCOMPARE(pts[0].t, 100.0);
        QCOMPARE(pts[1].v, 2.5);
        QVERIFY(std::isnan(pts[2].v));
        QVERIFY(std::isnan(pts[3].v));
        QCOMPARE(s.lastValue().v, 2.5);
        QCOMPARE(s.lastValue().t, 101.0);
        QCOMPARE(s.serial(), quint64(4));
    }

    void olderSamplesAreIgnored()
    {
        TimeSeries s;
        QVERIFY(s.append(100, 1));
        QVERIFY(!s.append(99, 2));
        QVERIFY(!s.appendBreak(50));
        QVERIFY(!s.append(std::numeric_limits<double>::quiet_NaN(), 2));
        QVERIFY(s.append(100, 3)); // same time is allowed
        QCOMPARE(s.points().size(), 2);
    }

    void boundedOverADay_data()
    {
        QTest::addColumn<double>("interval");
        QTest::addColumn<double>("hours");
        QTest::newRow("250 ms for 26 h") << 0.25 << 26.0;
        QTest::newRow("1 s for 26 h") << 1.0 << 26.0;
        QTest::newRow("60 s for 3 days") << 60.0 << 72.0;
    }

    void boundedOverADay()
    {
        QFETCH(double, interval);
        QFETCH(double, hours);
        TimeSeries s;
        const double start = 1.8e9;
        const auto n = qint64(hours * 3600 / interval);
        qsizetype most = 0;
        for (qint64 i = 0; i < n; ++i) {
            const double t = start + double(i) * interval;
            // v = t makes every bucket's mean value equal to its mean time: checks the folding.
            QVERIFY(s.append(t, t));
            if (i % 512 == 0)
                most = std::max(most, s.storedPoints());
        }
        most = std::max(most, s.storedPoints());
        QVERIFY2(most <= s.maxStoredPoints(), qPrintable(QStringLiteral("%1 > %2").arg(most).arg(s.maxStoredPoints())));
        // 7200 + 900 raw + 2880 buckets + 2: well under what a day of samples would take.
        QVERIFY(s.maxStoredPoints() < 11000);

        const QList<TimeSeries::Point> pts = s.points();
        QVERIFY(isSorted(pts));
        QCOMPARE(countNaN(pts), 0);
        const double newest = start + double(n - 1) * interval;
        QCOMPARE(pts.constLast().t, newest);
        // A day is kept, not more (one bucket of slack at the old end).
        QVERIFY(pts.constFirst().t >= newest - 24 * 3600 - s.bucketSeconds());
        QVERIFY(pts.constFirst().t <= newest - 24 * 3600 + s.bucketSeconds() + interval);
        for (const TimeSeries::Point &p : pts)
            QVERIFY2(std::abs(p.v - p.t) < 1e-3, qPrintable(QString::number(p.t, 'f', 3)));
        // The newest samples are still exact.
        const qsizetype exact = std::min<qsizetype>(s.rawCapacity(), qsizetype(24 * 3600 / interval));
        QVERIFY(s.rawCount() >= exact);
        QCOMPARE(pts[pts.size() - 2].t, newest - interval);
    }

    void breaksSurviveFolding()
    {
        // 16 raw samples, 10 s buckets: most of this history is folded.
        TimeSeries s(16, 10);
        const double nan = std::numeric_limits<double>::quiet_NaN();
        double t = 1000;
        for (int i = 0; i < 30; ++i, t += 1)
            s.append(t, 5);
        s.appendBreak(t - 0.5); // the server restarted between 1029 and 1030
        for (int i = 0; i < 30; ++i, t += 1)
            s.append(t, 7);
        // Samples without a value (no lookups) are not restarts: folded, they leave no hole.
        for (int i = 0; i < 30; ++i, t += 1)
            s.append(t, i % 3 == 0 ? nan : 9.0);
        for (int i = 0; i < 40; ++i, t += 1)
            s.append(t, 11);
        QVERIFY(s.bucketCount() > 0);

        const QList<TimeSeries::Point> pts = s.points();
        QVERIFY(isSorted(pts));
        QCOMPARE(countNaN(pts), 1);
        qsizetype gap = -1;
        for (qsizetype i = 0; i < pts.size(); ++i)
            if (std::isnan(pts[i].v))
                gap = i;
        QVERIFY(gap > 0 && gap + 1 < pts.size());
        QCOMPARE(pts[gap - 1].v, 5.0);
        QCOMPARE(pts[gap + 1].v, 7.0);
        QVERIFY(pts[gap].t >= 1020 && pts[gap].t < 1030);
        for (const TimeSeries::Point &p : pts)
            if (p.t >= 1060 && p.t < 1090)
                QCOMPARE(p.v, 9.0);
    }

    void breakInsideABucketKeepsOrder()
    {
        // A bucket holding values, a break and values again gives mean, then the break.
        TimeSeries s(2, 100);
        s.append(10, 1);
        s.append(20, 3);
        s.appendBreak(25);
        s.append(30, 5);
        for (int i = 0; i < 10; ++i)
            s.append(200 + i, 0);
        const QList<TimeSeries::Point> pts = s.points();
        QVERIFY(isSorted(pts));
        QCOMPARE(pts[0].v, 3.0); // mean of 1, 3, 5
        QCOMPARE(pts[0].t, 20.0);
        QVERIFY(std::isnan(pts[1].v));
        QCOMPARE(pts[1].t, 25.0);
    }

    void repeatedBreaksCollapse()
    {
        TimeSeries s;
        s.append(1, 1);
        s.appendBreak(2);
        s.appendBreak(3);
        s.append(4, 1);
        QCOMPARE(s.points().size(), 3);
    }

    void mirrorStaysEqual()
    {
        // A chart that appends pointsSince() while generation() is unchanged, and takes
        // points() again when it changes, always shows exactly points().
        TimeSeries s(512, 5, 1200);
        QList<TimeSeries::Point> mirror;
        quint64 generation = s.generation();
        quint64 serial = s.serial();
        int rebuilds = 0;
        for (int i = 0; i < 3000; ++i) {
            const double t = 1e9 + i * 0.5;
            if (i % 97 == 50)
                s.appendBreak(t - 0.25);
            s.append(t, i % 11 == 0 ? std::numeric_limits<double>::quiet_NaN() : double(i % 17));
            if (i % 7 != 0)
                continue; // charts refresh less often than samples arrive
            if (s.generation() != generation) {
                mirror = s.points();
                generation = s.generation();
                ++rebuilds;
            } else {
                mirror += s.pointsSince(serial);
            }
            serial = s.serial();
            const QList<TimeSeries::Point> expected = s.points();
            QCOMPARE(mirror.size(), expected.size());
            for (qsizetype k = 0; k < expected.size(); ++k) {
                QCOMPARE(mirror[k].t, expected[k].t);
                QCOMPARE(std::isnan(mirror[k].v), std::isnan(expected[k].v));
                if (!std::isnan(expected[k].v))
                    QCOMPARE(mirror[k].v, expected[k].v);
            }
        }
        // Folding in chunks: far fewer rebuilds than refreshes.
        QVERIFY(rebuilds > 0);
        QVERIFY(rebuilds < 3000 / 7 / 2);
    }

    void clearEmpties()
    {
        TimeSeries s(4, 10);
        for (int i = 0; i < 20; ++i)
            s.append(i, i);
        const quint64 g = s.generation();
        s.clear();
        QVERIFY(s.isEmpty());
        QVERIFY(s.points().isEmpty());
        QVERIFY(s.generation() != g);
        QVERIFY(s.append(0, 1)); // time may start over after clear()
    }
};

QTEST_GUILESS_MAIN(TstTimeSeries)
#include "tst_timeseries.moc"
