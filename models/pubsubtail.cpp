// SPDX-License-Identifier: GPL-3.0-or-later
#include "pubsubtail.h"

#include "redisvalue.h"

#include <algorithm>

namespace pubsub {

std::optional<TailMessage> tailMessage(const RedisValue &value)
{
    if (!value.isArray() || value.size() < 3)
        return std::nullopt;
    const QByteArray &kind = value.at(0).bytes();
    TailMessage m;
    if (kind == "message" || kind == "smessage") {
        m.channel = value.at(1).bytes();
        m.payload = value.at(2).bytes();
        m.shard = kind == "smessage";
    } else if (kind == "pmessage" && value.size() >= 4) {
        m.pattern = value.at(1).bytes();
        m.channel = value.at(2).bytes();
        m.payload = value.at(3).bytes();
    } else {
        return std::nullopt;
    }
    return m;
}

qint64 footprint(const TailMessage &m)
{
    // The struct in the deque, and each array's block as the allocator hands it out: its
    // header and terminator, rounded to 16 bytes, and the allocator's own word. Names shared
    // between messages (PubSubListener interns them) are counted in each all the same.
    const auto block
        = [](const QByteArray &b) -> qint64 { return b.isEmpty() ? 0 : ((b.size() + 16 + 1 + 15) & ~qint64(15)) + 8; };
    return qint64(sizeof(TailMessage)) + block(m.channel) + block(m.pattern) + block(m.payload);
}

void TailBuffer::setBound(int count, qint64 bytes)
{
    m_maxCount = qMax(1, count);
    m_maxBytes = qMax<qint64>(1, bytes);
    while (!m_messages.empty() && (m_messages.size() > size_t(m_maxCount) || m_bytes > m_maxBytes)) {
        m_bytes -= footprint(m_messages.front());
        m_messages.pop_front();
        ++m_dropped;
    }
}

void TailBuffer::append(TailMessage m, qint64 nowMs)
{
    m.seq = m_nextSeq++;
    if (m.receivedMs == 0)
        m.receivedMs = nowMs;
    ++m_received;
    auto it = m_rates.find(m.channel);
    if (it == m_rates.end() && m_rates.size() < kMaxTrackedChannels)
        it = m_rates.insert(m.channel, Counter{});
    count(it == m_rates.end() ? m_otherRates : *it, nowMs);
    m_bytes += footprint(m);
    m_messages.push_back(std::move(m));
    // The newest stays even alone over the byte bound.
    while (m_messages.size() > 1 && (m_messages.size() > size_t(m_maxCount) || m_bytes > m_maxBytes)) {
        m_bytes -= footprint(m_messages.front());
        m_messages.pop_front();
        ++m_dropped;
    }
}

void TailBuffer::clear()
{
    m_messages.clear();
    m_bytes = 0;
    m_received = 0;
    m_dropped = 0;
    m_droppedUpstream = 0;
    m_rates.clear();
    m_otherRates = {};
}

// counts[i] holds the messages of second (second - i).
void TailBuffer::count(Counter &c, qint64 nowMs)
{
    const qint64 s = nowMs / 1000;
    const qint64 shift = s - c.second;
    if (shift > 0) {
        const int n = int(std::min<qint64>(shift, kRateWindowSeconds + 1));
        std::move_backward(std::begin(c.counts), std::end(c.counts) - n, std::end(c.counts));
        std::fill(std::begin(c.counts), std::begin(c.counts) + n, 0);
        c.second = s;
    }
    if (shift >= -kRateWindowSeconds)
        ++c.counts[std::max<qint64>(0, -shift)];
    if (c.total++ == 0)
        c.firstMs = nowMs;
    c.lastMs = nowMs;
}

// Over the last kRateWindowSeconds whole seconds and the current one so far; a channel heard
// for the first time more recently is measured since then (at least a second).
double TailBuffer::perSecond(const Counter &c, qint64 nowMs)
{
    const qint64 s = nowMs / 1000;
    qint64 sum = 0;
    for (int i = 0; i <= kRateWindowSeconds; ++i) {
        const qint64 at = c.second - (s - i);
        if (at >= 0 && at <= kRateWindowSeconds)
            sum += c.counts[at];
    }
    const qint64 windowMs = qint64(kRateWindowSeconds) * 1000 + nowMs % 1000;
    const qint64 spanMs = qBound<qint64>(1000, nowMs - c.firstMs, windowMs);
    return sum * 1000.0 / double(spanMs);
}

QList<ChannelRate> TailBuffer::rates(qint64 nowMs) const
{
    QList<ChannelRate> out;
    out.reserve(m_rates.size() + 1);
    for (auto it = m_rates.cbegin(); it != m_rates.cend(); ++it)
        out.append({it.key(), it->total, perSecond(*it, nowMs), it->lastMs});
    if (m_otherRates.total > 0)
        out.append({{}, m_otherRates.total, perSecond(m_otherRates, nowMs), m_otherRates.lastMs});
    std::sort(out.begin(), out.end(), [](const ChannelRate &a, const ChannelRate &b) {
        if (a.perSecond != b.perSecond)
            return a.perSecond > b.perSecond;
        if (a.total != b.total)
            return a.total > b.total;
        return a.channel < b.channel;
    });
    return out;
}

} // namespace pubsub
