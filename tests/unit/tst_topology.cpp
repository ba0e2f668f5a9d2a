// SPDX-License-Identifier: GPL-3.0-or-later
// The topology panel's pure parts: CLUSTER NODES lines, a primary's list of replicas in INFO,
// the imbalance of the primaries, the hot slots and the commonest hash tag.
#include "serverinfo.h"
#include "topology.h"

#include <QTest>

using namespace topology;

class TestTopology : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void clusterNodesLines();
    void replicasOfAPrimary();
    void imbalanceOfPrimaries();
    void hotSlotsAndTags();
    void severities();
};

// Lines as Redis 7 writes them: hostnames after a comma, migration markers, a failed primary,
// a node in handshake without an address.
void TestTopology::clusterNodesLines()
{
    const QByteArray text
        = "07c37dfeb235213a872192d90877d0cd55635b91 127.0.0.1:30004@31004,node-4 slave "
          "e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 0 1426238317239 4 connected\n"
          "67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@31002, master - 0 1426238316232 2 connected "
          "5461-10922 [93->-292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f]\n"
          "292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f ::1:30003@31003 myself,master - 0 0 3 connected 10923-16383 "
          "93 [93-<-67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1]\n"
          "e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@31001 master,fail - 1426238316232 0 1 "
          "disconnected\n"
          "824fe116063bc5fcf9f4ffd895bc17aee7731ac3 :0@0 handshake,noaddr - 0 0 0 disconnected\n"
          "not a node line\n";
    const QList<NodesLine> lines = parseClusterNodes(text);
    QCOMPARE(lines.size(), 5);
    QCOMPARE(lines.at(0).announced.host, QStringLiteral("node-4"));
    QCOMPARE(lines.at(0).announced.port, quint16(30004));
    QVERIFY(lines.at(0).has("slave"));
    QCOMPARE(lines.at(0).primaryId, QByteArray("e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca"));
    QCOMPARE(lines.at(1).announced.host, QStringLiteral("127.0.0.1"));
    QCOMPARE(lines.at(1).slots.size(), 1);
    QCOMPARE(lines.at(1).slots.at(0).first, 5461);
    QCOMPARE(lines.at(1).slots.at(0).last, 10922);
    QVERIFY(lines.at(1).primaryId.isEmpty());
    QCOMPARE(lines.at(2).announced.host, QStringLiteral("::1"));
    QCOMPARE(lines.at(2).slots.size(), 2);
    QCOMPARE(lines.at(2).slots.at(1).first, 93);
    QVERIFY(lines.at(2).has("myself"));
    QVERIFY(lines.at(3).has("fail"));
    QCOMPARE(lines.at(3).linkState, QByteArray("disconnected"));
    QVERIFY(lines.at(4).announced.isNull());
    QVERIFY(lines.at(4).has("noaddr"));
}

void TestTopology::replicasOfAPrimary()
{
    const ServerInfo info = ServerInfo::parse("# Replication\r\nrole:master\r\nconnected_slaves:2\r\n"
                                              "slave0:ip=127.0.0.1,port=7001,state=online,offset=1000,lag=0\r\n"
                                              "slave1:ip=127.0.0.1,port=7002,state=wait_bgsave,offset=0,lag=3\r\n"
                                              "master_repl_offset:1500\r\nslave_read_only:1\r\n"
                                              "# Keyspace\r\ndb0:keys=10,expires=0,avg_ttl=0\r\n"
                                              "db3:keys=5,expires=1,avg_ttl=10\r\n");
    const QList<NodeRow> replicas = replicasFromInfo(info);
    QCOMPARE(replicas.size(), 2);
    QCOMPARE(replicas.at(0).address, QStringLiteral("127.0.0.1:7001"));
    QCOMPARE(replicas.at(0).lagBytes, qint64(500));
    QCOMPARE(replicas.at(0).lagSeconds, qint64(0));
    QCOMPARE(replicas.at(0).link, QStringLiteral("connected"));
    QCOMPARE(replicas.at(1).link, QStringLiteral("syncing (wait_bgsave)"));
    QCOMPARE(replicas.at(1).lagBytes, qint64(1500));
    NodeRow primary;
    applyInfo(primary, info);
    QCOMPARE(primary.keys, qint64(15));
    QCOMPARE(primary.replicationOffset, qint64(1500));
    QCOMPARE(primary.usedMemory, qint64(-1));
}

void TestTopology::imbalanceOfPrimaries()
{
    QList<NodeRow> rows(4);
    rows[0].address = QStringLiteral("a");
    rows[0].usedMemory = 100;
    rows[1].address = QStringLiteral("b");
    rows[1].usedMemory = 400;
    rows[2].address = QStringLiteral("c");
    rows[2].usedMemory = 100;
    rows[3].address = QStringLiteral("b-replica");
    rows[3].primary = false;
    rows[3].usedMemory = 4000; // replicas do not count
    const Imbalance i = imbalance(rows, &NodeRow::usedMemory);
    QCOMPARE(i.node, QStringLiteral("b"));
    QCOMPARE(i.most, qint64(400));
    QCOMPARE(i.least, qint64(100));
    QCOMPARE(i.mean, 200.0);
    QCOMPARE(i.ratio, 2.0);
    QVERIFY(i.notable(1.5));
    QCOMPARE(imbalance(rows.mid(0, 1), &NodeRow::usedMemory).ratio, 0.0); // one primary: nothing to compare
    rows[1].usedMemory = -1; // not read: left out
    QCOMPARE(imbalance(rows, &NodeRow::usedMemory).ratio, 1.0);
}

void TestTopology::hotSlotsAndTags()
{
    std::vector<qint64> counts(16384, 1);
    counts[5] = 500;
    counts[9] = 900;
    counts[11] = 20; // over 8 × the mean, under the floor of 64
    counts[12] = -1; // not counted
    const QList<int> hot = hottestSlots(counts, 8, 64, 8.0);
    QCOMPARE(hot, (QList<int>{9, 5}));
    QCOMPARE(hottestSlots(counts, 1, 64, 8.0), QList<int>{9});
    QVERIFY(hottestSlots(std::vector<qint64>(16384, -1), 8, 64, 8.0).isEmpty());
    const auto [tag, n] = commonestTag({"cart:{user:42}:1", "cart:{user:42}:2", "x{a}", "plain", "{}empty"});
    QCOMPARE(tag, QByteArray("user:42"));
    QCOMPARE(n, 2);
    QCOMPARE(commonestTag({"plain", "other"}).second, 0);
}

void TestTopology::severities()
{
    NodeRow r;
    QCOMPARE(severityOf(r), Severity::None);
    r.link = QStringLiteral("failing (the cluster marked it failed)");
    QCOMPARE(severityOf(r), Severity::Bad);
    r.link = QStringLiteral("suspected down (fail?)");
    QCOMPARE(severityOf(r), Severity::Warning);
    r.link.clear();
    r.lagSeconds = 30;
    QCOMPARE(severityOf(r), Severity::Warning);
    r.lagSeconds = 0;
    r.error = QStringLiteral("INFO: connection refused");
    QCOMPARE(severityOf(r), Severity::Bad);
}

QTEST_GUILESS_MAIN(TestTopology)
#include "tst_topology.moc"
