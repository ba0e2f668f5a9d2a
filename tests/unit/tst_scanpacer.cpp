// SPDX-License-Identifier: GPL-3.0-or-later
// ScanPacer's rules, fed samples as LoadProbe would measure them.
#include "scanpacer.h"

#include <QTest>

namespace {
LoadSample sample(QList<double> pingMs, double others, double own, double cpu = -1, qint64 slowlog = 0)
{
    LoadSample s;
    s.seconds = 0.25;
    s.pingMs = std::move(pingMs);
    s.othersPerSecond = others;
    s.ownPerSecond = own;
    s.serverCpu = cpu;
    s.slowlogGrowth = slowlog;
    return s;
}
} // namespace

class TstScanPacer : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void medianOfSamples()
    {
        QCOMPARE(ScanPacer::median({}), -1.0);
        QCOMPARE(ScanPacer::median({3, 1, 2}), 2.0);
        QCOMPARE(ScanPacer::median({4, 1, 3, 2}), 2.5);
    }

    void nothingChangesBeforeTheBaseline()
    {
        ScanPacer p;
        QVERIFY(!p.hasBaseline());
        // The scan holds still until the server was measured without it.
        QCOMPARE(p.update(sample({50}, 0, 2000)), ScanPacer::kHold);
        QVERIFY(p.reason().contains(QLatin1String("measuring")));
        p.setBaseline({0.2}, 0);
        QCOMPARE(p.ceiling(), ScanPacer::kStart);
    }

    void idleServerReachesFullSpeedWithinAFewTicks()
    {
        ScanPacer p;
        p.setBaseline({0.08, 0.1, 0.09}, 0);
        QVERIFY2(p.reason().contains(QLatin1String("without the scan: PING 0.09 ms, others 0/s; going at 2,000/s")),
                 qPrintable(p.reason()));
        // The scan uses whatever it is given, up to what this client can parse (600,000/s).
        int ticks = 0;
        while (p.ceiling() != 0 && ticks < 20) {
            const double own = qMin(600000.0, double(p.ceiling()));
            p.update(sample({0.3, 0.5}, 10, own));
            ++ticks;
        }
        QCOMPARE(p.ceiling(), 0);
        QCOMPARE(ticks, 3); // 16,000, 128,000, none
        QVERIFY(p.reason().contains(QLatin1String("no ceiling")));
    }

    void latencyRiseHalvesWhatWasSent()
    {
        ScanPacer p;
        p.setBaseline({0.4, 0.4}, 20000);
        // Up from the start while the PING stays put.
        p.update(sample({0.45}, 20000, 2000));
        QCOMPARE(p.ceiling(), 2500);
        // The scan sent less than its ceiling: half of what it sent, not of the ceiling.
        p.update(sample({1.4, 1.5, 1.6}, 19900, 1800));
        QCOMPARE(p.ceiling(), 900);
        QVERIFY2(p.reason().startsWith(QLatin1String("PING took 1.50 ms (0.40 ms without the scan): slowed to 900/s")),
                 qPrintable(p.reason()));
    }

    void anIdleServerToleratesMoreLatencyThanABusyOne()
    {
        ScanPacer idle;
        idle.setBaseline({0.1}, 0);
        idle.update(sample({1.5}, 0, 2000));
        QCOMPARE(idle.ceiling(), 16000); // 1.5 ms harms nobody when nobody else sends

        ScanPacer busy;
        busy.setBaseline({0.1}, 5000);
        busy.update(sample({1.5}, 5000, 2000));
        QCOMPARE(busy.ceiling(), 1000);
        QVERIFY(busy.reason().startsWith(QLatin1String("PING took")));
    }

    void othersLosingThroughputSlowsTheScan()
    {
        ScanPacer p;
        p.setBaseline({0.5}, 50000);
        p.update(sample({0.5}, 48000, 2000)); // 96 %: within the noise allowed
        QCOMPARE(p.ceiling(), 2500);
        p.update(sample({0.5}, 46000, 2400)); // 92 %
        QCOMPARE(p.ceiling(), 1200);
        QVERIFY2(p.reason().startsWith(QLatin1String("other clients' commands fell to 46,000/s from 50,000/s")),
                 qPrintable(p.reason()));
    }

    void slowLogGrowthSlowsTheScan()
    {
        ScanPacer p;
        p.setBaseline({0.2}, 0);
        p.update(sample({0.2}, 0, 2000, -1, 3));
        QCOMPARE(p.ceiling(), 1000);
        QVERIFY(p.reason().startsWith(QLatin1String("the slow log grew by 3")));
        // Unknown (no permission) is not growth.
        p.update(sample({0.2}, 0, 1000, -1, -1));
        QCOMPARE(p.ceiling(), 8000);
        // A server that logs every command (slowlog-log-slower-than 0) had as many entries
        // without the scan: only more than that is harm.
        ScanPacer all;
        all.setBaseline({0.2}, 0, 16);
        all.update(sample({0.2}, 0, 2000, -1, 16));
        QCOMPARE(all.ceiling(), 16000);
    }

    void aBusyServerHoldsTheCeiling()
    {
        ScanPacer p;
        p.setBaseline({0.5}, 40000);
        p.update(sample({0.5}, 40000, 2000, 0.95));
        QCOMPARE(p.ceiling(), ScanPacer::kStart);
        QVERIFY2(p.reason().startsWith(QLatin1String("server busy (95 % CPU)")), qPrintable(p.reason()));
    }

    void aCeilingTheScanDoesNotReachIsNotRaised()
    {
        ScanPacer p;
        p.setBaseline({0.5}, 40000);
        p.update(sample({0.5}, 40000, 500, 0.5));
        QCOMPARE(p.ceiling(), ScanPacer::kStart);
        QVERIFY(p.reason().contains(QLatin1String("holding at 2,000/s")));
        p.update(sample({0.5}, 40000, 2000, 0.5));
        QCOMPARE(p.ceiling(), 2500);
    }

    void neverBelowTheFloorAndOthersCanSimplyHaveLessToDo()
    {
        ScanPacer p;
        p.setBaseline({0.5}, 50000);
        for (int i = 0; i < 10; ++i)
            p.update(sample({0.5}, 30000, p.ceiling()));
        QCOMPARE(p.ceiling(), ScanPacer::kFloor);
        // Others stay at 30,000/s: at the floor the scan cannot be why, and their baseline
        // drifts down until the scan may go on.
        int ticks = 0;
        while (p.ceiling() == ScanPacer::kFloor && ticks < 50) {
            p.update(sample({0.5}, 30000, ScanPacer::kFloor));
            ++ticks;
        }
        QVERIFY2(p.ceiling() > ScanPacer::kFloor, qPrintable(p.reason()));
    }

    void othersCountedBesideAFastScanAreNoise()
    {
        // The server's count less ours is off by a pipeline or two while the scan sends
        // 400,000/s: 8,000/s "from others" does not make an idle server busy.
        ScanPacer p;
        p.setBaseline({0.1}, 0);
        p.update(sample({1.2}, 8000, 2000)); // beside a slow scan the same 8,000/s are load
        QCOMPARE(p.ceiling(), 1000);
        ScanPacer q;
        q.setBaseline({0.1}, 0);
        q.update(sample({1.2}, 8000, 400000));
        QCOMPARE(q.ceiling(), 16000);
    }

    // Others start working after the baseline (a scan begun on a quiet server): the scan
    // holds still for a tick, their undisturbed load becomes the baseline, and the scan goes
    // on from a small ceiling, slowing as soon as their throughput drops.
    void othersArrivingAreMeasuredWithoutTheScan()
    {
        ScanPacer p;
        p.setBaseline({0.1}, 0);
        while (p.ceiling() != 0)
            p.update(sample({0.2}, 0, qMin(600000.0, double(p.ceiling()))));
        p.update(sample({0.2}, 30000, 500000));
        QCOMPARE(p.ceiling(), ScanPacer::kHold);
        QVERIFY2(p.reason().startsWith(QLatin1String("other clients started working")), qPrintable(p.reason()));
        p.update(sample({0.4, 0.5, 0.45}, 31000, 0));
        QCOMPARE(p.ceiling(), ScanPacer::kStart);
        QVERIFY2(p.reason().contains(QLatin1String("others 31,000/s")), qPrintable(p.reason()));
        p.update(sample({0.45}, 28000, 2000));
        QCOMPARE(p.ceiling(), 1000);
        QVERIFY2(p.reason().startsWith(QLatin1String("other clients' commands fell to 28,000/s from 31,000/s")),
                 qPrintable(p.reason()));
    }

    void onePingInTheTailIsHarm()
    {
        ScanPacer p;
        p.setBaseline({0.2, 0.3, 0.25}, 20000);
        p.update(sample({0.2, 0.2, 0.2, 0.2, 1.9}, 20000, 2000));
        QCOMPARE(p.ceiling(), 1000);
        QVERIFY2(p.reason().startsWith(QLatin1String("a PING took 1.90 ms (at most 0.30 ms without the scan)")),
                 qPrintable(p.reason()));
        // Alone, one PING behind a long pipeline harms nobody.
        ScanPacer alone;
        alone.setBaseline({0.2, 0.3, 0.25}, 0);
        alone.update(sample({0.2, 0.2, 0.2, 0.2, 5.0}, 0, 2000));
        QCOMPARE(alone.ceiling(), 16000);
    }

    // Others' load drifts: every 20 s of it the scan holds still for a tick to measure again.
    void aBusyServerIsMeasuredAgainNowAndThen()
    {
        ScanPacer p;
        p.setBaseline({0.5}, 20000);
        int ticks = 0;
        while (p.ceiling() != ScanPacer::kHold && ticks < 200) {
            p.update(sample({0.5}, 20000, p.ceiling()));
            ++ticks;
        }
        QCOMPARE(ticks, 80);
        QCOMPARE(p.reason(), QStringLiteral("measuring the server again without the scan"));
        p.update(sample({0.5}, 20000, 0));
        QVERIFY(p.ceiling() > ScanPacer::kStart); // back where it was
    }
};

QTEST_GUILESS_MAIN(TstScanPacer)
#include "tst_scanpacer.moc"
