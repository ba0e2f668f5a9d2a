// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QHash>

#include <array>
#include <vector>

// Key bytes → a small id (≥ 0) into a table its owner keeps, for millions of keys.
//
// The index holds no key bytes: an id is found by the key's 64-bit hash, and the owner's
// 'matches(id, key)' says whether the entry 'id' holds exactly these bytes. A probe compares
// integers; comparing key bytes would read each probed key's memory, a cache miss per probe on
// a million keys. The hashes live in shards, so growing rehashes one shard's keys, never a
// million at once on the GUI thread. A key whose hash another key holds already lives in a
// small side table, by its bytes.
class KeyIdIndex
{
public:
    using HashFunction = size_t (*)(const QByteArray &);
    static size_t defaultHash(const QByteArray &key) { return qHash(key, size_t(0x9e3779b97f4a7c15ULL)); }

    // The id of 'key', or -1.
    template <typename Matches> int find(const QByteArray &key, const Matches &matches) const
    {
        const size_t h = m_hash(key);
        const int stored = shard(h).value(h);
        if (stored > 0 && matches(stored - 1, key))
            return stored - 1;
        return m_collided.isEmpty() ? -1 : m_collided.value(key, 0) - 1;
    }
    // The id of 'key'; when it has none, the id 'add()' returns, stored for it (*added is then
    // true). One hash and one probe, where find() then insert() took two of each.
    template <typename Matches, typename Add>
    int findOrAdd(const QByteArray &key, const Matches &matches, const Add &add, bool *added)
    {
        const size_t h = m_hash(key);
        Shard &s = shard(h);
        const int stored = s.value(h);
        *added = false;
        if (stored > 0 && matches(stored - 1, key))
            return stored - 1;
        if (!m_collided.isEmpty()) {
            const auto it = m_collided.constFind(key);
            if (it != m_collided.cend())
                return it.value() - 1;
        }
        *added = true;
        const int id = add();
        if (stored == 0)
            s.insert(h, id + 1);
        else
            m_collided.insert(key, id + 1);
        ++m_size;
        return id;
    }
    // Forgets the key; its id, or -1 when it was not there.
    template <typename Matches> int take(const QByteArray &key, const Matches &matches)
    {
        const size_t h = m_hash(key);
        Shard &s = shard(h);
        const int stored = s.value(h);
        int id = -1;
        if (stored > 0 && matches(stored - 1, key)) {
            id = stored - 1;
            s.remove(h);
        } else if (!m_collided.isEmpty()) {
            id = m_collided.take(key) - 1;
        }
        if (id >= 0)
            --m_size;
        return id;
    }
    void clear();
    qsizetype size() const { return m_size; }
    // Tests make keys collide.
    void setHashFunction(HashFunction hash) { m_hash = hash; }

private:
    // hash → id + 1, open addressing with linear probing over 8-byte entries: one probe is one
    // cache line. An entry keeps the hash's low 32 bits (they also choose its home), so growth
    // never reads a key; hashes that share them share the entry, and the owner's check sends
    // the second key to the side table.
    class Shard
    {
    public:
        int value(size_t hash) const; // 0: absent
        void insert(size_t hash, int value); // a hash not in the table; value > 0
        void remove(size_t hash);

    private:
        struct Entry
        {
            quint32 tag = 0; // the hash's low 32 bits
            int value = 0; // 0: empty
        };
        size_t home(quint32 tag) const { return size_t(tag) & m_mask; }
        qsizetype find(size_t hash) const; // -1: absent
        void rehash(size_t buckets);

        std::vector<Entry> m_entries;
        size_t m_mask = 0;
        qsizetype m_size = 0;
    };
    // Growing rehashes one shard, a 1024th of the keys: at ten million, some 8,000 entries,
    // about a millisecond. So nothing reserves (reserving for ten million keys at once zeroes
    // a quarter of a gigabyte on the GUI thread).
    static constexpr int kShardBits = 10;
    static constexpr int kShards = 1 << kShardBits;
    static size_t shardOf(size_t hash) { return size_t(quint64(hash) >> (64 - kShardBits)); }
    Shard &shard(size_t hash) { return m_shards[shardOf(hash)]; }
    const Shard &shard(size_t hash) const { return m_shards[shardOf(hash)]; }

    std::array<Shard, kShards> m_shards;
    QHash<QByteArray, int> m_collided;
    HashFunction m_hash = &defaultHash;
    qsizetype m_size = 0;
};
