// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "connectionprofile.h"
#include "keyspaceevents.h"
#include "scanbatch.h"

#include <QObject>
#include <QSet>
#include <optional>

class RedisClient;
class QTimer;

// Follows one database's keyspace notifications on a connection of its own: it reads the
// server's notify-keyspace-events (never sets it), PSUBSCRIBEs __keyspace@<db>__:<pattern>
// (or, when the server publishes on the keyevent channels only, __keyevent@<db>__:* filtered
// here), again after every reconnect, and emits what changed per key every interval. Messages
// wait in a bounded queue: what a burst pushes past it is counted and reported as missed, like
// the events of the time the connection was down. A Redis Cluster publishes each key's events
// on its own node only: following one is not supported yet, and says so.
class KeyspaceFollower : public QObject
{
    Q_OBJECT
public:
    KeyspaceFollower(const ConnectionProfile &profile, int db, QObject *parent = nullptr);
    ~KeyspaceFollower() override;

    // A SCAN MATCH glob (the channel pattern reads it alike); empty: every key.
    void setPattern(const QByteArray &keyGlob);
    QByteArray pattern() const { return m_pattern; }
    int database() const { return m_db; }
    void setInterval(int ms);
    // How many messages, and bytes of them, may wait for the window (RedisClient::setMessageBound).
    void setMessageBound(int count, qint64 bytes);
    // Where CONFIG GET, TYPE and PTTL are sent: a connection of the same server that is not
    // subscribed (the key browser's). Without one, CONFIG GET goes on the follower's own
    // connection before it subscribes, and keys are not read.
    void setSettingsClient(RedisClient *client);

    // Why this connection cannot be followed (a cluster), or empty.
    QString unsupportedReason() const { return m_unsupported; }
    // Reads notify-keyspace-events; settingRead() or settingUnknown() follows.
    void checkSetting();
    const std::optional<keyspaceevents::Setting> &setting() const { return m_setting; }

    void start();
    void stop();
    bool isStarted() const { return m_started; }
    // Subscribed and receiving.
    bool isFollowing() const { return m_subscribed; }
    RedisClient *connection() const { return m_client; }

    // Reads TYPE and PTTL of changed keys on the settings client, one pipeline of at most 500
    // keys at a time; keysRead() follows. At most 20,000 wait: more are dropped, and said.
    void readKeys(const QList<QByteArray> &keys);
    // A key removed since it was asked for: it is not read, or its reading is left out.
    void forgetKey(const QByteArray &key);
    void cancelReads();

Q_SIGNALS:
    void settingRead(const keyspaceevents::Setting &setting);
    // CONFIG GET was refused (NOPERM, a renamed CONFIG) or failed: following may show nothing.
    void settingUnknown(const QString &why);
    void followingChanged(bool following, const QString &detail);
    // Keys created or changed, and keys removed, since the last batch.
    void changesAvailable(const keyspaceevents::ChangeBatch &batch);
    // Events were lost (a burst beyond the bound, the connection down for a while): what the
    // browser shows may be stale until a rescan.
    void eventsMissed(const QString &why);
    // Keys read by readKeys(), as a scan would list them; KeyType::None: the key is gone.
    void keysRead(const ScanBatch &batch);

private:
    void onReady();
    void subscribe();
    void onMessages(const QList<RedisValue> &messages, qint64 dropped);
    void flush();
    void readSetting(const RedisValue &reply);
    QList<QByteArray> channelPatterns() const;
    void readNext();

    ConnectionProfile m_profile;
    int m_db;
    QByteArray m_pattern;
    QString m_unsupported;
    RedisClient *m_client = nullptr;
    RedisClient *m_settingsClient = nullptr; // not owned; forgotten when it goes
    QTimer *m_flushTimer = nullptr;
    keyspaceevents::Coalescer m_pending;
    std::optional<keyspaceevents::Setting> m_setting;
    QList<QByteArray> m_subscribedPatterns; // what the connection is subscribed to
    QList<QByteArray> m_toRead; // in the order they changed; may hold keys forgotten since
    QSet<QByteArray> m_toReadSet;
    QSet<QByteArray> m_reading; // on the wire
    QSet<QByteArray> m_forgotten; // of those, removed meanwhile
    quint64 m_readId = 0;
    qint64 m_dropped = 0; // since the last report
    int m_boundCount = 100000;
    qint64 m_boundBytes = qint64(16) * 1024 * 1024;
    bool m_started = false;
    bool m_subscribed = false;
    bool m_subscribing = false; // a (P)SUBSCRIBE or PUNSUBSCRIBE is on the wire
    bool m_subscribeAgain = false; // what is wanted changed while it was
    bool m_wasSubscribed = false; // before the connection was lost: events of the gap are missed
};
