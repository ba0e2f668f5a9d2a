// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "testserver.h"

#include <QList>
#include <memory>

// A real Redis Cluster for one test class: primaries (and replicas of each) on free loopback
// ports, made one cluster by `redis-cli --cluster create` and waited for until every node says
// cluster_state:ok and knows every other. Stopped with this object.
class TestCluster
{
public:
    // extraArgs go to every node (e.g. {"--cluster-announce-hostname", "127.0.0.9"}).
    explicit TestCluster(int primaries = 3, int replicasPerPrimary = 1, const QStringList &extraArgs = {});
    ~TestCluster();
    bool start(QString *error = nullptr);
    const QList<TestServer *> &nodes() const { return m_nodes; }
    quint16 seedPort() const { return m_nodes.first()->port(); }
    // The ports of the nodes that are primaries now (ROLE asked of each).
    QList<quint16> primaryPorts();
    // Waits until every running node reports cluster_state:ok.
    bool waitForOk(int timeoutMs = 30000);
    // Runs redis-cli with these arguments and waits; false with its output on failure.
    static bool redisCli(const QStringList &args, QString *output, int timeoutMs = 120000);
    // Writes 'count' keys "<prefix><n>" (values "v<n>") to the nodes owning them; returns the
    // keys written.
    QList<QByteArray> populate(int count, const QByteArray &prefix = "key:");
    // Sends each command to the primary that owns its first key (argv[1]), pipelined per node.
    void write(const QList<QList<QByteArray>> &commands);
    // Waits until the seed announces every node with a hostname starting with 'prefix'
    // (cluster-announce-hostname spreads by gossip).
    bool waitForAnnounced(const QByteArray &prefix, int timeoutMs = 20000);
    // Moves a slot from one primary to another, keys and all (as redis-cli --cluster reshard
    // does for each slot); finishMigration() completes a move begun by beginMigration().
    bool moveSlot(int slot, quint16 fromPort, quint16 toPort);
    // Marks the slot migrating from one primary to the other and moves only these keys: the
    // slot is left halfway (the source answers ASK for a moved key, TRYAGAIN for a command
    // naming keys on both sides).
    bool beginMigration(int slot, quint16 fromPort, quint16 toPort, const QList<QByteArray> &keysToMove = {});
    bool finishMigration(int slot, quint16 fromPort, quint16 toPort);
    // All keys of the cluster: the union of SCAN on each primary.
    QList<QByteArray> allKeys();

private:
    int m_primaries;
    int m_replicas;
    QStringList m_extra;
    QList<TestServer *> m_nodes;
};
