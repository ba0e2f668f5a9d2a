// SPDX-License-Identifier: GPL-3.0-or-later
#include "patternrules.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QSaveFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

// The user's pattern rules: the file format (versions 1 and 2), errors that name their line,
// matching, saving that never destroys a hand-edited file, and the watched file that follows
// edits on disk and keeps the previous rules when the file breaks.
namespace {
constexpr int kWaitMs = 10000;

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

const QByteArray kTwoRules
    = "{\"version\": 2, \"rules\": [\n"
      "  {\"glob\": \"lock:*\", \"type\": \"string\", \"kind\": \"lock\", \"params\": {\"ttl_ms\": 30000}},\n"
      "  {\"glob\": \"rate:*\", \"kind\": \"fixed-window\", \"params\": {\"limit\": 100}}\n"
      "]}\n";
} // namespace

class TestPatternRules : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parseVersion1();
    void parseVersion2();
    void kindIdsRoundTrip();
    void serializeRoundTrip();
    void errors_data();
    void errors();
    void match();
    void decodeRules();
    void params_data();
    void params();
    void paramsRefused_data();
    void paramsRefused();
    void loadAndSave();
    void malformedFileUntouched();
    void model();
    void fileReloadsOnWrite();
    void fileKeepsRulesWhenBroken();
    void fileAtomicReplace();
    void fileCreatedLater();
    void fileSaveAppliesAtOnce();
    void fileInDirectoryCreatedLater();
};

void TestPatternRules::parseVersion1()
{
    // What QueueRules wrote before rules knew other patterns: version 1, queue kinds, no params.
    const QByteArray v1 = "{\n    \"rules\": [\n        {\n            \"glob\": \"bin\\\\x00\\\\xff*\",\n"
                          "            \"kind\": \"queue\",\n            \"note\": \"binary\",\n"
                          "            \"type\": \"list\"\n        },\n"
                          "        {\n            \"glob\": \"sched:*\",\n            \"kind\": \"delayed\",\n"
                          "            \"type\": \"zset\"\n        },\n"
                          "        {\"glob\": \"w:*\", \"kind\": \"processing\", \"type\": \"list\"},\n"
                          "        {\"glob\": \"a\\\\\\\\*b\", \"kind\": \"none\", \"type\": \"any\"}\n"
                          "    ],\n    \"version\": 1\n}\n";
    QList<PatternRule> rules;
    QString error;
    QVERIFY2(PatternRules::parse(v1, &rules, &error), qPrintable(error));
    QCOMPARE(rules.size(), 4);
    QCOMPARE(rules.at(0).glob, QByteArray("bin\x00\xff*", 6));
    QCOMPARE(rules.at(0).type, KeyType::List);
    QCOMPARE(rules.at(0).kind, PatternKind::ListQueue);
    QCOMPARE(rules.at(0).note, QStringLiteral("binary"));
    QCOMPARE(rules.at(0).line, 3);
    QCOMPARE(rules.at(1).kind, PatternKind::DelayedJobs);
    QCOMPARE(rules.at(1).type, KeyType::ZSet);
    QCOMPARE(rules.at(1).line, 9);
    QCOMPARE(rules.at(2).kind, PatternKind::ProcessingList);
    QCOMPARE(rules.at(2).line, 14);
    QCOMPARE(rules.at(3).glob, QByteArray("a\\*b"));
    QCOMPARE(rules.at(3).kind, PatternKind::Unknown);
    QCOMPARE(rules.at(3).type, KeyType::Unknown);
    QVERIFY(rules.at(3).params.isEmpty());

    // The oldest shape: a bare array.
    QVERIFY2(PatternRules::parse("[{\"glob\": \"q:*\", \"kind\": \"queue\"}]", &rules, &error), qPrintable(error));
    QCOMPARE(rules.size(), 1);
    QCOMPARE(rules.at(0).kind, PatternKind::ListQueue);

    // An empty file (an editor just created it) has no rules, and is no error.
    QVERIFY(PatternRules::parse(" \n", &rules, &error));
    QVERIFY(rules.isEmpty());
}

