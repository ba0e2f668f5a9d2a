// SPDX-License-Identifier: GPL-3.0-or-later
// The job page's parsing and table, fed with rows: times in the forms libraries write them, a
// failure's one line, RQ's zlib-compressed tracebacks, payloads that are not JSON, and the
// states a queue can be paged in. Real libraries' jobs are read in tst_libraries.
#include "decodercases.h"
#include "jobpage.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

class TestJobPage : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void epochTimes_data();
    void epochTimes();
    void reasonLine();
    void inflatesZlibAndRefusesTheRest();
    void fieldsBecomeOneObject();
    void payloadThatIsNotJson();
    void attemptsAndReasonsByLibrary();
    void browsableRolesAndOrder();
    void modelSeverityAndPages();
    void workersFromClientNames();
};

void TestJobPage::epochTimes_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<qint64>("ms");
    QTest::newRow("ms") << QByteArray("1764400000123") << qint64(1764400000123);
    QTest::newRow("seconds") << QByteArray("1764400000.25") << qint64(1764400000250);
    QTest::newRow("iso, micro, no zone") << QByteArray("2025-11-29T07:06:40.123456") << qint64(1764400000123);
    QTest::newRow("iso Z") << QByteArray("2025-11-29T07:06:40Z") << qint64(1764400000000);
    QTest::newRow("iso with offset") << QByteArray("2025-11-29T08:06:40+01:00") << qint64(1764400000000);
    QTest::newRow("resque") << QByteArray("2025/11/29 07:06:40 UTC") << qint64(1764400000000);
    QTest::newRow("priority, not a time") << QByteArray("10") << qint64(0);
    QTest::newRow("garbage") << QByteArray("soon") << qint64(0);
}

void TestJobPage::epochTimes()
{
    QFETCH(QByteArray, text);
    QFETCH(qint64, ms);
    QCOMPARE(jobpages::epochMs(text), ms);
}

void TestJobPage::reasonLine()
{
    QCOMPARE(jobpages::reasonLine(QStringLiteral("Traceback (most recent call last):\n  File \"x.py\", line 1\n"
                                                 "ValueError: card declined\n\n")),
             QStringLiteral("ValueError: card declined"));
    QCOMPARE(jobpages::reasonLine(QStringLiteral("Error: CRM answered 503\n    at Worker.process (w.js:1)")),
             QStringLiteral("Error: CRM answered 503"));
    QCOMPARE(jobpages::reasonLine(QString()), QString());
}

void TestJobPage::inflatesZlibAndRefusesTheRest()
{
    const QByteArray text = QByteArray("Traceback (most recent call last):\nRuntimeError: boom\n").repeated(50);
    const QByteArray zlib = qCompress(text).mid(4); // qCompress: a 4-byte length, then a zlib stream
    QCOMPARE(jobpages::inflate(zlib), text);
    QVERIFY(jobpages::inflate("not compressed at all").isEmpty());
    QVERIFY(jobpages::inflate(zlib.left(zlib.size() / 2)).isEmpty()); // cut short
    QVERIFY(jobpages::inflate(zlib, 100).isEmpty()); // inflates beyond the limit
}

void TestJobPage::fieldsBecomeOneObject()
{
    const QJsonObject o = jobpages::objectFromFields({{"name", "welcome"},
                                                      {"data", R"({"to":"ada@example.com"})"},
                                                      {"stacktrace", R"(["Error: one","Error: two"])"},
                                                      {"blob", QByteArray("\x80\x04\x95\xff", 4)}});
    QCOMPARE(o.value(QStringLiteral("name")).toString(), QStringLiteral("welcome"));
    QCOMPARE(o.value(QStringLiteral("data")).toObject().value(QStringLiteral("to")).toString(),
             QStringLiteral("ada@example.com"));
    QCOMPARE(o.value(QStringLiteral("stacktrace")).toArray().size(), 2);
    QCOMPARE(o.value(QStringLiteral("blob")).toString(), QStringLiteral("<binary: 4 bytes>"));

    // RQ keeps a job's call as zlib of a pickle (write_values.py writes one with Python's own
    // zlib and pickle): decoded, never run, with what the writer pickled.
    QTemporaryDir dir;
    QString error;
    QJsonValue rq;
    for (const QJsonValue c : writePythonCases(dir.path(), &error))
        if (c[QStringLiteral("name")].toString() == QLatin1String("rq-style job"))
            rq = c;
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QByteArray data = QByteArray::fromBase64(rq[QStringLiteral("value")].toString().toLatin1());
    const QJsonObject job = jobpages::objectFromFields({{"status", "failed"}, {"data", data}});
    const QJsonObject decoded = job.value(QStringLiteral("data")).toObject();
    QCOMPARE(decoded.value(QStringLiteral("$decoded")).toString(), QStringLiteral("zlib → pickle"));
    QCOMPARE(decoded.value(QStringLiteral("value")), rq[QStringLiteral("truth")]);
    QCOMPARE(jobpages::entryFromPayload(data).body.value(QStringLiteral("payload")).toObject(), decoded);
}

