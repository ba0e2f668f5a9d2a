// SPDX-License-Identifier: GPL-3.0-or-later
#include "decoded.h"

#include <QStringList>

namespace decode {

namespace {

struct FormatInfo
{
    const char *name;
    const char *title;
    Format format;
    bool structure;
};

// In the order of the enum.
constexpr FormatInfo kFormats[] = {
    {"gzip", "gzip", Format::Gzip, false},
    {"zlib", "zlib", Format::Zlib, false},
    {"deflate", "raw deflate", Format::Deflate, false},
    {"lz4", "LZ4 frame", Format::Lz4Frame, false},
    {"lz4-block", "LZ4 block", Format::Lz4Block, false},
    {"snappy", "Snappy", Format::Snappy, false},
    {"snappy-framed", "Snappy framed", Format::SnappyFramed, false},
    {"zstd", "Zstandard", Format::Zstd, false},
    {"brotli", "Brotli", Format::Brotli, false},
    {"base64", "base64", Format::Base64, false},
    {"base64url", "base64url", Format::Base64Url, false},
    {"hex", "hex", Format::Hex, false},
    {"json", "JSON", Format::Json, true},
    {"cbor", "CBOR", Format::Cbor, true},
    {"msgpack", "MessagePack", Format::MsgPack, true},
    {"pickle", "pickle", Format::Pickle, true},
    {"java", "Java serialization", Format::JavaSerialization, true},
    {"marshal", "Ruby Marshal", Format::RubyMarshal, true},
    {"php", "PHP serialize", Format::PhpSerialize, true},
    {"protobuf", "Protocol Buffers", Format::Protobuf, true},
};
static_assert(sizeof(kFormats) / sizeof(kFormats[0]) == kFormatCount, "one entry per format");

const FormatInfo &info(Format f)
{
    return kFormats[int(f)];
}

} // namespace

QString name(Format format)
{
    return QString::fromLatin1(info(format).name);
}

QString title(Format format)
{
    return QString::fromLatin1(info(format).title);
}

std::optional<Format> formatNamed(const QString &name)
{
    const QString wanted = name.trimmed().toLower();
    for (const FormatInfo &f : kFormats)
        if (wanted == QLatin1String(f.name))
            return f.format;
    // What people also call them.
    if (wanted == QLatin1String("gz"))
        return Format::Gzip;
    if (wanted == QLatin1String("zstandard") || wanted == QLatin1String("zst"))
        return Format::Zstd;
    if (wanted == QLatin1String("messagepack"))
        return Format::MsgPack;
    if (wanted == QLatin1String("base64-url"))
        return Format::Base64Url;
    if (wanted == QLatin1String("jdk") || wanted == QLatin1String("java-serialization"))
        return Format::JavaSerialization;
    if (wanted == QLatin1String("ruby") || wanted == QLatin1String("ruby-marshal"))
        return Format::RubyMarshal;
    if (wanted == QLatin1String("php-serialize"))
        return Format::PhpSerialize;
    if (wanted == QLatin1String("proto") || wanted == QLatin1String("protobuf-wire"))
        return Format::Protobuf;
    return std::nullopt;
}

bool isStructure(Format format)
{
    return info(format).structure;
}

qsizetype Node::count() const
{
    qsizetype n = 1;
    for (const Node &c : children)
        n += c.count();
    return n;
}

bool Result::truncated() const
{
    for (const Step &s : steps)
        if (s.truncated)
            return true;
    return false;
}

QString Result::chainText() const
{
    QStringList names;
    for (const Step &s : steps)
        names << title(s.format);
    return names.join(QStringLiteral(" → "));
}

qsizetype Result::decodedBytes() const
{
    if (steps.isEmpty())
        return bytes.size();
    const Step &last = steps.constLast();
    return isStructure(last.format) ? last.inputBytes : last.outputBytes;
}

} // namespace decode
