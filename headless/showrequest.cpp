// SPDX-License-Identifier: GPL-3.0-or-later
#include "showrequest.h"

namespace showpanels {

QStringList names()
{
    return {QStringLiteral("keys"),    QStringLiteral("overview"),   QStringLiteral("ttl"),
            QStringLiteral("slowlog"), QStringLiteral("memory"),     QStringLiteral("leaderboard"),
            QStringLiteral("geo"),     QStringLiteral("streams"),    QStringLiteral("queues"),
            QStringLiteral("locks"),   QStringLiteral("ratelimits"), QStringLiteral("sessions"),
            QStringLiteral("caches"),  QStringLiteral("topology"),   QStringLiteral("pubsub"),
            QStringLiteral("clients"), QStringLiteral("value")};
}

bool needsKey(const QString &panel)
{
    return panel == QLatin1String("leaderboard") || panel == QLatin1String("geo") || panel == QLatin1String("value");
}

bool scans(const QString &panel)
{
    // The memory analysis walks every key: its reader takes no MATCH.
    return panel != QLatin1String("overview") && panel != QLatin1String("slowlog") && panel != QLatin1String("memory")
        && panel != QLatin1String("topology") && panel != QLatin1String("pubsub") && panel != QLatin1String("clients")
        && !needsKey(panel);
}

std::optional<ShowRequest::Format> formatFromName(const QString &name)
{
    if (name == QLatin1String("json"))
        return ShowRequest::Format::Json;
    if (name == QLatin1String("jsonl"))
        return ShowRequest::Format::Jsonl;
    if (name == QLatin1String("tsv"))
        return ShowRequest::Format::Tsv;
    if (name == QLatin1String("markdown") || name == QLatin1String("md"))
        return ShowRequest::Format::Markdown;
    return std::nullopt;
}

QStringList formatNames()
{
    return {QStringLiteral("json"), QStringLiteral("jsonl"), QStringLiteral("tsv"), QStringLiteral("markdown")};
}

} // namespace showpanels
