// SPDX-License-Identifier: GPL-3.0-or-later
#include "namearena.h"

#include <cstring>

quint64 NameArena::add(const QByteArray &name)
{
    char length[5];
    quint64 prefix = 0;
    for (auto n = quint32(name.size());; n >>= 7) {
        length[prefix++] = char((n & 0x7f) | (n >= 0x80 ? 0x80 : 0));
        if (n < 0x80)
            break;
    }
    const quint64 size = prefix + quint64(name.size());
    m_bytes += size;
    char *to = nullptr;
    quint64 at = 0;
    if (name.size() > kOwnChunk) {
        m_chunks.emplace_back(new char[size]);
        to = m_chunks.back().get();
        at = quint64(m_chunks.size() - 1) << kChunkBits;
    } else {
        if (m_used + size > kChunk) {
            m_chunks.emplace_back(new char[kChunk]);
            m_current = m_chunks.size() - 1;
            m_used = 0;
        }
        to = m_chunks[m_current].get() + m_used;
        at = (quint64(m_current) << kChunkBits) | m_used;
        m_used += size;
    }
    std::memcpy(to, length, prefix);
    if (!name.isEmpty())
        std::memcpy(to + prefix, name.constData(), size_t(name.size()));
    return at;
}

void NameArena::clear()
{
    m_chunks.clear();
    m_current = 0;
    m_used = kChunk;
    m_bytes = 0;
}
