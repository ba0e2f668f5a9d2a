// SPDX-License-Identifier: GPL-3.0-or-later
#include "namearena.h"

#include <cstring>

quint64 NameArena::add(const QByteArray &name)
{
    const auto size = quint64(name.size());
    if (size == 0)
        return 0; // never read
    m_bytes += size;
    if (name.size() > kOwnChunk) {
        m_chunks.emplace_back(new char[size]);
        std::memcpy(m_chunks.back().get(), name.constData(), size);
        return quint64(m_chunks.size() - 1) << kChunkBits;
    }
    if (m_used + size > kChunk) {
        m_chunks.emplace_back(new char[kChunk]);
        m_current = m_chunks.size() - 1;
        m_used = 0;
    }
    const quint64 at = (quint64(m_current) << kChunkBits) | m_used;
    std::memcpy(m_chunks[m_current].get() + m_used, name.constData(), size);
    m_used += size;
    return at;
}

void NameArena::clear()
{
    m_chunks.clear();
    m_current = 0;
    m_used = kChunk;
    m_bytes = 0;
}
