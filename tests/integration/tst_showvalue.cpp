// SPDX-License-Identifier: GPL-3.0-or-later
// `redislens show value KEY`: values real writers encoded (tests/fixtures/decoders/
// seed_values.py: gzip, zstandard, brotli, msgpack, cbor2, pickle, base64 + zlib) in strings,
// hash fields, list elements, sorted-set members and stream fields, read from a real
// redis-server and printed decoded as the writer meant them, secrets masked, the raw bytes of a
// value with secrets withheld; --decode none and named steps; a rule's steps; errors; and the
// read-only proof (INFO commandstats, DEBUG DIGEST).
#include "commandstats.h"
#include "processrun.h"
#include "testserver.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

class TestShowValue : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void decodesWhatTheWritersWrote_data();
    void decodesWhatTheWritersWrote();
    void secretsStayMasked();
    void noneAndNamedSteps();
    void ruleStepsDecode();
    void errors_data();
    void errors();
    void readsOnly();

private:
    ProcessRun show(const QStringList &args) const
    {
        return runProgram(QStringLiteral(REDISLENS_APP_PATH),
                          QStringList{QStringLiteral("show"), QStringLiteral("value")} + args
                              + QStringList{QStringLiteral("-p"), QString::number(m_server.port())},
                          60000, isolatedEnvironment(m_home.path()));
    }
    // The json document, validated against docs/schemas/show-value.schema.json.
    QJsonObject document(const QStringList &args)
    {
        const ProcessRun r = show(args);
        if (r.code != 0) {
            qWarning("show value %s: exit %d: %s", qPrintable(args.join(u' ')), r.code, r.err.constData());
            return {};
        }
        const QString invalid
            = validateAgainstSchema(QStringLiteral("show-value.schema.json"), r.out, QStringLiteral("json"),
                                    m_home.filePath(QStringLiteral("out.json")));
        if (!invalid.isEmpty()) {
            qWarning("%s", qPrintable(invalid));
            return {};
        }
        return QJsonDocument::fromJson(r.out).object();
    }
    static QJsonValue decoded(const QJsonValue &record)
    {
        if (record[QStringLiteral("decoded")].isNull())
            return QJsonValue::Null;
        const QByteArray text = record[QStringLiteral("decoded")].toString().toUtf8();
        return QJsonDocument::fromJson("[" + text + "]").array().at(0);
    }

    TestServer m_server;
    QTemporaryDir m_home;
    QJsonObject m_truth;
};

void TestShowValue::initTestCase()
{
    QVERIFY(m_home.isValid());
    QString error;
    QVERIFY2(m_server.start(&error), qPrintable(error));
    const ProcessRun seed = runPythonFixture(QStringLiteral("decoders/seed_values.py"),
                                             {QStringLiteral("--port"), QString::number(m_server.port())});
    QVERIFY2(seed.code == 0, seed.err.constData());
    m_truth = QJsonDocument::fromJson(seed.out).object();
    QVERIFY(m_truth.size() >= 8);
}

void TestShowValue::decodesWhatTheWritersWrote_data()
{
    QTest::addColumn<QString>("key");
    for (const QString &key : {QStringLiteral("cache:page"), QStringLiteral("bin:\\x00\\xff"),
                               QStringLiteral("jobs:encoded"), QStringLiteral("z:cbor"), QStringLiteral("user:1")})
        QTest::newRow(qPrintable(key)) << key;
}

// Every record's decoded value equals what its writer wrote, in the key's order.
void TestShowValue::decodesWhatTheWritersWrote()
{
    QFETCH(QString, key);
    const QJsonObject doc = document({key});
    QVERIFY(!doc.isEmpty());
    const QJsonObject truth = m_truth.value(key).toObject();
    const QJsonArray records = doc.value(QStringLiteral("records")).toArray();
    QCOMPARE(doc[QStringLiteral("subject")][QStringLiteral("key")].toString(), key);
    QCOMPARE(doc[QStringLiteral("coverage")][QStringLiteral("complete")].toBool(), true);
    if (truth.contains(QStringLiteral("fields"))) {
        const QJsonObject fields = truth.value(QStringLiteral("fields")).toObject();
        QCOMPARE(records.size(), fields.size());
        for (const QJsonValue r : records) {
            const QString name = r[QStringLiteral("name")].toString();
            QVERIFY2(fields.contains(name), qPrintable(name));
            QCOMPARE(decoded(r), fields.value(name));
        }
        return;
    }
    const QJsonArray expected = truth.value(QStringLiteral("decoded")).toArray();
    QCOMPARE(records.size(), expected.size());
    for (qsizetype i = 0; i < records.size(); ++i) {
        const QJsonValue r = records.at(i);
        QCOMPARE(decoded(r), expected.at(i));
        if (!expected.at(i).isNull())
            QCOMPARE(r[QStringLiteral("chain")].toString(), truth.value(QStringLiteral("chain")).toString());
        else
            QVERIFY(r[QStringLiteral("chain")].isNull());
        QVERIFY(r[QStringLiteral("error")].isNull());
    }
    if (key == QLatin1String("jobs:encoded"))
        QCOMPARE(records.at(3)[QStringLiteral("value")].toString(), QStringLiteral("not encoded"));
    if (key == QLatin1String("z:cbor")) {
        QCOMPARE(records.at(0)[QStringLiteral("score")].toDouble(), 0.5);
        QCOMPARE(records.at(1)[QStringLiteral("position")].toInt(), 1);
    }
}

