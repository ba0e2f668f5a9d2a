// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "profiler.h"
#include "rediserror.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>

class QTimer;
class RedisClient;

// Polls INFO commandstats (and INFO server, for the run id that tells a restart) every interval
// while polling is on, one reading at a time, into a CommandStatsTracker. Reads only: two INFO
// commands a reading.
class ProfilerReader : public QObject
{
    Q_OBJECT
public:
    static constexpr int kDefaultIntervalMs = 1000;

    explicit ProfilerReader(RedisClient *client, QObject *parent = nullptr);
    ~ProfilerReader() override;

    void setIntervalMs(int ms);
    int intervalMs() const;
    // On: reads at once, then every interval. Off: the reading in flight is dropped.
    void setPolling(bool on);
    bool isPolling() const;
    // Reads now, unless a reading is on the wire.
    void refresh();

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

private:
    void dropReading();
    void setError(const RedisError &error);

    RedisClient *m_client;
    QTimer *m_timer;
    QPointer<QObject> m_context; // of the reading on the wire
    profiler::CommandStatsTracker m_tracker;
    RedisError m_error;
    QElapsedTimer m_clock;
};
