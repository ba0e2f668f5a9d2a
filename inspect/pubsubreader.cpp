// SPDX-License-Identifier: GPL-3.0-or-later
#include "pubsubreader.h"

#include "redisclient.h"
#include "slowlog.h"

#include <QHash>
#include <QVersionNumber>
#include <algorithm>

PubSubReader::PubSubReader(RedisClient *client, QObject *parent) : QObject(parent), m_client(client)
{ }

PubSubReader::~PubSubReader()
{
    if (m_request && m_client)
        m_client->cancel(m_request);
}

void PubSubReader::read()
{
    if (m_request || !m_client || !m_client->isReady())
        return;
    const QVersionNumber version = m_client->facts().version;
    // Shard channels came with Redis 7.0; an unknown version is asked and may refuse.
    const bool shards = version.isNull() || version >= QVersionNumber(7);
    QList<RedisCommand> commands{{"PUBSUB", "CHANNELS"},
                                 {"PUBSUB", "NUMPAT"},
                                 {"CLIENT", "LIST", "TYPE", "pubsub"},
                                 {"CONFIG", "GET", "client-output-buffer-limit"},
                                 {"CONFIG", "GET", "notify-keyspace-events"}};
    if (shards)
        commands.append(RedisCommand{"PUBSUB", "SHARDCHANNELS"});
    m_request = m_client->sendBatch(commands, this, [this, shards](const RedisReply &r) { onLists(r, shards); });
}

void PubSubReader::onLists(const RedisReply &reply, bool shards)
{
    m_request = 0;
    if (!reply.ok()) {
        Q_EMIT failed(reply.error.message);
        return;
    }
    const RedisError channelsError = RedisError::fromReply(reply.value(0));
    if (channelsError) {
        Q_EMIT failed(QStringLiteral("PUBSUB CHANNELS: %1").arg(channelsError.message));
        return;
    }
    pubsub::Snapshot s;
    QList<QByteArray> plain, shard;
    for (const RedisValue &v : reply.value(0).elements())
        plain.append(v.bytes());
    if (!RedisError::fromReply(reply.value(1)))
        s.patterns = reply.value(1).toInteger();
    const RedisError clientsError = RedisError::fromReply(reply.value(2));
    if (clientsError)
        s.clientsError = QStringLiteral("CLIENT LIST: %1").arg(clientsError.message);
    else
        s.subscribers = parseClientList(reply.value(2).bytes());
    const RedisError configError = RedisError::fromReply(reply.value(3));
    if (configError && s.clientsError.isEmpty())
        s.clientsError = QStringLiteral("CONFIG GET client-output-buffer-limit: %1").arg(configError.message);
    else if (!configError)
        s.limit = pubsub::pubsubLimit(slowlog::parseConfigGet(reply.value(3)).value("client-output-buffer-limit"));
    if (const RedisError e = RedisError::fromReply(reply.value(4)); e) {
        s.keyspaceEventsError = QStringLiteral("CONFIG GET notify-keyspace-events: %1").arg(e.message);
    } else {
        const QHash<QByteArray, QByteArray> config = slowlog::parseConfigGet(reply.value(4));
        s.keyspaceEventsKnown = config.contains("notify-keyspace-events");
        s.keyspaceEvents = config.value("notify-keyspace-events");
    }
    if (!shards) {
        s.shardNote = QStringLiteral("shard channels came with Redis 7.0");
    } else if (const RedisError e = RedisError::fromReply(reply.value(5)); e) {
        s.shardNote = QStringLiteral("PUBSUB SHARDCHANNELS: %1").arg(e.message);
    } else {
        for (const RedisValue &v : reply.value(5).elements())
            shard.append(v.bytes());
    }
    std::sort(plain.begin(), plain.end());
    std::sort(shard.begin(), shard.end());
    s.slow = pubsub::slowSubscribers(s.subscribers, s.limit);
    // Counted: the first channels of each kind, by name, up to kMaxChannels together.
    const int countedPlain = int(qMin<qsizetype>(plain.size(), kMaxChannels));
    const int countedShard = int(qMin<qsizetype>(shard.size(), kMaxChannels - countedPlain));
    s.channelsTruncated = countedPlain < plain.size() || countedShard < shard.size();
    for (const QByteArray &name : std::as_const(plain))
        s.channels.append({name, -1, false});
    for (const QByteArray &name : std::as_const(shard))
        s.channels.append({name, -1, true});
    QList<RedisCommand> counts;
    if (countedPlain > 0) {
        RedisCommand numsub{"PUBSUB", "NUMSUB"};
        for (int i = 0; i < countedPlain; ++i)
            numsub.append(plain.at(i));
        counts.append(numsub);
    }
    if (countedShard > 0) {
        RedisCommand numsub{"PUBSUB", "SHARDNUMSUB"};
        for (int i = 0; i < countedShard; ++i)
            numsub.append(shard.at(i));
        counts.append(numsub);
    }
    if (counts.isEmpty() || !m_client) {
        Q_EMIT snapshotAvailable(s);
        return;
    }
    m_request = m_client->sendBatch(counts, this, [this, s, countedPlain, countedShard](const RedisReply &r) {
        onCounts(r, s, countedPlain, countedShard);
    });
}

void PubSubReader::onCounts(const RedisReply &reply, pubsub::Snapshot snapshot, int plain, int shard)
{
    m_request = 0;
    if (!reply.ok()) {
        Q_EMIT failed(reply.error.message);
        return;
    }
    // NUMSUB answers name, count, name, count… in the order asked.
    qsizetype at = 0;
    QHash<QByteArray, qsizetype> plainAt, shardAt;
    for (qsizetype i = 0; i < snapshot.channels.size(); ++i)
        (snapshot.channels.at(i).shard ? shardAt : plainAt).insert(snapshot.channels.at(i).name, i);
    const auto take = [&snapshot](const RedisValue &v, const QHash<QByteArray, qsizetype> &where) {
        const QList<RedisValue> &e = v.elements();
        for (qsizetype i = 0; i + 1 < e.size(); i += 2)
            if (const auto it = where.constFind(e.at(i).bytes()); it != where.constEnd())
                snapshot.channels[*it].subscribers = e.at(i + 1).toInteger();
    };
    if (plain > 0)
        take(reply.value(at++), plainAt);
    if (shard > 0)
        take(reply.value(at), shardAt);
    Q_EMIT snapshotAvailable(snapshot);
}
