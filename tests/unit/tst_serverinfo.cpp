// SPDX-License-Identifier: GPL-3.0-or-later
#include "respcodec.h"
#include "serverinfo.h"
#include "testdata.h"

#include <QFile>
#include <QTest>

// INFO as real servers send it (recorded from Redis 7.0.15 and 8.0.2, see
// tests/data/replies/README.md), and the corners of the format: CRLF, missing and repeated
// fields, db lines, subfields.
class TstServerInfo : public QObject
{
    Q_OBJECT

private:
    // The bulk string inside a recorded reply, as the engine hands it over.
    static QByteArray bulkOf(const QString &name)
    {
        const RedisValue v = recordedValue(name);
        if (!v.isString())
            qFatal("%s is not a bulk reply", qPrintable(name));
        return v.bytes();
    }

private Q_SLOTS:
    void defaultSections_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("version");
        QTest::addColumn<QList<QByteArray>>("sections");

        const QList<QByteArray> common{"Server", "Clients", "Memory",     "Persistence", "Stats",   "Replication",
                                       "CPU",    "Modules", "Errorstats", "Cluster",     "Keyspace"};
        QList<QByteArray> v8 = common;
        v8.insert(v8.indexOf("Stats"), "Threads");
        v8.append("Keysizes");
        QTest::newRow("7.0") << QStringLiteral("info-default-7.0.resp") << QByteArray("7.0.15") << common;
        QTest::newRow("8.0") << QStringLiteral("info-default-8.0.resp") << QByteArray("8.0.2") << v8;
    }

    void defaultSections()
    {
        QFETCH(QString, file);
        QFETCH(QByteArray, version);
        QFETCH(QList<QByteArray>, sections);
        const ServerInfo info = ServerInfo::parse(bulkOf(file), 1234);
        QVERIFY(!info.isEmpty());
        QCOMPARE(info.capturedAtMs(), qint64(1234));
        // Empty sections (CPU has fields; Errorstats and Cluster may not) are still listed.
        QCOMPARE(info.sections(), sections);
        QVERIFY(info.hasSection("keyspace"));
        QVERIFY(!info.hasSection("Commandstats")); // not in the default set
        QCOMPARE(info.value("redis_version"), version);
        QCOMPARE(info.value("role"), QByteArray("master"));
        QCOMPARE(info.value("run_id").size(), 40);
        QCOMPARE(info.value("maxmemory_policy"), QByteArray("noeviction"));
        QCOMPARE(info.integer("maxmemory"), qint64(0));
        QCOMPARE(info.integer("aof_enabled"), qint64(0));
        QCOMPARE(info.integer("connected_clients"), qint64(1));
        QCOMPARE(info.integer("blocked_clients"), qint64(0));
        QVERIFY(info.integer("used_memory") > 500000);
        QVERIFY(info.integer("used_memory_rss") > info.integer("used_memory"));
        QVERIFY(info.integer("used_memory_peak") >= info.integer("used_memory") / 2);
        QVERIFY(info.real("mem_fragmentation_ratio", 0) > 1);
        QVERIFY(info.integer("uptime_in_seconds") >= 0);
        QVERIFY(info.integer("server_time_usec") > 1700000000000000);
        QVERIFY(info.integer("rdb_last_save_time") > 1700000000);
        for (const char *counter : {"total_commands_processed", "total_net_input_bytes", "total_net_output_bytes",
                                    "keyspace_hits", "keyspace_misses", "expired_keys", "evicted_keys"})
            QVERIFY2(info.integer(counter) >= 0, counter);
        QVERIFY(info.integer("total_commands_processed") > 10);
        QVERIFY(info.value("executable").endsWith("/redis-server"));
        QCOMPARE(info.section("memory").first().name, QByteArray("used_memory"));
        // Keysizes (8.0) has "db0_distrib_…" fields; only Keyspace lines are databases.
        const QList<KeyspaceDb> dbs = info.keyspace();
        QCOMPARE(dbs.size(), 2);
        QCOMPARE(dbs[0].db, 0);
        QCOMPARE(dbs[0].keys, qint64(6));
        QCOMPARE(dbs[0].expires, qint64(3));
        QVERIFY(dbs[0].avgTtlMs > 30000000);
        QCOMPARE(dbs[1].db, 3);
        QCOMPARE(dbs[1].keys, qint64(2));
        QCOMPARE(dbs[1].expires, qint64(0));
        QCOMPARE(dbs[1].avgTtlMs, qint64(0));
    }

    void keyspaceReply_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("7.0") << QStringLiteral("info-keyspace-7.0.resp");
        QTest::newRow("8.0 with subexpiry") << QStringLiteral("info-keyspace-8.0.resp");
    }

    void keyspaceReply()
    {
        QFETCH(QString, file);
        const ServerInfo info = ServerInfo::parse(bulkOf(file));
        QCOMPARE(info.sections(), QList<QByteArray>{"Keyspace"});
        QCOMPARE(info.fields().size(), 2);
        const QList<KeyspaceDb> dbs = info.keyspace();
        QCOMPARE(dbs.size(), 2);
        QCOMPARE(dbs[0].keys, qint64(6));
        QCOMPARE(dbs[0].expires, qint64(3));
        QCOMPARE(dbs[1].db, 3);
        QCOMPARE(dbs[1].keys, qint64(2));
    }

    void serverSection()
    {
        // The older single-section recording.
        const ServerInfo info = ServerInfo::parse(bulkOf(QStringLiteral("info-server.resp")));
        QCOMPARE(info.sections(), QList<QByteArray>{"Server"});
        QCOMPARE(info.value("redis_version"), QByteArray("7.0.15"));
        QCOMPARE(info.integer("tcp_port"), qint64(7399));
        QCOMPARE(info.value("config_file"), QByteArray()); // present but empty
        QVERIFY(info.has("config_file"));
        QVERIFY(info.keyspace().isEmpty());
    }

    void lineEndings_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::newRow("CRLF") << QByteArray("# Server\r\nredis_version:7.0.15\r\nuptime_in_seconds:42\r\n");
        QTest::newRow("LF") << QByteArray("# Server\nredis_version:7.0.15\nuptime_in_seconds:42\n");
        QTest::newRow("no final newline") << QByteArray("# Server\r\nredis_version:7.0.15\r\nuptime_in_seconds:42");
        QTest::newRow("blank lines") << QByteArray(
            "\r\n\r\n# Server\r\n\r\nredis_version:7.0.15\r\n\r\nuptime_in_seconds:42\r\n\r\n");
        QTest::newRow("spaces after #") << QByteArray(
            "#   Server  \r\nredis_version:7.0.15\r\nuptime_in_seconds:42\r\n");
    }

    void lineEndings()
    {
        QFETCH(QByteArray, text);
        const ServerInfo info = ServerInfo::parse(text);
        QCOMPARE(info.fields().size(), 2);
        QCOMPARE(info.value("redis_version"), QByteArray("7.0.15")); // no trailing \r
        QCOMPARE(info.integer("uptime_in_seconds"), qint64(42));
        QCOMPARE(info.sections(), QList<QByteArray>{"Server"});
        QCOMPARE(info.fields().first().section, QByteArray("Server"));
    }

    void missingAndMalformed()
    {
        const ServerInfo info = ServerInfo::parse("# Stats\r\n"
                                                  "total_commands_processed:12\r\n"
                                                  "ratio:1.25\r\n"
                                                  "word:abc\r\n"
                                                  "no colon here\r\n"
                                                  ":novalue\r\n"
                                                  "empty:\r\n"
                                                  "master_host:::1\r\n");
        QCOMPARE(info.fields().size(), 5);
        QCOMPARE(
            info.value("master_host"),
            QByteArray("::1")); // a value may hold colons // the line without a colon and the nameless one are skipped
        QCOMPARE(info.integer("missing"), qint64(-1));
        QCOMPARE(info.integer("missing", 7), qint64(7));
        QCOMPARE(info.integer("word", 7), qint64(7));
        QCOMPARE(info.integer("ratio", 7), qint64(7)); // not a whole number
        QCOMPARE(info.real("ratio", 0), 1.25);
        QCOMPARE(info.real("total_commands_processed", 0), 12.0);
        QCOMPARE(info.real("word", -1), -1.0);
        QCOMPARE(info.real("missing", -2), -2.0);
        QCOMPARE(info.integer("empty", 9), qint64(9));
        QVERIFY(info.has("empty"));
        QVERIFY(!info.has("missing"));
        QCOMPARE(info.value("missing"), QByteArray());
        QCOMPARE(info.text("word"), QStringLiteral("abc"));

        const ServerInfo empty = ServerInfo::parse(QByteArray());
        QVERIFY(empty.isEmpty());
        QVERIFY(empty.sections().isEmpty());
        QVERIFY(empty.keyspace().isEmpty());
    }

    void repeatedNames()
    {
        // The last value wins and keeps the first one's place.
        const ServerInfo info = ServerInfo::parse("# A\r\nx:1\r\ny:2\r\n# B\r\nx:3\r\n");
        QCOMPARE(info.fields().size(), 2);
        QCOMPARE(info.integer("x"), qint64(3));
        QCOMPARE(info.fields().first().name, QByteArray("x"));
        QCOMPARE(info.fields().first().section, QByteArray("B"));
        QCOMPARE(info.sections(), (QList<QByteArray>{"A", "B"}));
        QCOMPARE(info.section("a").size(), 1);
        QCOMPARE(info.section("B").size(), 1);
    }

    void dbLines_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QList<int>>("dbs");
        QTest::addColumn<QList<qint64>>("keys");

        QTest::newRow("several") << QByteArray(
            "# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0\r\ndb15:keys=99,expires=9,avg_ttl=5\r\n")
                                 << QList<int>{0, 15} << QList<qint64>{1, 99};
        QTest::newRow("no section header")
            << QByteArray("db2:keys=5,expires=1,avg_ttl=0\r\n") << QList<int>{2} << QList<qint64>{5};
        QTest::newRow("fields in another order")
            << QByteArray("# Keyspace\r\ndb1:expires=2,keys=8\r\n") << QList<int>{1} << QList<qint64>{8};
        QTest::newRow("not a db number") << QByteArray("# Keyspace\r\ndbx:keys=1\r\ndb:keys=1\r\n") << QList<int>{}
                                         << QList<qint64>{};
        QTest::newRow("db-like field elsewhere")
            << QByteArray("# Stats\r\ndb9:keys=1\r\n# Keyspace\r\ndb0:keys=4,expires=0\r\n# "
                          "Keysizes\r\ndb0_distrib_strings_sizes:4=5\r\n")
            << QList<int>{0} << QList<qint64>{4};
        QTest::newRow("empty keyspace") << QByteArray("# Keyspace\r\n") << QList<int>{} << QList<qint64>{};
    }

    void dbLines()
    {
        QFETCH(QByteArray, text);
        QFETCH(QList<int>, dbs);
        QFETCH(QList<qint64>, keys);
        const QList<KeyspaceDb> got = ServerInfo::parse(text).keyspace();
        QCOMPARE(got.size(), dbs.size());
        for (qsizetype i = 0; i < got.size(); ++i) {
            QCOMPARE(got[i].db, dbs[i]);
            QCOMPARE(got[i].keys, keys[i]);
        }
    }

    void subfields_data()
    {
        using Pairs = QList<std::pair<QByteArray, QByteArray>>;
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<Pairs>("expected");
        QTest::newRow("keyspace") << QByteArray("keys=12,expires=3,avg_ttl=0")
                                  << Pairs{{"keys", "12"}, {"expires", "3"}, {"avg_ttl", "0"}};
        QTest::newRow("8.0 keyspace") << QByteArray("keys=6,expires=3,avg_ttl=32399973,subexpiry=0")
                                      << Pairs{{"keys", "6"},
                                               {"expires", "3"},
                                               {"avg_ttl", "32399973"},
                                               {"subexpiry", "0"}};
        // Repeated names stay, in order (listener lines bind twice for IPv4 and IPv6).
        QTest::newRow("listener") << QByteArray("name=tcp,bind=*,bind=-::*,port=6379")
                                  << Pairs{{"name", "tcp"}, {"bind", "*"}, {"bind", "-::*"}, {"port", "6379"}};
        QTest::newRow("cmdstat") << QByteArray("calls=3,usec=12,usec_per_call=4.00,rejected_calls=0,failed_calls=0")
                                 << Pairs{{"calls", "3"},
                                          {"usec", "12"},
                                          {"usec_per_call", "4.00"},
                                          {"rejected_calls", "0"},
                                          {"failed_calls", "0"}};
        QTest::newRow("equals in value") << QByteArray("a=b=c,d=") << Pairs{{"a", "b=c"}, {"d", ""}};
        QTest::newRow("junk parts skipped") << QByteArray("novalue,,=x,k=v") << Pairs{{"k", "v"}};
        QTest::newRow("empty") << QByteArray() << Pairs{};
    }

    void subfields()
    {
        using Pairs = QList<std::pair<QByteArray, QByteArray>>;
        QFETCH(QByteArray, value);
        QFETCH(Pairs, expected);
        QCOMPARE(ServerInfo::subfields(value), expected);
    }

    void recordedSubfieldLines()
    {
        const ServerInfo info = ServerInfo::parse(bulkOf(QStringLiteral("info-default-8.0.resp")));
        const auto listener = ServerInfo::subfields(info.value("listener0"));
        QCOMPARE(listener.size(), 3);
        QCOMPARE(listener[0], std::make_pair(QByteArray("name"), QByteArray("tcp")));
        const auto thread = ServerInfo::subfields(info.value("io_thread_0"));
        QCOMPARE(thread.size(), 3);
        QCOMPARE(thread[0].first, QByteArray("clients"));
        QCOMPARE(info.value("module").left(15), QByteArray("name=vectorset,"));
    }

    // A cluster's primaries read as one server: sums, the youngest, a failed save, the keys of
    // every database (one on a single part only) with their TTLs weighted by expires.
    void mergedParts()
    {
        const ServerInfo a = ServerInfo::parse("# Server\r\nredis_version:7.0.15\r\nrun_id:aaa\r\n"
                                               "uptime_in_seconds:500\r\nserver_time_usec:1000\r\n"
                                               "# Clients\r\nconnected_clients:3\r\nblocked_clients:1\r\n"
                                               "# Memory\r\nused_memory:1000\r\nused_memory_rss:3000\r\n"
                                               "mem_fragmentation_ratio:3.00\r\nmaxmemory:4000\r\n"
                                               "maxmemory_policy:allkeys-lru\r\n"
                                               "# Persistence\r\nrdb_last_bgsave_status:ok\r\naof_enabled:0\r\n"
                                               "# Stats\r\ntotal_commands_processed:10\r\nkeyspace_hits:7\r\n"
                                               "# Replication\r\nrole:master\r\nconnected_slaves:1\r\n"
                                               "# Keyspace\r\ndb0:keys=10,expires=2,avg_ttl=1000\r\n",
                                               100);
        const ServerInfo b = ServerInfo::parse("# Server\r\nredis_version:7.0.15\r\nrun_id:bbb\r\n"
                                               "uptime_in_seconds:20\r\nserver_time_usec:2000\r\n"
                                               "# Clients\r\nconnected_clients:4\r\nblocked_clients:0\r\n"
                                               "# Memory\r\nused_memory:3000\r\nused_memory_rss:3000\r\n"
                                               "mem_fragmentation_ratio:1.00\r\nmaxmemory:0\r\n"
                                               "maxmemory_policy:noeviction\r\n"
                                               "# Persistence\r\nrdb_last_bgsave_status:err\r\naof_enabled:1\r\n"
                                               "# Stats\r\ntotal_commands_processed:5\r\nkeyspace_hits:1\r\n"
                                               "# Replication\r\nrole:master\r\nconnected_slaves:1\r\n"
                                               "# Keyspace\r\ndb0:keys=30,expires=6,avg_ttl=3000\r\n"
                                               "db1:keys=1,expires=0,avg_ttl=0\r\n",
                                               300);
        const ServerInfo m = ServerInfo::merged({a, b});
        QCOMPARE(m.mergedNodes(), 2);
        QCOMPARE(a.mergedNodes(), 0);
        QCOMPARE(m.capturedAtMs(), qint64(300));
        QCOMPARE(m.integer("connected_clients"), qint64(7));
        QCOMPARE(m.integer("blocked_clients"), qint64(1));
        QCOMPARE(m.integer("used_memory"), qint64(4000));
        QCOMPARE(m.integer("used_memory_rss"), qint64(6000));
        QCOMPARE(m.value("mem_fragmentation_ratio"), QByteArray("1.50"));
        QCOMPARE(m.integer("maxmemory"), qint64(0)); // one part has no limit: neither has the whole
        QCOMPARE(m.value("maxmemory_policy"), QByteArray("allkeys-lru"));
        QCOMPARE(m.integer("total_commands_processed"), qint64(15));
        QCOMPARE(m.integer("keyspace_hits"), qint64(8));
        QCOMPARE(m.integer("connected_slaves"), qint64(2));
        QCOMPARE(m.integer("uptime_in_seconds"), qint64(20));
        QCOMPARE(m.integer("server_time_usec"), qint64(1000));
        QCOMPARE(m.value("run_id"), QByteArray("aaa,bbb"));
        QCOMPARE(m.value("rdb_last_bgsave_status"), QByteArray("err"));
        QCOMPARE(m.integer("aof_enabled"), qint64(1));
        QCOMPARE(m.value("role"), QByteArray("master"));
        const QList<KeyspaceDb> dbs = m.keyspace();
        QCOMPARE(dbs.size(), 2);
        QCOMPARE(dbs[0].keys, qint64(40));
        QCOMPARE(dbs[0].expires, qint64(8));
        QCOMPARE(dbs[0].avgTtlMs, qint64(2500)); // (1000×2 + 3000×6) / 8
        QCOMPARE(dbs[1].db, 1);
        QCOMPARE(dbs[1].keys, qint64(1));
        QVERIFY(m.hasSection("Keyspace"));
        QCOMPARE(m.section("Memory").size(), 5);

        // Both limited: the limits add up. One part alone is itself, counted.
        const ServerInfo limited = ServerInfo::parse("# Memory\r\nmaxmemory:100\r\n");
        QCOMPARE(ServerInfo::merged({limited, limited}).integer("maxmemory"), qint64(200));
        QCOMPARE(ServerInfo::merged({a}).integer("connected_clients"), qint64(3));
        QCOMPARE(ServerInfo::merged({a}).mergedNodes(), 1);
        QVERIFY(ServerInfo::merged({}).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TstServerInfo)
#include "tst_serverinfo.moc"
