// SPDX-License-Identifier: GPL-3.0-or-later
// CLIENT LIST as Redis 7.0 and 7.2+ write it, client-output-buffer-limit as CONFIG GET gives it
// and as people write it, and which subscribers are slow.
#include "clientlist.h"
#include "pubsub.h"
#include "pubsubtail.h"
#include "redisvalue.h"

#include <QTest>

class TestPubSubModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void clientList()
    {
        // Redis 7.0.15, then 7.2's lib-name/lib-ver and an IPv6 address.
        const QByteArray reply
            = "id=7 addr=127.0.0.1:50124 laddr=127.0.0.1:6379 fd=9 name=bull:ZW1haWw=:w:mailer age=12 idle=3 "
              "flags=P db=0 sub=2 psub=1 ssub=0 multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=1024 rbp=0 "
              "obl=0 oll=3 omem=61440 tot-mem=83240 events=r cmd=subscribe user=default redir=-1 resp=2\n"
              "id=8 addr=[::1]:40000 laddr=[::1]:6379 fd=10 name= age=1 idle=0 flags=N db=2 sub=0 psub=0 ssub=0 "
              "multi=-1 qbuf=26 qbuf-free=20448 argv-mem=10 multi-mem=0 rbs=1024 rbp=0 obl=0 oll=0 omem=0 "
              "tot-mem=22426 events=r cmd=client|list user=app redir=-1 resp=3 lib-name=redis-py lib-ver=5.0.1\n"
              "\n";
        const QList<ClientEntry> clients = parseClientList(reply);
        QCOMPARE(clients.size(), 2);
        const ClientEntry &a = clients.at(0);
        QCOMPARE(a.id, 7);
        QCOMPARE(a.name, QByteArray("bull:ZW1haWw=:w:mailer"));
        QCOMPARE(a.host(), QByteArray("127.0.0.1"));
        QCOMPARE(a.sub, 2);
        QCOMPARE(a.psub, 1);
        QCOMPARE(a.omem, 61440);
        QCOMPARE(a.totMem, 83240);
        QCOMPARE(a.oll, 3);
        QVERIFY(a.isPubSub());
        QVERIFY(a.libName.isEmpty()); // not sent before 7.2
        const ClientEntry &b = clients.at(1);
        QCOMPARE(b.host(), QByteArray("::1"));
        QVERIFY(b.name.isEmpty());
        QCOMPARE(b.db, 2);
        QCOMPARE(b.cmd, QByteArray("client|list"));
        QCOMPARE(b.user, QByteArray("app"));
        QCOMPARE(b.libName, QByteArray("redis-py"));
        QCOMPARE(b.libVer, QByteArray("5.0.1"));
        QVERIFY(!b.isPubSub());
        QVERIFY(parseClientList("garbage without fields\n").isEmpty());
    }

    void outputLimit_data()
    {
        QTest::addColumn<QByteArray>("config");
        QTest::addColumn<bool>("known");
        QTest::addColumn<qint64>("hard");
        QTest::addColumn<qint64>("soft");
        QTest::addColumn<qint64>("seconds");
        QTest::newRow("CONFIG GET") << QByteArray("normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60")
                                    << true << qint64(33554432) << qint64(8388608) << qint64(60);
        QTest::newRow("units") << QByteArray("pubsub 64mb 16MB 30") << true << qint64(64) * (1 << 20)
                               << qint64(16) * (1 << 20) << qint64(30);
        QTest::newRow("none") << QByteArray("pubsub 0 0 0") << true << qint64(0) << qint64(0) << qint64(0);
        QTest::newRow("missing") << QByteArray("normal 0 0 0") << false << qint64(0) << qint64(0) << qint64(0);
        QTest::newRow("malformed") << QByteArray("pubsub lots 1 2") << false << qint64(0) << qint64(0) << qint64(0);
    }
    void outputLimit()
    {
        QFETCH(QByteArray, config);
        QFETCH(bool, known);
        QFETCH(qint64, hard);
        QFETCH(qint64, soft);
        QFETCH(qint64, seconds);
        const pubsub::OutputLimit l = pubsub::pubsubLimit(config);
        QCOMPARE(l.known, known);
        QCOMPARE(l.hardBytes, hard);
        QCOMPARE(l.softBytes, soft);
        QCOMPARE(l.softSeconds, seconds);
    }

    void slowSubscribers()
    {
        const pubsub::OutputLimit limit = pubsub::pubsubLimit("pubsub 32mb 8mb 60");
        const auto client = [](qint64 id, qint64 omem, qint64 sub = 1) {
            ClientEntry c;
            c.id = id;
            c.sub = sub;
            c.omem = omem;
            c.flags = sub > 0 ? "P" : "N";
            return c;
        };
        const QList<pubsub::SlowSubscriber> slow = pubsub::slowSubscribers(
            {client(1, 0), client(2, 4 << 20), client(3, 9 << 20), client(4, 12 << 20, 0), client(5, 1 << 20)}, limit);
        // Over the soft limit (critical), then a quarter of the hard limit (a warning); not a
        // normal client, not a small buffer.
        QCOMPARE(slow.size(), 1);
        QCOMPARE(slow.at(0).client.id, 3);
        QVERIFY(slow.at(0).critical);
        const QList<pubsub::SlowSubscriber> noSoft = pubsub::slowSubscribers({client(6, 9 << 20), client(7, 25 << 20)},
                                                                             pubsub::pubsubLimit("pubsub 32mb 0 0"));
        QCOMPARE(noSoft.size(), 2);
        QCOMPARE(noSoft.at(0).client.id, 7); // worst first
        QVERIFY(noSoft.at(0).critical); // 78 % of the hard limit
        QVERIFY(!noSoft.at(1).critical); // 28 %
        QVERIFY2(noSoft.at(1).verdict.startsWith(QLatin1String("28 % of the hard limit")),
                 qPrintable(noSoft.at(1).verdict));
        // No limit at all: a growing buffer is the server's memory.
        const QList<pubsub::SlowSubscriber> unlimited
            = pubsub::slowSubscribers({client(8, 3 << 20)}, pubsub::pubsubLimit("pubsub 0 0 0"));
        QCOMPARE(unlimited.size(), 1);
        QVERIFY(unlimited.at(0).verdict.contains(QLatin1String("no limit cuts it")));
    }

    // The three shapes a subscribed connection receives, and what is not a message.
    void tailMessages()
    {
        const auto b = [](const char *s) { return RedisValue::bulk(QByteArray(s)); };
        auto m = pubsub::tailMessage(RedisValue::array({b("message"), b("orders"), b("{\"id\":1}")}));
        QVERIFY(m);
        QCOMPARE(m->channel, QByteArray("orders"));
        QCOMPARE(m->payload, QByteArray("{\"id\":1}"));
        QVERIFY(m->pattern.isEmpty() && !m->shard);
        m = pubsub::tailMessage(RedisValue::array({b("pmessage"), b("orders.*"), b("orders.eu"), b("x")}));
        QVERIFY(m);
        QCOMPARE(m->pattern, QByteArray("orders.*"));
        QCOMPARE(m->channel, QByteArray("orders.eu"));
        m = pubsub::tailMessage(RedisValue::array({b("smessage"), b("{shard}1"), b("y")}));
        QVERIFY(m && m->shard);
        QVERIFY(!pubsub::tailMessage(RedisValue::array({b("subscribe"), b("orders"), RedisValue::integer(1)})));
        QVERIFY(!pubsub::tailMessage(RedisValue::array({b("pmessage"), b("p"), b("c")})));
        QVERIFY(!pubsub::tailMessage(RedisValue::status("OK")));
    }

    // The bound holds by count and by bytes; dropped messages are counted, newest kept.
    void tailBound()
    {
        pubsub::TailBuffer buffer;
        buffer.setBound(100, qint64(1) << 30);
        for (int i = 1; i <= 250; ++i)
            buffer.append({0, 0, "c", {}, QByteArray::number(i)}, 1000);
        QCOMPARE(buffer.messages().size(), size_t(100));
        QCOMPARE(buffer.dropped(), 150);
        QCOMPARE(buffer.received(), 250);
        QCOMPARE(buffer.messages().front().payload, QByteArray("151"));
        QCOMPARE(buffer.messages().front().seq, quint64(151));
        QCOMPARE(buffer.firstSeq(), quint64(151));
        buffer.noteDropped(7);
        QCOMPARE(buffer.dropped(), 157);

        pubsub::TailBuffer bytes;
        const pubsub::TailMessage big{0, 0, "c", {}, QByteArray(1000, 'x')};
        bytes.setBound(1000000, pubsub::footprint(big) * 4);
        for (int i = 0; i < 10; ++i)
            bytes.append(big, 1000);
        QCOMPARE(bytes.messages().size(), size_t(4));
        QVERIFY(bytes.bytes() <= bytes.boundBytes());
        bytes.setBound(2, bytes.boundBytes()); // a smaller bound applies at once
        QCOMPARE(bytes.messages().size(), size_t(2));
        QCOMPARE(bytes.dropped(), 8);
    }

    // Rates over the last whole seconds, busiest first; channels past the tracked limit together.
    void tailRates()
    {
        pubsub::TailBuffer buffer;
        const qint64 t0 = 1'700'000'000'000;
        for (int s = 0; s < 5; ++s) {
            for (int i = 0; i < 100; ++i)
                buffer.append({0, 0, "fast", {}, "x"}, t0 + s * 1000 + i);
            buffer.append({0, 0, "slow", {}, "x"}, t0 + s * 1000 + 500);
        }
        QList<pubsub::ChannelRate> rates = buffer.rates(t0 + 5000);
        QCOMPARE(rates.size(), 2);
        QCOMPARE(rates.at(0).channel, QByteArray("fast"));
        QCOMPARE(rates.at(0).perSecond, 100.0);
        QCOMPARE(rates.at(0).total, 500);
        QVERIFY(qFuzzyCompare(rates.at(1).perSecond, 5 / 4.5)); // heard since t0 + 0.5 s
        // Heard for the first time this very second: measured over a second at least.
        for (int i = 0; i < 10; ++i)
            buffer.append({0, 0, "new", {}, "x"}, t0 + 5000 + i);
        rates = buffer.rates(t0 + 5200);
        const auto fresh = std::find_if(rates.cbegin(), rates.cend(), [](const auto &r) { return r.channel == "new"; });
        QVERIFY(fresh != rates.cend());
        QCOMPARE(fresh->perSecond, 10.0);
        // Quiet for a while: the rate falls to nothing, the totals stay.
        rates = buffer.rates(t0 + 60000);
        QCOMPARE(rates.at(0).perSecond, 0.0);
        QCOMPARE(rates.at(0).total + rates.at(1).total + rates.at(2).total, 515);

        pubsub::TailBuffer many;
        for (int i = 0; i < pubsub::TailBuffer::kMaxTrackedChannels + 50; ++i)
            many.append({0, 0, "key:" + QByteArray::number(i), {}, "x"}, t0);
        rates = many.rates(t0);
        QCOMPARE(rates.size(), pubsub::TailBuffer::kMaxTrackedChannels + 1);
        const auto other
            = std::find_if(rates.cbegin(), rates.cend(), [](const auto &r) { return r.channel.isEmpty(); });
        QVERIFY(other != rates.cend());
        QCOMPARE(other->total, 50);
    }
};

QTEST_GUILESS_MAIN(TestPubSubModel)
#include "tst_pubsubmodel.moc"
