// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redisvalue.h"

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QPair>
#include <optional>

// Stream ids are "ms-seq". Helpers for paging: XPENDING and XRANGE take an exclusive start
// "(id" only from 6.2 on; older servers get the id's successor instead.
namespace streamid {
// False when 'id' is not "ms-seq" (or "ms").
bool parse(const QByteArray &id, quint64 *ms, quint64 *seq);
// The smallest id after 'id' ("5-3" -> "5-4", "5-18446744073709551615" -> "6-0"); empty if none.
QByteArray next(const QByteArray &id);
// The largest id before 'id'; empty if none.
QByteArray previous(const QByteArray &id);
// -1 when 'id' does not parse.
qint64 milliseconds(const QByteArray &id);
// a < b in stream order.
bool less(const QByteArray &a, const QByteArray &b);
} // namespace streamid

// One entry: its id and its field/value pairs, flat (field, value, field, value…).
struct StreamEntry
{
    QByteArray id;
    QList<QByteArray> fields;
    bool isNull() const { return id.isEmpty(); }
};
Q_DECLARE_METATYPE(StreamEntry)

// XINFO STREAM (without FULL). The 7.0 facts are empty/absent on older servers.
struct StreamInfo
{
    qint64 length = 0;
    qint64 radixTreeKeys = 0;
    qint64 radixTreeNodes = 0;
    qint64 groups = 0;
    QByteArray lastGeneratedId;
    QByteArray maxDeletedEntryId; // 7.0+
    std::optional<qint64> entriesAdded; // 7.0+
    QByteArray recordedFirstEntryId; // 7.0+
    StreamEntry firstEntry;
    StreamEntry lastEntry;

    // Nothing was ever deleted or trimmed (7.0+ only: the server counts what it removed).
    std::optional<bool> neverDeleted() const;
};
Q_DECLARE_METATYPE(StreamInfo)

// One row of XINFO GROUPS.
struct StreamGroupInfo
{
    QByteArray name;
    qint64 consumers = 0;
    qint64 pending = 0;
    QByteArray lastDeliveredId;
    std::optional<qint64> entriesRead; // 7.0+
    std::optional<qint64> lag; // 7.0+; nil when the server cannot tell (after deletions)
    bool lagKnown = false; // the field was present (its value may still be nil)
};
Q_DECLARE_METATYPE(StreamGroupInfo)

// One row of XINFO CONSUMERS.
struct StreamConsumerInfo
{
    QByteArray name;
    qint64 pending = 0;
    qint64 idleMs = 0;
    std::optional<qint64> inactiveMs; // 7.2+; -1 when it never read
};
Q_DECLARE_METATYPE(StreamConsumerInfo)

// One row of the extended XPENDING form.
struct PendingEntry
{
    QByteArray id;
    QByteArray consumer;
    qint64 idleMs = 0;
    qint64 deliveries = 0;
};
Q_DECLARE_METATYPE(PendingEntry)

// The summary form: XPENDING key group.
struct PendingSummary
{
    qint64 count = 0;
    QByteArray minId; // empty when nothing is pending
    QByteArray maxId;
    QList<QPair<QByteArray, qint64>> perConsumer;
};
Q_DECLARE_METATYPE(PendingSummary)

// One XAUTOCLAIM reply: next cursor, claimed entries (or ids with JUSTID), and, from 7.0,
// the ids it found pending but no longer in the stream (which it removed from the PEL).
struct AutoClaimReply
{
    QByteArray cursor;
    QList<QByteArray> claimedIds;
    QList<QByteArray> deletedIds;
};

namespace streaminfo {
// Each returns false (and leaves 'out' default) when the reply has the wrong shape.
// Replies may be RESP2 flat arrays or RESP3 maps; both are element lists.
bool parseStream(const RedisValue &reply, StreamInfo *out);
bool parseGroups(const RedisValue &reply, QList<StreamGroupInfo> *out);
bool parseConsumers(const RedisValue &reply, QList<StreamConsumerInfo> *out);
bool parsePending(const RedisValue &reply, QList<PendingEntry> *out);
bool parsePendingSummary(const RedisValue &reply, PendingSummary *out);
bool parseEntries(const RedisValue &reply, QList<StreamEntry> *out);
bool parseAutoClaim(const RedisValue &reply, AutoClaimReply *out);
StreamEntry parseEntry(const RedisValue &entry);
} // namespace streaminfo
