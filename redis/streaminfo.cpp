// SPDX-License-Identifier: GPL-3.0-or-later
#include "streaminfo.h"

#include <limits>

namespace streamid {

bool parse(const QByteArray &id, quint64 *ms, quint64 *seq)
{
    const qsizetype dash = id.indexOf('-');
    bool ok1 = false, ok2 = true;
    const quint64 m = id.left(dash < 0 ? id.size() : dash).toULongLong(&ok1);
    const quint64 s = dash < 0 ? 0 : id.mid(dash + 1).toULongLong(&ok2);
    if (!ok1 || !ok2)
        return false;
    if (ms)
        *ms = m;
    if (seq)
        *seq = s;
    return true;
}

QByteArray next(const QByteArray &id)
{
    quint64 ms = 0, seq = 0;
    if (!parse(id, &ms, &seq))
        return {};
    constexpr quint64 kMax = std::numeric_limits<quint64>::max();
    if (seq < kMax)
        return QByteArray::number(ms) + '-' + QByteArray::number(seq + 1);
    if (ms < kMax)
        return QByteArray::number(ms + 1) + "-0";
    return {};
}

QByteArray previous(const QByteArray &id)
{
    quint64 ms = 0, seq = 0;
    if (!parse(id, &ms, &seq))
        return {};
    if (seq > 0)
        return QByteArray::number(ms) + '-' + QByteArray::number(seq - 1);
    if (ms > 0)
        return QByteArray::number(ms - 1) + '-' + QByteArray::number(std::numeric_limits<quint64>::max());
    return {};
}

qint64 milliseconds(const QByteArray &id)
{
    quint64 ms = 0;
    if (!parse(id, &ms, nullptr) || ms > quint64(std::numeric_limits<qint64>::max()))
        return -1;
    return qint64(ms);
}

bool less(const QByteArray &a, const QByteArray &b)
{
    quint64 am = 0, as = 0, bm = 0, bs = 0;
    parse(a, &am, &as);
    parse(b, &bm, &bs);
    return am < bm || (am == bm && as < bs);
}

} // namespace streamid

std::optional<bool> StreamInfo::neverDeleted() const
{
    if (maxDeletedEntryId.isEmpty())
        return std::nullopt;
    return maxDeletedEntryId == "0-0";
}

