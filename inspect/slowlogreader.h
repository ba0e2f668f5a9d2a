// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rediscommand.h"
#include "rediserror.h"
#include "slowlogtracker.h"

#include <QList>
#include <QObject>
#include <QSet>

class QTimer;
class RedisClient;

// Polls the slow log while running: SLOWLOG GET n, SLOWLOG LEN and CONFIG GET slowlog-* in one
// pipeline every interval (2 s by default), through a SlowlogTracker. For entries that read a
// whole collection it asks SCARD/HLEN/LLEN once per key (at most kMaxKeySizeLookups keys per
// reader), so flags can tell a big key from a small one. Headless: panels and reports wire its
// signals to a SlowlogModel.
class SlowlogReader : public QObject
{
    Q_OBJECT
public:
    static constexpr int kDefaultIntervalMs = 2000;
    static constexpr int kMaxKeySizeLookups = 500;
    static constexpr int kKeySizesPerBatch = 32;

    explicit SlowlogReader(RedisClient *client, QObject *parent = nullptr);
    ~SlowlogReader() override;

    void setIntervalMs(int ms);
    int intervalMs() const { return m_intervalMs; }
    void setFetchLimit(int limit) { m_tracker.setFetchLimit(limit); }

    bool isRunning() const { return m_running; }
    // Polls at once, then every interval. stop() drops the poll in flight.
    void start();
    void stop();
    void pollNow();

    const SlowlogTracker &tracker() const { return m_tracker; }
    const SlowlogConfig &config() const { return m_config; }
    // Why the last poll of the slow log failed; kind None after a good one.
    const RedisError &lastError() const { return m_error; }
    const RedisError &configError() const { return m_configError; }
    int completedPolls() const { return m_polls; }

Q_SIGNALS:
    void entriesAvailable(const QList<SlowlogEntry> &entries, int epoch); // oldest first
    void configAvailable(const SlowlogConfig &config);
    void resetDetected();
    void entriesMissed(qint64 count);
    void keySizeAvailable(const QByteArray &key, qint64 size);
    // The slow log could not be read (NOPERM, connection lost...), or can again (kind None).
    void errorChanged(const RedisError &error);
    // After every poll, good or bad, once its pages are applied.
    void polled();

private:
    void tick();
    void request(int count, int attempt);
    void onReply(const RedisReply &reply, int count, int attempt);
    void setError(const RedisError &error);
    void askKeySizes();

    RedisClient *m_client;
    QTimer *m_timer;
    SlowlogTracker m_tracker;
    SlowlogConfig m_config;
    RedisError m_error;
    RedisError m_configError;
    RequestId m_inFlight = 0;
    RequestId m_sizesInFlight = 0;
    int m_intervalMs = kDefaultIntervalMs;
    bool m_running = false;
    int m_polls = 0;
    QSet<QByteArray> m_sizeAsked;
    QList<RedisCommand> m_sizeQueue;
    QList<RedisCommand> m_sizeBatch; // in flight
};
