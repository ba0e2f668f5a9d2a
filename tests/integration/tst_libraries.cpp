// SPDX-License-Identifier: GPL-3.0-or-later
// What RedisLens makes of data written by real libraries (tests/fixtures/libraries: RQ, Celery,
// Sidekiq, redis-py's Lock, BullMQ, Bull, connect-redis, redlock, rate-limit-redis): each
// fixture writes into a fresh redis-server with the library itself and records the truth from
// the library's own API; `redislens show keys` (the real binary) must give every key its kind,
// and `redislens show queues` must count every queue's jobs per state as the library does.
// Precision and recall per kind are printed, and held across all fixtures. BullMQ runs once
// more on a Redis Cluster (its prefix "{bull}"), read through the cluster as one server is.
#include "bytesescape.h"
#include "processrun.h"
#include "testcluster.h"
#include "testserver.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>

namespace {

using Run = ProcessRun;

QString sourceDir()
{
    return qEnvironmentVariable("REDISLENS_SOURCE_DIR");
}

struct Tally
{
    int truePositive = 0;
    int falsePositive = 0;
    int falseNegative = 0;
};

} // namespace

class TestLibraries : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void library_data();
    void library();
    void cleanupTestCase();

private:
    Run run(const QString &program, const QStringList &args, int timeoutMs = 180000) const;
    // 'where': how the binary reaches the data ("-p PORT", or "--cluster -p SEED").
    Run show(const QStringList &where, const QStringList &args) const;
    void checkJobPages(const QStringList &where, const QJsonArray &truthJobs) const;
    // The live worker writes through 'port' with BullMQ's 'prefix'.
    void checkLiveWorkers(quint16 port, const QString &prefix, const QStringList &where) const;
    void checkTriage(const QStringList &where, const QString &lib, const QJsonArray &truthQueues) const;

    QTemporaryDir m_home;
    QHash<QString, Tally> m_tally; // kind → counts, across the fixtures
    int m_keys = 0;
};

Run TestLibraries::run(const QString &program, const QStringList &args, int timeoutMs) const
{
    return runProgram(program, args, timeoutMs, isolatedEnvironment(m_home.path()));
}

Run TestLibraries::show(const QStringList &where, const QStringList &args) const
{
    return run(QStringLiteral(REDISLENS_APP_PATH),
               QStringList{QStringLiteral("show")} + args + where
                   + QStringList{QStringLiteral("--scan-rate"), QStringLiteral("0")});
}

// The jobs the library lists in a state (failed, retry, dead), each with the reason and the
// attempts the library's API gives: `show queues --jobs STATE` must list them under their queue
// (a library-wide set under the row whose name is null).
void TestLibraries::checkJobPages(const QStringList &where, const QJsonArray &truthJobs) const
{
    QHash<QString, QList<QJsonObject>> byState;
    for (const QJsonValue v : truthJobs)
        byState[v.toObject().value(QStringLiteral("state")).toString()].append(v.toObject());
    for (auto it = byState.cbegin(); it != byState.cend(); ++it) {
        const Run r = show(where,
                           {QStringLiteral("queues"), QStringLiteral("--format"), QStringLiteral("json"),
                            QStringLiteral("--jobs"), it.key()});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonArray queues = QJsonDocument::fromJson(r.out).object().value(QStringLiteral("queues")).toArray();
        for (const QJsonObject &t : it.value()) {
            const QJsonValue queue = t.value(QStringLiteral("queue"));
            const QString id = t.value(QStringLiteral("id")).toString();
            QJsonObject shown;
            for (const QJsonValue q : queues) {
                if (q.toObject().value(QStringLiteral("name")) != queue)
                    continue;
                for (const QJsonValue item :
                     q.toObject().value(QStringLiteral("jobs")).toObject().value(QStringLiteral("items")).toArray()) {
                    if (item.toObject().value(QStringLiteral("id")).toString() == id)
                        shown = item.toObject();
                }
            }
            const QString where
                = QStringLiteral("%1 job %2 of %3").arg(it.key(), id, queue.toString(QStringLiteral("(all queues)")));
            QVERIFY2(!shown.isEmpty(), qPrintable(where + QStringLiteral(" not listed")));
            QCOMPARE(shown.value(QStringLiteral("reason")).toString(), t.value(QStringLiteral("reason")).toString());
            if (!t.value(QStringLiteral("attempts")).isNull())
                QVERIFY2(shown.value(QStringLiteral("attempts")).toInt(-1)
                             == t.value(QStringLiteral("attempts")).toInt(),
                         qPrintable(QStringLiteral("%1: %2 attempts, the library says %3")
                                        .arg(where)
                                        .arg(shown.value(QStringLiteral("attempts")).toInt(-1))
                                        .arg(t.value(QStringLiteral("attempts")).toInt())));
        }
        qInfo("%lld %s job(s): listed with the library's reason and attempts", qlonglong(it.value().size()),
              qPrintable(it.key()));
    }
}