namespace streaminfo {

namespace {

// Calls f(name, value) for each pair of a flat field/value list.
template <typename F> bool forPairs(const RedisValue &reply, F f)
{
    if (!reply.isArray() || reply.size() % 2 != 0)
        return false;
    for (qsizetype i = 0; i + 1 < reply.size(); i += 2)
        f(reply.at(i).bytes(), reply.at(i + 1));
    return true;
}

qint64 integerOf(const RedisValue &v)
{
    return v.toInteger();
}

} // namespace

StreamEntry parseEntry(const RedisValue &entry)
{
    StreamEntry e;
    if (!entry.isArray() || entry.size() < 2 || !entry.at(0).isString())
        return e;
    e.id = entry.at(0).bytes();
    for (const RedisValue &f : entry.at(1).elements())
        e.fields.append(f.bytes());
    return e;
}

bool parseStream(const RedisValue &reply, StreamInfo *out)
{
    StreamInfo s;
    bool sawLength = false;
    const bool ok = forPairs(reply, [&](const QByteArray &name, const RedisValue &v) {
        if (name == "length") {
            s.length = integerOf(v);
            sawLength = true;
        } else if (name == "radix-tree-keys") {
            s.radixTreeKeys = integerOf(v);
        } else if (name == "radix-tree-nodes") {
            s.radixTreeNodes = integerOf(v);
        } else if (name == "groups") {
            s.groups = integerOf(v);
        } else if (name == "last-generated-id") {
            s.lastGeneratedId = v.bytes();
        } else if (name == "max-deleted-entry-id") {
            s.maxDeletedEntryId = v.bytes();
        } else if (name == "entries-added") {
            s.entriesAdded = integerOf(v);
        } else if (name == "recorded-first-entry-id") {
            s.recordedFirstEntryId = v.bytes();
        } else if (name == "first-entry") {
            s.firstEntry = parseEntry(v);
        } else if (name == "last-entry") {
            s.lastEntry = parseEntry(v);
        }
    });
    if (!ok || !sawLength)
        return false;
    *out = s;
    return true;
}

bool parseGroups(const RedisValue &reply, QList<StreamGroupInfo> *out)
{
    if (!reply.isArray())
        return false;
    QList<StreamGroupInfo> groups;
    for (const RedisValue &row : reply.elements()) {
        StreamGroupInfo g;
        const bool ok = forPairs(row, [&](const QByteArray &name, const RedisValue &v) {
            if (name == "name")
                g.name = v.bytes();
            else if (name == "consumers")
                g.consumers = integerOf(v);
            else if (name == "pending")
                g.pending = integerOf(v);
            else if (name == "last-delivered-id")
                g.lastDeliveredId = v.bytes();
            else if (name == "entries-read")
                g.entriesRead = v.isNil() ? std::nullopt : std::optional<qint64>(integerOf(v));
            else if (name == "lag") {
                g.lagKnown = true;
                g.lag = v.isNil() ? std::nullopt : std::optional<qint64>(integerOf(v));
            }
        });
        if (!ok)
            return false;
        groups.append(g);
    }
    *out = groups;
    return true;
}

bool parseConsumers(const RedisValue &reply, QList<StreamConsumerInfo> *out)
{
    if (!reply.isArray())
        return false;
    QList<StreamConsumerInfo> consumers;
    for (const RedisValue &row : reply.elements()) {
        StreamConsumerInfo c;
        const bool ok = forPairs(row, [&](const QByteArray &name, const RedisValue &v) {
            if (name == "name")
                c.name = v.bytes();
            else if (name == "pending")
                c.pending = integerOf(v);
            else if (name == "idle")
                c.idleMs = integerOf(v);
            else if (name == "inactive")
                c.inactiveMs = integerOf(v);
        });
        if (!ok)
            return false;
        consumers.append(c);
    }
    *out = consumers;
    return true;
}

bool parsePending(const RedisValue &reply, QList<PendingEntry> *out)
{
    if (!reply.isArray())
        return false;
    QList<PendingEntry> rows;
    rows.reserve(reply.size());
    for (const RedisValue &row : reply.elements()) {
        if (!row.isArray() || row.size() < 4)
            return false;
        rows.append({row.at(0).bytes(), row.at(1).bytes(), row.at(2).toInteger(), row.at(3).toInteger()});
    }
    *out = rows;
    return true;
}

bool parsePendingSummary(const RedisValue &reply, PendingSummary *out)
{
    if (!reply.isArray() || reply.size() < 4)
        return false;
    PendingSummary s;
    s.count = reply.at(0).toInteger();
    s.minId = reply.at(1).bytes();
    s.maxId = reply.at(2).bytes();
    for (const RedisValue &c : reply.at(3).elements()) {
        if (c.isArray() && c.size() >= 2)
            s.perConsumer.append({c.at(0).bytes(), c.at(1).toInteger()});
    }
    *out = s;
    return true;
}

bool parseEntries(const RedisValue &reply, QList<StreamEntry> *out)
{
    if (!reply.isArray())
        return false;
    QList<StreamEntry> entries;
    entries.reserve(reply.size());
    for (const RedisValue &e : reply.elements()) {
        // XCLAIM on servers before 7.0 answers nil for entries deleted from the stream.
        if (e.isNil())
            continue;
        const StreamEntry entry = parseEntry(e);
        if (entry.isNull())
            return false;
        entries.append(entry);
    }
    *out = entries;
    return true;
}

bool parseAutoClaim(const RedisValue &reply, AutoClaimReply *out)
{
    if (!reply.isArray() || reply.size() < 2 || !reply.at(0).isString() || !reply.at(1).isArray())
        return false;
    AutoClaimReply a;
    a.cursor = reply.at(0).bytes();
    for (const RedisValue &e : reply.at(1).elements()) {
        if (e.isString())
            a.claimedIds.append(e.bytes()); // JUSTID
        else if (e.isArray() && e.size() >= 1)
            a.claimedIds.append(e.at(0).bytes());
    }
    if (reply.size() >= 3) {
        for (const RedisValue &id : reply.at(2).elements())
            a.deletedIds.append(id.bytes());
    }
    *out = a;
    return true;
}

} // namespace streaminfo
