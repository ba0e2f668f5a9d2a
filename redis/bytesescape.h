// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <optional>

// Keys and values are bytes. These turn them into text for display and back, redis-cli style:
// printable ASCII as is, \" \\ \n \r \t \a \b, everything else \xHH. The escape is reversible,
// so a name copied from the screen can be typed back and addresses the same bytes.
namespace bytesescape {

// Escapes bytes for display. Valid UTF-8 beyond ASCII is kept readable when 'keepUtf8' is set;
// control characters and invalid sequences are always escaped.
QString escape(const QByteArray &bytes, bool keepUtf8 = true);

// The length (2..4) of the UTF-8 sequence at 'at' that escape() keeps readable, or 0 when it
// escapes the byte: invalid, overlong, a surrogate, or an invisible or layout-changing code
// point. 'left' is how many bytes there are from 'at' on.
int readableUtf8Length(const char *at, qsizetype left);

// Like escape(), but wrapped in quotes when escaping changed anything or the text is empty.
QString quoteIfNeeded(const QByteArray &bytes);

// Shortens long displays in the middle; the result says how many bytes were left out.
QString escapeElided(const QByteArray &bytes, int maxChars);

// Reverses escape(): accepts \xHH, \n, \r, \t, \a, \b, \", \\ and plain UTF-8 text. Surrounding
// double quotes are removed. Returns nullopt (and the reason) on a malformed escape.
std::optional<QByteArray> unescape(const QString &text, QString *error = nullptr);

// The value of one hex digit (either case), or -1.
int hexValue(char c);

// Hex dump lines: offset, 16 bytes, ASCII column.
QString hexDump(const QByteArray &bytes, qsizetype maxBytes = 64 * 1024);

// True when the bytes decode as UTF-8 without errors.
bool isValidUtf8(const QByteArray &bytes);

} // namespace bytesescape
