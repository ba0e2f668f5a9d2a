// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

// What each panel sends to the server, as sample calls: what `redislens check` and the window
// ask ACL DRYRUN (or try, for reads) to say which panels a user may use before they are opened.
// tst_show runs every headless panel against the demo data and checks that INFO commandstats
// holds no command its panel does not list here.
namespace panelneeds {

struct Need
{
    enum class Kind {
        Read, // the panel cannot work without it
        Extra, // the panel works without it and loses a part (a column, a chart)
        Action, // a change the panel offers (a write, a reset); reading does not need it
        // Sent when allowed, and nothing the user sees is lost without it (the scan pacing's
        // load figures: it paces by PING alone then). Named so that every command a panel
        // sends is here; not checked, never makes a panel partial.
        Background,
    };
    QList<QByteArray> argv; // a sample call: ("SLOWLOG", "GET", "1"), ("TYPE", "<key>")
    Kind kind = Kind::Read;
    QString what; // Extra and Action: what is lost without it ("the workers column")
};

// The panel's calls; empty for a name no panel has. Names are panelregistry's.
QList<Need> of(const QString &panel);
// Every panel that needs something, in the sidebar's order.
QStringList panels();
// The commands every connection sends whatever panel is open: the handshake and its facts.
QList<QList<QByteArray>> connection();
// The ACL rule that allows a call: "+slowlog|get", "+type".
QString aclRule(const QList<QByteArray> &argv);

} // namespace panelneeds
