// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "patterns.h"
#include "rowtablemodel.h"
#include "ttl.h"

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QSet>
#include <QString>

// A lock value that can identify one holder: long enough and varied enough to be a random
// token ("3f1c9a0e7b2d4c55", a UUID, "host:pid:uuid"). "1", "locked" or "true" are the same
// for every holder, so compare-and-delete cannot tell the owner from anyone else.
bool lockValueLooksLikeToken(const QByteArray &value);

// One lock as the last poll read it.
struct LockInfo
{
    enum Flag : quint8 {
        NotTokenLike = 1, // least severe
        LongTtl = 2, // far above the family's typical TTL
        NoTtl = 4, // most severe: a crashed holder never lets go
    };

    QByteArray key;
    KeyType type = KeyType::String;
    QString family;
    QByteArray value; // the first kValueBytes bytes (strings only)
    qint64 valueLength = -1; // STRLEN; -1 unknown
    qint64 pttlMs = ttl::kUnknown; // at readAtMs
    qint64 readAtMs = 0;
    qint64 familyMedianMs = -1; // the family's median TTL, for the LongTtl explanation
    bool medianOfAllLocks = false; // the family was too small: the median is every lock's
    quint8 flags = 0;
    bool released = false; // gone since the previous poll; shown once, then dropped
    QString error; // a per-key error reply (WRONGTYPE, NOPERM)

    qint64 expireAtMs() const { return ttl::expireAt(pttlMs, readAtMs); }
    int severity() const; // 3 no TTL, 2 long TTL, 1 not token-like, 0 fine; -1 released
    QString flagsText() const; // "no TTL · value not token-like"
    bool canRelease() const { return !released && type == KeyType::String && error.isEmpty(); }
};
Q_DECLARE_METATYPE(LockInfo)

// Sets the flags of a set of locks read together: NoTtl, LongTtl (more than kLongTtlFactor times
// the family's median and more than kLongTtlMinMs), NotTokenLike.
void flagLocks(QList<LockInfo> &locks);
// Severity first (no TTL on top), then the key; released locks last.
void sortLocks(QList<LockInfo> &locks);

// The locks of one read, as LocksReader::locksAvailable gives them; the remaining TTL counts
// down by setNow(). SeverityRole: int(Severity), no TTL and a long TTL Bad, a value that is not
// token-like Warning.
class LocksModel : public RowListModel<LockInfo>, public RowTableRoles
{
    Q_OBJECT
public:
    enum Column { ResourceColumn, TokenColumn, RemainingColumn, FamilyColumn, FlagsColumn, ColumnCount };
    enum Role {
        TokenRole = FirstExtraRole, // QByteArray: the value read
        TtlSeverityRole, // int(Severity) of the TTL alone
    };
    explicit LocksModel(QObject *parent = nullptr);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};
