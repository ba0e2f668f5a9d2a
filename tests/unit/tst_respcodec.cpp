// SPDX-License-Identifier: GPL-3.0-or-later
#include "rediserror.h"
#include "respcodec.h"
#include "testdata.h"

#include <QFile>
#include <QRandomGenerator>
#include <QTest>

#include <hiredis/hiredis.h>
#include <unistd.h>

// Replies recorded from a real redis-server 7.0 (tests/data/replies/*.resp) parse into exactly
// the values the engine expects, and commands are formatted byte for byte.
class TstRespCodec : public QObject
{
    Q_OBJECT

private:
    static QByteArray recorded(const QString &name) { return recordedReply(name); }
    static RedisValue bulk(const QByteArray &b) { return RedisValue::bulk(b); }
    static RedisValue arr(QList<RedisValue> v) { return RedisValue::array(std::move(v)); }
    static qint64 residentBytes()
    {
        QFile statm(QStringLiteral("/proc/self/statm"));
        if (!statm.open(QIODevice::ReadOnly))
            return 0;
        const QList<QByteArray> fields = statm.readAll().split(' ');
        return fields.size() > 1 ? fields.at(1).toLongLong() * sysconf(_SC_PAGESIZE) : 0;
    }

private Q_SLOTS:
    void recordedReplies_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<RedisValue>("expected");