// BullMQ's workers are connections: while a named Worker is connected, `show queues` lists it
// under its queue, as Queue.getWorkers() does (the names it gives, after ":w:").
void TestLibraries::checkLiveWorkers(quint16 port, const QString &prefix, const QStringList &where) const
{
    QProcess worker;
    worker.setProcessEnvironment(isolatedEnvironment(m_home.path()));
    worker.start(QStandardPaths::findExecutable(QStringLiteral("node")),
                 {sourceDir() + QStringLiteral("/tests/fixtures/libraries/node/bullmq_fixture.mjs"),
                  QStringLiteral("--port"), QString::number(port), QStringLiteral("--prefix"), prefix,
                  QStringLiteral("--live-worker")});
    QVERIFY2(worker.waitForStarted(10000), qPrintable(worker.errorString()));
    QByteArray out;
    QDeadlineTimer deadline(30000);
    while (!out.contains('\n') && !deadline.hasExpired() && worker.state() == QProcess::Running) {
        worker.waitForReadyRead(200);
        out += worker.readAllStandardOutput();
    }
    QVERIFY2(out.startsWith("READY "), QByteArray(out + worker.readAllStandardError()).constData());
    QSet<QString> expected;
    for (const QJsonValue v : QJsonDocument::fromJson(out.mid(6).trimmed()).array()) {
        const QString raw = v.toString();
        const qsizetype at = raw.indexOf(QLatin1String(":w:"));
        expected.insert(at < 0 ? raw : raw.mid(at + 3));
    }
    QVERIFY(!expected.isEmpty());
    const Run r = show(where, {QStringLiteral("queues"), QStringLiteral("--format"), QStringLiteral("json")});
    worker.closeWriteChannel(); // the worker closes its connections and exits
    QVERIFY(worker.waitForFinished(20000));
    QVERIFY2(r.code == 0, r.err.constData());
    QSet<QString> listed;
    for (const QJsonValue q : QJsonDocument::fromJson(r.out).object().value(QStringLiteral("queues")).toArray()) {
        if (q.toObject().value(QStringLiteral("name")).toString() != QLatin1String("reports"))
            continue;
        for (const QJsonValue w : q.toObject().value(QStringLiteral("workers")).toArray()) {
            QVERIFY(w.toObject().value(QStringLiteral("alive")).toBool());
            listed.insert(w.toObject().value(QStringLiteral("name")).toString());
        }
    }
    QCOMPARE(listed, expected);
    qInfo("bullmq: the live worker %s is listed under its queue",
          qPrintable(QStringList(listed.cbegin(), listed.cend()).join(QLatin1Char(','))));
}

void TestLibraries::initTestCase()
{
    QVERIFY(m_home.isValid());
    QVERIFY2(!sourceDir().isEmpty(), "REDISLENS_SOURCE_DIR is not set");
    QVERIFY2(QFile::exists(sourceDir() + QStringLiteral("/tests/fixtures/libraries/node/node_modules")),
             "the fixtures' npm packages are missing: run script/bootstrap");
}

void TestLibraries::library_data()
{
    QTest::addColumn<QString>("lib");
    QTest::addColumn<bool>("onCluster");
    const Run list
        = run(sourceDir() + QStringLiteral("/tests/fixtures/libraries/write-fixture"), {QStringLiteral("--list")});
    QVERIFY2(list.code == 0, list.err.constData());
    for (const QByteArray &lib : list.out.trimmed().split(' '))
        QTest::newRow(lib.constData()) << QString::fromUtf8(lib) << false;
    // BullMQ on a Redis Cluster, its prefix given a hash tag as BullMQ asks there: every key of
    // its queues in one slot, on a primary that is not the seed; RedisLens walks the cluster.
    QTest::newRow("bullmq-on-a-cluster") << QStringLiteral("bullmq") << true;
}

