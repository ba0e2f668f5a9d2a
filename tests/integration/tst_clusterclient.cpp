// SPDX-License-Identifier: GPL-3.0-or-later
// RedisClient and KeyScanner on a real Redis Cluster (three primaries with a replica each, on
// loopback ports): commands reach the node that owns their keys, redirections are followed,
// and a scan sees every key exactly as the union of SCAN on each primary, also while slots move.
#include "clusterkeys.h"
#include "clusterrouter.h"
#include "commandstats.h"
#include "followclock.h"
#include "keyscanner.h"
#include "localserver.h"
#include "redisclient.h"
#include "testcluster.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QProcess>
#include <QScopeGuard>
#include <QSet>
#include <QSignalSpy>
#include <QTest>

using namespace cluster;

class TstClusterClient : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void keyPositionsAgreeWithTheServer();
    void notAClusterRunsAsOneServer();
    void connectsAndReadsTheSlotMap();
    void seedsAreTriedInTurn();
    void slotsWhenShardsIsRefused();
    void batchesAreRoutedAndAnsweredInOrder();
    void scriptLoadReachesEveryPrimary();
    void scanEqualsTheUnionOfNodeScans();
    void scanWithMatchAndType();
    void scanThroughReplicasSparesThePrimaries();
    void movedIsFollowed();
    void askIsFollowed();
    void tryAgainAndClusterDownAreRetried();
    void scanDuringReshardingMissesNothing();
    void readOnlyWritesNothing();
    void failoverIsFollowed();
    void scanWaitsForAFailedPrimarysSuccessor();

private:
    std::unique_ptr<RedisClient> connectClient(bool readOnly = false, quint16 port = 0);
    static QSet<QByteArray> scanAll(RedisClient *client, const ScanOptions &options, ScanProgress *last = nullptr);
    QHash<QByteArray, QByteArray> nodeDigests();
    // Every name the scanner delivers goes into 'names'.
    static void collectNames(KeyScanner &scanner, QSet<QByteArray> *names)
    {
        QObject::connect(&scanner, &KeyScanner::batchAvailable, [names](const ScanBatch &b) {
            for (const ScannedKey &k : b.keys)
                names->insert(k.name);
        });
    }

    TestCluster m_cluster;
    QList<QByteArray> m_keys;
};

void TstClusterClient::initTestCase()
{
    QString error;
    QVERIFY2(m_cluster.start(&error), qPrintable(error));
    m_keys = m_cluster.populate(20000);
    QCOMPARE(m_cluster.allKeys().size(), m_keys.size());
}

std::unique_ptr<RedisClient> TstClusterClient::connectClient(bool readOnly, quint16 port)
{
    ConnectionProfile p;
    p.host = QStringLiteral("127.0.0.1");
    p.port = port ? port : m_cluster.seedPort();
    p.cluster = true;
    p.readOnly = readOnly;
    auto client = std::make_unique<RedisClient>(p);
    QSignalSpy ready(client.get(), &RedisClient::ready);
    client->connectToServer();
    if (!ready.wait(10000))
        return nullptr;
    return client;
}

QSet<QByteArray> TstClusterClient::scanAll(RedisClient *client, const ScanOptions &options, ScanProgress *last)
{
    KeyScanner scanner(client);
    QSet<QByteArray> names;
    collectNames(scanner, &names);
    QSignalSpy finished(&scanner, &KeyScanner::finished);
    scanner.start(options);
    if (!finished.wait(120000))
        qWarning("the scan did not finish");
    if (last && !finished.isEmpty())
        *last = finished.constFirst().constFirst().value<ScanProgress>();
    return names;
}

