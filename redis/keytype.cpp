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
