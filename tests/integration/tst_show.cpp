// SPDX-License-Identifier: GPL-3.0-or-later
// Runs `redislens show PANEL` (the real binary) on the demo's data: every panel in json and
// jsonl, validated against its schema in docs/schemas/ by Debian's python3-jsonschema, checked
// against what the demo wrote, the other formats against json, and the errors that exit 2.
#include "bytesescape.h"
#include "commandstats.h"
#include "demo.h"
#include "demotruth.h"
#include "panelneeds.h"
#include "processrun.h"
#include "testserver.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>

namespace {

using Run = ProcessRun;

const QString kPython = QStringLiteral("/usr/bin/python3");

QString sourceDir()
{
    return qEnvironmentVariable("REDISLENS_SOURCE_DIR");
}

} // namespace

class TestShow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void conformsToSchema_data();
    void conformsToSchema();
    void keysMatchTheServer();
    void keysLimitAndMatch();
    void locksShowTheDeadlock();
    void leaderboardAndGeoMatchTheServer();
    void slowlogTablesHoldWhatTheServerLogged();
    void streamGroupMatchesTheServer();
    void streamReadErrorsExitOne();
    void otherFormatsHoldTheSameRows_data();
    void otherFormatsHoldTheSameRows();
    void errorsExitTwo_data();
    void errorsExitTwo();
    void progressOnATerminal();
    void progressForced();
    void demoOption();
    void passwordNeverPrinted();
    void helpNamesShow();
    void panelNeedsNameWhatPanelsSend_data();
    void panelNeedsNameWhatPanelsSend();

private:
    Run show(const QStringList &args, int timeoutMs = 120000) const;
    QStringList at() const { return {QStringLiteral("-p"), QString::number(m_demo->profile().port)}; }
    QJsonObject document(const QStringList &args);
    QString validate(const QString &panel, const QByteArray &output, const QString &format);

    std::unique_ptr<Demo> m_demo;
    QTemporaryDir m_home;
    QString m_weekly; // the demo's weekly board: named after the current ISO week
};

Run TestShow::show(const QStringList &args, int timeoutMs) const
{
    // No display and no platform plugin: show must not need them.
    return runProgram(QStringLiteral(REDISLENS_APP_PATH), QStringList{QStringLiteral("show")} + args, timeoutMs,
                      isolatedEnvironment(m_home.path()));
}

QJsonObject TestShow::document(const QStringList &args)
{
    const Run r = show(args + at());
    if (r.code != 0)
        qWarning("show %s: exit %d: %s", qPrintable(args.join(u' ')), r.code, r.err.constData());
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(r.out, &error);
    if (error.error != QJsonParseError::NoError)
        qWarning("show %s: %s", qPrintable(args.join(u' ')), qPrintable(error.errorString()));
    return doc.object();
}

QString TestShow::validate(const QString &panel, const QByteArray &output, const QString &format)
{
    return validateAgainstSchema(QStringLiteral("show-%1.schema.json").arg(panel), output, format,
                                 m_home.filePath(QStringLiteral("output-%1.%2").arg(panel, format)));
}

void TestShow::initTestCase()
{
    QVERIFY(m_home.isValid());
    QVERIFY2(QFile::exists(kPython), "Debian's python3 (with python3-jsonschema) is needed");
    QProcess check;
    check.start(kPython, {QStringLiteral("-c"), QStringLiteral("import jsonschema")});
    QVERIFY(check.waitForFinished(30000));
    QVERIFY2(check.exitCode() == 0, "python3-jsonschema is not installed for /usr/bin/python3");
    QVERIFY2(!sourceDir().isEmpty(), "REDISLENS_SOURCE_DIR is not set");
    // The demo's data, seeded once, without the simulator: every run reads the same state.
    m_demo = std::make_unique<Demo>();
    QString error;
    QVERIFY2(m_demo->seedBlocking(&error, 30000), qPrintable(error));
    const QList<QByteArray> weekly = RawConnection(m_demo->profile().port).scan("lb:weekly:*");
    QCOMPARE(weekly.size(), 1);
    m_weekly = QString::fromUtf8(weekly.constFirst());
}

void TestShow::cleanupTestCase()
{
    m_demo.reset();
}

