// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>

// The data type of a key as TYPE reports it; None means the key is gone.
enum class KeyType : quint8 { Unknown, None, String, List, Set, ZSet, Hash, Stream, Module };

KeyType keyTypeFromReply(const QByteArray &typeName);
QString keyTypeName(KeyType type);
// The argument SCAN's TYPE filter takes, or empty for Unknown/None.
QByteArray keyTypeScanArgument(KeyType type);
// The command that sizes a key of this type, as redis-cli --bigkeys counts it: STRLEN (bytes),
// LLEN, SCARD, ZCARD, HLEN, XLEN (elements). Empty for types without one.
QByteArray keyTypeLengthCommand(KeyType type);
// What that command counts: "bytes" for strings, else "items", "members", "fields", "entries".
QString keyTypeLengthUnit(KeyType type);
