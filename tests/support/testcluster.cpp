// SPDX-License-Identifier: GPL-3.0-or-later
#include "testcluster.h"

#include "clustertopology.h"

#include <QDeadlineTimer>
#include <QProcess>
#include <QThread>

TestCluster::TestCluster(int primaries, int replicasPerPrimary, const QStringList &extraArgs)
    : m_primaries(primaries), m_replicas(replicasPerPrimary), m_extra(extraArgs)
{ }

TestCluster::~TestCluster()
{
    qDeleteAll(m_nodes);
}

bool TestCluster::redisCli(const QStringList &args, QString *output, int timeoutMs)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(QStringLiteral("redis-cli"), args);
    const bool ok = p.waitForFinished(timeoutMs) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
    if (output)
        *output = QString::fromUtf8(p.readAll());
    if (!ok)
        p.kill();
    return ok;
}

bool TestCluster::start(QString *error)
{
    const int count = m_primaries * (1 + m_replicas);
    QStringList addresses;
    for (int i = 0; i < count; ++i) {
        auto *node = new TestServer(QStringList{QStringLiteral("--cluster-enabled"), QStringLiteral("yes"),
                                                QStringLiteral("--cluster-config-file"), QStringLiteral("nodes.conf"),
                                                QStringLiteral("--cluster-node-timeout"), QStringLiteral("2000")}
                                    + m_extra);
        m_nodes.append(node);
        if (!node->start(error))
            return false;
        addresses << QStringLiteral("127.0.0.1:%1").arg(node->port());
    }
    QString out;
    if (!redisCli(QStringList{QStringLiteral("--cluster"), QStringLiteral("create")} + addresses
                      + QStringList{QStringLiteral("--cluster-replicas"), QString::number(m_replicas),
                                    QStringLiteral("--cluster-yes")},
                  &out)) {
        if (error)
            *error = QStringLiteral("redis-cli --cluster create failed: %1").arg(out);
        return false;
    }
    if (!waitForOk()) {
        if (error)
            *error = QStringLiteral("the cluster did not reach cluster_state:ok");
        return false;
    }
    return true;
}

bool TestCluster::waitForOk(int timeoutMs)
{
    const QDeadlineTimer deadline(timeoutMs);
    while (!deadline.hasExpired()) {
        bool all = true;
        for (TestServer *node : std::as_const(m_nodes)) {
            if (!node->server().isRunning())
                continue;
            const QByteArray info = node->command({"CLUSTER", "INFO"}).bytes();
            const bool known = info.contains(QByteArray("cluster_known_nodes:" + QByteArray::number(m_nodes.size())));
            // Replicas must have synced too, or a test reading them races the first sync.
            const QByteArray repl = node->command({"INFO", "replication"}).bytes();
            const bool synced = !repl.contains("role:slave") || repl.contains("master_link_status:up");
            // CLUSTER SLOTS lists a replica only once its primary has heard (by gossip) that it
            // synced: wait for that, so that both topology commands describe the same cluster.
            bool listed = true;
            if (m_replicas > 0 && known) {
                const RedisValue slots = node->command({"CLUSTER", "SLOTS"});
                for (const RedisValue &range : slots.elements())
                    listed = listed && range.size() >= 3 + m_replicas;
            }
            if (!info.contains("cluster_state:ok") || !known || !synced || !listed) {
                all = false;
                break;
            }
        }
        if (all)
            return true;
        QThread::msleep(100);
    }
    return false;
}

QList<quint16> TestCluster::primaryPorts()
{
    QList<quint16> out;
    for (TestServer *node : std::as_const(m_nodes)) {
        if (!node->server().isRunning())
            continue;
        const RedisValue role = node->command({"ROLE"});
        if (role.isArray() && role.size() > 0 && role.at(0).bytes() == "master")
            out << node->port();
    }
    return out;
}

QList<QByteArray> TestCluster::populate(int count, const QByteArray &prefix)
{
    QList<QByteArray> keys;
    QList<QList<QByteArray>> commands;
    keys.reserve(count);
    for (int i = 0; i < count; ++i) {
        const QByteArray key = prefix + QByteArray::number(i);
        keys << key;
        commands.append({"SET", key, "v" + QByteArray::number(i)});
    }
    write(commands);
    return keys;
}