void TestShow::conformsToSchema_data()
{
    QTest::addColumn<QString>("panel");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<int>("minimumRecords");
    const struct
    {
        const char *panel;
        QStringList extra;
        int minimum;
    } panels[] = {
        {"keys", {}, 100},
        {"overview", {}, 13},
        {"overview", {"--table", "facts"}, 3},
        {"ttl", {}, 3},
        {"slowlog", {}, 0},
        {"slowlog", {"--table", "commands"}, 0},
        {"slowlog", {"--table", "latency"}, 0},
        {"memory", {}, 3},
        {"memory", {"--table", "top"}, 3},
        {"locks", {}, 3},
        {"ratelimits", {}, 1},
        {"ratelimits", {"--table", "callers"}, 1},
        {"sessions", {}, 1},
        {"sessions", {"--table", "indexes"}, 1},
        {"caches", {}, 1},
        {"caches", {"--table", "tags"}, 1},
        {"leaderboard", {m_weekly}, 50},
        {"geo", {"geo:cities"}, 10},
        {"streams", {}, 2},
        {"streams", {"--stream", "events:orders"}, 2},
        {"streams", {"--stream", "events:orders", "--group", "billing", "--table", "consumers"}, 2},
        {"streams", {"--stream", "events:orders", "--group", "billing", "--table", "pending"}, 10},
        {"queues", {}, 1},
        {"queues", {"--table", "delayed"}, 1},
        {"topology", {}, 1},
        {"topology", {"--table", "sentinels"}, 0},
    };
    for (const auto &p : panels) {
        for (const char *format : {"json", "jsonl"}) {
            QTest::addRow("%s %s %s", p.panel, qPrintable(p.extra.join(u' ')), format)
                << QString::fromLatin1(p.panel) << (p.extra + QStringList{"--format", format}) << p.minimum;
        }
    }
}

void TestShow::conformsToSchema()
{
    QFETCH(QString, panel);
    QFETCH(QStringList, extra);
    QFETCH(int, minimumRecords);
    const Run r = show(QStringList{panel} + extra + at());
    QVERIFY2(r.code == 0, r.err.constData());
    // Not a terminal: nothing on stderr.
    QCOMPARE(r.err, QByteArray());
    const QString format = extra.last();
    const QString problems = validate(panel, r.out, format);
    QVERIFY2(problems.isEmpty(), qPrintable(problems));
    qsizetype records = 0;
    if (format == QLatin1String("jsonl")) {
        records = r.out.count('\n');
    } else {
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(doc.value(QStringLiteral("panel")).toString(), panel);
        QVERIFY(doc.value(QStringLiteral("uri")).toString().contains(QString::number(m_demo->profile().port)));
        records = doc.value(QStringLiteral("records")).toArray().size();
    }
    QVERIFY2(records >= minimumRecords, qPrintable(QStringLiteral("%1 records").arg(records)));
}

void TestShow::keysMatchTheServer()
{
    // Nothing writes to the demo's server during the test, but keys with TTLs of seconds expire:
    // what the server holds after the run is in the records, and the records are what it held
    // before.
    RawConnection raw(m_demo->profile().port);
    const QList<QByteArray> before = raw.scan();
    const QJsonObject doc = document({QStringLiteral("keys")});
    const QJsonArray records = doc.value(QStringLiteral("records")).toArray();
    const QList<QByteArray> keys = raw.scan();
    QVERIFY(records.size() <= before.size());
    QVERIFY(records.size() >= keys.size());
    QHash<QString, QJsonObject> byKey;
    for (const QJsonValue v : records)
        byKey.insert(v.toObject().value(QStringLiteral("key")).toString(), v.toObject());
    QCOMPARE(byKey.size(), records.size()); // each key once
    QSet<QString> held;
    for (const QByteArray &key : before)
        held.insert(bytesescape::escape(key));
    for (auto it = byKey.cbegin(); it != byKey.cend(); ++it)
        QVERIFY2(held.contains(it.key()), qPrintable(it.key()));
    int agree = 0, known = 0;
    for (const QByteArray &key : std::as_const(keys)) {
        const QString shown = bytesescape::escape(key);
        QVERIFY2(byKey.contains(shown), qPrintable(shown));
        const QJsonObject rec = byKey.value(shown);
        const QByteArray type = raw.command({"TYPE", key}).bytes();
        if (type == "none")
            continue; // its TTL ran out between the scan and this check (the demo has short ones)
        QCOMPARE(rec.value(QStringLiteral("type")).toString().toUtf8(), type);
        const qint64 pttl = raw.command({"PTTL", key}).toInteger();
        const qint64 shownTtl = qint64(rec.value(QStringLiteral("ttl_ms")).toDouble());
        if (pttl == -1)
            QCOMPARE(shownTtl, -1);
        else
            QVERIFY2(shownTtl >= pttl - 1 && shownTtl <= pttl + 60000, qPrintable(shown));
        if (const auto truth = demoTruthOf(key)) {
            ++known;
            const QString pattern = rec.value(QStringLiteral("pattern")).toString();
            const QString expected = *truth == PatternKind::Unknown ? QStringLiteral("unknown")
                                                                    : QString::fromLatin1(patternKindId(*truth));
            if (pattern == expected)
                ++agree;
        }
    }
    // The classifier is measured against the same truth by tst_patterns; here the records must
    // carry its verdicts, which agree on nearly every demo key.
    QVERIFY2(agree * 100 >= known * 90, qPrintable(QStringLiteral("%1 of %2 agree").arg(agree).arg(known)));
    // The deadlock the demo leaves: a lock without TTL.
    const QJsonObject deadlock = byKey.value(QStringLiteral("lock:migration:schema-v42"));
    QCOMPARE(deadlock.value(QStringLiteral("pattern")).toString(), QStringLiteral("lock"));
    QCOMPARE(deadlock.value(QStringLiteral("ttl_ms")).toInt(), -1);
    const QJsonObject coverage = doc.value(QStringLiteral("coverage")).toObject();
    QCOMPARE(coverage.value(QStringLiteral("complete")).toBool(), true);
    QCOMPARE(coverage.value(QStringLiteral("keys")).toInt(), records.size());
}

