// SPDX-License-Identifier: GPL-3.0-or-later
#include "bytesescape.h"

#include <QStringBuilder>

namespace bytesescape {

namespace {

const char hexDigits[] = "0123456789abcdef";

void appendHex(QString &out, uchar c)
{
    out += QLatin1String("\\x");
    out += QLatin1Char(hexDigits[c >> 4]);
    out += QLatin1Char(hexDigits[c & 0xf]);
}

} // namespace

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int readableUtf8Length(const char *at, qsizetype left)
{
    const auto c = uchar(at[0]);
    int len = 0;
    char32_t cp = 0;
    if ((c & 0xe0) == 0xc0) {
        len = 2;
        cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        len = 3;
        cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (len > left)
        return 0;
    for (int k = 1; k < len; ++k) {
        const auto cc = uchar(at[k]);
        if ((cc & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (cc & 0x3f);
    }
    // Reject overlong forms, surrogates and values past U+10FFFF.
    static const char32_t minimum[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < minimum[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    // Invisible or layout-changing code points are escaped too.
    if ((cp >= 0x80 && cp < 0xa0) || cp == 0x2028 || cp == 0x2029 || cp == 0xfeff)
        return 0;
    return len;
}

QString escape(const QByteArray &bytes, bool keepUtf8)
{
    QString out;
    out.reserve(bytes.size());
    for (qsizetype i = 0; i < bytes.size(); ++i) {
        const auto c = uchar(bytes.at(i));
        switch (c) {
        case '\\': out += QLatin1String("\\\\"); continue;
        case '"': out += QLatin1String("\\\""); continue;
        case '\n': out += QLatin1String("\\n"); continue;
        case '\r': out += QLatin1String("\\r"); continue;
        case '\t': out += QLatin1String("\\t"); continue;
        case '\a': out += QLatin1String("\\a"); continue;
        case '\b': out += QLatin1String("\\b"); continue;
        default: break;
        }
        if (c >= 0x20 && c < 0x7f) {
            out += QLatin1Char(char(c));
            continue;
        }
        if (keepUtf8 && c >= 0x80) {
            if (const int len = readableUtf8Length(bytes.constData() + i, bytes.size() - i)) {
                out += QString::fromUtf8(bytes.constData() + i, len);
                i += len - 1;
                continue;
            }
        }
        appendHex(out, c);
    }
    return out;
}

QString quoteIfNeeded(const QByteArray &bytes)
{
    const QString escaped = escape(bytes);
    // Plain when escaping changed nothing (readable UTF-8 included) and no space would split it.
    bool plain = !bytes.isEmpty() && escaped == QString::fromUtf8(bytes);
    for (qsizetype i = 0; plain && i < bytes.size(); ++i)
        plain = bytes.at(i) != ' ' && bytes.at(i) != '\'';
    return plain ? escaped : QLatin1Char('"') + escaped + QLatin1Char('"');
}

QString escapeElided(const QByteArray &bytes, int maxChars)
{
    if (bytes.size() <= maxChars)
        return escape(bytes);
    const qsizetype head = maxChars * 2 / 3;
    const qsizetype tail = maxChars - head;
    return escape(bytes.left(head)) + QStringLiteral("…(%1 bytes)…").arg(bytes.size() - head - tail)
        + escape(bytes.right(tail));
}

std::optional<QByteArray> unescape(const QString &input, QString *error)
{
    QString text = input;
    // Strip surrounding quotes unless the closing one is itself escaped: it is escaped when an
    // odd number of backslashes precedes it ("a\\" ends in an escaped backslash, not quote).
    if (text.size() >= 2 && text.startsWith(QLatin1Char('"')) && text.endsWith(QLatin1Char('"'))) {
        qsizetype backslashes = 0;
        for (qsizetype i = text.size() - 2; i >= 1 && text.at(i) == QLatin1Char('\\'); --i)
            ++backslashes;
        if (backslashes % 2 == 0)
            text = text.mid(1, text.size() - 2);
    }
    const QByteArray utf8 = text.toUtf8();
    QByteArray out;
    out.reserve(utf8.size());
    auto fail = [error](const QString &why) -> std::optional<QByteArray> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    for (qsizetype i = 0; i < utf8.size(); ++i) {
        const char c = utf8.at(i);
        if (c != '\\') {
            out += c;
            continue;
        }
        if (++i >= utf8.size())
            return fail(QStringLiteral("a backslash at the end has nothing to escape"));
        switch (utf8.at(i)) {
        case '\\': out += '\\'; break;
        case '"': out += '"'; break;
        case '\'': out += '\''; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'a': out += '\a'; break;
        case 'b': out += '\b'; break;
        case 'x': {
            // Exactly two hex digits; QByteArray::toInt() would also take " f", "+f" or "-1".
            const int hi = i + 1 < utf8.size() ? hexValue(utf8.at(i + 1)) : -1;
            const int lo = i + 2 < utf8.size() ? hexValue(utf8.at(i + 2)) : -1;
            if (hi < 0 || lo < 0)
                return fail(QStringLiteral("\\x needs two hex digits at position %1").arg(i));
            out += char(hi << 4 | lo);
            i += 2;
            break;
        }
        default: return fail(QStringLiteral("unknown escape \\%1 at position %2").arg(QLatin1Char(utf8.at(i))).arg(i));
        }
    }
    return out;
}

QString hexDump(const QByteArray &bytes, qsizetype maxBytes)
{
    QString out;
    const qsizetype n = qMin(bytes.size(), maxBytes);
    out.reserve(n / 16 * 78 + 80);
    for (qsizetype row = 0; row < n; row += 16) {
        out += QStringLiteral("%1  ").arg(row, 8, 16, QLatin1Char('0'));
        for (qsizetype k = 0; k < 16; ++k) {
            if (row + k < n) {
                const auto c = uchar(bytes.at(row + k));
                out += QLatin1Char(hexDigits[c >> 4]);
                out += QLatin1Char(hexDigits[c & 0xf]);
                out += QLatin1Char(' ');
            } else {
                out += QLatin1String("   ");
            }
            if (k == 7)
                out += QLatin1Char(' ');
        }
        out += QLatin1String(" |");
        for (qsizetype k = 0; k < 16 && row + k < n; ++k) {
            const auto c = uchar(bytes.at(row + k));
            out += (c >= 0x20 && c < 0x7f) ? QLatin1Char(char(c)) : QLatin1Char('.');
        }
        out += QLatin1String("|\n");
    }
    if (bytes.size() > n)
        out += QStringLiteral("… %1 more bytes not shown\n").arg(bytes.size() - n);
    return out;
}

bool isValidUtf8(const QByteArray &bytes)
{
    return bytes.isValidUtf8(); // no throw-away QString
}

} // namespace bytesescape