void TestJobPage::payloadThatIsNotJson()
{
    const JobEntry text = jobpages::entryFromPayload("42");
    QCOMPARE(text.id, QByteArray("42"));
    const JobEntry binary = jobpages::entryFromPayload(QByteArray("\xff\xfe\x00", 3));
    QCOMPARE(binary.body.value(QStringLiteral("payload")).toString(), QStringLiteral("<binary: 3 bytes>"));
    QVERIFY(binary.reason.isEmpty());
}

void TestJobPage::attemptsAndReasonsByLibrary()
{
    // The fields each library names its attempts and failure by; the values are made up.
    const auto entry = [](const char *json) { return jobpages::entryFrom(QJsonDocument::fromJson(json).object()); };
    const JobEntry bullmq = entry(R"({"name":"crm-sync","timestamp":"1764400000000","delay":"0","atm":"3",
                                      "failedReason":"CRM answered 503","finishedOn":"1764400005000"})");
    QCOMPARE(bullmq.attempts, 3);
    QCOMPARE(bullmq.reason, QStringLiteral("CRM answered 503"));
    QCOMPARE(bullmq.finishedMs, qint64(1764400005000));
    QCOMPARE(bullmq.dueMs, qint64(-1));
    const JobEntry delayed = entry(R"({"name":"reminder","timestamp":"1764400000000","delay":"600000"})");
    QCOMPARE(delayed.dueMs, qint64(1764400600000));
    const JobEntry sidekiq = entry(R"({"class":"ChargeCardJob","jid":"abc","retry_count":0,
                                       "error_class":"ArgumentError","error_message":"card declined",
                                       "failed_at":1764400000.5})");
    QCOMPARE(sidekiq.id, QByteArray("abc"));
    QCOMPARE(sidekiq.attempts, 1);
    QCOMPARE(sidekiq.reason, QStringLiteral("ArgumentError: card declined"));
    QCOMPARE(sidekiq.finishedMs, qint64(1764400000500));
    const JobEntry celery = entry(R"({"headers":{"task":"tasks.add","id":"c-1","retries":2,
                                                 "eta":"2025-11-29T07:06:40+00:00"}})");
    QCOMPARE(celery.name, QStringLiteral("tasks.add"));
    QCOMPARE(celery.id, QByteArray("c-1"));
    QCOMPARE(celery.attempts, 2);
    QCOMPARE(celery.dueMs, qint64(1764400000000));
    const JobEntry resque = entry(R"({"failed_at":"2025/11/29 07:06:40 UTC","payload":{"class":"Archive"},
                                      "exception":"Resque::TermException","error":"SIGTERM"})");
    QCOMPARE(resque.name, QStringLiteral("Archive"));
    QCOMPARE(resque.reason, QStringLiteral("Resque::TermException: SIGTERM"));
    const JobEntry laravel = entry(R"({"uuid":"u-1","displayName":"App\\Jobs\\Ship","attempts":4})");
    QCOMPARE(laravel.id, QByteArray("u-1"));
    QCOMPARE(laravel.attempts, 4);
}