void TestShow::keysLimitAndMatch()
{
    const qsizetype locksBefore = RawConnection(m_demo->profile().port).scan("lock:*").size();
    const Run r = show(QStringList{QStringLiteral("keys"), QStringLiteral("--format"), QStringLiteral("jsonl"),
                                   QStringLiteral("--match"), QStringLiteral("lock:*")}
                       + at());
    QVERIFY2(r.code == 0, r.err.constData());
    const QList<QByteArray> lines = r.out.trimmed().split('\n');
    RawConnection raw(m_demo->profile().port);
    // Locks with a short TTL may expire while the test runs, never appear.
    QVERIFY(lines.size() <= locksBefore);
    QVERIFY(lines.size() >= raw.scan("lock:*").size());
    for (const QByteArray &line : lines) {
        const QJsonObject rec = QJsonDocument::fromJson(line).object();
        QVERIFY(rec.value(QStringLiteral("key")).toString().startsWith(QStringLiteral("lock:")));
    }
    const Run limited = show(QStringList{QStringLiteral("keys"), QStringLiteral("--format"), QStringLiteral("jsonl"),
                                         QStringLiteral("--limit"), QStringLiteral("7")}
                             + at());
    QVERIFY2(limited.code == 0, limited.err.constData());
    QCOMPARE(limited.out.count('\n'), 7);
    const QJsonObject doc = document({QStringLiteral("keys"), QStringLiteral("--limit"), QStringLiteral("3")});
    QCOMPARE(doc.value(QStringLiteral("records")).toArray().size(), 3);
    QCOMPARE(doc.value(QStringLiteral("coverage")).toObject().value(QStringLiteral("complete")).toBool(), false);
}

void TestShow::leaderboardAndGeoMatchTheServer()
{
    RawConnection raw(m_demo->profile().port);
    const QJsonObject board = document({QStringLiteral("leaderboard"), m_weekly});
    const RedisValue top = raw.command({"ZREVRANGE", m_weekly.toUtf8(), "0", "0", "WITHSCORES"});
    const QJsonObject first = board.value(QStringLiteral("records")).toArray().first().toObject();
    QCOMPARE(first.value(QStringLiteral("member")).toString().toUtf8(), top.elements().at(0).bytes());
    QCOMPARE(board.value(QStringLiteral("subject")).toObject().value(QStringLiteral("cardinality")).toInteger(),
             raw.command({"ZCARD", m_weekly.toUtf8()}).toInteger());
    const QJsonObject geo = document({QStringLiteral("geo"), QStringLiteral("geo:cities")});
    QCOMPARE(geo.value(QStringLiteral("records")).toArray().size(), raw.command({"ZCARD", "geo:cities"}).toInteger());
}

void TestShow::locksShowTheDeadlock()
{
    const QJsonObject doc = document({QStringLiteral("locks")});
    const QJsonArray records = doc.value(QStringLiteral("records")).toArray();
    RawConnection raw(m_demo->profile().port);
    // Every lock the demo wrote is there, each with its TTL state.
    QList<QByteArray> locks = raw.scan("lock:*");
    QHash<QString, QJsonObject> byKey;
    for (const QJsonValue v : records)
        byKey.insert(v.toObject().value(QStringLiteral("key")).toString(), v.toObject());
    for (const QByteArray &key : std::as_const(locks)) {
        QVERIFY2(byKey.contains(QString::fromUtf8(key)), key.constData());
        const QJsonObject lock = byKey.value(QString::fromUtf8(key));
        const qint64 pttl = raw.command({"PTTL", key}).toInteger();
        if (pttl == -1) {
            QCOMPARE(lock.value(QStringLiteral("remaining")).toString(), QStringLiteral("no TTL"));
            QCOMPARE(lock.value(QStringLiteral("severity")).toString(), QStringLiteral("bad"));
        } else {
            QVERIFY2(lock.value(QStringLiteral("remaining")).toString() != QLatin1String("no TTL"), key.constData());
        }
    }
    QVERIFY(byKey.contains(QStringLiteral("lock:migration:schema-v42")));
}