void TestPatternRules::parseVersion2()
{
    QList<PatternRule> rules;
    QString error;
    QVERIFY2(PatternRules::parse(kTwoRules, &rules, &error), qPrintable(error));
    QCOMPARE(rules.size(), 2);
    QCOMPARE(rules.at(0).glob, QByteArray("lock:*"));
    QCOMPARE(rules.at(0).type, KeyType::String);
    QCOMPARE(rules.at(0).kind, PatternKind::Lock);
    QCOMPARE(rules.at(0).params.value(QStringLiteral("ttl_ms")), QVariant::fromValue(qint64(30000)));
    QCOMPARE(rules.at(0).line, 2);
    QCOMPARE(rules.at(1).type, KeyType::Unknown); // no type: any
    QCOMPARE(rules.at(1).kind, PatternKind::FixedWindow);
    QCOMPARE(rules.at(1).line, 3);

    // Numbers stay numbers (integers as integers), strings stay strings.
    QVERIFY2(PatternRules::parse(R"({"version":2,"rules":[{"glob":"tb:*","kind":"token-bucket",
        "params":{"limit":20,"refill_per_s":0.5,"owner":"billing","window_ms":1e3}}]})",
                                 &rules, &error),
             qPrintable(error));
    const QVariantMap p = rules.at(0).params;
    QCOMPARE(p.value(QStringLiteral("limit")).typeId(), int(QMetaType::LongLong));
    QCOMPARE(p.value(QStringLiteral("limit")).toLongLong(), 20);
    QCOMPARE(p.value(QStringLiteral("window_ms")).toLongLong(), 1000);
    QCOMPARE(p.value(QStringLiteral("refill_per_s")).typeId(), int(QMetaType::Double));
    QCOMPARE(p.value(QStringLiteral("refill_per_s")).toDouble(), 0.5);
    QCOMPARE(p.value(QStringLiteral("owner")).toString(), QStringLiteral("billing"));
}

void TestPatternRules::kindIdsRoundTrip()
{
    QSet<QByteArray> ids;
    QList<PatternRule> all;
    for (int k = 0; k < kPatternKindCount; ++k) {
        const auto kind = PatternKind(k);
        const QByteArray id = patternKindId(kind);
        QVERIFY2(!id.isEmpty(), qPrintable(QString::number(k)));
        QVERIFY2(!ids.contains(id), id.constData());
        ids.insert(id);
        QCOMPARE(patternKindFromId(id), std::optional<PatternKind>(kind));
        all.append({"k" + id + ":*", KeyType::Unknown, kind, {}, {}, 0});
    }
    QVERIFY(!patternKindFromId("lok"));
    // The spellings rules.json had before it knew other patterns.
    QCOMPARE(patternKindFromId("queue"), std::optional<PatternKind>(PatternKind::ListQueue));
    QCOMPARE(patternKindFromId("processing"), std::optional<PatternKind>(PatternKind::ProcessingList));
    QCOMPARE(patternKindFromId("delayed"), std::optional<PatternKind>(PatternKind::DelayedJobs));
    QCOMPARE(patternKindFromId("none"), std::optional<PatternKind>(PatternKind::Unknown));

    QList<PatternRule> back;
    QString error;
    QVERIFY2(PatternRules::parse(PatternRules::serialize(all), &back, &error), qPrintable(error));
    QCOMPARE(back, all);
}

void TestPatternRules::serializeRoundTrip()
{
    const QList<PatternRule> rules{
        {QByteArray("bin\x00\xff*", 6), KeyType::List, PatternKind::ListQueue, {}, QStringLiteral("binary"), 0},
        {"a\\*b \"quoted\"", KeyType::Unknown, PatternKind::Unknown, {}, {}, 0},
        {"rate:api:*",
         KeyType::String,
         PatternKind::FixedWindow,
         {{QStringLiteral("limit"), QVariant::fromValue(qint64(100))},
          {QStringLiteral("window_ms"), QVariant::fromValue(qint64(60000))},
          {QStringLiteral("owner"), QStringLiteral("api, \"edge\"")},
          {QStringLiteral("ratio"), 0.25}},
         QStringLiteral("é, ünïcode"),
         0},
        {"sess:*", KeyType::Hash, PatternKind::Session, {}, {}, 0},
    };
    const QByteArray text = PatternRules::serialize(rules);
    QList<PatternRule> back;
    QString error;
    QVERIFY2(PatternRules::parse(text, &back, &error), qPrintable(error + QLatin1Char('\n') + QString::fromUtf8(text)));
    QCOMPARE(back, rules);
    // Stable: the same rules give the same bytes, so an unchanged save is no diff.
    QCOMPARE(PatternRules::serialize(back), text);
    // Version 2, one rule per line in a fixed field order, UTF-8 kept readable.
    QVERIFY(text.startsWith(
        "{\n  \"version\": 2,\n  \"rules\": [\n    {\"glob\": \"bin\\\\x00\\\\xff*\", \"type\": \"list\", "
        "\"kind\": \"queue\", \"note\": \"binary\"},\n"));
    QVERIFY2(text.contains("{\"glob\": \"rate:api:*\", \"type\": \"string\", \"kind\": \"fixed-window\", \"params\": "
                           "{\"limit\": 100, \"owner\": \"api, \\\"edge\\\"\", \"ratio\": 0.25, \"window_ms\": 60000}, "
                           "\"note\": \"é, ünïcode\"}"),
             text.constData());
    for (int i = 0; i < back.size(); ++i)
        QCOMPARE(back.at(i).line, 4 + i);
    QCOMPARE(PatternRules::serialize({}), QByteArray("{\n  \"version\": 2,\n  \"rules\": []\n}\n"));
}