void TestLibraries::library()
{
    QFETCH(QString, lib);
    QFETCH(bool, onCluster);
    TestServer server;
    TestCluster cluster(3, 0);
    QString error;
    quint16 port = 0; // where the library writes
    QStringList where; // how RedisLens reaches what it wrote
    const QString prefix = onCluster ? QStringLiteral("{bull}") : QStringLiteral("bull");
    const QString truthPath
        = m_home.filePath(QString::fromUtf8(QTest::currentDataTag()) + QStringLiteral(".truth.json"));
    QStringList fixtureOptions;
    if (!onCluster) {
        QVERIFY2(server.start(&error), qPrintable(error));
        port = server.port();
        where = QStringList{QStringLiteral("-p"), QString::number(port)};
    } else {
        QVERIFY2(cluster.start(&error), qPrintable(error));
        // The primary that owns the tag's slot answers for it; the others redirect.
        for (const quint16 p : cluster.primaryPorts())
            if (!RawConnection(p).command({"EXISTS", prefix.toUtf8()}).isError())
                port = p;
        QVERIFY(port != 0 && port != cluster.seedPort());
        where = QStringList{QStringLiteral("--cluster"), QStringLiteral("-p"), QString::number(cluster.seedPort())};
        // BullMQ's commands all name keys of that one slot: they go to its owner, as ioredis's
        // Cluster client would send every one of them.
        fixtureOptions = QStringList{QStringLiteral("--prefix"), prefix};
    }
    const Run written = run(sourceDir() + QStringLiteral("/tests/fixtures/libraries/write-fixture"),
                            QStringList{lib, QString::number(port), truthPath} + fixtureOptions);
    if (onCluster)
        cluster.populate(600, "orders:item:"); // keys on every primary beside the queues
    QVERIFY2(written.code == 0, QByteArray(written.out + written.err).constData());
    QFile truthFile(truthPath);
    QVERIFY(truthFile.open(QIODevice::ReadOnly));
    const QJsonObject truth = QJsonDocument::fromJson(truthFile.readAll()).object();
    QVERIFY2(!truth.value(QStringLiteral("keys")).toArray().isEmpty(), "the fixture wrote no keys");

    // Keys: every key the library left, with the kind RedisLens gives it.
    const Run keys = show(where, {QStringLiteral("keys"), QStringLiteral("--format"), QStringLiteral("jsonl")});
    QVERIFY2(keys.code == 0, keys.err.constData());
    QHash<QString, QJsonObject> shown;
    for (const QByteArray &line : keys.out.split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        shown.insert(o.value(QStringLiteral("key")).toString(), o);
    }
    const QSet<QByteArray> queueKinds{"job-queue", "queue", "processing", "delayed"};
    QStringList wrong;
    QHash<QString, Tally> mine;
    for (const QJsonValue v : truth.value(QStringLiteral("keys")).toArray()) {
        const QJsonObject t = v.toObject();
        const QString key = t.value(QStringLiteral("key")).toString();
        const QString expected = t.value(QStringLiteral("kind")).toString();
        if (!shown.contains(key)) {
            // A key with a short TTL (a lock, a stall check) may expire between the two runs.
            QVERIFY2(
                RawConnection(port).command({"EXISTS", bytesescape::unescape(key).value_or(key.toUtf8())}).toInteger()
                    == 0,
                qPrintable(QStringLiteral("%1 is on the server but not shown").arg(key)));
            continue;
        }
        const QString got = shown.value(key).value(QStringLiteral("pattern")).toString();
        m_keys += onCluster ? 0 : 1;
        if (got == expected) {
            ++mine[expected].truePositive;
        } else {
            ++mine[expected].falseNegative;
            ++mine[got].falsePositive;
            wrong.append(QStringLiteral("%1: %2, expected %3 (%4)")
                             .arg(key, got, expected, shown.value(key).value(QStringLiteral("reason")).toString()));
        }
        // Never a leaderboard or a rate limit for a key of a job queue.
        if (queueKinds.contains(expected.toUtf8()))
            QVERIFY2(got != QLatin1String("leaderboard") && !got.endsWith(QLatin1String("window"))
                         && got != QLatin1String("token-bucket"),
                     qPrintable(QStringLiteral("%1 is a %2").arg(key, got)));
    }
    // The tally is the fixtures' (each library once): the cluster row reads the same data again.
    for (auto it = mine.cbegin(); it != mine.cend() && !onCluster; ++it) {
        Tally &all = m_tally[it.key()];
        all.truePositive += it->truePositive;
        all.falsePositive += it->falsePositive;
        all.falseNegative += it->falseNegative;
    }
    if (!wrong.isEmpty())
        qWarning("%s: %lld of %lld keys misread:\n  %s", qPrintable(lib), qlonglong(wrong.size()),
                 qlonglong(truth.value(QStringLiteral("keys")).toArray().size()),
                 qPrintable(wrong.mid(0, 30).join(QStringLiteral("\n  "))));

    // Queues: every queue of the library, each state counted as the library counts it.
    const QJsonArray truthQueues = truth.value(QStringLiteral("queues")).toArray();
    if (truthQueues.isEmpty())
        return;
    const Run queues = show(where, {QStringLiteral("queues"), QStringLiteral("--format"), QStringLiteral("json")});
    QVERIFY2(queues.code == 0, queues.err.constData());
    const QJsonArray found = QJsonDocument::fromJson(queues.out).object().value(QStringLiteral("queues")).toArray();
    // The states RedisLens counts for this library: a state the truth has and RedisLens counts
    // for none of the library's queues is one Redis does not hold per queue (Celery's results
    // are not filed by queue); it is listed, not compared.
    QSet<QString> counted;
    for (const QJsonValue fv : found) {
        const QJsonObject states = fv.toObject().value(QStringLiteral("states")).toObject();
        for (auto it = states.constBegin(); it != states.constEnd(); ++it)
            counted.insert(it.key());
    }
    QSet<QString> notCounted;
    for (const QJsonValue tv : truthQueues) {
        const QJsonObject tq = tv.toObject();
        const QString name = tq.value(QStringLiteral("name")).toString();
        QJsonObject mineQueue;
        for (const QJsonValue fv : found) {
            if (fv.toObject().value(QStringLiteral("name")).toString() == name)
                mineQueue = fv.toObject();
        }
        QVERIFY2(!mineQueue.isEmpty(), qPrintable(QStringLiteral("queue %1 not shown").arg(name)));
        const QJsonObject truthStates = tq.value(QStringLiteral("states")).toObject();
        const QJsonObject states = mineQueue.value(QStringLiteral("states")).toObject();
        for (auto it = truthStates.constBegin(); it != truthStates.constEnd(); ++it) {
            const qint64 expected = it.value().toInteger();
            if (!counted.contains(it.key())) {
                notCounted.insert(it.key());
                continue;
            }
            if (!states.contains(it.key())) {
                QVERIFY2(
                    expected == 0,
                    qPrintable(
                        QStringLiteral("%1: no %2 count (the library says %3)").arg(name, it.key()).arg(expected)));
                continue;
            }
            QVERIFY2(states.value(it.key()).toInteger() == expected,
                     qPrintable(QStringLiteral("%1 %2: %3, the library says %4")
                                    .arg(name, it.key())
                                    .arg(states.value(it.key()).toInteger())
                                    .arg(expected)));
        }
        // Throughput where the library keeps metrics (BullMQ): the same totals and last hour.
        const QJsonObject truthMetrics = tq.value(QStringLiteral("metrics")).toObject();
        const QJsonObject metrics = mineQueue.value(QStringLiteral("metrics")).toObject();
        for (auto it = truthMetrics.constBegin(); it != truthMetrics.constEnd(); ++it)
            QVERIFY2(metrics.value(it.key()).toInteger(-1) == it.value().toInteger(),
                     qPrintable(QStringLiteral("%1 metrics %2: %3, the library says %4")
                                    .arg(name, it.key())
                                    .arg(metrics.value(it.key()).toInteger(-1))
                                    .arg(it.value().toInteger())));
        // What the fixture left stalled: BullMQ and Bull say so in Redis at once (the job's lock
        // is gone), so it must be shown stalled. Elsewhere a killed worker's heartbeat is fresh
        // for a while (RQ: 90 s, Sidekiq: 30 s), and nothing in Redis tells it from a live one
        // until then: the job must be shown among the active ones.
        QSet<QString> stalled, active;
        for (const QJsonValue s : mineQueue.value(QStringLiteral("stalled")).toArray())
            stalled.insert(s.toString());
        for (const QJsonValue a : mineQueue.value(QStringLiteral("active")).toArray())
            active.insert(a.toObject().value(QStringLiteral("id")).toString());
        const bool lockKnows = lib == QLatin1String("bullmq") || lib == QLatin1String("bull");
        for (const QJsonValue s : tq.value(QStringLiteral("stalled")).toArray())
            QVERIFY2(stalled.contains(s.toString()) || (!lockKnows && active.contains(s.toString())),
                     qPrintable(QStringLiteral("%1: job %2 not shown stalled").arg(name, s.toString())));
    }
    checkJobPages(where, truth.value(QStringLiteral("jobs")).toArray());
    checkTriage(where, lib, truthQueues);
    if (lib == QLatin1String("bullmq"))
        checkLiveWorkers(port, prefix, where);
    if (!notCounted.isEmpty()) {
        QStringList names(notCounted.cbegin(), notCounted.cend());
        names.sort();
        qInfo("%s: states not held per queue in Redis, not compared: %s", qPrintable(lib),
              qPrintable(names.join(QStringLiteral(", "))));
    }
}

