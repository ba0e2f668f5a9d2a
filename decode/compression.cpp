// SPDX-License-Identifier: GPL-3.0-or-later
// Decompression, each with the library made for it, every output bounded by the Sink's cap: a
// value that expands past it is decoded up to the cap and marked truncated (Snappy, which has no
// partial decoding, says how large it would be instead).
#include "decoders_p.h"

#include <brotli/decode.h>
#include <lz4.h>
#include <lz4frame.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include <QtEndian>
#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <memory>

namespace decode::detail {

Sink::Sink(qsizetype cap, qsizetype expected) : m_cap(std::max<qsizetype>(cap, 0))
{
    // A size the format announces is a hint, not a promise: never allocate past the cap for it.
    if (expected > 0)
        m_buffer.resize(std::min(expected, m_cap));
}

bool Sink::room(char **at, std::size_t *size)
{
    if (m_used >= m_cap)
        return false;
    if (m_used == m_buffer.size()) {
        const qsizetype grown = std::min(m_cap, std::max<qsizetype>(64 * 1024, m_buffer.size() * 2));
        m_buffer.resize(grown);
    }
    *at = m_buffer.data() + m_used;
    *size = std::size_t(m_buffer.size() - m_used);
    return true;
}

QByteArray Sink::take()
{
    // Give back what the growth left unused only when it is worth a copy.
    const bool wasteful = m_buffer.size() - m_used > m_used / 4;
    m_buffer.resize(m_used);
    if (wasteful)
        m_buffer.squeeze();
    return std::move(m_buffer);
}

StepOutput fail(const QString &why, qsizetype offset)
{
    StepOutput out;
    out.error = why;
    out.errorOffset = offset;
    return out;
}

namespace {

StepOutput done(Sink &sink, qsizetype consumed, bool truncated)
{
    StepOutput out;
    out.truncated = truncated;
    out.consumed = consumed;
    out.bytes = sink.take();
    return out;
}

QString trailing(qsizetype n)
{
    return n == 1 ? QStringLiteral("1 byte after the end of the stream")
                  : QStringLiteral("%1 bytes after the end of the stream").arg(n);
}

} // namespace

StepOutput inflate(const QByteArray &input, Format format, const Limits &limits)
{
    const int windowBits = format == Format::Gzip ? 16 + MAX_WBITS : format == Format::Zlib ? MAX_WBITS : -MAX_WBITS;
    z_stream z{};
    if (inflateInit2(&z, windowBits) != Z_OK)
        return fail(QStringLiteral("zlib could not start"), 0);
    const std::unique_ptr<z_stream, int (*)(z_stream *)> guard(&z, inflateEnd);
    z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(input.constData()));
    z.avail_in = uInt(input.size());
    Sink sink(limits.maxOutput, qsizetype(input.size()) * 4);
    for (;;) {
        char *at = nullptr;
        std::size_t size = 0;
        if (!sink.room(&at, &size))
            return done(sink, input.size() - qsizetype(z.avail_in), true);
        z.next_out = reinterpret_cast<Bytef *>(at);
        z.avail_out = uInt(std::min<std::size_t>(size, 1u << 30));
        const uInt before = z.avail_out;
        const int r = ::inflate(&z, Z_NO_FLUSH);
        sink.wrote(before - z.avail_out);
        const qsizetype used = input.size() - qsizetype(z.avail_in);
        if (r == Z_STREAM_END) {
            // gzip allows members one after another (cat a.gz b.gz): their contents follow.
            if (format == Format::Gzip && z.avail_in >= 2 && z.next_in[0] == 0x1f && z.next_in[1] == 0x8b) {
                inflateReset(&z);
                continue;
            }
            if (z.avail_in > 0)
                return fail(trailing(qsizetype(z.avail_in)), used);
            return done(sink, used, false);
        }
        if (r == Z_BUF_ERROR && z.avail_in == 0)
            return fail(QStringLiteral("the stream ends early (truncated)"), used);
        if (r != Z_OK && r != Z_BUF_ERROR)
            return fail(QString::fromLatin1(z.msg ? z.msg : "corrupt data"), used);
    }
}

