// SPDX-License-Identifier: GPL-3.0-or-later
#include "scriptcall.h"

#include "redisclient.h"
#include "scriptlibrary.h"

#include <QCryptographicHash>

namespace scriptcall {

namespace {

RedisCommand scriptCommand(const QByteArray &verb, const QByteArray &body, const QList<QByteArray> &keys,
                           const QList<QByteArray> &args)
{
    RedisCommand c{verb, body, QByteArray::number(keys.size())};
    c.append(keys);
    c.append(args);
    return c;
}

} // namespace

RequestId run(RedisClient *client, const QByteArray &source, const QByteArray &sha1, const QList<QByteArray> &keys,
              const QList<QByteArray> &args, QObject *context, std::function<void(const RedisReply &)> done,
              bool readOnly, int timeoutMs)
{
    const RedisCommand call
        = scriptCommand(readOnly ? QByteArrayLiteral("EVALSHA_RO") : QByteArrayLiteral("EVALSHA"), sha1, keys, args);
    // Read-only: EVAL_RO carries the source itself; SCRIPT LOAD would be refused by the client.
    // (On a cluster the router sends SCRIPT LOAD to every primary.)
    const QList<RedisCommand> retry = readOnly ? QList<RedisCommand>{scriptCommand("EVAL_RO", source, keys, args)}
                                               : QList<RedisCommand>{RedisCommand{"SCRIPT", "LOAD", source}, call};
    return client->send(
        call, context,
        [client, retry, context, done = std::move(done), timeoutMs](const RedisReply &first) {
            if (!first.ok() || !ScriptLibrary::isNoScript(first.value())) {
                done(first);
                return;
            }
            client->sendBatch(
                retry, context,
                [done, spent = first.elapsedUs](const RedisReply &second) {
                    RedisReply r = second;
                    r.elapsedUs += spent;
                    if (r.ok() && r.values.size() == 2) {
                        // A failed SCRIPT LOAD (a syntax error, NOPERM) is the answer.
                        const RedisValue loaded = r.value(0);
                        r.values = {loaded.isError() ? loaded : r.value(1)};
                    }
                    done(r);
                },
                timeoutMs);
        },
        timeoutMs);
}

void run(RedisClient *client, const ScriptInfo &script, const QList<QByteArray> &keys, const QList<QByteArray> &args,
         QObject *context, std::function<void(const RedisReply &)> done, bool readOnly, int timeoutMs)
{
    run(client, script.source, script.sha1, keys, args, context, std::move(done), readOnly, timeoutMs);
}

QByteArray sha1Hex(const QByteArray &source)
{
    return QCryptographicHash::hash(source, QCryptographicHash::Sha1).toHex();
}

} // namespace scriptcall
