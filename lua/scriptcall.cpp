// SPDX-License-Identifier: GPL-3.0-or-later
#include "scriptcall.h"

#include "redisclient.h"
#include "scriptlibrary.h"

namespace scriptcall {

void run(RedisClient *client, const ScriptInfo &script, const QList<QByteArray> &keys,
         const QList<QByteArray> &args, QObject *context, std::function<void(const RedisReply &)> done,
         bool readOnly, int timeoutMs)
{
    const RedisCommand call = ScriptLibrary::evalShaCommand(script, keys, args, readOnly);
    const RedisCommand load = ScriptLibrary::loadCommand(script);
    client->send(
        call, context,
        [client, call, load, context, done, timeoutMs](const RedisReply &first) {
            if (!first.ok() || !ScriptLibrary::isNoScript(first.value())) {
                done(first);
                return;
            }
            client->sendBatch(
                {load, call}, context,
                [done, spent = first.elapsedUs](const RedisReply &second) {
                    RedisReply r = second;
                    r.elapsedUs += spent;
                    if (r.ok()) {
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

} // namespace scriptcall
