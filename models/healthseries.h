// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "serverinfo.h"
#include "timeseries.h"

#include <QByteArray>
#include <QObject>
#include <QString>
#include <array>

class QIODevice;

// The server's health over time, from successive INFO replies: memory, throughput, cache
// health and clients as bounded time series, plus the latest header facts. Headless, so the
// Overview panel, a report and the tests share it.
//
// Rates come from counter deltas between two samples (never from instantaneous_*, which the
// server averages over its own window). A restart (run_id changes, uptime goes backwards) or a
// counter that goes down (CONFIG RESETSTAT) makes that interval a gap in every series: no
// negative rate, no spike, no line drawn across it.
class HealthSeries : public QObject
{
    Q_OBJECT
public:
    enum class Series {
        UsedMemory, // bytes
        RssMemory, // bytes
        PeakMemory, // bytes
        MaxMemory, // bytes; NaN while maxmemory is 0 (no limit)
        Fragmentation, // mem_fragmentation_ratio
        OpsPerSec, // commands processed per second
        NetInPerSec, // bytes per second
        NetOutPerSec, // bytes per second
        HitRatio, // percent of lookups that hit; NaN when there were no lookups
        ExpiredPerSec, // keys per second
        EvictedPerSec, // keys per second
        ConnectedClients,
        BlockedClients,
        ErrorsPerSec, // error replies per second (total_error_replies, 6.2+); NaN before
    };
    static constexpr int kSeriesCount = int(Series::ErrorsPerSec) + 1;

    // One label/value pair of the header ("Role", "master").
    struct Fact
    {
        QString label;
        QString value;
        QString toolTip;
    };

    explicit HealthSeries(QObject *parent = nullptr);

    // Takes one INFO sample (default sections); its capturedAtMs is the chart time. Returns
    // false and ignores the sample when it is not newer than the previous one.
    bool addSample(const ServerInfo &info);
    // No sample could be taken at 't' (connection lost, INFO refused): the lines break here,
    // and the next sample starts a new baseline instead of averaging over the outage.
    void markGap(double t);
    void clear();

    const TimeSeries &series(Series s) const { return m_series[size_t(s)]; }
    // CSV column name with its unit: "used_memory_bytes".
    static QString columnName(Series s);
    // Short name for legends: "used", "RSS", "ops/s".
    static QString title(Series s);

    int sampleCount() const { return m_samples; } // samples taken since clear()
    int resetCount() const { return m_resets; } // restarts and counter resets seen
    double lastSampleTime() const { return m_lastTime; } // seconds since epoch; 0 before any
    double firstSampleTime() const { return m_firstTime; } // since clear(); 0 before any
    const ServerInfo &latest() const { return m_latest; }

    // Persistence settings come from CONFIG GET, which ACL users may not be allowed to run.
    void setConfig(const QByteArray &save, const QByteArray &appendonly);
    void setConfigUnavailable(const QString &reason);
    // Version, role, uptime, maxmemory-policy, persistence, keys and expires per db, from the
    // latest sample; empty before the first.
    QList<Fact> facts() const;

    // Every series as CSV: a header row, then one row per sample time (UTC ISO 8601 and epoch
    // seconds first); empty cells where a series has no value.
    void writeCsv(QIODevice *device) const;
    QByteArray toCsv() const;

Q_SIGNALS:
    void sampleAdded(double t);
    void factsChanged();

private:
    void appendAll(double t, const std::array<double, kSeriesCount> &values);

    std::array<TimeSeries, kSeriesCount> m_series;
    ServerInfo m_previous;
    ServerInfo m_latest;
    double m_lastTime = 0;
    double m_firstTime = 0;
    int m_samples = 0;
    int m_resets = 0;
    bool m_gapPending = false;
    QByteArray m_configSave;
    QByteArray m_configAof;
    bool m_haveConfig = false;
    QString m_configUnavailable;
};
