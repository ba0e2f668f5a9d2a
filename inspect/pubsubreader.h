// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pubsub.h"
#include "rediscommand.h"

#include <QObject>
#include <QPointer>

class RedisClient;

// Reads a server's pub/sub once per read(): PUBSUB CHANNELS, NUMPAT and (7.0+) SHARDCHANNELS,
// the subscribers' connections (CLIENT LIST TYPE pubsub) with client-output-buffer-limit, then
// the subscriber counts of the first kMaxChannels channels (NUMSUB, SHARDNUMSUB) in one more
// round trip. Reads only; one read on the wire at a time.
class PubSubReader : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMaxChannels = 2000;

    explicit PubSubReader(RedisClient *client, QObject *parent = nullptr);
    ~PubSubReader() override;

    void read();
    bool isBusy() const { return m_request != 0; }

Q_SIGNALS:
    void snapshotAvailable(const pubsub::Snapshot &snapshot);
    void failed(const QString &message);

private:
    void onLists(const RedisReply &reply, bool shards);
    void onCounts(const RedisReply &reply, pubsub::Snapshot snapshot, int plain, int shard);

    QPointer<RedisClient> m_client;
    RequestId m_request = 0;
};
