// SPDX-License-Identifier: GPL-3.0-or-later
// The library catalogue (resources/catalogue/libraries.json) and what the classifier makes of
// it, fed samples: glob captures, required siblings, required fields, job queues of unknown
// libraries by structure, and sorted-set scores that are due times in other units.
#include "jobqueues.h"
#include "librarycatalogue.h"
#include "patternrules.h"
#include "patterns.h"
#include "queuerules.h"

#include <QDateTime>
#include <QSet>
#include <QTest>

class TestLibraryCatalogue : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void builtInLoads();
    void captures_data();
    void captures();
    void globMatchAgreesWithCaptures();
    void bullmqNeedsItsSiblings();
    void jobHashNeedsItsFields();
    void sidekiqAndCelery();
    void unknownLibraryByStructure();
    void userRuleTeachesALibrary();
    void scaledScoresAreDueTimes();
    void groupsQueues();
};

namespace {

KeySample sample(const QByteArray &key, KeyType type, QList<QByteArray> members = {}, QByteArray head = {})
{
    KeySample s;
    s.key = key;
    s.type = type;
    s.sampled = true;
    s.members = std::move(members);
    s.head = std::move(head);
    s.elements = s.members.size();
    s.pttlMs = -1;
    return s;
}

PatternContext knowing(const QSet<QByteArray> &keys)
{
    PatternContext c;
    c.keyKnown = [keys](const QByteArray &k) { return keys.contains(k); };
    c.familyKnown = [](const QString &) { return false; };
    return c;
}

} // namespace

void TestLibraryCatalogue::builtInLoads()
{
    const LibraryCatalogue &c = LibraryCatalogue::builtIn();
    QVERIFY(c.rules().size() > 100);
    QSet<QString> libraries;
    for (const PatternRule &r : c.rules()) {
        QVERIFY2(!r.params.value(QStringLiteral("library")).toString().isEmpty(), r.glob.constData());
        libraries.insert(r.params.value(QStringLiteral("library")).toString());
    }
    for (const char *lib : {"BullMQ", "Bull", "Sidekiq", "Celery", "RQ", "Resque", "Laravel", "connect-redis",
                            "Spring Session", "Django", "python-redis-lock", "Redisson", "Spring Cache"})
        QVERIFY2(libraries.contains(QLatin1String(lib)), lib);
    // The same file format as the user's rules: it round-trips through the rules file writer.
    QList<PatternRule> again;
    QString error;
    QVERIFY2(PatternRules::parse(PatternRules::serialize(c.rules()), &again, &error), qPrintable(error));
    QCOMPARE(again.size(), c.rules().size());
}

void TestLibraryCatalogue::captures_data()
{
    QTest::addColumn<QByteArray>("glob");
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QList<QByteArray>>("expected");
    QTest::addColumn<bool>("matches");
    QTest::newRow("queue") << QByteArray("bull:*:wait") << QByteArray("bull:email:wait") << QList<QByteArray>{"email"}
                           << true;
    QTest::newRow("prefix with colons") << QByteArray("*:*:wait") << QByteArray("app:bull:email:wait")
                                        << QList<QByteArray>{"app:bull", "email"} << true;
    QTest::newRow("job lock") << QByteArray("*:*:*:lock") << QByteArray("bull:email:42:lock")
                              << QList<QByteArray>{"bull", "email", "42"} << true;
    QTest::newRow("empty star") << QByteArray("rq:job:*") << QByteArray("rq:job:") << QList<QByteArray>{""} << true;
    QTest::newRow("class") << QByteArray(":[0-9]:*") << QByteArray(":1:views.decorators")
                           << QList<QByteArray>{"views.decorators"} << true;
    QTest::newRow("escaped bytes") << QByteArray("*\x06\x16*")
                                   << QByteArray("celery\x06\x16"
                                                 "9")
                                   << QList<QByteArray>{"celery", "9"} << true;
    QTest::newRow("no match") << QByteArray("bull:*:wait") << QByteArray("bull:email:active") << QList<QByteArray>{}
                              << false;
}