        QTest::newRow("SCAN") << QStringLiteral("scan.resp")
                              << arr({bulk("0"), arr({bulk("beta"), bulk("alpha"), bulk("gamma")})});
        QTest::newRow("WRONGTYPE") << QStringLiteral("error-wrongtype.resp")
                                   << RedisValue::error(
                                          "WRONGTYPE Operation against a key holding the wrong kind of value");
        QTest::newRow("unknown command") << QStringLiteral("error-unknown.resp")
                                         << RedisValue::error(
                                                "ERR unknown command 'NOSUCHCOMMAND', with args beginning with: 'x' ");
        QTest::newRow("nil") << QStringLiteral("nil.resp") << RedisValue::nil();
        QTest::newRow("nil array") << QStringLiteral("nil-array.resp") << RedisValue::nil();
        QTest::newRow("empty bulk") << QStringLiteral("empty-bulk.resp") << bulk(QByteArray(""));
        QTest::newRow("binary bulk") << QStringLiteral("binary-bulk.resp")
                                     << bulk(QByteArrayLiteral("\0\xff\r\n\x80\"\\end"));
        QTest::newRow("integer") << QStringLiteral("integer.resp") << RedisValue::integer(5);
        QTest::newRow("empty array") << QStringLiteral("empty-array.resp") << arr({});
        QTest::newRow("status") << QStringLiteral("status.resp") << RedisValue::status("PONG");
        QTest::newRow("nested XRANGE") << QStringLiteral("nested-xrange.resp")
                                       << arr({arr({bulk("1-0"),
                                                    arr({bulk("sku"), bulk("a1"), bulk("qty"), bulk("2")})}),
                                               arr({bulk("2-0"), arr({bulk("sku"), bulk("b2")})})});
    }

    void recordedReplies()
    {
        QFETCH(QString, file);
        QFETCH(RedisValue, expected);
        QList<RedisValue> values;
        QString error;
        QVERIFY2(resp::parseAll(recorded(file), &values, &error), qPrintable(error));
        QCOMPARE(values.size(), 1);
        const RedisValue &got = values.first();
        QVERIFY2(got == expected,
                 qPrintable(got.toDisplayString() + QLatin1String(" != ") + expected.toDisplayString()));
        QCOMPARE(got.kind(), expected.kind());
    }

    void kindsStayApart()
    {
        // A nil is not an empty string, a status is not a bulk.
        QList<RedisValue> nil, empty, status;
        QVERIFY(resp::parseAll(recorded(QStringLiteral("nil.resp")), &nil));
        QVERIFY(resp::parseAll(recorded(QStringLiteral("empty-bulk.resp")), &empty));
        QVERIFY(resp::parseAll("$4\r\nPONG\r\n", &status));
        QVERIFY(nil.first().isNil());
        QVERIFY(!empty.first().isNil());
        QVERIFY(empty.first().isString());
        QVERIFY(empty.first().bytes().isEmpty());
        QVERIFY(nil.first() != empty.first());
        QVERIFY(status.first() != RedisValue::status("PONG"));
        QCOMPARE(status.first().toDisplayString(), QStringLiteral("\"PONG\""));
    }

    void info()
    {
        const QByteArray raw = recorded(QStringLiteral("info-server.resp"));
        QList<RedisValue> values;
        QString error;
        QVERIFY2(resp::parseAll(raw, &values, &error), qPrintable(error));
        QCOMPARE(values.size(), 1);
        const RedisValue &v = values.first();
        QCOMPARE(v.kind(), RedisValue::Kind::Bulk);
        // The bulk is exactly the bytes between the length line and the final CRLF.
        const qsizetype header = raw.indexOf("\r\n") + 2;
        QCOMPARE(qint64(v.bytes().size()), raw.mid(1, header - 3).toLongLong());
        QCOMPARE(v.bytes(), raw.mid(header, raw.size() - header - 2));
        QVERIFY(v.bytes().startsWith("# Server\r\n"));
        QVERIFY(v.bytes().contains("\r\nredis_version:7.0."));
        QVERIFY(v.bytes().endsWith("\r\n"));
    }

    void commandReply()
    {
        QList<RedisValue> values;
        QString error;
        QVERIFY2(resp::parseAll(recorded(QStringLiteral("command-7.0.resp")), &values, &error), qPrintable(error));
        QCOMPARE(values.size(), 1);
        const RedisValue &all = values.first();
        QCOMPARE(all.kind(), RedisValue::Kind::Array);
        QCOMPARE(all.size(), 240);
        bool sawGet = false;
        for (const RedisValue &entry : all.elements()) {
            QCOMPARE(entry.size(), 10); // Redis 7 layout
            QVERIFY(entry.at(0).isString());
            QVERIFY(entry.at(1).isInteger());
            QVERIFY(entry.at(2).isArray());
            if (entry.at(0).bytes() == "get") {
                sawGet = true;
                QCOMPARE(entry.at(1).toInteger(), qint64(2));
                QCOMPARE(entry.at(2), arr({RedisValue::status("readonly"), RedisValue::status("fast")}));
            }
        }
        QVERIFY(sawGet);
    }

    void pipeline()
    {
        QList<RedisValue> values;
        QString error;
        QVERIFY2(resp::parseAll(recorded(QStringLiteral("pipeline.resp")), &values, &error), qPrintable(error));
        const QList<RedisValue> expected{
            RedisValue::status("OK"),
            RedisValue::integer(42),
            bulk("42"),
            RedisValue::nil(),
            RedisValue::error("WRONGTYPE Operation against a key holding the wrong kind of value"),
        };
        QCOMPARE(values.size(), expected.size());
        for (qsizetype i = 0; i < expected.size(); ++i)
            QVERIFY2(values.at(i) == expected.at(i),
                     qPrintable(QString::number(i) + QLatin1String(": ") + values.at(i).toDisplayString()));
    }

    void appendsToExisting()
    {
        QList<RedisValue> values{RedisValue::integer(1)};
        QVERIFY(resp::parseAll(":2\r\n", &values));
        QCOMPARE(values, (QList<RedisValue>{RedisValue::integer(1), RedisValue::integer(2)}));
        QList<RedisValue> none;
        QVERIFY(resp::parseAll(QByteArray(), &none));
        QVERIFY(none.isEmpty());
    }

    void incomplete_data()
    {
        QTest::addColumn<QString>("file");
        for (const char *f :
             {"scan.resp", "nested-xrange.resp", "binary-bulk.resp", "empty-bulk.resp", "nil.resp",
              "error-wrongtype.resp", "integer.resp", "status.resp", "info-server.resp", "command-7.0.resp"})
            QTest::newRow(f) << QString::fromLatin1(f);
    }

    void incomplete()
    {
        // Every strict prefix of a single reply ends inside it and must say so; nothing is
        // returned as a complete value. Large files are sampled.
        QFETCH(QString, file);
        const QByteArray raw = recorded(file);
        const qsizetype step = qMax<qsizetype>(1, raw.size() / 300);
        for (qsizetype n = 1; n < raw.size(); n += (n < 64 ? 1 : step)) {
            QList<RedisValue> values;
            QString error;
            const bool ok = resp::parseAll(raw.left(n), &values, &error);
            if (ok || values.size() != 0 || error.isEmpty())
                QFAIL(qPrintable(QStringLiteral("prefix of %1 bytes: ok=%2 values=%3 error='%4'")
                                     .arg(n)
                                     .arg(ok)
                                     .arg(values.size())
                                     .arg(error)));
        }
        // The end of a pipeline cut inside its third reply: the two complete ones are kept.
        const QByteArray pipe = recorded(QStringLiteral("pipeline.resp"));
        QList<RedisValue> values;
        QString error;
        QVERIFY(!resp::parseAll(pipe.left(pipe.indexOf("$2") + 3), &values, &error));
        QCOMPARE(values.size(), 2);
        QCOMPARE(error, QStringLiteral("incomplete reply"));
    }

    void malformed_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::newRow("unknown type byte") << QByteArray("?x\r\n");
        QTest::newRow("bad bulk length") << QByteArray("$abc\r\n");
        QTest::newRow("negative bulk length") << QByteArray("$-2\r\n");
        QTest::newRow("bad array length") << QByteArray("*x\r\n");
        QTest::newRow("bad integer") << QByteArray(":12a\r\n");
        QTest::newRow("empty integer") << QByteArray(":\r\n");
        QTest::newRow("bulk longer than said") << QByteArray("$3\r\nabcd\r\n");
        QTest::newRow("garbage after reply") << QByteArray("+OK\r\nxyz\r\n");
        QTest::newRow("http") << QByteArray("HTTP/1.1 400 Bad Request\r\n\r\n");
    }

    void malformed()
    {
        QFETCH(QByteArray, bytes);
        QList<RedisValue> values;
        QString error;
        QVERIFY(!resp::parseAll(bytes, &values, &error));
        QVERIFY(!error.isEmpty());
    }

    // A reply's header claims sizes the bytes have not backed yet: nothing is allocated for a
    // claim, so a broken or hostile server costs at most what it sent.
    void claimsCostOnlyTheBytesSent()
    {
        const qint64 before = residentBytes();
        for (const QByteArray &header :
             {QByteArray("*2147483647\r\n:1\r\n:2\r\n"), QByteArray("*10000000\r\n*10000000\r\n:1\r\n"),
              QByteArray("$1073741824\r\nabc"), QByteArray("$2147483647\r\n")}) {
            resp::ReplyReader reader;
            QVERIFY(reader.feed(header.constData(), header.size()));
            RedisValue value;
            QCOMPARE(reader.next(&value), resp::ReplyReader::Result::NeedMore);
            const qint64 grown = residentBytes() - before;
            QVERIFY2(grown < 16 * 1024 * 1024,
                     qPrintable(QStringLiteral("%1: resident memory grew by %2 bytes")
                                    .arg(QString::fromLatin1(header.left(12)))
                                    .arg(grown)));
        }
    }

    // Children are appended as they arrive: a large array and a nested one come out whole.
    void largeAndNestedArraysAreWhole()
    {
        QByteArray bytes = "*2\r\n*100000\r\n";
        for (int i = 0; i < 100000; ++i)
            bytes += ':' + QByteArray::number(i) + "\r\n";
        bytes += "*3\r\n*1\r\n*0\r\n$1\r\nx\r\n*2\r\n_\r\n$-1\r\n";
        bytes.replace("_\r\n", "$-1\r\n"); // RESP2's nil on every hiredis
        QList<RedisValue> values;
        QString error;
        QVERIFY2(resp::parseAll(bytes, &values, &error), qPrintable(error));
        QCOMPARE(values.size(), 1);
        const RedisValue &top = values.first();
        QCOMPARE(top.size(), 2);
        QCOMPARE(top.at(0).size(), 100000);
        QCOMPARE(top.at(0).at(99999), RedisValue::integer(99999));
        QCOMPARE(top.at(1), arr({arr({arr({})}), bulk("x"), arr({RedisValue::nil(), RedisValue::nil()})}));
    }

    // 100,000 levels of nesting would take more stack to free than a thread has: refused with
    // a reason (hiredis 0.14 refuses past 7 levels on its own).
    void deepNestingIsRefused()
    {
        const QByteArray deep = QByteArray("*1\r\n").repeated(100000) + ":1\r\n";
        QList<RedisValue> values;
        QString error;
        QVERIFY(!resp::parseAll(deep, &values, &error));
#if HIREDIS_MAJOR >= 1
        QVERIFY2(error.contains(QLatin1String("nested deeper than 1000 levels")), qPrintable(error));
        // As deep as allowed parses, and frees.
        const QByteArray allowed = QByteArray("*1\r\n").repeated(999) + ":1\r\n";
        values.clear();
        QVERIFY2(resp::parseAll(allowed, &values, &error), qPrintable(error));
        QCOMPARE(values.size(), 1);
#else
        QVERIFY2(error.contains(QLatin1String("nested")), qPrintable(error));
#endif
    }

    void resp3()
    {
        // hiredis 0.14 speaks RESP2 only; hiredis >= 1.0 keeps the RESP3 kinds apart.
        QList<RedisValue> hello, types;
        QString error;
        const bool helloOk = resp::parseAll(recorded(QStringLiteral("hello3.resp")), &hello, &error);
        const bool typesOk = resp::parseAll(recorded(QStringLiteral("resp3-types.resp")), &types, &error);
#if HIREDIS_MAJOR >= 1
        QVERIFY2(helloOk && typesOk, qPrintable(error));
        QCOMPARE(hello.size(), 1);
        QCOMPARE(hello.first().kind(), RedisValue::Kind::Map);
        QCOMPARE(hello.first().size(), 14);
        QCOMPARE(hello.first().at(0), bulk("server"));
        QCOMPARE(hello.first().at(5), RedisValue::integer(3));
        QCOMPARE(types.size(), 4);
        QCOMPARE(types.at(0).kind(), RedisValue::Kind::Double);
        QCOMPARE(types.at(0).toDouble(), 1.5);
        QCOMPARE(types.at(1), RedisValue::array({bulk("red")}, RedisValue::Kind::Set));
        QCOMPARE(types.at(2), RedisValue::nil());
        QCOMPARE(types.at(3), RedisValue::array({}, RedisValue::Kind::Map));
#else
        QVERIFY(!helloOk);
        QVERIFY(!typesOk);
        QVERIFY2(error.contains(QLatin1String("Protocol error")), qPrintable(error));
#endif
    }

    void formatCommands_data()
    {
        QTest::addColumn<QList<QList<QByteArray>>>("commands");
        QTest::addColumn<QByteArray>("wire");

        QTest::newRow("none") << QList<QList<QByteArray>>{} << QByteArray();
        QTest::newRow("ping") << QList<QList<QByteArray>>{{"PING"}} << QByteArray("*1\r\n$4\r\nPING\r\n");
        QTest::newRow("binary args") << QList<QList<QByteArray>>{{"SET", QByteArrayLiteral("k\0ey"),
                                                                  QByteArray("\xff\r\n")}}
                                     << QByteArrayLiteral("*3\r\n$3\r\nSET\r\n$4\r\nk\0ey\r\n$3\r\n\xff\r\n\r\n");
        QTest::newRow("empty arg") << QList<QList<QByteArray>>{{"GET", QByteArray()}}
                                   << QByteArray("*2\r\n$3\r\nGET\r\n$0\r\n\r\n");
        QTest::newRow("null and empty are the same")
            << QList<QList<QByteArray>>{{"GET", QByteArray("")}} << QByteArray("*2\r\n$3\r\nGET\r\n$0\r\n\r\n");
        QTest::newRow("percent is not a format") << QList<QList<QByteArray>>{{"SET", "%s%d", "%b"}}
                                                 << QByteArray("*3\r\n$3\r\nSET\r\n$4\r\n%s%d\r\n$2\r\n%b\r\n");
        QTest::newRow("two commands") << QList<QList<QByteArray>>{{"SELECT", "3"}, {"DEL", "a b"}}
                                      << QByteArray(
                                             "*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n*2\r\n$3\r\nDEL\r\n$3\r\na b\r\n");
    }

    void formatCommands()
    {
        QFETCH(QList<QList<QByteArray>>, commands);
        QFETCH(QByteArray, wire);
        QCOMPARE(resp::formatCommands(commands), wire);
        QCOMPARE(resp::formatWithHiredis(commands), wire);
    }

    void formatMatchesHiredis()
    {
        // Random pipelines of random binary arguments (empty ones, NUL bytes, lengths that
        // cross digit boundaries) format exactly as hiredis formats them.
        QRandomGenerator rng(20261129);
        for (int round = 0; round < 200; ++round) {
            QList<QList<QByteArray>> commands;
            const int n = int(rng.bounded(1, 20));
            for (int c = 0; c < n; ++c) {
                QList<QByteArray> argv;
                const int argc = int(rng.bounded(1, 12));
                for (int a = 0; a < argc; ++a) {
                    static const int lengths[] = {0, 1, 9, 10, 99, 100, 999, 1000, 10000};
                    QByteArray arg(lengths[rng.bounded(9)], Qt::Uninitialized);
                    for (char &ch : arg)
                        ch = char(rng.bounded(256));
                    argv.append(arg);
                }
                commands.append(argv);
            }
            QCOMPARE(resp::formatCommands(commands), resp::formatWithHiredis(commands));
        }
    }

    void formatBigArgument()
    {
        QByteArray big(64 * 1024, '\0');
        for (qsizetype i = 0; i < big.size(); ++i)
            big[i] = char(i * 7);
        const QByteArray wire = resp::formatCommands({{"SET", big, "v"}});
        QCOMPARE(wire, QByteArray("*3\r\n$3\r\nSET\r\n$65536\r\n") + big + QByteArray("\r\n$1\r\nv\r\n"));
        // A command is itself an array of bulk strings: it reads back as the same bytes.
        QList<RedisValue> back;
        QVERIFY(resp::parseAll(wire, &back));
        QCOMPARE(back.size(), 1);
        QCOMPARE(back.first(), arr({bulk("SET"), bulk(big), bulk("v")}));
    }

    void errorKinds_data()
    {
        QTest::addColumn<QByteArray>("reply");
        QTest::addColumn<RedisError::Kind>("kind");
        QTest::addColumn<QByteArray>("code");

        QTest::newRow("recorded WRONGTYPE") << recorded(QStringLiteral("error-wrongtype.resp"))
                                            << RedisError::Kind::WrongType << QByteArray("WRONGTYPE");
        QTest::newRow("recorded unknown command")
            << recorded(QStringLiteral("error-unknown.resp")) << RedisError::Kind::UnknownCommand << QByteArray("ERR");
        QTest::newRow("unknown subcommand") << QByteArray("-ERR unknown subcommand 'X'. Try CONFIG HELP.\r\n")
                                            << RedisError::Kind::UnknownCommand << QByteArray("ERR");
        QTest::newRow("NOPERM") << QByteArray(
            "-NOPERM this user has no permissions to run the 'slowlog|get' command\r\n")
                                << RedisError::Kind::NoPerm << QByteArray("NOPERM");
        QTest::newRow("WRONGPASS") << QByteArray("-WRONGPASS invalid username-password pair or user is disabled.\r\n")
                                   << RedisError::Kind::Auth << QByteArray("WRONGPASS");
        QTest::newRow("NOAUTH") << QByteArray("-NOAUTH Authentication required.\r\n") << RedisError::Kind::Auth
                                << QByteArray("NOAUTH");
        QTest::newRow("LOADING") << QByteArray("-LOADING Redis is loading the dataset in memory\r\n")
                                 << RedisError::Kind::Loading << QByteArray("LOADING");
        QTest::newRow("BUSY") << QByteArray("-BUSY Redis is busy running a script.\r\n") << RedisError::Kind::Busy
                              << QByteArray("BUSY");
        QTest::newRow("MOVED") << QByteArray("-MOVED 3999 127.0.0.1:6381\r\n") << RedisError::Kind::Moved
                               << QByteArray("MOVED");
        QTest::newRow("ASK") << QByteArray("-ASK 3999 127.0.0.1:6381\r\n") << RedisError::Kind::Ask
                             << QByteArray("ASK");
        QTest::newRow("READONLY") << QByteArray("-READONLY You can't write against a read only replica.\r\n")
                                  << RedisError::Kind::ReadOnly << QByteArray("READONLY");
        QTest::newRow("OOM") << QByteArray("-OOM command not allowed when used memory > 'maxmemory'.\r\n")
                             << RedisError::Kind::Oom << QByteArray("OOM");
        QTest::newRow("CLUSTERDOWN") << QByteArray("-CLUSTERDOWN The cluster is down\r\n")
                                     << RedisError::Kind::ClusterDown << QByteArray("CLUSTERDOWN");
        QTest::newRow("other") << QByteArray("-ERR value is not an integer or out of range\r\n")
                               << RedisError::Kind::Server << QByteArray("ERR");
        QTest::newRow("bare code") << QByteArray("-BUSYKEY\r\n") << RedisError::Kind::Server << QByteArray("BUSYKEY");
        QTest::newRow("not an error") << QByteArray("+OK\r\n") << RedisError::Kind::None << QByteArray();
    }

    void errorKinds()
    {
        QFETCH(QByteArray, reply);
        QFETCH(RedisError::Kind, kind);
        QFETCH(QByteArray, code);
        QList<RedisValue> values;
        QVERIFY(resp::parseAll(reply, &values));
        QCOMPARE(values.size(), 1);
        const RedisError e = RedisError::fromReply(values.first());
        QCOMPARE(e.kind, kind);
        QCOMPARE(e.code, code);
        QCOMPARE(values.first().errorCode(), code);
        if (kind != RedisError::Kind::None) {
            QVERIFY(e.isError());
            QVERIFY(!e.isConnectionLevel());
            QVERIFY(!e.message.contains(QLatin1Char('\n')));
            QVERIFY(e.message.startsWith(QString::fromLatin1(code)));
        }
    }

    void numbers()
    {
        bool ok = false;
        QCOMPARE(bulk("-17").toInteger(&ok), qint64(-17));
        QVERIFY(ok);
        bulk("1.5").toInteger(&ok);
        QVERIFY(!ok);
        QCOMPARE(bulk("inf").toDouble(&ok), std::numeric_limits<double>::infinity());
        QVERIFY(ok);
        QCOMPARE(bulk("-inf").toDouble(&ok), -std::numeric_limits<double>::infinity());
        QVERIFY(ok);
        QCOMPARE(bulk("2.25").toDouble(&ok), 2.25);
        QVERIFY(ok);
        RedisValue::nil().toInteger(&ok);
        QVERIFY(!ok);
    }
};

QTEST_GUILESS_MAIN(TstRespCodec)
#include "tst_respcodec.moc"
