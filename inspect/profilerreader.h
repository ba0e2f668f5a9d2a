// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pollingreader.h"
#include "profiler.h"
#include "rediserror.h"

#include <QElapsedTimer>

// Polls INFO commandstats (and INFO server, for the run id that tells a restart) while polling is
// on, one reading at a time, into a CommandStatsTracker. Reads only: two INFO commands a poll.
class ProfilerReader : public PollingReader
{
    Q_OBJECT
public:
    static constexpr int kDefaultIntervalMs = 1000;

    explicit ProfilerReader(RedisClient *client, QObject *parent = nullptr);

    const profiler::CommandStatsTracker &tracker() const { return m_tracker; }
    // Forgets the session: the next reading is a new base.
    void clearSession();
    // Why the last reading failed; kind None after a good one.
    const RedisError &lastError() const { return m_error; }

Q_SIGNALS:
    // After each reading that the tracker took (the first one included: it has no rates yet).
    void statsAvailable(const profiler::CommandStatsTracker::Outcome &outcome);
    // The reading failed (NOPERM for INFO, connection lost…), or works again (kind None).
    void errorChanged(const RedisError &error);

protected:
    void startRound() override;

private:
    void setError(const RedisError &error);

    profiler::CommandStatsTracker m_tracker;
    RedisError m_error;
    QElapsedTimer m_clock;
};