void TestLibraryCatalogue::captures()
{
    QFETCH(QByteArray, glob);
    QFETCH(QByteArray, key);
    QFETCH(QList<QByteArray>, expected);
    QFETCH(bool, matches);
    const auto got = globCaptures(glob, key);
    QCOMPARE(got.has_value(), matches);
    QCOMPARE(globMatch(glob, key), matches);
    if (matches)
        QCOMPARE(*got, expected);
    QCOMPARE(LibraryCatalogue::expand(QStringLiteral("{1}|{2}|{9}"), {"a", "b"}), QByteArray("a|b|{9}"));
}

void TestLibraryCatalogue::globMatchAgreesWithCaptures()
{
    // The two matchers share their byte rules; they must agree on every glob of the catalogue.
    const QList<QByteArray> keys{"bull:email:wait",
                                 "bull:email:42",
                                 "bull:email:42:lock",
                                 "queue:default",
                                 "rq:job:ab12",
                                 "rq:wip:default",
                                 "celery",
                                 "_kombu.binding.celery",
                                 "sess:abc",
                                 "spring:session:sessions:1",
                                 ":1:x",
                                 "a\\b",
                                 "[x]",
                                 ""};
    for (const PatternRule &r : LibraryCatalogue::builtIn().rules()) {
        for (const QByteArray &k : keys)
            QVERIFY2(globMatch(r.glob, k) == globCaptures(r.glob, k).has_value(),
                     QByteArray(r.glob + " / " + k).constData());
    }
}

void TestLibraryCatalogue::bullmqNeedsItsSiblings()
{
    PatternClassifier c;
    const KeySample wait = sample("bull:email:wait", KeyType::List, {"41", "42"});
    // Alone, "bull:email:wait" is a list named like a queue: not BullMQ's.
    const PatternMatch alone = c.classify(wait, knowing({"bull:email:wait"}));
    QVERIFY(alone.params.value(QStringLiteral("library")).toString() != QLatin1String("BullMQ"));
    // Beside its events stream it is BullMQ's waiting list of queue "email".
    const PatternMatch m = c.classify(wait, knowing({"bull:email:wait", "bull:email:events"}));
    QCOMPARE(m.kind, PatternKind::JobQueue);
    QCOMPARE(m.params.value(QStringLiteral("library")).toString(), QStringLiteral("BullMQ"));
    QCOMPARE(m.params.value(QStringLiteral("role")).toString(), QStringLiteral("waiting"));
    QCOMPARE(m.params.value(QStringLiteral("queue")).toString(), QStringLiteral("email"));
    QCOMPARE(m.params.value(QStringLiteral("prefix")).toString(), QStringLiteral("bull:email"));
    QVERIFY2(m.reason.contains(QStringLiteral("BullMQ")), qPrintable(m.reason));
    // Bull 3 has no events stream: its id counter says whose it is.
    const PatternMatch bull = c.classify(wait, knowing({"bull:email:wait", "bull:email:id"}));
    QCOMPARE(bull.params.value(QStringLiteral("library")).toString(), QStringLiteral("Bull"));
    // The delayed set: a job queue's, never a leaderboard.
    KeySample delayed = sample("bull:email:delayed", KeyType::ZSet, {"7"});
    delayed.scores = {double(QDateTime::currentMSecsSinceEpoch() + 60000) * 4096 + 3};
    QCOMPARE(c.classify(delayed, knowing({"bull:email:events"})).kind, PatternKind::JobQueue);
}

