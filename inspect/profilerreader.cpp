// SPDX-License-Identifier: GPL-3.0-or-later
#include "profilerreader.h"

#include "redisclient.h"
#include "serverinfo.h"

#include <QDateTime>
#include <QTimer>

ProfilerReader::ProfilerReader(RedisClient *client, QObject *parent)
    : QObject(parent), m_client(client), m_timer(new QTimer(this))
{
    m_clock.start();
    m_timer->setInterval(kDefaultIntervalMs);
    connect(m_timer, &QTimer::timeout, this, &ProfilerReader::refresh);
    // A reconnect is read at once rather than a whole interval later.
    connect(m_client, &RedisClient::ready, this, [this] {
        if (isPolling())
            refresh();
    });
}

ProfilerReader::~ProfilerReader() = default;

void ProfilerReader::setIntervalMs(int ms)
{
    m_timer->setInterval(qMax(100, ms));
}

int ProfilerReader::intervalMs() const
{
    return m_timer->interval();
}

void ProfilerReader::setPolling(bool on)
{
    if (on == m_timer->isActive())
        return;
    if (on) {
        m_timer->start();
        refresh();
    } else {
        m_timer->stop();
        dropReading();
    }
}

bool ProfilerReader::isPolling() const
{
    return m_timer->isActive();
}

void ProfilerReader::clearSession()
{
    m_tracker.clear();
    // A reading on the wire belongs to the old session.
    dropReading();
}

void ProfilerReader::dropReading()
{
    delete m_context;
}

void ProfilerReader::refresh()
{
    // One reading at a time: a slow server is not asked faster than it answers.
    if (m_context)
        return;
    m_context = new QObject(this);
    // Two commands, not INFO server commandstats: a server before 7.0 takes one section only.
    const QList<RedisCommand> commands{{"INFO", "server"}, {"INFO", "commandstats"}};
    m_client->sendBatch(commands, m_context, [this](const RedisReply &r) {
        dropReading();
        const RedisError e = r.ok() ? RedisError::fromReply(r.value(1)) : r.error;
        if (e) {
            setError(e);
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
