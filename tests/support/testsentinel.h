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
    bool start(QString *error = nullptr);
    TestServer &primary() { return *m_servers.at(0); }
    TestServer &replica() { return *m_servers.at(1); }
    QList<quint16> sentinelPorts() const { return m_sentinelPorts; }
    // "127.0.0.1:p1", … as a profile takes them.
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
    QList<quint16> m_sentinelPorts;
    QList<QProcess *> m_sentinels;
    QTemporaryDir m_dir;
};
