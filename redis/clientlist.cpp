// SPDX-License-Identifier: GPL-3.0-or-later
#include "clientlist.h"

QByteArray ClientEntry::host() const
{
    const qsizetype colon = addr.lastIndexOf(':');
    QByteArray h = colon < 0 ? addr : addr.left(colon);
    if (h.startsWith('[') && h.endsWith(']'))
        h = h.mid(1, h.size() - 2);
    return h;
}

QList<ClientEntry> parseClientList(const QByteArray &reply)
{
    QList<ClientEntry> out;
    for (const QByteArray &line : reply.split('\n')) {
        ClientEntry c;
        for (const QByteArray &field : line.trimmed().split(' ')) {
            const qsizetype eq = field.indexOf('=');
            if (eq <= 0)
                continue;
            const QByteArray key = field.left(eq);
            const QByteArray value = field.mid(eq + 1);
            const auto number = [&value] {
                bool ok = false;
                const qint64 n = value.toLongLong(&ok);
                return ok ? n : -1;
            };
            if (key == "id")
                c.id = number();
            else if (key == "addr")
                c.addr = value;
            else if (key == "name")
                c.name = value;
            else if (key == "age")
                c.age = number();
            else if (key == "idle")
                c.idle = number();
            else if (key == "flags")
                c.flags = value;
            else if (key == "db")
                c.db = number();
            else if (key == "sub")
                c.sub = qMax<qint64>(0, number());
            else if (key == "psub")
                c.psub = qMax<qint64>(0, number());
            else if (key == "ssub")
                c.ssub = qMax<qint64>(0, number());
            else if (key == "qbuf")
                c.qbuf = number();
            else if (key == "oll")
                c.oll = number();
            else if (key == "omem")
                c.omem = number();
            else if (key == "tot-mem")
                c.totMem = number();
            else if (key == "cmd")
                c.cmd = value;
            else if (key == "user")
                c.user = value;
            else if (key == "lib-name")
                c.libName = value;
            else if (key == "lib-ver")
                c.libVer = value;
        }
        if (c.id >= 0)
            out.append(c);
    }
    return out;
}
