// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QByteArrayView>

// Buffered writes to a file descriptor: records are appended as bytes and go out in blocks of
// 64 KB, so a million records cost a few hundred write() calls.
class Output
{
public:
    explicit Output(int fd);
    ~Output();
    Output(const Output &) = delete;
    Output &operator=(const Output &) = delete;

    void append(char c)
    {
        m_buffer.append(c);
        if (m_buffer.size() >= kBlock)
            flush();
    }
    void append(QByteArrayView bytes)
    {
        m_buffer.append(bytes.data(), bytes.size());
        if (m_buffer.size() >= kBlock)
            flush();
    }
    void appendInteger(qint64 value);
    void appendNumber(double value); // shortest round-trip form; the caller handles NaN/inf
    void flush();
    bool failed() const { return m_failed; } // a write failed (a closed pipe, a full disk)

    static constexpr qsizetype kBlock = 64 * 1024;

private:
    int m_fd;
    QByteArray m_buffer;
    bool m_failed = false;
};
