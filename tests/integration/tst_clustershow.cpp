// SPDX-License-Identifier: GPL-3.0-or-later
// `redislens show`, `report` and `check` with --cluster, on a real cluster of three primaries
// on loopback ports: the same output shapes as on one server, with every node's keys.
#include "bytesescape.h"
#include "clustertopology.h"
#include "localserver.h"
#include "processrun.h"
#include "testcluster.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

class TstClusterShow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void keysAreEveryNodesKeys();
    void locksAcrossNodes();
    void reportCoversTheCluster();
    void topologyCountsEverySlot();
    void announcedAddressesNeedTheMap();
    void badClusterOptionsExitTwo();
    void seedsAreTriedInTurn();
    void oneNodeAlone();
    void everyPrimaryMerged();

private:
    ProcessRun run(const QStringList &args, int timeoutMs = 120000) const
    {
        return runProgram(QStringLiteral(REDISLENS_APP_PATH), args, timeoutMs, isolatedEnvironment(m_home.path()));
    }
    QStringList seed() const
    {
        return {QStringLiteral("-c"), QStringLiteral("-p"), QString::number(m_cluster.seedPort())};
    }
    static QJsonObject json(const ProcessRun &r) { return QJsonDocument::fromJson(r.out).object(); }

    TestCluster m_cluster{3, 0};
    QTemporaryDir m_home;
    QSet<QByteArray> m_locksWithoutTtl;
};

void TstClusterShow::initTestCase()
{
    QVERIFY(m_home.isValid());
    QString error;
    QVERIFY2(m_cluster.start(&error), qPrintable(error));
    m_cluster.populate(5000, "cache:user:");
    // Locks on every node: some without TTL (the finding), some with one.
    QList<QList<QByteArray>> locks;
    for (int i = 0; i < 30; ++i) {
        const QByteArray key = "lock:order:" + QByteArray::number(i);
        const QByteArray token = QByteArray::number(0x5f3a9c10 + i * 7919, 16) + "-4c1e-9b7d-2a6f8e0d1c3b";
        if (i % 3 == 0) {
            locks.append({"SET", key, token});
            m_locksWithoutTtl.insert(key);
        } else {
            locks.append({"SET", key, token, "PX", "600000"});
        }
    }
    m_cluster.write(locks);
    QCOMPARE(m_cluster.allKeys().size(), 5030);
}

void TstClusterShow::keysAreEveryNodesKeys()
{
    const ProcessRun r = run(QStringList{QStringLiteral("show"), QStringLiteral("keys")} + seed());
    QVERIFY2(r.code == 0, r.err.constData());
    const QJsonArray records = json(r).value(QStringLiteral("records")).toArray();
    QSet<QString> shown;
    for (const QJsonValue v : records)
        shown.insert(v.toObject().value(QStringLiteral("key")).toString());
    QCOMPARE(shown.size(), records.size()); // each key once
    QSet<QString> expected;
    for (const QByteArray &k : m_cluster.allKeys())
        expected.insert(bytesescape::escape(k));
    QCOMPARE(shown, expected);
    // Without --cluster the seed alone answers: a third of the keys, and a hint.
    const ProcessRun one = run(
        {QStringLiteral("show"), QStringLiteral("keys"), QStringLiteral("-p"), QString::number(m_cluster.seedPort())});
    QCOMPARE(one.code, 0);
    const qsizetype seedKeys = json(one).value(QStringLiteral("records")).toArray().size();
    QVERIFY(seedKeys < expected.size() / 2);
    QVERIFY2(one.err.contains("--cluster"), one.err.constData());
}

void TstClusterShow::locksAcrossNodes()
{
    const ProcessRun r = run(QStringList{QStringLiteral("show"), QStringLiteral("locks")} + seed());
    QVERIFY2(r.code == 0, r.err.constData());
    const QJsonArray records = json(r).value(QStringLiteral("records")).toArray();
    QSet<QByteArray> noTtl;
    int total = 0;
    for (const QJsonValue v : records) {
        const QJsonObject o = v.toObject();
        const QString key = o.value(QStringLiteral("resource_key")).toString();
        if (!key.startsWith(QLatin1String("lock:order:")))
            continue;
        ++total;
        if (o.value(QStringLiteral("flags")).toString().contains(QLatin1String("no TTL")))
            noTtl.insert(key.toUtf8());
    }
    QCOMPARE(total, 30);
    QCOMPARE(noTtl, m_locksWithoutTtl);
}

