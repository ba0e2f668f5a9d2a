// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redisworker.h"

#include <functional>

class QObject;
class RedisClient;
struct ScriptInfo;

namespace scriptcall {

// Runs a library script the way production code should: EVALSHA (EVALSHA_RO when 'readOnly'),
// and only when the server answers NOSCRIPT (a restart, SCRIPT FLUSH) SCRIPT LOAD and the same
// EVALSHA once more. 'done' gets one reply whose value(0) is the script's answer, with the time
// of both round trips when there were two. Same context rules as RedisClient::send.
void run(RedisClient *client, const ScriptInfo &script, const QList<QByteArray> &keys,
         const QList<QByteArray> &args, QObject *context, std::function<void(const RedisReply &)> done,
         bool readOnly = false, int timeoutMs = -1);

} // namespace scriptcall