// The table of key positions against COMMAND GETKEYS, for the commands RedisLens sends and
// the shapes of the rest.
void TstClusterClient::keyPositionsAgreeWithTheServer()
{
    const QList<RedisCommand> commands{
        {"GET", "a"},
        {"SET", "a", "1", "PX", "10"},
        {"PTTL", "a"},
        {"MEMORY", "USAGE", "a", "SAMPLES", "0"},
        {"OBJECT", "FREQ", "a"},
        {"OBJECT", "ENCODING", "a"},
        {"XINFO", "STREAM", "s"},
        {"XINFO", "GROUPS", "s"},
        {"XGROUP", "CREATE", "s", "g", "$"},
        {"XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s1", "s2", ">", ">"},
        {"XREAD", "COUNT", "2", "BLOCK", "0", "STREAMS", "s", "0"},
        {"EVAL", "return 1", "2", "k1", "k2", "arg"},
        {"EVALSHA", "0123456789012345678901234567890123456789", "1", "k1"},
        {"FCALL", "f", "1", "k1", "x"},
        {"ZUNION", "2", "z1", "z2", "WITHSCORES"},
        {"ZUNIONSTORE", "d", "2", "z1", "z2"},
        {"BLPOP", "l1", "l2", "0"},
        {"BLMPOP", "0", "2", "l1", "l2", "LEFT"},
        {"MSET", "a", "1", "b", "2"},
        {"DEL", "a", "b", "c"},
        {"RENAMENX", "a", "b"},
        {"LMOVE", "a", "b", "LEFT", "RIGHT"},
        {"BITOP", "AND", "d", "a", "b"},
        {"HMGET", "h", "f1", "f2"},
        {"GEOSEARCH", "g", "FROMMEMBER", "m", "BYRADIUS", "1", "km"},
        {"ZRANGE", "z", "0", "-1"},
        {"SINTERCARD", "2", "s1", "s2", "LIMIT", "1"},
    };
    RawConnection seed(m_cluster.seedPort());
    for (const RedisCommand &c : commands) {
        RedisCommand ask{"COMMAND", "GETKEYS"};
        ask += c;
        const RedisValue reply = seed.command(ask);
        QVERIFY2(reply.isArray(), c.join(' ').constData());
        QList<QByteArray> expected;
        for (const RedisValue &k : reply.elements())
            expected << k.bytes();
        QList<QByteArray> ours;
        for (int i : keyPositions(c))
            ours << c.at(i);
        QVERIFY2(ours == expected, c.join(' ').constData());
    }
    for (const RedisCommand &c : QList<RedisCommand>{{"INFO"},
                                                     {"PING"},
                                                     {"CONFIG", "GET", "x"},
                                                     {"SCAN", "0"},
                                                     {"EVAL", "return 1", "0"},
                                                     {"OBJECT", "HELP"},
                                                     {"MEMORY", "STATS"}})
        QVERIFY2(keyPositions(c).isEmpty(), c.join(' ').constData());
    QCOMPARE(commandSlot({"MGET", "{u1}a", "{u1}b"}), int(keySlot("u1")));
    QCOMPARE(commandSlot({"MGET", "a", "b"}), -2);
    QCOMPARE(commandSlot({"PING"}), -1);
}

// A profile marked cluster against a plain server: it says why and works as one server.
void TstClusterClient::notAClusterRunsAsOneServer()
{
    TestServer plain;
    QVERIFY(plain.start());
    plain.command({"SET", "only", "1"});
    ConnectionProfile p;
    p.port = plain.port();
    p.cluster = true;
    RedisClient client(p);
    QSignalSpy ready(&client, &RedisClient::ready);
    client.connectToServer();
    QVERIFY(ready.wait(10000));
    QVERIFY(client.cluster() == nullptr);
    QVERIFY2(client.clusterProblem().contains(QStringLiteral("cluster support disabled")),
             qPrintable(client.clusterProblem()));
    ScanOptions o;
    QCOMPARE(scanAll(&client, o), QSet<QByteArray>{"only"});
}

void TstClusterClient::connectsAndReadsTheSlotMap()
{
    auto client = connectClient();
    QVERIFY(client);
    ClusterRouter *router = client->cluster();
    QVERIFY(router);
    QCOMPARE(router->topology().coveredSlots(), kSlotCount);
    QCOMPARE(router->topology().primaries().size(), 3);
    QCOMPARE(router->seedNodeId(), RawConnection(m_cluster.seedPort()).command({"CLUSTER", "MYID"}).bytes());
    QSet<quint16> ports;
    for (RedisClient *c : router->primaryClients())
        ports.insert(c->profile().port);
    const QList<quint16> expected = m_cluster.primaryPorts();
    QCOMPARE(ports, QSet<quint16>(expected.cbegin(), expected.cend()));
}

