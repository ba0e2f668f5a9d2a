// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>

#include <cstring>
#include <memory>
#include <vector>

// Key names, their bytes side by side in chunks of a megabyte: a ten-byte name costs ten
// bytes, where a QByteArray of its own costs a pointer, a header and a heap block (about 70
// bytes). A name longer than 64 KiB gets a chunk of its own. Names are never moved; a removed
// name's bytes stay until clear().
class NameArena
{
public:
    // Where the name was put.
    quint64 add(const QByteArray &name);
    // The name's bytes, not copied: valid until clear(); copy before keeping them.
    QByteArray view(quint64 at, qsizetype size) const
    {
        return size == 0 ? QByteArray("", 0) : QByteArray::fromRawData(data(at), size);
    }
    QByteArray copy(quint64 at, qsizetype size) const
    {
        return size == 0 ? QByteArray("", 0) : QByteArray(data(at), size);
    }
    // Whether the name put at 'at', of name.size() bytes, is 'name'.
    bool equals(quint64 at, const QByteArray &name) const
    {
        return name.isEmpty() || std::memcmp(data(at), name.constData(), size_t(name.size())) == 0;
    }
    // Bytes held, whether in use or left by removed names.
    quint64 bytes() const { return m_bytes; }
    void clear();

private:
    const char *data(quint64 at) const { return m_chunks[size_t(at >> kChunkBits)].get() + (at & (kChunk - 1)); }

    static constexpr int kChunkBits = 20;
    static constexpr quint64 kChunk = quint64(1) << kChunkBits;
    static constexpr qsizetype kOwnChunk = 64 * 1024;

    std::vector<std::unique_ptr<char[]>> m_chunks;
    size_t m_current = 0; // the chunk small names go to
    quint64 m_used = kChunk; // bytes of it in use; full before the first name
    quint64 m_bytes = 0;
};
