// SPDX-License-Identifier: GPL-3.0-or-later
#include "queuerules.h"

#include <QDateTime>
#include <QTest>

// What counts as a queue: the byte glob, the built-in name rules, user rules (the shared
// pattern rules; the file itself is tst_patternrules') first, and epoch-score detection.
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
    void otherKindsAreNotQueues();
    void kindMapping();
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
    QTest::newRow("queue:jobs") << QByteArray("queue:jobs") << int(QueueKind::Queue) << QByteArray()
                                << QStringLiteral("'queue'");
    QTest::newRow("jobs:video") << QByteArray("jobs:video") << int(QueueKind::Queue) << QByteArray()
                                << QStringLiteral("'jobs'");
    QTest::newRow("app.outbox") << QByteArray("app.outbox") << int(QueueKind::Queue) << QByteArray()
                                << QStringLiteral("'outbox'");
    QTest::newRow("proc") << QByteArray("q:email:proc:worker-2") << int(QueueKind::ProcessingList)
                          << QByteArray("q:email") << QStringLiteral("'proc'");
    QTest::newRow("processing") << QByteArray("tasks:resize:processing") << int(QueueKind::ProcessingList)
                                << QByteArray("tasks:resize") << QStringLiteral("'processing'");
    QTest::newRow("recent:searches") << QByteArray("recent:searches") << int(QueueKind::NotAQueue) << QByteArray()
                                     << QStringLiteral("without");
    QTest::newRow("notifications") << QByteArray("notifications:user:7") << int(QueueKind::NotAQueue) << QByteArray()
                                   << QStringLiteral("without");
    QTest::newRow("substring is not a segment")
        << QByteArray("sequence:log") << int(QueueKind::NotAQueue) << QByteArray() << QStringLiteral("without");
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
    QTest::newRow("sched ms") << QByteArray("sched:due")
                              << QList<double>{double(now - 60000), double(now), double(now + 5000)}
                              << int(QueueKind::DelayedJobs) << int(EpochUnit::Milliseconds);
    QTest::newRow("delayed s all overdue")
        << QByteArray("jobs:delayed") << QList<double>{double(now / 1000 - 600), double(now / 1000 - 60)}
        << int(QueueKind::DelayedJobs) << int(EpochUnit::Seconds);
    QTest::newRow("future without a name")
        << QByteArray("reminders") << QList<double>{double(now + 1000), double(now + 90000)}
        << int(QueueKind::DelayedJobs) << int(EpochUnit::Milliseconds);
    QTest::newRow("sliding log") << QByteArray("rate:sliding:user:1")
                                 << QList<double>{double(now - 5000), double(now - 10)} << int(QueueKind::NotAQueue)
                                 << int(EpochUnit::Milliseconds);
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
        QVERIFY2(c.reason.contains(QStringLiteral("epoch milliseconds (%1 of %1 sampled)").arg(scores.size())),
                 qPrintable(c.reason));
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
    QCOMPARE(itemTimestampMs(R"({"id":1,"enqueued_at":1749999999000})", now, &source),
             std::optional<qint64>(1749999999000));
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
    rules.setUserRules(
        QList<PatternRule>{{"recent:*", KeyType::List, PatternKind::ListQueue, {}, QStringLiteral("ours"), 0},
                           {"q:*", KeyType::List, PatternKind::Unknown, {}, {}, 0},
                           {"lb:*", KeyType::ZSet, PatternKind::DelayedJobs, {}, {}, 0},
                           {"w:*", KeyType::Unknown, PatternKind::ProcessingList, {}, {}, 0}});
    QueueClassification c = rules.classify("recent:searches", KeyType::List);
    QCOMPARE(c.kind, QueueKind::Queue);
    QCOMPARE(c.reason, QStringLiteral("rule 1: glob 'recent:*' list → queue (ours)"));
    c = rules.classify("q:email", KeyType::List);
    QCOMPARE(c.kind, QueueKind::NotAQueue);
    QCOMPARE(c.reason, QStringLiteral("rule 2: glob 'q:*' list → not a queue"));
    // The type has to match too.
    c = rules.classify("recent:searches", KeyType::ZSet);
    QCOMPARE(c.kind, QueueKind::NotAQueue);
    QVERIFY(!c.reason.startsWith(QStringLiteral("rule")));
    const QList<double> scores{1'750'000'000};
    c = rules.classify("lb:x", KeyType::ZSet, &scores, 1'750'000'000'000);
    QCOMPARE(c.kind, QueueKind::DelayedJobs);
    QCOMPARE(c.unit, EpochUnit::Seconds);
    c = rules.classify("w:orders:7", KeyType::List);
    QCOMPARE(c.kind, QueueKind::ProcessingList);
    QCOMPARE(c.reason, QStringLiteral("rule 4: glob 'w:*' any → processing list"));
    QCOMPARE(c.queue, QByteArray("w:orders"));
    // Not matched by a user rule: built-ins apply.
    QCOMPARE(rules.classify("jobs:video", KeyType::List).kind, QueueKind::Queue);
    QCOMPARE(rules.userRules().rules().size(), 4);
}

void TestQueueRules::otherKindsAreNotQueues()
{
    // A rule for another pattern wins over the queue name guess: the user said what it is.
    QueueRules rules;
    PatternRules user;
    user.setRules({{"jobs:seen:*", KeyType::Unknown, PatternKind::DedupSet, {}, {}, 0},
                   {"sched:*", KeyType::ZSet, PatternKind::SlidingWindow, {}, QStringLiteral("limiter"), 0}});
    rules.setUserRules(user);
    QueueClassification c = rules.classify("jobs:seen:2024", KeyType::List);
    QCOMPARE(c.kind, QueueKind::NotAQueue);
    QCOMPARE(c.reason,
             QStringLiteral("rule 1: glob 'jobs:seen:*' any → not a queue: a rule says it is a %1")
                 .arg(patternKindName(PatternKind::DedupSet)));
    const qint64 now = 1'750'000'000'000;
    const QList<double> scores{double(now + 60000)};
    c = rules.classify("sched:due", KeyType::ZSet, &scores, now);
    QCOMPARE(c.kind, QueueKind::NotAQueue);
    QVERIFY2(c.reason.startsWith(QStringLiteral("rule 2: ")) && c.reason.endsWith(QStringLiteral("(limiter)")),
             qPrintable(c.reason));
    // Without the rules, the same keys are queues.
    QCOMPARE(QueueRules().classify("jobs:seen:2024", KeyType::List).kind, QueueKind::Queue);
    QCOMPARE(QueueRules().classify("sched:due", KeyType::ZSet, &scores, now).kind, QueueKind::DelayedJobs);
}

void TestQueueRules::kindMapping()
{
    for (QueueKind k : {QueueKind::Queue, QueueKind::ProcessingList, QueueKind::DelayedJobs, QueueKind::NotAQueue})
        QCOMPARE(queueKindOf(patternKindOf(k)), std::optional<QueueKind>(k));
    QCOMPARE(patternKindOf(QueueKind::NotAQueue), PatternKind::Unknown);
    QVERIFY(!queueKindOf(PatternKind::Lock));
    // The queue kinds keep the spelling rules.json had for them.
    for (QueueKind k : {QueueKind::Queue, QueueKind::ProcessingList, QueueKind::DelayedJobs, QueueKind::NotAQueue})
        QCOMPARE(patternKindId(patternKindOf(k)), queueKindId(k));
}

QTEST_GUILESS_MAIN(TestQueueRules)
#include "tst_queuerules.moc"
