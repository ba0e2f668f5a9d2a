// SPDX-License-Identifier: GPL-3.0-or-later
// Shared by the decoders' translation units: the bounded output buffer and the entry points of
// each family of steps.
#pragma once

#include "decoders.h"

#include <cstddef>

namespace decode::detail {

// Output that grows as a decoder writes, never past its cap. A decoder asks for room, writes
// into it and says how much it wrote; no room means the cap is reached.
class Sink
{
public:
    explicit Sink(qsizetype cap, qsizetype expected = 0);
    // Where to write next and how much fits there; false once the cap is reached.
    bool room(char **at, std::size_t *size);
    void wrote(std::size_t n) { m_used += qsizetype(n); }
    qsizetype size() const { return m_used; }
    bool full() const { return m_used >= m_cap; }
    QByteArray take();

private:
    QByteArray m_buffer;
    qsizetype m_used = 0;
    qsizetype m_cap;
};

StepOutput fail(const QString &why, qsizetype offset);

StepOutput inflate(const QByteArray &input, Format format, const Limits &limits); // gzip, zlib, deflate
StepOutput lz4Frame(const QByteArray &input, const Limits &limits);
StepOutput lz4Block(const QByteArray &input, const Limits &limits);
StepOutput snappyRaw(const QByteArray &input, const Limits &limits);
StepOutput snappyFramed(const QByteArray &input, const Limits &limits);
StepOutput zstd(const QByteArray &input, const Limits &limits);
StepOutput brotli(const QByteArray &input, const Limits &limits);

StepOutput base64(const QByteArray &input, bool url);
StepOutput hex(const QByteArray &input);

StepOutput json(const QByteArray &input, const Limits &limits);
StepOutput cbor(const QByteArray &input, const Limits &limits);
StepOutput msgpack(const QByteArray &input, const Limits &limits);
StepOutput pickle(const QByteArray &input, const Limits &limits);
StepOutput javaSerialization(const QByteArray &input, const Limits &limits); // javaser.cpp
StepOutput rubyMarshal(const QByteArray &input, const Limits &limits); // marshal.cpp
StepOutput phpSerialize(const QByteArray &input, const Limits &limits); // phpserialize.cpp
StepOutput protobuf(const QByteArray &input, const Limits &limits); // protobuf.cpp

// Cheap checks for detection, no decoding.
bool looksLikeBase64(const QByteArray &input, bool url);
bool looksLikeHex(const QByteArray &input);
bool snappyRawValid(const QByteArray &input);
bool looksLikePickle(const QByteArray &input);
bool looksLikeJavaSerialization(const QByteArray &input); // the stream magic, version 5
bool looksLikeRubyMarshal(const QByteArray &input); // version 4.8 and a known first type
bool looksLikePhpSerialize(const QByteArray &input); // a serialize() value's first token

} // namespace decode::detail
