// SPDX-License-Identifier: GPL-3.0-or-later
#include "streamsreader.h"

#include "bytesescape.h"
#include "redisclient.h"

#include <QDateTime>

StreamsReader::StreamsReader(RedisClient *client, QObject *parent) : QObject(parent), m_client(client)
{ }

QVersionNumber StreamsReader::serverVersion() const
{
    return m_versionOverride.isNull() ? m_client->facts().version : m_versionOverride;
}

bool StreamsReader::serverIdle(const QVersionNumber &version)
{
    // A server that hides its version is taken to be current: the commands fail visibly if not.
    return version.isNull() || version >= QVersionNumber(6, 2);
}

void StreamsReader::send(const QList<RedisCommand> &commands, std::function<void(const RedisReply &)> done)
{
    m_client->sendBatch(commands, this, std::move(done));
}

void StreamsReader::setStreams(const QList<QByteArray> &keys)
{
    m_rows.clear();
    QSet<QByteArray> seen;
    for (const QByteArray &k : keys.mid(0, kMaxStreams)) {
        if (seen.contains(k))
            continue;
        seen.insert(k);
        StreamRow r;
        r.key = k;
        m_rows.append(r);
    }
    Q_EMIT streamsListed(m_rows);
    refreshStreams();
}

StreamRow *StreamsReader::rowOf(const QByteArray &key)
{
    for (StreamRow &r : m_rows) {
        if (r.key == key)
            return &r;
    }
    return nullptr;
}

void StreamsReader::refreshStreams()
{
    if (m_rows.isEmpty()) {
        Q_EMIT streamsAvailable(m_rows);
        return;
    }
    QList<QByteArray> keys;
    QList<RedisCommand> cmds;
    for (const StreamRow &r : std::as_const(m_rows)) {
        keys.append(r.key);
        cmds.append({"XINFO", "STREAM", r.key});
    }
    const quint64 request = ++m_listRequest;
    send(cmds, [this, request, keys](const RedisReply &r) {
        if (request != m_listRequest)
            return;
        if (!r.ok()) {
            Q_EMIT failed(tr("Streams could not be read: %1").arg(r.error.message));
            return;
        }
        for (int i = 0; i < keys.size(); ++i) {
            StreamRow *row = rowOf(keys.at(i));
            if (!row)
                continue;
            const RedisValue &v = r.value(i);
            StreamInfo info;
            if (v.isError()) {
                row->error = QString::fromUtf8(v.bytes());
            } else if (streaminfo::parseStream(v, &info)) {
                row->info = info;
                row->loaded = true;
                row->error.clear();
            } else {
                row->error = tr("unexpected XINFO STREAM reply");
            }
        }
        Q_EMIT streamsAvailable(m_rows);
    });
}

void StreamsReader::sampleLengths()
{
    if (m_rows.isEmpty())
        return;
    QList<QByteArray> keys;
    QList<RedisCommand> cmds;
    for (const StreamRow &r : std::as_const(m_rows)) {
        keys.append(r.key);
        cmds.append({"XLEN", r.key});
    }
    send(cmds, [this, keys](const RedisReply &r) {
        if (!r.ok())
            return;
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        for (int i = 0; i < keys.size(); ++i) {
            bool ok = false;
            const qint64 len = r.value(i).toInteger(&ok);
            StreamRow *row = rowOf(keys.at(i));
            if (!ok || !row)
                continue;
            row->samples.append({now, len});
            if (row->samples.size() > kMaxSamples)
                row->samples.remove(0, row->samples.size() - kMaxSamples);
        }
        Q_EMIT lengthsSampled(m_rows);
    });
}

void StreamsReader::openStream(const QByteArray &key)
{
    ++m_streamGen;
    m_key = key;
    m_group.clear();
    m_summary = {};
    m_sample.clear();
    m_pageStarts.clear();
    m_hasNext = false;
    Q_EMIT streamOpened(key);
    const quint64 gen = m_streamGen;
    send({{"XINFO", "GROUPS", key}}, [this, gen, key](const RedisReply &r) {
        if (gen != m_streamGen)
            return;
        QList<StreamGroupInfo> groups;
        if (const RedisError e = r.firstError())
            Q_EMIT failed(tr("Groups of %1: %2").arg(bytesescape::quoteIfNeeded(key), e.message));
        else if (!streaminfo::parseGroups(r.value(), &groups))
            groups.clear();
        Q_EMIT groupsAvailable(key, groups);
    });
}

void StreamsReader::openGroup(const QByteArray &group)
{
    ++m_streamGen;
    m_group = group;
    m_summary = {};
    m_sample.clear();
    Q_EMIT groupOpened(group);
    loadGroupFacts();
    firstPendingPage();
    loadSample();
}

void StreamsReader::refreshGroup()
{
    if (m_key.isEmpty())
        return;
    const quint64 gen = m_streamGen;
    const QByteArray key = m_key;
    send({{"XINFO", "GROUPS", key}}, [this, gen, key](const RedisReply &r) {
        QList<StreamGroupInfo> groups;
        if (gen == m_streamGen && !r.firstError() && streaminfo::parseGroups(r.value(), &groups))
            Q_EMIT groupsAvailable(key, groups);
    });
    if (m_group.isEmpty())
        return;
    loadGroupFacts();
    loadPendingPage(m_pageStarts.isEmpty() ? QByteArray("-") : m_pageStarts.last());
    loadSample();
}

