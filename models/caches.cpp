// SPDX-License-Identifier: GPL-3.0-or-later
#include "caches.h"

#include "bytesescape.h"
#include "format.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QSet>
#include <algorithm>
#include <limits>

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

Grouped group(const QList<CacheKeyState> &keys, const QList<QString> &families, qint64 nowMs)
{
    QHash<QString, QList<CacheKeyState>> cacheKeys;
    QHash<QString, QList<CacheKeyState>> dedup;
    QList<QString> cacheOrder, dedupOrder;
    for (qsizetype i = 0; i < keys.size(); ++i) {
        const QString &family = families.at(i);
        auto &groups = keys.at(i).kind == PatternKind::DedupKey ? dedup : cacheKeys;
        auto &order = keys.at(i).kind == PatternKind::DedupKey ? dedupOrder : cacheOrder;
        if (!groups.contains(family))
            order.append(family);
        groups[family].append(keys.at(i));
    }
    std::sort(cacheOrder.begin(), cacheOrder.end());
    std::sort(dedupOrder.begin(), dedupOrder.end());
    QList<CacheNamespaceRow> namespaces;
    for (const QString &family : std::as_const(cacheOrder))
        namespaces.append(namespaceRow(family, cacheKeys.value(family), nowMs));
    QList<DedupFamilyRow> dedupFamilies;
    for (const QString &family : std::as_const(dedupOrder)) {
        const CacheNamespaceRow s = namespaceRow(family, dedup.value(family), nowMs);
        DedupFamilyRow r;
        r.family = family;
        r.keys = s.keys;
        r.noTtl = s.noTtl;
        r.minMs = s.minMs;
        r.medianMs = s.medianMs;
        r.maxMs = s.maxMs;
        dedupFamilies.append(r);
    }
    return {namespaces, dedupFamilies};
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

// ---- models ----

namespace {

QVariant right()
{
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
}

QString ttlText(qint64 ms)
{
    return ms < 0 ? QStringLiteral("—") : format::duration(ms);
}

QString pttlText(qint64 pttl)
{
    return pttl == -1 ? tr("no TTL") : pttl >= 0 ? format::duration(pttl) : QStringLiteral("—");
}

// Sorts "no TTL" after every finite TTL.
qint64 pttlSort(qint64 pttl)
{
    return pttl == -1 ? std::numeric_limits<qint64>::max() : pttl;
}

const auto countCell = [](auto get) {
    return [get](const auto &r, int role) -> QVariant {
        if (role == Qt::TextAlignmentRole)
            return right();
        if (role == Qt::DisplayRole)
            return format::count(quint64(get(r)));
        if (role == RowTableRoles::SortRole)
            return qint64(get(r));
        return {};
    };
};
const auto durationCell = [](auto get) {
    return [get](const auto &r, int role) -> QVariant {
        if (role == Qt::TextAlignmentRole)
            return right();
        if (role == Qt::DisplayRole)
            return ttlText(get(r));
        if (role == RowTableRoles::SortRole)
            return qint64(get(r));
        return {};
    };
};
const auto pttlCell = [](auto get) {
    return [get](const auto &r, int role) -> QVariant {
        if (role == Qt::TextAlignmentRole)
            return right();
        if (role == Qt::DisplayRole)
            return pttlText(get(r));
        if (role == RowTableRoles::SortRole)
            return pttlSort(get(r));
        return {};
    };
};
const auto keyCell = [](const auto &r, int role) -> QVariant {
    if (role == Qt::DisplayRole)
        return bytesescape::quoteIfNeeded(r.key);
    if (role == Qt::ToolTipRole)
        return tr("family %1").arg(r.family);
    return {};
};

QList<RowTableModel<CacheNamespaceRow>::Column> namespaceColumns()
{
    return {{tr("Namespace"),
             [](const CacheNamespaceRow &r, int role) -> QVariant {
                 return role == Qt::DisplayRole || role == Qt::ToolTipRole ? r.family : QVariant();
             }},
            {tr("Keys"), countCell([](const CacheNamespaceRow &r) { return r.keys; })},
            {tr("With TTL"),
             [](const CacheNamespaceRow &r, int role) -> QVariant {
                 if (role == Qt::TextAlignmentRole)
                     return right();
                 if (role == CacheNamespacesModel::SortRole)
                     return r.ttlShare();
                 if (role != Qt::DisplayRole)
                     return {};
                 return r.ttlShare() < 0 ? QStringLiteral("—")
                                         : QStringLiteral("%1 %").arg(r.ttlShare() * 100.0, 0, 'f', 1);
             }},
            {tr("Min TTL"), durationCell([](const CacheNamespaceRow &r) { return r.minMs; })},
            {tr("Median"), durationCell([](const CacheNamespaceRow &r) { return r.medianMs; })},
            {tr("Max TTL"), durationCell([](const CacheNamespaceRow &r) { return r.maxMs; })},
            {tr("Negative"),
             [](const CacheNamespaceRow &r, int role) -> QVariant {
                 if (role == Qt::TextAlignmentRole)
                     return right();
                 if (role == CacheNamespacesModel::SortRole)
                     return qint64(r.negatives);
                 if (role == Qt::ToolTipRole)
                     return tr("Negative markers (\"missing\"/null values with a short TTL): TTL %1 – %2")
                         .arg(ttlText(r.negativeMinMs), ttlText(r.negativeMaxMs));
                 if (role != Qt::DisplayRole)
                     return {};
                 if (r.negatives == 0)
                     return QStringLiteral("—");
                 return r.negativeMaxMs >= 0
                     ? tr("%1 (TTL ≤ %2)").arg(format::count(r.negatives), ttlText(r.negativeMaxMs))
                     : format::count(r.negatives);
             }},
            {tr("Flags"), [](const CacheNamespaceRow &r, int role) -> QVariant {
                 return role == Qt::DisplayRole || role == Qt::ToolTipRole ? r.flags() : QVariant();
             }}};
}

QList<RowTableModel<TagRow>::Column> tagColumns()
{
    return {{tr("Tag set"), keyCell},
            {tr("Members"), countCell([](const TagRow &r) { return r.cardinality; })},
            {tr("TTL"), pttlCell([](const TagRow &r) { return r.pttlMs; })},
            {tr("Longest member TTL"),
             [](const TagRow &r, int role) -> QVariant {
                 if (role == Qt::TextAlignmentRole)
                     return right();
                 if (role == TagsModel::SortRole)
                     return r.membersWithoutTtl > 0 ? std::numeric_limits<qint64>::max() : r.maxMemberTtlMs;
                 if (role != Qt::DisplayRole)
                     return {};
                 if (r.membersWithoutTtl > 0)
                     return tr("%1 without TTL").arg(r.membersWithoutTtl);
                 return ttlText(r.maxMemberTtlMs);
             }},
            {tr("Dangling"),
             [](const TagRow &r, int role) -> QVariant {
                 if (role == Qt::TextAlignmentRole)
                     return right();
                 if (role == TagsModel::SortRole)
                     return r.dangling.size();
                 if (role == Qt::ToolTipRole) {
                     QStringList names;
                     for (const QByteArray &m : r.dangling.mid(0, 30))
                         names << bytesescape::quoteIfNeeded(m);
                     return names.join(QLatin1Char('\n'));
                 }
                 if (role != Qt::DisplayRole)
                     return {};
                 return r.complete ? QString::number(r.dangling.size())
                                   : tr("%1 of first %2").arg(r.dangling.size()).arg(r.scanned);
             }},
            {tr("Flags"), [](const TagRow &r, int role) -> QVariant {
                 return role == Qt::DisplayRole || role == Qt::ToolTipRole ? r.flags() : QVariant();
             }}};
}

QList<RowTableModel<DedupSetRow>::Column> dedupSetColumns()
{
    return {{tr("Dedup set"), keyCell},
            {tr("Members"), countCell([](const DedupSetRow &r) { return r.cardinality; })},
            {tr("Growth"),
             [](const DedupSetRow &r, int role) -> QVariant {
                 if (role == Qt::TextAlignmentRole)
                     return right();
                 if (role == DedupSetsModel::SortRole)
                     return qIsNaN(r.growthPerMin) ? -1e300 : r.growthPerMin;
                 if (role == Qt::ToolTipRole && !qIsNaN(r.growthPerMin))
                     return tr("%1 members per minute").arg(r.growthPerMin, 0, 'f', 1);
                 if (role != Qt::DisplayRole)
                     return {};
                 // The count over the span read, not a rate: two reads a second apart make no rate.
                 return qIsNaN(r.growthPerMin) ? tr("after two reads")
                                               : tr("%1%2 in %3")
                                                     .arg(r.growth > 0 ? QStringLiteral("+") : QString())
                                                     .arg(r.growth)
                                                     .arg(format::duration(r.growthSpanMs));
             }},
            {tr("TTL"), pttlCell([](const DedupSetRow &r) { return r.pttlMs; })},
            {tr("Flags"), [](const DedupSetRow &r, int role) -> QVariant {
                 if (role != Qt::DisplayRole)
                     return {};
                 if (r.growingWithoutTtl())
                     return tr("grows without TTL: unbounded");
                 return r.pttlMs == -1 ? tr("no TTL") : QString();
             }}};
}

QList<RowTableModel<DedupFamilyRow>::Column> dedupFamilyColumns()
{
    return {
        {tr("Per-event keys"),
         [](const DedupFamilyRow &r, int role) -> QVariant { return role == Qt::DisplayRole ? r.family : QVariant(); }},
        {tr("Keys"), countCell([](const DedupFamilyRow &r) { return r.keys; })},
        {tr("No TTL"), countCell([](const DedupFamilyRow &r) { return r.noTtl; })},
        {tr("Min TTL"), durationCell([](const DedupFamilyRow &r) { return r.minMs; })},
        {tr("Median"), durationCell([](const DedupFamilyRow &r) { return r.medianMs; })},
        {tr("Max TTL"), durationCell([](const DedupFamilyRow &r) { return r.maxMs; })}};
}

QList<RowTableModel<CounterRow>::Column> counterColumns()
{
    return {{tr("Counter"), keyCell},
            {tr("Kind"),
             [](const CounterRow &r, int role) -> QVariant {
                 if (role == Qt::DisplayRole)
                     return r.hll ? tr("HyperLogLog") : tr("counter");
                 if (role == Qt::ToolTipRole && r.hll)
                     return tr("PFCOUNT: an estimate of the distinct items added, standard error 0.81 %");
                 return {};
             }},
            {tr("Value"),
             [](const CounterRow &r, int role) -> QVariant {
                 if (role == Qt::TextAlignmentRole)
                     return right();
                 if (role == CountersModel::SortRole)
                     return r.known ? r.value : -1;
                 if (role != Qt::DisplayRole)
                     return {};
                 if (!r.error.isEmpty())
                     return r.error;
                 if (!r.known)
                     return r.raw.isEmpty() ? QStringLiteral("—") : bytesescape::escapeElided(r.raw, 40);
                 return r.hll ? tr("≈ %1 (± %2)")
                                    .arg(format::count(quint64(r.value)),
                                         format::count(quint64(qRound64(double(r.value) * 0.0081))))
                              : QString::number(r.value);
             }},
            {tr("TTL"), pttlCell([](const CounterRow &r) { return r.pttlMs; })}};
}

} // namespace

CacheNamespacesModel::CacheNamespacesModel(QObject *parent)
    : RowTableModel(namespaceColumns(),
                    {[](const CacheNamespaceRow &r) { return r.family.toUtf8(); },
                     [](const CacheNamespaceRow &r) { return r.severity(); },
                     {}},
                    parent)
{ }

TagsModel::TagsModel(QObject *parent)
    : RowTableModel(tagColumns(),
                    {[](const TagRow &r) { return r.key; }, [](const TagRow &r) { return r.severity(); },
                     [](const TagRow &) { return KeyType::Set; }},
                    parent)
{ }

DedupSetsModel::DedupSetsModel(QObject *parent)
    : RowTableModel(dedupSetColumns(),
                    {[](const DedupSetRow &r) { return r.key; }, [](const DedupSetRow &r) { return r.severity(); },
                     [](const DedupSetRow &) { return KeyType::Set; }},
                    parent)
{ }

DedupFamiliesModel::DedupFamiliesModel(QObject *parent)
    : RowTableModel(dedupFamilyColumns(),
                    {[](const DedupFamilyRow &r) { return r.family.toUtf8(); },
                     [](const DedupFamilyRow &r) { return r.severity(); },
                     {}},
                    parent)
{ }

CountersModel::CountersModel(QObject *parent)
    : RowTableModel(counterColumns(),
                    {[](const CounterRow &r) { return r.key; }, [](const CounterRow &) { return Severity::None; },
                     [](const CounterRow &) { return KeyType::String; }},
                    parent)
{ }