// A secret found by decoding is masked in the decoded value, and the raw bytes that hold it are
// withheld; a secret-named hash field is masked raw. No format prints a secret.
void TestShowValue::secretsStayMasked()
{
    for (const QString &key : {QStringLiteral("cache:token"), QStringLiteral("user:1"), QStringLiteral("st:logins")}) {
        const QString secret = m_truth.value(key)[QStringLiteral("secret")].toString();
        QVERIFY(!secret.isEmpty());
        for (const char *format : {"json", "jsonl", "tsv", "markdown"}) {
            const ProcessRun r = show({key, QStringLiteral("--format"), QString::fromLatin1(format)});
            QCOMPARE(r.code, 0);
            QVERIFY2(!r.out.contains(secret.toUtf8()), r.out.constData());
            QVERIFY2(r.out.contains("••••••"), r.out.constData());
        }
    }
    const QJsonObject token = document({QStringLiteral("cache:token")});
    const QJsonValue record = token[QStringLiteral("records")].toArray().at(0);
    QVERIFY(record[QStringLiteral("value")].isNull());
    QCOMPARE(record[QStringLiteral("secrets")].toInt(), 1);
    QCOMPARE(token[QStringLiteral("coverage")][QStringLiteral("raw_withheld")].toInt(), 1);
    QCOMPARE(decoded(record)[QStringLiteral("user")].toInt(), 5);

    const QJsonObject logins = document({QStringLiteral("st:logins")});
    const QJsonArray fields = logins[QStringLiteral("records")].toArray();
    QCOMPARE(fields.size(), 2);
    QCOMPARE(fields.at(0)[QStringLiteral("field")].toString(), QStringLiteral("session"));
    QVERIFY(!fields.at(0)[QStringLiteral("name")].toString().isEmpty()); // the entry id
    QCOMPARE(decoded(fields.at(0))[QStringLiteral("$type")].toString(), QStringLiteral("__main__.Session"));
    QCOMPARE(decoded(fields.at(0))[QStringLiteral("user_id")].toInt(), 9);
}

void TestShowValue::noneAndNamedSteps()
{
    // none: the raw value only.
    const QJsonObject raw
        = document({QStringLiteral("cache:page"), QStringLiteral("--decode"), QStringLiteral("none")});
    QCOMPARE(raw[QStringLiteral("coverage")][QStringLiteral("decode")].toString(), QStringLiteral("none"));
    const QJsonValue r = raw[QStringLiteral("records")].toArray().at(0);
    QVERIFY(r[QStringLiteral("chain")].isNull() && r[QStringLiteral("decoded")].isNull());
    QVERIFY(r[QStringLiteral("value")].toString().startsWith(QLatin1String("\\x1f\\x8b")));

    // Brotli has no magic: detection leaves it, the steps named decode it.
    const QJsonObject detected = document({QStringLiteral("br:board")});
    QVERIFY(detected[QStringLiteral("records")].toArray().at(0)[QStringLiteral("chain")].isNull());
    const QJsonObject named
        = document({QStringLiteral("br:board"), QStringLiteral("--decode"), QStringLiteral("brotli,json")});
    const QJsonValue n = named[QStringLiteral("records")].toArray().at(0);
    QCOMPARE(n[QStringLiteral("chain")].toString(), QStringLiteral("Brotli → JSON"));
    QCOMPARE(decoded(n), m_truth[QStringLiteral("br:board")][QStringLiteral("decoded")].toArray().at(0));

    // Steps that do not fit: where and why each stopped, the raw value kept.
    const QJsonObject wrong
        = document({QStringLiteral("jobs:encoded"), QStringLiteral("--decode"), QStringLiteral("gzip")});
    for (const QJsonValue e : wrong[QStringLiteral("records")].toArray()) {
        QVERIFY2(e[QStringLiteral("error")].toString().startsWith(QLatin1String("gzip stopped at byte ")),
                 qPrintable(e[QStringLiteral("error")].toString()));
        QVERIFY(!e[QStringLiteral("value")].toString().isEmpty());
    }
    // --decode belongs to value alone.
    const ProcessRun other
        = runProgram(QStringLiteral(REDISLENS_APP_PATH),
                     {QStringLiteral("show"), QStringLiteral("keys"), QStringLiteral("--decode"),
                      QStringLiteral("gzip"), QStringLiteral("-p"), QString::number(m_server.port())},
                     60000, isolatedEnvironment(m_home.path()));
    QCOMPARE(other.code, 2);
    QVERIFY2(other.err.contains("--decode decodes one key's value"), other.err.constData());
}

