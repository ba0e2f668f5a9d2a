// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "decoded.h"

#include <QJsonValue>

// Values as their writers meant them: decompression, text encodings and serialization formats,
// each decoded with the library made for it (zlib, liblz4, libsnappy, libzstd, libbrotli,
// msgpack-cxx, Qt's JSON and CBOR) or, where none exists, a reader of the format's grammar
// (Python pickle). Nothing here executes anything; every output is bounded by Limits. Pure
// functions on bytes: safe on any thread.
namespace decode {

// What one step made of its input.
struct StepOutput
{
    QByteArray bytes; // a byte step's output
    std::optional<Node> tree; // a structure step's output
    qsizetype consumed = 0; // input bytes used
    bool truncated = false; // stopped at Limits::maxOutput
    QString error; // empty when it worked
    qsizetype errorOffset = -1;
    bool ok() const { return error.isEmpty(); }
};

// Applies one step to 'input'. A structure must use the whole input (trailing bytes are an
// error at their offset).
StepOutput apply(Format format, const QByteArray &input, const Limits &limits = {});

// The formats 'input' may be, from its magic bytes and grammar, most likely first; without
// the ones that have no magic (Brotli, LZ4 block, raw deflate), which only rules name.
QList<Format> candidates(const QByteArray &input);

// Decodes 'value' by detection: up to 'maxSteps' steps, each the first candidate that works.
// A text encoding (base64, hex) is taken only when what it decodes to is itself recognised, so
// a word that happens to be valid base64 stays a word. Nothing recognised: no steps, ok.
Result detect(const QByteArray &value, const Limits &limits = {}, int maxSteps = 4);

// Decodes 'value' with the steps given (a rule, --decode), in order. It stops at the first
// that fails, with the bytes decoded so far and where and why it stopped.
Result decodeWith(const QList<Format> &steps, const QByteArray &value, const Limits &limits = {});

// "base64,gzip,json" → the formats; false and why for an unknown name or a structure that is
// not last.
bool parseChain(const QString &text, QList<Format> *steps, QString *why);

// The tree as indented text, one entry a line ("key: value", containers with their size).
QString treeText(const Node &node, int maxLines = 100'000);

// The tree as JSON, for output that programs read: maps as objects keyed by their entries' key
// text (with "$type" when the writer named one: a class, a tag), lists as arrays, bytes as
// {"$bytes": HEX}, integers beyond 64 bits and non-finite reals as their text.
QJsonValue toJson(const Node &node);

} // namespace decode
