// SPDX-License-Identifier: GPL-3.0-or-later
// The cluster's own answers against RedisLens's reading of them, on a real cluster of three
// primaries with a replica each, on loopback ports.
#include "clustertopology.h"
#include "testcluster.h"

#include <QDeadlineTimer>
#include <QRandomGenerator>
#include <QSet>
#include <QTcpSocket>
#include <QTest>
#include <QThread>

using namespace cluster;

class TestCluster_ : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void keySlotAgreesWithTheServer();
    void topologyFromShardsAndSlots();
    void movedNamesTheOwner();
    void announcedAddressesAreMappedBack();

private:
    TestCluster m_cluster;
    QList<QByteArray> m_keys;
};

void TestCluster_::initTestCase()
{
    QString error;
    QVERIFY2(m_cluster.start(&error), qPrintable(error));
    m_keys = m_cluster.populate(3000);
    QCOMPARE(m_cluster.allKeys().size(), m_keys.size());
}

void TestCluster_::keySlotAgreesWithTheServer()
{
    QRandomGenerator rng(18);
    QList<QByteArray> keys{"", "{", "}", "{}", "a{}b", "{{}}", "x{y}z", "bull:{emails}:wait", "\xff{\x00}"};
    for (int i = 0; i < 5000; ++i) {
        QByteArray k(int(rng.bounded(1, 24)), Qt::Uninitialized);
        for (char &c : k) {
            // Braces often, so that tags of every shape occur.
            const quint32 r = rng.bounded(10);
            c = r == 0 ? '{' : r == 1 ? '}' : char(rng.bounded(256));
        }
        keys << k;
    }
    QList<QList<QByteArray>> commands;
    for (const QByteArray &k : std::as_const(keys))
        commands.append({"CLUSTER", "KEYSLOT", k});
    const QList<RedisValue> replies = RawConnection(m_cluster.seedPort()).pipeline(commands);
    QCOMPARE(replies.size(), keys.size());
    for (qsizetype i = 0; i < keys.size(); ++i)
        QVERIFY2(replies.at(i).toInteger() == keySlot(keys.at(i)), keys.at(i).toHex().constData());
}

void TestCluster_::topologyFromShardsAndSlots()
{
    RawConnection seed(m_cluster.seedPort());
    Topology fromShards;
    Topology fromSlots;
    QString error;
    QVERIFY2(fromShards.readShards(seed.command({"CLUSTER", "SHARDS"}), AddressMap(), &error), qPrintable(error));
    QVERIFY2(fromSlots.readSlots(seed.command({"CLUSTER", "SLOTS"}), AddressMap(), &error), qPrintable(error));
    for (const Topology *t : {&fromShards, &fromSlots}) {
        QCOMPARE(t->primaries().size(), 3);
        QCOMPARE(t->nodes().size(), 6);
        QCOMPARE(t->coveredSlots(), kSlotCount);
        QSet<quint16> primaryPorts;
        for (const Node &p : t->primaries()) {
            primaryPorts << p.address.port;
            QCOMPARE(t->replicasOf(p.id).size(), 1);
        }
        const QList<quint16> expected = m_cluster.primaryPorts();
        QCOMPARE(primaryPorts, QSet<quint16>(expected.cbegin(), expected.cend()));
    }
    for (int s = 0; s < kSlotCount; ++s)
        QCOMPARE(fromShards.ownerOf(s)->id, fromSlots.ownerOf(s)->id);
    // Each primary holds exactly the keys whose slot the map gives it.
    QHash<quint16, QList<QList<QByteArray>>> exists;
    for (const QByteArray &k : std::as_const(m_keys))
        exists[fromShards.ownerOf(keySlot(k))->address.port].append({"EXISTS", k});
    qsizetype found = 0;
    for (auto it = exists.cbegin(); it != exists.cend(); ++it)
        for (const RedisValue &v : RawConnection(it.key()).pipeline(it.value()))
            found += v.toInteger();
    QCOMPARE(found, m_keys.size());
    // The shards reply also tells each node's health and replication offset.
    for (const Node &n : fromShards.nodes()) {
        QCOMPARE(n.health, QByteArray("online"));
        QVERIFY(n.replicationOffset >= 0);
    }
}

