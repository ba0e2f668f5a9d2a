// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>

// Every panel the window shows, in tab order: the one list that --panel, its help text and the
// window's tabs are made from.
namespace panelregistry {

struct Entry
{
    const char *name; // what --panel takes
    const char *title; // the tab's title
};

const QList<Entry> &entries();
QStringList names();
// The tab title of a panel name; empty for a name not in the registry.
QString title(const QString &name);

} // namespace panelregistry
