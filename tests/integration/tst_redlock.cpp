// SPDX-License-Identifier: GPL-3.0-or-later
// A Redlock set of three real servers on loopback, its locks written by the redlock library
// (tests/fixtures/libraries/node/redlock_set_fixture.mjs) in every state a set is found in: the
// locks view of `redislens show locks --redlock` must say, for each, on how many nodes it is held,
// by which token, and flag a missing majority and split tokens, as the library's Lock objects
// say; a node that is down is shown unread; nothing written reaches any node.

#include "commandstats.h"
#include "processrun.h"
#include "testserver.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Expected
{
    QHash<quint16, QString> tokenOn; // port → value
};

} // namespace

class TstRedlock : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void showsEverySetState();
    void readsNothingWritten();
    void reportFlagsTheSet();
    void nodeDownIsUnread();
    void badOptionsExitTwo();

private:
    ProcessRun show(const QStringList &extra) const;
    QStringList peerArgs() const;
    QJsonArray redlockRecords(const ProcessRun &r, QJsonObject *coverage = nullptr) const;

    QTemporaryDir m_home;
    std::unique_ptr<TestServer> m_nodes[3];
    QHash<QString, Expected> m_truth;
    QStringList m_released;
};

void TstRedlock::initTestCase()
{
    QVERIFY(m_home.isValid());
    for (auto &node : m_nodes) {
        node = std::make_unique<TestServer>();
        QString error;
        QVERIFY2(node->start(&error), qPrintable(error));
    }
    const QString truthPath = m_home.filePath(QStringLiteral("redlock-set.json"));
    const ProcessRun written = runNodeFixture(
        QStringLiteral("redlock_set_fixture.mjs"),
        {QStringLiteral("--port"), QString::number(m_nodes[0]->port()), QStringLiteral("--peers"),
         QStringLiteral("%1,%2").arg(m_nodes[1]->port()).arg(m_nodes[2]->port()), QStringLiteral("--truth"), truthPath},
        m_home.path());
    QVERIFY2(written.code == 0, QByteArray(written.out + written.err).constData());
    QFile f(truthPath);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject truth = QJsonDocument::fromJson(f.readAll()).object();
    for (const QJsonValue v : truth.value(QStringLiteral("locks")).toArray()) {
        const QJsonObject l = v.toObject();
        Expected &e = m_truth[l.value(QStringLiteral("key")).toString()];
        for (const QJsonValue port : l.value(QStringLiteral("nodes")).toArray())
            e.tokenOn.insert(quint16(port.toInt()), l.value(QStringLiteral("value")).toString());
    }
    for (const QJsonValue v : truth.value(QStringLiteral("released")).toArray())
        m_released.append(v.toString());
    QCOMPARE(m_truth.size(), 5);
}

QStringList TstRedlock::peerArgs() const
{
    return {QStringLiteral("--redlock"),
            QStringLiteral("127.0.0.1:%1,127.0.0.1:%2").arg(m_nodes[1]->port()).arg(m_nodes[2]->port())};
}

ProcessRun TstRedlock::show(const QStringList &extra) const
{
    return runProgram(QStringLiteral(REDISLENS_APP_PATH),
                      QStringList{QStringLiteral("show"), QStringLiteral("locks"), QStringLiteral("-p"),
                                  QString::number(m_nodes[0]->port()), QStringLiteral("--scan-rate"),
                                  QStringLiteral("0")}
                          + extra,
                      120000, isolatedEnvironment(m_home.path()));
}

QJsonArray TstRedlock::redlockRecords(const ProcessRun &r, QJsonObject *coverage) const
{
    const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
    if (coverage)
        *coverage = doc.value(QStringLiteral("coverage")).toObject();
    return doc.value(QStringLiteral("records")).toArray();
}

