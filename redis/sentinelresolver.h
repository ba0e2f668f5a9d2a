// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clustertopology.h"
#include "connectionprofile.h"

#include <QList>
#include <QObject>
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
// profile's TLS and tunnel. Connections to the sentinels are kept for the next question.
class SentinelResolver : public QObject
{
    Q_OBJECT
public:
    using Done = std::function<void(const cluster::Address &primary, const QString &error)>;
    explicit SentinelResolver(const ConnectionProfile &profile, QObject *parent = nullptr);
    ~SentinelResolver() override;

    void resolve(const Done &done);
    void describe(const std::function<void(const SentinelReport &)> &done);
    cluster::Address lastPrimary() const { return m_last; }

private:
    void ask(int index, const std::shared_ptr<QStringList> &errors, const Done &done);
    void describeAt(int index, const std::function<void(const SentinelReport &)> &done);
    RedisClient *clientAt(int index);
    ConnectionProfile m_profile;
    QList<RedisClient *> m_clients; // one per sentinel, made on first use
    cluster::Address m_last;
};
