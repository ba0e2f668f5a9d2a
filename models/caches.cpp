// SPDX-License-Identifier: GPL-3.0-or-later
#include "caches.h"

#include "bytesescape.h"
#include "format.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QSet>
#include <algorithm>

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("Caches", text);
}

QString clock(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("HH:mm:ss"));
}

struct Spread
{
    qint64 min = -1, median = -1, max = -1;
};

Spread spread(std::vector<qint64> v)
{
    Spread s;
    if (v.empty())
        return s;
    std::sort(v.begin(), v.end());
    s.min = v.front();
    s.max = v.back();
    s.median = v[v.size() / 2];
    return s;
}

} // namespace

// ---- headless ----

Severity CacheNamespaceRow::severity() const
{
    if (negativesNoTtl > 0 || (keys > 0 && noTtl == keys))
        return Severity::Bad;
    return noTtl > 0 || noJitter() ? Severity::Warning : Severity::None;
}

QString CacheNamespaceRow::flags() const
{
    QStringList out;
    if (noTtl > 0)
        out << tr("%1 without TTL").arg(format::count(noTtl));
    if (negativesNoTtl > 0)
        out << tr("%1 negative without TTL").arg(format::count(negativesNoTtl));
    if (!cliffs.isEmpty()) {
        const TtlCliff &c = *std::max_element(cliffs.cbegin(), cliffs.cend(),
                                              [](const TtlCliff &a, const TtlCliff &b) { return a.keys < b.keys; });
        out << tr("no jitter: %1 expire at %2").arg(format::count(c.keys), clock(c.peakSecondMs));
        if (cliffs.size() > 1)
            out.last() += tr(" (+%1 more)").arg(cliffs.size() - 1);
    }
    return out.join(QStringLiteral("; "));
}

HitRatio HitRatio::from(const ServerInfo &current, const ServerInfo *previous, qint64 ownHits, qint64 ownMisses)
{
    HitRatio h;
    h.hits = current.integer("keyspace_hits");
    h.misses = current.integer("keyspace_misses");
    if (h.hits < 0 || h.misses < 0)
        return h;
    if (h.hits + h.misses > 0)
        h.sinceStart = double(h.hits) / double(h.hits + h.misses);
    if (previous) {
        qint64 dh = h.hits - previous->integer("keyspace_hits");
        qint64 dm = h.misses - previous->integer("keyspace_misses");
        if (dh >= 0 && dm >= 0) {
            dh = qMax<qint64>(0, dh - ownHits);
            dm = qMax<qint64>(0, dm - ownMisses);
        }
        h.recentSpanMs = current.capturedAtMs() - previous->capturedAtMs();
        // Negative deltas: the counters were reset (CONFIG RESETSTAT, a restart).
        if (dh >= 0 && dm >= 0 && previous->has("keyspace_hits")) {
            h.recentLookups = dh + dm;
            if (dh + dm > 0)
                h.recent = double(dh) / double(dh + dm);
        }
    }
    return h;
}

namespace caches {

CacheNamespaceRow namespaceRow(const QString &family, const QList<CacheKeyState> &keys, qint64 nowMs)
{
    CacheNamespaceRow row;
    row.family = family;
    row.prefix = sessions::familyPrefix(family);
    std::vector<qint64> remaining, negatives;
    ScanBatch batch;
    batch.capturedAtMs = nowMs;
    for (const CacheKeyState &k : keys) {
        ++row.keys;
        const bool negative = k.kind == PatternKind::NegativeCache;
        row.negatives += negative ? 1 : 0;
        if (k.expireAtMs == -1) {
            ++row.noTtl;
            row.negativesNoTtl += negative ? 1 : 0;
        } else if (k.expireAtMs == ttl::kUnknown) {
            ++row.unknown;
        } else {
            ++row.withTtl;
            const qint64 left = k.expireAtMs - nowMs;
            if (left <= 0)
                continue;
            remaining.push_back(left);
            if (negative)
                negatives.push_back(left);
            ScannedKey s;
            s.name = k.key;
            s.pttlMs = left;
            batch.keys.append(s);
        }
    }
    const Spread all = spread(remaining);
    row.minMs = all.min;
    row.medianMs = all.median;
    row.maxMs = all.max;
    const Spread neg = spread(negatives);
    row.negativeMinMs = neg.min;
    row.negativeMaxMs = neg.max;
    // The same cliff rule as the TTL panel, so "no jitter" here and a cliff there agree.
    // Over a day, not the panel's hour: cache TTLs of hours synchronise as badly as minutes.
    TtlStats stats;
    stats.setForecastSeconds(24 * 3600);
    stats.add(batch);
    row.cliffs = stats.snapshot(nowMs).cliffs;
    return row;
}

KeyFilter filterFor(const QString &family)
{
    KeyFilter f;
    f.prefix = sessions::familyPrefix(family);
    if (!f.prefix.isEmpty())
        f.label = tr("namespace %1").arg(bytesescape::quoteIfNeeded(f.prefix));
    return f;
}

} // namespace caches

bool TagRow::huge() const
{
    return cardinality >= caches::kHugeTag;
}

Severity TagRow::severity() const
{
    if (outlivingMembers > 0)
        return Severity::Bad;
    return !dangling.isEmpty() || huge() || !error.isEmpty() ? Severity::Warning : Severity::None;
}

QString TagRow::flags() const
{
    QStringList out;
    if (!error.isEmpty())
        out << error;
    if (outlivingMembers > 0)
        out << tr("tag expires before %1 member(s): invalidating it would miss them").arg(outlivingMembers);
    if (!dangling.isEmpty())
        out << tr("%1 dangling").arg(dangling.size());
    if (huge())
        out << tr("huge tag");
    return out.join(QStringLiteral("; "));
}

Severity DedupSetRow::severity() const
{
    if (growingWithoutTtl())
        return Severity::Bad;
    return pttlMs == -1 ? Severity::Warning : Severity::None;
}
