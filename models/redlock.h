// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rowtablemodel.h"
#include "ttl.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

// A Redlock set: N independent primaries; a lock is held when the same token is set on a
// majority of them (N/2 + 1) and its validity (the smallest TTL left among them) has not run out.

// One key as one node of the set answered.
struct RedlockHold
{
    bool read = false; // false: the node did not answer (down, timeout, refused)
    bool exists = false;
    QByteArray token; // the value's first bytes
    qint64 pttlMs = ttl::kUnknown; // -1: no TTL
    qint64 readAtMs = 0;
    QString error; // a per-key error reply (WRONGTYPE, NOPERM)
};

// What one node of the set answered for every key of the round.
struct RedlockNodeRead
{
    QString address; // host:port
    QString error; // the node could not be read: every hold is unread
    QHash<QByteArray, RedlockHold> holds;
};

// One lock key across the set.
struct RedlockLock
{
    enum Flag : quint8 {
        NoTtl = 1, // some node holds it without a TTL
        SomeUnread = 2, // a node did not answer: the count may be short
        NoMajority = 4, // held, but not by one token on a majority: nobody holds this lock
        SplitTokens = 8, // different tokens on different nodes: two holders raced, or a stale one
    };

    QByteArray key;
    QString family;
    QList<RedlockHold> holds; // one per node, in the set's order
    int nodes = 0; // N
    int quorum = 0; // N/2 + 1
    int held = 0; // nodes where the key exists
    int majorityHolders = 0; // nodes holding the most common token
    QByteArray token; // the most common token
    int tokens = 0; // distinct tokens
    qint64 minPttlMs = ttl::kUnknown; // smallest TTL left among the nodes holding the majority token
    qint64 readAtMs = 0;
    quint8 flags = 0;

    bool valid() const { return majorityHolders >= quorum; }
    int severity() const; // 3 split tokens, 2 no majority or no TTL, 1 a node unread, 0 fine
    QString heldText() const; // "2 of 3" (" (1 unread)")
    QString flagsText() const;
    qint64 expireAtMs() const { return ttl::expireAt(minPttlMs, readAtMs); }
};
Q_DECLARE_METATYPE(RedlockLock)

// The set's view of each key the nodes were asked about: 'reads' holds one entry per node, in
// the set's order, 'families' the classifier's family per key. Keys held on no node are left
// out; the most severe first, then by key.
QList<RedlockLock> combineRedlock(const QList<QByteArray> &keys, const QHash<QByteArray, QString> &families,
                                  const QList<RedlockNodeRead> &reads);

// The set's locks as RedlockReader gives them. SeverityRole: split tokens and a missing majority
// Bad, no TTL and an unread node Warning. The tooltip of Held on names each node's answer.
class RedlockModel : public RowListModel<RedlockLock>, public RowTableRoles
{
    Q_OBJECT
public:
    enum Column { ResourceColumn, HeldColumn, TokenColumn, RemainingColumn, FlagsColumn, ColumnCount };
    enum Role {
        HeldSeverityRole = FirstExtraRole, // int(Severity) of the count alone: no majority Bad, a node unread Warning
    };
    explicit RedlockModel(QObject *parent = nullptr);

    void setNodes(const QStringList &addresses) { m_nodes = addresses; }

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QStringList m_nodes;
};