// Seeds nothing listens on come first: the connection moves on to the one that answers, a
// request made meanwhile is answered there, and the profile says where it went. With no seed
// answering, one error names every seed and why it failed.
void TstClusterClient::seedsAreTriedInTurn()
{
    const quint16 dead1 = LocalServer::freePort();
    quint16 dead2 = LocalServer::freePort();
    while (dead2 == dead1)
        dead2 = LocalServer::freePort();
    ConnectionProfile p;
    p.host = QStringLiteral("127.0.0.1");
    p.port = dead1;
    p.cluster = true;
    p.clusterSeeds
        = {QStringLiteral("127.0.0.1:%1").arg(dead2), QStringLiteral("127.0.0.1:%1").arg(m_cluster.seedPort())};
    {
        RedisClient client(p);
        QSignalSpy ready(&client, &RedisClient::ready);
        QSignalSpy errors(&client, &RedisClient::connectionError);
        client.connectToServer();
        RedisReply early;
        // Keyless: before the slot map is read, a keyed command would meet the seed's MOVED.
        client.send({"ECHO", "early"}, &client, [&early](const RedisReply &r) { early = r; });
        QVERIFY(ready.wait(10000));
        QCOMPARE(errors.size(), 0); // the dead seeds were tried, not reported
        QVERIFY2(client.cluster(), qPrintable(client.clusterProblem()));
        QCOMPARE(client.profile().port, m_cluster.seedPort());
        QVERIFY(client.profile().clusterSeeds.contains(QStringLiteral("127.0.0.1:%1").arg(dead1)));
        QTRY_VERIFY_WITH_TIMEOUT(early.id != 0, 5000);
        QVERIFY2(early.ok(), qPrintable(early.error.message));
        QCOMPARE(early.value().bytes(), QByteArray("early"));
        QCOMPARE(scanAll(&client, ScanOptions()).size(), m_keys.size());
    }
    p.clusterSeeds = {QStringLiteral("127.0.0.1:%1").arg(dead2)};
    RedisClient client(p);
    QSignalSpy errors(&client, &RedisClient::connectionError);
    client.connectToServer();
    QVERIFY(errors.wait(10000));
    const QString message = errors.at(0).at(0).value<RedisError>().message;
    QVERIFY2(message.startsWith(QLatin1String("no seed node answers")), qPrintable(message));
    QVERIFY2(message.contains(QString::number(dead1)) && message.contains(QString::number(dead2)), qPrintable(message));
}

// A user who may not run CLUSTER SHARDS (an ACL, or a server before 7.0): the map comes from
// CLUSTER SLOTS, at the start and when it is read again.
void TstClusterClient::slotsWhenShardsIsRefused()
{
    for (const quint16 port : m_cluster.primaryPorts())
        QCOMPARE(RawConnection(port).command(
                     {"ACL", "SETUSER", "noshards", "on", ">pw-71", "~*", "+@all", "-cluster|shards"}),
                 RedisValue::status("OK"));
    ConnectionProfile p;
    p.port = m_cluster.seedPort();
    p.cluster = true;
    p.username = QStringLiteral("noshards");
    p.password = QStringLiteral("pw-71");
    RedisClient client(p);
    QSignalSpy ready(&client, &RedisClient::ready);
    client.connectToServer();
    QVERIFY(ready.wait(10000));
    QVERIFY2(client.cluster(), qPrintable(client.clusterProblem()));
    QCOMPARE(client.cluster()->topology().coveredSlots(), kSlotCount);
    bool refreshed = false;
    client.cluster()->refresh([&] { refreshed = true; });
    QTRY_VERIFY_WITH_TIMEOUT(refreshed, 10000);
    QVERIFY2(client.cluster()->lastNotice().isEmpty(), qPrintable(client.cluster()->lastNotice()));
    QCOMPARE(client.cluster()->topology().primaries().size(), 3);
    QCOMPARE(scanAll(&client, ScanOptions()).size(), m_keys.size());
}

// One batch with keys of every node, answered in its own order, as a single server would.
void TstClusterClient::batchesAreRoutedAndAnsweredInOrder()
{
    auto client = connectClient();
    QVERIFY(client);
    QList<RedisCommand> batch;
    for (int i = 0; i < 3000; i += 7) {
        batch.append({"GET", m_keys.at(i)});
        batch.append({"PING"});
        batch.append({"STRLEN", m_keys.at(i)});
    }
    batch.append({"MGET", "key:1", "key:2"}); // two slots: CROSSSLOT, as the server says
    const RedisReply got = waitForReply(*client, batch, 10000);
    QVERIFY2(got.ok(), qPrintable(got.error.message));
    QCOMPARE(got.values.size(), batch.size());
    for (int i = 0, at = 0; i < 3000; i += 7, at += 3) {
        QCOMPARE(got.values.at(at).bytes(), "v" + QByteArray::number(i));
        QCOMPARE(got.values.at(at + 1), RedisValue::status("PONG"));
        QCOMPARE(got.values.at(at + 2).toInteger(), qint64(1 + QByteArray::number(i).size()));
    }
    QVERIFY(got.values.constLast().isError());
    QVERIFY(got.values.constLast().bytes().startsWith("CROSSSLOT"));
    QCOMPARE(client->pendingCount(), 0);
}

