// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keyfilter.h"
#include "keynameset.h"
#include "rowtablemodel.h"
#include "scanbatch.h"
#include "segmentedvector.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QList>
#include <array>
#include <vector>

// The TTL buckets of the histogram: log-spaced ranges of *remaining* TTL, half-open
// [minMs, maxMs). A key whose TTL has run out since the scan read it is in none of them, and
// neither is a key whose TTL is unknown: both are counted on their own.
namespace ttlbucket {

enum Bucket : int {
    NoTtl,
    UnderMinute,
    OneToFiveMinutes,
    FiveToFifteenMinutes,
    FifteenToSixtyMinutes,
    OneToTwentyFourHours,
    OverDay,
    Count
};

QString label(int bucket); // "no TTL", "< 1 min", "1–5 min", …
qint64 minMs(int bucket); // Range buckets only
qint64 maxMs(int bucket); // exclusive; INT64_MAX for the last
// The bucket of a key with this much TTL left; -1 when it is <= 0 (expired).
int forRemaining(qint64 remainingMs);

} // namespace ttlbucket

using TtlBucketCounts = std::array<quint64, ttlbucket::Count>;

// One namespace at one moment.
struct TtlNamespaceStats
{
    enum class Kind : quint8 {
        Prefix, // keys starting with 'prefix'
        NoSeparator, // keys without the separator: "(no namespace)"
        Other, // prefixes beyond TtlStats::kMaxNamespaces, grouped so the table stays small
    };

    QByteArray prefix; // including the separator; empty unless kind is Prefix
    Kind kind = Kind::Prefix;
    quint64 keys = 0; // every scanned key of the namespace
    quint64 noTtl = 0;
    quint64 unknown = 0; // TTL not readable: in no bucket, not "no TTL"
    quint64 expired = 0; // had a TTL that has run out since the scan read it
    TtlBucketCounts buckets{};
    // Remaining TTL of the keys that still have one; -1 when there are none.
    qint64 minMs = -1;
    qint64 medianMs = -1;
    qint64 maxMs = -1;

    bool hasPrefix() const { return kind == Kind::Prefix; }
    // The escaped prefix, or "(no namespace)" / "(other namespaces)".
    QString displayName() const;
    // Share of the keys with a known TTL state that have none; -1 when nothing is known.
    double noTtlShare() const;
};

// Seconds in which an unusual number of keys expire together (see TtlStats::kCliff*).
struct TtlCliff
{
    qint64 startMs = 0; // first second of the run, whole seconds since epoch in ms
    qint64 endMs = 0; // end of the last second (exclusive)
    quint64 keys = 0;
    quint32 peak = 0; // keys in the busiest second of the run
    qint64 peakSecondMs = 0;
    double baselinePerSecond = 0; // around the peak second
    int dominantNamespace = -1; // index into TtlSnapshot::namespaces: most keys of the run
    quint64 dominantKeys = 0;
};

// Everything the TTL panel shows, computed against one 'now'.
struct TtlSnapshot
{
    qint64 nowMs = 0;
    quint64 keys = 0;
    quint64 unknown = 0;
    quint64 expired = 0;
    TtlBucketCounts buckets{};
    // In order of first appearance: a namespace keeps its index until clear() or a separator
    // change (layoutEpoch tells which).
    QList<TtlNamespaceStats> namespaces;
    quint64 layoutEpoch = 0;

    // Keys expiring in the next 1, 5 and 60 minutes (remaining TTL < window, not yet expired):
    // the sums of the buckets below that length.
    quint64 within1m = 0;
    quint64 within5m = 0;
    quint64 within60m = 0;
    // perSecond[i]: keys whose expiry lies in the wall-clock second forecastStartMs + i s
    // (the first is the current, partial second) and after nowMs.
    qint64 forecastStartMs = 0;
    std::vector<quint32> perSecond;
    QList<TtlCliff> cliffs; // in time order

    // Index of the namespace with this prefix (Kind::Prefix), or -1.
    int namespaceIndex(const QByteArray &prefix) const;
};