void TestCluster_::movedNamesTheOwner()
{
    RawConnection seed(m_cluster.seedPort());
    Topology t;
    QString error;
    QVERIFY(t.readShards(seed.command({"CLUSTER", "SHARDS"}), AddressMap(), &error));
    int redirected = 0;
    for (const QByteArray &k : m_keys.mid(0, 50)) {
        const RedisValue v = seed.command({"GET", k});
        const Redirect r = Redirect::parse(v.bytes());
        if (t.ownerOf(keySlot(k))->address.port == m_cluster.seedPort()) {
            QCOMPARE(r.kind, Redirect::Kind::None);
            continue;
        }
        QCOMPARE(r.kind, Redirect::Kind::Moved);
        QCOMPARE(r.slot, int(keySlot(k)));
        QCOMPARE(r.address, t.ownerOf(r.slot)->address);
        ++redirected;
    }
    QVERIFY(redirected > 10);
}

// Nodes behind NAT or in containers announce addresses this desktop cannot reach. Here each
// node announces 127.0.0.2x, where nothing listens; the map brings them back to 127.0.0.1.
void TestCluster_::announcedAddressesAreMappedBack()
{
    QStringList rules;
    for (qsizetype i = 0; i < m_cluster.nodes().size(); ++i) {
        const QByteArray announced = "127.0.0." + QByteArray::number(20 + i);
        RawConnection node(m_cluster.nodes().at(i)->port());
        QCOMPARE(node.command({"CONFIG", "SET", "cluster-announce-hostname", announced}), RedisValue::status("OK"));
        QCOMPARE(node.command({"CONFIG", "SET", "cluster-preferred-endpoint-type", "hostname"}),
                 RedisValue::status("OK"));
        rules << QString::fromLatin1(announced) + QStringLiteral("=127.0.0.1");
    }
    // The hostnames spread by gossip: wait until the seed announces them all.
    RawConnection seed(m_cluster.seedPort());
    const QDeadlineTimer deadline(20000);
    Topology announced;
    QString error;
    for (;;) {
        QVERIFY(announced.readShards(seed.command({"CLUSTER", "SHARDS"}), AddressMap(), &error));
        const bool all = std::all_of(announced.nodes().cbegin(), announced.nodes().cend(), [](const Node &n) {
            return n.announced.host.startsWith(QLatin1String("127.0.0.2"));
        });
        if (all)
            break;
        QVERIFY2(!deadline.hasExpired(), "the announced hostnames did not spread");
        QThread::msleep(100);
    }
    // Unmapped, the addresses lead nowhere.
    QTcpSocket probe;
    probe.connectToHost(announced.primaries().constFirst().address.host,
                        announced.primaries().constFirst().address.port);
    QVERIFY(!probe.waitForConnected(2000));
    AddressMap map;
    QVERIFY2(map.parse(rules.join(QLatin1Char(',')), &error), qPrintable(error));
    for (const auto &[reply, viaShards] :
         {std::pair{seed.command({"CLUSTER", "SHARDS"}), true}, std::pair{seed.command({"CLUSTER", "SLOTS"}), false}}) {
        Topology mapped;
        QVERIFY(viaShards ? mapped.readShards(reply, map, &error) : mapped.readSlots(reply, map, &error));
        QCOMPARE(mapped.nodes().size(), 6);
        for (const Node &n : mapped.nodes()) {
            QVERIFY(n.announced.host.startsWith(QLatin1String("127.0.0.2")));
            QCOMPARE(n.address.host, QStringLiteral("127.0.0.1"));
            QCOMPARE(RawConnection(n.address.port).command({"PING"}), RedisValue::status("PONG"));
        }
    }
    // MOVED names the announced address too; mapped, it leads to the owner.
    for (const QByteArray &k : m_keys.mid(0, 20)) {
        const Redirect r = Redirect::parse(seed.command({"GET", k}).bytes());
        if (r.kind == Redirect::Kind::None)
            continue;
        QVERIFY(r.address.host.startsWith(QLatin1String("127.0.0.2")));
        const Address to = map.map(r.address);
        QCOMPARE(RawConnection(to.port).command({"GET", k}).bytes().left(1), QByteArray("v"));
    }
    for (qsizetype i = 0; i < m_cluster.nodes().size(); ++i)
        RawConnection(m_cluster.nodes().at(i)->port())
            .command({"CONFIG", "SET", "cluster-preferred-endpoint-type", "ip"});
}

QTEST_GUILESS_MAIN(TestCluster_)
#include "tst_cluster.moc"
