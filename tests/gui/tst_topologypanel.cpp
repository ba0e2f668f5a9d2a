// SPDX-License-Identifier: GPL-3.0-or-later
// The topology panel on real servers on loopback ports: a cluster of three primaries with a
// replica each (nodes, slots, keys and lag against what each node says; keys per slot against
// CLUSTER COUNTKEYSINSLOT; a hash tag that piles keys into one slot; memory piled on one
// primary; a replica that dies), a Sentinel-managed primary, and one server with a replica;
// pictured in both palettes.
#include "clusterrouter.h"
#include "clustertopology.h"
#include "mainwindow.h"
#include "redisclient.h"
#include "screenshots.h"
#include "settings.h"
#include "testcluster.h"
#include "testsentinel.h"
#include "testserver.h"
#include "theme.h"
#include "topology.h"
#include "topologypanel.h"
#include "topologyreader.h"

#include <QLabel>
#include <QStandardPaths>
#include <QTest>

using namespace topology;

class TstTopologyPanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void clusterNodesSlotsAndBalance();
    void sentinelPrimaryReplicasAndSentinels();
    void oneServerAndItsReplica();

private:
    std::unique_ptr<MainWindow> open(const ConnectionProfile &p)
    {
        auto w = std::make_unique<MainWindow>(p, m_settings);
        w->resize(1400, 900);
        w->show();
        w->start();
        w->showPanel(QStringLiteral("topology"));
        return w;
    }
    static void pictures(MainWindow &w, const QString &name)
    {
        screenshots::save(w.grab().toImage(), name + QStringLiteral(".png"));
        theme::apply(theme::Theme::Dark);
        QCoreApplication::processEvents();
        screenshots::save(w.grab().toImage(), name + QStringLiteral("-dark.png"));
        theme::apply(theme::Theme::Light);
        QCoreApplication::processEvents();
    }

    Settings *m_settings = nullptr;
};

void TstTopologyPanel::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    m_settings = new Settings(this);
}

