// SPDX-License-Identifier: GPL-3.0-or-later
#include "keyscanner.h"
#include "redisclient.h"
#include "respcodec.h"
#include "testserver.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSet>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpSocket>
#include <QTest>

// KeyScanner + RedisClient against a real redis-server: what the scanner delivers is exactly
// what a plain SCAN loop sees, under deletion, growth, pausing, cancelling, pacing and a dying
// server.
class TstScanner : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;
    QList<QByteArray> m_binaryKeys;
    QSet<QByteArray> m_ttlKeys;

    struct StateLog
    {
        QList<RedisClient::State> states;
    };

    // Everything one scanner reported, as seen on the GUI thread.
    struct Collected
    {
        QList<ScannedKey> keys;
        QList<quint64> batchGenerations;
        QList<ScanProgress> progress;
        std::optional<ScanProgress> finished;
        int batches = 0;

        QSet<QByteArray> names() const
        {
            QSet<QByteArray> out;
            for (const ScannedKey &k : keys)
                out.insert(k.name);
            return out;
        }
        QHash<QByteArray, ScannedKey> byName() const
        {
            QHash<QByteArray, ScannedKey> out;
            for (const ScannedKey &k : keys)
                out.insert(k.name, k);
            return out;
        }
        const ScanProgress &last() const
        {
            static const ScanProgress none;
            return finished ? *finished : progress.isEmpty() ? none : progress.last();
        }
    };

    static void collect(KeyScanner &scanner, Collected &c)
    {
        QObject::connect(&scanner, &KeyScanner::batchAvailable, &scanner, [&c](const ScanBatch &b) {
            ++c.batches;
            c.batchGenerations.append(b.generation);
            c.keys += b.keys;
        });
        QObject::connect(&scanner, &KeyScanner::progressChanged, &scanner,
                         [&c](const ScanProgress &p) { c.progress.append(p); });
        QObject::connect(&scanner, &KeyScanner::finished, &scanner, [&c](const ScanProgress &p) { c.finished = p; });
    }

    static ConnectionProfile profileFor(const TestServer &server, int db)
    {
        ConnectionProfile p = server.profile();
        p.db = db;
        return p;
    }

    // One connection to one database, a scanner on it, and what the scanner delivers.
    struct Rig
    {
        Rig(const TestServer &server, int db) : client(profileFor(server, db))
        {
            client.connectToServer();
            collect(scanner, c);
        }
        RedisClient client;
        KeyScanner scanner{&client};
        Collected c;
    };

    static QSet<QByteArray> toSet(const QList<QByteArray> &list) { return QSet<QByteArray>(list.begin(), list.end()); }

    static QString describe(const QSet<QByteArray> &s)
    {
        QStringList out;
        for (const QByteArray &b : s) {
            if (out.size() == 5) {
                out << QStringLiteral("… (%1 in all)").arg(s.size());
                break;
            }
            out << QString::fromLatin1(b.left(40).toPercentEncoding());
        }
        return out.join(QLatin1String(", "));
    }

    // A plain SCAN loop in any database, on a connection of its own.
    QList<QByteArray> rawScan(int db, const QByteArray &match = {}, const QByteArray &type = {})
    {
        QList<QByteArray> keys;
        QByteArray cursor = "0";
        do {
            QList<QByteArray> scan{"SCAN", cursor, "COUNT", "1000"};
            if (!match.isEmpty())
                scan << "MATCH" << match;
            if (!type.isEmpty())
                scan << "TYPE" << type;
            const QList<RedisValue> r = m_server.pipeline({{"SELECT", QByteArray::number(db)}, scan});
            if (r.size() != 2 || r.at(1).size() != 2)
                return keys;
            cursor = r.at(1).at(0).bytes();
            for (const RedisValue &k : r.at(1).at(1).elements())
                keys.append(k.bytes());
        } while (cursor != "0");
        return keys;
    }

    qint64 rawDbsize(int db)
    {
        return m_server.pipeline({{"SELECT", QByteArray::number(db)}, {"DBSIZE"}}).value(1).toInteger();
    }

    void populate(int db, int count, const QByteArray &prefix)
    {
        const QList<RedisValue> r = m_server.pipeline(
            {{"SELECT", QByteArray::number(db)}, {"DEBUG", "POPULATE", QByteArray::number(count), prefix}});
        QCOMPARE(r.value(1), RedisValue::status("OK"));
    }

    // After pause(): waits until nothing the job sent before pausing is still on its way, so
    // 'c' holds everything delivered so far. Two PINGs on the scanner's own connection: the
    // first is answered after every step that was in flight, the second after the detail
    // requests those steps sent; the next progress report follows their batch.
    static void quiesce(RedisClient &client, KeyScanner &scanner)
    {
        QVERIFY(waitForReply(client, {{"PING"}}).ok());
        QVERIFY(waitForReply(client, {{"PING"}}).ok());
        QSignalSpy progress(&scanner, &KeyScanner::progressChanged);
        QVERIFY(progress.wait(3000));
    }

    static KeyType expectedType(const QByteArray &name)
    {
        if (name.startsWith("hash:"))
            return KeyType::Hash;
        if (name.startsWith("list:"))
            return KeyType::List;
        if (name.startsWith("set:"))
            return KeyType::Set;
        if (name.startsWith("zset:"))
            return KeyType::ZSet;
        if (name.startsWith("stream:"))
            return KeyType::Stream;
        return KeyType::String;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));

        // ~20,000 keys of every type in db 0, with TTLs and binary names.
        populate(0, 15000, "str");
        QList<QList<QByteArray>> cmds;
        for (int i = 0; i < 1500; ++i)
            cmds.append(RedisCommand{"HSET", "hash:" + QByteArray::number(i), "f1", "v1", "f2", QByteArray::number(i)});
        for (int i = 0; i < 1000; ++i)
            cmds.append(RedisCommand{"RPUSH", "list:" + QByteArray::number(i), "a", "b", "c"});
        for (int i = 0; i < 1000; ++i)
            cmds.append(RedisCommand{"SADD", "set:" + QByteArray::number(i), "a", "b"});
        for (int i = 0; i < 800; ++i)
            cmds.append(RedisCommand{"ZADD", "zset:" + QByteArray::number(i), "1", "a", "2.5", "b"});
        for (int i = 0; i < 200; ++i)
            cmds.append(RedisCommand{"XADD", "stream:" + QByteArray::number(i), "*", "f", "v"});
        for (int i = 0; i < 300; ++i) {
            const QByteArray k = "ttl:" + QByteArray::number(i);
            m_ttlKeys.insert(k);
            cmds.append(RedisCommand{"SET", k, "v", "PX", "3600000"});
        }
        m_binaryKeys = {QByteArrayLiteral("bin\0nul"),
                        QByteArray("\xff\xfe\xfd"),
                        QByteArray("line\nbreak"),
                        QByteArray(""),
                        QByteArray(64 * 1024, 'k') + QByteArrayLiteral("\0end"),
                        QByteArray("\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87")};
        for (const QByteArray &k : std::as_const(m_binaryKeys))
            cmds.append(RedisCommand{"SET", k, "binary"});
        const QList<RedisValue> replies = m_server.pipeline(cmds);
        QCOMPARE(replies.size(), cmds.size());
        for (const RedisValue &r : replies)
            QVERIFY2(!r.isError(), qPrintable(r.toDisplayString()));
        QCOMPARE(m_server.command({"DBSIZE"}), RedisValue::integer(15000 + 1500 + 1000 + 1000 + 800 + 200 + 300 + 6));
    }

    void fullScanMatchesServer()
    {
        Rig rig(m_server, 0);
        auto &[client, scanner, c] = rig;
        QVERIFY(waitForReady(client));
        QElapsedTimer t;
        t.start();
        const quint64 gen = scanner.start(ScanOptions());
        QVERIFY(scanner.isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(c.finished.has_value(), 30000);
        const double seconds = t.elapsed() / 1000.0;
        QVERIFY(!scanner.isRunning());

        const ScanProgress &p = *c.finished;
        QVERIFY2(!p.error.isError(), qPrintable(p.error.message));
        QVERIFY(p.finished);
        QCOMPARE(p.generation, gen);
        const qint64 dbsize = m_server.command({"DBSIZE"}).toInteger();
        QCOMPARE(p.dbsize, dbsize);
        QCOMPARE(p.vanished, quint64(0));
        QCOMPARE(p.returned, quint64(c.keys.size()) + p.vanished);

        const QSet<QByteArray> got = c.names();
        const QSet<QByteArray> expected = toSet(m_server.allKeys());
        QCOMPARE(qint64(expected.size()), dbsize);
        QVERIFY2(got == expected,
                 qPrintable(
                     QStringLiteral("missing: %1; extra: %2").arg(describe(expected - got), describe(got - expected))));
        for (const QByteArray &k : std::as_const(m_binaryKeys))
            QVERIFY(got.contains(k));

        // Types and TTLs.
        for (const ScannedKey &k : std::as_const(c.keys)) {
            QCOMPARE(k.type, expectedType(k.name));
            if (m_ttlKeys.contains(k.name))
                QVERIFY2(k.pttlMs > 3500000 && k.pttlMs <= 3600000, qPrintable(QString::number(k.pttlMs)));
            else
                QCOMPARE(k.pttlMs, qint64(-1));
            QCOMPARE(k.memoryBytes, qint64(-1));
        }

        // Results come in batches, not one signal per key, at most about every flush interval.
        for (const quint64 g : std::as_const(c.batchGenerations))
            QCOMPARE(g, gen);
        QVERIFY(c.batches >= 1);
        QVERIFY2(c.batches <= seconds * 10 + 3,
                 qPrintable(QStringLiteral("%1 batches in %2 s").arg(c.batches).arg(seconds)));
    }

    void matchFilter_data()
    {
        QTest::addColumn<QByteArray>("pattern");
        QTest::newRow("prefix") << QByteArray("hash:1*");
        QTest::newRow("single char") << QByteArray("str:1499?");
        QTest::newRow("newline inside") << QByteArray("*\n*");
        QTest::newRow("class") << QByteArray("zset:[0-2]");
        QTest::newRow("no match") << QByteArray("nothing:*");
    }

    void matchFilter()
    {
        QFETCH(QByteArray, pattern);
        Rig rig(m_server, 0);
        auto &[client, scanner, c] = rig;
        QVERIFY(waitForReady(client));
        ScanOptions o;
        o.match = pattern;
        scanner.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(c.finished.has_value(), 30000);
        QVERIFY2(!c.finished->error.isError(), qPrintable(c.finished->error.message));
        const QSet<QByteArray> expected = toSet(m_server.allKeys(pattern));
        QCOMPARE(c.names(), expected);
        if (pattern != "nothing:*")
            QVERIFY(!expected.isEmpty());
    }

    void typeFilter_data()
    {
        QTest::addColumn<KeyType>("type");
        QTest::addColumn<QByteArray>("typeName");
        QTest::newRow("hash") << KeyType::Hash << QByteArray("hash");
        QTest::newRow("list") << KeyType::List << QByteArray("list");
        QTest::newRow("set") << KeyType::Set << QByteArray("set");
        QTest::newRow("zset") << KeyType::ZSet << QByteArray("zset");
        QTest::newRow("stream") << KeyType::Stream << QByteArray("stream");
        QTest::newRow("string") << KeyType::String << QByteArray("string");
    }

    void typeFilter()
    {
        QFETCH(KeyType, type);
        QFETCH(QByteArray, typeName);
        Rig rig(m_server, 0);
        auto &[client, scanner, c] = rig;
        QVERIFY(waitForReady(client));
        ScanOptions o;
        o.type = type;
        scanner.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(c.finished.has_value(), 30000);
        QVERIFY2(!c.finished->error.isError(), qPrintable(c.finished->error.message));
        const QSet<QByteArray> expected = toSet(rawScan(0, {}, typeName));
        QVERIFY(!expected.isEmpty());
        QCOMPARE(c.names(), expected);
        for (const ScannedKey &k : std::as_const(c.keys))
            QCOMPARE(k.type, type);
    }

    void namesOnly()
    {
        Rig rig(m_server, 0);
        auto &[client, scanner, c] = rig;
        QVERIFY(waitForReady(client));
        ScanOptions o;
        o.details = false;
        scanner.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(c.finished.has_value(), 30000);
        QVERIFY2(!c.finished->error.isError(), qPrintable(c.finished->error.message));
        QCOMPARE(c.names(), toSet(m_server.allKeys()));
        QCOMPARE(c.finished->returned, quint64(c.keys.size()));
        for (const ScannedKey &k : std::as_const(c.keys)) {
            QCOMPARE(k.type, KeyType::Unknown);
            QCOMPARE(k.pttlMs, ttl::kUnknown); // never asked: not "no TTL"
            QCOMPARE(k.memoryBytes, qint64(-1));
        }
    }

    void deniedPttlIsUnknownNotNoTtl()
    {
        // A user that may not run PTTL still gets a tree, but its TTLs are unknown; a
        // NOPERM reply must not turn into "no TTL".
        m_server.command({"ACL", "SETUSER", "nopttl", "on", ">pw", "~*", "+@all", "-pttl"});
        ConnectionProfile p = m_server.profile();
        p.username = QStringLiteral("nopttl");
        p.password = QStringLiteral("pw");
        RedisClient client(p);
        client.connectToServer();
        QVERIFY(waitForReady(client));
        KeyScanner scanner(&client);
        Collected c;
        collect(scanner, c);
        scanner.start(ScanOptions{});
        QTRY_VERIFY_WITH_TIMEOUT(c.finished.has_value(), 30000);
        QVERIFY2(!c.finished->error.isError(), qPrintable(c.finished->error.message));
        QCOMPARE(c.names(), toSet(m_server.allKeys()));
        for (const ScannedKey &k : std::as_const(c.keys)) {
            QVERIFY(k.type != KeyType::Unknown);
            QCOMPARE(k.pttlMs, ttl::kUnknown);
        }
        m_server.command({"ACL", "DELUSER", "nopttl"});
    }

    void memoryUsage()
    {
        Rig rig(m_server, 0);
        auto &[client, scanner, c] = rig;
        QVERIFY(waitForReady(client));
        ScanOptions o;
        o.memory = true;
        o.match = "*:1?";
        scanner.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(c.finished.has_value(), 30000);
        QVERIFY2(!c.finished->error.isError(), qPrintable(c.finished->error.message));
        QCOMPARE(c.names(), toSet(m_server.allKeys(o.match)));
        QList<QList<QByteArray>> usage;
        for (const ScannedKey &k : std::as_const(c.keys))
            usage.append(RedisCommand{"MEMORY", "USAGE", k.name});
        const QList<RedisValue> expected = m_server.pipeline(usage);
        QCOMPARE(expected.size(), c.keys.size());
        QSet<KeyType> types;
        for (qsizetype i = 0; i < c.keys.size(); ++i) {
            const ScannedKey &k = c.keys.at(i);
            types.insert(k.type);
            QVERIFY(k.memoryBytes > 0);
            QCOMPARE(k.memoryBytes, expected.at(i).toInteger());
            QCOMPARE(k.type, expectedType(k.name));
        }
        QCOMPARE(types.size(), 6);
    }

    void deletedWhilePaused()
    {
        const int db = 4;
        populate(db, 10000, "del");
        Rig rig(m_server, db);
        auto &[client, scanner, c] = rig;
        QVERIFY(waitForReady(client));
        ScanOptions o;
        o.initialCount = 50;
        o.maxCount = 50;
        o.maxCommandsPerSecond = 10000; // about two seconds: the pause lands early
        scanner.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(c.batches > 0, 10000);
        scanner.pause();
        QVERIFY(scanner.isPaused());
        quiesce(client, scanner);
        QVERIFY(c.last().paused);
        QVERIFY(!c.finished);

        // Delete keys the scan has not delivered yet.
        const QSet<QByteArray> all = toSet(rawScan(db));
        QCOMPARE(all.size(), 10000);
        const QSet<QByteArray> before = c.names();
        QList<QByteArray> victims;
        for (const QByteArray &k : all) {
            if (!before.contains(k) && victims.size() < 3000)
                victims.append(k);
        }
        QVERIFY2(victims.size() >= 500, qPrintable(QString::number(before.size())));
        QList<QByteArray> del{"DEL"};
        del += victims;
        QCOMPARE(m_server.pipeline({{"SELECT", QByteArray::number(db)}, del}).value(1),
                 RedisValue::integer(victims.size()));

        scanner.resume();
        QTRY_VERIFY_WITH_TIMEOUT(c.finished.has_value(), 30000);
        QVERIFY2(!c.finished->error.isError(), qPrintable(c.finished->error.message));
        const QSet<QByteArray> got = c.names();
        const QSet<QByteArray> deleted = toSet(victims);
        QVERIFY2(!got.intersects(deleted), qPrintable(describe(got & deleted)));
        const QSet<QByteArray> remaining = all - deleted;
        QVERIFY2(
            got == remaining,
            qPrintable(
                QStringLiteral("missing: %1; extra: %2").arg(describe(remaining - got), describe(got - remaining))));
        QCOMPARE(c.finished->returned, quint64(c.keys.size()) + c.finished->vanished);
        m_server.pipeline({{"SELECT", QByteArray::number(db)}, {"FLUSHDB"}});
    }

    void concurrentDeletesCountedAsVanished()
    {
        // Keys deleted between SCAN returning them and TYPE reading them are counted as
        // vanished and not delivered. Another connection deletes every key while the scan
        // runs; the server interleaves the two, so some keys die in between.
        const int db = 5;
        quint64 vanished = 0;
        for (int attempt = 0; attempt < 3 && vanished == 0; ++attempt) {
            populate(db, 100000, "gone");
            const QSet<QByteArray> all = toSet(rawScan(db));
            QCOMPARE(all.size(), 100000);
            Rig rig(m_server, db);
            auto &[client, scanner, c] = rig;
            QVERIFY(waitForReady(client));
            QTcpSocket deleter;
            deleter.connectToHost(QHostAddress::LocalHost, m_server.port());
            QVERIFY(deleter.waitForConnected(3000));
            QList<QList<QByteArray>> dels{{"SELECT", QByteArray::number(db)}};
            for (const QByteArray &k : all)
                dels.append(RedisCommand{"DEL", k});
            const QByteArray wire = resp::formatCommands(dels);
            bool sent = false;
            QObject::connect(&scanner, &KeyScanner::progressChanged, &deleter, [&] {
                if (!sent) {
                    sent = true;
                    deleter.write(wire);
                }
            });
            ScanOptions o;
            o.flushIntervalMs = 20;
            scanner.start(o);
            QTRY_VERIFY_WITH_TIMEOUT(c.finished.has_value(), 30000);
            QVERIFY2(!c.finished->error.isError(), qPrintable(c.finished->error.message));
            QVERIFY(sent);
            const QSet<QByteArray> got = c.names();
            QVERIFY(all.contains(got));
            QCOMPARE(c.finished->returned, quint64(c.keys.size()) + c.finished->vanished);
            vanished = c.finished->vanished;
            qInfo("attempt %d: %llu returned, %lld delivered, %llu vanished", attempt,
                  static_cast<unsigned long long>(c.finished->returned), static_cast<long long>(c.keys.size()),
                  static_cast<unsigned long long>(vanished));
            QTRY_COMPARE_WITH_TIMEOUT(rawDbsize(db), qint64(0), 10000);
        }
        QVERIFY2(vanished > 0, "no key vanished between SCAN and TYPE in three attempts");
    }

    void keyspaceGrowsDuringScan()
    {
        // Growing the keyspace mid-scan makes the server rehash; SCAN may then return a key
        // twice, but every key that existed for the whole scan is delivered.
        const int db = 6;
        populate(db, 10000, "orig");
        const QSet<QByteArray> original = toSet(rawScan(db));
        Rig rig(m_server, db);
        auto &[client, scanner, c] = rig;
        QVERIFY(waitForReady(client));
        ScanOptions o;
        o.details = false; // SCAN alone; ~100 steps before the growth, ~300 after
        o.initialCount = 100;
        o.maxCount = 100;
        o.maxCommandsPerSecond = 200;
        o.flushIntervalMs = 20;
        scanner.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(c.batches > 0, 10000);
        scanner.pause();
        quiesce(client, scanner);
        QVERIFY(!c.finished);
        // 10,000 keys sit in a table of 16,384 buckets; 30,000 more make it grow to 65,536.
        populate(db, 30000, "grow");
        scanner.resume();
        QTRY_VERIFY_WITH_TIMEOUT(c.finished.has_value(), 30000);
        QVERIFY2(!c.finished->error.isError(), qPrintable(c.finished->error.message));

        const QSet<QByteArray> got = c.names();
        QVERIFY2(got.contains(original), qPrintable(QStringLiteral("missing: %1").arg(describe(original - got))));
        const QSet<QByteArray> everything = toSet(rawScan(db));
        QCOMPARE(everything.size(), 40000);
        QVERIFY(everything.contains(got));
        QVERIFY(qsizetype(c.keys.size()) >= got.size()); // duplicates allowed, never fewer
        QCOMPARE(c.finished->returned, quint64(c.keys.size()));
        m_server.pipeline({{"SELECT", QByteArray::number(db)}, {"FLUSHDB"}});
    }

    void pauseResumeKeepsCursor()
    {
        const int db = 7;
        populate(db, 5000, "pr");
        Rig rig(m_server, db);
        auto &[client, scanner, c] = rig;
        QVERIFY(waitForReady(client));
        ScanOptions o;
        o.maxCommandsPerSecond = 4000; // steps of 200 keys, one every ~100 ms
        scanner.start(o);
        // Pause and resume a few times, wherever the scan happens to be.
        for (int round = 0; round < 3; ++round) {
            const int seen = c.batches;
            QTRY_VERIFY_WITH_TIMEOUT(c.batches > seen || c.finished, 10000);
            if (c.finished)
                break;
            scanner.pause();
            quiesce(client, scanner);
            QVERIFY(c.last().paused);
            const quint64 returned = c.last().returned;
            const qsizetype delivered = c.keys.size();
            QSignalSpy batches(&scanner, &KeyScanner::batchAvailable);
            QVERIFY(!batches.wait(400)); // paused means paused
            QCOMPARE(c.keys.size(), delivered);
            QCOMPARE(c.last().returned, returned);
            scanner.resume();
            QVERIFY(!scanner.isPaused());
        }
        QTRY_VERIFY_WITH_TIMEOUT(c.finished.has_value(), 30000);
        QVERIFY2(!c.finished->error.isError(), qPrintable(c.finished->error.message));
        // The cursor was kept: no step was scanned twice, none was skipped.
        QCOMPARE(c.finished->returned, quint64(5000));
        QCOMPARE(c.keys.size(), qsizetype(5000));
        QCOMPARE(c.names(), toSet(rawScan(db)));
    }

    void cancelStopsBatches()
    {
        const int db = 7;
        Rig rig(m_server, db);
        auto &[client, scanner, c] = rig;
        QVERIFY(waitForReady(client));
        ScanOptions o;
        o.maxCommandsPerSecond = 2000;
        const quint64 gen = scanner.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(c.batches > 0, 10000);
        scanner.cancel();
        QVERIFY(!scanner.isRunning());
        QVERIFY(c.finished.has_value());
        QCOMPARE(c.finished->error.kind, RedisError::Kind::Cancelled);
        QVERIFY(scanner.generation() != gen);
        const int batchesAtCancel = c.batches;
        const qsizetype progressAtCancel = c.progress.size();

        // The job itself stops: the server sees no more SCANs.
        QVERIFY(waitForReply(client, {{"PING"}}).ok());
        auto scanCalls = [this] {
            const RedisValue info = m_server.command({"INFO", "commandstats"});
            for (const QByteArray &line : info.bytes().split('\n')) {
                if (line.startsWith("cmdstat_scan:"))
                    return line.mid(line.indexOf("calls=") + 6).split(',').first().toLongLong();
            }
            return qint64(0);
        };
        const qint64 callsAfterCancel = scanCalls();
        QSignalSpy batches(&scanner, &KeyScanner::batchAvailable);
        QVERIFY(!batches.wait(600));
        QCOMPARE(c.batches, batchesAtCancel);
        QCOMPARE(c.progress.size(), progressAtCancel);
        QVERIFY2(scanCalls() <= callsAfterCancel + 1, "the cancelled job is still scanning");
        for (const quint64 g : std::as_const(c.batchGenerations))
            QCOMPARE(g, gen);

        // The scanner can start again, and the new scan completes.
        c = Collected();
        o.maxCommandsPerSecond = 0;
        const quint64 again = scanner.start(o);
        QVERIFY(again > gen);
        QTRY_VERIFY_WITH_TIMEOUT(c.finished.has_value(), 30000);
        QVERIFY2(!c.finished->error.isError(), qPrintable(c.finished->error.message));
        QCOMPARE(c.names(), toSet(rawScan(db)));
        for (const quint64 g : std::as_const(c.batchGenerations))
            QCOMPARE(g, again);
    }

    void pacingCeiling()
    {
        const int db = 9;
        populate(db, 5000, "paced");
        RedisClient client(profileFor(m_server, db));
        client.connectToServer();
        QVERIFY(waitForReady(client));
        KeyScanner scanner(&client);

        Collected fast;
        collect(scanner, fast);
        QElapsedTimer t;
        t.start();
        scanner.start(ScanOptions());
        QTRY_VERIFY_WITH_TIMEOUT(fast.finished.has_value(), 30000);
        const qint64 unpacedMs = t.elapsed();
        QCOMPARE(fast.keys.size(), qsizetype(5000));
        scanner.disconnect();

        // 5,000 keys with TYPE + PTTL each are ~10,000 commands: at 5,000 per second that is
        // about two seconds, however fast the server is.
        Collected paced;
        collect(scanner, paced);
        ScanOptions o;
        o.maxCommandsPerSecond = 5000;
        t.restart();
        scanner.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(paced.finished.has_value(), 30000);
        const qint64 pacedMs = t.elapsed();
        QVERIFY2(!paced.finished->error.isError(), qPrintable(paced.finished->error.message));
        QCOMPARE(paced.names(), toSet(rawScan(db)));
        qInfo("unpaced %lld ms, paced %lld ms", static_cast<long long>(unpacedMs), static_cast<long long>(pacedMs));
        QVERIFY2(pacedMs >= 1500, qPrintable(QString::number(pacedMs)));
        QVERIFY2(pacedMs < 15000, qPrintable(QString::number(pacedMs)));
        QVERIFY(paced.finished->elapsedSeconds >= 1.4);
        QVERIFY(pacedMs > unpacedMs);
    }

    // Default pacing on an idle server: the load probe finds nobody else and lifts the ceiling,
    // the scan delivers every key, and the probe's connection is gone afterwards.
    void adaptivePacingLiftsOnAnIdleServer()
    {
        const int db = 10;
        populate(db, 300000, "adaptive");
        Rig rig(m_server, db);
        auto &[client, scanner, c] = rig;
        QVERIFY(waitForReady(client));
        ScanOptions o;
        o.maxCommandsPerSecond = kAdaptivePacing;
        scanner.start(o);
        // The probe names itself beside the scan's connection.
        QTRY_VERIFY_WITH_TIMEOUT(m_server.command({"CLIENT", "LIST"}).bytes().contains("name=redislens-probe"), 5000);
        QTRY_VERIFY_WITH_TIMEOUT(c.finished.has_value(), 60000);
        QVERIFY2(!c.finished->error.isError(), qPrintable(c.finished->error.message));
        QCOMPARE(c.names(), toSet(rawScan(db)));
        bool lifted = false;
        QStringList reasons;
        for (const ScanProgress &p : std::as_const(c.progress)) {
            QVERIFY(p.adaptive);
            lifted = lifted || (p.ceiling == 0 && p.paceReason.contains(QLatin1String("no ceiling")));
            if (reasons.isEmpty() || reasons.last() != p.paceReason)
                reasons << p.paceReason;
        }
        QVERIFY2(lifted, qPrintable(reasons.join(QLatin1String(" | "))));
        QTRY_VERIFY_WITH_TIMEOUT(!m_server.command({"CLIENT", "LIST"}).bytes().contains("name=redislens-probe"), 5000);
    }

    // Other clients busy (redis-benchmark beside the scan): the pacing keeps a ceiling, says
    // why, and the scan sends far less than it does alone.
    void adaptivePacingBacksOffBesideOtherClients()
    {
        const int db = 10;
        if (rawDbsize(db) == 0)
            populate(db, 100000, "adaptive");
        const QString benchmark = QStandardPaths::findExecutable(QStringLiteral("redis-benchmark"));
        QVERIFY2(!benchmark.isEmpty(), "redis-benchmark (redis-tools) is needed");
        QProcess load;
        load.start(benchmark,
                   {QStringLiteral("-h"), QStringLiteral("127.0.0.1"), QStringLiteral("-p"),
                    QString::number(m_server.port()), QStringLiteral("-c"), QStringLiteral("20"), QStringLiteral("-n"),
                    QStringLiteral("100000000"), QStringLiteral("-t"), QStringLiteral("get,set"),
                    QStringLiteral("-q")});
        QVERIFY(load.waitForStarted());
        auto stop = qScopeGuard([&] {
            load.kill();
            load.waitForFinished();
        });
        QTest::qWait(500);
        Rig rig(m_server, db);
        auto &[client, scanner, c] = rig;
        QVERIFY(waitForReady(client));
        ScanOptions o;
        o.maxCommandsPerSecond = kAdaptivePacing;
        scanner.start(o);
        // Until the pacing has decided something from the load (a slow machine, a sanitizer
        // build: the first ticks can take a while), and for three seconds at the least.
        static const QRegularExpression why(QStringLiteral(
            "^(others send|a PING took|PING took|other clients' commands fell|server busy|the slow log grew)"));
        QElapsedTimer running;
        running.start();
        QTRY_VERIFY_WITH_TIMEOUT(running.elapsed() >= 3000 && !c.progress.isEmpty()
                                     && why.match(c.progress.last().paceReason).hasMatch(),
                                 20000);
        QVERIFY(!c.finished.has_value());
        int highest = 0;
        bool unlimited = false;
        QString reason;
        for (const ScanProgress &p : std::as_const(c.progress)) {
            QVERIFY(p.adaptive);
            unlimited = unlimited || p.ceiling == 0;
            highest = qMax(highest, p.ceiling);
            reason = p.paceReason;
        }
        qInfo("highest ceiling %d/s; last: %s", highest, qPrintable(reason));
        QVERIFY2(!unlimited, qPrintable(reason));
        QVERIFY2(highest < 100000, qPrintable(reason));
        scanner.cancel();
    }

    // A server with no room for the probe's connection: the scan goes on under the fixed
    // ceiling RedisLens used before it paced itself, and says so.
    void adaptivePacingWithoutAProbeConnection()
    {
        const int db = 10;
        if (rawDbsize(db) == 0)
            populate(db, 100000, "adaptive");
        Rig rig(m_server, db);
        auto &[client, scanner, c] = rig;
        QVERIFY(waitForReady(client));
        // Room for exactly the clients connected once this helper's own connection is gone.
        const QList<RedisValue> r = m_server.pipeline({{"CLIENT", "LIST"}, {"CONFIG", "GET", "maxclients"}});
        const int connected = int(r.value(0).bytes().count('\n')) - 1;
        const QByteArray before = r.value(1).at(1).bytes();
        QCOMPARE(m_server.command({"CONFIG", "SET", "maxclients", QByteArray::number(connected)}),
                 RedisValue::status("OK"));
        // The helper cannot connect any more: the scan's own connection puts it back.
        // (rig.client: a structured binding cannot be captured in C++17.)
        auto restore = qScopeGuard([&] { waitForReply(rig.client, {{"CONFIG", "SET", "maxclients", before}}); });
        ScanOptions o;
        o.maxCommandsPerSecond = kAdaptivePacing;
        scanner.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(
            !c.progress.isEmpty() && c.progress.last().paceReason.contains(QLatin1String("fixed ceiling")), 10000);
        const ScanProgress p = c.progress.last();
        QCOMPARE(p.ceiling, 50000);
        QVERIFY2(p.paceReason.startsWith(QLatin1String("no connection for the load probe")), qPrintable(p.paceReason));
        // The server's own words.
        QVERIFY2(p.paceReason.contains(QLatin1String("max number of clients reached")), qPrintable(p.paceReason));
        scanner.cancel();
    }

    void serverRestartedWhilePaused()
    {
        // A cursor means nothing to another server process (its hash seed differs), so after a
        // restart the scan must walk the keyspace again rather than continue from the old
        // cursor and miss keys. Paused across the restart so the data is back before it goes on.
        const int db = 8;
        populate(db, 6000, "restart");
        const QSet<QByteArray> all = toSet(rawScan(db));
        StateLog log;
        RedisClient client(profileFor(m_server, db));
        QObject::connect(&client, &RedisClient::stateChanged, &client,
                         [&log](RedisClient::State s) { log.states.append(s); });
        client.connectToServer();
        QVERIFY(waitForReady(client));
        KeyScanner scanner(&client);
        Collected c;
        collect(scanner, c);
        ScanOptions o;
        o.maxCommandsPerSecond = 3000;
        scanner.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(c.keys.size() > 500, 10000);
        m_server.server().kill();
        QTRY_VERIFY_WITH_TIMEOUT(!c.progress.isEmpty() && c.progress.last().waitingForConnection, 10000);
        scanner.pause();
        QString error;
        QVERIFY2(m_server.server().restart(&error), qPrintable(error));
        populate(db, 6000, "restart");
        QTRY_VERIFY_WITH_TIMEOUT(log.states.lastIndexOf(RedisClient::State::Ready)
                                     > log.states.lastIndexOf(RedisClient::State::Backoff),
                                 15000);
        scanner.resume();
        QTRY_VERIFY_WITH_TIMEOUT(c.finished.has_value(), 30000);
        QVERIFY2(!c.finished->error.isError(), qPrintable(c.finished->error.message));
        const QSet<QByteArray> got = c.names();
        QVERIFY2(got == all,
                 qPrintable(QStringLiteral("missing: %1; extra: %2").arg(describe(all - got), describe(got - all))));
    }

    void serverKilledMidScan()
    {
        // Last: it throws the server's data away.
        const int db = 8;
        populate(db, 6000, "kill");
        const QSet<QByteArray> all = toSet(rawScan(db));
        Rig rig(m_server, db);
        auto &[client, scanner, c] = rig;
        QVERIFY(waitForReady(client));
        ScanOptions o;
        o.maxCommandsPerSecond = 3000;
        scanner.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(c.batches > 0, 10000);

        m_server.server().kill();
        auto waiting = [&rig] { // a structured binding cannot be captured in C++17
            for (const ScanProgress &p : std::as_const(rig.c.progress)) {
                if (p.waitingForConnection)
                    return &p;
            }
            return static_cast<const ScanProgress *>(nullptr);
        };
        QTRY_VERIFY_WITH_TIMEOUT(waiting() != nullptr, 10000);
        const ScanProgress stalled = *waiting();
        QVERIFY(stalled.error.isError());
        QVERIFY2(stalled.error.isConnectionLevel() || stalled.error.kind == RedisError::Kind::NotConnected,
                 qPrintable(stalled.error.message));
        QVERIFY(!stalled.finished);
        QVERIFY(!c.finished);
        QVERIFY(scanner.isRunning());

        // Without persistence the data is gone; put it back and let the client reconnect.
        QString error;
        QVERIFY2(m_server.server().restart(&error), qPrintable(error));
        populate(db, 6000, "kill");
        QTRY_VERIFY_WITH_TIMEOUT(c.finished.has_value(), 30000);
        QVERIFY2(!c.finished->error.isError(), qPrintable(c.finished->error.message));
        QVERIFY(!c.finished->waitingForConnection);
        QVERIFY(all.contains(c.names()));
    }
};

QTEST_MAIN(TstScanner)
#include "tst_scanner.moc"