void TestPatternRules::errors_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("message");
    QTest::newRow("JSON syntax on line 5") << QByteArray("{\n  \"version\": 2,\n  \"rules\": [\n"
                                                         "    {\"glob\": \"a:*\", \"kind\": \"lock\"},\n"
                                                         "    {\"glob\": \"b:*\" \"kind\": \"lock\"}\n  ]\n}\n")
                                           << 5 << QStringLiteral("JSON error");
    QTest::newRow("unknown kind on line 7") << QByteArray(
        "{\n  \"version\": 2,\n  \"rules\": [\n    {\"glob\": \"a:*\", \"kind\": \"lock\"},\n"
        "    {\"glob\": \"b:*\", \"kind\": \"session\"},\n    {\"glob\": \"c:*\", \"kind\": \"cache\"},\n"
        "    {\"glob\": \"d:*\", \"kind\": \"lok\"},\n    {\"glob\": \"e:*\", \"kind\": \"lock\"}\n  ]\n}\n")
                                            << 7 << QStringLiteral("unknown kind \"lok\" (known: lock, fixed-window, ");
    QTest::newRow("missing glob on line 4")
        << QByteArray("{\"version\": 2,\n \"rules\": [\n  {\"glob\": \"a:*\", \"kind\": \"lock\"},\n"
                      "  {\n   \"kind\": \"lock\"\n  }\n ]}")
        << 4 << QStringLiteral("rule needs a glob");
    QTest::newRow("empty glob") << QByteArray("{\"rules\": [{\"glob\": \"\", \"kind\": \"lock\"}]}") << 1
                                << QStringLiteral("rule needs a glob");
    QTest::newRow("bad glob escape") << QByteArray("{\"rules\": [\n{\"glob\": \"a\\\\xZZ\", \"kind\": \"lock\"}]}") << 2
                                     << QStringLiteral("glob: ");
    QTest::newRow("missing kind") << QByteArray("{\"rules\": [\n\n{\"glob\": \"a\"}]}") << 3
                                  << QStringLiteral("rule needs a kind (known: lock");
    QTest::newRow("params not an object")
        << QByteArray("{\"rules\": [\n{\"glob\": \"a\", \"kind\": \"lock\"},\n{\"glob\": \"r\", \"kind\": "
                      "\"fixed-window\", \"params\": [100]}]}")
        << 3 << QStringLiteral("params must be an object");
    QTest::newRow("param is a list") << QByteArray("{\"rules\": [\n{\"glob\": \"r\", \"kind\": \"fixed-window\",\n"
                                                   " \"params\": {\"limit\": [1, 2]}}]}")
                                     << 2 << QStringLiteral("params.limit must be a number or a string");
    QTest::newRow("limit not a number") << QByteArray("{\"rules\": [{\"glob\": \"r\", \"kind\": \"fixed-window\", "
                                                      "\"params\": {\"limit\": \"lots\"}}]}")
                                        << 1 << QStringLiteral("params.limit must be a number");
    QTest::newRow("negative window") << QByteArray("{\"rules\": [{\"glob\": \"r\", \"kind\": \"fixed-window\", "
                                                   "\"params\": {\"window_ms\": -5}}]}")
                                     << 1 << QStringLiteral("params.window_ms must be a number ≥ 0");
    QTest::newRow("unknown type") << QByteArray(
        "{\"rules\": [\n {\"glob\": \"r\", \"type\": \"lst\", \"kind\": \"lock\"}]}")
                                  << 2 << QStringLiteral("unknown type \"lst\" (known: any, string, list");
    QTest::newRow("unknown field") << QByteArray(
        "{\"rules\": [\n {\"glob\": \"r\", \"kind\": \"lock\", \"prams\": {}}]}")
                                   << 2 << QStringLiteral("unknown field \"prams\"");
    QTest::newRow("rule not an object") << QByteArray(
        "{\"rules\": [\n {\"glob\": \"r\", \"kind\": \"lock\"},\n \"x\"]}")
                                        << 3 << QStringLiteral("rule 2 is not an object");
    QTest::newRow("unknown version") << QByteArray("{\n\"version\": 3,\n\"rules\": []}") << 2
                                     << QStringLiteral("version 3 is not one");
    QTest::newRow("no rules") << QByteArray("{\n\"version\": 2\n}") << 1 << QStringLiteral("expected {\"version\": 2");
    QTest::newRow("top-level typo") << QByteArray("{\"version\": 2,\n\"rules\": [],\n\"rule\": []}") << 3
                                    << QStringLiteral("unknown field \"rule\"");
    QTest::newRow("unknown decode step") << QByteArray(
        "{\"rules\": [\n {\"glob\": \"r\", \"decode\": [\"base64\", \"gzipp\"]}]}")
                                         << 2 << QStringLiteral("decode: unknown step 'gzipp' (known: gzip");
    QTest::newRow("a structure step not last")
        << QByteArray("{\"rules\": [\n {\"glob\": \"r\", \"decode\": [\"json\", \"gzip\"]}]}") << 2
        << QStringLiteral("decode: json reads a structure");
    QTest::newRow("decode not a list") << QByteArray("{\"rules\": [\n {\"glob\": \"r\", \"decode\": \"gzip\"}]}") << 2
                                       << QStringLiteral("decode must list steps");
    QTest::newRow("neither kind nor decode") << QByteArray("{\"rules\": [\n {\"glob\": \"r\", \"decode\": []}]}") << 2
                                             << QStringLiteral("decode must list steps");
    QTest::newRow("brackets in strings do not count")
        << QByteArray("{\"rules\": [\n {\"glob\": \"a[{\", \"kind\": \"lock\", \"note\": \"],\"},\n"
                      " {\"glob\": \"b\", \"kind\": \"lok\"}]}")
        << 3 << QStringLiteral("unknown kind \"lok\"");
}