namespace {

// The cells of a tsv or markdown table, unescaped, by row; the header row first.
QList<QStringList> tableRows(const QByteArray &out, bool markdown)
{
    QList<QStringList> rows;
    const QList<QByteArray> lines = out.split('\n');
    for (qsizetype i = 0; i < lines.size(); ++i) {
        QString line = QString::fromUtf8(lines.at(i));
        if (line.isEmpty() || (markdown && i == 1))
            continue;
        QStringList cells;
        if (!markdown) {
            for (const QString &cell : line.split(u'\t')) {
                QString v;
                for (qsizetype k = 0; k < cell.size(); ++k) {
                    if (cell.at(k) == u'\\' && k + 1 < cell.size()) {
                        const QChar n = cell.at(++k);
                        v += n == u't' ? QChar(u'\t') : n == u'n' ? QChar(u'\n') : n == u'r' ? QChar(u'\r') : n;
                    } else {
                        v += cell.at(k);
                    }
                }
                cells.append(v);
            }
        } else {
            line = line.mid(1, line.size() - 2); // the outer pipes
            QString v;
            for (qsizetype k = 0; k < line.size(); ++k) {
                if (line.at(k) == u'\\' && k + 1 < line.size() && line.at(k + 1) == u'|') {
                    v += u'|';
                    ++k;
                } else if (line.at(k) == u'|') {
                    cells.append(v.trimmed());
                    v.clear();
                } else {
                    v += line.at(k);
                }
            }
            cells.append(v.trimmed());
            for (QString &c : cells)
                c.replace(QStringLiteral("<br>"), QStringLiteral("\n"));
        }
        rows.append(cells);
    }
    return rows;
}

QString cellOf(const QJsonValue &v)
{
    if (v.isNull())
        return {};
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (v.isDouble()) {
        const double d = v.toDouble();
        return d == double(qint64(d)) ? QString::number(qint64(d)) : QString::number(d, 'g', 17);
    }
    return v.toString();
}

} // namespace

void TestShow::otherFormatsHoldTheSameRows_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::newRow("keys") << QStringList{QStringLiteral("keys")};
    QTest::newRow("locks") << QStringList{QStringLiteral("locks")};
    QTest::newRow("caches") << QStringList{QStringLiteral("caches")};
    QTest::newRow("leaderboard") << QStringList{QStringLiteral("leaderboard"), m_weekly};
    QTest::newRow("streams") << QStringList{QStringLiteral("streams")};
    QTest::newRow("memory top") << QStringList{QStringLiteral("memory"), QStringLiteral("--table"),
                                               QStringLiteral("top")};
}

void TestShow::otherFormatsHoldTheSameRows()
{
    QFETCH(QStringList, args);
    // Each tsv or markdown run stands between two json runs. Nothing writes to the demo's server
    // while the test runs, but TTLs count down and keys expire: a row of the table is one that
    // either json run holds, each of its steady cells is what one of them says (or has its
    // shape, for a countdown inside text), and a row both json runs hold is in the table.
    for (const char *format : {"tsv", "markdown"}) {
        const QJsonArray before = document(args).value(QStringLiteral("records")).toArray();
        const Run r = show(args + QStringList{QStringLiteral("--format"), QString::fromLatin1(format)} + at());
        const QJsonArray after = document(args).value(QStringLiteral("records")).toArray();
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(!before.isEmpty() && !after.isEmpty());
        const QStringList columns = before.first().toObject().keys();
        const QString id = columns.contains(QStringLiteral("key")) ? QStringLiteral("key") : columns.first();
        const auto byId = [&id](const QJsonArray &records) {
            QHash<QString, QJsonObject> rows;
            for (const QJsonValue v : records)
                rows.insert(v.toObject().value(id).toString(), v.toObject());
            return rows;
        };
        const QHash<QString, QJsonObject> first = byId(before);
        const QHash<QString, QJsonObject> second = byId(after);
        QCOMPARE(first.size(), before.size()); // the id column names a row
        // Cells that differ between the two json runs (a reason names whichever keys were
        // sampled, a confidence follows them) are not compared, nor the columns that count down.
        QSet<QString> moving;
        for (auto it = first.cbegin(); it != first.cend(); ++it) {
            if (!second.contains(it.key()))
                continue;
            for (const QString &c : columns) {
                if (it.value().value(c) != second.value(it.key()).value(c))
                    moving.insert(c);
            }
        }
        for (const QString &c : columns) {
            for (const char *clock : {"ttl", "median", "remaining", "left", "reason", "lifetime", "expire"}) {
                if (c.contains(QLatin1String(clock)))
                    moving.insert(c);
            }
        }
        QVERIFY2(!moving.contains(id), qPrintable(id));
        const QList<QStringList> rows = tableRows(r.out, qstrcmp(format, "markdown") == 0);
        QVERIFY(!rows.isEmpty());
        const QStringList &header = rows.first();
        QCOMPARE(QSet<QString>(header.begin(), header.end()), QSet<QString>(columns.begin(), columns.end()));
        const qsizetype idColumn = header.indexOf(id);
        QSet<QString> seen;
        for (qsizetype i = 1; i < rows.size(); ++i) {
            const QStringList &cells = rows.at(i);
            QCOMPARE(cells.size(), header.size());
            const QString &key = cells.at(idColumn);
            QVERIFY2(first.contains(key) || second.contains(key), qPrintable(key));
            QVERIFY2(!seen.contains(key), qPrintable(key));
            seen.insert(key);
            for (qsizetype c = 0; c < header.size(); ++c) {
                if (moving.contains(header.at(c)))
                    continue;
                const QString &cell = cells.at(c);
                bool matches = false;
                QStringList expected;
                for (const auto *run : {&first, &second}) {
                    if (!run->contains(key))
                        continue;
                    const QJsonValue value = run->value(key).value(header.at(c));
                    expected.append(cellOf(value));
                    if (value.isDouble()) {
                        matches = matches || cell.toDouble() == value.toDouble();
                        continue;
                    }
                    // Text with a countdown in it ("10 (TTL ≤ 14 s)") keeps its shape.
                    static const QRegularExpression digits(QStringLiteral("[0-9]+"));
                    const QString shown = cellOf(value);
                    matches = matches || cell == shown
                        || QString(cell).replace(digits, QStringLiteral("#"))
                            == QString(shown).replace(digits, QStringLiteral("#"));
                }
                // A TTL or an age read a moment apart: between the two runs' figures, give or
                // take the second that both may have rounded to.
                if (!matches && expected.size() == 2) {
                    bool ok1 = false, ok2 = false, ok3 = false;
                    const double v = cell.toDouble(&ok1), a = expected.at(0).toDouble(&ok2),
                                 b = expected.at(1).toDouble(&ok3);
                    matches = ok1 && ok2 && ok3 && v >= std::min(a, b) - 1000 && v <= std::max(a, b) + 1000;
                }
                QVERIFY2(matches,
                         qPrintable(QStringLiteral("%1 %2 %3: %4 / %5")
                                        .arg(QLatin1String(format), key, header.at(c), cell,
                                             expected.join(QStringLiteral(" or ")))));
            }
        }
        for (auto it = first.cbegin(); it != first.cend(); ++it) {
            if (second.contains(it.key()))
                QVERIFY2(seen.contains(it.key()), qPrintable(it.key()));
        }
    }
}

