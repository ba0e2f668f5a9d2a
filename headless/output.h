// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArrayView>

#include <cstring>
#include <memory>

// Buffered writes to a file descriptor: records are appended as bytes and go out in blocks of
// 64 KB, so a million records cost a few hundred write() calls.
class Output
{
public:
    explicit Output(int fd);
    ~Output();
    Output(const Output &) = delete;
    Output &operator=(const Output &) = delete;

    // Inline and without QByteArray's bookkeeping: a million records are tens of millions of
    // small appends.
    void append(char c)
    {
        if (m_used == kBlock)
            flush();
        m_data[m_used++] = c;
    }
    void append(QByteArrayView bytes)
    {
        if (m_used + bytes.size() > kBlock) {
            appendLong(bytes);
            return;
        }
        if (bytes.isEmpty())
            return; // an empty view may carry a null pointer, which memcpy must not see
        std::memcpy(m_data.get() + m_used, bytes.data(), size_t(bytes.size()));
        m_used += bytes.size();
    }
    void appendInteger(qint64 value);
    void appendNumber(double value); // shortest round-trip form; the caller handles NaN/inf
    void flush();
    bool failed() const { return m_failed; } // a write failed (a closed pipe, a full disk)

    static constexpr qsizetype kBlock = 64 * 1024;

private:
    void appendLong(QByteArrayView bytes);
    void writeAll(const char *at, qsizetype size);

    int m_fd;
    std::unique_ptr<char[]> m_data;
    qsizetype m_used = 0;
    bool m_failed = false;
};