// The triage's job rules on what the library wrote: every job the library's own API left
// stalled where Redis already says so (BullMQ and Bull: the lock is gone) is evidence of
// jobs.stalled, and a queue without stalled jobs gives no such finding.
void TestLibraries::checkTriage(const QStringList &where, const QString &lib, const QJsonArray &truthQueues) const
{
    const Run r
        = run(QStringLiteral(REDISLENS_APP_PATH),
              QStringList{QStringLiteral("report")} + where
                  + QStringList{QStringLiteral("--scan-rate"), QStringLiteral("0"), QStringLiteral("--only"),
                                QStringLiteral("jobs"), QStringLiteral("--fail-on"), QStringLiteral("critical")});
    QVERIFY2(r.code == 0 || r.code == 1, r.err.constData());
    const QJsonArray found = QJsonDocument::fromJson(r.out).object().value(QStringLiteral("findings")).toArray();
    QStringList evidence;
    for (const QJsonValue f : found) {
        if (f.toObject().value(QStringLiteral("id")).toString() != QLatin1String("jobs.stalled"))
            continue;
        for (const QJsonValue e : f.toObject().value(QStringLiteral("evidence")).toArray())
            evidence << e.toObject().value(QStringLiteral("subject")).toString();
    }
    const bool lockKnows = lib == QLatin1String("bullmq") || lib == QLatin1String("bull");
    int stalled = 0;
    for (const QJsonValue tv : truthQueues) {
        for (const QJsonValue s : tv.toObject().value(QStringLiteral("stalled")).toArray()) {
            if (!lockKnows)
                continue;
            ++stalled;
            const QString job = QStringLiteral("› job %1").arg(s.toString());
            QVERIFY2(std::any_of(evidence.cbegin(), evidence.cend(), [&](const QString &e) { return e.endsWith(job); }),
                     qPrintable(QStringLiteral("%1: stalled job %2 not in jobs.stalled (%3)")
                                    .arg(lib, s.toString(), evidence.join(QStringLiteral("; ")))));
        }
    }
    if (lockKnows)
        QCOMPARE(int(evidence.size()) > 0, stalled > 0);
    qInfo("%s: triage jobs.stalled names %lld jobs", qPrintable(lib), qint64(evidence.size()));
}

