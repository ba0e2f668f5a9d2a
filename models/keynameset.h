// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keyidindex.h"
#include "namearena.h"
#include "segmentedvector.h"

#include <QByteArray>

// A set of key names for millions of keys, each with an id (0, 1, 2, … in the order they came).
// A name costs its bytes and length in a NameArena, 8 bytes of place and a KeyIdIndex entry,
// about 40 bytes for a twenty-byte name; a QHash<QByteArray, …> costs a node, a span slot and the name's
// own heap block, over 80. Nothing reserves and nothing grows by copying, so adding keys never
// holds the GUI thread for a rehash of millions. Names are never removed one by one.
class KeyNameSet
{
public:
    // The name's id; when the set did not hold it, a new id (and *added is true).
    quint32 insert(const QByteArray &name, bool *added);
    // The id of 'name', or -1.
    qint64 find(const QByteArray &name) const;
    // The name's bytes, not copied: valid until clear(). Copy them before keeping them.
    QByteArray view(quint32 id) const { return m_arena.view(m_at[id]); }
    qsizetype size() const { return qsizetype(m_at.size()); }
    void clear();
    // Tests make names collide.
    void setHashFunction(KeyIdIndex::HashFunction hash) { m_index.setHashFunction(hash); }

private:
    auto holds() const
    {
        return [this](int id, const QByteArray &name) { return m_arena.equals(m_at[size_t(id)], name); };
    }

    NameArena m_arena;
    KeyIdIndex m_index;
    SegmentedVector<quint64> m_at;
};