void TestJobPage::browsableRolesAndOrder()
{
    JobQueueSpec spec;
    spec.library = QStringLiteral("BullMQ");
    spec.prefix = "bull:email";
    spec.keys = {{"bull:email:failed", KeyType::ZSet, QStringLiteral("failed")},
                 {"bull:email:wait", KeyType::List, QStringLiteral("waiting")},
                 {"bull:email:meta", KeyType::Hash, QStringLiteral("meta")},
                 {"bull:email:events", KeyType::Stream, QStringLiteral("events")}};
    QCOMPARE(jobpages::browsableRoles(spec), (QStringList{QStringLiteral("waiting"), QStringLiteral("failed")}));
    QCOMPARE(jobpages::jobHashKey(spec, "7"), QByteArray("bull:email:7"));
    spec.library = QStringLiteral("Sidekiq");
    QVERIFY(jobpages::jobHashKey(spec, "7").isEmpty());
    QVERIFY(jobpages::takesFromRight(QStringLiteral("Sidekiq")));
    QVERIFY(!jobpages::takesFromRight(QStringLiteral("RQ")));
    QVERIFY(jobpages::newestFirst(QStringLiteral("failed")));
    QVERIFY(!jobpages::newestFirst(QStringLiteral("delayed")));
}

void TestJobPage::modelSeverityAndPages()
{
    JobPageModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    JobPage page;
    page.role = QStringLiteral("failed");
    page.total = 250;
    JobEntry failed;
    failed.id = "1";
    failed.reason = QStringLiteral("boom");
    failed.attempts = 3;
    JobEntry other;
    other.id = "2";
    page.jobs = {failed, other};
    model.setPage(page);
    QCOMPARE(page.pageCount(), 3);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, 0).data(RowTableRoles::SeverityRole).toInt(), int(Severity::Bad));
    QCOMPARE(model.index(1, 0).data(RowTableRoles::SeverityRole).toInt(), int(Severity::None));
    QCOMPARE(model.index(0, 5).data().toString(), QStringLiteral("3"));
    QCOMPARE(model.index(0, 6).data().toString(), QStringLiteral("boom"));
    QCOMPARE(jobpages::toJson(failed).value(QStringLiteral("reason")).toString(), QStringLiteral("boom"));
    JobPage empty;
    QCOMPARE(empty.pageCount(), 1);
}

void TestJobPage::workersFromClientNames()
{
    JobQueueSpec email;
    email.library = QStringLiteral("BullMQ");
    email.name = "email";
    email.prefix = "bull:email";
    // "email" is ZW1haWw= in base64; "emails" is ZW1haWxz.
    const QByteArray list = "id=3 addr=127.0.0.1:5001 fd=8 name=bull:ZW1haWw=:w:mailer age=9 idle=2 cmd=bzpopmin\n"
                            "id=4 addr=127.0.0.1:5002 fd=9 name=bull:ZW1haWw= age=9 idle=0 cmd=bzpopmin\n"
                            "id=5 addr=127.0.0.1:5003 fd=10 name=bull:ZW1haWxz:w:other age=9 idle=0 cmd=bzpopmin\n"
                            "id=6 addr=127.0.0.1:5004 fd=11 name=bull:ZW1haWw=:qe age=9 idle=0 cmd=xread\n"
                            "id=7 addr=127.0.0.1:5005 fd=12 name= age=1 idle=1 cmd=client|list\n";
    const jobqueues::ConnectionWorkers clients = jobqueues::connectionWorkers(list);
    const QList<QueueWorker> workers = jobqueues::workersOf(clients, email);
    QCOMPARE(workers.size(), 2); // not another queue's worker, nor the queue's event listener
    QCOMPARE(workers.at(0).name, QStringLiteral("mailer"));
    QCOMPARE(workers.at(0).lastSeenMs, qint64(2000));
    QVERIFY(workers.at(0).alive);
    QCOMPARE(workers.at(1).name, QStringLiteral("127.0.0.1:5002")); // an unnamed worker: its address
    email.prefix = "email"; // not "<prefix>:<name>": nothing to match by
    QVERIFY(jobqueues::workersOf(clients, email).isEmpty());
}

QTEST_GUILESS_MAIN(TestJobPage)
#include "tst_jobpage.moc"
