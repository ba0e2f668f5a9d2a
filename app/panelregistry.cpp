// SPDX-License-Identifier: GPL-3.0-or-later
#include "panelregistry.h"

#include <QCoreApplication>

namespace panelregistry {

const QList<Entry> &entries()
{
    static const QList<Entry> list{
        {"triage", QT_TRANSLATE_NOOP("MainWindow", "Findings"), Group::Triage, "dialog-warning"},
        {"keys", QT_TRANSLATE_NOOP("MainWindow", "Keys"), Group::Keys, "folder-open"},
        {"value", QT_TRANSLATE_NOOP("MainWindow", "Value"), Group::Keys, "document-preview"},
        {"overview", QT_TRANSLATE_NOOP("MainWindow", "Overview"), Group::Server, "utilities-system-monitor"},
        {"ttl", QT_TRANSLATE_NOOP("MainWindow", "TTL"), Group::Server, "chronometer"},
        {"slowlog", QT_TRANSLATE_NOOP("MainWindow", "Slowlog"), Group::Server, "view-history"},
        {"memory", QT_TRANSLATE_NOOP("MainWindow", "Memory"), Group::Server, "drive-harddisk"},
        {"topology", QT_TRANSLATE_NOOP("MainWindow", "Topology"), Group::Server, "network-workgroup"},
        {"clients", QT_TRANSLATE_NOOP("MainWindow", "Clients"), Group::Server, "network-connect"},
        {"pubsub", QT_TRANSLATE_NOOP("MainWindow", "Pub/Sub"), Group::Server, "mail-send-receive"},
        {"profiler", QT_TRANSLATE_NOOP("MainWindow", "Profiler"), Group::Server, "office-chart-line"},
        {"caches", QT_TRANSLATE_NOOP("MainWindow", "Caches"), Group::Patterns, "view-refresh"},
        {"sessions", QT_TRANSLATE_NOOP("MainWindow", "Sessions"), Group::Patterns, "system-users"},
        {"ratelimits", QT_TRANSLATE_NOOP("MainWindow", "Rate limits"), Group::Patterns, "speedometer"},
        {"locks", QT_TRANSLATE_NOOP("MainWindow", "Locks"), Group::Patterns, "object-locked"},
        {"queues", QT_TRANSLATE_NOOP("MainWindow", "Queues"), Group::Patterns, "view-list-details"},
        {"streams", QT_TRANSLATE_NOOP("MainWindow", "Streams"), Group::Patterns, "media-playlist-repeat"},
        {"leaderboard", QT_TRANSLATE_NOOP("MainWindow", "Leaderboard"), Group::Patterns, "view-sort-descending"},
        {"geo", QT_TRANSLATE_NOOP("MainWindow", "Geo"), Group::Patterns, "globe"},
        {"console", QT_TRANSLATE_NOOP("MainWindow", "Lua console"), Group::Console, "utilities-terminal"},
    };
    return list;
}

QStringList names()
{
    QStringList out;
    for (const Entry &e : entries())
        out.append(QLatin1String(e.name));
    return out;
}

QString title(const QString &name)
{
    for (const Entry &e : entries()) {
        if (name == QLatin1String(e.name))
            return QCoreApplication::translate("MainWindow", e.title);
    }
    return {};
}

QList<Group> groups()
{
    return {Group::Triage, Group::Keys, Group::Server, Group::Patterns, Group::Console};
}

QString groupTitle(Group group)
{
    switch (group) {
    case Group::Triage: return QCoreApplication::translate("MainWindow", "Triage");
    case Group::Keys: return QCoreApplication::translate("MainWindow", "Keys");
    case Group::Server: return QCoreApplication::translate("MainWindow", "Server");
    case Group::Patterns: return QCoreApplication::translate("MainWindow", "Patterns");
    case Group::Console: return QCoreApplication::translate("MainWindow", "Console");
    }
    return {};
}

QList<Entry> entriesOf(Group group)
{
    QList<Entry> out;
    for (const Entry &e : entries())
        if (e.group == group)
            out.append(e);
    return out;
}

} // namespace panelregistry
