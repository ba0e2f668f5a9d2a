// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandkeys.h"

#include <QTest>

using Args = QList<QByteArray>;
using Positions = QList<qsizetype>;

class TestCommandKeys : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void positions_data();
    void positions();
    void max();
};

void TestCommandKeys::positions_data()
{
    QTest::addColumn<Args>("args");
    QTest::addColumn<Positions>("keys");
    // A command the table does not know: argument 1.
    QTest::newRow("GET") << Args{"GET", "k"} << Positions{1};
    QTest::newRow("lower case") << Args{"hgetall", "h"} << Positions{1};
    QTest::newRow("SET with options") << Args{"SET", "lock:1", "tok", "NX", "PX", "3000"} << Positions{1};
    QTest::newRow("module command") << Args{"JSON.GET", "doc:1", "$"} << Positions{1};
    QTest::newRow("no arguments") << Args{"GET"} << Positions{};
    QTest::newRow("empty") << Args{} << Positions{};
    // No keys.
    QTest::newRow("PING") << Args{"PING"} << Positions{};
    QTest::newRow("INFO") << Args{"INFO", "commandstats"} << Positions{};
    QTest::newRow("KEYS pattern") << Args{"KEYS", "*"} << Positions{};
    QTest::newRow("SCAN") << Args{"SCAN", "0", "COUNT", "100"} << Positions{};
    QTest::newRow("FLUSHALL") << Args{"FLUSHALL", "ASYNC"} << Positions{};
    QTest::newRow("DEBUG SLEEP") << Args{"DEBUG", "SLEEP", "0.01"} << Positions{};
    QTest::newRow("CONFIG SET") << Args{"CONFIG", "SET", "maxmemory", "0"} << Positions{};
    QTest::newRow("CLIENT SETNAME") << Args{"CLIENT", "SETNAME", "x"} << Positions{};
    QTest::newRow("PUBLISH") << Args{"PUBLISH", "news", "hi"} << Positions{};
    QTest::newRow("SENTINEL") << Args{"SENTINEL", "get-master-addr-by-name", "mymaster"} << Positions{};
    QTest::newRow("search index") << Args{"FT.SEARCH", "idx", "*"} << Positions{};
    // Every argument, every argument but the last, the first two, every other one.
    QTest::newRow("MGET") << Args{"MGET", "a", "b", "c"} << Positions{1, 2, 3};
    QTest::newRow("DEL") << Args{"del", "a", "b"} << Positions{1, 2};
    QTest::newRow("RENAME") << Args{"RENAME", "a", "b"} << Positions{1, 2};
    QTest::newRow("BLPOP") << Args{"BLPOP", "q1", "q2", "5"} << Positions{1, 2};
    QTest::newRow("LMOVE") << Args{"LMOVE", "src", "dst", "LEFT", "RIGHT"} << Positions{1, 2};
    QTest::newRow("LCS") << Args{"LCS", "a", "b", "LEN"} << Positions{1, 2};
    QTest::newRow("MSET") << Args{"MSET", "a", "1", "b", "2"} << Positions{1, 3};
    // A count, then that many keys.
    QTest::newRow("EVAL") << Args{"EVAL", "return 1", "2", "k1", "k2", "arg"} << Positions{3, 4};
    QTest::newRow("EVAL no keys") << Args{"EVAL", "return 1", "0", "arg"} << Positions{};
    QTest::newRow("EVALSHA") << Args{"evalsha", "abc", "1", "k"} << Positions{3};
    QTest::newRow("FCALL") << Args{"FCALL", "f", "1", "k", "arg"} << Positions{3};
    QTest::newRow("FCALL_RO no keys") << Args{"FCALL_RO", "f", "0"} << Positions{};
    QTest::newRow("EVAL count beyond") << Args{"EVAL", "return 1", "1"} << Positions{};
    QTest::newRow("EVAL count not a number") << Args{"EVAL", "return 1", "x", "k"} << Positions{};
    QTest::newRow("ZUNION") << Args{"ZUNION", "2", "a", "b"} << Positions{2, 3};
    QTest::newRow("ZINTER") << Args{"ZINTER", "2", "z1", "z2", "WITHSCORES"} << Positions{2, 3};
    QTest::newRow("LMPOP") << Args{"LMPOP", "1", "l", "LEFT"} << Positions{2};
    QTest::newRow("BLMPOP") << Args{"BLMPOP", "0", "1", "l", "LEFT"} << Positions{3};
    QTest::newRow("ZUNIONSTORE") << Args{"ZUNIONSTORE", "dst", "2", "z1", "z2", "WEIGHTS", "1", "2"}
                                 << Positions{1, 3, 4};
    // Keys after a word.
    QTest::newRow("BITOP") << Args{"BITOP", "AND", "dest", "a", "b"} << Positions{2, 3, 4};
    QTest::newRow("BITOP without keys") << Args{"BITOP", "AND"} << Positions{};
    QTest::newRow("XREAD") << Args{"XREAD", "COUNT", "2", "STREAMS", "s1", "s2", "0", "0"} << Positions{4, 5};
    QTest::newRow("XREADGROUP") << Args{"XREADGROUP", "GROUP", "g", "c", "streams", "s", ">"} << Positions{5};
    QTest::newRow("XREAD no STREAMS") << Args{"XREAD", "COUNT", "2"} << Positions{};
    QTest::newRow("MIGRATE one key") << Args{"MIGRATE", "h", "6379", "k", "0", "5000"} << Positions{3};
    QTest::newRow("MIGRATE KEYS") << Args{"MIGRATE", "h", "6379", "", "0", "5000", "KEYS", "a", "b"} << Positions{7, 8};
    QTest::newRow("MIGRATE AUTH keys") << Args{"MIGRATE", "h", "6379", "", "0", "5000", "AUTH", "keys", "KEYS", "a"}
                                       << Positions{9};
    QTest::newRow("MIGRATE AUTH2") << Args{"MIGRATE", "h",    "6379", "",     "0", "5000", "COPY",
                                           "AUTH2",   "keys", "keys", "KEYS", "a", "b"}
                                   << Positions{11, 12};
    QTest::newRow("MIGRATE key and KEYS") << Args{"MIGRATE", "h", "6379", "k", "0", "5000", "KEYS", "a"} << Positions{};
    QTest::newRow("MIGRATE empty key") << Args{"MIGRATE", "h", "6379", "", "0", "5000"} << Positions{};
    // Subcommands that take a key at argument 2.
    QTest::newRow("OBJECT ENCODING") << Args{"OBJECT", "ENCODING", "k"} << Positions{2};
    QTest::newRow("OBJECT freq") << Args{"object", "freq", "hot"} << Positions{2};
    QTest::newRow("OBJECT HELP") << Args{"OBJECT", "HELP"} << Positions{};
    QTest::newRow("MEMORY USAGE") << Args{"MEMORY", "USAGE", "big"} << Positions{2};
    QTest::newRow("MEMORY DOCTOR") << Args{"MEMORY", "DOCTOR"} << Positions{};
    QTest::newRow("XINFO STREAM") << Args{"XINFO", "STREAM", "s"} << Positions{2};
    QTest::newRow("XGROUP CREATE") << Args{"XGROUP", "CREATE", "s", "g", "$"} << Positions{2};
    QTest::newRow("binary key") << Args{"GET", QByteArray("\x00\xff", 2)} << Positions{1};
}

void TestCommandKeys::positions()
{
    QFETCH(Args, args);
    QFETCH(Positions, keys);
    QCOMPARE(commandkeys::keyPositions(args), keys);
    // The first key alone, as the slow log asks for it.
    QCOMPARE(commandkeys::keyPositions(args, 1), keys.mid(0, 1));
}

void TestCommandKeys::max()
{
    Args del{"DEL"};
    for (int i = 0; i < 100; ++i)
        del << "d:" + QByteArray::number(i);
    QCOMPARE(commandkeys::keyPositions(del).size(), qsizetype(100));
    const Positions first = commandkeys::keyPositions(del, 10);
    QCOMPARE(first.size(), qsizetype(10));
    QCOMPARE(first.constFirst(), qsizetype(1));
    QCOMPARE(first.constLast(), qsizetype(10));
    QVERIFY(commandkeys::keyPositions(del, 0).isEmpty());
    Args eval{"EVAL", "s", "50"};
    for (int i = 0; i < 50; ++i)
        eval << "k" + QByteArray::number(i);
    QCOMPARE(commandkeys::keyPositions(eval, 3), (Positions{3, 4, 5}));
}

QTEST_GUILESS_MAIN(TestCommandKeys)
#include "tst_commandkeys.moc"
