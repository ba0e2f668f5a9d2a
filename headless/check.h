// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>

struct ConnectionProfile;

namespace headless {

// `redislens check`: connects with 'profile' step by step (name resolution, TCP, TLS handshake,
// certificate, AUTH, PING, server, ACL WHOAMI, then which panels the user may use) and prints
// each step on stdout, as text or one JSON document. Needs a QCoreApplication. Returns 0 when
// everything works, 1 when a panel is unavailable, 2 when it cannot connect.
int check(const ConnectionProfile &profile, bool json);

struct CheckResult
{
    int status = 2; // as check()'s
    QByteArray report; // what check() prints
};
// The same steps without printing, for the connection manager's Test button. Blocks while it
// connects (up to the profile's timeouts) and runs its own event loops: call it off the GUI
// thread.
CheckResult runCheck(const ConnectionProfile &profile, bool json = false);

} // namespace headless
