// SPDX-License-Identifier: GPL-3.0-or-later
#include "keyspacefollower.h"

#include "format.h"
#include "glob.h"
#include "redisclient.h"

#include <QDateTime>
#include <QTimer>

using namespace keyspaceevents;

namespace {

// Keys collected before a batch goes out early: one interval of a very busy server costs no more.
constexpr qsizetype kMaxPendingKeys = 50000;
// Keys read per pipeline (TYPE and PTTL each), and waiting at most: a server that changes more
// keys than this between two reads is followed as far as it can be, and the rest is said.
constexpr qsizetype kReadBatch = 500;
constexpr qsizetype kMaxWaiting = 20000;

QByteArray configValue(const RedisValue &reply, bool *ok)
{
    // CONFIG GET answers [name, value] (a map in RESP3); an empty array for a name it does not know.
    *ok = reply.isArray() && reply.size() == 2;
    return *ok ? reply.at(1).bytes() : QByteArray();
}

} // namespace

KeyspaceFollower::KeyspaceFollower(const ConnectionProfile &profile, int db, QObject *parent)
    : QObject(parent), m_profile(profile), m_db(db), m_pattern("*")
{
    m_profile.clientName = profile.clientName + QStringLiteral("-events");
    if (profile.cluster)
        m_unsupported = tr("Following key events is not supported on a Redis Cluster yet: each node publishes the "
                           "events of its own keys only");
    m_flushTimer = new QTimer(this);
    m_flushTimer->setSingleShot(true);
    m_flushTimer->setInterval(200);
    connect(m_flushTimer, &QTimer::timeout, this, &KeyspaceFollower::flush);
}

KeyspaceFollower::~KeyspaceFollower() = default;

void KeyspaceFollower::setPattern(const QByteArray &keyGlob)
{
    const QByteArray pattern = keyGlob.isEmpty() ? QByteArray("*") : keyGlob;
    if (pattern == m_pattern)
        return;
    m_pattern = pattern;
    if (m_subscribed || m_subscribing)
        subscribe();
}

void KeyspaceFollower::setInterval(int ms)
{
    m_flushTimer->setInterval(qMax(1, ms));
}

void KeyspaceFollower::setMessageBound(int count, qint64 bytes)
{
    m_boundCount = count;
    m_boundBytes = bytes;
    if (m_client)
        m_client->setMessageBound(count, bytes);
}

void KeyspaceFollower::setSettingsClient(RedisClient *client)
{
    if (m_settingsClient)
        disconnect(m_settingsClient, &QObject::destroyed, this, nullptr);
    m_settingsClient = client;
    if (client)
        connect(client, &QObject::destroyed, this, [this] { m_settingsClient = nullptr; });
}

QList<QByteArray> KeyspaceFollower::channelPatterns() const
{
    // Keyspace channels carry the key in the channel name, so the server filters them by the
    // pattern; keyevent channels carry it in the message, so those are filtered here.
    const bool known = m_setting.has_value();
    const bool keyspace = !known || m_setting->has(Keyspace) || !m_setting->has(Keyevent);
    const bool keyevent = !known || (!m_setting->has(Keyspace) && m_setting->has(Keyevent));
    QList<QByteArray> patterns;
    if (keyspace)
        patterns.append(keyspacePattern(m_db, m_pattern));
    if (keyevent)
        patterns.append(keyeventPattern(m_db));
    return patterns;
}

void KeyspaceFollower::checkSetting()
{
    if (!m_unsupported.isEmpty()) {
        Q_EMIT settingUnknown(m_unsupported);
        return;
    }
    RedisClient *on = m_settingsClient;
    if (!on || on->state() == RedisClient::State::Disconnected) {
        if (m_subscribed) {
            // A subscribed connection takes no CONFIG GET: what was read when it subscribed stands.
            if (m_setting)
                Q_EMIT settingRead(*m_setting);
            return;
        }
        if (!m_client) {
            // Only to read the setting: the connection is closed again unless following starts.
            m_client = new RedisClient(m_profile, this);
            m_client->setMessageBound(m_boundCount, m_boundBytes);
            m_client->connectToServer();
        }
        on = m_client;
    }
    on->send({"CONFIG", "GET", "notify-keyspace-events"}, this, [this, on](const RedisReply &reply) {
        if (!reply.ok() || reply.value().isError()) {
            Q_EMIT settingUnknown(reply.firstError().message);
        } else {
            readSetting(reply.value());
        }
        if (!m_started && on == m_client) {
            m_client->deleteLater();
            m_client = nullptr;
        } else if (m_started && on == m_client) {
            subscribe();
        }
    });
}