void TstRedlock::showsEverySetState()
{
    const ProcessRun r = show(peerArgs()
                              + QStringList{QStringLiteral("--table"), QStringLiteral("redlock"),
                                            QStringLiteral("--format"), QStringLiteral("json")});
    QVERIFY2(r.code == 0, r.err.constData());
    const QString invalid
        = validateAgainstSchema(QStringLiteral("show-locks.schema.json"), r.out, QStringLiteral("json"),
                                m_home.filePath(QStringLiteral("redlock-show.json")));
    QVERIFY2(invalid.isEmpty(), qPrintable(invalid));
    QJsonObject coverage;
    const QJsonArray records = redlockRecords(r, &coverage);
    QCOMPARE(coverage.value(QStringLiteral("table")).toString(), QStringLiteral("redlock"));
    QCOMPARE(coverage.value(QStringLiteral("redlock_nodes")).toArray().size(), 3);
    QCOMPARE(coverage.value(QStringLiteral("redlock_quorum")).toInt(), 2);
    QVERIFY(coverage.value(QStringLiteral("redlock_unread")).toObject().isEmpty());
    // locks:shipment:77 and locks:report:weekly are not on the first server: found on the peers.
    QCOMPARE(coverage.value(QStringLiteral("redlock_peer_only_keys")).toInt(), 2);

    QHash<QString, QJsonObject> shown;
    for (const QJsonValue v : records)
        shown.insert(v.toObject().value(QStringLiteral("key")).toString(), v.toObject());
    for (const QString &gone : std::as_const(m_released))
        QVERIFY2(!shown.contains(gone), qPrintable(gone + QStringLiteral(" was released but is shown")));
    QCOMPARE(shown.size(), m_truth.size());
    for (auto it = m_truth.cbegin(); it != m_truth.cend(); ++it) {
        const QString &key = it.key();
        QVERIFY2(shown.contains(key), qPrintable(key + QStringLiteral(" is not shown")));
        const QJsonObject row = shown.value(key);
        // What the library's Lock objects say: held on these nodes, with these values.
        QHash<QString, int> perToken;
        for (const QString &token : it->tokenOn)
            ++perToken[token];
        int majority = 0;
        QString majorityToken;
        for (auto t = perToken.cbegin(); t != perToken.cend(); ++t) {
            if (t.value() > majority) {
                majority = t.value();
                majorityToken = t.key();
            }
        }
        const int held = int(it->tokenOn.size());
        QCOMPARE(row.value(QStringLiteral("held_on_value")).toInt(), held);
        QCOMPARE(row.value(QStringLiteral("held_on")).toString(), QStringLiteral("%1 of 3").arg(held));
        QVERIFY2(row.value(QStringLiteral("token")).toString().contains(majorityToken),
                 qPrintable(QStringLiteral("%1: token %2, expected %3")
                                .arg(key, row.value(QStringLiteral("token")).toString(), majorityToken)));
        const QString flags = row.value(QStringLiteral("flags")).toString();
        const bool split = perToken.size() > 1;
        const bool noMajority = majority < 2;
        QCOMPARE(flags.contains(QLatin1String("different tokens")), split);
        QCOMPARE(flags.contains(QLatin1String("no majority")), noMajority);
        QCOMPARE(row.value(QStringLiteral("severity")).toString(),
                 split || noMajority ? QStringLiteral("bad") : QStringLiteral("none"));
        // Every lock has a TTL: the smallest left is below the largest the fixture set.
        const qint64 left = qint64(row.value(QStringLiteral("smallest_ttl_value")).toDouble(-2));
        QVERIFY2(left > 0 && left <= 120000, qPrintable(QStringLiteral("%1: %2 ms left").arg(key).arg(left)));
    }
    qInfo("%lld locks across 3 nodes, each as the library's Lock objects say", qlonglong(shown.size()));

    // Without --table: the single-server table first, as before.
    const ProcessRun single = show(peerArgs() + QStringList{QStringLiteral("--format"), QStringLiteral("json")});
    QVERIFY2(single.code == 0, single.err.constData());
    QJsonObject singleCoverage;
    const QJsonArray singleRecords = redlockRecords(single, &singleCoverage);
    QCOMPARE(singleCoverage.value(QStringLiteral("table")).toString(), QStringLiteral("locks"));
    QCOMPARE(singleRecords.size(), 3); // order, inventory, invoice on the first server
}

