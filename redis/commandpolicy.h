// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QList>
#include <QSet>
#include <QString>

class RedisValue;

// What a read-only connection may send. Built from the server's own `COMMAND` reply, so it is
// right for the server's version and modules: a command (or subcommand) is allowed when the
// server flags it `readonly` (and not `write` or `admin`), or when it is connection handling or
// introspection that changes no data (PING, SELECT, INFO, CONFIG GET, SLOWLOG GET, ...).
// Everything else is refused, including EVAL, FCALL and PUBLISH, which carry no `write` flag.
// When the server does not let us ask, a built-in list of read commands is used instead.
class CommandPolicy
{
public:
    // Allows everything (a read-write connection).
    CommandPolicy() = default;

    static CommandPolicy fromCommandReply(const RedisValue &reply);
    static CommandPolicy builtinReadOnly();

    // Why a command is sent, where that changes the answer. SCRIPT KILL is refused on a
    // read-only connection: the running script belongs to some application, whose request it
    // would fail. The one exception is StopOwnReadOnlyScript: the console stopping the script it
    // started itself with EVAL_RO / EVALSHA_RO, which cannot have written, so stopping it loses
    // nothing and ends a BUSY server that RedisLens caused.
    enum class Purpose : quint8 { Normal, StopOwnReadOnlyScript };

    bool isReadOnly() const { return m_readOnly; }
    bool fromServer() const { return m_fromServer; }
    // Empty when allowed, otherwise a one-line reason.
    QString refusal(const QList<QByteArray> &argv, Purpose purpose = Purpose::Normal) const;

private:
    bool m_readOnly = false;
    bool m_fromServer = false;
    QSet<QByteArray> m_allowed; // lower-case "name" or "name|sub"
    QSet<QByteArray> m_containers; // commands that have subcommands
};
