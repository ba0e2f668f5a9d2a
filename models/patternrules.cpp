// SPDX-License-Identifier: GPL-3.0-or-later
#include "patternrules.h"

#include "bytesescape.h"
#include "decoders.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include <cmath>
#include <utility>

namespace {

// Parameters whose meaning the panels know; they must be plain non-negative numbers.
const QStringList &numericParams()
{
    static const QStringList s{QStringLiteral("limit"), QStringLiteral("window_ms"), QStringLiteral("ttl_ms")};
    return s;
}

QString checkParams(const QVariantMap &params)
{
    for (const QString &name : numericParams()) {
        const auto it = params.constFind(name);
        if (it == params.constEnd())
            continue;
        const int id = it->typeId();
        if ((id != QMetaType::LongLong && id != QMetaType::Double) || it->toDouble() < 0)
            return QStringLiteral("params.%1 must be a number ≥ 0").arg(name);
    }
    return {};
}

// JSON has one number type; integers within double precision become qint64 so that a limit
// reads back as the 100 it was written as.
QVariant numberValue(double d)
{
    if (std::isfinite(d) && d == std::floor(d) && std::abs(d) < 9007199254740992.0)
        return QVariant::fromValue(qint64(d));
    return QVariant::fromValue(d);
}

QString knownKinds()
{
    QStringList ids;
    for (int k = 0; k < kPatternKindCount; ++k) {
        if (PatternKind(k) != PatternKind::Unknown)
            ids.append(QString::fromLatin1(patternKindId(PatternKind(k))));
    }
    ids.append(QString::fromLatin1(patternKindId(PatternKind::Unknown)));
    return ids.join(QStringLiteral(", "));
}

QString knownTypes()
{
    QStringList ids;
    for (KeyType t : patternRuleTypes())
        ids.append(patternRuleTypeId(t));
    return ids.join(QStringLiteral(", "));
}

// Where things start in a JSON text that already parsed (QJsonDocument keeps no positions):
// the line of each element of the rules array and of each top-level key.
struct JsonLines
{
    QList<int> rules;
    QHash<QByteArray, int> topKeys;
};

JsonLines scanLines(const QByteArray &data)
{
    JsonLines out;
    QByteArray stack; // '{' and '['
    int line = 1;
    int rulesDepth = -1; // stack size inside the rules array
    bool elementStart = false; // in the rules array, after '[' or ','
    bool expectKey = false; // in the top-level object, after '{' or ','
    QByteArray lastKey;
    for (qsizetype i = 0; i < data.size(); ++i) {
        const char c = data.at(i);
        if (c == '\n') {
            ++line;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r')
            continue;
        const int depth = int(stack.size());
        if (depth == rulesDepth && elementStart && c != ']' && c != ',') {
            out.rules.append(line);
            elementStart = false;
        }
        switch (c) {
        case '"': {
            const qsizetype start = i + 1;
            for (++i; i < data.size() && data.at(i) != '"'; ++i) {
                if (data.at(i) == '\\')
                    ++i;
            }
            if (depth == 1 && stack.at(0) == '{' && expectKey) {
                lastKey = data.mid(start, i - start);
                out.topKeys.insert(lastKey, line);
                expectKey = false;
            }
            break;
        }
        case '{':
        case '[':
            stack.append(c);
            if (c == '[' && ((depth == 0) || (depth == 1 && stack.at(0) == '{' && lastKey == "rules"))) {
                rulesDepth = int(stack.size());
                elementStart = true;
            }
            if (depth == 0 && c == '{')
                expectKey = true;
            break;
        case '}':
        case ']':
            if (!stack.isEmpty())
                stack.chop(1);
            break;
        case ',':
            if (depth == rulesDepth)
                elementStart = true;
            if (depth == 1 && stack.at(0) == '{')
                expectKey = true;
            break;
        default: break;
        }
    }
    return out;
}

QString quoted(const QString &s)
{
    return QLatin1Char('"') + s + QLatin1Char('"');
}

// One JSON scalar as text, escaped as QJsonDocument escapes it.
QByteArray jsonScalar(const QJsonValue &v)
{
    const QByteArray array = QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact);
    return array.mid(1, array.size() - 2);
}

QJsonValue paramJson(const QVariant &v)
{
    switch (v.typeId()) {
    case QMetaType::LongLong:
    case QMetaType::Int:
    case QMetaType::UInt:
    case QMetaType::ULongLong: return QJsonValue(v.toLongLong());
    case QMetaType::Double:
    case QMetaType::Float: return QJsonValue(v.toDouble());
    default: return QJsonValue(v.toString());
    }
}

bool fail(QString *error, int *errorLine, int line, const QString &message)
{
    if (error)
        *error = QStringLiteral("line %1: %2").arg(line).arg(message);
    if (errorLine)
        *errorLine = line;
    return false;
}

} // namespace