// SCRIPT LOAD has no key: it goes to every primary, so the EVALSHAs behind it in the same batch
// find the script whichever node owns their keys (the stream dead-letter action sends that).
void TstClusterClient::scriptLoadReachesEveryPrimary()
{
    auto client = connectClient();
    QVERIFY(client);
    const QByteArray source = "return redis.call('GET', KEYS[1]) -- loaded once, run anywhere";
    const QByteArray sha = RawConnection(m_cluster.seedPort()).command({"SCRIPT", "LOAD", source}).bytes();
    for (const quint16 port : m_cluster.primaryPorts())
        RawConnection(port).command({"SCRIPT", "FLUSH"});
    QList<RedisCommand> batch{{"SCRIPT", "LOAD", source}};
    QSet<quint16> owners;
    for (int i = 0; i < 60; ++i) {
        batch.append({"EVALSHA", sha, "1", m_keys.at(i)});
        owners.insert(client->cluster()->ownerOf(keySlot(m_keys.at(i)))->address.port);
    }
    QCOMPARE(owners.size(), 3);
    const RedisReply got = waitForReply(*client, batch, 10000);
    QCOMPARE(got.value(0).bytes(), sha);
    for (int i = 0; i < 60; ++i)
        QCOMPARE(got.value(i + 1).bytes(), "v" + QByteArray::number(i));
    for (const quint16 port : m_cluster.primaryPorts())
        QCOMPARE(RawConnection(port).command({"SCRIPT", "EXISTS", sha}).at(0).toInteger(), qint64(1));
}

void TstClusterClient::scanEqualsTheUnionOfNodeScans()
{
    auto client = connectClient();
    QVERIFY(client);
    const QList<QByteArray> all = m_cluster.allKeys();
    const QSet<QByteArray> expected(all.cbegin(), all.cend());
    ScanOptions o;
    ScanProgress last;
    const QSet<QByteArray> names = scanAll(client.get(), o, &last);
    QCOMPARE(names.size(), expected.size());
    QCOMPARE(names, expected);
    QVERIFY(last.finished);
    QCOMPARE(last.nodes, 3);
    QCOMPARE(last.nodesDone, 3);
    QCOMPARE(last.dbsize, qint64(expected.size()));
    QVERIFY(!last.error);
    // Each primary's own part: its address, its DBSIZE, at least its keys returned, done.
    QCOMPARE(last.perNode.size(), 3);
    for (const NodeScanProgress &n : std::as_const(last.perNode)) {
        const quint16 port = n.address.section(QLatin1Char(':'), -1).toUShort();
        QVERIFY2(m_cluster.primaryPorts().contains(port), qPrintable(n.address));
        const qint64 size = RawConnection(port).command({"DBSIZE"}).toInteger();
        QCOMPARE(n.dbsize, size);
        QVERIFY2(n.returned >= quint64(size), qPrintable(n.address));
        QVERIFY(n.done && !n.waiting && n.problem.isEmpty());
    }
}

// --cluster-scan-replicas: every key is found, and the primaries are not walked: their SCAN,
// TYPE and PTTL counts do not move while each replica's do.
void TstClusterClient::scanThroughReplicasSparesThePrimaries()
{
    const QList<QByteArray> all = m_cluster.allKeys();
    const QSet<QByteArray> expected(all.cbegin(), all.cend());
    const QList<quint16> primaries = m_cluster.primaryPorts();
    QCOMPARE(primaries.size(), 3);
    QList<quint16> replicas;
    for (TestServer *n : m_cluster.nodes())
        if (n->server().isRunning() && !primaries.contains(n->port()))
            replicas << n->port();
    QCOMPARE(replicas.size(), 3);
    // Replicated before the walk: a replica trails its primary by the replication lag.
    qint64 replicated = 0;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            replicated = 0;
            for (quint16 port : replicas)
                replicated += RawConnection(port).command({"DBSIZE"}).toInteger();
            return replicated == qint64(expected.size());
        }(),
        20000);

    ConnectionProfile p;
    p.host = QStringLiteral("127.0.0.1");
    p.port = m_cluster.seedPort();
    p.cluster = true;
    p.clusterScanReplicas = true;
    RedisClient client(p);
    client.connectToServer();
    QVERIFY(waitForReady(client, 10000));
    const auto walked = [](quint16 port) {
        RawConnection raw(port);
        return commandCalls(raw, {"scan", "type", "pttl"});
    };
    QHash<quint16, qint64> before;
    for (quint16 port : primaries + replicas)
        before.insert(port, walked(port));
    ScanProgress last;
    const QSet<QByteArray> names = scanAll(&client, ScanOptions(), &last);
    QCOMPARE(names.size(), expected.size());
    QCOMPARE(names, expected);
    QVERIFY(last.finished);
    QCOMPARE(last.nodes, 3);
    QVERIFY(!last.error);
    for (quint16 port : primaries)
        QVERIFY2(walked(port) == before.value(port),
                 qPrintable(QStringLiteral("primary %1 was walked: %2 scan/type/pttl calls")
                                .arg(port)
                                .arg(walked(port) - before.value(port))));
    for (quint16 port : replicas)
        QVERIFY2(walked(port) > before.value(port), qPrintable(QStringLiteral("replica %1 was not walked").arg(port)));
}

