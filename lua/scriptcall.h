// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rediscommand.h"

#include <functional>

class QObject;
class RedisClient;
struct ScriptInfo;

namespace scriptcall {

// Runs a library script the way production code should: EVALSHA (EVALSHA_RO when 'readOnly'),
// and only when the server answers NOSCRIPT (a restart, SCRIPT FLUSH) SCRIPT LOAD and the same
// EVALSHA once more. 'done' gets one reply whose value(0) is the script's answer, with the time
// of both round trips when there were two. Same context rules as RedisClient::send.
// A read-only connection refuses SCRIPT LOAD (it is not a read command), so there the retry
// is EVAL_RO with the whole source instead.
void run(RedisClient *client, const ScriptInfo &script, const QList<QByteArray> &keys, const QList<QByteArray> &args,
         QObject *context, std::function<void(const RedisReply &)> done, bool readOnly = false, int timeoutMs = -1);

// The same for a script that is not in the library (the console): its source and its SHA1
// (sha1Hex). Returns the id of the first request; to drop the answer, cancel that id and
// delete 'context' (the NOSCRIPT retry is a second request made under the same context).
RequestId run(RedisClient *client, const QByteArray &source, const QByteArray &sha1, const QList<QByteArray> &keys,
              const QList<QByteArray> &args, QObject *context, std::function<void(const RedisReply &)> done,
              bool readOnly = false, int timeoutMs = -1);

// Lower-case hex SHA1 of a script, what SCRIPT LOAD answers and EVALSHA expects.
QByteArray sha1Hex(const QByteArray &source);

} // namespace scriptcall