void TstRedlock::readsNothingWritten()
{
    QList<QHash<QByteArray, qint64>> before;
    QList<QByteArray> digests;
    for (auto &node : m_nodes) {
        RawConnection raw(node->port());
        digests.append(raw.command({"DEBUG", "DIGEST"}).bytes());
        before.append(commandCalls(raw));
    }
    const ProcessRun r = show(peerArgs()
                              + QStringList{QStringLiteral("--table"), QStringLiteral("redlock"),
                                            QStringLiteral("--format"), QStringLiteral("json")});
    QVERIFY2(r.code == 0, r.err.constData());
    for (int i = 0; i < 3; ++i) {
        RawConnection raw(m_nodes[i]->port());
        const QHash<QByteArray, qint64> after = commandCalls(raw);
        QStringList sent;
        for (auto it = after.cbegin(); it != after.cend(); ++it) {
            if (it.value() == before.at(i).value(it.key()))
                continue;
            sent.append(QString::fromUtf8(it.key()));
            // The server's own word on each command that ran: none may be flagged as writing.
            const QByteArray name = it.key().split('|').first();
            const RedisValue info = raw.command({"COMMAND", "INFO", name});
            const QList<RedisValue> &entries = info.elements();
            QVERIFY(!entries.isEmpty() && entries.first().elements().size() > 2);
            for (const RedisValue &flag : entries.first().elements().at(2).elements())
                QVERIFY2(flag.bytes() != "write",
                         qPrintable(QStringLiteral("node %1 ran %2, a writing command")
                                        .arg(i + 1)
                                        .arg(QString::fromUtf8(it.key()))));
        }
        QVERIFY2(!sent.isEmpty(), "the node was not read at all");
        QCOMPARE(raw.command({"DEBUG", "DIGEST"}).bytes(), digests.at(i));
        qInfo("node %d ran: %s", i + 1, qPrintable(sent.join(QLatin1Char(' '))));
    }
}

// `redislens report --redlock`: the split tokens (critical: exit 1) and the minority lock, each
// with exactly the keys the library left in that state.
void TstRedlock::reportFlagsTheSet()
{
    const ProcessRun r
        = runProgram(QStringLiteral(REDISLENS_APP_PATH),
                     QStringList{QStringLiteral("report"), QStringLiteral("-p"), QString::number(m_nodes[0]->port()),
                                 QStringLiteral("--only"), QStringLiteral("lock")}
                         + peerArgs(),
                     120000, isolatedEnvironment(m_home.path()));
    QCOMPARE(r.code, 1); // a critical finding
    const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
    QHash<QString, QStringList> evidence;
    for (const QJsonValue v : doc.value(QStringLiteral("findings")).toArray()) {
        const QJsonObject f = v.toObject();
        QStringList keys;
        for (const QJsonValue item : f.value(QStringLiteral("evidence")).toArray())
            keys << item.toObject().value(QStringLiteral("subject")).toString();
        keys.sort();
        evidence.insert(f.value(QStringLiteral("id")).toString(), keys);
    }
    QStringList split, minority;
    for (auto it = m_truth.cbegin(); it != m_truth.cend(); ++it) {
        QHash<QString, int> perToken;
        for (const QString &token : it->tokenOn)
            ++perToken[token];
        int majority = 0;
        for (int n : std::as_const(perToken))
            majority = qMax(majority, n);
        if (perToken.size() > 1)
            split << it.key();
        if (majority < 2)
            minority << it.key();
    }
    split.sort();
    minority.sort();
    QCOMPARE(evidence.value(QStringLiteral("lock.redlock-split")), split);
    QCOMPARE(evidence.value(QStringLiteral("lock.redlock-minority")), minority);
    QVERIFY(!evidence.contains(QStringLiteral("lock.redlock-node-down")));
    const QString invalid = validateAgainstSchema(QStringLiteral("report.schema.json"), r.out, QStringLiteral("json"),
                                                  m_home.filePath(QStringLiteral("redlock-report.json")));
    QVERIFY2(invalid.isEmpty(), qPrintable(invalid));
}

