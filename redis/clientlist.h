// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QList>

// One connection as CLIENT LIST describes it. A field the server does not send (ssub before
// 7.0, lib-name and lib-ver before 7.2) keeps its "unknown" value: -1 for numbers, empty bytes.
struct ClientEntry
{
    qint64 id = -1;
    qint64 age = -1; // seconds connected
    qint64 idle = -1; // seconds since its last command
    qint64 db = -1;
    qint64 sub = 0; // channels subscribed
    qint64 psub = 0; // patterns subscribed
    qint64 ssub = 0; // shard channels subscribed (7.0+)
    qint64 qbuf = -1; // query buffer, bytes
    qint64 omem = -1; // output buffer memory, bytes
    qint64 totMem = -1; // every buffer of the connection, bytes
    qint64 oll = -1; // replies queued in the output list
    QByteArray addr;
    QByteArray name;
    QByteArray flags; // "N" normal, "P" pub/sub, "b" blocked, "M" primary, "S" replica…
    QByteArray cmd; // the last command, "subscribe", "client|list"
    QByteArray user;
    QByteArray libName; // lib-name (7.2+)
    QByteArray libVer;

    bool isPubSub() const { return flags.contains('P') || sub > 0 || psub > 0 || ssub > 0; }
    // "127.0.0.1" of "127.0.0.1:50124" ("[::1]:6379" gives "::1").
    QByteArray host() const;
};

// CLIENT LIST's reply: one entry a line, fields "name=value" separated by spaces (a client name
// cannot hold a space). Lines without an id are skipped.
QList<ClientEntry> parseClientList(const QByteArray &reply);
