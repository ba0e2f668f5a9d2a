// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redisclient.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QTest>
#include <functional>

// How long a failover took, in two parts: until the servers had done their part ('serverDone'
// says so when asked), and until the client had followed ('clientOk' accepts a reply to
// 'command', sent again whenever the last one has answered). -1 for what did not happen before
// the deadline. Header-only, so a test uses it without a build change.
struct FollowTimes
{
    qint64 serverMs = -1;
    qint64 clientMs = -1;
};

inline FollowTimes measureFollow(RedisClient &client, const RedisCommand &command,
                                 const std::function<bool()> &serverDone,
                                 const std::function<bool(const RedisReply &)> &clientOk, int timeoutMs = 60000)
{
    FollowTimes t;
    QElapsedTimer clock;
    clock.start();
    QObject context;
    bool inFlight = false;
    const QDeadlineTimer deadline(timeoutMs);
    while ((t.serverMs < 0 || t.clientMs < 0) && !deadline.hasExpired()) {
        if (t.serverMs < 0 && serverDone())
            t.serverMs = clock.elapsed();
        if (t.clientMs < 0 && !inFlight) {
            inFlight = true;
            client.send(command, &context, [&](const RedisReply &r) {
                inFlight = false;
                if (clientOk(r))
                    t.clientMs = clock.elapsed();
            });
        }
        QTest::qWait(100);
    }
    return t;
}
