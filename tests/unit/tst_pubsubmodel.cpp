// SPDX-License-Identifier: GPL-3.0-or-later
// CLIENT LIST as Redis 7.0 and 7.2+ write it, client-output-buffer-limit as CONFIG GET gives it
// and as people write it, and which subscribers are slow.
#include "clientlist.h"
#include "pubsub.h"

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
};

QTEST_GUILESS_MAIN(TestPubSubModel)
#include "tst_pubsubmodel.moc"
