// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rediscommand.h"
#include "rediserror.h"
#include "slowlog.h"

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QPointer>

class RedisClient;

// One read of the latency monitor: its threshold and the latest spike of every event.
struct LatencyLatest
{
    RedisError error; // the read failed as a whole (connection lost, timeout...)
    qint64 thresholdMs = -1; // latency-monitor-threshold; -1 unknown
    RedisError configError; // why the threshold is unknown (NOPERM...)
    RedisError latestError; // LATENCY LATEST refused, or a reply that does not parse
    QList<LatencyEvent> events;
};
Q_DECLARE_METATYPE(LatencyLatest)

// The latency monitor's reads: CONFIG GET latency-monitor-threshold with LATENCY LATEST, and
// LATENCY HISTORY of one event. One of each on the wire at a time: refresh() does nothing while
// the last one is out, readHistory() replaces the history read in flight.
class LatencyReader : public QObject
{
    Q_OBJECT
public:
    explicit LatencyReader(RedisClient *client, QObject *parent = nullptr);
    ~LatencyReader() override;

    void refresh();
    void readHistory(const QByteArray &event);
    // Drops the replies still on the wire.
    void cancel();
    bool isBusy() const { return m_latestRequest != 0; }

Q_SIGNALS:
    void latestAvailable(const LatencyLatest &latest);
    // Only for a history that was read and parsed; oldest first as the server sends it.
    void historyAvailable(const QByteArray &event, const QList<LatencySample> &samples);

private:
    void onLatest(const RedisReply &reply);

    QPointer<RedisClient> m_client;
    RequestId m_latestRequest = 0;
    RequestId m_historyRequest = 0;
};
