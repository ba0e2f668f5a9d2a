// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QThread>

// The thread rules (a worker and its jobs on the connection's thread, clients, models and
// views on the GUI thread) are checked where calls come in: a debug build stops at a call from
// the wrong thread instead of racing. Release builds compile it away.
#define REDISLENS_ASSERT_OWN_THREAD(object)                                                                            \
    Q_ASSERT_X(QThread::currentThread() == (object)->thread(), Q_FUNC_INFO,                                            \
               "called from a thread that does not own this object")
