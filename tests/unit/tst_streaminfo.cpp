// SPDX-License-Identifier: GPL-3.0-or-later
#include "streaminfo.h"

#include <QTest>

// Stream reply parsers against hand-built replies shaped like Redis 7.0, 7.2 and 6.0 answers,
// so the version fallbacks (no entries-read, lag, entries-added, inactive) are covered without
// an old server.
namespace {

RedisValue b(const QByteArray &s)
{
    return RedisValue::bulk(s);
}
RedisValue i(qint64 v)
{
    return RedisValue::integer(v);
}
RedisValue arr(QList<RedisValue> e)
{
    return RedisValue::array(std::move(e));
}
RedisValue entry(const QByteArray &id, QList<RedisValue> fields)
{
    return arr({b(id), arr(std::move(fields))});
}

RedisValue stream70()
{
    return arr({b("length"),
                i(3),
                b("radix-tree-keys"),
                i(1),
                b("radix-tree-nodes"),
                i(2),
                b("last-generated-id"),
                b("1700000000003-0"),
                b("max-deleted-entry-id"),
                b("1700000000000-5"),
                b("entries-added"),
                i(9),
                b("recorded-first-entry-id"),
                b("1700000000001-0"),
                b("groups"),
                i(2),
                b("first-entry"),
                entry("1700000000001-0", {b("k"), b("v")}),
                b("last-entry"),
                entry("1700000000003-0", {b("a"), b("1"), b("b"), b("2")})});
}

RedisValue stream60()
{
    return arr({b("length"), i(0), b("radix-tree-keys"), i(0), b("radix-tree-nodes"), i(1), b("last-generated-id"),
                b("0-0"), b("groups"), i(1), b("first-entry"), RedisValue::nil(), b("last-entry"), RedisValue::nil()});
}

} // namespace