// rules.json's first rule naming steps for the key decodes it (the user's config directory).
void TestShowValue::ruleStepsDecode()
{
    QVERIFY(QDir().mkpath(m_home.filePath(QStringLiteral("config/RedisLens/redislens"))));
    QFile rules(m_home.filePath(QStringLiteral("config/RedisLens/redislens/rules.json")));
    QVERIFY(rules.open(QIODevice::WriteOnly));
    rules.write(R"({"version": 2, "rules": [
      {"glob": "cache:*", "kind": "cache"},
      {"glob": "br:*", "type": "string", "decode": ["brotli", "json"]}]})");
    rules.close();
    const QJsonObject doc = document({QStringLiteral("br:board")});
    QVERIFY(QFile::remove(rules.fileName()));
    QCOMPARE(doc[QStringLiteral("coverage")][QStringLiteral("decode_rule")].toInt(), 2);
    QCOMPARE(doc[QStringLiteral("coverage")][QStringLiteral("decode")].toString(), QStringLiteral("brotli,json"));
    QCOMPARE(decoded(doc[QStringLiteral("records")].toArray().at(0)),
             m_truth[QStringLiteral("br:board")][QStringLiteral("decoded")].toArray().at(0));
}

void TestShowValue::errors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message");
    QTest::newRow("no key") << QStringList{} << 2 << "value needs the KEY";
    QTest::newRow("unknown step") << QStringList{"cache:page", "--decode", "gzip,lzma"} << 2
                                  << "--decode: unknown step 'lzma'";
    QTest::newRow("structure not last") << QStringList{"cache:page", "--decode", "json,gzip"} << 2
                                        << "json reads a structure";
    QTest::newRow("missing key") << QStringList{"no:such"} << 1 << "no key no:such";
    QTest::newRow("bad escape") << QStringList{"bad\\xZZ"} << 2 << "KEY: ";
}

void TestShowValue::errors()
{
    QFETCH(QStringList, args);
    QFETCH(int, code);
    QFETCH(QString, message);
    const ProcessRun r = show(args);
    QCOMPARE(r.code, code);
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
    QVERIFY(r.out.isEmpty());
}

// Showing every key's value, --read-only, writes nothing: no writing command in INFO
// commandstats, the same DEBUG DIGEST before and after.
void TestShowValue::readsOnly()
{
    RawConnection raw(m_server.port());
    const QByteArray digest = raw.command({"DEBUG", "DIGEST"}).bytes();
    const QHash<QByteArray, qint64> before = commandCalls(raw);
    for (const QString &key : m_truth.keys())
        QCOMPARE(show({key, QStringLiteral("--read-only")}).code, 0);
    const QHash<QByteArray, qint64> after = commandCalls(raw);
    static const QSet<QByteArray> reads{"type",    "pttl",   "strlen", "getrange", "hlen",      "hscan",  "llen",
                                        "lrange",  "zcard",  "zrange", "xlen",     "xrevrange", "object", "scard",
                                        "sscan",   "client", "info",   "command",  "hello",     "ping",   "select",
                                        "pfcount", "memory", "config", "debug",    "get",       "exists", "readonly"};
    for (auto it = after.constBegin(); it != after.constEnd(); ++it) {
        if (it.value() == before.value(it.key()))
            continue;
        QVERIFY2(reads.contains(it.key().split('|').constFirst()), it.key().constData());
    }
    QCOMPARE(raw.command({"DEBUG", "DIGEST"}).bytes(), digest);
}

QTEST_GUILESS_MAIN(TestShowValue)
#include "tst_showvalue.moc"
