// SPDX-License-Identifier: GPL-3.0-or-later
#include "memorystats.h"

#include <QAbstractItemModelTester>
#include <QTest>

namespace {
ScannedKey key(const QByteArray &name, KeyType type, qint64 memory, qint64 elements)
{
    ScannedKey k;
    k.name = name;
    k.type = type;
    k.memoryBytes = memory;
    k.elements = elements;
    k.pttlMs = -1;
    return k;
}

ScanBatch batch(const QList<ScannedKey> &keys)
{
    ScanBatch b;
    b.keys = keys;
    return b;
}
} // namespace

// MemoryStats: the sums and rankings behind the memory panel, from hand-built scan batches.
class TstMemoryStats : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void namespaces_data()
    {
        QTest::addColumn<int>("depth");
        QTest::addColumn<QList<QByteArray>>("prefixes"); // largest first
        QTest::addColumn<QList<qint64>>("memory");
        QTest::addColumn<QList<quint64>>("keys");
        QTest::newRow("one level") << 1 << QList<QByteArray>{"cache:", "session:", ""} << QList<qint64>{700, 300, 5}
                                   << QList<quint64>{3, 2, 1};
        QTest::newRow("two levels") << 2 << QList<QByteArray>{"cache:page:", "session:", "cache:user:", ""}
                                    << QList<qint64>{600, 300, 100, 5} << QList<quint64>{2, 2, 1, 1};
        // "session:a" has only two segments: at depth 3 it stays in "session:".
        QTest::newRow("three levels") << 3 << QList<QByteArray>{"cache:page:", "session:", "cache:user:", ""}
                                      << QList<qint64>{600, 300, 100, 5} << QList<quint64>{2, 2, 1, 1};
    }
    void namespaces()
    {
        QFETCH(int, depth);
        QFETCH(QList<QByteArray>, prefixes);
        QFETCH(QList<qint64>, memory);
        QFETCH(QList<quint64>, keys);
        MemoryStats stats;
        stats.add(batch({key("cache:page:1", KeyType::String, 400, 10), key("cache:page:2", KeyType::String, 200, 5),
                         key("cache:user:9", KeyType::Hash, 100, 3), key("session:a", KeyType::Hash, 120, 4),
                         key("session:b", KeyType::Hash, 180, 6), key("plain", KeyType::String, 5, 1)}));
        const QList<NamespaceMemory> rows = stats.namespaces(depth);
        QCOMPARE(rows.size(), prefixes.size());
        for (int i = 0; i < rows.size(); ++i) {
            QCOMPARE(rows.at(i).prefix, prefixes.at(i));
            QCOMPARE(rows.at(i).memory, memory.at(i));
            QCOMPARE(rows.at(i).keys, keys.at(i));
        }
        QCOMPARE(stats.totalMemory(), qint64(1005));
        QCOMPARE(stats.keyCount(), quint64(6));
    }

    void biggestPerNamespace()
    {
        MemoryStats stats;
        stats.add(batch(
            {key("a:1", KeyType::String, 10, 1), key("a:2", KeyType::List, 30, 1), key("a:3", KeyType::Set, 20, 1)}));
        QCOMPARE(stats.namespaces(1).first().biggest.name, QByteArray("a:2"));
    }

    void duplicatesCountOnce()
    {
        MemoryStats stats;
        stats.add(batch({key("k:1", KeyType::String, 100, 3), key("k:2", KeyType::String, 50, 3)}));
        // SCAN may return a key again while the server rehashes.
        stats.add(batch({key("k:1", KeyType::String, 100, 3)}));
        QCOMPARE(stats.keyCount(), quint64(2));
        QCOMPARE(stats.totalMemory(), qint64(150));
        QCOMPARE(stats.topByMemory().size(), 2);
        stats.clear();
        QCOMPARE(stats.keyCount(), quint64(0));
        stats.add(batch({key("k:1", KeyType::String, 100, 3)}));
        QCOMPARE(stats.keyCount(), quint64(1)); // cleared means forgotten
    }

    void unknownMemoryIsCountedNotSummed()
    {
        MemoryStats stats;
        stats.add(batch({key("x:1", KeyType::String, -1, 4), key("x:2", KeyType::String, 64, 2)}));
        QCOMPARE(stats.keyCount(), quint64(2));
        QCOMPARE(stats.measuredCount(), quint64(1));
        QCOMPARE(stats.totalMemory(), qint64(64));
        QCOMPARE(stats.namespaces(1).first().measured, quint64(1));
        // Not ranked by memory, still ranked by length.
        QCOMPARE(stats.topByMemory().size(), 1);
        QCOMPARE(stats.biggestByElements(KeyType::String).name, QByteArray("x:1"));
    }

    void topNIsBoundedAndOrdered()
    {
        MemoryStats stats;
        stats.setTopN(10);
        QList<ScannedKey> keys;
        // Memory 0..999 in a scrambled order; the top ten are 999 down to 990.
        for (int i = 0; i < 1000; ++i) {
            const int m = (i * 7919) % 1000;
            keys.append(key("k:" + QByteArray::number(m), i % 2 ? KeyType::String : KeyType::Hash, m, 1000 - m));
        }
        stats.add(batch(keys));
        const QList<KeySize> top = stats.topByMemory();
        QCOMPARE(top.size(), 10);
        for (int i = 0; i < 10; ++i)
            QCOMPARE(top.at(i).memory, qint64(999 - i));
        // By length within a type: the smallest memory has the largest length here.
        const QList<KeySize> byLength = stats.topByElements(KeyType::String);
        QCOMPARE(byLength.size(), 10);
        for (int i = 1; i < byLength.size(); ++i)
            QVERIFY(byLength.at(i - 1).elements >= byLength.at(i).elements);
        QCOMPARE(stats.keysOfType(KeyType::String) + stats.keysOfType(KeyType::Hash), quint64(1000));
    }

    void tiesRankTheFirstFound()
    {
        // redis-cli --bigkeys keeps the first maximum it meets; so does the panel.
        MemoryStats stats;
        stats.add(batch({key("first", KeyType::List, 80, 5), key("second", KeyType::List, 80, 5)}));
        stats.add(batch({key("third", KeyType::List, 80, 5)}));
        QCOMPARE(stats.biggestByMemory(KeyType::List).name, QByteArray("first"));
        QCOMPARE(stats.biggestByElements(KeyType::List).name, QByteArray("first"));
        stats.setTopN(2);
        stats.clear();
        stats.add(batch({key("a", KeyType::Set, 5, 1), key("b", KeyType::Set, 5, 1), key("c", KeyType::Set, 5, 1)}));
        const QList<KeySize> top = stats.topByMemory(KeyType::Set);
        QCOMPARE(top.size(), 2);
        QCOMPARE(top.at(0).name, QByteArray("a"));
        QCOMPARE(top.at(1).name, QByteArray("b"));
    }

    void binaryNamesAndSeparators()
    {
        MemoryStats stats;
        stats.setSeparator("::");
        const QByteArray bin("bin\x00::\xff", 7);
        stats.add(batch({key(bin, KeyType::String, 10, 1), key("a::b::c", KeyType::String, 20, 1)}));
        QCOMPARE(stats.namespaceOf(bin, 1), QByteArray("bin\x00::", 6));
        QCOMPARE(stats.namespaceOf("a::b::c", 2), QByteArray("a::b::"));
        QCOMPARE(stats.namespaceOf("nothing", 1), QByteArray());
        stats.setSeparator({});
        QCOMPARE(stats.namespaceOf("a::b", 1), QByteArray());
    }

    void modelsPassTheTester()
    {
        MemoryStats stats;
        QList<ScannedKey> keys;
        for (int i = 0; i < 200; ++i)
            keys.append(key("ns" + QByteArray::number(i % 7) + ":" + QByteArray::number(i), KeyType::Hash, 100 + i, i));
        stats.add(batch(keys));
        NamespaceMemoryModel namespaces;
        QAbstractItemModelTester t1(&namespaces, QAbstractItemModelTester::FailureReportingMode::QtTest);
        namespaces.setResults(stats.namespaces(1), stats.totalMemory());
        QCOMPARE(namespaces.rowCount(), 7);
        QCOMPARE(
            namespaces.data(namespaces.index(0, NamespaceMemoryModel::NamespaceColumn), NamespaceMemoryModel::KeyRole)
                .toByteArray(),
            QByteArray("ns3:")); // ns0..ns3 hold 29 keys each, ns3 the largest of them
        QVERIFY(namespaces.data(namespaces.index(0, NamespaceMemoryModel::ShareColumn))
                    .toString()
                    .endsWith(QLatin1Char('%')));
        namespaces.setResults({}, 0);
        QCOMPARE(namespaces.rowCount(), 0);

        TopKeysModel top;
        QAbstractItemModelTester t2(&top, QAbstractItemModelTester::FailureReportingMode::QtTest);
        top.setResults(stats.topByElements(KeyType::Hash));
        QCOMPARE(top.rowCount(), 50);
        QCOMPARE(top.data(top.index(0, TopKeysModel::KeyColumn), TopKeysModel::KeyRole).toByteArray(),
                 QByteArray("ns3:199"));
        QCOMPARE(top.data(top.index(0, TopKeysModel::ElementsColumn)).toString(), QStringLiteral("199 fields"));
        QCOMPARE(top.data(top.index(0, TopKeysModel::RankColumn)).toInt(), 1);
    }
};

QTEST_GUILESS_MAIN(TstMemoryStats)
#include "tst_memorystats.moc"
