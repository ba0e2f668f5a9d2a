// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "showrequest.h"

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

} // namespace headless
