// SPDX-License-Identifier: GPL-3.0-or-later
#include "fuzztargets.h"

#include "bytesescape.h"
#include "commandline.h"
#include "connectionimport.h"
#include "connectionprofile.h"
#include "patternrules.h"
#include "respcodec.h"
#include "serverinfo.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>
#include <cstdlib>

namespace fuzz {

void violated(const char *target, const char *what, const QByteArray &input)
{
    std::fprintf(stderr, "fuzz %s: %s\ninput (%lld bytes): %s\n", target, what, static_cast<long long>(input.size()),
                 qPrintable(bytesescape::quoteIfNeeded(input.left(4096))));
    std::fflush(stderr);
    std::abort();
}

namespace {

// Replies: the same bytes parsed whole and fed in chunks (sizes taken from the input) give the
// same values, and a protocol error in one is an error in the other.
void runReply(const QByteArray &input)
{
    QList<RedisValue> whole;
    QString wholeError;
    const bool wholeOk = resp::parseAll(input, &whole, &wholeError);
    if (!wholeOk && wholeError.isEmpty())
        violated("reply", "a failed parse gave no reason", input);

    resp::ReplyReader reader;
    QList<RedisValue> chunked;
    bool chunkedError = false;
    qsizetype at = 0;
    for (int i = 0; at < input.size() && !chunkedError; ++i) {
        const qsizetype n = 1 + (uchar(input.at(i % input.size())) % 13);
        const qsizetype take = qMin(n, input.size() - at);
        chunkedError = !reader.feed(input.constData() + at, take);
        at += take;
        RedisValue value;
        auto result = resp::ReplyReader::Result::NeedMore;
        while (!chunkedError && (result = reader.next(&value)) == resp::ReplyReader::Result::Reply)
            chunked.append(std::move(value));
        chunkedError = chunkedError || result == resp::ReplyReader::Result::Error;
    }
    if (chunked != whole)
        violated("reply", "fed in chunks, the bytes parse into other values than whole", input);
    if (chunkedError && wholeOk)
        violated("reply", "fed in chunks, the bytes fail; whole, they parse", input);
    if (chunkedError && reader.error().isEmpty())
        violated("reply", "a protocol error gave no reason", input);
}

// URIs: a failure has a reason; a password written plainly in the URI is masked wherever the
// URI is shown.
void runUri(const QByteArray &input)
{
    const QString text = QString::fromUtf8(input);
    ConnectionProfile profile;
    QString error;
    const bool ok = ConnectionProfile::parseUri(text, &profile, &error);
    if (!ok && error.isEmpty())
        violated("uri", "a refused URI gave no reason", input);
    const QString masked = ConnectionProfile::maskedUri(text);
    if (ok && !profile.password.isEmpty()) {
        const QString plain = QLatin1Char(':') + profile.password + QLatin1Char('@');
        if (text.contains(plain) && masked.contains(plain))
            violated("uri", "the password is left in the masked URI", input);
    }
    if (!error.isEmpty() && !profile.password.isEmpty() && profile.password.size() >= 4
        && error.contains(profile.password))
        violated("uri", "the error quotes the password", input);
}

// The command line: arguments are the input's lines. A refusal has a reason; what parses can
// be applied to a profile.
void runCommandLine(const QByteArray &input)
{
    QStringList arguments{QStringLiteral("redislens")};
    for (const QByteArray &line : input.split('\n'))
        arguments.append(QString::fromUtf8(line));
    QString error;
    const auto line = CommandLine::parse(arguments, &error, {});
    if (!line && error.isEmpty())
        violated("commandline", "a refused line gave no reason", input);
    if (line)
        (void)line->applyOptionsTo(ConnectionProfile());
}

void runRulesFile(const QByteArray &file, const QByteArray &input);

// A rules file that is valid JSON whatever the input: one rule per line of the input, its
// fields ("glob", "type", "kind", "params", "note") separated by '|', so that mutations reach
// the checks behind the JSON parser. "params" is the field's JSON when it is an object.
QByteArray rulesDocument(const QByteArray &input)
{
    static const char *const names[] = {"glob", "type", "kind", "params", "note"};
    QJsonArray rules;
    for (const QByteArray &line : input.split('\n')) {
        const QList<QByteArray> fields = line.split('|');
        QJsonObject rule;
        for (qsizetype i = 0; i < fields.size() && i < 5; ++i) {
            const QString name = QString::fromLatin1(names[i]);
            const QJsonDocument params = QJsonDocument::fromJson(fields.at(i));
            rule.insert(name,
                        i == 3 && params.isObject() ? QJsonValue(params.object())
                                                    : QJsonValue(QString::fromUtf8(fields.at(i))));
        }
        rules.append(rule);
    }
    return QJsonDocument(QJsonObject{{QStringLiteral("version"), 2}, {QStringLiteral("rules"), rules}}).toJson();
}

// Rules: what parses is written back and reads the same; the input is read as a file and as
// the fields of one.
void runRules(const QByteArray &input)
{
    for (const QByteArray &file : {input, rulesDocument(input)})
        runRulesFile(file, input);
}

void runRulesFile(const QByteArray &file, const QByteArray &input)
{
    QList<PatternRule> rules;
    QString error;
    int line = 0;
    if (!PatternRules::parse(file, &rules, &error, &line)) {
        if (error.isEmpty())
            violated("rules", "a refused file gave no reason", input);
        return;
    }
    const QByteArray written = PatternRules::serialize(rules);
    QList<PatternRule> again;
    if (!PatternRules::parse(written, &again, &error))
        violated("rules", "the file written from parsed rules does not parse", input);
    if (again != rules)
        violated("rules", "the file written from parsed rules reads as other rules", input);
}

// Escapes: any bytes escape and come back; any text that unescapes escapes back to the same
// bytes.
void runUnescape(const QByteArray &input)
{
    for (const bool keepUtf8 : {true, false}) {
        const auto back = bytesescape::unescape(bytesescape::escape(input, keepUtf8));
        if (!back || *back != input)
            violated("unescape", "escaped bytes do not unescape to themselves", input);
    }
    const auto back = bytesescape::unescape(bytesescape::quoteIfNeeded(input));
    if (!back || *back != input)
        violated("unescape", "quoted bytes do not unescape to themselves", input);
    QString error;
    const auto bytes = bytesescape::unescape(QString::fromUtf8(input), &error);
    if (!bytes) {
        if (error.isEmpty())
            violated("unescape", "a refused escape gave no reason", input);
        return;
    }
    const auto again = bytesescape::unescape(bytesescape::escape(*bytes));
    if (!again || *again != *bytes)
        violated("unescape", "unescaped bytes do not survive another round", input);
}

// Imports (a URI, a redis-cli line, RedisInsight or ARDM exports, RedisLens's own export): a
// refusal has a reason; what imports exports and imports again unchanged.
void runImport(const QByteArray &input)
{
    QString error;
    const auto imported = connectionimport::fromText(input, &error);
    if (!imported) {
        if (error.isEmpty())
            violated("import", "a refused import gave no reason", input);
        return;
    }
    QList<SavedConnection> connections;
    for (const connectionimport::Imported &i : *imported)
        connections.append(i.connection);
    const QByteArray exported = connectionimport::exportJson(connections);
    const auto back = connectionimport::fromExport(exported, &error);
    if (!back)
        violated("import", "an export of imported connections does not import", input);
    if (connectionimport::exportJson(*back) != exported)
        violated("import", "an export of imported connections imports as other connections", input);
}

// INFO text: parsed and walked (sections, typed values, keyspace lines, subfields).
void runInfo(const QByteArray &input)
{
    const ServerInfo info = ServerInfo::parse(input, 1);
    for (const ServerInfo::Field &f : info.fields()) {
        (void)info.integer(f.name);
        (void)info.real(f.name, 0);
        (void)ServerInfo::subfields(f.value);
    }
    for (const QByteArray &s : info.sections())
        if (!info.hasSection(s))
            violated("info", "a section it lists is not there", input);
    (void)info.keyspace();
}

} // namespace

const QList<Target> &targets()
{
    static const QList<Target> all{
        {QStringLiteral("reply"),
         &runReply,
         {QStringLiteral("tests/data/replies")},
         {"\r\n",
          "*",
          "$",
          ":",
          "+",
          "-",
          "_",
          ",",
          "#",
          "%",
          "~",
          ">",
          "=",
          "(",
          "!",
          "-1",
          "0",
          "2147483647",
          "4294967296",
          "9223372036854775808",
          "*1\r\n",
          "$0\r\n\r\n",
          "*-1\r\n",
          "%1\r\n",
          "*2147483647\r\n",
          "$1073741824\r\n",
          "*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n"}},
        {QStringLiteral("uri"),
         &runUri,
         {QStringLiteral("tests/fuzz/seeds/uri")},
         {"redis://", "rediss://", "unix://", "@", ":", "/", "?db=", "%", "%40", "%3A", "[::1]", "65536", "-1",
          "user:", ":secret@"}},
        {QStringLiteral("commandline"),
         &runCommandLine,
         {QStringLiteral("tests/fuzz/seeds/commandline")},
         {"\n-h\n",       "\n-p\n",      "\n-n\n",          "\n-a\n",          "\n--tls\n",  "\n--cacert\n",
          "\n--sni\n",    "\n--ssh\n",   "\n--read-only\n", "\nshow\n",        "\nkeys\n",   "\n--format\n",
          "\n--limit\n",  "\n--match\n", "\n--scan-rate\n", "\n--separator\n", "\n--open\n", "\n--panel\n",
          "\n--stream\n", "\n--group\n", "\ncheck\n",       "\n--demo\n",      "redis://",   "-1",
          "99999999999"}},
        {QStringLiteral("rules"),
         &runRules,
         {QStringLiteral("tests/fuzz/seeds/rules")},
         {"{",          "}",         "[",           "]",    "\"glob\"", "\"type\"",  "\"kind\"",
          "\"params\"", "\"note\"",  "\"version\"", "2",    "\"lock\"", "\"queue\"", "\"hash\"",
          "\"any\"",    "\"limit\"", "null",        "true", "1e308",    ":",         ","}},
        {QStringLiteral("unescape"),
         &runUnescape,
         {QStringLiteral("tests/fuzz/seeds/unescape")},
         {"\\x", "\\xff", "\\x0", "\\\"", "\\\\", "\\n", "\\u", "\"", "\xc3\xa9", "\xe2\x80\xae", "\xf0\x9f\x98\x80",
          "\xed\xa0\x80", "\xc0\x80"}},
        {QStringLiteral("import"),
         &runImport,
         {QStringLiteral("tests/data/imports"), QStringLiteral("tests/fuzz/seeds/import")},
         {"redis-cli",
          " -h ",
          " -p ",
          " -a ",
          " --tls",
          " --user ",
          "'",
          "\"",
          "\\",
          "redis://",
          "{",
          "}",
          "[",
          "]",
          "\"host\"",
          "\"port\"",
          "\"password\"",
          "\"connections\"",
          "\"redislens_connections\"",
          "="}},
        {QStringLiteral("info"),
         &runInfo,
         {QStringLiteral("tests/fuzz/seeds/info")},
         {"\r\n", "# ", ":", "=", ",", "db0:keys=", "expires=", "avg_ttl=", "cmdstat_get:", "calls=", "-1",
          "9223372036854775808", "1e400", "nan"}},
    };
    return all;
}

const Target *findTarget(const QString &name)
{
    for (const Target &t : targets())
        if (t.name == name)
            return &t;
    return nullptr;
}

QList<QByteArray> seeds(const Target &target, const QString &sourceDir)
{
    QList<QByteArray> out;
    for (const QString &dir : target.seedDirs) {
        const QDir d(sourceDir + QLatin1Char('/') + dir);
        for (const QString &name : d.entryList(QDir::Files, QDir::Name)) {
            if (name.endsWith(QLatin1String(".md")) || name.endsWith(QLatin1String(".sh")))
                continue;
            QFile f(d.filePath(name));
            if (f.open(QIODevice::ReadOnly))
                out.append(f.readAll());
        }
    }
    return out;
}

} // namespace fuzz