void TstClusterClient::scanWithMatchAndType()
{
    auto client = connectClient();
    QVERIFY(client);
    ScanOptions o;
    o.match = "key:1?";
    QSet<QByteArray> expected;
    for (int i = 10; i < 20; ++i)
        expected.insert("key:" + QByteArray::number(i));
    QCOMPARE(scanAll(client.get(), o), expected);
    o.match.clear();
    o.type = KeyType::Hash;
    QCOMPARE(scanAll(client.get(), o), QSet<QByteArray>());
}

// A slot moved behind the client's back: the old owner answers MOVED, the client follows it,
// updates its map and the next command goes straight to the new owner.
void TstClusterClient::movedIsFollowed()
{
    auto client = connectClient();
    QVERIFY(client);
    ClusterRouter *router = client->cluster();
    const QByteArray key = m_keys.at(42);
    const int slot = keySlot(key);
    const Address from = router->ownerOf(slot)->address;
    Address to;
    for (const Node &n : router->topology().primaries())
        if (n.address != from)
            to = n.address;
    QVERIFY(m_cluster.moveSlot(slot, from.port, to.port));
    QCOMPARE(RawConnection(to.port).command({"GET", key}).bytes(), QByteArray("v42"));
    const quint64 mark = router->redirectMark();
    QObject context;
    RedisReply got;
    bool done = false;
    client->send({"GET", key}, &context, [&](const RedisReply &r) {
        got = r;
        done = true;
    });
    QTRY_VERIFY_WITH_TIMEOUT(done, 10000);
    QCOMPARE(got.value().bytes(), QByteArray("v42"));
    QCOMPARE(router->ownerOf(slot)->address, to);
    QVERIFY(router->slotsRedirectedSince(mark).contains(slot));
    QVERIFY(router->lastNotice().contains(QString::number(slot)));
}

// A slot halfway through a migration: the key already moved answers ASK on the source, and
// the client asks the target with ASKING, without changing its map.
void TstClusterClient::askIsFollowed()
{
    auto client = connectClient();
    QVERIFY(client);
    ClusterRouter *router = client->cluster();
    const QByteArray key = m_keys.at(77);
    const int slot = keySlot(key);
    const Node *owner = router->ownerOf(slot);
    const Address from = owner->address;
    Node target;
    for (const Node &n : router->topology().primaries())
        if (n.address != from)
            target = n;
    QVERIFY(m_cluster.beginMigration(slot, from.port, target.address.port, {key}));
    RawConnection source(from.port);
    QVERIFY(source.command({"GET", key}).bytes().startsWith("ASK "));
    QObject context;
    RedisReply got;
    bool done = false;
    client->sendBatch({{"GET", key}, {"TYPE", key}}, &context, [&](const RedisReply &r) {
        got = r;
        done = true;
    });
    QTRY_VERIFY_WITH_TIMEOUT(done, 10000);
    QCOMPARE(got.value(0).bytes(), QByteArray("v77"));
    QCOMPARE(got.value(1), RedisValue::status("string"));
    QCOMPARE(router->ownerOf(slot)->address, from); // ASK does not move the slot
    // A read-only connection follows it too: ASKING changes no data.
    auto readOnly = connectClient(true);
    QVERIFY(readOnly);
    done = false;
    readOnly->send({"GET", key}, &context, [&](const RedisReply &r) {
        got = r;
        done = true;
    });
    QTRY_VERIFY_WITH_TIMEOUT(done, 10000);
    QVERIFY2(got.ok(), qPrintable(got.error.message));
    QCOMPARE(got.value().bytes(), QByteArray("v77"));
    // Finish the migration so the cluster is whole again.
    QVERIFY(m_cluster.finishMigration(slot, from.port, target.address.port));
}