void TestPatternRules::errors()
{
    QFETCH(QByteArray, json);
    QFETCH(int, line);
    QFETCH(QString, message);
    const QList<PatternRule> before{{"keep:*", KeyType::Unknown, PatternKind::Lock, {}, {}, 0}};
    QList<PatternRule> out = before;
    QString error;
    int errorLine = -1;
    QVERIFY(!PatternRules::parse(json, &out, &error, &errorLine));
    QVERIFY2(error.startsWith(QStringLiteral("line %1: ").arg(line)), qPrintable(error));
    QVERIFY2(error.contains(message), qPrintable(error));
    QVERIFY(!error.contains(QLatin1Char('\n')));
    QCOMPARE(errorLine, line);
    QCOMPARE(out, before); // left alone
}

void TestPatternRules::match()
{
    PatternRules rules;
    rules.setRules({{"lock:*", KeyType::String, PatternKind::Lock, {}, {}, 0},
                    {"lock:special", KeyType::Unknown, PatternKind::Unknown, {}, {}, 0},
                    {"*", KeyType::Hash, PatternKind::Session, {}, {}, 0},
                    {"rate:[0-9]*", KeyType::Unknown, PatternKind::FixedWindow, {}, {}, 0}});
    const PatternRule *r = rules.match("lock:special", KeyType::String);
    QVERIFY(r);
    QCOMPARE(r->kind, PatternKind::Lock); // first match wins
    QCOMPARE(rules.indexOf(r), 0);
    r = rules.match("lock:special", KeyType::List); // type decides: the second rule
    QVERIFY(r);
    QCOMPARE(rules.indexOf(r), 1);
    QCOMPARE(rules.match("anything", KeyType::Hash)->kind, PatternKind::Session);
    QVERIFY(!rules.match("anything", KeyType::Set));
    QCOMPARE(rules.match("rate:7", KeyType::String)->kind, PatternKind::FixedWindow);
    QVERIFY(!rules.match("rate:x", KeyType::String));
    // A key whose type is not known yet only meets rules for any type.
    QCOMPARE(rules.indexOf(rules.match("lock:special", KeyType::Unknown)), 1);
    QVERIFY(!rules.match("lock:x", KeyType::Unknown));
    QCOMPARE(rules.indexOf(nullptr), -1);
}