StepOutput lz4Frame(const QByteArray &input, const Limits &limits)
{
    LZ4F_dctx *ctx = nullptr;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&ctx, LZ4F_VERSION)))
        return fail(QStringLiteral("liblz4 could not start"), 0);
    const std::unique_ptr<LZ4F_dctx, LZ4F_errorCode_t (*)(LZ4F_dctx *)> guard(ctx, LZ4F_freeDecompressionContext);
    Sink sink(limits.maxOutput, qsizetype(input.size()) * 4);
    const char *in = input.constData();
    qsizetype pos = 0;
    std::size_t hint = 1;
    while (pos < input.size()) {
        char *at = nullptr;
        std::size_t size = 0;
        if (!sink.room(&at, &size))
            return done(sink, pos, true);
        std::size_t srcSize = std::size_t(input.size() - pos);
        hint = LZ4F_decompress(ctx, at, &size, in + pos, &srcSize, nullptr);
        sink.wrote(size);
        pos += qsizetype(srcSize);
        if (LZ4F_isError(hint))
            return fail(QString::fromLatin1(LZ4F_getErrorName(hint)), pos);
        if (hint == 0 && pos < input.size()) {
            // A frame ended: another may follow (lz4 concatenates them), or garbage.
            if (input.size() - pos < 4 || qFromLittleEndian<quint32>(in + pos) != 0x184D2204u)
                return fail(trailing(input.size() - pos), pos);
        }
    }
    // All input used: the frame may still hold output the last call had no room for.
    while (hint != 0) {
        char *at = nullptr;
        std::size_t size = 0;
        if (!sink.room(&at, &size))
            return done(sink, pos, true);
        std::size_t srcSize = 0;
        hint = LZ4F_decompress(ctx, at, &size, in + pos, &srcSize, nullptr);
        sink.wrote(size);
        if (LZ4F_isError(hint))
            return fail(QString::fromLatin1(LZ4F_getErrorName(hint)), pos);
        if (size == 0 && hint != 0)
            return fail(QStringLiteral("the frame ends early (truncated)"), pos);
    }
    return done(sink, pos, false);
}

StepOutput lz4Block(const QByteArray &input, const Limits &limits)
{
    // python-lz4's block format (and others'): the uncompressed size, 4 bytes little-endian,
    // then the block.
    if (input.size() < 4)
        return fail(QStringLiteral("shorter than the 4-byte size an LZ4 block starts with"), 0);
    const qint64 size = qFromLittleEndian<quint32>(input.constData());
    if (size > std::numeric_limits<int>::max())
        return fail(QStringLiteral("announces %1 bytes, more than a block can hold").arg(size), 0);
    const qsizetype wanted = std::min<qsizetype>(qsizetype(size), limits.maxOutput);
    QByteArray out(wanted, Qt::Uninitialized);
    const int n = LZ4_decompress_safe_partial(input.constData() + 4, out.data(), int(input.size() - 4), int(wanted),
                                              int(wanted));
    if (n < 0)
        return fail(QStringLiteral("corrupt LZ4 block"), 4 + qsizetype(-n));
    if (n != wanted)
        return fail(QStringLiteral("the block holds %1 of the %2 bytes it announces").arg(n).arg(size), input.size());
    StepOutput r;
    r.bytes = std::move(out);
    r.consumed = input.size();
    r.truncated = wanted < size;
    return r;
}

bool snappyRawValid(const QByteArray &input)
{
    std::size_t n = 0;
    return !input.isEmpty() && snappy_uncompressed_length(input.constData(), std::size_t(input.size()), &n) == SNAPPY_OK
        && snappy_validate_compressed_buffer(input.constData(), std::size_t(input.size())) == SNAPPY_OK;
}

StepOutput snappyRaw(const QByteArray &input, const Limits &limits)
{
    std::size_t n = 0;
    if (snappy_uncompressed_length(input.constData(), std::size_t(input.size()), &n) != SNAPPY_OK)
        return fail(QStringLiteral("no Snappy length at the start"), 0);
    if (qint64(n) > limits.maxOutput)
        // libsnappy decodes a block whole or not at all.
        return fail(QStringLiteral("would expand to %1 bytes, past the cap of %2").arg(n).arg(limits.maxOutput), 0);
    if (snappy_validate_compressed_buffer(input.constData(), std::size_t(input.size())) != SNAPPY_OK)
        return fail(QStringLiteral("corrupt Snappy data"), 0);
    QByteArray out(qsizetype(n), Qt::Uninitialized);
    if (snappy_uncompress(input.constData(), std::size_t(input.size()), out.data(), &n) != SNAPPY_OK)
        return fail(QStringLiteral("corrupt Snappy data"), 0);
    out.resize(qsizetype(n));
    StepOutput r;
    r.bytes = std::move(out);
    r.consumed = input.size();
    return r;
}

namespace {

// CRC-32C (Castagnoli), as the Snappy framing format checks each chunk with, masked as it says.
quint32 crc32c(const char *data, std::size_t size)
{
    static const std::array<quint32, 256> table = [] {
        std::array<quint32, 256> t{};
        for (quint32 i = 0; i < 256; ++i) {
            quint32 c = i;
            for (int k = 0; k < 8; ++k)
                c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
            t[i] = c;
        }
        return t;
    }();
    quint32 c = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < size; ++i)
        c = table[(c ^ quint8(data[i])) & 0xFF] ^ (c >> 8);
    const quint32 crc = c ^ 0xFFFFFFFFu;
    return ((crc >> 15) | (crc << 17)) + 0xA282EAD8u;
}

} // namespace