// A multi-key command in a slot halfway through a migration answers TRYAGAIN; a slot no node
// serves answers CLUSTERDOWN. Both are retried with backoff, said in the router's notice (the
// status bar's line), and answered once the cluster is whole again, not failed.
void TstClusterClient::tryAgainAndClusterDownAreRetried()
{
    auto client = connectClient();
    QVERIFY(client);
    ClusterRouter *router = client->cluster();
    QObject context;
    RedisReply got;
    bool done = false;
    const auto answer = [&](const RedisReply &r) {
        got = r;
        done = true;
    };

    const QByteArray a = "{retry}:a";
    const QByteArray b = "{retry}:b";
    const int slot = keySlot(a);
    m_cluster.write({{"SET", a, "va"}, {"SET", b, "vb"}});
    const Address from = router->ownerOf(slot)->address;
    Node target;
    for (const Node &n : router->topology().primaries())
        if (n.address != from)
            target = n;
    // One key moved, the other not yet: the source cannot answer for both. Whatever happens
    // below, the cluster is left whole and without these keys for the tests after this one.
    QVERIFY(m_cluster.beginMigration(slot, from.port, target.address.port, {a}));
    bool migrated = false;
    int givenUp = -1;
    quint16 givenUpBy = 0;
    auto mend = qScopeGuard([&] {
        if (!migrated)
            m_cluster.finishMigration(slot, from.port, target.address.port);
        if (givenUp >= 0)
            RawConnection(givenUpBy).command({"CLUSTER", "ADDSLOTS", QByteArray::number(givenUp)});
        m_cluster.waitForOk();
        m_cluster.write({{"DEL", "{retry}:a", "{retry}:b"}, {"DEL", "{down}:c"}});
    });
    RawConnection source(from.port);
    QVERIFY(source.command({"MGET", a, b}).bytes().startsWith("TRYAGAIN"));
    client->send({"MGET", a, b}, &context, answer);
    QTRY_VERIFY2_WITH_TIMEOUT(router->lastNotice().contains(QStringLiteral("TRYAGAIN")),
                              qPrintable(router->lastNotice()), 10000);
    QVERIFY(router->lastNotice().contains(QStringLiteral("retrying")));
    QVERIFY(!done);
    migrated = true;
    QVERIFY(m_cluster.finishMigration(slot, from.port, target.address.port));
    QTRY_VERIFY_WITH_TIMEOUT(done, 20000);
    QVERIFY2(got.ok(), qPrintable(got.error.message));
    QCOMPARE(got.value(), RedisValue::array({RedisValue::bulk("va"), RedisValue::bulk("vb")}));

    // The owner gives its slot up: nobody serves it until it takes it back.
    const QByteArray c = "{down}:c";
    const int downSlot = keySlot(c);
    m_cluster.write({{"SET", c, "vc"}});
    givenUpBy = router->ownerOf(downSlot)->address.port;
    RawConnection owner(givenUpBy);
    QCOMPARE(owner.command({"CLUSTER", "DELSLOTS", QByteArray::number(downSlot)}), RedisValue::status("OK"));
    givenUp = downSlot;
    QVERIFY(owner.command({"GET", c}).bytes().startsWith("CLUSTERDOWN"));
    done = false;
    client->send({"GET", c}, &context, answer);
    QTRY_VERIFY2_WITH_TIMEOUT(router->lastNotice().contains(QStringLiteral("CLUSTERDOWN")),
                              qPrintable(router->lastNotice()), 10000);
    QVERIFY(router->lastNotice().contains(QStringLiteral("retrying")));
    QVERIFY(!done);
    givenUp = -1;
    QCOMPARE(owner.command({"CLUSTER", "ADDSLOTS", QByteArray::number(downSlot)}), RedisValue::status("OK"));
    QTRY_VERIFY_WITH_TIMEOUT(done, 20000);
    QVERIFY2(got.ok(), qPrintable(got.error.message));
    QCOMPARE(got.value().bytes(), QByteArray("vc"));
}

// redis-cli --cluster reshard moves 2,000 slots while a paced scan walks the cluster: the scan
// ends with every key, none twice in the model's eyes and none missing.
void TstClusterClient::scanDuringReshardingMissesNothing()
{
    auto client = connectClient();
    QVERIFY(client);
    ClusterRouter *router = client->cluster();
    const QList<Node> primaries = router->topology().primaries();
    const QList<QByteArray> before = m_cluster.allKeys();
    const QSet<QByteArray> expected(before.cbegin(), before.cend());
    auto reshard = [&](const Node &from, const Node &to, QProcess *process) {
        process->setProcessChannelMode(QProcess::MergedChannels);
        process->start(QStringLiteral("redis-cli"),
                       {QStringLiteral("--cluster"), QStringLiteral("reshard"),
                        QStringLiteral("127.0.0.1:%1").arg(m_cluster.seedPort()), QStringLiteral("--cluster-from"),
                        QString::fromLatin1(from.id), QStringLiteral("--cluster-to"), QString::fromLatin1(to.id),
                        QStringLiteral("--cluster-slots"), QStringLiteral("2000"), QStringLiteral("--cluster-yes"),
                        QStringLiteral("--cluster-pipeline"), QStringLiteral("50")});
    };
    ScanOptions o;
    o.maxCommandsPerSecond = 4000; // slow enough for keys to move under the walk
    o.initialCount = 20;
    o.maxCount = 50;
    for (const bool concurrent : {false, true}) {
        KeyScanner scanner(client.get());
        QSet<QByteArray> names;
        collectNames(scanner, &names);
        QSignalSpy finished(&scanner, &KeyScanner::finished);
        scanner.start(o);
        QProcess move;
        if (!concurrent) {
            // Deterministic: the walk is part way when 2,000 slots move behind its cursors.
            QTRY_VERIFY_WITH_TIMEOUT(names.size() >= 1000, 30000);
            scanner.pause();
            QVERIFY(finished.isEmpty());
            QVERIFY(names.size() < expected.size());
            reshard(primaries.at(0), primaries.at(1), &move);
            QVERIFY(move.waitForFinished(120000));
            scanner.resume();
        } else {
            // And as it happens in production: the move and the walk at the same time.
            reshard(primaries.at(1), primaries.at(2), &move);
            QVERIFY(move.waitForStarted());
            QTRY_VERIFY_WITH_TIMEOUT(move.state() == QProcess::NotRunning, 120000);
        }
        QVERIFY2(move.exitCode() == 0, move.readAll().right(2000).constData());
        QVERIFY(!finished.isEmpty() || finished.wait(120000));
        const ScanProgress last = finished.constFirst().constFirst().value<ScanProgress>();
        QVERIFY2(!last.error, qPrintable(last.error.message));
        qInfo("%s: %llu names returned for %lld keys in %.1f s", concurrent ? "concurrent" : "paused", last.returned,
              qint64(expected.size()), last.elapsedSeconds);
        QCOMPARE(names.size(), expected.size());
        QCOMPARE(names, expected);
        QVERIFY(m_cluster.waitForOk());
    }
}

