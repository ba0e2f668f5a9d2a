// SPDX-License-Identifier: GPL-3.0-or-later
#include "panelregistry.h"

#include <QCoreApplication>

namespace panelregistry {

const QList<Entry> &entries()
{
    static const QList<Entry> list{
        {"keys", QT_TRANSLATE_NOOP("MainWindow", "Keys")},
        {"value", QT_TRANSLATE_NOOP("MainWindow", "Value")},
        {"overview", QT_TRANSLATE_NOOP("MainWindow", "Overview")},
        {"ttl", QT_TRANSLATE_NOOP("MainWindow", "TTL")},
        {"slowlog", QT_TRANSLATE_NOOP("MainWindow", "Slowlog")},
        {"memory", QT_TRANSLATE_NOOP("MainWindow", "Memory")},
        {"leaderboard", QT_TRANSLATE_NOOP("MainWindow", "Leaderboard")},
        {"geo", QT_TRANSLATE_NOOP("MainWindow", "Geo")},
        {"streams", QT_TRANSLATE_NOOP("MainWindow", "Streams")},
        {"queues", QT_TRANSLATE_NOOP("MainWindow", "Queues")},
        {"locks", QT_TRANSLATE_NOOP("MainWindow", "Locks")},
        {"ratelimits", QT_TRANSLATE_NOOP("MainWindow", "Rate limits")},
        {"sessions", QT_TRANSLATE_NOOP("MainWindow", "Sessions")},
        {"caches", QT_TRANSLATE_NOOP("MainWindow", "Caches")},
        {"console", QT_TRANSLATE_NOOP("MainWindow", "Lua console")},
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

} // namespace panelregistry
