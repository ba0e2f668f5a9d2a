// SPDX-License-Identifier: GPL-3.0-or-later
// Adaptive pacing for the key scan: how many commands a second the scan may send, decided from
// what the scan does to everybody else. No I/O here (LoadProbe measures; this decides), so the
// rules can be tested by feeding samples.
#pragma once

#include <QList>
#include <QString>

// What LoadProbe measured over one tick (about a quarter of a second).
struct LoadSample
{
    double seconds = 0; // the tick's length
    QList<double> pingMs; // round trips of PING on the probe connection during the tick
    // Commands the server processed in the tick that this process did not send (from
    // INFO stats' total_commands_processed less what our connections wrote); -1 unknown.
    double othersPerSecond = -1;
    double ownPerSecond = 0; // what the scan's connection wrote in the tick, per second
    double serverCpu = -1; // the server's CPU time in the tick over its length (1.0: a core); -1 unknown
    qint64 slowlogGrowth = 0; // others' entries added to the slow log in the tick (-1 unknown)
};

class ScanPacer
{
public:
    // Below this a scan makes no useful progress; it is never paced slower.
    static constexpr int kFloor = 200;
    // The first ceiling after a baseline.
    static constexpr int kStart = 2000;
    // The scan sends nothing while the server is measured without it.
    static constexpr int kHold = -1;
    // Others doing fewer commands a second than this leave the server idle for our purposes.
    static constexpr double kBusyOthers = 1000;

    // The state of the server while the scan sends nothing.
    void setBaseline(const QList<double> &pingMs, double othersPerSecond, qint64 slowlogEntries = 0);
    bool hasBaseline() const { return m_baselinePingMs >= 0; }

    // One tick: returns the new ceiling in commands per second (0: none; kHold: send nothing
    // for a tick, the server is measured again without the scan).
    int update(const LoadSample &sample);

    int ceiling() const { return m_ceiling; }
    // Why the ceiling is what it is, in words for the status bar.
    QString reason() const { return m_reason; }
    double baselinePingMs() const { return m_baselinePingMs; }

    static double median(QList<double> values);

private:
    QString harm(const LoadSample &sample, bool othersBusy) const;

    double m_baselinePingMs = -1; // median
    double m_baselineTailMs = -1; // the slowest
    double m_baselineOthers = -1;
    qint64 m_baselineSlowlog = 0; // others' slow log entries in a tick without the scan
    int m_ceiling = kHold;
    int m_resumeAt = kStart; // after a hold
    int m_ticksSinceBaseline = 0;
    QString m_reason = QStringLiteral("measuring the server before scanning");
};