void TestShow::slowlogTablesHoldWhatTheServerLogged()
{
    // The demo's server logs what takes over 1 ms and records latency spikes over 2 ms.
    RawConnection raw(m_demo->profile().port);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(raw.command({"DEBUG", "SLEEP", "0.01"}), RedisValue::status("OK"));
    const qint64 logged = raw.command({"SLOWLOG", "LEN"}).toInteger();
    QVERIFY(logged >= 3);

    const QJsonObject entries = document({QStringLiteral("slowlog")});
    QVERIFY(entries.value(QStringLiteral("records")).toArray().size() >= logged);
    QCOMPARE(entries.value(QStringLiteral("coverage")).toObject().value(QStringLiteral("table")).toString(),
             QStringLiteral("entries"));

    // The per-command table: the sleeps on one row, counted and timed as the entries were.
    const QJsonObject commands
        = document({QStringLiteral("slowlog"), QStringLiteral("--table"), QStringLiteral("commands")});
    QJsonObject sleep;
    for (const QJsonValue v : commands.value(QStringLiteral("records")).toArray()) {
        if (v.toObject().value(QStringLiteral("command")).toString() == QLatin1String("DEBUG SLEEP"))
            sleep = v.toObject();
    }
    QVERIFY2(!sleep.isEmpty(), QJsonDocument(commands).toJson().constData());
    qint64 sleeps = 0;
    for (const QJsonValue v : entries.value(QStringLiteral("records")).toArray())
        sleeps += v.toObject().value(QStringLiteral("command")).toString().startsWith(QLatin1String("DEBUG SLEEP")) ? 1
                                                                                                                    : 0;
    QCOMPARE(qint64(sleep.value(QStringLiteral("count_value")).toDouble()), sleeps);
    QVERIFY(sleep.value(QStringLiteral("max_value")).toDouble() >= 10); // ms
    QString problems = validate(QStringLiteral("slowlog"), QJsonDocument(commands).toJson(), QStringLiteral("json"));
    QVERIFY2(problems.isEmpty(), qPrintable(problems));

    // The latency monitor: a 10 ms sleep is a "command" spike over the 2 ms threshold.
    const qsizetype eventsBefore = raw.command({"LATENCY", "LATEST"}).size();
    const QJsonObject latency
        = document({QStringLiteral("slowlog"), QStringLiteral("--table"), QStringLiteral("latency")});
    QCOMPARE(latency.value(QStringLiteral("coverage")).toObject().value(QStringLiteral("latency_threshold_ms")).toInt(),
             2);
    QStringList events;
    for (const QJsonValue v : latency.value(QStringLiteral("records")).toArray())
        events.append(v.toObject().value(QStringLiteral("event")).toString());
    QVERIFY2(events.contains(QStringLiteral("command")), qPrintable(events.join(u',')));
    QVERIFY(events.size() >= eventsBefore);
    QVERIFY(events.size() <= raw.command({"LATENCY", "LATEST"}).size());
    problems = validate(QStringLiteral("slowlog"), QJsonDocument(latency).toJson(), QStringLiteral("json"));
    QVERIFY2(problems.isEmpty(), qPrintable(problems));
}

