// SPDX-License-Identifier: GPL-3.0-or-later
#include "keynameset.h"

#include <QTest>

namespace {

size_t sameForAll(const QByteArray &)
{
    return 42;
}

} // namespace

class TestKeyNameSet : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void idsInOrderAndEachNameOnce();
    void collidingHashesKeepNamesApart();
};

// More names than a segment holds, with the names a key can have: empty, NUL bytes, 100 KB,
// and lengths around the length prefix's steps.
void TestKeyNameSet::idsInOrderAndEachNameOnce()
{
    KeyNameSet set;
    QList<QByteArray> names{QByteArray(""), QByteArray("a\0b", 3), QByteArray("a\0c", 3), QByteArray(100 * 1024, 'x')};
    // Lengths where the arena's length prefix takes one more byte, and a chunk of its own.
    for (int length : {127, 128, 16383, 16384, 64 * 1024, 64 * 1024 + 1})
        names.append(QByteArray(length, char('a' + length % 26)));
    for (int i = 0; i < 70000; ++i)
        names.append("user:" + QByteArray::number(i) + ":cart");
    for (qsizetype i = 0; i < names.size(); ++i) {
        bool added = false;
        QCOMPARE(set.insert(names.at(i), &added), quint32(i));
        QVERIFY(added);
    }
    QCOMPARE(set.size(), names.size());
    for (qsizetype i = 0; i < names.size(); i += (i < 16 ? 1 : 997)) {
        bool added = true;
        QCOMPARE(set.insert(QByteArray(names.at(i).constData(), names.at(i).size()), &added), quint32(i));
        QVERIFY(!added);
        QCOMPARE(set.view(quint32(i)), names.at(i));
        QCOMPARE(set.find(names.at(i)), qint64(i));
    }
    QCOMPARE(set.view(3).size(), 100 * 1024);
    QCOMPARE(set.find("user:70000:cart"), qint64(-1));
    QCOMPARE(set.find(QByteArray("a\0d", 3)), qint64(-1));
    QCOMPARE(set.size(), names.size());
    set.clear();
    QCOMPARE(set.size(), 0);
    QCOMPARE(set.find(""), qint64(-1));
    bool added = false;
    QCOMPARE(set.insert("user:1:cart", &added), 0u);
    QVERIFY(added);
}

// Every name hashes alike: the bytes decide.
void TestKeyNameSet::collidingHashesKeepNamesApart()
{
    KeyNameSet set;
    set.setHashFunction(&sameForAll);
    for (int i = 0; i < 300; ++i) {
        bool added = false;
        QCOMPARE(set.insert("k" + QByteArray::number(i), &added), quint32(i));
        QVERIFY(added);
    }
    for (int i = 0; i < 300; ++i) {
        bool added = true;
        QCOMPARE(set.insert("k" + QByteArray::number(i), &added), quint32(i));
        QVERIFY(!added);
        QCOMPARE(set.view(quint32(i)), "k" + QByteArray::number(i));
    }
    QCOMPARE(set.find("k300"), qint64(-1));
}

QTEST_GUILESS_MAIN(TestKeyNameSet)
#include "tst_keynameset.moc"
