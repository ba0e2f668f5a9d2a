// SPDX-License-Identifier: GPL-3.0-or-later
#include "rediserror.h"

#include "redisvalue.h"

RedisError RedisError::make(Kind kind, const QString &message)
{
    RedisError e;
    e.kind = kind;
    e.message = message;
    return e;
}

RedisError RedisError::fromReply(const RedisValue &reply)
{
    RedisError e;
    if (!reply.isError())
        return e;
    e.code = reply.errorCode();
    e.message = QString::fromUtf8(reply.bytes()).simplified();
    static const struct
    {
        const char *code;
        Kind kind;
    } table[] = {
        {"NOPERM", Kind::NoPerm},
        {"WRONGPASS", Kind::Auth},
        {"NOAUTH", Kind::Auth},
        {"LOADING", Kind::Loading},
        {"BUSY", Kind::Busy},
        {"MOVED", Kind::Moved},
        {"ASK", Kind::Ask},
        {"READONLY", Kind::ReadOnly},
        {"OOM", Kind::Oom},
        {"CLUSTERDOWN", Kind::ClusterDown},
        {"WRONGTYPE", Kind::WrongType},
    };
    e.kind = Kind::Server;
    for (const auto &row : table) {
        if (e.code == row.code) {
            e.kind = row.kind;
            return e;
        }
    }
    // Older servers answer "ERR unknown command 'X'" with no dedicated prefix.
    if (e.code == "ERR" && (reply.bytes().contains("unknown command") || reply.bytes().contains("unknown subcommand")))
        e.kind = Kind::UnknownCommand;
    return e;
}

bool RedisError::isConnectionLevel() const
{
    switch (kind) {
    case Kind::ConnectionRefused:
    case Kind::ConnectionLost:
    case Kind::NotConnected:
    case Kind::Timeout:
    case Kind::Protocol: return true;
    default: return false;
    }
}

QString errorKindName(RedisError::Kind kind)
{
    switch (kind) {
    case RedisError::Kind::None: return QStringLiteral("none");
    case RedisError::Kind::ConnectionRefused: return QStringLiteral("connection refused");
    case RedisError::Kind::ConnectionLost: return QStringLiteral("connection lost");
    case RedisError::Kind::NotConnected: return QStringLiteral("not connected");
    case RedisError::Kind::Timeout: return QStringLiteral("timeout");
    case RedisError::Kind::Protocol: return QStringLiteral("protocol error");
    case RedisError::Kind::Cancelled: return QStringLiteral("cancelled");
    case RedisError::Kind::ReadOnlyRefused: return QStringLiteral("refused (read-only)");
    case RedisError::Kind::Auth: return QStringLiteral("authentication");
    case RedisError::Kind::NoPerm: return QStringLiteral("no permission");
    case RedisError::Kind::Loading: return QStringLiteral("loading");
    case RedisError::Kind::Busy: return QStringLiteral("busy");
    case RedisError::Kind::Moved: return QStringLiteral("moved");
    case RedisError::Kind::Ask: return QStringLiteral("ask");
    case RedisError::Kind::ReadOnly: return QStringLiteral("read-only replica");
    case RedisError::Kind::Oom: return QStringLiteral("out of memory");
    case RedisError::Kind::ClusterDown: return QStringLiteral("cluster down");
    case RedisError::Kind::UnknownCommand: return QStringLiteral("unknown command");
    case RedisError::Kind::WrongType: return QStringLiteral("wrong type");
    case RedisError::Kind::Server: return QStringLiteral("server error");
    }
    return {};
}
