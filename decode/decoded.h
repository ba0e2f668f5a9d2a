// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <optional>

namespace decode {

// What a value's bytes can be, as a step of a chain. Byte steps turn bytes into bytes
// (compression, text encodings); structure steps turn bytes into a tree and end a chain.
enum class Format : quint8 {
    Gzip,
    Zlib,
    Deflate, // raw deflate, no header
    Lz4Frame,
    Lz4Block, // by rule only: no magic (python-lz4's block format: a 4-byte size first)
    Snappy, // raw
    SnappyFramed,
    Zstd,
    Brotli, // by rule only: no magic
    Base64,
    Base64Url,
    Hex,
    Json,
    Cbor,
    MsgPack,
    Pickle, // Python, protocols 0–5, read as data: never executed
    JavaSerialization, // java.io.ObjectOutputStream's stream, read as data: nothing is loaded
    RubyMarshal, // Ruby's Marshal.dump, format 4.8
    PhpSerialize, // PHP's serialize()
    Protobuf, // Protocol Buffers' wire format without a schema; by rule only: no magic
};
constexpr int kFormatCount = int(Format::Protobuf) + 1;

// "gzip", "lz4", "json": the names rules and --decode use.
QString name(Format format);
// The same for a person: "gzip", "LZ4 frame", "JSON".
QString title(Format format);
std::optional<Format> formatNamed(const QString &name); // case-insensitive
// A structure step: its output is a tree, and nothing follows it.
bool isStructure(Format format);

// A decoded value as a tree: maps, lists and scalars, each with the type its writer gave it.
struct Node
{
    enum class Kind : quint8 { Null, Bool, Integer, Real, Text, Bytes, List, Map };
    Kind kind = Kind::Null;
    // The writer's type where it says more than the kind ("ext 5", "tag 1 (epoch time)").
    QString type;
    // Scalars: the value as text (Bytes: the bytes escaped as the key browser escapes them).
    QString value;
    // List: the items. Map: pairs, each a Node whose 'key' is set.
    QList<Node> children;
    // In a map: the entry's key as text (a key that is not a scalar is written as JSON-like text).
    QString key;

    bool isContainer() const { return kind == Kind::List || kind == Kind::Map; }
    // Nodes in this subtree, this one included.
    qsizetype count() const;
};

// One applied step: what went in and came out.
struct Step
{
    Format format = Format::Json;
    qsizetype inputBytes = 0;
    qsizetype outputBytes = 0; // for a structure step: the bytes it consumed
    bool truncated = false; // the output cap was reached: the output is the first outputBytes
};

// The caps that keep a value from exhausting memory: a compression bomb stops at maxOutput.
struct Limits
{
    static constexpr qsizetype kDefaultMaxOutput = 16 * 1024 * 1024;
    qsizetype maxOutput = kDefaultMaxOutput; // bytes out of any one step
    int maxDepth = 256; // nesting of a structure
    qsizetype maxNodes = 1'000'000; // nodes of a structure
};

// A decoding, whole or up to where it stopped.
struct Result
{
    QList<Step> steps; // applied, in order
    QByteArray bytes; // after the last byte step (the value itself when there was none)
    std::optional<Node> tree; // when a structure step ended the chain
    // Where and why decoding stopped; empty when it did not. The offset is into the input of
    // the step that failed.
    QString error;
    std::optional<Format> failedFormat;
    qsizetype errorOffset = -1;

    bool ok() const { return error.isEmpty(); }
    // Some step stopped at Limits::maxOutput.
    bool truncated() const;
    bool decodedAnything() const { return !steps.isEmpty(); }
    // "base64 → gzip → JSON"; empty when nothing was decoded.
    QString chainText() const;
    // The value's size, and the size of what it decodes to (the text a structure was read from,
    // or the last byte step's output): "1.2 KiB → 14 KiB" is the caller's to format.
    qsizetype valueBytes() const { return steps.isEmpty() ? bytes.size() : steps.constFirst().inputBytes; }
    qsizetype decodedBytes() const;
};

} // namespace decode