// Headless TTL statistics of a scan. Every scanned key costs its name in a KeyNameSet (about
// 35 bytes for a twenty-byte name), 8 bytes of absolute expiry, and 8 more in its namespace; the
// per-namespace expiries are kept sorted (merged lazily when a snapshot is taken), so buckets,
// min/median/max and the forecast are binary searches and one walk over the next hour.
class TtlStats
{
public:
    static constexpr int kForecastSeconds = 3600;
    // A cliff second has at least kCliffMinKeys expiries and at least kCliffFactor times the
    // mean of the other seconds within ±kCliffNeighbourhoodSeconds. The neighbourhood, not the
    // whole hour, is the yardstick: a steady stream of keys written with the same TTL expires
    // at a steady rate (no stampede), while a burst written at once stands out against its
    // surroundings however busy the rest of the hour is. The mean excludes the second itself,
    // so a lone burst in a quiet hour is not diluted by its own keys.
    static constexpr quint32 kCliffMinKeys = 20;
    static constexpr double kCliffFactor = 10.0;
    static constexpr int kCliffNeighbourhoodSeconds = 300;
    // Only the largest cliffs are reported (each costs a search per namespace).
    static constexpr int kMaxCliffs = 50;
    // A keyspace whose first segment is an id ("u1042:cart") would make a namespace per key;
    // prefixes beyond this many share one "(other namespaces)" row.
    static constexpr int kMaxNamespaces = 2000;

    TtlStats();

    void clear();
    // The namespace is the name up to and including the first separator. Changing it
    // regroups the keys already counted.
    void setSeparator(const QByteArray &separator);
    QByteArray separator() const { return m_separator; }
    // How far ahead the forecast (and the cliff search) looks; the TTL panel's chart shows the
    // default hour, a cache namespace is searched over a day.
    void setForecastSeconds(int seconds) { m_forecastSeconds = qMax(1, seconds); }
    int forecastSeconds() const { return m_forecastSeconds; }

    // Adds the keys of a batch; a key seen before (SCAN can return one twice) keeps its first
    // reading. Returns how many keys were new.
    qsizetype add(const ScanBatch &batch);

    quint64 keyCount() const { return quint64(m_names.size()); }
    int namespaceCount() const { return int(m_namespaces.size()); }
    quint64 layoutEpoch() const { return m_layoutEpoch; }

    // Not const: expiries added since the last call are merged into their sorted place first.
    TtlSnapshot snapshot(qint64 nowMs);

    // The key-browser filter showing exactly the keys counted in 'bucket' (-1: any TTL) of
    // namespace 'prefix' (empty: all). The "(no namespace)" group has no prefix filter.
    static KeyFilter filterFor(int bucket, const QByteArray &prefix);

private:
    struct Namespace
    {
        QByteArray prefix;
        TtlNamespaceStats::Kind kind = TtlNamespaceStats::Kind::Prefix;
        quint64 keys = 0;
        quint64 noTtl = 0;
        quint64 unknown = 0;
        std::vector<qint64> expiries; // absolute, ms since epoch
        size_t sorted = 0; // expiries[0, sorted) are in order
    };

    int namespaceFor(const QByteArray &name);
    int groupIndex(TtlNamespaceStats::Kind kind);
    void count(int ns, qint64 expireAtMs);
    void sortAll();
    void forecast(TtlSnapshot &s) const;
    void findCliffs(TtlSnapshot &s) const;

    int m_forecastSeconds = kForecastSeconds;
    QByteArray m_separator = ":";
    KeyNameSet m_names; // every key counted, once
    SegmentedVector<qint64> m_expireAt; // by name id: expireAt (ttl.h conventions)
    std::vector<Namespace> m_namespaces;
    QHash<QByteArray, int> m_namespaceIndex;
    int m_noNamespace = -1;
    int m_otherNamespaces = -1;
    quint64 m_layoutEpoch = 0;
};

// The per-namespace table of the TTL panel. Rows keep their namespace's index, so a refresh
// is one dataChanged plus one insert of the namespaces that are new; sort through a
// QSortFilterProxyModel on SortRole.
class TtlNamespaceModel : public QAbstractTableModel, public RowTableRoles
{
    Q_OBJECT
public:
    enum Column { NamespaceColumn, KeysColumn, NoTtlColumn, MinColumn, MedianColumn, MaxColumn, ColumnCount };
    // KeyRole: the prefix (QByteArray); SortRole: numbers for the numeric columns.
    enum Role {
        HasPrefixRole = FirstExtraRole, // bool: false for "(no namespace)" and "(other namespaces)"
        NamespaceIndexRole, // int: index into TtlSnapshot::namespaces
    };

    explicit TtlNamespaceModel(QObject *parent = nullptr);

    void setSnapshot(const TtlSnapshot &snapshot);
    void clear();

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;

private:
    QList<TtlNamespaceStats> m_rows;
    quint64 m_epoch = 0;
};
