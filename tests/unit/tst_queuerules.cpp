// SPDX-License-Identifier: GPL-3.0-or-later
#include "queues.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

// What counts as a queue: the byte glob, the built-in name rules, user rules first, the rules
// file, and epoch-score detection.
class TestQueueRules : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void glob_data();
    void glob();
    void builtIn_data();
    void builtIn();
    void zsets_data();
    void zsets();
    void epochUnit();
    void itemTimestamp();
    void userRulesOverride();
    void roundTrip();
    void malformedFileUntouched();
    void rulesModel();
};

void TestQueueRules::glob_data()
{
    QTest::addColumn<QByteArray>("pattern");
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<bool>("match");
    QTest::newRow("star") << QByteArray("jobs:*") << QByteArray("jobs:video") << true;
    QTest::newRow("star empty") << QByteArray("jobs:*") << QByteArray("jobs:") << true;
    QTest::newRow("star no") << QByteArray("jobs:*") << QByteArray("job:video") << false;
    QTest::newRow("star middle") << QByteArray("q:*:proc:*") << QByteArray("q:email:proc:w1") << true;
    QTest::newRow("star backtrack") << QByteArray("*a*b") << QByteArray("xaxxbxab") << true;
    QTest::newRow("star backtrack no") << QByteArray("*a*b") << QByteArray("xaxxbxa") << false;
    QTest::newRow("question") << QByteArray("q?") << QByteArray("q1") << true;
    QTest::newRow("question short") << QByteArray("q?") << QByteArray("q") << false;
    QTest::newRow("class") << QByteArray("q[abc]") << QByteArray("qb") << true;
    QTest::newRow("class no") << QByteArray("q[abc]") << QByteArray("qd") << false;
    QTest::newRow("range") << QByteArray("w[0-9]") << QByteArray("w7") << true;
    QTest::newRow("negated") << QByteArray("w[^0-9]") << QByteArray("w7") << false;
    QTest::newRow("negated bang") << QByteArray("w[!0-9]") << QByteArray("wx") << true;
    QTest::newRow("escaped star") << QByteArray("a\\*") << QByteArray("a*") << true;
    QTest::newRow("escaped star literal") << QByteArray("a\\*") << QByteArray("ab") << false;
    QTest::newRow("escaped in class") << QByteArray("[\\]]") << QByteArray("]") << true;
    QTest::newRow("binary") << QByteArray("k\x00*", 3) << QByteArray("k\x00\xff", 3) << true;
    QTest::newRow("binary no") << QByteArray("k\x00*", 3) << QByteArray("k\x01\xff", 3) << false;
    QTest::newRow("high byte range") << QByteArray("[\x80-\xff]") << QByteArray("\xc3") << true;
    QTest::newRow("exact") << QByteArray("abc") << QByteArray("abc") << true;
    QTest::newRow("exact longer") << QByteArray("abc") << QByteArray("abcd") << false;
    QTest::newRow("only star") << QByteArray("*") << QByteArray() << true;
}

void TestQueueRules::glob()
{
    QFETCH(QByteArray, pattern);
    QFETCH(QByteArray, text);
    QFETCH(bool, match);
    QCOMPARE(globMatch(pattern, text), match);
}

void TestQueueRules::builtIn_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QByteArray>("queue");
    QTest::addColumn<QString>("reasonHas");
    QTest::newRow("q:email") << QByteArray("q:email") << int(QueueKind::Queue) << QByteArray() << QStringLiteral("'q'");
    QTest::newRow("queue:jobs") << QByteArray("queue:jobs") << int(QueueKind::Queue) << QByteArray() << QStringLiteral("'queue'");
    QTest::newRow("jobs:video") << QByteArray("jobs:video") << int(QueueKind::Queue) << QByteArray() << QStringLiteral("'jobs'");
    QTest::newRow("app.outbox") << QByteArray("app.outbox") << int(QueueKind::Queue) << QByteArray() << QStringLiteral("'outbox'");
    QTest::newRow("proc") << QByteArray("q:email:proc:worker-2") << int(QueueKind::ProcessingList) << QByteArray("q:email")
                          << QStringLiteral("'proc'");
    QTest::newRow("processing") << QByteArray("tasks:resize:processing") << int(QueueKind::ProcessingList)
                                << QByteArray("tasks:resize") << QStringLiteral("'processing'");
    QTest::newRow("recent:searches") << QByteArray("recent:searches") << int(QueueKind::NotAQueue) << QByteArray()
                                     << QStringLiteral("without");
    QTest::newRow("notifications") << QByteArray("notifications:user:7") << int(QueueKind::NotAQueue) << QByteArray()
                                   << QStringLiteral("without");
    QTest::newRow("substring is not a segment") << QByteArray("sequence:log") << int(QueueKind::NotAQueue) << QByteArray()
                                                << QStringLiteral("without");
}