void TstClusterShow::reportCoversTheCluster()
{
    const ProcessRun r
        = run(QStringList{QStringLiteral("report"), QStringLiteral("--fail-on"), QStringLiteral("critical")} + seed());
    QVERIFY2(r.code == 0 || r.code == 1, r.err.constData());
    const QJsonObject doc = json(r);
    const QJsonArray findings = doc.value(QStringLiteral("findings")).toArray();
    bool lockFinding = false;
    for (const QJsonValue v : findings) {
        const QJsonObject f = v.toObject();
        if (f.value(QStringLiteral("id")).toString() == QLatin1String("lock.no-ttl")) {
            lockFinding = true;
            const QByteArray evidence = QJsonDocument(f.value(QStringLiteral("evidence")).toArray()).toJson();
            for (const QByteArray &k : std::as_const(m_locksWithoutTtl))
                QVERIFY2(evidence.contains(k), k.constData());
        }
    }
    QVERIFY(lockFinding);
    const QJsonObject byType
        = doc.value(QStringLiteral("summary")).toObject().value(QStringLiteral("keys_by_type")).toObject();
    QCOMPARE(byType.value(QStringLiteral("string")).toInteger(), 5030);
}

// Nodes that announce addresses nothing listens on: with the map, everything works.
// `show topology --cluster`: the three primaries with their slots and keys, every slot counted,
// the keys counted equal to the cluster's, conforming to its schema.
void TstClusterShow::topologyCountsEverySlot()
{
    const ProcessRun r = run(QStringList{QStringLiteral("show"), QStringLiteral("topology")} + seed());
    QVERIFY2(r.code == 0, r.err.constData());
    const QString problems
        = validateAgainstSchema(QStringLiteral("show-topology.schema.json"), r.out, QStringLiteral("json"),
                                m_home.filePath(QStringLiteral("topology.json")));
    QVERIFY2(problems.isEmpty(), qPrintable(problems));
    const QJsonObject doc = json(r);
    QCOMPARE(doc.value(QStringLiteral("mode")).toString(), QStringLiteral("cluster"));
    QCOMPARE(doc.value(QStringLiteral("covered_slots")).toInt(), 16384);
    QCOMPARE(doc.value(QStringLiteral("slots_counted")).toInt(), 16384);
    QCOMPARE(doc.value(QStringLiteral("keys_in_counted_slots")).toInteger(), qint64(m_cluster.allKeys().size()));
    const QJsonArray records = doc.value(QStringLiteral("records")).toArray();
    QCOMPARE(records.size(), 3);
    qint64 keys = 0;
    for (const QJsonValue v : records) {
        const QJsonObject o = v.toObject();
        QCOMPARE(o.value(QStringLiteral("role")).toString(), QStringLiteral("primary"));
        QCOMPARE(o.value(QStringLiteral("link")).toString(), QStringLiteral("connected"));
        cluster::Address a;
        QVERIFY(cluster::parseAddress(o.value(QStringLiteral("node")).toString(), &a));
        const qint64 dbsize = RawConnection(a.port).command({"DBSIZE"}).toInteger();
        QCOMPARE(o.value(QStringLiteral("keys_value")).toInteger(), dbsize);
        keys += dbsize;
    }
    QCOMPARE(keys, qint64(m_cluster.allKeys().size()));
}

void TstClusterShow::announcedAddressesNeedTheMap()
{
    QStringList rules;
    for (qsizetype i = 0; i < m_cluster.nodes().size(); ++i) {
        const QByteArray announced = "127.0.0." + QByteArray::number(40 + i);
        RawConnection node(m_cluster.nodes().at(i)->port());
        node.command({"CONFIG", "SET", "cluster-announce-hostname", announced});
        node.command({"CONFIG", "SET", "cluster-preferred-endpoint-type", "hostname"});
        rules << QString::fromLatin1(announced) + QStringLiteral("=127.0.0.1");
    }
    QVERIFY(m_cluster.waitForAnnounced("127.0.0.4"));
    // Unmapped: nothing listens there. The run ends with the node, the reason and the way out.
    const ProcessRun unmapped = run(QStringList{QStringLiteral("show"), QStringLiteral("keys")} + seed(), 60000);
    QVERIFY2(unmapped.code == 1 || unmapped.code == 2, unmapped.err.constData());
    QVERIFY2(unmapped.err.contains("cannot reach cluster node 127.0.0.4"), unmapped.err.constData());
    QVERIFY2(unmapped.err.contains("--cluster-map"), unmapped.err.constData());
    const ProcessRun r = run(
        QStringList{QStringLiteral("show"), QStringLiteral("keys"), QStringLiteral("--cluster-map"), rules.join(u',')}
        + seed());
    QVERIFY2(r.code == 0, r.err.constData());
    QCOMPARE(json(r).value(QStringLiteral("records")).toArray().size(), 5030);
    // The seed's host for every node does the same here.
    const ProcessRun kept = run(
        QStringList{QStringLiteral("show"), QStringLiteral("keys"), QStringLiteral("--cluster-keep-host")} + seed());
    QVERIFY2(kept.code == 0, kept.err.constData());
    QCOMPARE(json(kept).value(QStringLiteral("records")).toArray().size(), 5030);
    for (TestServer *n : m_cluster.nodes())
        RawConnection(n->port()).command({"CONFIG", "SET", "cluster-preferred-endpoint-type", "ip"});
}