const QList<KeyType> &patternRuleTypes()
{
    static const QList<KeyType> s{KeyType::Unknown, KeyType::String, KeyType::List,  KeyType::Set,
                                  KeyType::ZSet,    KeyType::Hash,   KeyType::Stream};
    return s;
}

QString patternRuleTypeId(KeyType type)
{
    return type == KeyType::Unknown || !patternRuleTypes().contains(type) ? QStringLiteral("any") : keyTypeName(type);
}

std::optional<KeyType> patternRuleTypeFromId(const QString &id)
{
    const QString lower = id.trimmed().toLower();
    for (KeyType t : patternRuleTypes()) {
        if (patternRuleTypeId(t) == lower)
            return t;
    }
    return std::nullopt;
}

// ---- rules ----

const PatternRule *PatternRules::match(const QByteArray &key, KeyType type) const
{
    for (const PatternRule &r : m_rules) {
        if (!r.classifies || (r.type != KeyType::Unknown && r.type != type))
            continue;
        if (globMatch(r.glob, key))
            return &r;
    }
    return nullptr;
}

const PatternRule *PatternRules::decodeRule(const QByteArray &key, KeyType type) const
{
    for (const PatternRule &r : m_rules) {
        if (r.decode.isEmpty() || (r.type != KeyType::Unknown && r.type != type))
            continue;
        if (globMatch(r.glob, key))
            return &r;
    }
    return nullptr;
}

int PatternRules::indexOf(const PatternRule *rule) const
{
    for (int i = 0; i < m_rules.size(); ++i) {
        if (&m_rules.at(i) == rule)
            return i;
    }
    return -1;
}

namespace {

// One rule of the file into *out: why it is wrong, or nothing.
QString parseRule(const QJsonObject &o, PatternRule *out)
{
    PatternRule &r = *out;
    for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
        static const QStringList known{QStringLiteral("glob"),   QStringLiteral("type"),   QStringLiteral("kind"),
                                       QStringLiteral("params"), QStringLiteral("decode"), QStringLiteral("note")};
        if (!known.contains(it.key()))
            return QStringLiteral("unknown field %1 (known: %2)")
                .arg(quoted(it.key()), known.join(QStringLiteral(", ")));
    }
    const QJsonValue glob = o.value(QLatin1String("glob"));
    if (!glob.isString() || glob.toString().isEmpty())
        return QStringLiteral("rule needs a glob");
    QString why;
    const auto bytes = bytesescape::unescape(glob.toString(), &why);
    if (!bytes || bytes->isEmpty())
        return QStringLiteral("glob: %1").arg(why);
    r.glob = *bytes;

    const QJsonValue type = o.value(QLatin1String("type"));
    if (!type.isUndefined()) {
        const auto t = type.isString() ? patternRuleTypeFromId(type.toString()) : std::nullopt;
        if (!t)
            return QStringLiteral("unknown type %1 (known: %2)").arg(QString::fromUtf8(jsonScalar(type)), knownTypes());
        r.type = *t;
    }

