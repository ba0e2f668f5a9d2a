// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keyfilter.h"
#include "serverinfo.h"
#include "sessions.h"

#include <QHash>
#include <QList>
#include <QMetaType>

// ---- headless cache statistics ----

// One cache key as last read: its kind (cache entry or negative marker) and absolute expiry.
struct CacheKeyState
{
    QByteArray key;
    PatternKind kind = PatternKind::CacheEntry;
    qint64 expireAtMs = ttl::kUnknown; // ttl.h conventions
};

// A namespace (family) of cache entries and negative markers at one moment.
struct CacheNamespaceRow
{
    QString family;
    QByteArray prefix; // familyPrefix(family); empty when the shape starts with a placeholder
    quint64 keys = 0;
    quint64 withTtl = 0;
    quint64 noTtl = 0;
    quint64 unknown = 0;
    qint64 minMs = -1, medianMs = -1, maxMs = -1; // remaining TTL of the keys that have one
    quint64 negatives = 0;
    quint64 negativesNoTtl = 0; // a real row never becomes visible behind these
    qint64 negativeMinMs = -1, negativeMaxMs = -1;
    // Seconds in which many keys of the namespace expire together: the TTL panel's cliff rule
    // (TtlStats::kCliff*) applied to this namespace alone, over the next hour.
    QList<TtlCliff> cliffs;

    double ttlShare() const { return keys > unknown ? double(withTtl) / double(keys - unknown) : -1.0; }
    bool noJitter() const { return !cliffs.isEmpty(); }
    Severity severity() const;
    QString flags() const;
};

// The server's cache hit ratio: since the server started, and between the last two reads.
struct HitRatio
{
    qint64 hits = -1, misses = -1;
    double sinceStart = -1; // 0..1, -1 unknown (no lookups yet, or INFO not allowed)
    double recent = -1;
    qint64 recentLookups = 0;
    qint64 recentSpanMs = 0;

    // 'ownHits'/'ownMisses': lookups RedisLens itself made between the two reads (a PTTL counts
    // as a hit or miss like a GET), taken out of the recent ratio.
    static HitRatio from(const ServerInfo &current, const ServerInfo *previous, qint64 ownHits = 0,
                         qint64 ownMisses = 0);
};

namespace caches {

// A tag set with this many members is flagged huge.
constexpr qint64 kHugeTag = 10'000;

// Statistics of one namespace, computed against 'nowMs'.
CacheNamespaceRow namespaceRow(const QString &family, const QList<CacheKeyState> &keys, qint64 nowMs);
// The key-browser filter for a namespace; empty when it has no literal prefix.
KeyFilter filterFor(const QString &family);

} // namespace caches

struct TagRow
{
    QByteArray key;
    QString family;
    qint64 cardinality = -1;
    qint64 pttlMs = ttl::kUnknown;
    qint64 scanned = 0;
    bool complete = false;
    QList<QByteArray> dangling; // members whose key is gone
    qint64 membersWithoutTtl = 0;
    qint64 maxMemberTtlMs = -1; // longest member PTTL read
    qint64 outlivingMembers = 0; // members that outlive the tag (or have no TTL while the tag has one)
    QString error;
    bool huge() const;
    Severity severity() const;
    QString flags() const;
};

struct DedupSetRow
{
    QByteArray key;
    QString family;
    qint64 cardinality = -1;
    qint64 pttlMs = ttl::kUnknown;
    double growthPerMin = qQNaN(); // NaN until two reads
    qint64 growth = 0; // members added over growthSpanMs (the last reads, up to two minutes)
    qint64 growthSpanMs = 0;
    bool growingWithoutTtl() const { return pttlMs == -1 && growth > 0; }
    Severity severity() const;
};

struct DedupFamilyRow
{
    QString family;
    quint64 keys = 0;
    quint64 noTtl = 0;
    qint64 minMs = -1, medianMs = -1, maxMs = -1;
    Severity severity() const { return noTtl > 0 ? Severity::Bad : Severity::None; }
};

namespace caches {

// The TTL-tracked keys of one read grouped by family ('families': each key's), sorted by family:
// cache entries and negative markers into namespaces, dedup keys into dedup families.
struct Grouped
{
    QList<CacheNamespaceRow> namespaces;
    QList<DedupFamilyRow> dedupFamilies;
};
Grouped group(const QList<CacheKeyState> &keys, const QList<QString> &families, qint64 nowMs);

} // namespace caches

struct CounterRow
{
    QByteArray key;
    QString family;
    bool hll = false;
    qint64 value = 0; // PFCOUNT estimate, or the counter's integer
    QByteArray raw; // a counter that is not an integer: its first bytes
    bool known = false;
    qint64 pttlMs = ttl::kUnknown;
    QString error;
};

// What one round of CachesReader read.
struct CachesResults
{
    QList<CacheNamespaceRow> namespaces;
    QList<TagRow> tags;
    QList<DedupSetRow> dedupSets;
    QList<DedupFamilyRow> dedupFamilies;
    QList<CounterRow> counters;
    HitRatio hitRatio;
    QString infoError; // INFO stats refused: the hit ratio is unknown
    qint64 nowMs = 0;
};
Q_DECLARE_METATYPE(CachesResults)

// The tables of the caches panel, one per row kind; KeyRole is the key, or the family (UTF-8)
// of a namespace or a dedup family.
class CacheNamespacesModel : public RowTableModel<CacheNamespaceRow>
{
    Q_OBJECT
public:
    explicit CacheNamespacesModel(QObject *parent = nullptr);
};

class TagsModel : public RowTableModel<TagRow>
{
    Q_OBJECT
public:
    explicit TagsModel(QObject *parent = nullptr);
};

class DedupSetsModel : public RowTableModel<DedupSetRow>
{
    Q_OBJECT
public:
    explicit DedupSetsModel(QObject *parent = nullptr);
};

class DedupFamiliesModel : public RowTableModel<DedupFamilyRow>
{
    Q_OBJECT
public:
    explicit DedupFamiliesModel(QObject *parent = nullptr);
};

class CountersModel : public RowTableModel<CounterRow>
{
    Q_OBJECT
public:
    explicit CountersModel(QObject *parent = nullptr);
};