void TstClusterShow::badClusterOptionsExitTwo()
{
    const ProcessRun bad = run(QStringList{QStringLiteral("show"), QStringLiteral("keys"),
                                           QStringLiteral("--cluster-map"), QStringLiteral("127.0.0.9")}
                               + seed());
    QCOMPARE(bad.code, 2);
    QVERIFY2(bad.err.contains("--cluster-map"), bad.err.constData());
    const ProcessRun lone = run({QStringLiteral("show"), QStringLiteral("keys"), QStringLiteral("--cluster-keep-host"),
                                 QStringLiteral("-p"), QString::number(m_cluster.seedPort())});
    QCOMPARE(lone.code, 2);
    QVERIFY2(lone.err.contains("need --cluster"), lone.err.constData());
    const ProcessRun seeds = run(QStringList{QStringLiteral("show"), QStringLiteral("keys"),
                                             QStringLiteral("--cluster-seeds"), QStringLiteral("127.0.0.1")}
                                 + seed());
    QCOMPARE(seeds.code, 2);
    QVERIFY2(seeds.err.contains("invalid --cluster-seeds: \"127.0.0.1\" is not host:port"), seeds.err.constData());
}

// The first seed is down: the run goes on through the next, and reads every key once. With no
// seed answering it exits 2 and says why each failed.
void TstClusterShow::seedsAreTriedInTurn()
{
    const quint16 dead = LocalServer::freePort();
    const ProcessRun r = run({QStringLiteral("show"), QStringLiteral("keys"), QStringLiteral("-c"),
                              QStringLiteral("-p"), QString::number(dead), QStringLiteral("--cluster-seeds"),
                              QStringLiteral("127.0.0.1:%1").arg(m_cluster.seedPort())});
    QVERIFY2(r.code == 0, r.err.constData());
    QCOMPARE(json(r).value(QStringLiteral("records")).toArray().size(), m_cluster.allKeys().size());
    quint16 dead2 = LocalServer::freePort();
    while (dead2 == dead)
        dead2 = LocalServer::freePort();
    const ProcessRun none
        = run({QStringLiteral("show"), QStringLiteral("keys"), QStringLiteral("-c"), QStringLiteral("-p"),
               QString::number(dead), QStringLiteral("--cluster-seeds"), QStringLiteral("127.0.0.1:%1").arg(dead2)});
    QCOMPARE(none.code, 2);
    QVERIFY2(none.err.contains("no seed node answers"), none.err.constData());
    QVERIFY2(none.err.contains(QByteArray(":" + QByteArray::number(dead) + ":"))
                 && none.err.contains(QByteArray(":" + QByteArray::number(dead2) + ":")),
             none.err.constData());
}

// --node: one node of the cluster read as one server: its keys only (what SCAN on it returns),
// its own INFO; an address that is not a node, or --node without --cluster, exits 2 with why.
void TstClusterShow::oneNodeAlone()
{
    const quint16 port = m_cluster.primaryPorts().value(1);
    QVERIFY(port != 0);
    const QList<QByteArray> own = RawConnection(port).scan();
    const ProcessRun keys = run(QStringList{QStringLiteral("show"), QStringLiteral("keys"), QStringLiteral("--node"),
                                            QStringLiteral("127.0.0.1:%1").arg(port)}
                                + seed());
    QVERIFY2(keys.code == 0, keys.err.constData());
    QSet<QString> shown;
    for (const QJsonValue v : json(keys).value(QStringLiteral("records")).toArray())
        shown.insert(v.toObject().value(QStringLiteral("key")).toString());
    QSet<QString> expected;
    for (const QByteArray &k : own)
        expected.insert(QString::fromUtf8(k));
    QCOMPARE(shown.size(), expected.size());
    QCOMPARE(shown, expected);
    QVERIFY(shown.size() < 5030);

    const ProcessRun server
        = run(QStringList{QStringLiteral("show"), QStringLiteral("overview"), QStringLiteral("--table"),
                          QStringLiteral("facts"), QStringLiteral("--node"), QStringLiteral("127.0.0.1:%1").arg(port)}
              + seed());
    QVERIFY2(server.code == 0, server.err.constData());
    QVERIFY2(server.out.contains(QByteArray::number(port)), server.out.constData());

    const ProcessRun stranger = run(QStringList{QStringLiteral("show"), QStringLiteral("keys"),
                                                QStringLiteral("--node"), QStringLiteral("127.0.0.1:1")}
                                    + seed());
    QCOMPARE(stranger.code, 2);
    QVERIFY2(stranger.err.contains("is not a node of this cluster (its nodes: 127.0.0.1:"), stranger.err.constData());
    const ProcessRun alone
        = run({QStringLiteral("show"), QStringLiteral("keys"), QStringLiteral("--node"),
               QStringLiteral("127.0.0.1:%1").arg(port), QStringLiteral("-p"), QString::number(port)});
    QCOMPARE(alone.code, 2);
    QVERIFY2(alone.err.contains("--node picks one node of a Redis Cluster"), alone.err.constData());
}