    const QJsonValue decodeSteps = o.value(QLatin1String("decode"));
    if (!decodeSteps.isUndefined()) {
        QStringList names;
        const QJsonArray steps = decodeSteps.toArray();
        for (const QJsonValue step : steps)
            names << (step.isString() ? step.toString() : QString::fromUtf8(jsonScalar(step)));
        QString why;
        if (!decodeSteps.isArray() || names.isEmpty())
            return QStringLiteral("decode must list steps, such as [\"base64\", \"gzip\", \"json\"]");
        if (!decode::parseChain(names.join(QLatin1Char(',')), &r.decode, &why))
            return QStringLiteral("decode: %1").arg(why);
    }

    const QJsonValue kind = o.value(QLatin1String("kind"));
    if (kind.isUndefined()) {
        // A rule that only says how to decode its keys' values classifies nothing.
        if (r.decode.isEmpty())
            return QStringLiteral("rule needs a kind (known: %1) or decode steps").arg(knownKinds());
        r.classifies = false;
    } else {
        const auto k = kind.isString() ? patternKindFromId(kind.toString().trimmed().toLower().toUtf8()) : std::nullopt;
        if (!k)
            return QStringLiteral("unknown kind %1 (known: %2)").arg(QString::fromUtf8(jsonScalar(kind)), knownKinds());
        r.kind = *k;
    }

    const QJsonValue params = o.value(QLatin1String("params"));
    if (!params.isUndefined()) {
        if (!params.isObject())
            return QStringLiteral("params must be an object such as {\"limit\": 100}");
        const QJsonObject p = params.toObject();
        for (auto it = p.constBegin(); it != p.constEnd(); ++it) {
            if (it.value().isDouble())
                r.params.insert(it.key(), numberValue(it.value().toDouble()));
            else if (it.value().isString())
                r.params.insert(it.key(), it.value().toString());
            else
                return QStringLiteral("params.%1 must be a number or a string").arg(it.key());
        }
        const QString bad = checkParams(r.params);
        if (!bad.isEmpty())
            return bad;
    }

    const QJsonValue note = o.value(QLatin1String("note"));
    if (!note.isUndefined() && !note.isString())
        return QStringLiteral("note must be a string");
    r.note = note.toString();
    return {};
}

} // namespace

bool PatternRules::parse(const QByteArray &json, QList<PatternRule> *out, QString *error, int *errorLine)
{
    // An empty file (just created by an editor) holds no rules yet.
    if (json.trimmed().isEmpty()) {
        out->clear();
        return true;
    }
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &pe);
    if (pe.error != QJsonParseError::NoError) {
        const int line = int(json.left(pe.offset).count('\n')) + 1;
        return fail(error, errorLine, line, QStringLiteral("JSON error: %1").arg(pe.errorString()));
    }
    const JsonLines lines = scanLines(json);
    QJsonArray array;
    if (doc.isArray()) {
        array = doc.array(); // the oldest files: a bare list of rules
    } else {
        const QJsonObject root = doc.object();
        for (auto it = root.constBegin(); it != root.constEnd(); ++it) {
            if (it.key() != QLatin1String("version") && it.key() != QLatin1String("rules"))
                return fail(error, errorLine, lines.topKeys.value(it.key().toUtf8(), 1),
                            QStringLiteral("unknown field %1 (known: version, rules)").arg(quoted(it.key())));
        }
        const QJsonValue version = root.value(QLatin1String("version"));
        if (!version.isUndefined() && version.toDouble() != 1 && version.toDouble() != 2)
            return fail(error, errorLine, lines.topKeys.value("version", 1),
                        QStringLiteral("version %1 is not one this RedisLens reads (1 or 2)")
                            .arg(QString::fromUtf8(jsonScalar(version))));
        if (!root.value(QLatin1String("rules")).isArray())
            return fail(error, errorLine, lines.topKeys.value("rules", 1),
                        QStringLiteral("expected {\"version\": 2, \"rules\": [ … ]}"));
        array = root.value(QLatin1String("rules")).toArray();
    }

    QList<PatternRule> rules;
    for (int i = 0; i < array.size(); ++i) {
        const int line = lines.rules.value(i, 1);
        if (!array.at(i).isObject())
            return fail(error, errorLine, line,
                        QStringLiteral("rule %1 is not an object {\"glob\": …, \"kind\": …}").arg(i + 1));
        PatternRule r;
        r.line = line;
        if (const QString why = parseRule(array.at(i).toObject(), &r); !why.isEmpty())
            return fail(error, errorLine, line, why);
        rules.append(r);
    }
    *out = rules;
    return true;
}

