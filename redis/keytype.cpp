// SPDX-License-Identifier: GPL-3.0-or-later
#include "keytype.h"

KeyType keyTypeFromReply(const QByteArray &t)
{
    if (t == "string")
        return KeyType::String;
    if (t == "hash")
        return KeyType::Hash;
    if (t == "list")
        return KeyType::List;
    if (t == "set")
        return KeyType::Set;
    if (t == "zset")
        return KeyType::ZSet;
    if (t == "stream")
        return KeyType::Stream;
    if (t == "none")
        return KeyType::None;
    if (t.isEmpty())
        return KeyType::Unknown;
    return KeyType::Module; // module types report their own names
}

QString keyTypeName(KeyType type)
{
    switch (type) {
    case KeyType::Unknown: return {};
    case KeyType::None: return QStringLiteral("none");
    case KeyType::String: return QStringLiteral("string");
    case KeyType::List: return QStringLiteral("list");
    case KeyType::Set: return QStringLiteral("set");
    case KeyType::ZSet: return QStringLiteral("zset");
    case KeyType::Hash: return QStringLiteral("hash");
    case KeyType::Stream: return QStringLiteral("stream");
    case KeyType::Module: return QStringLiteral("module");
    }
    return {};
}

QByteArray keyTypeScanArgument(KeyType type)
{
    switch (type) {
    case KeyType::String: return "string";
    case KeyType::List: return "list";
    case KeyType::Set: return "set";
    case KeyType::ZSet: return "zset";
    case KeyType::Hash: return "hash";
    case KeyType::Stream: return "stream";
    default: return {};
    }
}

QByteArray keyTypeLengthCommand(KeyType type)
{
    // Shared instances: a scan sizes a million keys with these.
    static const QByteArray strlen("STRLEN"), llen("LLEN"), scard("SCARD"), zcard("ZCARD"), hlen("HLEN"), xlen("XLEN");
    switch (type) {
    case KeyType::String: return strlen;
    case KeyType::List: return llen;
    case KeyType::Set: return scard;
    case KeyType::ZSet: return zcard;
    case KeyType::Hash: return hlen;
    case KeyType::Stream: return xlen;
    default: return {};
    }
}

QString keyTypeLengthUnit(KeyType type)
{
    switch (type) {
    case KeyType::String: return QStringLiteral("bytes");
    case KeyType::List: return QStringLiteral("items");
    case KeyType::Set: return QStringLiteral("members");
    case KeyType::ZSet: return QStringLiteral("members");
    case KeyType::Hash: return QStringLiteral("fields");
    case KeyType::Stream: return QStringLiteral("entries");
    default: return {};
    }
}