class TestStreamInfo : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void stream70()
    {
        StreamInfo s;
        QVERIFY(streaminfo::parseStream(::stream70(), &s));
        QCOMPARE(s.length, 3);
        QCOMPARE(s.radixTreeNodes, 2);
        QCOMPARE(s.groups, 2);
        QCOMPARE(s.lastGeneratedId, QByteArray("1700000000003-0"));
        QCOMPARE(s.maxDeletedEntryId, QByteArray("1700000000000-5"));
        QCOMPARE(s.entriesAdded.value_or(-1), 9);
        QCOMPARE(s.recordedFirstEntryId, QByteArray("1700000000001-0"));
        QCOMPARE(s.firstEntry.id, QByteArray("1700000000001-0"));
        QCOMPARE(s.firstEntry.fields, (QList<QByteArray>{"k", "v"}));
        QCOMPARE(s.lastEntry.fields.size(), 4);
        QCOMPARE(s.neverDeleted(), std::optional<bool>(false));
    }

    void stream60()
    {
        StreamInfo s;
        QVERIFY(streaminfo::parseStream(::stream60(), &s));
        QCOMPARE(s.length, 0);
        QVERIFY(!s.entriesAdded.has_value());
        QVERIFY(s.maxDeletedEntryId.isEmpty());
        QVERIFY(!s.neverDeleted().has_value());
        QVERIFY(s.firstEntry.isNull());
        QVERIFY(s.lastEntry.isNull());
    }

    void streamMalformed_data()
    {
        QTest::addColumn<RedisValue>("reply");
        QTest::newRow("error") << RedisValue::error("WRONGTYPE Operation against a key");
        QTest::newRow("odd") << arr({b("length")});
        QTest::newRow("no length") << arr({b("groups"), i(1)});
        QTest::newRow("nil") << RedisValue::nil();
    }
    void streamMalformed()
    {
        QFETCH(RedisValue, reply);
        StreamInfo s;
        s.length = 42;
        QVERIFY(!streaminfo::parseStream(reply, &s));
        QCOMPARE(s.length, 42);
    }

    void groups_data()
    {
        QTest::addColumn<RedisValue>("reply");
        QTest::addColumn<bool>("hasEntriesRead");
        QTest::addColumn<bool>("lagKnown");
        QTest::addColumn<qint64>("lag"); // -1: nil
        const RedisValue base60 = arr({b("name"), b("billing"), b("consumers"), i(2), b("pending"), i(7),
                                       b("last-delivered-id"), b("1700000000003-0")});
        QList<RedisValue> e70 = base60.elements();
        e70 << b("entries-read") << i(9) << b("lag") << i(1);
        QList<RedisValue> nilLag = base60.elements();
        nilLag << b("entries-read") << RedisValue::nil() << b("lag") << RedisValue::nil();
        QTest::newRow("6.0") << arr({base60}) << false << false << qint64(-1);
        QTest::newRow("7.0") << arr({arr(e70)}) << true << true << qint64(1);
        QTest::newRow("7.0 nil lag") << arr({arr(nilLag)}) << false << true << qint64(-1);
    }
    void groups()
    {
        QFETCH(RedisValue, reply);
        QFETCH(bool, hasEntriesRead);
        QFETCH(bool, lagKnown);
        QFETCH(qint64, lag);
        QList<StreamGroupInfo> g;
        QVERIFY(streaminfo::parseGroups(reply, &g));
        QCOMPARE(g.size(), 1);
        QCOMPARE(g.first().name, QByteArray("billing"));
        QCOMPARE(g.first().consumers, 2);
        QCOMPARE(g.first().pending, 7);
        QCOMPARE(g.first().lastDeliveredId, QByteArray("1700000000003-0"));
        QCOMPARE(g.first().entriesRead.has_value(), hasEntriesRead);
        QCOMPARE(g.first().lagKnown, lagKnown);
        QCOMPARE(g.first().lag.value_or(-1), lag);
    }

    void consumers_data()
    {
        QTest::addColumn<RedisValue>("reply");
        QTest::addColumn<qint64>("inactive"); // -2: absent
        const RedisValue c60 = arr({b("name"), b("alice"), b("pending"), i(4), b("idle"), i(1234)});
        QList<RedisValue> c72 = c60.elements();
        c72 << b("inactive") << i(99);
        QTest::newRow("6.0") << arr({c60}) << qint64(-2);
        QTest::newRow("7.2") << arr({arr(c72)}) << qint64(99);
    }
    void consumers()
    {
        QFETCH(RedisValue, reply);
        QFETCH(qint64, inactive);
        QList<StreamConsumerInfo> c;
        QVERIFY(streaminfo::parseConsumers(reply, &c));
        QCOMPARE(c.size(), 1);
        QCOMPARE(c.first().name, QByteArray("alice"));
        QCOMPARE(c.first().pending, 4);
        QCOMPARE(c.first().idleMs, 1234);
        QCOMPARE(c.first().inactiveMs.value_or(-2), inactive);
    }

    void pending()
    {
        QList<PendingEntry> p;
        QVERIFY(streaminfo::parsePending(
            arr({arr({b("1-0"), b("alice"), i(5000), i(3)}), arr({b("2-0"), b("bob"), i(10), i(1)})}), &p));
        QCOMPARE(p.size(), 2);
        QCOMPARE(p.at(0).id, QByteArray("1-0"));
        QCOMPARE(p.at(0).consumer, QByteArray("alice"));
        QCOMPARE(p.at(0).idleMs, 5000);
        QCOMPARE(p.at(0).deliveries, 3);
        QCOMPARE(p.at(1).consumer, QByteArray("bob"));
        QVERIFY(!streaminfo::parsePending(arr({arr({b("1-0")})}), &p));
    }

    void pendingSummary()
    {
        PendingSummary s;
        QVERIFY(streaminfo::parsePendingSummary(
            arr({i(5), b("1-0"), b("9-0"), arr({arr({b("alice"), b("3")}), arr({b("bob"), b("2")})})}), &s));
        QCOMPARE(s.count, 5);
        QCOMPARE(s.minId, QByteArray("1-0"));
        QCOMPARE(s.maxId, QByteArray("9-0"));
        QCOMPARE(s.perConsumer.size(), 2);
        QCOMPARE(s.perConsumer.at(1).second, 2);
        // Nothing pending: nils.
        QVERIFY(
            streaminfo::parsePendingSummary(arr({i(0), RedisValue::nil(), RedisValue::nil(), RedisValue::nil()}), &s));
        QCOMPARE(s.count, 0);
        QVERIFY(s.minId.isEmpty());
        QVERIFY(s.perConsumer.isEmpty());
    }

    void entries()
    {
        QList<StreamEntry> e;
        QVERIFY(
            streaminfo::parseEntries(arr({entry("1-0", {b("f"), b("v")}), RedisValue::nil(), entry("2-0", {})}), &e));
        QCOMPARE(e.size(), 2);
        QCOMPARE(e.at(1).id, QByteArray("2-0"));
        QVERIFY(streaminfo::parseEntries(arr({}), &e));
        QVERIFY(e.isEmpty());
    }

    void autoClaim_data()
    {
        QTest::addColumn<RedisValue>("reply");
        QTest::addColumn<int>("claimed");
        QTest::addColumn<int>("deleted");
        QTest::newRow("6.2") << arr({b("0-0"), arr({entry("1-0", {b("f"), b("v")})})}) << 1 << 0;
        QTest::newRow("7.0") << arr({b("5-0"), arr({entry("1-0", {}), entry("2-0", {})}), arr({b("3-0")})}) << 2 << 1;
        QTest::newRow("justid") << arr({b("0-0"), arr({b("1-0"), b("2-0")}), arr({})}) << 2 << 0;
    }
    void autoClaim()
    {
        QFETCH(RedisValue, reply);
        QFETCH(int, claimed);
        QFETCH(int, deleted);
        AutoClaimReply a;
        QVERIFY(streaminfo::parseAutoClaim(reply, &a));
        QCOMPARE(a.claimedIds.size(), claimed);
        QCOMPARE(a.deletedIds.size(), deleted);
    }

    void ids_data()
    {
        QTest::addColumn<QByteArray>("id");
        QTest::addColumn<QByteArray>("next");
        QTest::addColumn<QByteArray>("previous");
        QTest::addColumn<qint64>("ms");
        QTest::newRow("plain") << QByteArray("5-3") << QByteArray("5-4") << QByteArray("5-2") << qint64(5);
        QTest::newRow("seq wraps") << QByteArray("5-18446744073709551615") << QByteArray("6-0")
                                   << QByteArray("5-18446744073709551614") << qint64(5);
        QTest::newRow("zero") << QByteArray("0-0") << QByteArray("0-1") << QByteArray() << qint64(0);
        QTest::newRow("ms only") << QByteArray("7") << QByteArray("7-1") << QByteArray("6-18446744073709551615")
                                 << qint64(7);
        QTest::newRow("junk") << QByteArray("x-1") << QByteArray() << QByteArray() << qint64(-1);
    }
    void ids()
    {
        QFETCH(QByteArray, id);
        QFETCH(QByteArray, next);
        QFETCH(QByteArray, previous);
        QFETCH(qint64, ms);
        QCOMPARE(streamid::next(id), next);
        QCOMPARE(streamid::previous(id), previous);
        QCOMPARE(streamid::milliseconds(id), ms);
        QVERIFY(streamid::less("5-3", "5-10"));
        QVERIFY(!streamid::less("6-0", "5-10"));
    }
};

QTEST_GUILESS_MAIN(TestStreamInfo)
#include "tst_streaminfo.moc"
