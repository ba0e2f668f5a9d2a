// SPDX-License-Identifier: GPL-3.0-or-later
#include "pushqueue.h"

namespace {
// A value's object, its QByteArray's and QList's headers: what each costs beside its bytes.
constexpr qint64 kValueCost = 96;
} // namespace

void PushQueue::setBound(int count, qint64 bytes)
{
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_maxCount = qMax(1, count);
    m_maxBytes = qMax<qint64>(1, bytes);
    while (m_queue.size() > size_t(m_maxCount) || (m_bytes > m_maxBytes && !m_queue.empty())) {
        m_bytes -= m_queue.front().second;
        m_queue.pop_front();
        ++m_dropped;
    }
}

bool PushQueue::push(RedisValue value)
{
    const qint64 size = footprint(value);
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_queue.emplace_back(std::move(value), size);
    m_bytes += size;
    // The newest stays even when it alone is over the byte bound: what is shown is current.
    while (m_queue.size() > 1 && (m_queue.size() > size_t(m_maxCount) || m_bytes > m_maxBytes)) {
        m_bytes -= m_queue.front().second;
        m_queue.pop_front();
        ++m_dropped;
    }
    if (m_told)
        return false;
    m_told = true;
    return true;
}

PushQueue::Taken PushQueue::take()
{
    Taken out;
    std::deque<std::pair<RedisValue, qint64>> queue;
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        queue.swap(m_queue);
        m_bytes = 0;
        out.dropped = m_dropped;
        m_dropped = 0;
        m_told = false;
    }
    out.messages.reserve(qsizetype(queue.size()));
    for (auto &entry : queue)
        out.messages.append(std::move(entry.first));
    return out;
}

qint64 PushQueue::footprint(const RedisValue &value)
{
    qint64 size = kValueCost + value.bytes().size();
    for (const RedisValue &e : value.elements())
        size += footprint(e);
    return size;
}
