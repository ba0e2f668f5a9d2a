// SPDX-License-Identifier: GPL-3.0-or-later
#include "patterngroupmodel.h"

#include <QAbstractItemModelTester>
#include <QTest>

namespace {

PatternMatch match(const QByteArray &key, PatternKind kind, const QString &family, KeyType type = KeyType::String)
{
    PatternMatch m;
    m.key = key;
    m.kind = kind;
    m.family = family;
    m.type = type;
    m.confidence = 80;
    m.reason = QStringLiteral("because");
    return m;
}

} // namespace

class TestPatternGroupModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void groupsByKindThenFamily();
    void familiesAreBounded();
    void binaryKeysKeepTheirBytes();
};

void TestPatternGroupModel::groupsByKindThenFamily()
{
    PatternGroupModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setMatches({match("x", PatternKind::Unknown, QStringLiteral("x")),
                      match("rate:user:1:9", PatternKind::FixedWindow, QStringLiteral("rate:user:{n}:{n}")),
                      match("lock:b", PatternKind::Lock, QStringLiteral("lock:{id}")),
                      match("lock:a", PatternKind::Lock, QStringLiteral("lock:{id}")),
                      match("lock:cron:x", PatternKind::Lock, QStringLiteral("lock:cron:{id}"))});
    QCOMPARE(model.keyCount(), 5u);
    // Catalogue order, "not recognised" last.
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.index(0, 0).data().toString(), patternKindName(PatternKind::Lock));
    QCOMPARE(model.index(0, PatternGroupModel::KeysColumn).data().toString(), QStringLiteral("3"));
    QCOMPARE(model.index(1, 0).data().toString(), patternKindName(PatternKind::FixedWindow));
    QCOMPARE(model.index(2, 0).data().toString(), QStringLiteral("not recognised"));
    // Families by size, keys by name.
    const QModelIndex locks = model.index(0, 0);
    QCOMPARE(model.rowCount(locks), 2);
    const QModelIndex big = model.index(0, 0, locks);
    QCOMPARE(big.data().toString(), QStringLiteral("lock:{id}"));
    QCOMPARE(model.rowCount(big), 2);
    QCOMPARE(model.index(0, 0, big).data(PatternGroupModel::KeyBytesRole).toByteArray(), QByteArray("lock:a"));
    QCOMPARE(model.index(1, 0, big).data(PatternGroupModel::KeyBytesRole).toByteArray(), QByteArray("lock:b"));
    QCOMPARE(model.index(1, 0, big).parent(), big);
    QCOMPARE(big.parent(), locks);
    QCOMPARE(model.index(0, 0, big).data(PatternGroupModel::PatternRole).toInt(), int(PatternKind::Lock));
    QCOMPARE(model.index(0, 0, big).data(PatternGroupModel::FamilyRole).toString(), QStringLiteral("lock:{id}"));

    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void TestPatternGroupModel::familiesAreBounded()
{
    PatternGroupModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setKeyLimit(10);
    QList<PatternMatch> many;
    for (int i = 0; i < 2500; ++i)
        many.append(match("session:" + QByteArray::number(i), PatternKind::Session, QStringLiteral("session:{id}"),
                          KeyType::Hash));
    model.setMatches(many);
    const QModelIndex family = model.index(0, 0, model.index(0, 0));
    QCOMPARE(model.rowCount(family), 11); // ten keys and one row counting the rest
    QCOMPARE(model.index(10, 0, family).data().toString(), QStringLiteral("… 2,490 more keys of this shape"));
    QVERIFY(model.index(10, 0, family).data(PatternGroupModel::KeyBytesRole).isNull());
    QCOMPARE(model.index(0, 0, family).data(PatternGroupModel::KeyTypeRole).toInt(), int(KeyType::Hash));
}

void TestPatternGroupModel::binaryKeysKeepTheirBytes()
{
    PatternGroupModel model;
    const QByteArray nul("seen:\x00\xff", 7);
    model.setMatches({match(nul, PatternKind::DedupKey, QStringLiteral("seen:{id}"))});
    const QModelIndex key = model.index(0, 0, model.index(0, 0, model.index(0, 0)));
    QCOMPARE(key.data(PatternGroupModel::KeyBytesRole).toByteArray(), nul);
    QCOMPARE(key.data().toString(), QStringLiteral("\"seen:\\x00\\xff\""));
}

QTEST_GUILESS_MAIN(TestPatternGroupModel)
#include "tst_patterngroupmodel.moc"