void TestQueueRules::builtIn()
{
    QFETCH(QByteArray, key);
    QFETCH(int, kind);
    QFETCH(QByteArray, queue);
    QFETCH(QString, reasonHas);
    const QueueClassification c = QueueRules().classify(key, KeyType::List);
    QCOMPARE(int(c.kind), kind);
    QCOMPARE(c.queue, queue);
    QVERIFY2(c.reason.contains(reasonHas), qPrintable(c.reason));
    QVERIFY(!c.reason.contains(QLatin1Char('\n')));
}

void TestQueueRules::zsets_data()
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QList<double>>("scores");
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("unit");
    QTest::newRow("sched ms") << QByteArray("sched:due") << QList<double>{double(now - 60000), double(now), double(now + 5000)}
                              << int(QueueKind::DelayedJobs) << int(EpochUnit::Milliseconds);
    QTest::newRow("delayed s all overdue") << QByteArray("jobs:delayed")
                                           << QList<double>{double(now / 1000 - 600), double(now / 1000 - 60)}
                                           << int(QueueKind::DelayedJobs) << int(EpochUnit::Seconds);
    QTest::newRow("future without a name") << QByteArray("reminders") << QList<double>{double(now + 1000), double(now + 90000)}
                                           << int(QueueKind::DelayedJobs) << int(EpochUnit::Milliseconds);
    QTest::newRow("sliding log") << QByteArray("rate:sliding:user:1") << QList<double>{double(now - 5000), double(now - 10)}
                                 << int(QueueKind::NotAQueue) << int(EpochUnit::Milliseconds);
    QTest::newRow("leaderboard") << QByteArray("lb:daily") << QList<double>{10, 250, 31337} << int(QueueKind::NotAQueue)
                                 << int(EpochUnit::None);
    QTest::newRow("named but not times") << QByteArray("sched:weights") << QList<double>{1, 2, 3}
                                         << int(QueueKind::NotAQueue) << int(EpochUnit::None);
}

void TestQueueRules::zsets()
{
    QFETCH(QByteArray, key);
    QFETCH(QList<double>, scores);
    QFETCH(int, kind);
    QFETCH(int, unit);
    const QueueClassification c = QueueRules().classify(key, KeyType::ZSet, &scores);
    QVERIFY2(int(c.kind) == kind, qPrintable(c.reason));
    if (kind == int(QueueKind::DelayedJobs))
        QCOMPARE(int(c.unit), unit);
    QCOMPARE(int(detectEpochUnit(scores, QDateTime::currentMSecsSinceEpoch())), unit);
    if (unit == int(EpochUnit::Milliseconds))
        QVERIFY2(c.reason.contains(QStringLiteral("epoch milliseconds (%1 of %1 sampled)").arg(scores.size())), qPrintable(c.reason));
}

