// SPDX-License-Identifier: GPL-3.0-or-later
#include "timeseries.h"

#include <algorithm>
#include <cmath>

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

TimeSeries::TimeSeries(int rawCapacity, double bucketSeconds, double maxAgeSeconds)
    : m_rawCapacity(std::max(1, rawCapacity)),
      m_bucketSeconds(bucketSeconds > 0 ? bucketSeconds : kDefaultBucketSeconds),
      m_maxAge(maxAgeSeconds > 0 ? maxAgeSeconds : kDefaultMaxAgeSeconds)
{ }

qsizetype TimeSeries::maxStoredPoints() const
{
    return m_rawCapacity + std::max(1, m_rawCapacity / 8) + qsizetype(std::ceil(m_maxAge / m_bucketSeconds)) + 2;
}

bool TimeSeries::append(double t, double v)
{
    if (!std::isfinite(t) || (!isEmpty() && t < last().t))
        return false;
    m_raw.push_back(Raw{t, std::isfinite(v) ? v : kNaN, false});
    ++m_serial;
    // Folding in chunks rather than one sample at a time keeps generation() steady for a
    // while, so charts append instead of rebuilding on every sample.
    const qsizetype chunk = std::max(1, m_rawCapacity / 8);
    if (qsizetype(m_raw.size()) > m_rawCapacity + chunk)
        fold(qsizetype(m_raw.size()) - m_rawCapacity);
    trimAge();
    return true;
}

bool TimeSeries::appendBreak(double t)
{
    if (!std::isfinite(t) || (!isEmpty() && t < last().t))
        return false;
    // Two breaks in a row say nothing more than one.
    if (!m_raw.empty() && m_raw.back().isBreak)
        return true;
    m_raw.push_back(Raw{t, kNaN, true});
    ++m_serial;
    trimAge();
    return true;
}

void TimeSeries::clear()
{
    m_raw.clear();
    m_buckets.clear();
    ++m_generation;
}

TimeSeries::Point TimeSeries::last() const
{
    if (!m_raw.empty())
        return {m_raw.back().t, m_raw.back().v};
    if (!m_buckets.empty()) {
        QList<Point> pts;
        emitBucket(m_buckets.back(), &pts);
        return pts.constLast();
    }
    return {kNaN, kNaN};
}

TimeSeries::Point TimeSeries::lastValue() const
{
    for (auto it = m_raw.crbegin(); it != m_raw.crend(); ++it)
        if (!std::isnan(it->v))
            return {it->t, it->v};
    for (auto it = m_buckets.crbegin(); it != m_buckets.crend(); ++it)
        if (it->values > 0)
            return {it->sumT / std::max(1, it->samples), it->sumV / it->values};
    return {kNaN, kNaN};
}

void TimeSeries::emitBucket(const Bucket &b, QList<Point> *out) const
{
    if (b.samples == 0) {
        out->append({b.breakBefore, kNaN});
        return;
    }
    const double t = b.sumT / b.samples;
    if (b.values == 0) {
        out->append({t, kNaN});
        return;
    }
    // Clamped so the output stays sorted: samples without a value also move the mean time.
    if (!std::isnan(b.breakBefore))
        out->append({std::min(b.breakBefore, t), kNaN});
    out->append({t, b.sumV / b.values});
    if (!std::isnan(b.breakAfter))
        out->append({std::max(b.breakAfter, t), kNaN});
}

QList<TimeSeries::Point> TimeSeries::points() const
{
    QList<Point> out;
    out.reserve(qsizetype(m_buckets.size()) + qsizetype(m_raw.size()));
    for (const Bucket &b : m_buckets)
        emitBucket(b, &out);
    for (const Raw &r : m_raw)
        out.append({r.t, r.v});
    return out;
}

QList<TimeSeries::Point> TimeSeries::pointsSince(quint64 serial) const
{
    QList<Point> out;
    const quint64 firstRaw = m_serial - m_raw.size();
    const quint64 from = std::max(serial, firstRaw);
    for (quint64 i = from - firstRaw; i < m_raw.size(); ++i)
        out.append({m_raw[i].t, m_raw[i].v});
    return out;
}

void TimeSeries::fold(qsizetype count)
{
    for (qsizetype i = 0; i < count && !m_raw.empty(); ++i) {
        const Raw r = m_raw.front();
        m_raw.pop_front();
        const auto slot = qint64(std::floor(r.t / m_bucketSeconds));
        if (m_buckets.empty() || m_buckets.back().slot != slot) {
            Bucket b;
            b.slot = slot;
            m_buckets.push_back(b);
        }
        Bucket &b = m_buckets.back();
        if (r.isBreak) {
            if (b.values == 0) {
                if (std::isnan(b.breakBefore))
                    b.breakBefore = r.t;
            } else {
                b.breakAfter = r.t;
            }
            continue;
        }
        b.sumT += r.t;
        ++b.samples;
        if (!std::isnan(r.v)) {
            b.sumV += r.v;
            ++b.values;
        }
    }
    ++m_generation;
}

void TimeSeries::trimAge()
{
    const double cutoff = last().t - m_maxAge;
    bool changed = false;
    while (!m_buckets.empty() && double(m_buckets.front().slot + 1) * m_bucketSeconds <= cutoff) {
        m_buckets.pop_front();
        changed = true;
    }
    // Raw samples age out too when the interval is slow (7200 samples at 1 min is 5 days).
    while (!m_raw.empty() && m_raw.front().t < cutoff) {
        m_raw.pop_front();
        changed = true;
    }
    if (changed)
        ++m_generation;
}