void TstRedlock::nodeDownIsUnread()
{
    // Runs last: the third node stops. Its locks are unread, not "released".
    m_nodes[2]->server().stop();
    const ProcessRun r
        = show(peerArgs()
               + QStringList{QStringLiteral("--table"), QStringLiteral("redlock"), QStringLiteral("--format"),
                             QStringLiteral("json"), QStringLiteral("--connect-timeout"), QStringLiteral("2000")});
    QVERIFY2(r.code == 0, r.err.constData());
    QJsonObject coverage;
    const QJsonArray records = redlockRecords(r, &coverage);
    const QJsonObject unread = coverage.value(QStringLiteral("redlock_unread")).toObject();
    QCOMPARE(unread.keys(), QStringList{QStringLiteral("127.0.0.1:%1").arg(m_nodes[2]->port())});
    QHash<QString, QJsonObject> shown;
    for (const QJsonValue v : records)
        shown.insert(v.toObject().value(QStringLiteral("key")).toString(), v.toObject());
    // Held on the first two nodes: 2 of 3, one unread, flagged.
    const QJsonObject order = shown.value(QStringLiteral("locks:order:1001"));
    QCOMPARE(order.value(QStringLiteral("held_on")).toString(), QStringLiteral("2 of 3 (1 unread)"));
    QVERIFY(order.value(QStringLiteral("flags")).toString().contains(QLatin1String("did not answer")));
    // Held only on the stopped node: nothing left to show.
    QVERIFY(!shown.contains(QStringLiteral("locks:report:weekly")));
    // The report says the node is down.
    const ProcessRun report
        = runProgram(QStringLiteral(REDISLENS_APP_PATH),
                     QStringList{QStringLiteral("report"), QStringLiteral("-p"), QString::number(m_nodes[0]->port()),
                                 QStringLiteral("--only"), QStringLiteral("lock.redlock-node-down"),
                                 QStringLiteral("--connect-timeout"), QStringLiteral("2000")}
                         + peerArgs(),
                     120000, isolatedEnvironment(m_home.path()));
    QCOMPARE(report.code, 0); // a warning: below the default --fail-on critical
    QVERIFY2(report.out.contains("\"lock.redlock-node-down\"")
                 && report.out.contains(QStringLiteral("127.0.0.1:%1").arg(m_nodes[2]->port()).toUtf8()),
             report.out.constData());
}

void TstRedlock::badOptionsExitTwo()
{
    const QList<QStringList> bad{
        {QStringLiteral("--redlock"), QStringLiteral("127.0.0.1")},
        {QStringLiteral("--redlock"), QStringLiteral("127.0.0.1:7001"), QStringLiteral("--cluster")},
        {QStringLiteral("--redlock"), QStringLiteral("127.0.0.1:7001"), QStringLiteral("--sentinel"),
         QStringLiteral("127.0.0.1:26379"), QStringLiteral("--master"), QStringLiteral("m")},
    };
    for (const QStringList &args : bad) {
        const ProcessRun r = show(args);
        QVERIFY2(r.code == 2, qPrintable(args.join(QLatin1Char(' ')) + QStringLiteral(": exit %1").arg(r.code)));
        QVERIFY2(r.err.contains("--redlock"), r.err.constData());
    }
}

QTEST_GUILESS_MAIN(TstRedlock)
#include "tst_redlock.moc"
