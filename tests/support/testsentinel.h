// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "testserver.h"

#include <QList>
#include <QProcess>
#include <QTemporaryDir>
#include <memory>

// A Sentinel-managed master for one test class, on free loopback ports: a primary, a replica
// of it, and three sentinels (quorum 2, down after 1 s, failover timeout 5 s) watching it as
// "mymaster". Stopped with this object.
class TestSentinel
{
public:
    // 'sentinelConfig': more lines for each sentinel's configuration ("requirepass …" is also
    // used by the fixture's own questions to them).
    explicit TestSentinel(const QStringList &sentinelConfig = {});
    ~TestSentinel();
    // Before start(): every server and sentinel also listens with TLS (this certificate, key and
    // CA; clients not asked for certificates), the replica replicates and the sentinels talk
    // over TLS, and the sentinels watch the primary's TLS port. sentinelAddresses() and the
    // addresses the sentinels give are then TLS ports; the fixture's own questions stay plain.
    void useTls(const QString &certFile, const QString &keyFile, const QString &caFile);
    bool start(QString *error = nullptr);
    TestServer &primary() { return *m_servers.at(0); }
    TestServer &replica() { return *m_servers.at(1); }
    QList<quint16> sentinelPorts() const { return m_sentinelPorts; }
    // "127.0.0.1:p1", … as a profile takes them (their TLS ports after useTls()).
    QStringList sentinelAddresses() const;
    // The address the sentinels name for mymaster now (asked of the first that answers).
    quint16 currentPrimaryPort();
    // Until every sentinel knows the replica and the two other sentinels.
    bool waitForDiscovery(int timeoutMs = 30000);
    void stopSentinel(int index);
    static QByteArray masterName() { return "mymaster"; }

private:
    // A command to a sentinel, after AUTH when the configuration gave them a password.
    RedisValue ask(quint16 port, const QList<QByteArray> &argv) const;

    QStringList m_config;
    QByteArray m_password; // "requirepass" of the sentinels' configuration
    QList<TestServer *> m_servers;
    QList<quint16> m_sentinelPorts; // plain: the fixture's own questions
    QList<quint16> m_sentinelTlsPorts;
    QStringList m_tls; // cert, key, CA; empty: no TLS
    QList<QProcess *> m_sentinels;
    QTemporaryDir m_dir;
};