void KeyspaceFollower::readSetting(const RedisValue &reply)
{
    bool ok = false;
    const QByteArray value = configValue(reply, &ok);
    if (!ok) {
        Q_EMIT settingUnknown(tr("the server has no notify-keyspace-events setting"));
        return;
    }
    const QList<QByteArray> before = channelPatterns();
    m_setting = explain(value);
    Q_EMIT settingRead(*m_setting);
    if ((m_subscribed || m_subscribing) && channelPatterns() != before)
        subscribe();
}

void KeyspaceFollower::start()
{
    if (m_started)
        return;
    if (!m_unsupported.isEmpty()) {
        Q_EMIT followingChanged(false, m_unsupported);
        return;
    }
    m_started = true;
    if (!m_client) {
        m_client = new RedisClient(m_profile, this);
        m_client->setMessageBound(m_boundCount, m_boundBytes);
    }
    connect(m_client, &RedisClient::ready, this, &KeyspaceFollower::onReady);
    connect(m_client, &RedisClient::messagesReceived, this, &KeyspaceFollower::onMessages);
    connect(m_client, &RedisClient::stateChanged, this, [this](RedisClient::State state, const QString &detail) {
        if (state == RedisClient::State::Ready || !m_subscribed)
            return;
        // A subscription ends with its connection; it is made again on ready().
        m_subscribed = false;
        m_wasSubscribed = true;
        m_subscribedPatterns.clear();
        Q_EMIT followingChanged(false, detail);
    });
    if (m_client->isReady())
        onReady();
    else if (m_client->state() == RedisClient::State::Disconnected)
        m_client->connectToServer();
    // else: connecting for checkSetting(); its reply or ready() goes on from here
}

void KeyspaceFollower::stop()
{
    if (!m_started)
        return;
    m_started = false;
    m_subscribed = false;
    m_subscribing = false;
    m_subscribeAgain = false;
    m_wasSubscribed = false;
    m_subscribedPatterns.clear();
    m_flushTimer->stop();
    m_pending.take();
    m_dropped = 0;
    cancelReads();
    if (m_client) {
        m_client->disconnect(this);
        m_client->deleteLater(); // its worker thread ends with it
        m_client = nullptr;
    }
    Q_EMIT followingChanged(false, tr("stopped"));
}

void KeyspaceFollower::onReady()
{
    if (!m_started)
        return;
    // The setting is read on every (re)connection: it may have changed while the connection was
    // away. Without another connection for it, it is read here before the subscription.
    if (m_settingsClient && m_settingsClient->state() != RedisClient::State::Disconnected) {
        checkSetting();
        subscribe();
    } else {
        checkSetting(); // subscribes when the setting is read
    }
}

void KeyspaceFollower::subscribe()
{
    if (!m_started || !m_client || !m_client->isReady())
        return;
    // One change on the wire at a time: what is subscribed is known only when it answers, and
    // a pattern changed meanwhile is reconciled then.
    if (m_subscribing) {
        m_subscribeAgain = true;
        return;
    }
    const QList<QByteArray> wanted = channelPatterns();
    QList<QByteArray> gone;
    QList<QByteArray> added;
    for (const QByteArray &p : std::as_const(m_subscribedPatterns)) {
        if (!wanted.contains(p))
            gone.append(p);
    }
    for (const QByteArray &p : wanted) {
        if (!m_subscribedPatterns.contains(p))
            added.append(p);
    }
    if (gone.isEmpty() && added.isEmpty())
        return;
    QList<RedisCommand> commands;
    if (!gone.isEmpty())
        commands.append(RedisCommand{"PUNSUBSCRIBE"} + gone);
    if (!added.isEmpty())
        commands.append(RedisCommand{"PSUBSCRIBE"} + added);
    m_subscribing = true;
    m_subscribeAgain = false;
    m_client->sendBatch(commands, this, [this, wanted](const RedisReply &reply) {
        m_subscribing = false;
        if (!m_started)
            return;
        if (!reply.ok() || reply.firstError().isError()) {
            Q_EMIT followingChanged(false, reply.firstError().message);
            return;
        }
        m_subscribedPatterns = wanted;
        m_subscribed = true;
        Q_EMIT followingChanged(true, QString::fromUtf8(wanted.join(' ')));
        if (m_wasSubscribed) {
            m_wasSubscribed = false;
            Q_EMIT eventsMissed(tr("the connection to the server was lost for a while"));
        }
        if (m_subscribeAgain)
            subscribe(); // the pattern or the setting changed while this was on the wire
    });
}