void TestQueueRules::epochUnit()
{
    const qint64 now = 1'750'000'000'000;
    QCOMPARE(detectEpochUnit({1'750'000'000}, now), EpochUnit::Seconds);
    QCOMPARE(detectEpochUnit({1'750'000'000'000.0}, now), EpochUnit::Milliseconds);
    QCOMPARE(detectEpochUnit({1'750'000'000, 1'750'000'000'000.0}, now), EpochUnit::None); // mixed
    QCOMPARE(detectEpochUnit({42, 1000}, now), EpochUnit::None);
    QCOMPARE(detectEpochUnit({2'200'000'000}, now), EpochUnit::None); // more than ten years ahead
}

void TestQueueRules::itemTimestamp()
{
    const qint64 now = 1'750'000'000'000;
    QString source;
    QCOMPARE(itemTimestampMs(R"({"id":1,"enqueued_at":1749999999000})", now, &source), std::optional<qint64>(1749999999000));
    QCOMPARE(source, QStringLiteral("enqueued_at (ms)"));
    QCOMPARE(itemTimestampMs(R"({"ts":"1749999000"})", now, &source), std::optional<qint64>(1749999000000));
    QCOMPARE(source, QStringLiteral("ts (s)"));
    QCOMPARE(itemTimestampMs("1749999990123:resize:42", now, &source), std::optional<qint64>(1749999990123));
    QVERIFY(!itemTimestampMs(R"({"id":12345678901})", now));
    QVERIFY(!itemTimestampMs("hello", now));
    QVERIFY(!itemTimestampMs("{broken", now));
}

void TestQueueRules::userRulesOverride()
{
    QueueRules rules;
    rules.setUserRules({{"recent:*", KeyType::List, QueueKind::Queue, QStringLiteral("ours")},
                        {"q:*", KeyType::List, QueueKind::NotAQueue, {}},
                        {"lb:*", KeyType::ZSet, QueueKind::DelayedJobs, {}}});
    QueueClassification c = rules.classify("recent:searches", KeyType::List);
    QCOMPARE(c.kind, QueueKind::Queue);
    QCOMPARE(c.reason, QStringLiteral("rule 1: glob 'recent:*' list → queue (ours)"));
    c = rules.classify("q:email", KeyType::List);
    QCOMPARE(c.kind, QueueKind::NotAQueue);
    QVERIFY(c.reason.startsWith(QStringLiteral("rule 2:")));
    // The type has to match too.
    c = rules.classify("recent:searches", KeyType::ZSet);
    QCOMPARE(c.kind, QueueKind::NotAQueue);
    const QList<double> scores{1'750'000'000};
    c = rules.classify("lb:x", KeyType::ZSet, &scores, 1'750'000'000'000);
    QCOMPARE(c.kind, QueueKind::DelayedJobs);
    QCOMPARE(c.unit, EpochUnit::Seconds);
    // Not matched by a user rule: built-ins apply.
    QCOMPARE(rules.classify("jobs:video", KeyType::List).kind, QueueKind::Queue);
}

void TestQueueRules::roundTrip()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("rules.json"));
    QueueRules rules;
    QVERIFY(rules.load(path)); // missing: no rules, no error
    QVERIFY(rules.userRules().isEmpty());
    const QList<QueueRule> written{{QByteArray("bin\x00\xff*", 6), KeyType::List, QueueKind::Queue, QStringLiteral("binary")},
                                   {"a\\*b", KeyType::Unknown, QueueKind::NotAQueue, {}},
                                   {"sched:*", KeyType::ZSet, QueueKind::DelayedJobs, QStringLiteral("é")},
                                   {"w:*", KeyType::List, QueueKind::ProcessingList, {}}};
    rules.setUserRules(written);
    QString error;
    QVERIFY2(rules.save(path, &error), qPrintable(error));
    QueueRules loaded;
    QVERIFY2(loaded.load(path, &error), qPrintable(error));
    QCOMPARE(loaded.userRules(), written);
}

void TestQueueRules::malformedFileUntouched()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("rules.json"));
    const QByteArray broken = "{\n  \"rules\": [\n    {\"glob\": \"q:*\", \"type\": \"list\" \"kind\": \"queue\"}\n  ]\n}\n";
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(broken);
    }
    QueueRules rules;
    rules.setUserRules({{"keep:*", KeyType::List, QueueKind::Queue, {}}});
    QString error;
    QVERIFY(!rules.load(path, &error));
    QVERIFY2(error.contains(QStringLiteral("line 3")), qPrintable(error));
    QCOMPARE(rules.userRules().size(), 1); // kept what it had
    // Saving over it is refused, so the hand-edited file survives.
    QVERIFY(!rules.save(path, &error));
    QVERIFY2(error.contains(QStringLiteral("line 3")), qPrintable(error));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), broken);

    // A well-formed file with a bad rule names the rule.
    const QString other = dir.filePath(QStringLiteral("other.json"));
    QFile o(other);
    QVERIFY(o.open(QIODevice::WriteOnly));
    o.write(R"({"rules":[{"glob":"a","type":"list","kind":"queue"},{"glob":"b","type":"hash","kind":"queue"}]})");
    o.close();
    QVERIFY(!rules.load(other, &error));
    QVERIFY2(error.contains(QStringLiteral("rule 2")), qPrintable(error));
}

void TestQueueRules::rulesModel()
{
    QueueRulesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRules({{"a:*", KeyType::List, QueueKind::Queue, {}}});
    model.addRule({"b:*", KeyType::ZSet, QueueKind::DelayedJobs, {}});
    model.addRule({"c:*", KeyType::List, QueueKind::NotAQueue, {}});
    QCOMPARE(model.rowCount(), 3);
    model.moveRule(2, -1);
    QCOMPARE(model.rules().at(1).glob, QByteArray("c:*"));
    model.moveRule(0, 1);
    QCOMPARE(model.rules().at(0).glob, QByteArray("c:*"));
    QCOMPARE(model.rules().at(1).glob, QByteArray("a:*"));
    QVERIFY(model.setData(model.index(0, QueueRulesModel::GlobColumn), QStringLiteral("x\\x00*")));
    QCOMPARE(model.rules().at(0).glob, QByteArray("x\x00*", 3));
    QVERIFY(model.setData(model.index(0, QueueRulesModel::KindColumn), QStringLiteral("processing")));
    QCOMPARE(model.rules().at(0).kind, QueueKind::ProcessingList);
    QVERIFY(!model.setData(model.index(0, QueueRulesModel::TypeColumn), QStringLiteral("hash")));
    QVERIFY(model.setData(model.index(0, QueueRulesModel::TypeColumn), QStringLiteral("any")));
    QCOMPARE(model.rules().at(0).type, KeyType::Unknown);
    model.removeRuleAt(1);
    QCOMPARE(model.rowCount(), 2);
}

QTEST_GUILESS_MAIN(TestQueueRules)
#include "tst_queuerules.moc"
