// SPDX-License-Identifier: GPL-3.0-or-later
#include "bytesescape.h"
#include "keyscanner.h"
#include "memoryreader.h"
#include "redisclient.h"
#include "testserver.h"

#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <functional>
#include <memory>

namespace {

// A loopback TCP proxy in front of a test server. It hands the test the key of every STRLEN a
// client sends before forwarding the bytes that hold it, so the test can change the keyspace
// at an exact point of a pipelined conversation without touching the code under test.
class InterceptingProxy : public QObject
{
public:
    explicit InterceptingProxy(quint16 upstreamPort) : m_upstreamPort(upstreamPort)
    {
        m_listener.listen(QHostAddress::LocalHost);
        connect(&m_listener, &QTcpServer::newConnection, this, &InterceptingProxy::accept);
    }

    bool isListening() const { return m_listener.isListening(); }
    quint16 port() const { return m_listener.serverPort(); }

    std::function<void(const QByteArray &key)> onStrlen;

private:
    struct Link
    {
        QByteArray seen; // client bytes not yet searched completely
        QByteArray early; // client bytes that arrived before the upstream connected
    };

    void accept()
    {
        while (QTcpSocket *client = m_listener.nextPendingConnection()) {
            auto *upstream = new QTcpSocket(client);
            auto link = std::make_shared<Link>();
            connect(client, &QTcpSocket::readyRead, client, [this, client, upstream, link] {
                const QByteArray chunk = client->readAll();
                inspect(*link, chunk); // before the server can see any of it
                if (upstream->state() == QAbstractSocket::ConnectedState)
                    upstream->write(chunk);
                else
                    link->early += chunk;
            });
            connect(upstream, &QTcpSocket::connected, client, [upstream, link] {
                upstream->write(link->early);
                link->early.clear();
            });
            connect(upstream, &QTcpSocket::readyRead, client,
                    [client, upstream] { client->write(upstream->readAll()); });
            connect(upstream, &QTcpSocket::disconnected, client, [client] { client->disconnectFromHost(); });
            connect(client, &QTcpSocket::disconnected, client, [client, upstream] {
                upstream->disconnectFromHost();
                client->deleteLater();
            });
            upstream->connectToHost(QHostAddress::LocalHost, m_upstreamPort);
        }
    }

    // Finds "$6\r\nSTRLEN\r\n$<n>\r\n<key>" in the client's stream, also across chunks.
    void inspect(Link &link, const QByteArray &chunk)
    {
        static const QByteArray marker("$6\r\nSTRLEN\r\n$");
        link.seen += chunk;
        qsizetype from = 0;
        for (;;) {
            const qsizetype at = link.seen.indexOf(marker, from);
            if (at < 0) {
                // Keep a tail that may hold the start of a marker split by the chunking.
                from = qMax(from, link.seen.size() - marker.size());
                break;
            }
            const qsizetype lengthAt = at + marker.size();
            const qsizetype crlf = link.seen.indexOf("\r\n", lengthAt);
            const qsizetype n = crlf < 0 ? -1 : link.seen.mid(lengthAt, crlf - lengthAt).toLongLong();
            if (crlf < 0 || link.seen.size() < crlf + 2 + n) {
                from = at; // the rest of this command comes with the next chunk
                break;
            }
            if (onStrlen)
                onStrlen(link.seen.mid(crlf + 2, n));
            from = crlf + 2 + n;
        }
        link.seen.remove(0, qBound<qsizetype>(0, from, link.seen.size()));
    }

    QTcpServer m_listener;
    quint16 m_upstreamPort;
};

} // namespace