void TstTopologyPanel::clusterNodesSlotsAndBalance()
{
    TestCluster cluster(3, 1);
    QString error;
    QVERIFY2(cluster.start(&error), qPrintable(error));
    const int plain = int(cluster.populate(3000, "orders:item:").size());
    // 600 keys that share a hash tag: one slot holds them all.
    QList<QList<QByteArray>> tagged;
    for (int i = 0; i < 600; ++i)
        tagged.append({"SET", "cart:{user:42}:line:" + QByteArray::number(i), "1"});
    // 24 MB on one primary: memory piled on one node.
    const QByteArray big(24 * 1024 * 1024, 'x');
    tagged.append({"SET", "blob:{heavy}", big});
    cluster.write(tagged);
    const int total = plain + 601;
    const int hotSlot = cluster::keySlot("cart:{user:42}:line:0");
    const int heavySlot = cluster::keySlot("blob:{heavy}");

    ConnectionProfile p;
    p.port = cluster.seedPort();
    p.cluster = true;
    p.name = QStringLiteral("orders-cluster");
    auto w = open(p);
    TopologyPanel *panel = w->topologyPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->nodes()->rowCount() == 6, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(panel->reader()->snapshot().slotsCountedAtMs > 0, 60000);
    const Snapshot &s = panel->reader()->snapshot();
    QCOMPARE(s.mode, Mode::Cluster);
    QCOMPARE(s.coveredSlots, cluster::kSlotCount);

    // Every node as the node itself says: role, keys, slots.
    QHash<quint16, QByteArray> idOfPort;
    for (TestServer *n : cluster.nodes())
        idOfPort.insert(n->port(), n->command({"CLUSTER", "MYID"}).bytes());
    const RedisValue slotsReply = RawConnection(cluster.seedPort()).command({"CLUSTER", "SLOTS"});
    QHash<quint16, int> slotsOfPort;
    for (const RedisValue &range : slotsReply.elements())
        slotsOfPort[quint16(range.at(2).at(1).toInteger())]
            += int(range.at(1).toInteger() - range.at(0).toInteger() + 1);
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            for (const NodeRow &n : panel->nodes()->rows())
                if (n.keys < 0)
                    return false;
            return true;
        }(),
        10000);
    int primaries = 0;
    qint64 keysOnPrimaries = 0;
    for (const NodeRow &n : panel->nodes()->rows()) {
        cluster::Address a;
        QVERIFY(cluster::parseAddress(n.address, &a));
        const RedisValue role = RawConnection(a.port).command({"ROLE"});
        QCOMPARE(n.primary, role.at(0).bytes() == "master");
        QCOMPARE(n.id, idOfPort.value(a.port));
        QTRY_COMPARE_WITH_TIMEOUT(panel->nodes()->find(n.address.toUtf8())->keys,
                                  RawConnection(a.port).command({"DBSIZE"}).toInteger(), 10000);
        if (n.primary) {
            ++primaries;
            keysOnPrimaries += n.keys;
            QCOMPARE(n.slotCount, slotsOfPort.value(a.port));
        } else {
            QCOMPARE(n.primaryAddress, QStringLiteral("127.0.0.1:%1").arg(role.at(2).toInteger()));
            QVERIFY(n.lagBytes >= 0);
            QVERIFY(n.lagSeconds >= 0);
        }
        QVERIFY2(severityOf(n) == Severity::None, qPrintable(n.address + QLatin1Char(' ') + n.link + n.error));
    }
    QCOMPARE(primaries, 3);
    QCOMPARE(keysOnPrimaries, qint64(total));

    // Keys per slot: the sum is every key, and each slot's count is its owner's.
    qint64 sum = 0;
    for (const qint64 k : s.keysPerSlot) {
        QVERIFY(k >= 0);
        sum += k;
    }
    QCOMPARE(sum, qint64(total));
    const quint16 hotOwner = w->client()->cluster()->ownerOf(hotSlot)->address.port;
    const qint64 hotCount
        = RawConnection(hotOwner).command({"CLUSTER", "COUNTKEYSINSLOT", QByteArray::number(hotSlot)}).toInteger();
    QVERIFY(hotCount >= 600);
    QCOMPARE(s.keysPerSlot[size_t(hotSlot)], hotCount);
    // The hot slot, with the tag that put its keys there.
    QVERIFY(!s.hotSlots.isEmpty());
    QCOMPARE(s.hotSlots.constFirst().slot, hotSlot);
    QCOMPARE(s.hotSlots.constFirst().tag, QByteArray("user:42"));
    QCOMPARE(s.hotSlots.constFirst().sampled, TopologyReader::kSampledKeys);
    QCOMPARE(s.hotSlots.constFirst().tagged, TopologyReader::kSampledKeys);
    QCOMPARE(panel->hotSlots()->rowCount(), int(s.hotSlots.size()));

    // Memory: the primary with the big value is named.
    const QString heavyNode = w->client()->cluster()->ownerOf(heavySlot)->address.toString();
    QVERIFY2(panel->balanceText().contains(QStringLiteral("Memory is uneven: %1").arg(heavyNode)),
             qPrintable(panel->balanceText()));
    QVERIFY2(panel->summaryText().contains(QStringLiteral("3 primaries, 3 replicas")),
             qPrintable(panel->summaryText()));
    QVERIFY(panel->slotsText().contains(QStringLiteral("busiest slot %1").arg(hotSlot)));
    pictures(*w, QStringLiteral("topology-cluster"));

    // A replica dies: the cluster marks it failed (node timeout 2 s) and its row says so.
    TestServer *replica = nullptr;
    for (TestServer *n : cluster.nodes())
        if (n->command({"ROLE"}).at(0).bytes() == "slave")
            replica = n;
    QVERIFY(replica);
    const QString replicaAddress = QStringLiteral("127.0.0.1:%1").arg(replica->port());
    replica->server().stop();
    QTRY_VERIFY_WITH_TIMEOUT(panel->nodes()->find(replicaAddress.toUtf8())
                                 && severityOf(*panel->nodes()->find(replicaAddress.toUtf8())) == Severity::Bad,
                             20000);
    QVERIFY2(panel->summaryText().contains(QStringLiteral("1 node(s) failing or unreachable")),
             qPrintable(panel->summaryText()));
    pictures(*w, QStringLiteral("topology-cluster-failing"));
}