void TestShow::streamGroupMatchesTheServer()
{
    RawConnection raw(m_demo->profile().port);
    const QByteArray key = "events:orders", group = "billing";
    const QStringList open{QStringLiteral("streams"), QStringLiteral("--stream"), QString::fromLatin1(key)};

    // Groups: the names and pending counts of XINFO GROUPS.
    const QJsonObject groups = document(open);
    QHash<QString, QString> pendingOf;
    for (const QJsonValue v : groups.value(QStringLiteral("records")).toArray())
        pendingOf.insert(v.toObject().value(QStringLiteral("group")).toString(),
                         v.toObject().value(QStringLiteral("pending")).toString());
    const RedisValue info = raw.command({"XINFO", "GROUPS", key});
    QCOMPARE(pendingOf.size(), info.size());
    for (const RedisValue &g : info.elements()) {
        QByteArray name;
        qint64 pending = -1;
        for (qsizetype i = 0; i + 1 < g.size(); i += 2) {
            if (g.at(i).bytes() == "name")
                name = g.at(i + 1).bytes();
            else if (g.at(i).bytes() == "pending")
                pending = g.at(i + 1).toInteger();
        }
        QCOMPARE(pendingOf.value(QString::fromLatin1(name)), QString::number(pending));
    }
    const QJsonObject subject = groups.value(QStringLiteral("subject")).toObject();
    QCOMPARE(qint64(subject.value(QStringLiteral("length")).toDouble()), raw.command({"XLEN", key}).toInteger());

    // Consumers: XINFO CONSUMERS, names and pending counts.
    const QJsonObject consumers
        = document(open + QStringList{"--group", QString::fromLatin1(group), "--table", "consumers"});
    QHash<QString, QString> consumerPending;
    for (const QJsonValue v : consumers.value(QStringLiteral("records")).toArray())
        consumerPending.insert(v.toObject().value(QStringLiteral("consumer")).toString(),
                               v.toObject().value(QStringLiteral("pending")).toString());
    const RedisValue serverConsumers = raw.command({"XINFO", "CONSUMERS", key, group});
    QCOMPARE(consumerPending.size(), serverConsumers.size());
    for (const RedisValue &c : serverConsumers.elements())
        QCOMPARE(consumerPending.value(QString::fromLatin1(c.at(1).bytes())), QString::number(c.at(3).toInteger()));

    // The first page of pending entries, in XPENDING's order, with the panel's verdicts.
    const int page = 7;
    const QJsonObject pending = document(
        open
        + QStringList{"--group", QString::fromLatin1(group), "--table", "pending", "--limit", QString::number(page)});
    const QJsonArray rows = pending.value(QStringLiteral("records")).toArray();
    const RedisValue serverPage = raw.command({"XPENDING", key, group, "-", "+", QByteArray::number(page)});
    QCOMPARE(rows.size(), serverPage.size());
    int poison = 0;
    for (qsizetype i = 0; i < rows.size(); ++i) {
        const QJsonObject row = rows.at(i).toObject();
        const RedisValue &entry = serverPage.at(i);
        QCOMPARE(row.value(QStringLiteral("id")).toString().toLatin1(), entry.at(0).bytes());
        QCOMPARE(row.value(QStringLiteral("consumer")).toString().toLatin1(), entry.at(1).bytes());
        const qint64 deliveries = entry.at(3).toInteger();
        QCOMPARE(row.value(QStringLiteral("deliveries")).toString(), QString::number(deliveries));
        const bool gone = raw.command({"XRANGE", key, entry.at(0).bytes(), entry.at(0).bytes()}).size() == 0;
        const QString state = row.value(QStringLiteral("state")).toString();
        QVERIFY2(state.contains(QLatin1String("poison")) == (deliveries > 5), qPrintable(state));
        QVERIFY2(state.contains(QLatin1String("deleted")) == gone, qPrintable(state));
        poison += deliveries > 5 ? 1 : 0;
    }
    QVERIFY(poison > 0); // the demo's billing group has poison entries
    const QJsonObject summary = pending.value(QStringLiteral("subject")).toObject();
    QCOMPARE(qint64(summary.value(QStringLiteral("pending")).toDouble()),
             raw.command({"XPENDING", key, group}).at(0).toInteger());
    const QJsonObject coverage = pending.value(QStringLiteral("coverage")).toObject();
    QCOMPARE(coverage.value(QStringLiteral("pending_page_size")).toInt(), page);
    QCOMPARE(coverage.value(QStringLiteral("more_pending")).toBool(),
             summary.value(QStringLiteral("pending")).toInt() > page);
}

