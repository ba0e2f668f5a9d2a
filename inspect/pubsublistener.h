// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "connectionprofile.h"
#include "pubsubtail.h"

#include <QByteArrayList>
#include <QHash>
#include <QObject>
#include <QPointer>

class RedisClient;
class RedisValue;

// A dedicated subscribed connection for the live tail: SUBSCRIBE to channels, PSUBSCRIBE to
// patterns (a name with *, ? or [ is a pattern), SSUBSCRIBE to shard channels (7.0+). It
// subscribes again after every reconnect, and hands the messages over in batches. What waits
// for the window is bounded like the tail (RedisClient::setMessageBound), so a publisher far
// faster than the window neither grows this process nor makes this connection a slow
// subscriber on the server: the worker reads everything and drops the oldest.
class PubSubListener : public QObject
{
    Q_OBJECT
public:
    // Listens with the profile 'source' has when listen() is called (a password typed since counts).
    explicit PubSubListener(RedisClient *source, QObject *parent = nullptr);
    ~PubSubListener() override;

    struct Targets
    {
        QByteArrayList channels;
        QByteArrayList patterns;
        QByteArrayList shardChannels;
        bool isEmpty() const { return channels.isEmpty() && patterns.isEmpty() && shardChannels.isEmpty(); }
    };
    // "orders audit.* __keyspace@0__:user:*": split on white space; a word with a glob character
    // is a pattern. With 'shard', the plain names are shard channels.
    static Targets parse(const QString &text, bool shard);

    // Connects and subscribes; replaces what was listened to before.
    void listen(const Targets &targets);
    void stop();
    bool isListening() const { return m_client != nullptr; }
    const Targets &targets() const { return m_targets; }
    // The bound of what waits between the connection's thread and the window.
    void setBound(int count, qint64 bytes);

    // Why a target cannot be listened to on this connection (shard channels on a server before
    // 7.0, or on a cluster, where they live on the node of their slot), or empty.
    QString problem() const { return m_problem; }
    // How often the connection was lost while listening (a server cutting a subscriber that fell
    // behind, a restart): what was published meanwhile was not received.
    int interruptions() const { return m_interruptions; }

Q_SIGNALS:
    void messagesArrived(const QList<pubsub::TailMessage> &messages, qint64 dropped);
    // "subscribed to 3 channels and 1 pattern", "reconnecting: …", a refusal.
    void stateChanged(const QString &text, bool error);

private:
    void subscribe();
    void onMessages(const QList<RedisValue> &messages, qint64 dropped);

    QPointer<RedisClient> m_source;
    RedisClient *m_client = nullptr;
    Targets m_targets;
    QString m_problem;
    int m_interruptions = 0;
    bool m_wasReady = false; // connected since the last loss
    bool m_clusterSource = false;
    // Channel and pattern names, one copy each however many messages carry them.
    QHash<QByteArray, QByteArray> m_names;
    int m_boundCount = pubsub::TailBuffer::kDefaultCount;
    qint64 m_boundBytes = pubsub::TailBuffer::kDefaultBytes;
};