// A rule's decode steps: parsed, written back in the same order, found for the keys its glob
// and type match; a rule with steps and no kind decodes without classifying anything.
void TestPatternRules::decodeRules()
{
    const QByteArray json
        = "{\"version\": 2, \"rules\": [\n"
          " {\"glob\": \"cache:*\", \"type\": \"string\", \"decode\": [\"base64\", \"gzip\", \"json\"]},\n"
          " {\"glob\": \"cache:*\", \"kind\": \"cache\"},\n"
          " {\"glob\": \"sess:*\", \"type\": \"hash\", \"kind\": \"session\", \"decode\": [\"Zstandard\", "
          "\"msgpack\"]}\n]}";
    QList<PatternRule> parsed;
    QString error;
    QVERIFY2(PatternRules::parse(json, &parsed, &error), qPrintable(error));
    QCOMPARE(parsed.size(), 3);
    QCOMPARE(parsed.at(0).decode,
             (QList<decode::Format>{decode::Format::Base64, decode::Format::Gzip, decode::Format::Json}));
    QVERIFY(!parsed.at(0).classifies);
    QVERIFY(parsed.at(1).classifies);
    QVERIFY(parsed.at(1).decode.isEmpty());
    QCOMPARE(parsed.at(2).decode, (QList<decode::Format>{decode::Format::Zstd, decode::Format::MsgPack}));

    PatternRules rules;
    rules.setRules(parsed);
    // Classification skips the decode-only rule: the second rule classifies cache:*.
    QCOMPARE(rules.indexOf(rules.match("cache:home", KeyType::String)), 1);
    QCOMPARE(rules.indexOf(rules.decodeRule("cache:home", KeyType::String)), 0);
    QCOMPARE(rules.decodeRule("cache:home", KeyType::Hash), nullptr); // the type differs
    QCOMPARE(rules.indexOf(rules.decodeRule("sess:9", KeyType::Hash)), 2);
    QCOMPARE(rules.indexOf(rules.match("sess:9", KeyType::Hash)), 2);
    QCOMPARE(rules.decodeRule("other", KeyType::String), nullptr);

    // Written back and read again: the same rules, the steps by their names, no kind where none.
    const QByteArray written = PatternRules::serialize(parsed);
    QVERIFY2(written.contains("\"decode\": [\"base64\", \"gzip\", \"json\"]"), written.constData());
    QVERIFY2(written.contains("\"decode\": [\"zstd\", \"msgpack\"]"), written.constData());
    QVERIFY(!written.split('\n').at(3).contains("\"kind\""));
    QList<PatternRule> again;
    QVERIFY2(PatternRules::parse(written, &again, &error), qPrintable(error));
    for (PatternRule &r : again)
        r.line = 0;
    for (PatternRule &r : parsed)
        r.line = 0;
    QCOMPARE(again, parsed);

    // The editor's model: the Decode column edits the steps, refuses unknown ones; the kind
    // column makes a rule decode-only, which it refuses without steps.
    PatternRulesModel model;
    QSignalSpy refused(&model, &PatternRulesModel::editRefused);
    model.setRules(parsed);
    const QModelIndex steps = model.index(1, PatternRulesModel::DecodeColumn);
    QCOMPARE(steps.data().toString(), QString());
    QCOMPARE(model.index(0, PatternRulesModel::DecodeColumn).data().toString(), QStringLiteral("base64, gzip, json"));
    QCOMPARE(model.index(0, PatternRulesModel::KindColumn).data(Qt::EditRole).toString(),
             QString::fromLatin1(PatternRulesModel::kDecodeOnly));
    QVERIFY(!model.setData(model.index(1, PatternRulesModel::KindColumn),
                           QString::fromLatin1(PatternRulesModel::kDecodeOnly)));
    QVERIFY(model.lastEditError().contains(QStringLiteral("needs decode steps")));
    QVERIFY(!model.setData(steps, QStringLiteral("base64, lzma")));
    QVERIFY2(model.lastEditError().contains(QStringLiteral("unknown step 'lzma'")), qPrintable(model.lastEditError()));
    QVERIFY(model.setData(steps, QStringLiteral("lz4, pickle")));
    QCOMPARE(model.rules().at(1).decode, (QList<decode::Format>{decode::Format::Lz4Frame, decode::Format::Pickle}));
    QVERIFY(model.setData(model.index(1, PatternRulesModel::KindColumn),
                          QString::fromLatin1(PatternRulesModel::kDecodeOnly)));
    QVERIFY(!model.rules().at(1).classifies);
    QVERIFY(!model.setData(steps, QString())); // a decode-only rule keeps its steps
    QVERIFY(model.setData(model.index(1, PatternRulesModel::KindColumn), QStringLiteral("cache")));
    QVERIFY(model.rules().at(1).classifies);
    QVERIFY(model.setData(steps, QString()));
    QVERIFY(model.rules().at(1).decode.isEmpty());
    QCOMPARE(refused.size(), 3);
}

void TestPatternRules::params_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QVariantMap>("params");
    QTest::addColumn<QString>("canonical");
    QTest::newRow("empty") << QString() << QVariantMap() << QString();
    QTest::newRow("limiter") << QStringLiteral(" window_ms = 60000 ,limit=100")
                             << QVariantMap{{QStringLiteral("limit"), QVariant::fromValue(qint64(100))},
                                            {QStringLiteral("window_ms"), QVariant::fromValue(qint64(60000))}}
                             << QStringLiteral("limit=100, window_ms=60000");
    QTest::newRow("double and string") << QStringLiteral("refill=0.5, owner=billing team")
                                       << QVariantMap{{QStringLiteral("refill"), 0.5},
                                                      {QStringLiteral("owner"), QStringLiteral("billing team")}}
                                       << QStringLiteral("owner=billing team, refill=0.5");
    QTest::newRow("quoted") << QStringLiteral("tag=\"a, b\", code=\"42\", q=\"say \\\"hi\\\"\"")
                            << QVariantMap{{QStringLiteral("tag"), QStringLiteral("a, b")},
                                           {QStringLiteral("code"), QStringLiteral("42")},
                                           {QStringLiteral("q"), QStringLiteral("say \"hi\"")}}
                            << QStringLiteral("code=\"42\", q=\"say \\\"hi\\\"\", tag=\"a, b\"");
    QTest::newRow("trailing comma") << QStringLiteral("ttl_ms=30000,")
                                    << QVariantMap{{QStringLiteral("ttl_ms"), QVariant::fromValue(qint64(30000))}}
                                    << QStringLiteral("ttl_ms=30000");
}