void TestShow::streamReadErrorsExitOne()
{
    // The connection worked, the read did not: exit 1, one line saying what is missing.
    const struct
    {
        QStringList args;
        const char *says;
    } cases[] = {
        {{"streams", "--stream", "no:such:stream"}, "no such key"},
        {{"streams", "--stream", "lock:migration:schema-v42"}, "cannot read the stream"},
        {{"streams", "--stream", "events:orders", "--group", "nobody"},
         "has no group nobody (groups: analytics, billing)"},
    };
    for (const auto &c : cases) {
        const Run r = show(c.args + at());
        QVERIFY2(r.code == 1, qPrintable(QStringLiteral("exit %1: %2").arg(r.code).arg(QString::fromUtf8(r.err))));
        QCOMPARE(r.out, QByteArray());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(r.err.contains(c.says), r.err.constData());
    }
}

void TestShow::errorsExitTwo_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("says");
    // A port nobody listens on: the test server's, once stopped.
    quint16 dead = 0;
    {
        TestServer s;
        if (s.start())
            dead = s.port();
    }
    QTest::newRow("dead port") << QStringList{"keys", "-p", QString::number(dead), "--connect-timeout", "2000"}
                               << "cannot connect";
    QTest::newRow("bad uri") << QStringList{"keys", "redis://host:notaport"} << "port";
    QTest::newRow("unknown panel") << QStringList{"nosuchpanel"} << "unknown panel";
    QTest::newRow("no panel") << QStringList{} << "which panel";
    QTest::newRow("missing key") << QStringList{"leaderboard"} << "needs the KEY";
    QTest::newRow("missing geo key") << QStringList{"geo"} << "needs the KEY";
    QTest::newRow("bad format") << QStringList{"keys", "--format", "xml"} << "--format";
    QTest::newRow("bad limit") << QStringList{"keys", "--limit", "-3"} << "--limit";
    QTest::newRow("match where nothing scans") << QStringList{"slowlog", "--match", "a*"} << "--match";
    QTest::newRow("stream of another panel") << QStringList{"queues", "--stream", "s"} << "--stream";
    QTest::newRow("group without stream") << QStringList{"streams", "--group", "g"} << "--group";
    QTest::newRow("match with one stream") << QStringList{"streams", "--stream", "s", "--match", "a*"} << "--match";
    QTest::newRow("empty stream") << QStringList{"streams", "--stream", ""} << "--stream";
}

void TestShow::errorsExitTwo()
{
    QFETCH(QStringList, args);
    QFETCH(QString, says);
    const Run r = show(args, 30000);
    QCOMPARE(r.code, 2);
    QCOMPARE(r.out, QByteArray());
    QVERIFY2(r.err.startsWith("redislens: "), r.err.constData());
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY2(QString::fromUtf8(r.err).contains(says), r.err.constData());
}

void TestShow::progressOnATerminal()
{
    const QString script = QStandardPaths::findExecutable(QStringLiteral("script"));
    if (script.isEmpty())
        QSKIP("script (util-linux) is not installed");
    // stderr on a pty, stdout to a file: the bar goes to the terminal only.
    const QString out = m_home.filePath(QStringLiteral("pty-out.json"));
    const QString line = QStringLiteral("'%1' show keys -p %2 > '%3'")
                             .arg(QStringLiteral(REDISLENS_APP_PATH))
                             .arg(m_demo->profile().port)
                             .arg(out);
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_home.path() + QStringLiteral("/config"));
    p.setProcessEnvironment(env);
    p.start(script, {QStringLiteral("-qfec"), line, QStringLiteral("/dev/null")});
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitCode(), 0);
    const QByteArray terminal = p.readAllStandardOutput();
    QVERIFY2(terminal.contains("keys/s"), terminal.constData());
    QVERIFY(terminal.contains("\r\033[K"));
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray json = f.readAll();
    QVERIFY(!json.contains("keys/s"));
    QVERIFY(!QJsonDocument::fromJson(json).isNull());
}

void TestShow::progressForced()
{
    const Run r = show(QStringList{QStringLiteral("keys"), QStringLiteral("--progress"), QStringLiteral("--format"),
                                   QStringLiteral("jsonl")}
                       + at());
    QCOMPARE(r.code, 0);
    QVERIFY2(r.err.contains("scanning") && r.err.contains("keys/s"), r.err.constData());
    QVERIFY(!r.out.contains("keys/s"));
}

void TestShow::demoOption()
{
    const Run r
        = show({QStringLiteral("keys"), QStringLiteral("--demo"), QStringLiteral("--match"), QStringLiteral("lock:*")});
    QVERIFY2(r.code == 0, r.err.constData());
    QCOMPARE(r.err, QByteArray());
    const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
    bool deadlock = false;
    for (const QJsonValue v : doc.value(QStringLiteral("records")).toArray())
        deadlock |= v.toObject().value(QStringLiteral("key")).toString() == QLatin1String("lock:migration:schema-v42");
    QVERIFY(deadlock);
    // The demo's server went with the command.
    const QString uri = doc.value(QStringLiteral("uri")).toString();
    QVERIFY(uri.startsWith(QStringLiteral("redis://127.0.0.1:")));
}