void TestLibraryCatalogue::jobHashNeedsItsFields()
{
    PatternClassifier c;
    const PatternContext ctx = knowing({"bull:email:meta"});
    const PatternMatch job
        = c.classify(sample("bull:email:42", KeyType::Hash, {"name", "data", "opts", "timestamp", "atm"}), ctx);
    QCOMPARE(job.kind, PatternKind::JobQueue);
    QCOMPARE(job.params.value(QStringLiteral("role")).toString(), QStringLiteral("job"));
    // The same name with other fields is not a job.
    const PatternMatch other = c.classify(sample("bull:email:42", KeyType::Hash, {"user_id", "created_at"}), ctx);
    QVERIFY(other.kind != PatternKind::JobQueue);
}

void TestLibraryCatalogue::sidekiqAndCelery()
{
    PatternClassifier c;
    const PatternContext sidekiq = knowing({"queues", "processes", "stat:processed"});
    QCOMPARE(c.classify(sample("queue:default", KeyType::List, {"{\"class\":\"HardJob\"}"}), sidekiq).kind,
             PatternKind::JobQueue);
    KeySample retry = sample("retry", KeyType::ZSet, {"{\"jid\":\"abc\"}"});
    retry.scores = {double(QDateTime::currentMSecsSinceEpoch()) / 1000 + 30};
    const PatternMatch r = c.classify(retry, sidekiq);
    QCOMPARE(r.kind, PatternKind::JobQueue);
    QCOMPARE(r.params.value(QStringLiteral("role")).toString(), QStringLiteral("retry"));
    const PatternMatch process
        = c.classify(sample("web-1:4242:0123456789ab", KeyType::Hash, {"info", "busy", "beat", "quiet"}), sidekiq);
    QCOMPARE(process.params.value(QStringLiteral("role")).toString(), QStringLiteral("worker"));
    // Sidekiq 7's execution-time histogram of a job class, "<class>-%d-%H:%-M": the minute is
    // written unpadded, so both forms are Sidekiq's (a test that ran in the first ten minutes of
    // an hour found the short one unknown).
    for (const char *key : {"ReportJob-03-17:5", "ReportJob-03-17:42"}) {
        const PatternMatch m = c.classify(sample(key, KeyType::String), sidekiq);
        QVERIFY2(m.kind == PatternKind::JobQueue, key);
        QCOMPARE(m.params.value(QStringLiteral("role")).toString(), QStringLiteral("metrics"));
    }
    // Without Sidekiq's own keys beside it, "queue:default" is not Sidekiq's.
    QVERIFY(c.classify(sample("queue:default", KeyType::List), knowing({})).params.value(QStringLiteral("library"))
            != QStringLiteral("Sidekiq"));

    const PatternContext celery = knowing({"_kombu.binding.celery", "_kombu.binding.mail"});
    const PatternMatch base = c.classify(sample("celery", KeyType::List), celery);
    QCOMPARE(base.params.value(QStringLiteral("queue")).toString(), QStringLiteral("celery"));
    const PatternMatch priority = c.classify(sample("mail\x06\x16"
                                                    "3",
                                                    KeyType::List),
                                             celery);
    QCOMPARE(priority.kind, PatternKind::JobQueue);
    QCOMPARE(priority.params.value(QStringLiteral("queue")).toString(), QStringLiteral("mail"));
}

void TestLibraryCatalogue::unknownLibraryByStructure()
{
    PatternClassifier c;
    const PatternContext ctx = knowing({"jobs:mailer:waiting", "jobs:mailer:active", "jobs:mailer:failed"});
    const PatternMatch m = c.classify(sample("jobs:mailer:waiting", KeyType::List, {"1", "2"}), ctx);
    QCOMPARE(m.kind, PatternKind::JobQueue);
    QCOMPARE(m.params.value(QStringLiteral("library")).toString(), QStringLiteral("unknown"));
    QCOMPARE(m.params.value(QStringLiteral("queue")).toString(), QStringLiteral("mailer"));
    QVERIFY2(m.reason.contains(QStringLiteral("library unknown: by structure")), qPrintable(m.reason));
    // One state name alone is not a queue's structure.
    QVERIFY(c.classify(sample("jobs:mailer:waiting", KeyType::List), knowing({"jobs:mailer:waiting"})).kind
            != PatternKind::JobQueue);
}

