// SPDX-License-Identifier: GPL-3.0-or-later
#include "clustertopology.h"
#include "redisvalue.h"

#include <QTest>

using namespace cluster;

class TestClusterTopology : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void crcCheckValue();
    void hashTags_data();
    void hashTags();
    void addresses();
    void redirects();
    void slotRanges();
    void addressMap();
    void slotsReplyAndMoves();
    void shardsAfterAFailover();
};

// CRC16/XMODEM's published check value for "123456789" is 0x31C3; the slot keeps 14 bits.
void TestClusterTopology::crcCheckValue()
{
    QCOMPARE(keySlot("123456789"), quint16(0x31C3 & 0x3FFF));
    QCOMPARE(keySlot(QByteArray()), quint16(0));
}

void TestClusterTopology::hashTags_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QByteArray>("tag");
    // The rules of the cluster specification: the first '{', the first '}' after it, not empty.
    QTest::newRow("tag") << QByteArray("{user1000}.following") << QByteArray("user1000");
    QTest::newRow("first pair wins") << QByteArray("foo{bar}{zap}") << QByteArray("bar");
    QTest::newRow("empty tag: whole key") << QByteArray("foo{}{bar}") << QByteArray();
    QTest::newRow("nested open") << QByteArray("foo{{bar}}zap") << QByteArray("{bar");
    QTest::newRow("no close") << QByteArray("foo{bar") << QByteArray();
    QTest::newRow("close first") << QByteArray("foo}bar{zap}") << QByteArray("zap");
    QTest::newRow("bull prefix") << QByteArray("bull:{emails}:wait") << QByteArray("emails");
    QTest::newRow("binary") << QByteArray("\x00{\xff\x01}", 5) << QByteArray("\xff\x01", 2);
}

void TestClusterTopology::hashTags()
{
    QFETCH(QByteArray, key);
    QFETCH(QByteArray, tag);
    QCOMPARE(hashTag(key), tag);
    QCOMPARE(keySlot(key), tag.isEmpty() ? keySlot(key) : keySlot(tag));
    if (!tag.isEmpty())
        QCOMPARE(keySlot(key), keySlot("prefix{" + tag + "}suffix"));
}

void TestClusterTopology::addresses()
{
    Address a;
    QVERIFY(parseAddress(QStringLiteral("127.0.0.1:7000"), &a));
    QCOMPARE(a.host, QStringLiteral("127.0.0.1"));
    QCOMPARE(a.port, quint16(7000));
    QVERIFY(parseAddress(QStringLiteral("127.0.0.1:7000@17000"), &a));
    QCOMPARE(a.port, quint16(7000));
    QVERIFY(parseAddress(QStringLiteral("[::1]:7001"), &a));
    QCOMPARE(a.host, QStringLiteral("::1"));
    QCOMPARE(a.toString(), QStringLiteral("[::1]:7001"));
    QVERIFY(parseAddress(QStringLiteral("::1:7002"), &a)); // as a node reports it, unbracketed
    QCOMPARE(a.host, QStringLiteral("::1"));
    QVERIFY(parseAddress(QStringLiteral(":7003"), &a)); // a node that does not know its address
    QVERIFY(a.host.isEmpty());
    QVERIFY(!parseAddress(QStringLiteral("127.0.0.1"), &a));
    QVERIFY(!parseAddress(QStringLiteral("127.0.0.1:0"), &a));
    QVERIFY(!parseAddress(QStringLiteral("127.0.0.1:70000"), &a));
    QVERIFY(!parseAddress(QStringLiteral("[::1:7000"), &a));
}

void TestClusterTopology::redirects()
{
    Redirect r = Redirect::parse("MOVED 3999 127.0.0.1:6381");
    QCOMPARE(r.kind, Redirect::Kind::Moved);
    QCOMPARE(r.slot, 3999);
    QCOMPARE(r.address, (Address{QStringLiteral("127.0.0.1"), 6381}));
    r = Redirect::parse("ASK 16383 [::1]:7000");
    QCOMPARE(r.kind, Redirect::Kind::Ask);
    QCOMPARE(r.address.host, QStringLiteral("::1"));
    for (const char *bad : {"MOVED 16384 127.0.0.1:1", "MOVED x 127.0.0.1:1", "MOVED 1", "ERR MOVED 1 a:1",
                            "WRONGTYPE Operation", "MOVED 1 127.0.0.1"})
        QCOMPARE(Redirect::parse(bad).kind, Redirect::Kind::None);
}