void KeyspaceFollower::onMessages(const QList<RedisValue> &messages, qint64 dropped)
{
    if (!m_started)
        return;
    m_dropped += dropped;
    const bool everyKey = m_pattern == "*";
    for (const RedisValue &m : messages) {
        const std::optional<KeyEvent> e = parseMessage(m);
        if (!e || e->db != m_db)
            continue;
        if (!everyKey && !globMatch(m_pattern, e->key))
            continue; // a keyevent channel's message for a key outside the pattern
        m_pending.add(*e);
    }
    if (m_pending.size() >= kMaxPendingKeys)
        flush();
    else if ((m_pending.size() > 0 || m_dropped > 0) && !m_flushTimer->isActive())
        m_flushTimer->start();
}

void KeyspaceFollower::flush()
{
    m_flushTimer->stop();
    if (m_dropped > 0) {
        const qint64 dropped = m_dropped;
        m_dropped = 0;
        Q_EMIT eventsMissed(tr("%1 key events arrived faster than they could be shown and were dropped")
                                .arg(format::count(quint64(dropped))));
    }
    const ChangeBatch batch = m_pending.take();
    if (!batch.isEmpty())
        Q_EMIT changesAvailable(batch);
}

void KeyspaceFollower::readKeys(const QList<QByteArray> &keys)
{
    qsizetype left = 0;
    for (const QByteArray &key : keys) {
        m_forgotten.remove(key); // back again: this reading, or the next, says how
        if (m_toReadSet.contains(key))
            continue;
        if (m_toReadSet.size() >= kMaxWaiting) {
            ++left;
            continue;
        }
        m_toRead.append(key);
        m_toReadSet.insert(key);
    }
    if (left > 0)
        Q_EMIT eventsMissed(tr("%1 keys changed faster than they could be read").arg(format::count(quint64(left))));
    readNext();
}

void KeyspaceFollower::forgetKey(const QByteArray &key)
{
    m_toReadSet.remove(key); // its entry in m_toRead is passed over
    if (m_reading.contains(key))
        m_forgotten.insert(key);
}

void KeyspaceFollower::cancelReads()
{
    if (m_readId != 0 && m_settingsClient)
        m_settingsClient->cancel(m_readId);
    m_readId = 0;
    m_toRead.clear();
    m_toReadSet.clear();
    m_reading.clear();
    m_forgotten.clear();
}

void KeyspaceFollower::readNext()
{
    if (m_readId != 0 || m_toRead.isEmpty())
        return;
    if (!m_settingsClient) {
        m_toRead.clear();
        m_toReadSet.clear();
        Q_EMIT eventsMissed(tr("no connection to read the changed keys on"));
        return;
    }
    QList<QByteArray> keys;
    QList<RedisCommand> commands;
    qsizetype taken = 0;
    for (; taken < m_toRead.size() && keys.size() < kReadBatch; ++taken) {
        const QByteArray &key = m_toRead.at(taken);
        if (!m_toReadSet.remove(key))
            continue; // forgotten since, or listed twice
        m_reading.insert(key);
        commands.append({"TYPE", key});
        commands.append({"PTTL", key});
        keys.append(key);
    }
    m_toRead.remove(0, taken);
    if (keys.isEmpty())
        return;
    m_readId = m_settingsClient->sendBatch(commands, this, [this, keys](const RedisReply &reply) {
        m_readId = 0;
        if (reply.ok()) {
            ScanBatch batch;
            batch.capturedAtMs = QDateTime::currentMSecsSinceEpoch();
            for (qsizetype i = 0; i < keys.size() && 2 * i + 1 < reply.values.size(); ++i) {
                if (m_forgotten.contains(keys.at(i)))
                    continue;
                const RedisValue &type = reply.values.at(2 * i);
                ScannedKey k;
                k.name = keys.at(i);
                k.type = type.isString() ? keyTypeFromReply(type.bytes()) : KeyType::Unknown;
                k.pttlMs = ttl::fromReply(reply.values.at(2 * i + 1));
                batch.keys.append(std::move(k));
            }
            if (!batch.keys.isEmpty())
                Q_EMIT keysRead(batch);
        } else {
            Q_EMIT eventsMissed(tr("the changed keys could not be read: %1").arg(reply.error.message));
        }
        m_reading.clear();
        m_forgotten.clear();
        readNext();
    });
}
