// SPDX-License-Identifier: GPL-3.0-or-later
#include "keynameset.h"

quint32 KeyNameSet::insert(const QByteArray &name, bool *added)
{
    const int id = m_index.findOrAdd(
        name, holds(),
        [&] {
            m_at.push_back(m_arena.add(name));
            return int(m_at.size() - 1);
        },
        added);
    return quint32(id);
}

qint64 KeyNameSet::find(const QByteArray &name) const
{
    return m_index.find(name, holds());
}

void KeyNameSet::clear()
{
    m_index.clear();
    m_arena.clear();
    m_at.clear();
}