StepOutput snappyFramed(const QByteArray &input, const Limits &limits)
{
    static const char kIdentifier[] = "sNaPpY";
    Sink sink(limits.maxOutput, qsizetype(input.size()) * 2);
    const char *in = input.constData();
    qsizetype pos = 0;
    bool started = false;
    while (pos < input.size()) {
        if (input.size() - pos < 4)
            return fail(QStringLiteral("a chunk header is cut short"), pos);
        const quint8 type = quint8(in[pos]);
        const qsizetype length = qsizetype(quint8(in[pos + 1])) | qsizetype(quint8(in[pos + 2])) << 8
            | qsizetype(quint8(in[pos + 3])) << 16;
        const qsizetype body = pos + 4;
        if (input.size() - body < length)
            return fail(QStringLiteral("a chunk of %1 bytes is cut short").arg(length), pos);
        if (!started && type != 0xff)
            return fail(QStringLiteral("no stream identifier at the start"), pos);
        if (type == 0xff) {
            if (length != 6 || std::memcmp(in + body, kIdentifier, 6) != 0)
                return fail(QStringLiteral("a bad stream identifier"), pos);
            started = true;
        } else if (type == 0x00 || type == 0x01) {
            if (length < 4)
                return fail(QStringLiteral("a data chunk without its checksum"), pos);
            const quint32 expected = qFromLittleEndian<quint32>(in + body);
            QByteArray data;
            if (type == 0x00) {
                const StepOutput chunk = snappyRaw(QByteArray::fromRawData(in + body + 4, length - 4), limits);
                if (!chunk.ok())
                    return fail(chunk.error, body + 4);
                data = chunk.bytes;
            } else {
                data = QByteArray::fromRawData(in + body + 4, length - 4);
            }
            if (crc32c(data.constData(), std::size_t(data.size())) != expected)
                return fail(QStringLiteral("a chunk's checksum does not match"), pos);
            qsizetype copied = 0;
            while (copied < data.size()) {
                char *at = nullptr;
                std::size_t size = 0;
                if (!sink.room(&at, &size))
                    return done(sink, pos, true);
                const std::size_t n = std::min<std::size_t>(size, std::size_t(data.size() - copied));
                std::memcpy(at, data.constData() + copied, n);
                sink.wrote(n);
                copied += qsizetype(n);
            }
        } else if (type >= 0x02 && type <= 0x7f) {
            return fail(QStringLiteral("a reserved chunk type (0x%1)").arg(type, 2, 16, QLatin1Char('0')), pos);
        } // 0x80–0xfe: padding and skippable chunks
        pos = body + length;
    }
    return done(sink, pos, false);
}

StepOutput zstd(const QByteArray &input, const Limits &limits)
{
    ZSTD_DStream *stream = ZSTD_createDStream();
    if (!stream)
        return fail(QStringLiteral("libzstd could not start"), 0);
    const std::unique_ptr<ZSTD_DStream, std::size_t (*)(ZSTD_DStream *)> guard(stream, ZSTD_freeDStream);
    // A new stream is ready for its first frame: it needs no init call.
    Sink sink(limits.maxOutput, qsizetype(input.size()) * 4);
    ZSTD_inBuffer in{input.constData(), std::size_t(input.size()), 0};
    std::size_t r = 1;
    while (in.pos < in.size || r != 0) {
        char *at = nullptr;
        std::size_t size = 0;
        if (!sink.room(&at, &size))
            return done(sink, qsizetype(in.pos), true);
        ZSTD_outBuffer out{at, size, 0};
        const std::size_t before = in.pos;
        r = ZSTD_decompressStream(stream, &out, &in);
        sink.wrote(out.pos);
        if (ZSTD_isError(r))
            return fail(QString::fromLatin1(ZSTD_getErrorName(r)), qsizetype(in.pos));
        if (r != 0 && in.pos == in.size && out.pos == 0 && before == in.pos)
            return fail(QStringLiteral("the frame ends early (truncated)"), qsizetype(in.pos));
    }
    return done(sink, qsizetype(in.pos), false);
}

StepOutput brotli(const QByteArray &input, const Limits &limits)
{
    BrotliDecoderState *state = BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
    if (!state)
        return fail(QStringLiteral("libbrotli could not start"), 0);
    const std::unique_ptr<BrotliDecoderState, void (*)(BrotliDecoderState *)> guard(state,
                                                                                    BrotliDecoderDestroyInstance);
    Sink sink(limits.maxOutput, qsizetype(input.size()) * 4);
    std::size_t availIn = std::size_t(input.size());
    const auto *nextIn = reinterpret_cast<const uint8_t *>(input.constData());
    for (;;) {
        char *at = nullptr;
        std::size_t size = 0;
        const qsizetype used = input.size() - qsizetype(availIn);
        if (!sink.room(&at, &size))
            return done(sink, used, true);
        std::size_t availOut = size;
        auto *nextOut = reinterpret_cast<uint8_t *>(at);
        const BrotliDecoderResult r
            = BrotliDecoderDecompressStream(state, &availIn, &nextIn, &availOut, &nextOut, nullptr);
        sink.wrote(size - availOut);
        const qsizetype now = input.size() - qsizetype(availIn);
        switch (r) {
        case BROTLI_DECODER_RESULT_SUCCESS:
            if (availIn > 0)
                return fail(trailing(qsizetype(availIn)), now);
            return done(sink, now, false);
        case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT:
            return fail(QStringLiteral("the stream ends early (truncated)"), now);
        case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: break;
        case BROTLI_DECODER_RESULT_ERROR:
        default: return fail(QString::fromLatin1(BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state))), now);
        }
    }
}

} // namespace decode::detail
