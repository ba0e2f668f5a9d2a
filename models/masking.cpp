// SPDX-License-Identifier: GPL-3.0-or-later
#include "masking.h"

#include "decoders.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace masking {

bool isSecretName(const QByteArray &name)
{
    static const QList<QByteArray> words{
        "token", "csrf",   "xsrf", "password",    "passwd",     "pwd",         "secret",     "apikey", "api_key",
        "auth",  "cookie", "jwt",  "session_key", "sessionkey", "private_key", "credential", "otp",    "signature"};
    QByteArray n = name.toLower();
    n.replace('-', '_');
    for (const QByteArray &w : words)
        if (n.contains(w))
            return true;
    return false;
}

QString maskText()
{
    return QStringLiteral("••••••");
}

QJsonValue maskJsonValue(const QJsonValue &value, int &count)
{
    if (value.isObject()) {
        QJsonObject o = value.toObject();
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (isSecretName(it.key().toUtf8()) && !it.value().isNull()) {
                it.value() = maskText();
                ++count;
            } else {
                it.value() = maskJsonValue(it.value(), count);
            }
        }
        return o;
    }
    if (value.isArray()) {
        QJsonArray a = value.toArray();
        for (auto it = a.begin(); it != a.end(); ++it)
            *it = maskJsonValue(*it, count);
        return a;
    }
    return value;
}

QByteArray jsonText(const QJsonValue &v)
{
    if (v.isString())
        return v.toString().toUtf8();
    if (v.isObject())
        return QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact);
    if (v.isArray())
        return QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact);
    // Numbers, booleans and null: their JSON spelling, via a one-element array.
    const QByteArray a = QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact);
    return a.mid(1, a.size() - 2);
}

std::optional<QByteArray> maskJson(const QByteArray &json, int *maskedCount)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError || doc.isNull())
        return std::nullopt;
    int count = 0;
    const QJsonValue out = maskJsonValue(doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array()), count);
    if (maskedCount)
        *maskedCount = count;
    return jsonText(out);
}

namespace {

// The mask of a secret-named field, or JSON with its secret-named keys masked ('json' says the
// value is JSON); null when neither hides anything.
QByteArray maskedByName(const QByteArray *fieldName, const QByteArray &value, bool *json)
{
    *json = false;
    if (fieldName && isSecretName(*fieldName))
        return maskText().toUtf8();
    if (value.startsWith('{') || value.startsWith('[')) {
        int count = 0;
        const std::optional<QByteArray> masked = maskJson(value, &count);
        *json = masked.has_value();
        if (masked && count > 0)
            return *masked;
    }
    return {};
}

} // namespace

QByteArray maskedByName(const QByteArray *fieldName, const QByteArray &value)
{
    bool json = false;
    return maskedByName(fieldName, value, &json);
}

QByteArray maskedValue(const QByteArray *fieldName, const QByteArray &value, bool decodeCheck)
{
    bool json = false;
    if (QByteArray hidden = maskedByName(fieldName, value, &json); !hidden.isNull() || json)
        return hidden;
    // A value whose writer encoded it (a pickled or MessagePack session, base64 of JSON) shows
    // its secrets in the raw bytes too: one whose decoded form holds any is hidden whole. The
    // check is bounded (the value's size, what it may expand to) as it runs for every row shown;
    // a larger value's secrets are masked where it is shown decoded.
    if (value.size() > kDecodedCheckBytes)
        return {};
    if (!decodeCheck)
        return decode::candidates(value).isEmpty()
            ? QByteArray()
            : (maskText() + QStringLiteral(" (encoded, not checked for secrets: open it decoded)")).toUtf8();
    const std::optional<DecodedInline> decoded = decodeInline(value, 20'000);
    if (!decoded || decoded->secrets == 0)
        return {};
    return (maskText() + QStringLiteral(" (%1 with secrets)").arg(decoded->result.chainText())).toUtf8();
}

std::optional<DecodedInline> decodeInline(const QByteArray &value, qsizetype maxNodes)
{
    if (value.size() > kDecodedCheckBytes)
        return std::nullopt;
    decode::Limits limits;
    limits.maxOutput = 4 * kDecodedCheckBytes;
    limits.maxNodes = maxNodes;
    DecodedInline d;
    d.result = decode::detect(value, limits);
    if (!d.result.tree)
        return std::nullopt;
    d.masked = *d.result.tree;
    d.secrets = maskTree(d.masked);
    return d;
}

int maskTree(decode::Node &tree)
{
    int count = 0;
    for (decode::Node &child : tree.children) {
        if (tree.kind == decode::Node::Kind::Map && isSecretName(child.key.toUtf8())) {
            const QString key = child.key;
            child = decode::Node{};
            child.kind = decode::Node::Kind::Text;
            child.value = maskText();
            child.key = key;
            ++count;
            continue;
        }
        count += maskTree(child);
    }
    return count;
}

} // namespace masking