QHash<QByteArray, QByteArray> TstClusterClient::nodeDigests()
{
    QHash<QByteArray, QByteArray> out;
    for (const quint16 port : m_cluster.primaryPorts())
        out.insert(QByteArray::number(port), RawConnection(port).command({"DEBUG", "DIGEST"}).bytes());
    return out;
}

// Read-only on a cluster: every node refuses writes, a scan and reads write nothing anywhere.
void TstClusterClient::readOnlyWritesNothing()
{
    for (const quint16 port : m_cluster.primaryPorts())
        RawConnection(port).command({"CONFIG", "RESETSTAT"});
    const auto digests = nodeDigests();
    auto client = connectClient(true);
    QVERIFY(client);
    ScanOptions o;
    o.memory = true;
    o.elements = true;
    QCOMPARE(scanAll(client.get(), o).size(), m_keys.size());
    QObject context;
    RedisReply got;
    bool done = false;
    client->sendBatch({{"SET", m_keys.at(5), "x"}, {"DEL", m_keys.at(6)}}, &context, [&](const RedisReply &r) {
        got = r;
        done = true;
    });
    QTRY_VERIFY_WITH_TIMEOUT(done, 10000);
    QVERIFY(!got.ok());
    QCOMPARE(got.error.kind, RedisError::Kind::ReadOnlyRefused);
    QCOMPARE(nodeDigests(), digests);
    for (const quint16 port : m_cluster.primaryPorts()) {
        const QByteArray stats = RawConnection(port).command({"INFO", "commandstats"}).bytes();
        for (const char *write : {"cmdstat_set:", "cmdstat_del:", "cmdstat_unlink:"})
            QVERIFY2(!stats.contains(write), stats.constData());
    }
}

// The seed's primary dies: its replica takes over (the cluster's part: cluster-node-timeout and
// an election), and the client follows within 5 s of the cluster having done so; a scan that was
// walking the dead node ends with every key, read from its successor.
void TstClusterClient::failoverIsFollowed()
{
    auto client = connectClient();
    QVERIFY(client);
    ClusterRouter *router = client->cluster();
    const QList<QByteArray> all = m_cluster.allKeys();
    const QSet<QByteArray> expected(all.cbegin(), all.cend());
    // A key the seed owns: the seed is the node that dies.
    const quint16 victim = m_cluster.seedPort();
    QByteArray key;
    for (const QByteArray &k : m_keys)
        if (router->ownerOf(keySlot(k))->address.port == victim)
            key = k;
    QVERIFY(!key.isEmpty());
    ScanOptions o;
    o.maxCommandsPerSecond = 3000;
    o.initialCount = 20;
    o.maxCount = 50;
    KeyScanner scanner(client.get());
    QSet<QByteArray> names;
    collectNames(scanner, &names);
    QSignalSpy finished(&scanner, &KeyScanner::finished);
    scanner.start(o);
    QTRY_VERIFY_WITH_TIMEOUT(names.size() >= 1000, 30000);
    TestServer *dead = nullptr;
    for (TestServer *n : m_cluster.nodes())
        if (n->port() == victim)
            dead = n;
    dead->server().stop();
    // The cluster has failed over when a surviving node names another owner for the key's slot.
    const FollowTimes t = measureFollow(
        *client, {"GET", key},
        [&] {
            for (const quint16 port : m_cluster.primaryPorts()) {
                const Redirect r = Redirect::parse(RawConnection(port).command({"GET", key}).bytes());
                if (port != victim && (r.kind == Redirect::Kind::None || r.address.port != victim))
                    return true;
            }
            return false;
        },
        [](const RedisReply &r) { return r.ok() && r.value().isString(); });
    const qint64 clusterDoneMs = t.serverMs;
    const qint64 clientDoneMs = t.clientMs;
    qInfo("the cluster failed over after %lld ms; the client followed after %lld ms", clusterDoneMs, clientDoneMs);
    QVERIFY(clusterDoneMs >= 0);
    QVERIFY(clientDoneMs >= 0);
    QVERIFY2(clientDoneMs - clusterDoneMs <= 5000, "the client took more than 5 s to follow the failover");
    QVERIFY(!finished.isEmpty() || finished.wait(120000));
    const ScanProgress last = finished.constFirst().constFirst().value<ScanProgress>();
    QVERIFY2(!last.error, qPrintable(last.error.message));
    // The ground truth is what the cluster holds now: a replica promoted by a failover may lack
    // the last writes its primary had not yet sent it (replication is asynchronous).
    const QList<QByteArray> now = m_cluster.allKeys();
    const QSet<QByteArray> held(now.cbegin(), now.cend());
    QVERIFY(held.size() >= expected.size() - 100);
    const QSet<QByteArray> missing = held - names;
    const QSet<QByteArray> extra = names - held;
    QVERIFY2(missing.isEmpty() && extra.isEmpty(),
             qPrintable(
                 QStringLiteral("%1 keys held but not scanned (%2), %3 scanned but not held (%4)")
                     .arg(missing.size())
                     .arg(QString::fromLatin1(QList<QByteArray>(missing.cbegin(), missing.cend()).mid(0, 5).join(' ')))
                     .arg(extra.size())
                     .arg(QString::fromLatin1(QList<QByteArray>(extra.cbegin(), extra.cend()).mid(0, 5).join(' ')))));
    // Keyless commands go to a live primary while the seed is down.
    QObject context;
    bool pinged = false;
    client->send({"PING"}, &context, [&](const RedisReply &r) { pinged = r.ok(); });
    QTRY_VERIFY_WITH_TIMEOUT(pinged, 10000);
}

