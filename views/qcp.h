// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// qcustomplot.h is written with Qt's lower-case keywords (signals, slots, emit, foreach),
// which this project turns off with QT_NO_KEYWORDS. Include it only through this header.
#ifndef signals
#define signals Q_SIGNALS
#define REDISLENS_QCP_UNDEF_SIGNALS
#endif
#ifndef slots
#define slots Q_SLOTS
#define REDISLENS_QCP_UNDEF_SLOTS
#endif
#ifndef emit
#define emit Q_EMIT
#define REDISLENS_QCP_UNDEF_EMIT
#endif
#ifndef foreach
#define foreach Q_FOREACH
#define REDISLENS_QCP_UNDEF_FOREACH
#endif

#include <qcustomplot.h>

#ifdef REDISLENS_QCP_UNDEF_SIGNALS
#undef signals
#undef REDISLENS_QCP_UNDEF_SIGNALS
#endif
#ifdef REDISLENS_QCP_UNDEF_SLOTS
#undef slots
#undef REDISLENS_QCP_UNDEF_SLOTS
#endif
#ifdef REDISLENS_QCP_UNDEF_EMIT
#undef emit
#undef REDISLENS_QCP_UNDEF_EMIT
#endif
#ifdef REDISLENS_QCP_UNDEF_FOREACH
#undef foreach
#undef REDISLENS_QCP_UNDEF_FOREACH
#endif