QByteArray PatternRules::serialize(const QList<PatternRule> &rules)
{
    QByteArray out = "{\n  \"version\": 2,\n  \"rules\": [";
    for (int i = 0; i < rules.size(); ++i) {
        const PatternRule &r = rules.at(i);
        out += i == 0 ? "\n    {" : ",\n    {";
        out += "\"glob\": " + jsonScalar(bytesescape::escape(r.glob));
        out += ", \"type\": " + jsonScalar(patternRuleTypeId(r.type));
        if (r.classifies)
            out += ", \"kind\": " + jsonScalar(QString::fromLatin1(patternKindId(r.kind)));
        if (!r.params.isEmpty()) {
            out += ", \"params\": {";
            bool first = true;
            for (auto it = r.params.constBegin(); it != r.params.constEnd(); ++it) {
                out += first ? "" : ", ";
                out += jsonScalar(it.key()) + ": " + jsonScalar(paramJson(it.value()));
                first = false;
            }
            out += '}';
        }
        if (!r.decode.isEmpty()) {
            out += ", \"decode\": [";
            for (qsizetype i = 0; i < r.decode.size(); ++i)
                out += (i ? ", " : "") + jsonScalar(decode::name(r.decode.at(i)));
            out += ']';
        }
        if (!r.note.isEmpty())
            out += ", \"note\": " + jsonScalar(r.note);
        out += '}';
    }
    out += rules.isEmpty() ? "]\n}\n" : "\n  ]\n}\n";
    return out;
}

QString PatternRules::paramsText(const QVariantMap &params)
{
    QStringList parts;
    for (auto it = params.constBegin(); it != params.constEnd(); ++it) {
        QString value;
        const int id = it->typeId();
        if (id == QMetaType::LongLong || id == QMetaType::Int || id == QMetaType::Double) {
            value = id == QMetaType::Double ? QString::number(it->toDouble(), 'g', 15)
                                            : QString::number(it->toLongLong());
        } else {
            value = it->toString();
            // Quoted when it would otherwise read back as something else.
            bool number = false;
            value.toDouble(&number);
            if (number || value.isEmpty() || value.contains(QLatin1Char(',')) || value.contains(QLatin1Char('"'))
                || value.contains(QLatin1Char('\\')) || value.trimmed() != value) {
                value.replace(QLatin1Char('\\'), QStringLiteral("\\\\"));
                value.replace(QLatin1Char('"'), QStringLiteral("\\\""));
                value = quoted(value);
            }
        }
        parts.append(it.key() + QLatin1Char('=') + value);
    }
    return parts.join(QStringLiteral(", "));
}

