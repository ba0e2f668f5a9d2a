// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

// Every panel the window shows, in sidebar order: the one list that --panel, its help text, the
// sidebar's groups and the Ctrl+1…9 shortcuts are made from. A new panel is one line here.
namespace panelregistry {

// The sidebar's sections, in the order they are shown. A group without entries is not shown.
enum class Group { Triage, Keys, Server, Patterns, Console };

struct Entry
{
    const char *name; // what --panel takes
    const char *title; // the sidebar's label
    Group group;
    const char *icon; // a freedesktop icon name; the entry has none where the theme lacks it
};

const QList<Entry> &entries();
QStringList names();
// The title of a panel name; empty for a name not in the registry.
QString title(const QString &name);
QList<Group> groups();
QString groupTitle(Group group);
// The entries of one group, in registry order.
QList<Entry> entriesOf(Group group);

} // namespace panelregistry
