// SPDX-License-Identifier: GPL-3.0-or-later
#include "scriptlibrary.h"

#include "scriptcall.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>

// Q_INIT_RESOURCE must be used outside any namespace; the resources live in this static
// library, so nothing registers them unless we do.
static void initScriptResources()
{
    static const bool once = [] {
        Q_INIT_RESOURCE(scripts);
        return true;
    }();
    Q_UNUSED(once)
}

namespace {

enum class Field { Name, Purpose, Keys, Argv, Writes, SingleSlot, Returns };

struct FieldSpec
{
    const char *label;
    Field field;
    bool repeatable;
};

// The order a header must follow.
constexpr FieldSpec kFields[] = {
    {"name", Field::Name, false},       {"purpose", Field::Purpose, false}, {"keys", Field::Keys, true},
    {"argv", Field::Argv, true},        {"writes", Field::Writes, false},   {"single-slot", Field::SingleSlot, false},
    {"returns", Field::Returns, false},
};
constexpr int kFieldCount = int(sizeof(kFields) / sizeof(kFields[0]));

int fieldIndex(const QString &label)
{
    for (int i = 0; i < kFieldCount; ++i) {
        if (label == QLatin1String(kFields[i].label))
            return i;
    }
    return -1;
}

bool parseYesNo(const QString &value, bool *out)
{
    if (value == QLatin1String("yes")) {
        *out = true;
        return true;
    }
    if (value == QLatin1String("no")) {
        *out = false;
        return true;
    }
    return false;
}

std::optional<ScriptParam> parseParam(const QString &value, QString *why)
{
    static const QRegularExpression re(
        QStringLiteral("^([a-z_][a-z0-9_]*)(\\.\\.\\.)? = (\\S(?:.*\\S)?) \\| (\\S.*)$"));
    const QRegularExpressionMatch m = re.match(value);
    if (!m.hasMatch()) {
        *why = QStringLiteral("expected \"name = example | meaning\", got \"%1\"").arg(value);
        return std::nullopt;
    }
    ScriptParam p;
    p.name = m.captured(1);
    p.variadic = m.capturedLength(2) > 0;
    p.example = m.captured(3);
    p.meaning = m.captured(4).trimmed();
    // The example may not contain " | " itself; the meaning takes the rest.
    return p;
}

// What a header block has given so far, as its fields are read one by one.
struct HeaderState
{
    ScriptInfo &info;
    bool variadicKeys = false;
    bool variadicArgv = false;
};

// One header field's value into state.info: why it is wrong, or nothing. fileName is the file's
// path (empty for a script typed in the console), shownName its name in messages.
QString readHeaderField(int index, const QString &label, const QString &value, const QString &fileName,
                        const QString &shownName, HeaderState &state)
{
    switch (kFields[index].field) {
    case Field::Name: {
        static const QRegularExpression nameRe(QStringLiteral("^[a-z][a-z0-9_]*$"));
        if (!nameRe.match(value).hasMatch())
            return QStringLiteral("name \"%1\" must be lower_case_with_underscores").arg(value);
        const QString base = QFileInfo(shownName).completeBaseName();
        if (!fileName.isEmpty() && base != value)
            return QStringLiteral("name \"%1\" does not match the file name \"%2\"").arg(value, shownName);
        state.info.name = value;
        break;
    }
    case Field::Purpose: state.info.purpose = value; break;
    case Field::Keys:
    case Field::Argv: {
        const bool isKeys = kFields[index].field == Field::Keys;
        bool &variadicSeen = isKeys ? state.variadicKeys : state.variadicArgv;
        if (variadicSeen)
            return QStringLiteral("only the last %1 entry may be variadic (\"name...\")").arg(label);
        QString why;
        std::optional<ScriptParam> p = parseParam(value, &why);
        if (!p)
            return why;
        QList<ScriptParam> &list = isKeys ? state.info.keys : state.info.argv;
        for (const ScriptParam &other : std::as_const(list)) {
            if (other.name == p->name)
                return QStringLiteral("%1 \"%2\" is declared twice").arg(label, p->name);
        }
        variadicSeen = p->variadic;
        list.append(*p);
        break;
    }
    case Field::Writes:
        if (!parseYesNo(value, &state.info.writes))
            return QStringLiteral("writes must be \"yes\" or \"no\", got \"%1\"").arg(value);
        break;
    case Field::SingleSlot:
        if (!parseYesNo(value, &state.info.singleSlot))
            return QStringLiteral("single-slot must be \"yes\" or \"no\", got \"%1\"").arg(value);
        break;
    case Field::Returns: state.info.returns = value; break;
    }
    return {};
}

} // namespace

ScriptLibrary::ScriptLibrary()
{
    initScriptResources();
    QDir dir(QStringLiteral(":/lua"));
    const QStringList files = dir.entryList({QStringLiteral("*.lua")}, QDir::Files, QDir::Name);
    for (const QString &file : files) {
        QFile f(dir.filePath(file));
        if (!f.open(QIODevice::ReadOnly)) {
            m_errors.append(QStringLiteral("%1: cannot read: %2").arg(file, f.errorString()));
            continue;
        }
        QString error;
        if (std::optional<ScriptInfo> info = parse(file, f.readAll(), &error))
            m_scripts.append(*info);
        else
            m_errors.append(error);
    }
    for (const QString &e : std::as_const(m_errors))
        qWarning("ScriptLibrary: %s", qUtf8Printable(e));
}

