// SPDX-License-Identifier: GPL-3.0-or-later
#include "scanpacer.h"

#include <QLocale>

#include <algorithm>

namespace {
// A scan that slows others slows down at once; one that does not speeds up by steps.
constexpr double kBackOff = 0.5;
constexpr double kGrowIdle = 8; // nobody else to disturb: full speed within a second
constexpr double kGrowBusy = 1.25;
// Latency allowed above the baseline: a fraction of it, plus a margin that is small when
// others are working (their tail latency is what a scan must not spoil) and larger when
// the scan is alone (a command typed meanwhile can wait a couple of milliseconds).
constexpr double kLatencyFactor = 1.5;
constexpr double kMarginBusyMs = 0.25;
constexpr double kMarginIdleMs = 2.0;
constexpr double kOthersKept = 0.95; // others keep 95 % of their throughput
constexpr double kServerBusy = 0.9; // the server's main thread near a full core
// An idle server lifts the ceiling once it is this high: beyond what one connection sends.
constexpr int kLiftAt = 250000;
constexpr double kOthersNoise = 0.05;
// Ticks (a quarter second each) before others arriving can call for a new baseline, and
// between baselines while others work (their load drifts).
constexpr int kSettleTicks = 4;
constexpr int kRemeasureTicks = 80;

QString perSecond(double n)
{
    static const QLocale grouped = [] {
        QLocale c = QLocale::c(); // "12,000" whatever the user's locale, as the rest of the window
        c.setNumberOptions(QLocale::DefaultNumberOptions);
        return c;
    }();
    return grouped.toString(qlonglong(n)) + QStringLiteral("/s");
}

QString ms(double v)
{
    return QString::number(v, 'f', v < 10 ? 2 : 1) + QStringLiteral(" ms");
}
} // namespace

double ScanPacer::median(QList<double> values)
{
    if (values.isEmpty())
        return -1;
    std::sort(values.begin(), values.end());
    const qsizetype n = values.size();
    return n % 2 ? values.at(n / 2) : (values.at(n / 2 - 1) + values.at(n / 2)) / 2;
}

void ScanPacer::setBaseline(const QList<double> &pingMs, double othersPerSecond, qint64 slowlogEntries)
{
    m_baselineSlowlog = slowlogEntries;
    m_baselinePingMs = qMax(0.0, median(pingMs));
    m_baselineTailMs = pingMs.isEmpty() ? m_baselinePingMs : *std::max_element(pingMs.begin(), pingMs.end());
    m_baselineOthers = othersPerSecond;
    m_ticksSinceBaseline = 0;
    m_ceiling = m_resumeAt;
    m_reason
        = QStringLiteral("without the scan: PING %1, others %2; going at %3")
              .arg(ms(m_baselinePingMs), othersPerSecond >= 0 ? perSecond(othersPerSecond) : QStringLiteral("unknown"),
                   perSecond(m_ceiling));
}

QString ScanPacer::harm(const LoadSample &sample, bool othersBusy) const
{
    const double margin = othersBusy ? kMarginBusyMs : kMarginIdleMs;
    const double ping = median(sample.pingMs);
    if (ping > m_baselinePingMs * kLatencyFactor + margin)
        return QStringLiteral("PING took %1 (%2 without the scan)").arg(ms(ping), ms(m_baselinePingMs));
    // Others' tail latency is what a scan spoils first: the slowest PING of the tick too. Alone,
    // a PING behind one long pipeline harms nobody; the median above still guards a newcomer.
    const double slowest = sample.pingMs.isEmpty() ? -1 : *std::max_element(sample.pingMs.begin(), sample.pingMs.end());
    if (othersBusy && slowest > m_baselineTailMs * kLatencyFactor + margin)
        return QStringLiteral("a PING took %1 (at most %2 without the scan)").arg(ms(slowest), ms(m_baselineTailMs));
    if (othersBusy && m_baselineOthers >= kBusyOthers && sample.othersPerSecond >= 0
        && sample.othersPerSecond < m_baselineOthers * kOthersKept)
        return QStringLiteral("other clients' commands fell to %1 from %2")
            .arg(perSecond(sample.othersPerSecond), perSecond(m_baselineOthers));
    // More of others' commands slow than without the scan (a server logging everything has
    // as many either way).
    if (sample.slowlogGrowth > m_baselineSlowlog)
        return QStringLiteral("the slow log grew by %1").arg(sample.slowlogGrowth);
    return {};
}