void TestPatternRules::params()
{
    QFETCH(QString, text);
    QFETCH(QVariantMap, params);
    QFETCH(QString, canonical);
    QString error;
    const auto parsed = PatternRules::paramsFromText(text, &error);
    QVERIFY2(parsed, qPrintable(error));
    QCOMPARE(*parsed, params);
    QCOMPARE(PatternRules::paramsText(*parsed), canonical);
    QCOMPARE(PatternRules::paramsFromText(canonical), parsed);
}

void TestPatternRules::paramsRefused_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("no value sign") << QStringLiteral("limit 100") << QStringLiteral("expected name=value");
    QTest::newRow("no name") << QStringLiteral("=100") << QStringLiteral("expected name=value");
    QTest::newRow("no value") << QStringLiteral("limit=") << QStringLiteral("limit has no value");
    QTest::newRow("twice") << QStringLiteral("limit=1, limit=2") << QStringLiteral("limit is given twice");
    QTest::newRow("open quote") << QStringLiteral("owner=\"abc") << QStringLiteral("not closed");
    QTest::newRow("limit text") << QStringLiteral("limit=many") << QStringLiteral("limit must be a number");
}

void TestPatternRules::paramsRefused()
{
    QFETCH(QString, text);
    QFETCH(QString, message);
    QString error;
    QVERIFY(!PatternRules::paramsFromText(text, &error));
    QVERIFY2(error.startsWith(QStringLiteral("params: ")) && error.contains(message), qPrintable(error));
}

void TestPatternRules::loadAndSave()
{
    QTemporaryDir dir;
    // The config directory may not exist before the first save.
    const QString path = dir.filePath(QStringLiteral("config/RedisLens/rules.json"));
    PatternRules rules;
    QString error;
    QVERIFY(rules.load(path, &error)); // missing: no rules, no error
    QVERIFY(rules.isEmpty());
    const QList<PatternRule> written{{"lock:*", KeyType::String, PatternKind::Lock, {}, QStringLiteral("orders"), 0},
                                     {"sched:*", KeyType::ZSet, PatternKind::DelayedJobs, {}, {}, 0}};
    rules.setRules(written);
    QVERIFY2(rules.save(path, &error), qPrintable(error));
    PatternRules loaded;
    QVERIFY2(loaded.load(path, &error), qPrintable(error));
    QCOMPARE(loaded, rules);
    QCOMPARE(loaded.rules().at(1).line, 5);
}

void TestPatternRules::malformedFileUntouched()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("rules.json"));
    const QByteArray broken
        = "{\n  \"rules\": [\n    {\"glob\": \"q:*\", \"type\": \"list\" \"kind\": \"queue\"}\n  ]\n}\n";
    QVERIFY(writeFile(path, broken));
    PatternRules rules;
    rules.setRules({{"keep:*", KeyType::List, PatternKind::ListQueue, {}, {}, 0}});
    QString error;
    int line = 0;
    QVERIFY(!rules.load(path, &error, &line));
    QVERIFY2(error.startsWith(QDir::toNativeSeparators(path) + QStringLiteral(" line 3: ")), qPrintable(error));
    QCOMPARE(line, 3);
    QCOMPARE(rules.rules().size(), 1); // kept what it had
    // Saving over it is refused, so the hand-edited file survives.
    QVERIFY(!rules.save(path, &error));
    QVERIFY2(error.contains(QStringLiteral("line 3")) && error.contains(QStringLiteral("fix or remove")),
             qPrintable(error));
    QCOMPARE(readFile(path), broken);
}