void TestLibraryCatalogue::userRuleTeachesALibrary()
{
    // A user rule with the catalogue's params is read the same way: a custom prefix.
    PatternRules rules;
    PatternRule r;
    r.glob = "acme-jobs:*:todo";
    r.type = KeyType::List;
    r.kind = PatternKind::JobQueue;
    r.params
        = {{QStringLiteral("library"), QStringLiteral("acme")}, {QStringLiteral("role"), QStringLiteral("waiting")}};
    rules.setRules({r});
    PatternClassifier c(&rules);
    const PatternMatch m = c.classify(sample("acme-jobs:billing:todo", KeyType::List), knowing({}));
    QCOMPARE(m.kind, PatternKind::JobQueue);
    QVERIFY(m.fromRule);
    QCOMPARE(m.params.value(QStringLiteral("library")).toString(), QStringLiteral("acme"));
}

void TestLibraryCatalogue::scaledScoresAreDueTimes()
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    QCOMPARE(detectEpochUnit({double(now) * 4096 + 1, double(now + 5000) * 4096 + 2}, now), EpochUnit::MsTimes4096);
    QCOMPARE(detectEpochUnit({double(now) * 1000}, now), EpochUnit::Microseconds);
    QCOMPARE(detectEpochUnit({double(now) * 1e6}, now), EpochUnit::Nanoseconds);
    QCOMPARE(detectEpochUnit({double(now) / 1000}, now), EpochUnit::Seconds);
    QCOMPARE(dueMsOf(double(now) * 4096 + 4095, EpochUnit::MsTimes4096), now);
    QCOMPARE(scoreAtMs(now, EpochUnit::MsTimes4096), QByteArray::number(now * 4096 + 4095));
    // A sorted set of such scores, named like nothing: due times, not points of a leaderboard.
    PatternClassifier c;
    KeySample s = sample("scheduled:things", KeyType::ZSet, {"job-1", "job-2"});
    s.scores = {double(now + 60000) * 4096, double(now + 120000) * 4096 + 1};
    QVERIFY(c.classify(s, knowing({})).kind != PatternKind::Leaderboard);
}

void TestLibraryCatalogue::groupsQueues()
{
    const auto match
        = [](const QByteArray &key, KeyType type, const char *library, const char *role, const char *queue) {
              PatternMatch m;
              m.key = key;
              m.type = type;
              m.kind = PatternKind::JobQueue;
              m.params = {{QStringLiteral("library"), QString::fromLatin1(library)},
                          {QStringLiteral("role"), QString::fromLatin1(role)}};
              if (queue)
                  m.params.insert(QStringLiteral("queue"), QString::fromLatin1(queue));
              return m;
          };
    const QList<JobQueueSpec> q = jobqueues::group({
        match("queue:default", KeyType::List, "Sidekiq", "waiting", "default"),
        match("queue:mail", KeyType::List, "Sidekiq", "waiting", "mail"),
        match("retry", KeyType::ZSet, "Sidekiq", "retry", nullptr),
        match("web:1:abc", KeyType::Hash, "Sidekiq", "worker", nullptr), // a process: not a queue key
        match("rq:job:1", KeyType::Hash, "RQ", "job", nullptr), // a job: not a queue key
    });
    QCOMPARE(q.size(), 3);
    QCOMPARE(q.at(0).library, QStringLiteral("Sidekiq"));
    QVERIFY(q.at(0).isLibraryWide()); // retry: every queue's
    QCOMPARE(q.at(0).keyOf(QStringLiteral("retry")), QByteArray("retry"));
    QCOMPARE(q.at(1).name, QByteArray("default"));
    QCOMPARE(q.at(2).name, QByteArray("mail"));
}

QTEST_GUILESS_MAIN(TestLibraryCatalogue)
#include "tst_librarycatalogue.moc"
