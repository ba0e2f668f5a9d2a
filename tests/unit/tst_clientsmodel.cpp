// SPDX-License-Identifier: GPL-3.0-or-later
// Connections grouped and the practice guides' hints, on CLIENT LIST lines as Redis writes them.
#include "clients.h"

#include <QTest>

namespace {

QByteArray line(int id, const char *addr, const char *name, int age, int idle, const char *flags = "N",
                const char *cmd = "ping", const char *lib = "")
{
    QByteArray l = "id=" + QByteArray::number(id) + " addr=" + addr + " laddr=127.0.0.1:6379 fd=8 name=" + name
        + " age=" + QByteArray::number(age) + " idle=" + QByteArray::number(idle) + " flags=" + flags
        + " db=0 sub=0 psub=0 ssub=0 multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=1024 rbp=0 obl=0 oll=0 "
          "omem=0 tot-mem=20000 events=r cmd="
        + cmd + " user=default redir=-1 resp=2";
    if (*lib)
        l += QByteArray(" lib-name=") + lib + " lib-ver=5.0.1";
    return l + '\n';
}

} // namespace

class TestClientsModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void groups()
    {
        QByteArray list;
        for (int i = 0; i < 10; ++i)
            list += line(i, "127.0.0.5:4000", "billing", 600, i < 8 ? 300 : 1, "N", "get", "redis-py");
        list += line(20, "127.0.0.1:5000", "redislens", 30, 0);
        list += line(21, "127.0.0.1:5001", "redislens-scan", 30, 0);
        list += line(22, "127.0.0.7:4001", "", 2, 0, "b", "blpop");
        list += line(23, "127.0.0.7:4002", "", 3, 0, "b", "xreadgroup");
        const QList<ClientEntry> clients = parseClientList(list);
        QCOMPARE(clients.size(), 14);

        const QList<clients::Group> byName = clients::group(clients, clients::GroupBy::Name);
        QCOMPARE(byName.at(0).key, QByteArray("billing"));
        QCOMPARE(byName.at(0).connections, 10);
        QCOMPARE(byName.at(0).idleLong, 8);
        QCOMPARE(byName.at(0).medianAge, 600);
        QCOMPARE(byName.at(0).memory, 200000);
        QVERIFY(!byName.at(0).own);
        const auto find = [](const QList<clients::Group> &groups, const QByteArray &key) {
            for (const clients::Group &g : groups)
                if (g.key == key)
                    return g;
            return clients::Group{};
        };
        QVERIFY(find(byName, "redislens").own);
        const clients::Group unnamed = find(byName, "(no name)");
        QCOMPARE(unnamed.connections, 2);
        QCOMPARE(unnamed.blocked, 2);
        QCOMPARE(unnamed.blockedOn.value("blpop"), 1);
        QCOMPARE(unnamed.blockedOn.value("xreadgroup"), 1);
        QCOMPARE(unnamed.young, 2);

        QCOMPARE(find(clients::group(clients, clients::GroupBy::Library), "redis-py 5.0.1").connections, 10);
        QCOMPARE(find(clients::group(clients, clients::GroupBy::Address), "127.0.0.7").connections, 2);
        QCOMPARE(find(clients::group(clients, clients::GroupBy::Command), "get").connections, 10);
        QCOMPARE(clients::groupByFromId(QStringLiteral("addr")), clients::GroupBy::Address);
        QVERIFY(!clients::groupByFromId(QStringLiteral("host")));

        // A pool far larger than its use (8 of 10 idle for minutes), connections without a name
        // (RedisLens's own named ones do not count), maxclients nearly reached, refusals.
        clients::Churn churn;
        churn.acceptedPerSecond = 0.2;
        churn.connected = 14;
        churn.maxClients = 16;
        churn.rejected = 3;
        QStringList ids;
        for (const clients::Hint &h : clients::hints(clients, churn)) {
            ids << h.id;
            if (h.id == QLatin1String("oversized-pool"))
                QCOMPARE(h.group, QByteArray("billing"));
            if (h.id == QLatin1String("no-client-name"))
                QVERIFY2(h.text.startsWith(QLatin1String("2 connection(s)")), qPrintable(h.text));
        }
        QCOMPARE(ids,
                 (QStringList{QStringLiteral("oversized-pool"), QStringLiteral("no-client-name"),
                              QStringLiteral("maxclients"), QStringLiteral("rejected")}));
    }

    void connectionPerRequest()
    {
        QByteArray list;
        for (int i = 0; i < 6; ++i)
            list += line(i, "127.0.0.9:5000", "", i % 3, 0);
        list += line(9, "127.0.0.5:4000", "web", 900, 2);
        const QList<ClientEntry> clients = parseClientList(list);
        clients::Churn churn;
        churn.acceptedPerSecond = 40;
        churn.newPerSecondByHost.insert("127.0.0.9", 38);
        churn.newPerSecondByHost.insert("127.0.0.5", 0.5);
        const QList<clients::Hint> hints = clients::hints(clients, churn);
        QCOMPARE(hints.at(0).id, QStringLiteral("connection-per-request"));
        QCOMPARE(hints.at(0).group, QByteArray("127.0.0.9"));
        // Young connections that are not arriving (a pool just started) are not that.
        churn.newPerSecondByHost.insert("127.0.0.9", 0);
        for (const clients::Hint &h : clients::hints(clients, churn))
            QVERIFY(h.id != QLatin1String("connection-per-request"));
    }
};

QTEST_GUILESS_MAIN(TestClientsModel)
#include "tst_clientsmodel.moc"