void TestPatternRules::model()
{
    PatternRulesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy refused(&model, &PatternRulesModel::editRefused);
    model.setRules({{"a:*", KeyType::List, PatternKind::ListQueue, {}, {}, 0}});
    model.addRule({"b:*", KeyType::ZSet, PatternKind::DelayedJobs, {}, {}, 0});
    model.addRule({"c:*", KeyType::Unknown, PatternKind::Unknown, {}, {}, 0});
    QCOMPARE(model.rowCount(), 3);
    model.moveRule(2, -1);
    QCOMPARE(model.rules().at(1).glob, QByteArray("c:*"));
    model.moveRule(0, 1);
    QCOMPARE(model.rules().at(0).glob, QByteArray("c:*"));
    QCOMPARE(model.rules().at(1).glob, QByteArray("a:*"));
    model.moveRule(0, -1); // out of range: nothing
    QCOMPARE(model.rules().at(0).glob, QByteArray("c:*"));

    const auto at = [&model](int column) { return model.index(0, column); };
    QVERIFY(model.setData(at(PatternRulesModel::GlobColumn), QStringLiteral("x\\x00*")));
    QCOMPARE(model.rules().at(0).glob, QByteArray("x\x00*", 3));
    QCOMPARE(at(PatternRulesModel::GlobColumn).data().toString(), QStringLiteral("x\\x00*"));
    QVERIFY(model.setData(at(PatternRulesModel::KindColumn), QStringLiteral("fixed-window")));
    QCOMPARE(model.rules().at(0).kind, PatternKind::FixedWindow);
    QCOMPARE(at(PatternRulesModel::KindColumn).data(Qt::EditRole).toString(), QStringLiteral("fixed-window"));
    QCOMPARE(at(PatternRulesModel::KindColumn).data().toString(), patternKindName(PatternKind::FixedWindow));
    QVERIFY(model.setData(at(PatternRulesModel::KindColumn), patternKindName(PatternKind::Lock))); // by name too
    QCOMPARE(model.rules().at(0).kind, PatternKind::Lock);
    QVERIFY(model.setData(at(PatternRulesModel::TypeColumn), QStringLiteral("hash")));
    QCOMPARE(model.rules().at(0).type, KeyType::Hash);
    QVERIFY(model.setData(at(PatternRulesModel::ParamsColumn), QStringLiteral("limit=100, window_ms=60000")));
    QCOMPARE(model.rules().at(0).params.value(QStringLiteral("limit")).toLongLong(), 100);
    QCOMPARE(at(PatternRulesModel::ParamsColumn).data().toString(), QStringLiteral("limit=100, window_ms=60000"));
    QVERIFY(model.setData(at(PatternRulesModel::NoteColumn), QStringLiteral("mine")));
    QCOMPARE(model.rules().at(0).note, QStringLiteral("mine"));
    QCOMPARE(refused.size(), 0);

    // Refused edits leave the rule as it was and say why.
    const PatternRule before = model.rules().at(0);
    QVERIFY(!model.setData(at(PatternRulesModel::TypeColumn), QStringLiteral("hsh")));
    QVERIFY(!model.setData(at(PatternRulesModel::KindColumn), QStringLiteral("lok")));
    QVERIFY(!model.setData(at(PatternRulesModel::GlobColumn), QString()));
    QVERIFY(!model.setData(at(PatternRulesModel::ParamsColumn), QStringLiteral("limit=lots")));
    QCOMPARE(refused.size(), 4);
    QVERIFY2(model.lastEditError().contains(QStringLiteral("limit must be a number")),
             qPrintable(model.lastEditError()));
    QCOMPARE(model.rules().at(0), before);

    QCOMPARE(model.headerData(2, Qt::Vertical).toInt(), 3); // the rule number the reasons cite
    model.removeRuleAt(1);
    QCOMPARE(model.rowCount(), 2);
}

void TestPatternRules::fileReloadsOnWrite()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("rules.json"));
    QVERIFY(writeFile(path, kTwoRules));
    PatternRulesFile file(path);
    QCOMPARE(file.rules().rules().size(), 2);
    QVERIFY(file.lastError().isEmpty());
    QSignalSpy changed(&file, &PatternRulesFile::rulesChanged);
    QVERIFY(writeFile(path, "{\"version\": 2, \"rules\": [{\"glob\": \"s:*\", \"kind\": \"session\"}]}"));
    QVERIFY(changed.wait(kWaitMs));
    QCOMPARE(file.rules().rules().size(), 1);
    QCOMPARE(file.rules().rules().at(0).kind, PatternKind::Session);
    QCOMPARE(changed.last().at(0).value<PatternRules>(), file.rules());
}