void TestCluster::write(const QList<QList<QByteArray>> &commands)
{
    // One node's view of the slots is the cluster's.
    QHash<int, quint16> slotOwner;
    const RedisValue slots = RawConnection(primaryPorts().constFirst()).command({"CLUSTER", "SLOTS"});
    for (const RedisValue &range : slots.elements())
        for (qint64 s = range.at(0).toInteger(); s <= range.at(1).toInteger(); ++s)
            slotOwner.insert(int(s), quint16(range.at(2).at(1).toInteger()));
    QHash<quint16, QList<QList<QByteArray>>> perNode;
    for (const QList<QByteArray> &c : commands)
        perNode[slotOwner.value(cluster::keySlot(c.at(1)))].append(c);
    for (auto it = perNode.cbegin(); it != perNode.cend(); ++it) {
        RawConnection c(it.key());
        for (qsizetype at = 0; at < it.value().size(); at += 10000)
            c.pipeline(it.value().mid(at, 10000));
    }
}

bool TestCluster::waitForAnnounced(const QByteArray &prefix, int timeoutMs)
{
    const QDeadlineTimer deadline(timeoutMs);
    RawConnection seed(seedPort());
    while (!deadline.hasExpired()) {
        const RedisValue shards = seed.command({"CLUSTER", "SHARDS"});
        cluster::Topology t;
        QString error;
        if (t.readShards(shards, cluster::AddressMap(), &error)
            && std::all_of(t.nodes().cbegin(), t.nodes().cend(),
                           [&](const cluster::Node &n) { return n.announced.host.toLatin1().startsWith(prefix); }))
            return true;
        QThread::msleep(100);
    }
    return false;
}

QList<QByteArray> TestCluster::allKeys()
{
    QList<QByteArray> out;
    for (const quint16 port : primaryPorts())
        out += RawConnection(port).scan();
    return out;
}

bool TestCluster::moveSlot(int slot, quint16 fromPort, quint16 toPort)
{
    return beginMigration(slot, fromPort, toPort) && finishMigration(slot, fromPort, toPort);
}

bool TestCluster::beginMigration(int slot, quint16 fromPort, quint16 toPort, const QList<QByteArray> &keysToMove)
{
    RawConnection source(fromPort);
    RawConnection dest(toPort);
    const QByteArray slotArg = QByteArray::number(slot);
    const QByteArray sourceId = source.command({"CLUSTER", "MYID"}).bytes();
    const QByteArray destId = dest.command({"CLUSTER", "MYID"}).bytes();
    if (dest.command({"CLUSTER", "SETSLOT", slotArg, "IMPORTING", sourceId}).bytes() != "OK"
        || source.command({"CLUSTER", "SETSLOT", slotArg, "MIGRATING", destId}).bytes() != "OK")
        return false;
    for (const QByteArray &key : keysToMove)
        if (source.command({"MIGRATE", "127.0.0.1", QByteArray::number(toPort), key, "0", "5000"}).bytes() != "OK")
            return false;
    return true;
}

bool TestCluster::finishMigration(int slot, quint16 fromPort, quint16 toPort)
{
    RawConnection source(fromPort);
    const QByteArray slotArg = QByteArray::number(slot);
    const QByteArray destId = RawConnection(toPort).command({"CLUSTER", "MYID"}).bytes();
    for (;;) {
        const RedisValue keys = source.command({"CLUSTER", "GETKEYSINSLOT", slotArg, "100"});
        if (!keys.isArray() || keys.size() == 0)
            break;
        QList<QByteArray> migrate{"MIGRATE", "127.0.0.1", QByteArray::number(toPort), "", "0", "5000", "KEYS"};
        for (const RedisValue &k : keys.elements())
            migrate << k.bytes();
        if (source.command(migrate).bytes() != "OK")
            return false;
    }
    // The target first, then the source, then everyone else, as redis-cli does.
    QList<quint16> order{toPort, fromPort};
    for (const quint16 p : primaryPorts())
        if (!order.contains(p))
            order << p;
    for (const quint16 p : order)
        if (RawConnection(p).command({"CLUSTER", "SETSLOT", slotArg, "NODE", destId}).bytes() != "OK")
            return false;
    return true;
}