int ScanPacer::update(const LoadSample &sample)
{
    if (!hasBaseline())
        return m_ceiling;
    if (m_ceiling == kHold) {
        // The tick the scan held still: what the server looks like without it.
        setBaseline(sample.pingMs, sample.othersPerSecond, qMax<qint64>(0, sample.slowlogGrowth));
        return m_ceiling;
    }
    ++m_ticksSinceBaseline;
    const double own = sample.ownPerSecond;
    // Others' rate is the server's count less ours, read a moment apart: a pipeline in flight
    // makes it wrong by a few thousand a second while the scan runs fast, so a small rate next
    // to a large one of ours does not count as load.
    const bool othersBusy
        = m_baselineOthers >= kBusyOthers || sample.othersPerSecond >= qMax(kBusyOthers, own * kOthersNoise);
    // Others arrived after the baseline was taken, or it is old: the scan holds still for a
    // tick so that their latency and throughput are measured without it.
    const bool arrived = othersBusy && m_baselineOthers < kBusyOthers && m_ticksSinceBaseline >= kSettleTicks;
    if (arrived || (othersBusy && m_ticksSinceBaseline >= kRemeasureTicks)) {
        m_resumeAt = m_ceiling == 0 ? kStart : m_ceiling;
        m_ceiling = kHold;
        m_reason = arrived ? QStringLiteral("other clients started working: measuring them without the scan")
                           : QStringLiteral("measuring the server again without the scan");
        return m_ceiling;
    }
    const QString harmed = harm(sample, othersBusy);
    if (!harmed.isEmpty()) {
        // Half of what was actually sent, not of a ceiling the scan never reached.
        const double sent
            = m_ceiling > 0 ? qMin<double>(m_ceiling, qMax<double>(own, kFloor)) : qMax<double>(own, kFloor);
        m_ceiling = qMax(kFloor, int(sent * kBackOff));
        m_reason = QStringLiteral("%1: slowed to %2").arg(harmed, perSecond(m_ceiling));
        // Others may simply have less to do now; at the floor the scan cannot be the cause,
        // so their rate drifts towards what they do now rather than pinning the scan there.
        if (m_ceiling == kFloor && sample.othersPerSecond >= 0)
            m_baselineOthers = 0.8 * m_baselineOthers + 0.2 * sample.othersPerSecond;
        return m_ceiling;
    }
    if (othersBusy && sample.serverCpu >= kServerBusy) {
        if (m_ceiling == 0)
            m_ceiling = kStart;
        m_reason = QStringLiteral("server busy (%1 % CPU) with %2 from others: holding at %3")
                       .arg(qRound(sample.serverCpu * 100))
                       .arg(perSecond(qMax(0.0, sample.othersPerSecond)), perSecond(m_ceiling));
        return m_ceiling;
    }
    if (!othersBusy) {
        const double next = m_ceiling * kGrowIdle;
        if (m_ceiling == 0 || next >= kLiftAt) {
            m_ceiling = 0;
            m_reason = QStringLiteral("no other load, PING %1: no ceiling").arg(ms(qMax(0.0, median(sample.pingMs))));
        } else {
            m_ceiling = int(next);
            m_reason = QStringLiteral("no other load: raising to %1").arg(perSecond(m_ceiling));
        }
        return m_ceiling;
    }
    // Others are working and nothing shows harm: creep up, while the scan uses what it has
    // (a ceiling it does not reach proves nothing about the next step).
    const QString load = QStringLiteral("others send %1, PING %2")
                             .arg(perSecond(qMax(0.0, sample.othersPerSecond)), ms(qMax(0.0, median(sample.pingMs))));
    if (m_ceiling == 0) {
        m_ceiling = kStart;
        m_reason = QStringLiteral("%1: capped at %2").arg(load, perSecond(m_ceiling));
    } else if (own < m_ceiling / 2.0) {
        m_reason = QStringLiteral("%1: holding at %2").arg(load, perSecond(m_ceiling));
    } else {
        m_ceiling = int(qMin(1e9, qMax(m_ceiling * kGrowBusy, double(m_ceiling + kFloor))));
        m_reason = QStringLiteral("%1: raising to %2").arg(load, perSecond(m_ceiling));
    }
    return m_ceiling;
}
