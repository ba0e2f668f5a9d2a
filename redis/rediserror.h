// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QMetaType>
#include <QString>

class RedisValue;

// Why a request produced no usable reply. Connection-level kinds come from the client; the
// rest are mapped from the prefix of the server's error reply.
struct RedisError
{
    enum class Kind : quint8 {
        None,
        ConnectionRefused,
        ConnectionLost,
        NotConnected,
        Timeout,
        Protocol,
        Cancelled,
        ReadOnlyRefused, // refused by RedisLens because the connection is read-only
        Auth, // WRONGPASS / NOAUTH
        NoPerm,
        Loading,
        Busy,
        Moved,
        Ask,
        ReadOnly, // the server is a replica
        Oom,
        ClusterDown,
        UnknownCommand,
        WrongType,
        Server, // any other error reply
    };

    Kind kind = Kind::None;
    QByteArray code; // the server's prefix, e.g. "NOPERM"
    QString message; // one line, ready for the screen

    bool isError() const { return kind != Kind::None; }
    explicit operator bool() const { return isError(); }

    static RedisError make(Kind kind, const QString &message);
    // Maps an error reply; returns kind None for anything that is not an error.
    static RedisError fromReply(const RedisValue &reply);
    // Connection-level errors fail every request in flight; server errors fail one command.
    bool isConnectionLevel() const;
};

Q_DECLARE_METATYPE(RedisError)

QString errorKindName(RedisError::Kind kind);