void TestLibraries::cleanupTestCase()
{
    Tally total;
    for (auto it = m_tally.cbegin(); it != m_tally.cend(); ++it) {
        const Tally &t = it.value();
        const double precision
            = t.truePositive + t.falsePositive ? 100.0 * t.truePositive / (t.truePositive + t.falsePositive) : 100.0;
        const double recall
            = t.truePositive + t.falseNegative ? 100.0 * t.truePositive / (t.truePositive + t.falseNegative) : 100.0;
        qInfo("%-16s precision %6.2f %%  recall %6.2f %%  (%d right, %d wrongly called this, %d missed)",
              qPrintable(it.key()), precision, recall, t.truePositive, t.falsePositive, t.falseNegative);
        total.truePositive += t.truePositive;
        total.falsePositive += t.falsePositive;
        total.falseNegative += t.falseNegative;
    }
    if (m_keys == 0)
        return; // no fixture ran (a failure already said why)
    const double precision = 100.0 * total.truePositive / qMax(1, total.truePositive + total.falsePositive);
    const double recall = 100.0 * total.truePositive / qMax(1, total.truePositive + total.falseNegative);
    qInfo("all kinds: precision %.2f %%, recall %.2f %% over %d keys", precision, recall, m_keys);
    for (auto it = m_tally.cbegin(); it != m_tally.cend(); ++it) {
        const Tally &t = it.value();
        if (t.truePositive + t.falsePositive > 0 && it.key() != QLatin1String("none"))
            QVERIFY2(t.truePositive * 100 >= 99 * (t.truePositive + t.falsePositive),
                     qPrintable(QStringLiteral("precision of %1 below 99 %").arg(it.key())));
        if (t.truePositive + t.falseNegative > 0 && it.key() != QLatin1String("none"))
            QVERIFY2(t.truePositive * 100 >= 98 * (t.truePositive + t.falseNegative),
                     qPrintable(QStringLiteral("recall of %1 below 98 %").arg(it.key())));
    }
}

QTEST_GUILESS_MAIN(TestLibraries)
#include "tst_libraries.moc"