void TstTopologyPanel::sentinelPrimaryReplicasAndSentinels()
{
    TestSentinel setup;
    QString error;
    QVERIFY2(setup.start(&error), qPrintable(error));
    QVERIFY(setup.waitForDiscovery());
    ConnectionProfile p;
    p.name = QStringLiteral("payments");
    p.host.clear();
    p.sentinels = setup.sentinelAddresses();
    p.sentinelMaster = QStringLiteral("mymaster");
    auto w = open(p);
    TopologyPanel *panel = w->topologyPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->nodes()->rowCount() == 2 && panel->sentinels()->rowCount() == 3, 30000);
    const Snapshot &s = panel->reader()->snapshot();
    QCOMPARE(s.mode, Mode::Sentinel);
    const NodeRow &primary = panel->nodes()->rows().at(0);
    const NodeRow &replica = panel->nodes()->rows().at(1);
    QCOMPARE(primary.address, QStringLiteral("127.0.0.1:%1").arg(setup.primary().port()));
    QVERIFY(primary.primary);
    QCOMPARE(replica.address, QStringLiteral("127.0.0.1:%1").arg(setup.replica().port()));
    QVERIFY(!replica.primary);
    QVERIFY2(replica.lagBytes >= 0,
             qPrintable(QStringLiteral("%1 %2 %3 %4")
                            .arg(primary.replicationOffset)
                            .arg(replica.replicationOffset)
                            .arg(primary.error, primary.link)));
    QVERIFY(panel->findChild<QWidget *>(QStringLiteral("sentinels"))->isVisibleTo(panel));
    QVERIFY(!panel->findChild<QWidget *>(QStringLiteral("slotStrip"))->isVisibleTo(panel));
    QVERIFY2(panel->summaryText().contains(
                 QStringLiteral("Sentinel master mymaster · primary 127.0.0.1:%1").arg(setup.primary().port())),
             qPrintable(panel->summaryText()));
    pictures(*w, QStringLiteral("topology-sentinel"));
    // A sentinel stops: the others flag it.
    setup.stopSentinel(2);
    const QString stopped = QStringLiteral("127.0.0.1:%1").arg(setup.sentinelPorts().at(2));
    QTRY_VERIFY_WITH_TIMEOUT(panel->sentinels()->find(stopped.toUtf8())
                                 && panel->sentinels()->find(stopped.toUtf8())->flags.contains("s_down"),
                             20000);
    QVERIFY2(panel->summaryText().contains(QStringLiteral("1 down or unreachable")), qPrintable(panel->summaryText()));
}

void TstTopologyPanel::oneServerAndItsReplica()
{
    TestServer primary;
    TestServer replica;
    QString error;
    QVERIFY2(primary.start(&error) && replica.start(&error), qPrintable(error));
    primary.pipeline({{"SET", "a", "1"}, {"SET", "b", "2"}});
    QCOMPARE(replica.command({"REPLICAOF", "127.0.0.1", QByteArray::number(primary.port())}).bytes(), QByteArray("OK"));
    QTRY_VERIFY_WITH_TIMEOUT(replica.command({"INFO", "replication"}).bytes().contains("master_link_status:up"), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(primary.command({"INFO", "replication"}).bytes().contains("connected_slaves:1"), 20000);

    auto w = open(primary.profile());
    TopologyPanel *panel = w->topologyPanel();
    QTRY_COMPARE_WITH_TIMEOUT(panel->nodes()->rowCount(), 2, 20000);
    QCOMPARE(panel->reader()->snapshot().mode, Mode::Single);
    QCOMPARE(panel->nodes()->rows().at(0).keys, qint64(2));
    QCOMPARE(panel->nodes()->rows().at(1).address, QStringLiteral("127.0.0.1:%1").arg(replica.port()));
    QVERIFY(!panel->nodes()->rows().at(1).primary);
    QVERIFY(!panel->findChild<QWidget *>(QStringLiteral("slotStrip"))->isVisibleTo(panel));
    QCOMPARE(panel->summaryText(), QStringLiteral("One primary · 1 replica(s)"));
    pictures(*w, QStringLiteral("topology-single"));

    // Connected to the replica: its primary comes first, not asked.
    auto r = open(replica.profile());
    TopologyPanel *fromReplica = r->topologyPanel();
    QTRY_COMPARE_WITH_TIMEOUT(fromReplica->nodes()->rowCount(), 2, 20000);
    QCOMPARE(fromReplica->summaryText(), QStringLiteral("A replica of 127.0.0.1:%1").arg(primary.port()));
    QVERIFY(!fromReplica->nodes()->rows().at(1).primary);
    QCOMPARE(fromReplica->nodes()->rows().at(1).keys, qint64(2));
}

QTEST_MAIN(TstTopologyPanel)
#include "tst_topologypanel.moc"
