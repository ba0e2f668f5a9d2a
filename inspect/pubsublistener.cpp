// SPDX-License-Identifier: GPL-3.0-or-later
#include "pubsublistener.h"

#include "redisclient.h"

#include <QDateTime>
#include <QRegularExpression>
#include <QVersionNumber>

namespace {
// What waits between the thread and the window is a fraction of the tail's bound: the window
// takes it all at once, so at most the tail and one batch are held together.
constexpr int kQueueShare = 8;
constexpr qint64 kMinQueueBytes = qint64(1) << 20;
} // namespace

PubSubListener::PubSubListener(RedisClient *source, QObject *parent) : QObject(parent), m_source(source)
{ }

PubSubListener::~PubSubListener() = default;

PubSubListener::Targets PubSubListener::parse(const QString &text, bool shard)
{
    Targets t;
    static const QRegularExpression space(QStringLiteral("\\s+"));
    const QStringList words = text.split(space, Qt::SkipEmptyParts);
    for (const QString &w : words) {
        const QByteArray name = w.toUtf8();
        const bool pattern = name.contains('*') || name.contains('?') || name.contains('[');
        QByteArrayList &list = pattern ? t.patterns : shard ? t.shardChannels : t.channels;
        if (!list.contains(name))
            list.append(name);
    }
    return t;
}

void PubSubListener::setBound(int count, qint64 bytes)
{
    m_boundCount = count;
    m_boundBytes = bytes;
    if (m_client)
        m_client->setMessageBound(qMax(1, count / kQueueShare), qMax(kMinQueueBytes, bytes / kQueueShare));
}

void PubSubListener::listen(const Targets &targets)
{
    stop();
    m_targets = targets;
    m_problem.clear();
    m_interruptions = 0;
    m_wasReady = false;
    if (targets.isEmpty() || !m_source)
        return;
    // Its own connection, named apart from the window's; on a cluster the seed node alone, which
    // receives every node's plain messages (Redis propagates PUBLISH across the cluster bus).
    ConnectionProfile profile = m_source->profile();
    m_clusterSource = profile.cluster;
    profile.clientName += QStringLiteral("-tail");
    profile.cluster = false;
    m_client = new RedisClient(profile, this);
    setBound(m_boundCount, m_boundBytes);
    connect(m_client, &RedisClient::ready, this, &PubSubListener::subscribe);
    connect(m_client, &RedisClient::messagesReceived, this, &PubSubListener::onMessages);
    connect(m_client, &RedisClient::stateChanged, this, [this](RedisClient::State state, const QString &detail) {
        // Lost once it was listening: retries while the server stays away are the same loss.
        if (state == RedisClient::State::Ready)
            m_wasReady = true;
        if (state != RedisClient::State::Backoff)
            return;
        if (m_wasReady)
            ++m_interruptions;
        m_wasReady = false;
        Q_EMIT stateChanged(tr("Reconnecting: %1").arg(detail), true);
    });
    m_client->connectToServer();
}

void PubSubListener::stop()
{
    if (!m_client)
        return;
    // The subscriptions end with the connection.
    m_client->disconnect(this);
    m_client->deleteLater();
    m_client = nullptr;
}

void PubSubListener::subscribe()
{
    QList<RedisCommand> commands;
    if (!m_targets.channels.isEmpty())
        commands.append(RedisCommand(QByteArrayList{"SUBSCRIBE"} + m_targets.channels));
    if (!m_targets.patterns.isEmpty())
        commands.append(RedisCommand(QByteArrayList{"PSUBSCRIBE"} + m_targets.patterns));
    if (!m_targets.shardChannels.isEmpty()) {
        if (m_clusterSource)
            m_problem = tr("Shard channels on a cluster live on the node of their slot: not tailed here yet");
        else if (m_client->facts().version < QVersionNumber(7))
            m_problem = tr("Shard channels need Redis 7.0 or later (SSUBSCRIBE)");
        else
            commands.append(RedisCommand(QByteArrayList{"SSUBSCRIBE"} + m_targets.shardChannels));
    }
    if (commands.isEmpty()) {
        Q_EMIT stateChanged(m_problem, true);
        return;
    }
    m_client->sendBatch(commands, this, [this](const RedisReply &reply) {
        if (!reply.ok()) {
            Q_EMIT stateChanged(tr("Not subscribed: %1").arg(reply.error.message), true);
            return;
        }
        for (const RedisValue &v : reply.values) {
            if (v.isError()) {
                // A shard channel whose slot is elsewhere (MOVED) or an ACL channel rule.
                Q_EMIT stateChanged(tr("Not subscribed: %1").arg(QString::fromUtf8(v.bytes())), true);
                return;
            }
        }
        const auto count
            = [](qsizetype n, const QString &one, const QString &many) { return n == 1 ? one : many.arg(n); };
        QStringList parts;
        if (!m_targets.channels.isEmpty())
            parts.append(count(m_targets.channels.size(), tr("1 channel"), tr("%1 channels")));
        if (!m_targets.patterns.isEmpty())
            parts.append(count(m_targets.patterns.size(), tr("1 pattern"), tr("%1 patterns")));
        if (!m_targets.shardChannels.isEmpty() && m_problem.isEmpty())
            parts.append(count(m_targets.shardChannels.size(), tr("1 shard channel"), tr("%1 shard channels")));
        QString text = tr("Subscribed to %1").arg(parts.join(tr(", ")));
        if (!m_problem.isEmpty())
            text += QStringLiteral("; ") + m_problem;
        Q_EMIT stateChanged(text, !m_problem.isEmpty());
    });
}

void PubSubListener::onMessages(const QList<RedisValue> &messages, qint64 dropped)
{
    QList<pubsub::TailMessage> out;
    out.reserve(messages.size());
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const auto intern = [this](QByteArray &name) {
        if (name.isEmpty())
            return;
        const auto it = m_names.constFind(name);
        if (it != m_names.constEnd()) {
            name = *it;
            return;
        }
        if (m_names.size() >= pubsub::TailBuffer::kMaxTrackedChannels) // keyspace events: a name per key
            return;
        m_names.insert(name, name);
    };
    for (const RedisValue &v : messages) {
        if (auto m = pubsub::tailMessage(v)) {
            m->receivedMs = now;
            intern(m->channel);
            intern(m->pattern);
            out.append(std::move(*m));
        }
    }
    Q_EMIT messagesArrived(out, dropped);
}
