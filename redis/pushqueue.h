// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redisvalue.h"

#include <QList>
#include <deque>
#include <mutex>

// What a connection receives without asking, between the thread that reads it and the one that
// shows it: messages of its subscriptions, lines of a MONITOR. The reader never waits for the
// shower; when the shower falls behind, the oldest messages go first and are counted, so a
// publisher far faster than the window costs memory up to the bound and no more.
class PushQueue
{
public:
    static constexpr int kDefaultCount = 50000;
    static constexpr qint64 kDefaultBytes = qint64(64) * 1024 * 1024;

    // Both bounds hold at once; a count or size below 1 is taken as 1.
    void setBound(int count, qint64 bytes);
    // True when the queue was drained (or never filled) since the last push that returned true:
    // the consumer must be told there is something to take.
    bool push(RedisValue value);

    struct Taken
    {
        QList<RedisValue> messages; // oldest first
        qint64 dropped = 0; // left out since the last take, because of the bound
    };
    Taken take();

    // What a message holds in memory, roughly: its bytes and a fixed cost per value.
    static qint64 footprint(const RedisValue &value);

private:
    // std::mutex, not QMutex: ThreadSanitizer sees it (Qt's futex-based locks it does not).
    std::mutex m_mutex;
    std::deque<std::pair<RedisValue, qint64>> m_queue;
    qint64 m_bytes = 0;
    qint64 m_dropped = 0;
    int m_maxCount = kDefaultCount;
    qint64 m_maxBytes = kDefaultBytes;
    bool m_told = false;
};