// The memory analysis (a scan with MEMORY USAGE and each key's length command) on a real
// server: its sums agree with MEMORY USAGE asked key by key, its lengths with the length
// commands, and its biggest key of each type with what redis-cli --memkeys and --bigkeys say.
class TstMemoryReader : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;
    QList<QByteArray> m_keys;

    struct Biggest
    {
        QByteArray key;
        qint64 size = -1;
    };

    // "Biggest   list found '"queue:7"' has 152 bytes" → {list: {queue:7, 152}}
    static QHash<QString, Biggest> runRedisCli(quint16 port, const QString &mode)
    {
        QHash<QString, Biggest> out;
        const QString cli = QStandardPaths::findExecutable(QStringLiteral("redis-cli"));
        if (cli.isEmpty())
            return out;
        QProcess p;
        p.start(cli, {QStringLiteral("-p"), QString::number(port), mode});
        if (!p.waitForFinished(60000))
            return out;
        // redis-cli 7 quotes the name as '"name"', redis-cli 8 as "name".
        static const QRegularExpression line(QStringLiteral("^Biggest\\s+(\\w+) found '?(\".*\")'? has (\\d+) "));
        for (const QByteArray &raw : p.readAllStandardOutput().split('\n')) {
            const auto m = line.match(QString::fromUtf8(raw));
            if (!m.hasMatch())
                continue;
            const auto key = bytesescape::unescape(m.captured(2));
            if (key)
                out.insert(m.captured(1), {*key, m.captured(3).toLongLong()});
        }
        return out;
    }

    MemoryStats analyse(int topN = 50)
    {
        RedisClient client(m_server.profile());
        client.connectToServer();
        if (!waitForReady(client))
            return {};
        KeyScanner scanner(&client);
        MemoryStats stats;
        stats.setTopN(topN);
        QObject::connect(&scanner, &KeyScanner::batchAvailable, [&](const ScanBatch &b) { stats.add(b); });
        QSignalSpy finished(&scanner, &KeyScanner::finished);
        ScanOptions options;
        options.memory = true;
        options.elements = true;
        options.ttl = false;
        options.initialCount = 20; // many pipelined steps, not one big one
        options.maxCount = 200;
        scanner.start(options);
        if (!finished.wait(60000))
            return {};
        return stats;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("redis-cli")).isEmpty(),
                 "redis-cli is needed to compare with --bigkeys and --memkeys (script/bootstrap installs redis-tools)");
        QList<QList<QByteArray>> cmds;
        // Every type, sizes all different so that "the biggest" is one key, not a tie.
        for (int i = 0; i < 400; ++i) {
            const QByteArray n = QByteArray::number(i);
            cmds.append({"SET", "img:" + n, QByteArray(100 + i * 3, 'x')});
            cmds.append({"SET", "counter:" + n, n});
        }
        for (int i = 0; i < 60; ++i) {
            const QByteArray n = QByteArray::number(i);
            QList<QByteArray> hset{"HSET", "user:" + n};
            QList<QByteArray> rpush{"RPUSH", "queue:" + n};
            QList<QByteArray> sadd{"SADD", "tags:" + n};
            QList<QByteArray> zadd{"ZADD", "board:" + n};
            for (int j = 0; j <= i; ++j) {
                const QByteArray m = "m" + QByteArray::number(j);
                hset << m << "value-" + m;
                rpush << "job-" + m;
                sadd << m;
                zadd << QByteArray::number(j) << m;
            }
            cmds << hset << rpush << sadd << zadd;
            for (int j = 0; j <= i % 12; ++j)
                cmds.append({"XADD", "events:" + n, "*", "seq", QByteArray::number(j)});
        }
        // A binary name and one with a space: redis-cli quotes them, the comparison unquotes.
        cmds.append({"RPUSH", QByteArray("odd\x00name", 8), "a"});
        cmds.append({"SET", "with space", QByteArray(5000, 'y')});
        m_server.pipeline(cmds);
        m_keys = m_server.allKeys();
        QCOMPARE(m_keys.size(), 400 * 2 + 60 * 5 + 2);
    }

    void sumsAgreeWithMemoryUsage()
    {
        const MemoryStats stats = analyse();
        QCOMPARE(stats.keyCount(), quint64(m_keys.size()));
        QCOMPARE(stats.measuredCount(), stats.keyCount());
        // The same figures asked one key at a time.
        QList<QList<QByteArray>> cmds;
        for (const QByteArray &k : std::as_const(m_keys))
            cmds.append({"MEMORY", "USAGE", k});
        const QList<RedisValue> usage = m_server.pipeline(cmds);
        QHash<QByteArray, qint64> perNamespace;
        qint64 total = 0;
        for (int i = 0; i < m_keys.size(); ++i) {
            QVERIFY(usage.at(i).isInteger());
            perNamespace[stats.namespaceOf(m_keys.at(i), 1)] += usage.at(i).toInteger();
            total += usage.at(i).toInteger();
        }
        QCOMPARE(stats.totalMemory(), total);
        const QList<NamespaceMemory> rows = stats.namespaces(1);
        QCOMPARE(rows.size(), perNamespace.size());
        for (const NamespaceMemory &ns : rows)
            QCOMPARE(ns.memory, perNamespace.value(ns.prefix));
        // Largest first.
        for (int i = 1; i < rows.size(); ++i)
            QVERIFY(rows.at(i - 1).memory >= rows.at(i).memory);
    }

    void lengthsAgreeWithLengthCommands()
    {
        // Room for every key in the top lists, so each one can be checked.
        const MemoryStats stats = analyse(1000);
        const QList<QPair<KeyType, QByteArray>> types{{KeyType::String, "STRLEN"}, {KeyType::Hash, "HLEN"},
                                                      {KeyType::List, "LLEN"},     {KeyType::Set, "SCARD"},
                                                      {KeyType::ZSet, "ZCARD"},    {KeyType::Stream, "XLEN"}};
        qsizetype checked = 0;
        for (const auto &[type, command] : types) {
            const QList<KeySize> top = stats.topByElements(type);
            QVERIFY(!top.isEmpty());
            checked += top.size();
            for (const KeySize &k : top) {
                const RedisValue v = m_server.command({command, k.name});
                QCOMPARE(k.elements, v.toInteger());
            }
        }
        QCOMPARE(checked, m_keys.size());
    }

    void biggestAgreesWithRedisCli_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::newRow("--bigkeys") << QStringLiteral("--bigkeys");
        QTest::newRow("--memkeys") << QStringLiteral("--memkeys");
    }
    void biggestAgreesWithRedisCli()
    {
        QFETCH(QString, mode);
        const QHash<QString, Biggest> cli = runRedisCli(m_server.port(), mode);
        QCOMPARE(cli.size(), 6); // string, list, set, hash, zset, stream
        const MemoryStats stats = analyse();
        const bool byMemory = mode == QLatin1String("--memkeys");
        for (auto it = cli.cbegin(); it != cli.cend(); ++it) {
            const KeyType type = keyTypeFromReply(it.key().toUtf8());
            const KeySize ours = byMemory ? stats.biggestByMemory(type) : stats.biggestByElements(type);
            QVERIFY2(ours.name == it.value().key,
                     qPrintable(it.key() + QStringLiteral(": ours ") + bytesescape::quoteIfNeeded(ours.name)
                                + QStringLiteral(", redis-cli ") + bytesescape::quoteIfNeeded(it.value().key)));
            QCOMPARE(byMemory ? ours.memory : ours.elements, it.value().size);
        }
    }

    void keysChangingTypeMidScanStayUnknown()
    {
        // A key replaced by another type between TYPE and its length command answers
        // WRONGTYPE: its length must read unknown, never a number from the wrong command.
        // The proxy makes that happen for every target key, whatever the timing: it turns the
        // string into a list after the scan has its type (the length command goes out only
        // once TYPE has answered) and before the server sees STRLEN.
        TestServer server;
        QVERIFY(server.start());
        QList<QList<QByteArray>> cmds;
        for (int i = 0; i < 2000; ++i)
            cmds.append({"SET", "s:" + QByteArray::number(i), "v"});
        server.pipeline(cmds);
        QSet<QByteArray> targets;
        for (int i = 0; i < 2000; i += 40)
            targets.insert("s:" + QByteArray::number(i));

        RawConnection raw(server.port());
        QSet<QByteArray> flipped;
        InterceptingProxy proxy(server.port());
        QVERIFY(proxy.isListening());
        proxy.onStrlen = [&](const QByteArray &key) {
            if (!targets.contains(key) || flipped.contains(key))
                return;
            const QList<RedisValue> r = raw.pipeline({{"DEL", key}, {"RPUSH", key, "a", "b"}});
            if (r.size() == 2 && r.at(0).toInteger() == 1 && r.at(1).toInteger() == 2)
                flipped.insert(key);
        };
        ConnectionProfile profile = server.profile();
        profile.port = proxy.port();
        RedisClient client(profile);
        client.connectToServer();
        QVERIFY(waitForReady(client));
        MemoryReader analysis(&client);
        analysis.stats().setTopN(5000);
        QSignalSpy finished(&analysis, &MemoryReader::finished);
        analysis.start(0);
        QVERIFY(finished.wait(60000));

        // The path was taken for every target, and only for them.
        QCOMPARE(flipped, targets);
        const MemoryStats &stats = analysis.stats();
        QCOMPARE(stats.keyCount(), quint64(2000));
        QCOMPARE(stats.lengthUnknownCount(), quint64(targets.size()));
        // Each key as TYPE saw it (a string), its length unknown for the flipped ones only.
        const QList<KeySize> strings = stats.topByMemory(KeyType::String);
        QCOMPARE(strings.size(), 2000);
        int unknown = 0;
        for (const KeySize &k : strings) {
            if (targets.contains(k.name)) {
                QVERIFY2(k.elements == -1, QByteArray(k.name + ": " + QByteArray::number(k.elements)).constData());
                ++unknown;
            } else {
                QVERIFY2(k.elements == 1, QByteArray(k.name + ": " + QByteArray::number(k.elements)).constData());
            }
        }
        QCOMPARE(unknown, targets.size());
        QCOMPARE(stats.topByElements(KeyType::String).size(), 2000 - targets.size());
        QCOMPARE(stats.keysOfType(KeyType::List), quint64(0));
    }
};

QTEST_GUILESS_MAIN(TstMemoryReader)
#include "tst_memoryanalysis.moc"
