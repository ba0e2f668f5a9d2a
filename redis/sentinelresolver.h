// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clustertopology.h"
#include "connectionprofile.h"

#include <QList>
#include <QObject>
#include <QSet>
#include <functional>

class RedisClient;

// What the sentinels say about one master: its address, its replicas with their state and lag,
// and the sentinels themselves with their flags (s_down, o_down).
struct SentinelReport
{
    struct Replica
    {
        QString address;
        QByteArray flags; // "slave", "slave,s_down", …
        qint64 offset = -1; // slave-repl-offset
        qint64 linkDownMs = 0; // master-link-down-time
    };
    struct Sentinel
    {
        QString address;
        QByteArray flags; // "sentinel", "sentinel,s_down", …; "unreachable" when it did not answer
    };
    QString master; // host:port
    QByteArray masterFlags;
    QList<Replica> replicas;
    QList<Sentinel> sentinels;
    QString error; // why nothing could be read
};

// Finds the current primary of a Sentinel-managed master: asks each sentinel of the profile in
// turn (SENTINEL GET-MASTER-ADDR-BY-NAME), with the sentinels' own credentials and the
// profile's TLS and tunnel. Connections to the sentinels are kept for the next question. With
// sentinelReplica, the answer is the master's freshest healthy replica (SENTINEL REPLICAS), or
// the primary when none is. watchSwitches() subscribes to +switch-master on every sentinel.
class SentinelResolver : public QObject
{
    Q_OBJECT
public:
    using Done = std::function<void(const cluster::Address &primary, const QString &error)>;
    explicit SentinelResolver(const ConnectionProfile &profile, QObject *parent = nullptr);
    ~SentinelResolver() override;

    // The address to connect to: the primary, or with sentinelReplica a replica (see note()).
    void resolve(const Done &done);
    void describe(const std::function<void(const SentinelReport &)> &done);
    cluster::Address lastPrimary() const { return m_last; }
    // What the last resolve() chose with sentinelReplica: "reading replica 127.0.0.1:6380 of mymaster …",
    // or why it fell back to the primary. Empty without sentinelReplica.
    QString note() const { return m_note; }

    // Subscribes to +switch-master on every sentinel, on connections of their own (a subscribed
    // connection answers nothing else), again after each reconnect: switched() follows a
    // failover of the profile's master as soon as a sentinel announces it.
    void watchSwitches();
    // The +switch-master messages for the profile's master received so far.
    int switchesSeen() const { return m_switches; }
    // Sentinels whose subscription is in place.
    int watching() const { return int(m_subscribed.size()); }

Q_SIGNALS:
    void switched(const cluster::Address &newPrimary);

private:
    void ask(int index, const std::shared_ptr<QStringList> &errors, const Done &done);
    void pickReplica(int index, const cluster::Address &primary, const Done &done);
    void onMessage(const RedisValue &message);
    void describeAt(int index, const std::function<void(const SentinelReport &)> &done);
    RedisClient *clientAt(int index);
    ConnectionProfile m_profile;
    QList<RedisClient *> m_clients; // one per sentinel, made on first use
    QList<RedisClient *> m_watchers; // one subscribed connection per sentinel
    cluster::Address m_last;
    QString m_note;
    QSet<RedisClient *> m_subscribed; // watchers whose SUBSCRIBE was answered
    int m_switches = 0;
};