void TestPatternRules::fileKeepsRulesWhenBroken()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("rules.json"));
    QVERIFY(writeFile(path, kTwoRules));
    PatternRulesFile file(path);
    const PatternRules before = file.rules();
    QSignalSpy failed(&file, &PatternRulesFile::loadFailed);
    QSignalSpy changed(&file, &PatternRulesFile::rulesChanged);
    QVERIFY(writeFile(path,
                      "{\"version\": 2, \"rules\": [\n"
                      "  {\"glob\": \"lock:*\", \"kind\": \"lock\"},\n"
                      "  {\"glob\": \"x:*\", \"kind\": \"lok\"}\n]}\n"));
    QVERIFY(failed.wait(kWaitMs));
    const QString message = failed.last().at(0).toString();
    QVERIFY2(message.startsWith(QDir::toNativeSeparators(path) + QStringLiteral(" line 3: unknown kind \"lok\"")),
             qPrintable(message));
    QCOMPARE(file.lastError(), message);
    QCOMPARE(file.lastErrorLine(), 3);
    QCOMPARE(file.rules(), before);
    QCOMPARE(changed.size(), 0);

    // An explicit reload of the still-broken file says so again and still keeps the rules.
    file.reload();
    QCOMPARE(failed.size(), 2);
    QCOMPARE(file.rules(), before);
    // Saving over the broken file is refused: it is the user's half-done edit.
    QString error;
    QVERIFY(!file.save({}, &error));
    QVERIFY2(error.contains(QStringLiteral("line 3")), qPrintable(error));
    QCOMPARE(file.rules(), before);

    // Fixed on disk: the new rules apply and the error is gone.
    QVERIFY(writeFile(path, "{\"version\": 2, \"rules\": [{\"glob\": \"x:*\", \"kind\": \"lock\"}]}"));
    QVERIFY(changed.wait(kWaitMs));
    QVERIFY(file.lastError().isEmpty());
    QCOMPARE(file.lastErrorLine(), 0);
    QCOMPARE(file.rules().rules().size(), 1);
}

void TestPatternRules::fileAtomicReplace()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("rules.json"));
    QVERIFY(writeFile(path, kTwoRules));
    PatternRulesFile file(path);
    QSignalSpy changed(&file, &PatternRulesFile::rulesChanged);
    // Replace by rename, as QSaveFile and most editors do: the watched inode goes away.
    for (const QByteArray kind : {"cache", "leaderboard"}) {
        QSaveFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"version\": 2, \"rules\": [{\"glob\": \"c:*\", \"kind\": \"" + kind + "\"}]}");
        QVERIFY(f.commit());
        QVERIFY(changed.wait(kWaitMs));
        QCOMPARE(file.rules().rules().at(0).kind, *patternKindFromId(kind));
    }
}

void TestPatternRules::fileCreatedLater()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("rules.json"));
    PatternRulesFile file(path);
    QVERIFY(file.rules().isEmpty());
    QVERIFY(file.lastError().isEmpty());
    QSignalSpy changed(&file, &PatternRulesFile::rulesChanged);
    QVERIFY(writeFile(path, kTwoRules));
    QVERIFY(changed.wait(kWaitMs));
    QCOMPARE(file.rules().rules().size(), 2);
    QCOMPARE(file.rules().rules().at(1).kind, PatternKind::FixedWindow);
    // And later edits of the new file are followed too.
    QVERIFY(writeFile(path, "[]"));
    QVERIFY(changed.wait(kWaitMs));
    QVERIFY(file.rules().isEmpty());
}

void TestPatternRules::fileSaveAppliesAtOnce()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("sub/rules.json"));
    PatternRulesFile file(path);
    QSignalSpy changed(&file, &PatternRulesFile::rulesChanged);
    const QList<PatternRule> rules{{"lock:*",
                                    KeyType::String,
                                    PatternKind::Lock,
                                    {{QStringLiteral("ttl_ms"), QVariant::fromValue(qint64(30000))}},
                                    {},
                                    0}};
    QString error;
    QVERIFY2(file.save(rules, &error), qPrintable(error));
    QCOMPARE(changed.size(), 1); // at once, not after the watcher's delay
    QCOMPARE(file.rules().rules(), rules);
    QCOMPARE(file.rules().rules().at(0).line, 4); // where the saved file has it
    QCOMPARE(readFile(path), PatternRules::serialize(rules));
    // Edits on disk after a save are still followed (the new file is watched).
    QVERIFY(writeFile(path, kTwoRules));
    QVERIFY(changed.wait(kWaitMs));
    QCOMPARE(file.rules().rules().size(), 2);
}

void TestPatternRules::fileInDirectoryCreatedLater()
{
    // The config directory itself may appear only after start (first run).
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("config/RedisLens/rules.json"));
    PatternRulesFile file(path);
    QSignalSpy changed(&file, &PatternRulesFile::rulesChanged);
    QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("config/RedisLens"))));
    QVERIFY(writeFile(path, kTwoRules));
    QVERIFY(changed.wait(kWaitMs));
    QCOMPARE(file.rules().rules().size(), 2);
    QVERIFY(writeFile(path, "[]"));
    QVERIFY(changed.wait(kWaitMs));
    QVERIFY(file.rules().isEmpty());
}

QTEST_GUILESS_MAIN(TestPatternRules)
#include "tst_patternrules.moc"
