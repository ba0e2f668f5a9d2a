// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rediserror.h"
#include "redisvalue.h"

#include <QByteArray>
#include <QList>
#include <QMetaType>

// A command and its arguments, written as a RESP array by the worker.
using RedisCommand = QList<QByteArray>;
using RequestId = quint64;

// The replies to one pipelined batch, in the order of its commands. 'error' is set when the
// batch as a whole failed (connection lost, timeout, refused as read-only); then 'values' holds
// what arrived before the failure. Per-command error replies are RedisValue errors.
struct RedisReply
{
    RequestId id = 0;
    QList<RedisValue> values;
    RedisError error;
    qint64 elapsedUs = 0;

    bool ok() const { return !error.isError(); }
    const RedisValue &value(qsizetype i = 0) const;
    // The batch error, or else the first command's error reply, or none.
    RedisError firstError() const;
};
Q_DECLARE_METATYPE(RedisReply)