void StreamsReader::loadGroupFacts()
{
    const quint64 gen = m_streamGen;
    send({{"XINFO", "CONSUMERS", m_key, m_group}, {"XPENDING", m_key, m_group}}, [this, gen](const RedisReply &r) {
        if (gen != m_streamGen)
            return;
        if (const RedisError e = r.firstError()) {
            Q_EMIT failed(tr("Consumers of %1: %2").arg(bytesescape::quoteIfNeeded(m_group), e.message));
            return;
        }
        QList<StreamConsumerInfo> consumers;
        if (!streaminfo::parseConsumers(r.value(0), &consumers))
            consumers.clear();
        Q_EMIT consumersAvailable(consumers);
        PendingSummary s;
        if (streaminfo::parsePendingSummary(r.value(1), &s)) {
            m_summary = s;
            Q_EMIT summaryAvailable(s);
        }
    });
}

void StreamsReader::loadSample()
{
    const quint64 gen = m_streamGen;
    send({{"XPENDING", m_key, m_group, "-", "+", QByteArray::number(kSampleLimit)}}, [this, gen](const RedisReply &r) {
        if (gen != m_streamGen)
            return;
        QList<PendingEntry> rows;
        if (!r.firstError() && streaminfo::parsePending(r.value(), &rows)) {
            m_sample = rows;
            Q_EMIT pendingSampleAvailable(m_sample);
        }
    });
}

RedisCommand StreamsReader::pendingCommand(const QByteArray &key, const QByteArray &group, const PendingFilter &filter,
                                           const QByteArray &start, int count, const QVersionNumber &version)
{
    RedisCommand cmd{"XPENDING", key, group};
    if (filter.minIdleMs > 0 && serverIdle(version))
        cmd << "IDLE" << QByteArray::number(filter.minIdleMs);
    cmd << start << "+" << QByteArray::number(count);
    if (!filter.consumer.isEmpty())
        cmd << filter.consumer;
    return cmd;
}

QByteArray StreamsReader::exclusiveAfter(const QByteArray &lastId, const QVersionNumber &version)
{
    if (serverIdle(version))
        return '(' + lastId;
    return streamid::next(lastId);
}

QByteArray StreamsReader::exclusiveBefore(const QByteArray &id, const QVersionNumber &version)
{
    if (serverIdle(version))
        return '(' + id;
    return streamid::previous(id);
}

QList<PendingEntry> StreamsReader::applyLocalFilter(const QList<PendingEntry> &rows, const PendingFilter &filter,
                                                    const QVersionNumber &version)
{
    const bool idleHere = filter.minIdleMs > 0 && !serverIdle(version);
    if (!idleHere && filter.minDeliveries <= 0)
        return rows;
    QList<PendingEntry> out;
    for (const PendingEntry &e : rows) {
        if (idleHere && e.idleMs < filter.minIdleMs)
            continue;
        if (e.deliveries < filter.minDeliveries)
            continue;
        out.append(e);
    }
    return out;
}

void StreamsReader::setPendingFilter(const PendingFilter &filter)
{
    m_filter = filter;
    if (!m_group.isEmpty())
        firstPendingPage();
}

void StreamsReader::setPageSize(int rows)
{
    m_pageSize = qBound(1, rows, 10000);
}

void StreamsReader::firstPendingPage()
{
    m_pageStarts.clear();
    loadPendingPage("-");
}

void StreamsReader::nextPendingPage()
{
    if (!m_hasNext || m_pageLastId.isEmpty())
        return;
    const QByteArray start = exclusiveAfter(m_pageLastId, serverVersion());
    if (start.isEmpty())
        return;
    loadPendingPage(start);
}

void StreamsReader::previousPendingPage()
{
    if (m_pageStarts.size() < 2)
        return;
    m_pageStarts.removeLast();
    const QByteArray start = m_pageStarts.takeLast();
    loadPendingPage(start);
}

void StreamsReader::loadPendingPage(const QByteArray &start)
{
    if (m_key.isEmpty() || m_group.isEmpty())
        return;
    const quint64 gen = m_streamGen;
    const quint64 request = ++m_pageRequest;
    const QVersionNumber version = serverVersion();
    const PendingFilter filter = m_filter;
    send({pendingCommand(m_key, m_group, filter, start, m_pageSize, version)},
         [this, gen, request, start, version, filter](const RedisReply &r) {
             if (gen != m_streamGen || request != m_pageRequest)
                 return;
             QList<PendingEntry> raw;
             if (const RedisError e = r.firstError()) {
                 Q_EMIT failed(tr("Pending entries: %1").arg(e.message));
                 return;
             }
             if (!streaminfo::parsePending(r.value(), &raw)) {
                 Q_EMIT failed(tr("Pending entries: unexpected XPENDING reply"));
                 return;
             }
             if (m_pageStarts.isEmpty() || m_pageStarts.last() != start)
                 m_pageStarts.append(start);
             m_pageLastId = raw.isEmpty() ? QByteArray() : raw.last().id;
             m_hasNext = raw.size() >= m_pageSize;
             const QList<PendingEntry> rows = applyLocalFilter(raw, filter, version);
             Q_EMIT pendingPageAvailable(rows);
             if (!rows.isEmpty())
                 readDeleted(rows, gen, request);
         });
}

