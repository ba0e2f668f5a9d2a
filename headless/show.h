// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "showrequest.h"

struct ConnectionProfile;

namespace headless {

// `redislens show`: connects with 'profile', reads what the panel reads once to completion and
// prints what its models hold on stdout. Needs a QCoreApplication (no display). Returns the exit
// status: 0, 2 for a connection that cannot be made (one line on stderr), 1 when reading failed.
int show(const ShowRequest &request, const ConnectionProfile &profile);

// One line on stderr, "redislens: …".
void reportError(const QString &message);

} // namespace headless