// --node all: the overview of every primary as one server (their keys add up), the slow logs of
// every primary in one table, each entry with the node that logged it; both as their schemas say.
void TstClusterShow::everyPrimaryMerged()
{
    const ProcessRun overview
        = run(QStringList{QStringLiteral("show"), QStringLiteral("overview"), QStringLiteral("--table"),
                          QStringLiteral("facts"), QStringLiteral("--node"), QStringLiteral("all")}
              + seed());
    QVERIFY2(overview.code == 0, overview.err.constData());
    QString problems = validateAgainstSchema(QStringLiteral("show-overview.schema.json"), overview.out,
                                             QStringLiteral("json"), m_home.filePath(QStringLiteral("merged.json")));
    QVERIFY2(problems.isEmpty(), qPrintable(problems));
    QHash<QString, QString> facts;
    for (const QJsonValue v : json(overview).value(QStringLiteral("records")).toArray())
        facts.insert(v[QStringLiteral("label")].toString(), v[QStringLiteral("value")].toString());
    qint64 keys = 0;
    for (const quint16 port : m_cluster.primaryPorts())
        keys += RawConnection(port).command({"DBSIZE"}).toInteger();
    QCOMPARE(keys, qint64(5030));
    QVERIFY2(facts.value(QStringLiteral("Keyspace")).startsWith(QStringLiteral("db0: 5,030 keys")),
             qPrintable(facts.value(QStringLiteral("Keyspace"))));
    QCOMPARE(facts.value(QStringLiteral("Role")), QStringLiteral("3 primaries, merged"));
    QCOMPARE(json(overview).value(QStringLiteral("coverage"))[QStringLiteral("merged_nodes")].toInt(), 3);

    // One marked command in each primary's slow log.
    QHash<QString, QString> markNode;
    for (const quint16 port : m_cluster.primaryPorts()) {
        RawConnection node(port);
        const QByteArray mark = "merged-mark-" + QByteArray::number(port);
        node.command({"CONFIG", "SET", "slowlog-log-slower-than", "0"});
        node.command({"ECHO", mark});
        node.command({"CONFIG", "SET", "slowlog-log-slower-than", "10000"});
        markNode.insert(QString::fromLatin1(mark), QStringLiteral("127.0.0.1:%1").arg(port));
    }
    const ProcessRun slowlog = run(
        QStringList{QStringLiteral("show"), QStringLiteral("slowlog"), QStringLiteral("--node"), QStringLiteral("all")}
        + seed());
    QVERIFY2(slowlog.code == 0, slowlog.err.constData());
    problems = validateAgainstSchema(QStringLiteral("show-slowlog.schema.json"), slowlog.out, QStringLiteral("json"),
                                     m_home.filePath(QStringLiteral("merged-slowlog.json")));
    QVERIFY2(problems.isEmpty(), qPrintable(problems));
    QCOMPARE(json(slowlog).value(QStringLiteral("coverage"))[QStringLiteral("nodes")].toInt(), 3);
    QHash<QString, QString> found;
    for (const QJsonValue v : json(slowlog).value(QStringLiteral("records")).toArray()) {
        const QString command = v[QStringLiteral("command")].toString();
        QVERIFY(!v[QStringLiteral("node")].toString().isEmpty());
        for (auto it = markNode.cbegin(); it != markNode.cend(); ++it)
            if (command.contains(it.key()))
                found.insert(it.key(), v[QStringLiteral("node")].toString());
    }
    QCOMPARE(found, markNode);

    // One server's slow log has no node column; --node all needs a cluster.
    const quint16 port = m_cluster.primaryPorts().value(0);
    const ProcessRun alone = run(QStringList{QStringLiteral("show"), QStringLiteral("slowlog"),
                                             QStringLiteral("--node"), QStringLiteral("127.0.0.1:%1").arg(port)}
                                 + seed());
    QVERIFY2(alone.code == 0, alone.err.constData());
    const QJsonArray records = json(alone).value(QStringLiteral("records")).toArray();
    QVERIFY(!records.isEmpty());
    QVERIFY(!records.first().toObject().contains(QStringLiteral("node")));
}

QTEST_GUILESS_MAIN(TstClusterShow)
#include "tst_clustershow.moc"
