// SPDX-License-Identifier: GPL-3.0-or-later
#include "ttlstats.h"

#include "bytesescape.h"
#include "format.h"

#include <QCoreApplication>
#include <algorithm>
#include <limits>

namespace ttlbucket {

namespace {
constexpr qint64 kMinute = 60'000;
constexpr qint64 kHour = 60 * kMinute;
// Lower edges of the range buckets; each one's upper edge is the next one's lower edge.
constexpr qint64 kEdges[Count + 1]
    = {0, 1, kMinute, 5 * kMinute, 15 * kMinute, kHour, 24 * kHour, std::numeric_limits<qint64>::max()};
} // namespace

QString label(int bucket)
{
    switch (bucket) {
    case NoTtl: return QStringLiteral("no TTL");
    case UnderMinute: return QStringLiteral("< 1 min");
    case OneToFiveMinutes: return QStringLiteral("1–5 min");
    case FiveToFifteenMinutes: return QStringLiteral("5–15 min");
    case FifteenToSixtyMinutes: return QStringLiteral("15–60 min");
    case OneToTwentyFourHours: return QStringLiteral("1–24 h");
    case OverDay: return QStringLiteral("> 24 h");
    default: return {};
    }
}

qint64 minMs(int bucket)
{
    return bucket > NoTtl && bucket < Count ? kEdges[bucket] : 0;
}

qint64 maxMs(int bucket)
{
    return bucket > NoTtl && bucket < Count ? kEdges[bucket + 1] : 0;
}

int forRemaining(qint64 remainingMs)
{
    if (remainingMs <= 0)
        return -1;
    for (int b = UnderMinute; b < OverDay; ++b)
        if (remainingMs < kEdges[b + 1])
            return b;
    return OverDay;
}

} // namespace ttlbucket

QString TtlNamespaceStats::displayName() const
{
    switch (kind) {
    case Kind::Prefix: return bytesescape::escape(prefix);
    case Kind::NoSeparator: return QCoreApplication::translate("TtlStats", "(no namespace)");
    case Kind::Other: return QCoreApplication::translate("TtlStats", "(other namespaces)");
    }
    return {};
}

double TtlNamespaceStats::noTtlShare() const
{
    const quint64 known = keys - unknown;
    return known > 0 ? double(noTtl) / double(known) : -1.0;
}

int TtlSnapshot::namespaceIndex(const QByteArray &prefix) const
{
    for (qsizetype i = 0; i < namespaces.size(); ++i)
        if (namespaces.at(i).hasPrefix() && namespaces.at(i).prefix == prefix)
            return int(i);
    return -1;
}

TtlStats::TtlStats() = default;

void TtlStats::clear()
{
    m_names.clear();
    m_expireAt.clear();
    m_namespaces.clear();
    m_namespaceIndex.clear();
    m_noNamespace = -1;
    m_otherNamespaces = -1;
    ++m_layoutEpoch;
}

void TtlStats::setSeparator(const QByteArray &separator)
{
    if (separator == m_separator)
        return;
    m_separator = separator;
    m_namespaces.clear();
    m_namespaceIndex.clear();
    m_noNamespace = -1;
    m_otherNamespaces = -1;
    ++m_layoutEpoch;
    for (qsizetype id = 0; id < m_names.size(); ++id)
        count(namespaceFor(m_names.view(quint32(id))), m_expireAt[size_t(id)]);
}

qsizetype TtlStats::add(const ScanBatch &batch)
{
    qsizetype added = 0;
    for (const ScannedKey &k : batch.keys) {
        if (k.pttlMs == -2) // gone between SCAN and PTTL
            continue;
        // One lookup decides "seen before" and adds the name.
        bool isNew = false;
        m_names.insert(k.name, &isNew);
        if (!isNew)
            continue;
        const qint64 expireAt = ttl::expireAt(k.pttlMs, batch.capturedAtMs);
        m_expireAt.push_back(expireAt);
        count(namespaceFor(k.name), expireAt);
        ++added;
    }
    return added;
}

int TtlStats::groupIndex(TtlNamespaceStats::Kind kind)
{
    int &index = kind == TtlNamespaceStats::Kind::Other ? m_otherNamespaces : m_noNamespace;
    if (index < 0) {
        index = int(m_namespaces.size());
        Namespace n;
        n.kind = kind;
        m_namespaces.push_back(std::move(n));
    }
    return index;
}