void TestShow::passwordNeverPrinted()
{
    const QString password = QStringLiteral("pw-%1").arg(QDateTime::currentMSecsSinceEpoch());
    TestServer secured({QStringLiteral("--requirepass"), password});
    QVERIFY(secured.start());
    const QString uri = QStringLiteral("redis://:%1@127.0.0.1:%2/0").arg(password).arg(secured.port());
    const Run r = show({QStringLiteral("keys"), uri});
    QVERIFY2(r.code == 0, r.err.constData());
    QVERIFY(!r.out.contains(password.toUtf8()));
    QVERIFY(!r.err.contains(password.toUtf8()));
    const Run wrong = show(
        {QStringLiteral("keys"), QStringLiteral("redis://:wrong-%1@127.0.0.1:%2/0").arg(password).arg(secured.port())});
    QCOMPARE(wrong.code, 2);
    QVERIFY(!wrong.err.contains(password.toUtf8()));
}

void TestShow::helpNamesShow()
{
    QProcess p;
    p.start(QStringLiteral(REDISLENS_APP_PATH), {QStringLiteral("--help")});
    QVERIFY(p.waitForFinished(30000));
    QVERIFY(p.readAllStandardOutput().contains("redislens show"));
    const Run r = show({QStringLiteral("--help")});
    QCOMPARE(r.code, 0);
    for (const char *word : {"--format", "--match", "--limit", "jsonl", "markdown", "leaderboard", "caches"})
        QVERIFY2(r.out.contains(word), word);
}

QTEST_GUILESS_MAIN(TestShow)
void TestShow::panelNeedsNameWhatPanelsSend_data()
{
    QTest::addColumn<QString>("panel");
    QTest::addColumn<QStringList>("extra");
    QTest::newRow("keys") << QStringLiteral("keys") << QStringList();
    QTest::newRow("overview") << QStringLiteral("overview") << QStringList();
    QTest::newRow("ttl") << QStringLiteral("ttl") << QStringList();
    QTest::newRow("slowlog") << QStringLiteral("slowlog") << QStringList();
    QTest::newRow("memory") << QStringLiteral("memory") << QStringList();
    QTest::newRow("caches") << QStringLiteral("caches") << QStringList();
    QTest::newRow("sessions") << QStringLiteral("sessions") << QStringList();
    QTest::newRow("ratelimits") << QStringLiteral("ratelimits") << QStringList();
    QTest::newRow("locks") << QStringLiteral("locks") << QStringList();
    QTest::newRow("queues") << QStringLiteral("queues") << QStringList();
    QTest::newRow("queues --jobs") << QStringLiteral("queues") << QStringList{"--jobs", "failed"};
    QTest::newRow("streams") << QStringLiteral("streams") << QStringList();
    QTest::newRow("streams --group") << QStringLiteral("streams")
                                     << QStringList{"--stream", "events:orders", "--group", "billing"};
    QTest::newRow("leaderboard") << QStringLiteral("leaderboard") << QStringList{m_weekly};
    QTest::newRow("geo") << QStringLiteral("geo") << QStringList{"geo:cities"};
    QTest::newRow("topology") << QStringLiteral("topology") << QStringList();
}

// What `check` and the window ask the server about a panel is what the panel sends: every
// command the server counted while `show` read the panel is among the panel's needs (or the
// connection's own). A command a panel starts to send without a need here fails this.
void TestShow::panelNeedsNameWhatPanelsSend()
{
    QFETCH(QString, panel);
    QFETCH(QStringList, extra);
    RawConnection raw(m_demo->profile().port);
    QVERIFY(raw.command({"CONFIG", "RESETSTAT"}).isString());
    const Run r = show(QStringList{panel} + extra + at());
    QVERIFY2(r.code == 0, r.err.constData());
    QSet<QString> allowed;
    for (const panelneeds::Need &n : panelneeds::of(panel))
        allowed.insert(panelneeds::aclRule(n.argv).mid(1));
    for (const QList<QByteArray> &c : panelneeds::connection())
        allowed.insert(panelneeds::aclRule(c).mid(1));
    allowed.insert(QStringLiteral("config|resetstat")); // this test's own
    QStringList unnamed;
    const QHash<QByteArray, qint64> calls = commandCalls(raw);
    for (auto it = calls.cbegin(); it != calls.cend(); ++it) {
        if (it.value() > 0 && !allowed.contains(QString::fromLatin1(it.key())))
            unnamed.append(QString::fromLatin1(it.key()));
    }
    unnamed.sort();
    QVERIFY2(unnamed.isEmpty(),
             qPrintable(QStringLiteral("%1 sends, without a need: %2").arg(panel, unnamed.join(QLatin1String(", ")))));
}

#include "tst_show.moc"
