// SPDX-License-Identifier: GPL-3.0-or-later
#include "locks.h"

#include "bytesescape.h"
#include "format.h"

#include <algorithm>

namespace {

constexpr qint64 kLongTtlFactor = 10;
constexpr qint64 kLongTtlMinMs = 5 * 60 * 1000;
constexpr int kLongTtlMinSiblings = 3; // a median of fewer TTLs says nothing about "typical"

} // namespace

bool lockValueLooksLikeToken(const QByteArray &value)
{
    if (value.size() < 8)
        return false;
    QSet<char> distinct;
    for (char c : value) {
        distinct.insert(c);
        if (distinct.size() >= 6)
            return true;
    }
    return false;
}

int LockInfo::severity() const
{
    if (released)
        return -1;
    if (flags & NoTtl)
        return 3;
    if (flags & LongTtl)
        return 2;
    if (flags & NotTokenLike)
        return 1;
    return 0;
}

QString LockInfo::flagsText() const
{
    if (released)
        return QObject::tr("released since the previous read");
    QStringList parts;
    if (flags & NoTtl)
        parts << QObject::tr("no TTL");
    if (flags & LongTtl)
        // Short: the cell is narrow; the tooltip says whose typical it is.
        parts << QObject::tr("TTL far above typical (%1)").arg(format::duration(familyMedianMs));
    if (flags & NotTokenLike)
        parts << QObject::tr("value not token-like");
    if (!error.isEmpty())
        parts << error;
    return parts.join(QStringLiteral(" · "));
}

void flagLocks(QList<LockInfo> &locks)
{
    QHash<QString, QList<qint64>> ttls;
    QList<qint64> all;
    for (const LockInfo &l : locks) {
        if (!l.released && l.pttlMs > 0) {
            ttls[l.family].append(l.pttlMs);
            all.append(l.pttlMs);
        }
    }
    // A lock alone in its family is compared with every lock (a one-off import lock held for a
    // day beside locks held for seconds).
    qint64 allMedian = -1;
    if (all.size() >= kLongTtlMinSiblings) {
        std::sort(all.begin(), all.end());
        allMedian = all.at((all.size() - 1) / 2);
    }
    QHash<QString, qint64> medians;
    for (auto it = ttls.begin(); it != ttls.end(); ++it) {
        QList<qint64> &v = it.value();
        if (v.size() < kLongTtlMinSiblings)
            continue;
        std::sort(v.begin(), v.end());
        medians.insert(it.key(), v.at((v.size() - 1) / 2));
    }
    for (LockInfo &l : locks) {
        l.flags = 0;
        l.familyMedianMs = medians.value(l.family, -1);
        l.medianOfAllLocks = l.familyMedianMs < 0 && allMedian > 0;
        if (l.medianOfAllLocks)
            l.familyMedianMs = allMedian;
        if (l.released)
            continue;
        // -1 only: an unknown TTL (an error reply) must not read as "no TTL".
        if (l.pttlMs == -1)
            l.flags |= LockInfo::NoTtl;
        if (l.familyMedianMs > 0 && l.pttlMs > kLongTtlFactor * l.familyMedianMs && l.pttlMs > kLongTtlMinMs)
            l.flags |= LockInfo::LongTtl;
        if (l.type == KeyType::String && l.error.isEmpty() && !lockValueLooksLikeToken(l.value))
            l.flags |= LockInfo::NotTokenLike;
    }
}

void sortLocks(QList<LockInfo> &locks)
{
    std::stable_sort(locks.begin(), locks.end(), [](const LockInfo &a, const LockInfo &b) {
        if (a.severity() != b.severity())
            return a.severity() > b.severity();
        return a.key < b.key;
    });
}

// ---- model ----

LocksModel::LocksModel(QObject *parent)
    : RowListModel([](const LockInfo &l) { return l.key; }, ColumnCount, RemainingColumn, parent)
{ }

QVariant LocksModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    const LockInfo &l = rows().at(index.row());
    switch (role) {
    case KeyRole: return l.key;
    case TokenRole: return l.value;
    case SeverityRole:
        return int(l.severity() >= 2 ? Severity::Bad : l.severity() == 1 ? Severity::Warning : Severity::None);
    case TtlSeverityRole:
        return int((l.flags & (LockInfo::NoTtl | LockInfo::LongTtl)) ? Severity::Bad : Severity::None);
    case TypeRole: return int(l.type);
    case Qt::ToolTipRole:
        if (index.column() == FlagsColumn && l.flags) {
            QStringList why;
            if (l.flags & LockInfo::NoTtl)
                why << tr("No TTL: if the holder crashes, nobody can ever take this lock again.");
            if (l.flags & LockInfo::LongTtl)
                why << (l.medianOfAllLocks ? tr("The TTL is far above the %1 typical of the locks here: a crashed "
                                                "holder blocks the resource that long.")
                                           : tr("The TTL is far above the %1 typical of its family: a crashed "
                                                "holder blocks the resource that long."))
                           .arg(format::duration(l.familyMedianMs));
            if (l.flags & LockInfo::NotTokenLike)
                why << tr("The value is the same for every holder, so a compare-and-delete cannot tell the "
                          "owner apart: anyone may release it.");
            return why.join(QLatin1Char('\n'));
        }
        if (index.column() == TokenColumn && l.type == KeyType::String)
            return bytesescape::escapeElided(l.value, 1000);
        return {};
    case Qt::DisplayRole: break;
    default: return {};
    }
    switch (index.column()) {
    case ResourceColumn: return bytesescape::escape(l.key);
    case TokenColumn:
        if (!l.error.isEmpty() && l.value.isEmpty())
            return tr("(not readable)");
        if (l.type != KeyType::String)
            return tr("(%1: holder not shown)").arg(keyTypeName(l.type));
        if (l.valueLength > l.value.size())
            return tr("%1 … (%2)").arg(bytesescape::escapeElided(l.value, 80), format::bytes(l.valueLength));
        return bytesescape::quoteIfNeeded(l.value);
    case RemainingColumn:
        if (l.released)
            return tr("released");
        if (l.pttlMs == ttl::kUnknown)
            return tr("unknown");
        return format::ttl(l.expireAtMs(), now() ? now() : l.readAtMs);
    case FamilyColumn: return l.family;
    case FlagsColumn: return l.flagsText();
    default: return {};
    }
}

QVariant LocksModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ResourceColumn: return tr("Resource (key)");
    case TokenColumn: return tr("Holder token");
    case RemainingColumn: return tr("Remaining");
    case FamilyColumn: return tr("Family");
    case FlagsColumn: return tr("Flags");
    default: return {};
    }
}
