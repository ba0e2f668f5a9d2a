// SPDX-License-Identifier: GPL-3.0-or-later
#include "patternbook.h"

#include <QRandomGenerator>
#include <QTest>

// PatternBook's key table: keys are found by their 64-bit hash (open addressing) and checked in
// their slot; keys whose hash another key already holds are kept by their bytes. Checked against
// a plain QHash with the real hash, with hashes that make many or all keys collide, and with
// distinct hashes that all probe from one entry.
class TestPatternBook : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void matchesAReferenceTable_data();
    void matchesAReferenceTable();
    void collidingKeyOutlivesTheKeyItCollidedWith();
};

namespace {

size_t sameForAll(const QByteArray &)
{
    return 42;
}

size_t byLength(const QByteArray &key)
{
    return size_t(key.size()) << 58 | size_t(key.size()); // spread over shards, still colliding
}

// Distinct hashes that all start probing at the same entry: long probe runs, and removals that
// must shift the entries behind them.
size_t oneHome(const QByteArray &key)
{
    return size_t(qHash(key) & 0xffffff) << 16;
}

} // namespace

void TestPatternBook::matchesAReferenceTable_data()
{
    QTest::addColumn<int>("hash");
    QTest::newRow("real hash") << 0;
    QTest::newRow("every key collides") << 1;
    QTest::newRow("keys of one length collide") << 2;
    QTest::newRow("distinct hashes, one home") << 3;
}

void TestPatternBook::matchesAReferenceTable()
{
    QFETCH(int, hash);
    PatternBook book;
    if (hash == 1)
        book.index.setHashFunction(&sameForAll);
    else if (hash == 2)
        book.index.setHashFunction(&byLength);
    else if (hash == 3)
        book.index.setHashFunction(&oneHome);
    QHash<QByteArray, int> reference;
    QRandomGenerator random(7);
    const int universe = hash == 1 ? 300 : 5000;
    for (int step = 0; step < 20000; ++step) {
        const QByteArray key = "key:" + QByteArray::number(random.bounded(universe));
        const int op = random.bounded(10);
        if (op < 6) {
            bool created = false;
            const int id = book.slotFor(key, &created);
            QCOMPARE(created, !reference.contains(key));
            if (!created)
                QCOMPARE(id, reference.value(key));
            QCOMPARE(book.keyView(book.slot(id)), key);
            reference.insert(key, id);
        } else if (op < 8) {
            book.forget(key);
            reference.remove(key);
        } else {
            QCOMPARE(book.slotOf(key), reference.value(key, -1));
            QCOMPARE(book.known(key), reference.contains(key));
        }
        QCOMPARE(book.keyCount, int(reference.size()));
    }
    // Every slot is one key's: no key was given two.
    QSet<int> slots;
    for (auto it = reference.cbegin(); it != reference.cend(); ++it) {
        QCOMPARE(book.slotOf(it.key()), it.value());
        QVERIFY(!slots.contains(it.value()));
        slots.insert(it.value());
    }
}

void TestPatternBook::collidingKeyOutlivesTheKeyItCollidedWith()
{
    PatternBook book;
    book.index.setHashFunction(&sameForAll);
    bool created = false;
    const int a = book.slotFor("a", &created);
    const int b = book.slotFor("b", &created);
    QVERIFY(created);
    QVERIFY(a != b);
    book.forget("a"); // the hash's own entry goes; "b" is still known by its bytes
    QCOMPARE(book.slotOf("b"), b);
    QCOMPARE(book.slotFor("b", &created), b);
    QVERIFY(!created); // not a second slot for a key that is already known
    const int c = book.slotFor("c", &created);
    QVERIFY(created);
    QCOMPARE(book.slotOf("b"), b);
    QCOMPARE(book.slotOf("c"), c);
    QCOMPARE(book.keyCount, 2);
}

QTEST_GUILESS_MAIN(TestPatternBook)
#include "tst_patternbook.moc"