std::optional<QVariantMap> PatternRules::paramsFromText(const QString &text, QString *error)
{
    const auto refuse = [error](const QString &why) -> std::optional<QVariantMap> {
        if (error)
            *error = QStringLiteral("params: ") + why;
        return std::nullopt;
    };
    QVariantMap out;
    const qsizetype n = text.size();
    qsizetype i = 0;
    const auto skipSpaces = [&] {
        while (i < n && text.at(i).isSpace())
            ++i;
    };
    while (true) {
        skipSpaces();
        if (i >= n)
            break;
        const qsizetype nameStart = i;
        while (i < n && text.at(i) != QLatin1Char('=') && text.at(i) != QLatin1Char(','))
            ++i;
        const QString name = text.mid(nameStart, i - nameStart).trimmed();
        bool nameOk = !name.isEmpty();
        for (QChar c : name)
            nameOk = nameOk
                && (c.isLetterOrNumber() || c == QLatin1Char('_') || c == QLatin1Char('-') || c == QLatin1Char('.'));
        if (!nameOk || i >= n || text.at(i) != QLatin1Char('='))
            return refuse(QStringLiteral("expected name=value, such as limit=100, window_ms=60000"));
        ++i;
        skipSpaces();
        QVariant value;
        if (i < n && text.at(i) == QLatin1Char('"')) {
            QString s;
            bool closed = false;
            for (++i; i < n; ++i) {
                if (text.at(i) == QLatin1Char('\\') && i + 1 < n) {
                    s += text.at(++i);
                } else if (text.at(i) == QLatin1Char('"')) {
                    closed = true;
                    ++i;
                    break;
                } else {
                    s += text.at(i);
                }
            }
            if (!closed)
                return refuse(QStringLiteral("%1: the quote is not closed").arg(name));
            value = s;
            skipSpaces();
            if (i < n && text.at(i) != QLatin1Char(','))
                return refuse(QStringLiteral("%1: a comma goes after the closing quote").arg(name));
        } else {
            const qsizetype start = i;
            while (i < n && text.at(i) != QLatin1Char(','))
                ++i;
            const QString raw = text.mid(start, i - start).trimmed();
            if (raw.isEmpty())
                return refuse(QStringLiteral("%1 has no value").arg(name));
            bool ok = false;
            const qlonglong whole = raw.toLongLong(&ok);
            if (ok) {
                value = QVariant::fromValue(qint64(whole));
            } else {
                const double d = raw.toDouble(&ok);
                value = ok && std::isfinite(d) ? numberValue(d) : QVariant(raw);
            }
        }
        if (out.contains(name))
            return refuse(QStringLiteral("%1 is given twice").arg(name));
        out.insert(name, value);
        if (i < n && text.at(i) == QLatin1Char(','))
            ++i;
    }
    const QString bad = checkParams(out);
    if (!bad.isEmpty())
        return refuse(bad.mid(int(qstrlen("params."))));
    return out;
}

bool PatternRules::load(const QString &path, QString *error, int *errorLine)
{
    if (errorLine)
        *errorLine = 0;
    QFile f(path);
    if (!f.exists()) {
        m_rules.clear();
        return true;
    }
    if (!f.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(QDir::toNativeSeparators(path), f.errorString());
        return false;
    }
    QList<PatternRule> rules;
    QString why;
    if (!parse(f.readAll(), &rules, &why, errorLine)) {
        if (error)
            *error = QDir::toNativeSeparators(path) + QLatin1Char(' ') + why;
        return false;
    }
    m_rules = rules;
    return true;
}

bool PatternRules::save(const QString &path, QString *error) const
{
    QFile existing(path);
    if (existing.exists() && existing.open(QIODevice::ReadOnly)) {
        QList<PatternRule> ignored;
        QString why;
        if (!parse(existing.readAll(), &ignored, &why)) {
            if (error)
                *error = QStringLiteral("%1 has an error (%2); fix or remove it before saving")
                             .arg(QDir::toNativeSeparators(path), why);
            return false;
        }
    }
    // The config directory does not exist before the first setting is written.
    QDir().mkpath(QFileInfo(path).absolutePath());
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(serialize(m_rules)) < 0 || !f.commit()) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(QDir::toNativeSeparators(path), f.errorString());
        return false;
    }
    return true;
}
