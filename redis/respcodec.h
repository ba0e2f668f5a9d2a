// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redisvalue.h"

#include <QString>

struct redisReader;

// The two places where RESP meets our types; hiredis does the protocol work.
namespace resp {

// Formats commands as RESP multibulk requests, one after the other, ready to write.
QByteArray formatCommands(const QList<QList<QByteArray>> &commands);
// The same through hiredis's redisFormatCommandArgv: the reference formatCommands is held to.
QByteArray formatWithHiredis(const QList<QList<QByteArray>> &commands);

// Incremental parser: bytes in, RedisValues out. hiredis parses and calls back into this
// code to build each value directly (no intermediate redisReply tree to copy and free).
class ReplyReader
{
public:
    ReplyReader();
    ~ReplyReader();
    ReplyReader(const ReplyReader &) = delete;
    ReplyReader &operator=(const ReplyReader &) = delete;

    // False on a protocol error (see error()).
    bool feed(const char *data, qsizetype length);
    enum class Result { Reply, NeedMore, Error };
    Result next(RedisValue *out);
    QString error() const;

private:
    ::redisReader *m_reader;
    QString m_refusal; // why RespBuilder refused a value (hiredis only knows it failed)
};

// Parses a complete byte buffer of replies (recorded replies in tests). Returns false on a
// protocol error or when the buffer ends inside a reply.
bool parseAll(const QByteArray &bytes, QList<RedisValue> *out, QString *error = nullptr);

} // namespace resp
