// SPDX-License-Identifier: GPL-3.0-or-later
#include "profilerreader.h"

#include "redisclient.h"
#include "serverinfo.h"

#include <QDateTime>

ProfilerReader::ProfilerReader(RedisClient *client, QObject *parent)
    : PollingReader(client, kDefaultIntervalMs, WhileBusy::Skip, BeforeMatches::Read, parent)
{
    m_clock.start();
}

void ProfilerReader::clearSession()
{
    m_tracker.clear();
    // A reading in flight belongs to the old session.
    matchesChanged();
}

void ProfilerReader::startRound()
{
    // Two commands, not INFO server commandstats: a server before 7.0 takes one section only.
    const QList<RedisCommand> commands{{"INFO", "server"}, {"INFO", "commandstats"}};
    m_client->sendBatch(commands, context(), [this](const RedisReply &r) {
        if (!r.ok()) {
            setError(r.error);
            fail(r.error.message);
            return;
        }
        if (const RedisError e = RedisError::fromReply(r.value(1)); e) {
            setError(e);
            fail(e.message);
            return;
        }
        profiler::CommandStatsSample sample;
        sample.atMs = QDateTime::currentMSecsSinceEpoch();
        sample.monotonicUs = m_clock.nsecsElapsed() / 1000;
        if (!RedisError::fromReply(r.value(0)))
            sample.runId = ServerInfo::parse(r.value(0).bytes()).value("run_id");
        sample.commands = profiler::parseCommandStats(ServerInfo::parse(r.value(1).bytes()));
        setError({});
        const profiler::CommandStatsTracker::Outcome outcome = m_tracker.apply(sample);
        roundDone();
        if (!outcome.ignored)
            Q_EMIT statsAvailable(outcome);
    });
}

void ProfilerReader::setError(const RedisError &error)
{
    const bool changed = error.kind != m_error.kind || error.message != m_error.message;
    m_error = error;
    if (changed)
        Q_EMIT errorChanged(error);
}