int TtlStats::namespaceFor(const QByteArray &name)
{
    const qsizetype at = m_separator.isEmpty() ? -1 : name.indexOf(m_separator);
    if (at < 0)
        return groupIndex(TtlNamespaceStats::Kind::NoSeparator);
    const qsizetype length = at + m_separator.size();
    // A raw-data probe: no allocation for a namespace that exists already.
    const QByteArray probe = QByteArray::fromRawData(name.constData(), length);
    const auto it = m_namespaceIndex.constFind(probe);
    if (it != m_namespaceIndex.constEnd())
        return it.value();
    if (m_namespaceIndex.size() >= kMaxNamespaces)
        return groupIndex(TtlNamespaceStats::Kind::Other);
    const int index = int(m_namespaces.size());
    Namespace n;
    n.prefix = QByteArray(name.constData(), length);
    m_namespaceIndex.insert(n.prefix, index);
    m_namespaces.push_back(std::move(n));
    return index;
}

void TtlStats::count(int ns, qint64 expireAtMs)
{
    Namespace &n = m_namespaces[size_t(ns)];
    ++n.keys;
    if (expireAtMs == -1)
        ++n.noTtl;
    else if (expireAtMs == ttl::kUnknown)
        ++n.unknown;
    else
        n.expiries.push_back(expireAtMs);
}

void TtlStats::sortAll()
{
    for (Namespace &n : m_namespaces) {
        if (n.sorted == n.expiries.size())
            continue;
        const auto mid = n.expiries.begin() + qsizetype(n.sorted);
        std::sort(mid, n.expiries.end());
        std::inplace_merge(n.expiries.begin(), mid, n.expiries.end());
        n.sorted = n.expiries.size();
    }
}

TtlSnapshot TtlStats::snapshot(qint64 nowMs)
{
    sortAll();
    TtlSnapshot s;
    s.nowMs = nowMs;
    s.layoutEpoch = m_layoutEpoch;
    s.namespaces.reserve(qsizetype(m_namespaces.size()));
    for (const Namespace &n : m_namespaces) {
        TtlNamespaceStats st;
        st.prefix = n.prefix;
        st.kind = n.kind;
        st.keys = n.keys;
        st.noTtl = n.noTtl;
        st.unknown = n.unknown;
        st.buckets[ttlbucket::NoTtl] = n.noTtl;
        const auto &v = n.expiries;
        // remaining = expiry - now, so a remaining-TTL range [a, b) is the expiry range
        // [now + a, now + b): the buckets are consecutive slices of the sorted expiries.
        const auto live = std::upper_bound(v.begin(), v.end(), nowMs);
        st.expired = quint64(live - v.begin());
        auto lo = live;
        for (int b = ttlbucket::UnderMinute; b < ttlbucket::Count; ++b) {
            const auto hi
                = b == ttlbucket::OverDay ? v.end() : std::lower_bound(lo, v.end(), nowMs + ttlbucket::maxMs(b));
            st.buckets[size_t(b)] = quint64(hi - lo);
            lo = hi;
        }
        const qsizetype liveCount = v.end() - live;
        if (liveCount > 0) {
            st.minMs = *live - nowMs;
            st.maxMs = v.back() - nowMs;
            const auto mid = live + liveCount / 2;
            st.medianMs = (liveCount % 2 ? *mid : *(mid - 1) + (*mid - *(mid - 1)) / 2) - nowMs;
        }
        s.keys += st.keys;
        s.unknown += st.unknown;
        s.expired += st.expired;
        for (size_t b = 0; b < s.buckets.size(); ++b)
            s.buckets[b] += st.buckets[b];
        s.namespaces.append(std::move(st));
    }
    s.within1m = s.buckets[ttlbucket::UnderMinute];
    s.within5m = s.within1m + s.buckets[ttlbucket::OneToFiveMinutes];
    s.within60m = s.within5m + s.buckets[ttlbucket::FiveToFifteenMinutes] + s.buckets[ttlbucket::FifteenToSixtyMinutes];
    forecast(s);
    findCliffs(s);
    return s;
}

