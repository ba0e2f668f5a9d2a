// SPDX-License-Identifier: GPL-3.0-or-later
#include "rediscommand.h"

const RedisValue &RedisReply::value(qsizetype i) const
{
    static const RedisValue invalid;
    return (i >= 0 && i < values.size()) ? values.at(i) : invalid;
}

RedisError RedisReply::firstError() const
{
    if (error.isError())
        return error;
    for (const RedisValue &v : values) {
        if (v.isError())
            return RedisError::fromReply(v);
    }
    return {};
}
