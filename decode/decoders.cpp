// SPDX-License-Identifier: GPL-3.0-or-later
#include "decoders.h"

#include "bytesescape.h"
#include "decoders_p.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>
#include <algorithm>
#include <cmath>

namespace decode {

using namespace detail;

namespace {

StepOutput applyOne(Format format, const QByteArray &input, const Limits &limits)
{
    switch (format) {
    case Format::Gzip:
    case Format::Zlib:
    case Format::Deflate: return inflate(input, format, limits);
    case Format::Lz4Frame: return lz4Frame(input, limits);
    case Format::Lz4Block: return lz4Block(input, limits);
    case Format::Snappy: return snappyRaw(input, limits);
    case Format::SnappyFramed: return snappyFramed(input, limits);
    case Format::Zstd: return zstd(input, limits);
    case Format::Brotli: return brotli(input, limits);
    case Format::Base64: return base64(input, false);
    case Format::Base64Url: return base64(input, true);
    case Format::Hex: return hex(input);
    case Format::Json: return json(input, limits);
    case Format::Cbor: return cbor(input, limits);
    case Format::MsgPack: return msgpack(input, limits);
    case Format::Pickle: return pickle(input, limits);
    case Format::JavaSerialization: return javaSerialization(input, limits);
    case Format::RubyMarshal: return rubyMarshal(input, limits);
    case Format::PhpSerialize: return phpSerialize(input, limits);
    case Format::Protobuf: return protobuf(input, limits);
    }
    return fail(QStringLiteral("unknown format"), 0);
}

} // namespace

StepOutput apply(Format format, const QByteArray &input, const Limits &limits)
{
    StepOutput out = applyOne(format, input, limits);
    // Libraries report where they stopped in their own terms: an offset is always into the input.
    if (!out.ok())
        out.errorOffset = std::clamp<qsizetype>(out.errorOffset, 0, input.size());
    return out;
}

namespace {

bool startsWith(const QByteArray &b, std::initializer_list<unsigned char> magic)
{
    if (b.size() < qsizetype(magic.size()))
        return false;
    qsizetype i = 0;
    for (const unsigned char m : magic)
        if (quint8(b.at(i++)) != m)
            return false;
    return true;
}

char firstNonSpace(const QByteArray &b)
{
    for (const char c : b)
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
            return c;
    return 0;
}

// Output a person can read as it is: UTF-8 without control characters other than spacing.
bool readableText(const QByteArray &b)
{
    if (b.isEmpty() || !bytesescape::isValidUtf8(b))
        return false;
    for (const char c : b) {
        const auto u = quint8(c);
        if (u < 0x20 && c != '\n' && c != '\r' && c != '\t')
            return false;
    }
    return true;
}

// Byte steps taken only when what they produce is recognised again (or, for raw Snappy, is
// readable text): alone, their check says too little.
bool needsConfirmation(Format f)
{
    return f == Format::Base64 || f == Format::Base64Url || f == Format::Hex || f == Format::Snappy;
}

void detectInto(Result &result, const QByteArray &bytes, const Limits &limits, int stepsLeft)
{
    result.bytes = bytes;
    if (stepsLeft <= 0)
        return;
    for (const Format f : candidates(bytes)) {
        StepOutput out = apply(f, bytes, limits);
        if (!out.ok())
            continue;
        Step step{f, bytes.size(), isStructure(f) ? out.consumed : out.bytes.size(), out.truncated};
        if (isStructure(f)) {
            result.steps.append(step);
            result.tree = std::move(out.tree);
            return;
        }
        Result rest;
        detectInto(rest, out.bytes, limits, stepsLeft - 1);
        if (needsConfirmation(f) && !rest.decodedAnything() && !(f == Format::Snappy && readableText(out.bytes)))
            continue;
        result.steps.append(step);
        result.steps.append(rest.steps);
        result.bytes = std::move(rest.bytes);
        result.tree = std::move(rest.tree);
        return;
    }
}

} // namespace

QList<Format> candidates(const QByteArray &input)
{
    QList<Format> out;
    if (input.isEmpty())
        return out;
    if (startsWith(input, {0x1f, 0x8b}))
        out << Format::Gzip;
    if (input.size() >= 2 && (quint8(input.at(0)) & 0x0f) == 8 && (quint8(input.at(0)) >> 4) <= 7
        && (quint8(input.at(0)) * 256 + quint8(input.at(1))) % 31 == 0)
        out << Format::Zlib;
    if (startsWith(input, {0x28, 0xb5, 0x2f, 0xfd}))
        out << Format::Zstd;
    if (startsWith(input, {0x04, 0x22, 0x4d, 0x18}))
        out << Format::Lz4Frame;
    if (startsWith(input, {0xff, 0x06, 0x00, 0x00, 's', 'N', 'a', 'P', 'p', 'Y'}))
        out << Format::SnappyFramed;
    if (looksLikeJavaSerialization(input))
        out << Format::JavaSerialization;
    if (looksLikeRubyMarshal(input))
        out << Format::RubyMarshal;
    const char c = firstNonSpace(input);
    if (c == '{' || c == '[')
        out << Format::Json;
    if (looksLikePhpSerialize(input))
        out << Format::PhpSerialize;
    const auto first = quint8(input.at(0));
    // A pickle (PROTO 2–5 then STOP at the end, or a text pickle's first opcode) before
    // MessagePack, whose empty map is 0x80 too.
    if (looksLikePickle(input))
        out << Format::Pickle;
    if (startsWith(input, {0xd9, 0xd9, 0xf7}) || (first >= 0xa0 && first <= 0xbf))
        out << Format::Cbor; // a self-described CBOR item, or a map (MessagePack's fixstr there)
    if ((first >= 0x80 && first <= 0x9f) || first == 0xdc || first == 0xdd || first == 0xde || first == 0xdf)
        out << Format::MsgPack << Format::Cbor; // a map or an array
    if (looksLikeHex(input))
        out << Format::Hex;
    const bool url = input.contains('-') || input.contains('_');
    if (looksLikeBase64(input, url))
        out << (url ? Format::Base64Url : Format::Base64);
    // Raw Snappy has no magic, only a length and a grammar libsnappy checks: the last guess, and
    // never for readable text.
    if (!readableText(input) && snappyRawValid(input))
        out << Format::Snappy;
    return out;
}

Result detect(const QByteArray &value, const Limits &limits, int maxSteps)
{
    Result r;
    detectInto(r, value, limits, maxSteps);
    return r;
}

Result decodeWith(const QList<Format> &steps, const QByteArray &value, const Limits &limits)
{
    Result r;
    r.bytes = value;
    for (const Format f : steps) {
        StepOutput out = apply(f, r.bytes, limits);
        if (!out.ok()) {
            r.error = out.error;
            r.errorOffset = out.errorOffset;
            r.failedFormat = f;
            return r;
        }
        r.steps.append(Step{f, r.bytes.size(), isStructure(f) ? out.consumed : out.bytes.size(), out.truncated});
        if (isStructure(f)) {
            r.tree = std::move(out.tree);
            return r;
        }
        r.bytes = std::move(out.bytes);
    }
    return r;
}

bool parseChain(const QString &text, QList<Format> *steps, QString *why)
{
    steps->clear();
    const QStringList names = text.split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (names.isEmpty()) {
        *why = QStringLiteral("no step named");
        return false;
    }
    for (const QString &n : names) {
        const std::optional<Format> f = formatNamed(n);
        if (!f) {
            QStringList known;
            for (int i = 0; i < kFormatCount; ++i)
                known << name(Format(i));
            *why = QStringLiteral("unknown step '%1' (known: %2)").arg(n.trimmed(), known.join(QStringLiteral(", ")));
            return false;
        }
        if (!steps->isEmpty() && isStructure(steps->constLast())) {
            *why = QStringLiteral("%1 reads a structure: nothing can follow it").arg(name(steps->constLast()));
            return false;
        }
        steps->append(*f);
    }
    return true;
}

namespace {

void appendLines(const Node &n, int indent, QStringList &lines, int maxLines)
{
    if (lines.size() >= maxLines)
        return;
    QString line(indent * 2, QLatin1Char(' '));
    if (!n.key.isNull())
        line += n.key + QStringLiteral(": ");
    if (n.kind == Node::Kind::List)
        line += QStringLiteral("[%1]").arg(n.children.size());
    else if (n.kind == Node::Kind::Map)
        line += QStringLiteral("{%1}").arg(n.children.size());
    else
        line += n.kind == Node::Kind::Text ? QStringLiteral("\"%1\"").arg(bytesescape::escape(n.value.toUtf8()))
            : n.kind == Node::Kind::Bytes  ? QStringLiteral("\"%1\"").arg(n.value) // already escaped
                                           : n.value;
    if (!n.type.isEmpty())
        line += QStringLiteral("  (%1)").arg(n.type);
    lines << line;
    for (const Node &c : n.children) {
        if (lines.size() >= maxLines) {
            lines << QStringLiteral("%1… (more)").arg(QString((indent + 1) * 2, QLatin1Char(' ')));
            return;
        }
        appendLines(c, indent + 1, lines, maxLines);
    }
}

} // namespace

QString treeText(const Node &node, int maxLines)
{
    QStringList lines;
    appendLines(node, 0, lines, maxLines);
    return lines.join(QLatin1Char('\n'));
}

QJsonValue toJson(const Node &node)
{
    switch (node.kind) {
    case Node::Kind::Null: return QJsonValue::Null;
    case Node::Kind::Bool: return node.value == QLatin1String("true");
    case Node::Kind::Integer: {
        bool ok = false;
        const qint64 v = node.value.toLongLong(&ok);
        return ok ? QJsonValue(v) : QJsonValue(node.value);
    }
    case Node::Kind::Real: {
        bool ok = false;
        const double v = node.value.toDouble(&ok);
        return ok && std::isfinite(v) ? QJsonValue(v) : QJsonValue(node.value);
    }
    case Node::Kind::Text: return node.value;
    case Node::Kind::Bytes: {
        const std::optional<QByteArray> raw = bytesescape::unescape(node.value);
        return QJsonObject{{QStringLiteral("$bytes"), QString::fromLatin1(raw.value_or(QByteArray()).toHex())}};
    }
    case Node::Kind::List: {
        QJsonArray a;
        for (const Node &c : node.children)
            a.append(toJson(c));
        return a;
    }
    case Node::Kind::Map: {
        QJsonObject o;
        if (!node.type.isEmpty())
            o.insert(QStringLiteral("$type"), node.type);
        for (const Node &c : node.children)
            o.insert(c.key, toJson(c));
        return o;
    }
    }
    return {};
}

} // namespace decode
