// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <deque>
#include <optional>

class RedisValue;

// A live tail of pub/sub messages: what a subscribed connection received, kept within a bound
// the user sets (a count and bytes, whichever is reached first), with the rate of each channel.
namespace pubsub {

struct TailMessage
{
    quint64 seq = 0; // 1, 2, 3… in arrival order, including the dropped ones
    qint64 receivedMs = 0; // since the epoch
    QByteArray channel;
    QByteArray pattern; // the pattern that matched (a pmessage), else empty
    QByteArray payload;
    bool shard = false; // an smessage
};

// ["message", channel, payload], ["pmessage", pattern, channel, payload], ["smessage", channel,
// payload]; nothing for anything else (a subscribe confirmation).
std::optional<TailMessage> tailMessage(const RedisValue &value);

// What one message holds in memory, roughly: its bytes and a fixed cost.
qint64 footprint(const TailMessage &m);

struct ChannelRate
{
    QByteArray channel; // empty: the channels past kMaxTrackedChannels, together
    qint64 total = 0; // messages received since the tail started
    double perSecond = 0; // over the last kRateWindowSeconds (or since the first message, if later)
    qint64 lastMs = 0;
};

class TailBuffer
{
public:
    static constexpr int kDefaultCount = 10000;
    static constexpr qint64 kDefaultBytes = qint64(16) * 1024 * 1024;
    static constexpr int kRateWindowSeconds = 5;
    // A pattern subscription can reach any number of channels (keyspace events reach one per
    // key): past this many, the rest are counted as one.
    static constexpr int kMaxTrackedChannels = 1000;

    void setBound(int count, qint64 bytes);
    int boundCount() const { return m_maxCount; }
    qint64 boundBytes() const { return m_maxBytes; }

    // Appends, dropping the oldest past the bound. 'nowMs' is the arrival time, for the rates.
    void append(TailMessage m, qint64 nowMs);
    // Messages that never reached the buffer (the connection's own bound): counted as dropped.
    void noteDropped(qint64 count) { m_droppedUpstream += count; }
    void clear();

    const std::deque<TailMessage> &messages() const { return m_messages; }
    qint64 bytes() const { return m_bytes; }
    qint64 received() const { return m_received; } // every message, kept or not
    qint64 dropped() const { return m_dropped + m_droppedUpstream; }
    qint64 droppedBeforeTail() const { return m_droppedUpstream; } // never appended
    quint64 firstSeq() const { return m_messages.empty() ? m_nextSeq : m_messages.front().seq; }
    quint64 nextSeq() const { return m_nextSeq; }

    // Busiest first.
    QList<ChannelRate> rates(qint64 nowMs) const;

private:
    struct Counter
    {
        qint64 total = 0;
        qint64 firstMs = 0;
        qint64 lastMs = 0;
        qint64 second = 0; // the second counts[0] is for
        int counts[kRateWindowSeconds + 1] = {};
    };
    static void count(Counter &c, qint64 nowMs);
    static double perSecond(const Counter &c, qint64 nowMs);

    std::deque<TailMessage> m_messages;
    qint64 m_bytes = 0;
    qint64 m_received = 0;
    qint64 m_dropped = 0;
    qint64 m_droppedUpstream = 0;
    quint64 m_nextSeq = 1;
    int m_maxCount = kDefaultCount;
    qint64 m_maxBytes = kDefaultBytes;
    QHash<QByteArray, Counter> m_rates;
    Counter m_otherRates;
};

} // namespace pubsub
