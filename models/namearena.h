// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>

#include <cstring>
#include <memory>
#include <vector>

// Key names, their bytes side by side in chunks of a megabyte, each behind its length (one
// byte below 128, two below 16,384, at most five): a ten-byte name costs eleven bytes, where a
// QByteArray of its own costs a pointer, a header and a heap block (about 70 bytes), and the
// owner keeps no size of its own. A name longer than 64 KiB gets a chunk of its own. Names are
// never moved; a removed name's bytes stay until clear().
class NameArena
{
public:
    // Where the name was put.
    quint64 add(const QByteArray &name);
    qsizetype size(quint64 at) const
    {
        const char *p = data(at);
        return qsizetype(readLength(&p));
    }
    // The name's bytes (at most 'max' of them: a view for display), not copied: valid until
    // clear(); copy before keeping them.
    QByteArray view(quint64 at, qsizetype max = -1) const
    {
        const char *p = data(at);
        qsizetype n = qsizetype(readLength(&p));
        if (max >= 0 && n > max)
            n = max;
        return n == 0 ? QByteArray("", 0) : QByteArray::fromRawData(p, n);
    }
    QByteArray copy(quint64 at) const
    {
        const char *p = data(at);
        const qsizetype n = qsizetype(readLength(&p));
        return n == 0 ? QByteArray("", 0) : QByteArray(p, n);
    }
    // Whether the name put at 'at' is 'name'.
    bool equals(quint64 at, const QByteArray &name) const
    {
        const char *p = data(at);
        const quint32 n = readLength(&p);
        return n == quint32(name.size()) && (n == 0 || std::memcmp(p, name.constData(), n) == 0);
    }
    // Bytes held, lengths included, whether in use or left by removed names.
    quint64 bytes() const { return m_bytes; }
    void clear();

private:
    const char *data(quint64 at) const { return m_chunks[size_t(at >> kChunkBits)].get() + (at & (kChunk - 1)); }
    // Seven bits a byte, low first; the high bit says another byte follows.
    static quint32 readLength(const char **p)
    {
        quint32 n = 0;
        for (int shift = 0;; shift += 7) {
            const auto b = quint8(*(*p)++);
            n |= quint32(b & 0x7f) << shift;
            if (!(b & 0x80))
                return n;
        }
    }

    static constexpr int kChunkBits = 20;
    static constexpr quint64 kChunk = quint64(1) << kChunkBits;
    static constexpr qsizetype kOwnChunk = 64 * 1024;

    std::vector<std::unique_ptr<char[]>> m_chunks;
    size_t m_current = 0; // the chunk small names go to
    quint64 m_used = kChunk; // bytes of it in use; full before the first name
    quint64 m_bytes = 0;
};