void StreamsReader::readDeleted(const QList<PendingEntry> &rows, quint64 gen, quint64 request)
{
    // Which of them are gone from the stream: one bounded XRANGE per row of the page.
    QList<RedisCommand> cmds;
    for (const PendingEntry &e : rows)
        cmds.append({"XRANGE", m_key, e.id, e.id});
    send(cmds, [this, gen, request, rows](const RedisReply &x) {
        if (gen != m_streamGen || request != m_pageRequest || !x.ok())
            return;
        QSet<QByteArray> deleted;
        for (int i = 0; i < rows.size(); ++i) {
            const RedisValue &v = x.value(i);
            if (v.isArray() && v.size() == 0)
                deleted.insert(rows.at(i).id);
        }
        Q_EMIT deletedPendingAvailable(deleted);
    });
}

void StreamsReader::loadEntry(const QByteArray &id)
{
    const quint64 request = ++m_entryRequest;
    const quint64 gen = m_streamGen;
    send({{"XRANGE", m_key, id, id}}, [this, request, gen, id](const RedisReply &r) {
        if (request != m_entryRequest || gen != m_streamGen)
            return;
        QList<StreamEntry> entries;
        if (const RedisError e = r.firstError()) {
            Q_EMIT failed(tr("Entry %1: %2").arg(QString::fromLatin1(id), e.message));
            return;
        }
        streaminfo::parseEntries(r.value(), &entries);
        Q_EMIT entryLoaded(id, entries.isEmpty() ? StreamEntry{} : entries.first());
    });
}

void StreamsReader::browseEntries(const QByteArray &from, int count)
{
    const quint64 request = ++m_browseRequest;
    const quint64 gen = m_streamGen;
    send({{"XREVRANGE", m_key, from, "-", "COUNT", QByteArray::number(qMax(1, count))}},
         [this, request, gen](const RedisReply &r) {
             if (request != m_browseRequest || gen != m_streamGen)
                 return;
             QList<StreamEntry> entries;
             if (const RedisError e = r.firstError()) {
                 Q_EMIT failed(tr("Entries: %1").arg(e.message));
                 return;
             }
             streaminfo::parseEntries(r.value(), &entries);
             m_entriesLastId = entries.isEmpty() ? QByteArray() : entries.last().id;
             Q_EMIT entriesAvailable(entries);
         });
}

void StreamsReader::browseFromTime(qint64 msSinceEpoch, int count)
{
    // XREVRANGE's end "ms" means "ms-<max seq>": every entry of that millisecond and before.
    browseEntries(QByteArray::number(qMax<qint64>(0, msSinceEpoch)), count);
}

void StreamsReader::nextEntries(int count)
{
    if (m_entriesLastId.isEmpty())
        return;
    const QByteArray from = exclusiveBefore(m_entriesLastId, serverVersion());
    if (!from.isEmpty())
        browseEntries(from, count);
}

void StreamsReader::findOldestPending()
{
    QList<RedisCommand> cmds;
    QList<QByteArray> keys;
    for (const StreamRow &r : std::as_const(m_rows)) {
        if (r.loaded && r.info.groups > 0) {
            cmds.append({"XINFO", "GROUPS", r.key});
            keys.append(r.key);
        }
    }
    if (cmds.isEmpty())
        return;
    send(cmds, [this, keys](const RedisReply &r) {
        if (!r.ok())
            return;
        QList<RedisCommand> summaries;
        QList<QPair<QByteArray, QByteArray>> pairs;
        for (int i = 0; i < keys.size(); ++i) {
            QList<StreamGroupInfo> groups;
            if (!streaminfo::parseGroups(r.value(i), &groups))
                continue;
            for (const StreamGroupInfo &g : groups) {
                if (g.pending > 0) {
                    summaries.append({"XPENDING", keys.at(i), g.name, "-", "+", "1"});
                    pairs.append({keys.at(i), g.name});
                }
            }
        }
        if (summaries.isEmpty())
            return;
        send(summaries, [this, pairs](const RedisReply &s) {
            if (!s.ok())
                return;
            int best = -1;
            QByteArray bestId;
            for (int i = 0; i < pairs.size(); ++i) {
                QList<PendingEntry> first;
                if (!streaminfo::parsePending(s.value(i), &first) || first.isEmpty())
                    continue;
                // By id, i.e. the time the entry was added: the entry waiting longest overall,
                // whatever claims reset its idle time since.
                if (best < 0 || streamid::less(first.first().id, bestId)) {
                    bestId = first.first().id;
                    best = i;
                }
            }
            if (best >= 0)
                Q_EMIT oldestPendingFound(pairs.at(best).first, pairs.at(best).second);
        });
    });
}