void TestClusterTopology::slotRanges()
{
    using cluster::slotRangesText;
    QCOMPARE(slotRangesText({}), QString());
    QCOMPARE(slotRangesText({7}), QStringLiteral("7"));
    QCOMPARE(slotRangesText({0, 1, 2, 5, 7, 8}), QStringLiteral("0-2, 5, 7-8"));
    QList<int> all;
    for (int s = 0; s < cluster::kSlotCount; ++s)
        all << s;
    QCOMPARE(slotRangesText(all), QStringLiteral("0-16383"));
    // A node's ranges, in any order and split where the server split them.
    cluster::Node n;
    QCOMPARE(n.slotsText(), QString());
    QCOMPARE(n.firstSlot(), cluster::kSlotCount);
    n.slots = {{10923, 16383}, {0, 99}, {100, 5460}};
    QCOMPARE(n.slotsText(), QStringLiteral("0-5460, 10923-16383"));
    QCOMPARE(n.firstSlot(), 0);
    QCOMPARE(n.slotCount(), 5461 + 5461);
}

void TestClusterTopology::addressMap()
{
    AddressMap map;
    QString error;
    QVERIFY(map.parse(QStringLiteral("127.0.0.10:7000=127.0.0.1:17000, 127.0.0.11=127.0.0.1"), &error));
    QCOMPARE(map.map({QStringLiteral("127.0.0.10"), 7000}), (Address{QStringLiteral("127.0.0.1"), 17000}));
    QCOMPARE(map.map({QStringLiteral("127.0.0.10"), 7001}), (Address{QStringLiteral("127.0.0.10"), 7001}));
    QCOMPARE(map.map({QStringLiteral("127.0.0.11"), 7005}), (Address{QStringLiteral("127.0.0.1"), 7005}));
    QCOMPARE(map.toString(), QStringLiteral("127.0.0.10:7000=127.0.0.1:17000,127.0.0.11=127.0.0.1"));
    map.setSeedHost(QStringLiteral("127.0.0.1"));
    QCOMPARE(map.map({QString(), 7009}), (Address{QStringLiteral("127.0.0.1"), 7009}));
    map.setKeepSeedHost(true);
    QCOMPARE(map.map({QStringLiteral("127.0.0.12"), 7009}), (Address{QStringLiteral("127.0.0.1"), 7009}));
    // A rule wins over keeping the seed's host.
    QCOMPARE(map.map({QStringLiteral("127.0.0.10"), 7000}), (Address{QStringLiteral("127.0.0.1"), 17000}));
    for (const char *bad : {"127.0.0.1", "a:1=b", "=b", "a=", "a:1=b:0"}) {
        AddressMap m;
        QVERIFY2(!m.parse(QString::fromLatin1(bad), &error), bad);
        QVERIFY(error.contains(QStringLiteral("address map rule")));
    }
}

namespace {
RedisValue node(const char *host, qint64 port, const char *id)
{
    return RedisValue::array({RedisValue::bulk(host), RedisValue::integer(port), RedisValue::bulk(id)});
}
RedisValue range(qint64 first, qint64 last, const QList<RedisValue> &nodes)
{
    QList<RedisValue> v{RedisValue::integer(first), RedisValue::integer(last)};
    return RedisValue::array(v + nodes);
}
} // namespace

