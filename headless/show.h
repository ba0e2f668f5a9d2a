// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "showrequest.h"

#include <functional>
#include <memory>

class ProgressBar;
class QEventLoop;
class QObject;
class RedisClient;

struct ConnectionProfile;

namespace headless {

// What show() does with the client and the panel once the output is written.
enum class Teardown {
    Destroy, // destroys them before it returns
    // Leaves them, the client's thread running, to the process exit: the caller ends the process
    // at once (std::_Exit) after anything else it must stop. A million keys are a million small
    // allocations; freeing them one by one took longer than writing their records.
    LeaveToExit,
};

// `redislens show`: connects with 'profile', reads what the panel reads once to completion and
// prints what its models hold on stdout. Needs a QCoreApplication (no display). Returns the exit
// status: 0, 2 for a connection that cannot be made (one line on stderr), 1 when reading failed.
int show(const ShowRequest &request, const ConnectionProfile &profile, Teardown teardown = Teardown::Destroy);

// One line on stderr, "redislens: …".
void reportError(const QString &message);

// The event loop of a one-shot command (show, report): connects, calls 'start' once when the
// client is first ready, and ends at the first stop() with its status and at most one line on
// stderr. A connection that cannot be made ends it with 2, one lost after the start with 1.
class OneShot
{
public:
    OneShot(RedisClient &client, const ConnectionProfile &profile, ProgressBar &progress, std::function<void()> start);
    ~OneShot();
    void stop(int code, const QString &message = {}); // the first call wins
    bool isStopped() const { return m_stopped; }
    QObject *context() const; // lives as long as the loop: a receiver for connections
    int exec(); // connects and runs until stop(); returns its status

private:
    // Says on stderr when a cluster node is read as one server, and stops on a node that cannot
    // be reached.
    void noteClusterMode(const ConnectionProfile &profile);

    RedisClient &m_client;
    ProgressBar &m_progress;
    std::unique_ptr<QEventLoop> m_loop;
    int m_code = 0;
    bool m_started = false;
    bool m_stopped = false;
};

} // namespace headless