// A primary dies and the cluster is slow to replace it (here its replica is told not to fail over
// until the test says so): the nodes that are up finish their walk, the scan waits for the dead
// node's slots to get an owner, says so, and ends with every key once the replica takes over.
void TstClusterClient::scanWaitsForAFailedPrimarysSuccessor()
{
    // A primary with a live replica (the seed died in failoverIsFollowed; its successor has
    // none), and another primary to connect to.
    const QList<quint16> primaries = m_cluster.primaryPorts();
    QVERIFY(primaries.size() >= 3);
    TestServer *replica = nullptr;
    TestServer *dead = nullptr;
    for (TestServer *n : m_cluster.nodes()) {
        const RedisValue role = n->server().isRunning() ? n->command({"ROLE"}) : RedisValue();
        if (!replica && role.isArray() && role.at(0).bytes() == "slave") {
            replica = n;
            for (TestServer *p : m_cluster.nodes())
                if (p->port() == quint16(role.at(2).toInteger()))
                    dead = p;
        }
    }
    if (!dead || !replica)
        QFAIL("no primary with a live replica");
    const quint16 seed = primaries.at(primaries.at(0) == dead->port() ? 1 : 0);
    QCOMPARE(replica->command({"CONFIG", "SET", "cluster-replica-no-failover", "yes"}).bytes(), QByteArray("OK"));
    const QList<QByteArray> before = m_cluster.allKeys();
    const QSet<QByteArray> expected(before.cbegin(), before.cend());

    auto client = connectClient(false, seed);
    QVERIFY(client);
    dead->server().stop();
    KeyScanner scanner(client.get());
    QSet<QByteArray> names;
    collectNames(scanner, &names);
    QSignalSpy finished(&scanner, &KeyScanner::finished);
    ScanProgress latest;
    connect(&scanner, &KeyScanner::progressChanged, this, [&](const ScanProgress &p) { latest = p; });
    scanner.start(ScanOptions());
    // The other nodes are walked; the dead one's slots lose their owner when the cluster marks
    // it failed (cluster-node-timeout), and the scan says it waits.
    QTRY_VERIFY_WITH_TIMEOUT(latest.waitingForConnection && latest.error.kind == RedisError::Kind::ClusterDown, 30000);
    QVERIFY2(latest.error.message.contains(QLatin1String("no primary owns slots")), qPrintable(latest.error.message));
    QVERIFY(finished.isEmpty());
    QTest::qWait(1500);
    QVERIFY(finished.isEmpty());

    QCOMPARE(replica->command({"CLUSTER", "FAILOVER", "TAKEOVER"}).bytes(), QByteArray("OK"));
    QVERIFY(!finished.isEmpty() || finished.wait(60000));
    const ScanProgress last = finished.constFirst().constFirst().value<ScanProgress>();
    QVERIFY2(!last.error, qPrintable(last.error.message));
    QCOMPARE(names, expected);
}

QTEST_GUILESS_MAIN(TstClusterClient)
#include "tst_clusterclient.moc"