void TtlStats::forecast(TtlSnapshot &s) const
{
    const qint64 now = s.nowMs;
    s.forecastStartMs = now - (((now % 1000) + 1000) % 1000);
    // Expiries before the horizon end at most that many whole seconds after the current one.
    s.perSecond.assign(size_t(m_forecastSeconds) + 1, 0);
    const qint64 end = now + qint64(m_forecastSeconds) * 1000;
    for (const Namespace &n : m_namespaces) {
        const auto &v = n.expiries;
        const auto hi = std::lower_bound(v.begin(), v.end(), end);
        for (auto it = std::upper_bound(v.begin(), hi, now); it != hi; ++it)
            ++s.perSecond[size_t((*it - s.forecastStartMs) / 1000)];
    }
}

void TtlStats::findCliffs(TtlSnapshot &s) const
{
    const auto &c = s.perSecond;
    const qsizetype n = qsizetype(c.size());
    std::vector<quint64> sum(size_t(n) + 1, 0); // sum[i]: seconds [0, i)
    for (qsizetype i = 0; i < n; ++i)
        sum[size_t(i) + 1] = sum[size_t(i)] + c[size_t(i)];
    const auto baseline = [&](qsizetype i) {
        const qsizetype lo = qMax<qsizetype>(0, i - kCliffNeighbourhoodSeconds);
        const qsizetype hi = qMin<qsizetype>(n - 1, i + kCliffNeighbourhoodSeconds);
        const qsizetype others = hi - lo; // seconds in the window besides i
        return others > 0 ? double(sum[size_t(hi) + 1] - sum[size_t(lo)] - c[size_t(i)]) / double(others) : 0.0;
    };
    const auto isCliff = [&](qsizetype i) {
        return c[size_t(i)] >= kCliffMinKeys && double(c[size_t(i)]) >= kCliffFactor * baseline(i);
    };

    QList<TtlCliff> found;
    for (qsizetype i = 0; i < n; ++i) {
        if (!isCliff(i))
            continue;
        // Keys written together straddle a second boundary often: adjacent seconds are one cliff.
        qsizetype j = i;
        while (j + 1 < n && isCliff(j + 1))
            ++j;
        TtlCliff cliff;
        cliff.startMs = s.forecastStartMs + qint64(i) * 1000;
        cliff.endMs = s.forecastStartMs + qint64(j + 1) * 1000;
        cliff.keys = sum[size_t(j) + 1] - sum[size_t(i)];
        qsizetype peak = i;
        for (qsizetype k = i; k <= j; ++k)
            if (c[size_t(k)] > c[size_t(peak)])
                peak = k;
        cliff.peak = c[size_t(peak)];
        cliff.peakSecondMs = s.forecastStartMs + qint64(peak) * 1000;
        cliff.baselinePerSecond = baseline(peak);
        found.append(cliff);
        i = j;
    }
    if (found.size() > kMaxCliffs) {
        std::sort(found.begin(), found.end(), [](const TtlCliff &a, const TtlCliff &b) { return a.keys > b.keys; });
        found.resize(kMaxCliffs);
        std::sort(found.begin(), found.end(),
                  [](const TtlCliff &a, const TtlCliff &b) { return a.startMs < b.startMs; });
    }
    for (TtlCliff &cliff : found) {
        const qint64 from = qMax(cliff.startMs, s.nowMs + 1);
        for (size_t ns = 0; ns < m_namespaces.size(); ++ns) {
            const auto &v = m_namespaces[ns].expiries;
            const auto keys = quint64(std::lower_bound(v.begin(), v.end(), cliff.endMs)
                                      - std::lower_bound(v.begin(), v.end(), from));
            if (keys > cliff.dominantKeys) {
                cliff.dominantKeys = keys;
                cliff.dominantNamespace = int(ns);
            }
        }
    }
    s.cliffs = std::move(found);
}

KeyFilter TtlStats::filterFor(int bucket, const QByteArray &prefix)
{
    KeyFilter f;
    f.prefix = prefix;
    QString what;
    if (bucket == ttlbucket::NoTtl) {
        f.ttl = KeyFilter::Ttl::None;
        what = QCoreApplication::translate("TtlStats", "no TTL");
    } else if (bucket > ttlbucket::NoTtl && bucket < ttlbucket::Count) {
        f.ttl = KeyFilter::Ttl::Range;
        f.minTtlMs = ttlbucket::minMs(bucket);
        f.maxTtlMs = ttlbucket::maxMs(bucket);
        what = QCoreApplication::translate("TtlStats", "TTL %1").arg(ttlbucket::label(bucket));
    }
    const QString ns = bytesescape::quoteIfNeeded(prefix);
    if (what.isEmpty())
        f.label = prefix.isEmpty() ? QString() : QCoreApplication::translate("TtlStats", "namespace %1").arg(ns);
    else
        f.label = prefix.isEmpty() ? what : QCoreApplication::translate("TtlStats", "%1 in %2").arg(what, ns);
    return f;
}