void TestClusterTopology::slotsReplyAndMoves()
{
    const RedisValue reply = RedisValue::array({
        range(0, 5460, {node("127.0.0.1", 7000, "a"), node("127.0.0.1", 7003, "d")}),
        range(5461, 10922, {node("127.0.0.1", 7001, "b")}),
        range(10923, 16000, {node("127.0.0.1", 7002, "c"), node("127.0.0.1", 7004, "e")}),
        range(16001, 16383, {node("127.0.0.1", 7002, "c"), node("127.0.0.1", 7004, "e")}),
    });
    Topology t;
    QString error;
    QVERIFY2(t.readSlots(reply, AddressMap(), &error), qPrintable(error));
    QCOMPARE(t.primaries().size(), 3);
    QCOMPARE(t.nodes().size(), 5);
    QCOMPARE(t.coveredSlots(), kSlotCount);
    QCOMPARE(t.ownerOf(16383)->id, QByteArray("c"));
    QCOMPARE(t.ownerOf(16383)->slotCount(), 16383 - 10923 + 1);
    QCOMPARE(t.replicasOf("c").size(), 1);
    QCOMPARE(t.replicasOf("c").constFirst().address.port, quint16(7004));
    // MOVED: one slot changes hands and the old owner's range splits around it.
    QVERIFY(t.moveSlot(100, {QStringLiteral("127.0.0.1"), 7001}));
    QVERIFY(!t.moveSlot(100, {QStringLiteral("127.0.0.1"), 7001}));
    QCOMPARE(t.ownerOf(100)->id, QByteArray("b"));
    QCOMPARE(t.ownerOf(99)->id, QByteArray("a"));
    QCOMPARE(t.ownerOf(101)->id, QByteArray("a"));
    QCOMPARE(t.nodeAt({QStringLiteral("127.0.0.1"), 7000})->slotCount(), 5460);
    // To a node the map did not know: it joins as a primary.
    QVERIFY(t.moveSlot(0, {QStringLiteral("127.0.0.1"), 7010}));
    QCOMPARE(t.ownerOf(0)->address.port, quint16(7010));
    QCOMPARE(t.primaries().size(), 4);
    QVERIFY(!t.readSlots(RedisValue::error("ERR This instance has cluster support disabled"), AddressMap(), &error));
    QVERIFY(!t.readSlots(RedisValue::array({}), AddressMap(), &error));
    QVERIFY(!t.isEmpty()); // a refused read keeps the map it had
}

QTEST_GUILESS_MAIN(TestClusterTopology)
#include "tst_clustertopology.moc"

// CLUSTER SHARDS after a failover on Redis 7.2+: the shard lists the promoted replica and the
// old primary, both with role master, the old one with health "fail" (as Redis 8.0 answers;
// the documentation says "failed"). Only the live one owns the slots.
void TestClusterTopology::shardsAfterAFailover()
{
    const auto member = [](const char *id, qint64 port, const char *role, const char *health) {
        QList<RedisValue> f;
        const std::pair<const char *, RedisValue> fields[]
            = {{"id", RedisValue::bulk(id)},          {"port", RedisValue::integer(port)},
               {"ip", RedisValue::bulk("127.0.0.1")}, {"endpoint", RedisValue::bulk("127.0.0.1")},
               {"role", RedisValue::bulk(role)},      {"replication-offset", RedisValue::integer(100)},
               {"health", RedisValue::bulk(health)}};
        for (const auto &[name, value] : fields)
            f << RedisValue::bulk(name) << value;
        return RedisValue::array(f);
    };
    const auto shard = [](qint64 first, qint64 last, const QList<RedisValue> &nodes) {
        return RedisValue::array({RedisValue::bulk("slots"),
                                  RedisValue::array({RedisValue::integer(first), RedisValue::integer(last)}),
                                  RedisValue::bulk("nodes"), RedisValue::array(nodes)});
    };
    const RedisValue reply = RedisValue::array({
        shard(0, 8191, {member("old", 7000, "master", "fail"), member("new", 7003, "master", "online")}),
        shard(8192, 16383, {member("b", 7001, "master", "online"), member("b2", 7004, "replica", "online")}),
    });
    Topology t;
    QString error;
    QVERIFY2(t.readShards(reply, AddressMap(), &error), qPrintable(error));
    QCOMPARE(t.coveredSlots(), kSlotCount);
    QCOMPARE(t.primaries().size(), 2);
    QCOMPARE(t.ownerOf(0)->id, QByteArray("new"));
    QCOMPARE(t.ownerOf(0)->address.port, quint16(7003));
    QCOMPARE(t.ownerOf(9000)->id, QByteArray("b"));
    const Node *old = t.nodeAt({QStringLiteral("127.0.0.1"), 7000});
    QVERIFY(old);
    QVERIFY(!old->primary);
    QCOMPARE(old->primaryId, QByteArray("new"));
}
