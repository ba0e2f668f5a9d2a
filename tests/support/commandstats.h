// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "testserver.h"

#include <QByteArray>
#include <QHash>

// INFO commandstats as {"xack": calls, ...}: what a server really executed, so a test can show
// that an action sent nothing (a rejected confirmation) or sent exactly what it should.
inline QHash<QByteArray, qint64> commandCalls(RawConnection &raw)
{
    QHash<QByteArray, qint64> out;
    // cmdstat_xack:calls=3,usec=12,usec_per_call=4.00,rejected_calls=0,failed_calls=0
    for (const QByteArray &line : raw.command({"INFO", "commandstats"}).bytes().split('\n')) {
        if (!line.startsWith("cmdstat_"))
            continue;
        const qsizetype colon = line.indexOf(':');
        const qsizetype calls = line.indexOf("calls=", colon);
        if (colon < 0 || calls < 0)
            continue;
        const qsizetype end = line.indexOf(',', calls);
        out.insert(line.mid(8, colon - 8), line.mid(calls + 6, end < 0 ? -1 : end - calls - 6).toLongLong());
    }
    return out;
}

// The calls of these commands together (lower case, "xack", "evalsha").
inline qint64 commandCalls(RawConnection &raw, std::initializer_list<const char *> commands)
{
    const QHash<QByteArray, qint64> all = commandCalls(raw);
    qint64 sum = 0;
    for (const char *c : commands)
        sum += all.value(QByteArray(c));
    return sum;
}
