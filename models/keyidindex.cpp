// SPDX-License-Identifier: GPL-3.0-or-later
#include "keyidindex.h"

void KeyIdIndex::clear()
{
    for (Shard &s : m_shards)
        s = Shard();
    m_collided.clear();
    m_size = 0;
}

qsizetype KeyIdIndex::Shard::find(size_t hash) const
{
    if (m_entries.empty())
        return -1;
    const auto tag = quint32(hash);
    for (size_t i = home(tag);; i = (i + 1) & m_mask) {
        const Entry &e = m_entries[i];
        if (e.value == 0)
            return -1;
        if (e.tag == tag)
            return qsizetype(i);
    }
}

int KeyIdIndex::Shard::value(size_t hash) const
{
    const qsizetype i = find(hash);
    return i < 0 ? 0 : m_entries[size_t(i)].value;
}

void KeyIdIndex::Shard::insert(size_t hash, int value)
{
    // At most three quarters full: a lookup probes two or three entries on average (all in one
    // or two cache lines), an absent key about eight, and an empty entry always ends a probe.
    // Half full cost 16 to 26 bytes a key (three indexes hold every key in the window); this
    // costs 11 to 21.
    if (size_t(m_size + 1) * 4 > m_entries.size() * 3)
        rehash(qMax<size_t>(16, m_entries.size() * 2));
    const auto tag = quint32(hash);
    size_t i = home(tag);
    while (m_entries[i].value != 0)
        i = (i + 1) & m_mask;
    m_entries[i] = {tag, value};
    ++m_size;
}

void KeyIdIndex::Shard::remove(size_t hash)
{
    const qsizetype found = find(hash);
    if (found < 0)
        return;
    // Backward shift: entries after the hole that could live in it move up, so no probe ever
    // stops at a hole before the entry it looks for.
    size_t hole = size_t(found);
    for (size_t j = (hole + 1) & m_mask; m_entries[j].value != 0; j = (j + 1) & m_mask) {
        const size_t want = home(m_entries[j].tag);
        // Movable when its home is not in the cyclic range (hole, j].
        const bool homeAfterHole = hole <= j ? (want > hole && want <= j) : (want > hole || want <= j);
        if (!homeAfterHole) {
            m_entries[hole] = m_entries[j];
            hole = j;
        }
    }
    m_entries[hole] = Entry();
    --m_size;
}

void KeyIdIndex::Shard::rehash(size_t buckets)
{
    std::vector<Entry> old(buckets);
    old.swap(m_entries);
    m_mask = buckets - 1;
    for (const Entry &e : old) {
        if (e.value == 0)
            continue;
        size_t i = home(e.tag);
        while (m_entries[i].value != 0)
            i = (i + 1) & m_mask;
        m_entries[i] = e;
    }
}
