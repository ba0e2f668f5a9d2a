// SPDX-License-Identifier: GPL-3.0-or-later
#include "panelshow.h"

#include "showclients.h"
#include "showcollections.h"
#include "showkeys.h"
#include "showpatterns.h"
#include "showpubsub.h"
#include "showserver.h"
#include "showslowlog.h"
#include "showtopology.h"
#include "showvalue.h"

std::unique_ptr<PanelShow> PanelShow::make(const QString &panel, const Context &context)
{
    if (panel == QLatin1String("keys"))
        return std::make_unique<ShowKeys>(context);
    if (panel == QLatin1String("overview"))
        return std::make_unique<ShowOverview>(context);
    if (panel == QLatin1String("ttl"))
        return std::make_unique<ShowTtl>(context);
    if (panel == QLatin1String("slowlog"))
        return std::make_unique<ShowSlowlog>(context);
    if (panel == QLatin1String("memory"))
        return std::make_unique<ShowMemory>(context);
    if (panel == QLatin1String("topology"))
        return std::make_unique<ShowTopology>(context);
    if (panel == QLatin1String("leaderboard"))
        return std::make_unique<ShowLeaderboard>(context);
    if (panel == QLatin1String("geo"))
        return std::make_unique<ShowGeo>(context);
    if (panel == QLatin1String("streams"))
        return std::make_unique<ShowStreams>(context);
    if (panel == QLatin1String("queues"))
        return std::make_unique<ShowQueues>(context);
    if (panel == QLatin1String("locks"))
        return std::make_unique<ShowLocks>(context);
    if (panel == QLatin1String("ratelimits"))
        return std::make_unique<ShowRateLimits>(context);
    if (panel == QLatin1String("sessions"))
        return std::make_unique<ShowSessions>(context);
    if (panel == QLatin1String("caches"))
        return std::make_unique<ShowCaches>(context);
    if (panel == QLatin1String("clients"))
        return std::make_unique<ShowClients>(context);
    if (panel == QLatin1String("pubsub"))
        return std::make_unique<ShowPubSub>(context);
    if (panel == QLatin1String("value"))
        return std::make_unique<ShowValue>(context);
    return nullptr;
}
