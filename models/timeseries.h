// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QtGlobal>
#include <deque>
#include <limits>

// A time series that can run for a day at any poll interval with bounded memory. Times are
// seconds since the epoch, values doubles; NaN in the output means "draw no line here".
//
// Two tiers: the newest samples are kept exactly (up to rawCapacity); older ones are folded
// into fixed buckets of bucketSeconds (mean value), and anything older than maxAgeSeconds
// before the newest sample is dropped. The bound, whatever the interval and duration:
//     storedPoints() <= rawCapacity + rawCapacity / 8 + maxAgeSeconds / bucketSeconds + 2
// and points() returns at most 3 points per bucket plus the raw points.
//
// Two kinds of "no value": append(t, NaN) is a sample without a value (no lookups for a hit
// ratio, say); it breaks the line while raw but disappears into a bucket's mean. appendBreak(t)
// is a discontinuity (server restart, counters reset); it survives folding, so a chart never
// draws a line across a restart, even at 24 h zoom.
class TimeSeries
{
public:
    struct Point
    {
        double t = 0;
        double v = 0;
    };

    static constexpr int kDefaultRawCapacity = 7200; // 2 h at the default 1 s poll interval
    static constexpr double kDefaultBucketSeconds = 30;
    static constexpr double kDefaultMaxAgeSeconds = 24 * 3600;

    explicit TimeSeries(int rawCapacity = kDefaultRawCapacity, double bucketSeconds = kDefaultBucketSeconds,
                        double maxAgeSeconds = kDefaultMaxAgeSeconds);

    // Samples must come in time order; one older than the newest is ignored (returns false).
    bool append(double t, double v);
    bool appendBreak(double t);
    void clear();

    bool isEmpty() const { return m_raw.empty() && m_buckets.empty(); }
    // The newest sample as appended (v is NaN for a break or a sample without value).
    Point last() const;
    // The newest sample with a finite value at or before the newest sample, or NaN point.
    Point lastValue() const;
    // Older buckets first, then the raw samples; strictly usable as chart data (sorted by t).
    QList<Point> points() const;
    // How many samples and breaks were ever appended; with pointsSince(), a chart appends only
    // what is new. Only valid while generation() has not changed since the chart took points().
    quint64 serial() const { return m_serial; }
    QList<Point> pointsSince(quint64 serial) const;
    // Changes whenever points already handed out changed (folded into buckets, aged out,
    // cleared); a chart then takes points() again instead of appending.
    quint64 generation() const { return m_generation; }

    // Memory accounting, for tests and the bound above.
    qsizetype rawCount() const { return qsizetype(m_raw.size()); }
    qsizetype bucketCount() const { return qsizetype(m_buckets.size()); }
    qsizetype storedPoints() const { return rawCount() + bucketCount(); }
    qsizetype maxStoredPoints() const;

    int rawCapacity() const { return m_rawCapacity; }
    double bucketSeconds() const { return m_bucketSeconds; }
    double maxAgeSeconds() const { return m_maxAge; }

private:
    struct Raw
    {
        double t;
        double v;
        bool isBreak;
    };
    struct Bucket
    {
        qint64 slot = 0; // floor(t / bucketSeconds)
        double sumT = 0; // over the samples (values or not), breaks excluded
        int samples = 0;
        double sumV = 0; // over finite values
        int values = 0;
        double breakBefore = std::numeric_limits<double>::quiet_NaN(); // a break before any value
        double breakAfter = std::numeric_limits<double>::quiet_NaN(); // a break after a value
    };

    void fold(qsizetype count);
    void trimAge();
    void emitBucket(const Bucket &b, QList<Point> *out) const;

    std::deque<Raw> m_raw;
    std::deque<Bucket> m_buckets;
    int m_rawCapacity;
    double m_bucketSeconds;
    double m_maxAge;
    quint64 m_generation = 0;
    quint64 m_serial = 0;
};