const ScriptLibrary &ScriptLibrary::instance()
{
    static const ScriptLibrary library;
    return library;
}

const ScriptInfo *ScriptLibrary::find(const QString &name) const
{
    const auto it
        = std::find_if(m_scripts.cbegin(), m_scripts.cend(), [&name](const ScriptInfo &s) { return s.name == name; });
    return it == m_scripts.cend() ? nullptr : &*it;
}

QStringList ScriptLibrary::names() const
{
    QStringList out;
    out.reserve(m_scripts.size());
    for (const ScriptInfo &s : m_scripts)
        out.append(s.name);
    return out;
}

std::optional<ScriptInfo> ScriptLibrary::parse(const QString &fileName, const QByteArray &source, QString *error)
{
    const QString shownName = fileName.isEmpty() ? QStringLiteral("script") : QFileInfo(fileName).fileName();
    auto fail = [&](int line, const QString &why) -> std::optional<ScriptInfo> {
        if (error)
            *error = line > 0 ? QStringLiteral("%1 line %2: %3").arg(shownName).arg(line).arg(why)
                              : QStringLiteral("%1: %2").arg(shownName, why);
        return std::nullopt;
    };

    ScriptInfo info;
    info.fileName = shownName;
    info.source = source;
    info.sha1 = scriptcall::sha1Hex(source);

    const QList<QByteArray> lines = source.split('\n');
    int at = 0; // index into lines; the line number is at + 1
    auto lineText = [&lines](int i) {
        QByteArray l = lines.at(i);
        if (l.endsWith('\r'))
            l.chop(1);
        return QString::fromUtf8(l);
    };

    if (lines.isEmpty() || !lineText(0).startsWith(QLatin1String("-- SPDX-License-Identifier:")))
        return fail(1, QStringLiteral("the first line must be \"-- SPDX-License-Identifier: ...\""));
    at = 1;

    static const QRegularExpression headerLine(QStringLiteral("^-- ([a-z][a-z-]*): (\\S.*)$"));
    int expected = 0; // index into kFields of the next field allowed
    bool seen[kFieldCount] = {};
    HeaderState state{info};
    for (; at < lines.size(); ++at) {
        const QString text = lineText(at);
        if (!text.startsWith(QLatin1String("--")))
            break; // end of the header block
        const int lineNo = at + 1;
        const QRegularExpressionMatch m = headerLine.match(text);
        if (!m.hasMatch())
            return fail(lineNo, QStringLiteral("expected \"-- field: value\", got \"%1\"").arg(text));
        const QString label = m.captured(1);
        const QString value = m.captured(2).trimmed();
        const int index = fieldIndex(label);
        if (index < 0)
            return fail(lineNo, QStringLiteral("unknown header field \"%1\"").arg(label));
        if (index < expected || (seen[index] && !kFields[index].repeatable))
            return fail(lineNo,
                        QStringLiteral("\"%1\" is out of order or repeated (order: name, purpose, keys, "
                                       "argv, writes, single-slot, returns)")
                            .arg(label));
        for (int skipped = expected; skipped < index; ++skipped) {
            if (!kFields[skipped].repeatable && !seen[skipped])
                return fail(lineNo,
                            QStringLiteral("\"%1\" is missing before \"%2\"")
                                .arg(QLatin1String(kFields[skipped].label), label));
        }
        seen[index] = true;
        expected = kFields[index].repeatable ? index : index + 1;

        if (const QString why = readHeaderField(index, label, value, fileName, shownName, state); !why.isEmpty())
            return fail(lineNo, why);
    }

    for (int i = 0; i < kFieldCount; ++i) {
        if (!kFields[i].repeatable && !seen[i])
            return fail(at + 1, QStringLiteral("header ends before \"%1:\"").arg(QLatin1String(kFields[i].label)));
    }
    return info;
}

RedisCommand ScriptLibrary::evalCommand(const ScriptInfo &script, const QList<QByteArray> &keys,
                                        const QList<QByteArray> &args, bool readOnly)
{
    RedisCommand c;
    c.reserve(3 + keys.size() + args.size());
    c << QByteArray(readOnly ? "EVAL_RO" : "EVAL") << script.source << QByteArray::number(keys.size());
    c << keys << args;
    return c;
}

RedisCommand ScriptLibrary::evalShaCommand(const ScriptInfo &script, const QList<QByteArray> &keys,
                                           const QList<QByteArray> &args, bool readOnly)
{
    RedisCommand c;
    c.reserve(3 + keys.size() + args.size());
    c << QByteArray(readOnly ? "EVALSHA_RO" : "EVALSHA") << script.sha1 << QByteArray::number(keys.size());
    c << keys << args;
    return c;
}

RedisCommand ScriptLibrary::loadCommand(const ScriptInfo &script)
{
    return RedisCommand{"SCRIPT", "LOAD", script.source};
}

bool ScriptLibrary::isNoScript(const RedisValue &reply)
{
    return reply.isError() && reply.errorCode() == "NOSCRIPT";
}
