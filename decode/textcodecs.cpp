// SPDX-License-Identifier: GPL-3.0-or-later
// Text encodings of bytes: base64 (standard and URL-safe, padded or not) and hex, strictly: a
// single character out of the alphabet is an error at its offset, so ordinary text is not
// mistaken for an encoding.
#include "decoders_p.h"

namespace decode::detail {

namespace {

bool isSpace(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// The offset of the first byte outside the alphabet (trailing '=' padding and line breaks
// allowed), or -1.
qsizetype firstOutside(const QByteArray &input, bool url)
{
    qsizetype padding = 0;
    for (qsizetype i = 0; i < input.size(); ++i) {
        const char c = input.at(i);
        const bool alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        const bool extra = url ? (c == '-' || c == '_') : (c == '+' || c == '/');
        if (c == '=') {
            ++padding;
            continue;
        }
        if (c == '\n' || c == '\r')
            continue;
        if (padding > 0 || !(alnum || extra))
            return i;
    }
    return padding > 2 ? input.size() - padding : -1;
}

} // namespace

bool looksLikeBase64(const QByteArray &input, bool url)
{
    // At least two groups, and a length that base64 can have (line breaks aside).
    if (firstOutside(input, url) >= 0)
        return false;
    const qsizetype length = input.size() - input.count('\n') - input.count('\r');
    if (length < 8)
        return false;
    const bool padded = input.trimmed().endsWith('=');
    return padded ? length % 4 == 0 : length % 4 != 1;
}

StepOutput base64(const QByteArray &input, bool url)
{
    if (const qsizetype bad = firstOutside(input, url); bad >= 0)
        return fail(url ? QStringLiteral("not base64url: an unexpected character")
                        : QStringLiteral("not base64: an unexpected character"),
                    bad);
    QByteArray compact = input;
    compact.replace('\n', QByteArray()).replace('\r', QByteArray());
    const auto options
        = (url ? QByteArray::Base64UrlEncoding : QByteArray::Base64Encoding) | QByteArray::AbortOnBase64DecodingErrors;
    const QByteArray::FromBase64Result r = QByteArray::fromBase64Encoding(compact, options);
    if (!r)
        return fail(QStringLiteral("not valid base64 (its length or padding)"), input.size());
    StepOutput out;
    out.bytes = r.decoded;
    out.consumed = input.size();
    return out;
}

bool looksLikeHex(const QByteArray &input)
{
    qsizetype digits = 0;
    for (const char c : input) {
        if (isSpace(c))
            continue;
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return false;
        ++digits;
    }
    return digits >= 4 && digits % 2 == 0;
}

StepOutput hex(const QByteArray &input)
{
    QByteArray out;
    out.reserve(input.size() / 2);
    int high = -1;
    for (qsizetype i = 0; i < input.size(); ++i) {
        const char c = input.at(i);
        if (isSpace(c))
            continue;
        int v = -1;
        if (c >= '0' && c <= '9')
            v = c - '0';
        else if (c >= 'a' && c <= 'f')
            v = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            v = c - 'A' + 10;
        if (v < 0)
            return fail(QStringLiteral("not hex: an unexpected character"), i);
        if (high < 0) {
            high = v;
        } else {
            out.append(char(high << 4 | v));
            high = -1;
        }
    }
    if (high >= 0)
        return fail(QStringLiteral("not hex: an odd number of digits"), input.size());
    StepOutput r;
    r.bytes = std::move(out);
    r.consumed = input.size();
    return r;
}

} // namespace decode::detail
