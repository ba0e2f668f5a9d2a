// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redisvalue.h"

struct redisReply;

// The two places where RESP meets our types; hiredis does the protocol work.
namespace resp {

// Formats commands with redisFormatCommandArgv, one after the other, ready to write.
QByteArray formatCommands(const QList<QList<QByteArray>> &commands);

// Converts a parsed hiredis reply, keeping RESP3 kinds where this hiredis has them.
RedisValue fromHiredis(const redisReply *reply);

// Parses a complete byte buffer of replies (recorded replies in tests). Returns false on a
// protocol error or when the buffer ends inside a reply.
bool parseAll(const QByteArray &bytes, QList<RedisValue> *out, QString *error = nullptr);

} // namespace resp