// ---------------------------------------------------------------------------------------------

TtlNamespaceModel::TtlNamespaceModel(QObject *parent) : QAbstractTableModel(parent)
{ }

void TtlNamespaceModel::setSnapshot(const TtlSnapshot &snapshot)
{
    const qsizetype old = m_rows.size();
    if (snapshot.layoutEpoch != m_epoch || snapshot.namespaces.size() < old) {
        beginResetModel();
        m_rows = snapshot.namespaces;
        m_epoch = snapshot.layoutEpoch;
        endResetModel();
        return;
    }
    for (qsizetype i = 0; i < old; ++i)
        m_rows[i] = snapshot.namespaces.at(i);
    if (old > 0)
        Q_EMIT dataChanged(index(0, 0), index(int(old) - 1, ColumnCount - 1));
    if (snapshot.namespaces.size() > old) {
        beginInsertRows({}, int(old), int(snapshot.namespaces.size()) - 1);
        m_rows.append(snapshot.namespaces.mid(old));
        endInsertRows();
    }
}

void TtlNamespaceModel::clear()
{
    if (m_rows.isEmpty())
        return;
    beginResetModel();
    m_rows.clear();
    endResetModel();
}

int TtlNamespaceModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int TtlNamespaceModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

namespace {
QString ttlText(qint64 ms)
{
    return ms < 0 ? QStringLiteral("—") : format::duration(ms);
}
} // namespace

QVariant TtlNamespaceModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const TtlNamespaceStats &r = m_rows.at(index.row());
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NamespaceColumn: return r.displayName();
        case KeysColumn: return format::count(r.keys);
        case NoTtlColumn: {
            const double share = r.noTtlShare();
            return share < 0 ? QStringLiteral("—") : QStringLiteral("%1 %").arg(share * 100.0, 0, 'f', 1);
        }
        case MinColumn: return ttlText(r.minMs);
        case MedianColumn: return ttlText(r.medianMs);
        case MaxColumn: return ttlText(r.maxMs);
        }
        break;
    case SortRole:
        switch (column) {
        case NamespaceColumn: return r.displayName();
        case KeysColumn: return r.keys;
        case NoTtlColumn: return r.noTtlShare();
        case MinColumn: return r.minMs;
        case MedianColumn: return r.medianMs;
        case MaxColumn: return r.maxMs;
        }
        break;
    case Qt::TextAlignmentRole:
        return column == NamespaceColumn ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole: {
        QString tip
            = tr("%1 keys: %2 without TTL, %3 with one")
                  .arg(format::count(r.keys), format::count(r.noTtl), format::count(r.keys - r.noTtl - r.unknown));
        if (r.unknown > 0)
            tip += tr(", %1 whose TTL could not be read").arg(format::count(r.unknown));
        if (r.expired > 0)
            tip += tr("; %1 expired since the scan read them").arg(format::count(r.expired));
        if (!r.hasPrefix())
            tip += QLatin1Char('\n') + tr("Keys of this row share no prefix, so they cannot be filtered by one.");
        return tip;
    }
    case KeyRole: return r.prefix;
    case HasPrefixRole: return r.hasPrefix();
    case NamespaceIndexRole: return index.row();
    }
    return {};
}

QVariant TtlNamespaceModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NamespaceColumn: return tr("Namespace");
    case KeysColumn: return tr("Keys");
    case NoTtlColumn: return tr("No TTL");
    case MinColumn: return tr("Min TTL");
    case MedianColumn: return tr("Median TTL");
    case MaxColumn: return tr("Max TTL");
    }
    return {};
}

Qt::ItemFlags TtlNamespaceModel::flags(const QModelIndex &index) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return Qt::NoItemFlags;
    // Only a prefix can become a key-browser filter; the grouped rows are not selectable.
    return m_rows.at(index.row()).hasPrefix() ? Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren
                                              : Qt::ItemIsEnabled | Qt::ItemNeverHasChildren;
}
