// SPDX-License-Identifier: GPL-3.0-or-later
#include "output.h"

#include <cerrno>
#include <charconv>
#include <unistd.h>

Output::Output(int fd) : m_fd(fd), m_data(new char[kBlock])
{ }

Output::~Output()
{
    flush();
}

void Output::appendInteger(qint64 value)
{
    char digits[24];
    const auto r = std::to_chars(digits, digits + sizeof digits, value);
    append(QByteArrayView(digits, r.ptr - digits));
}

void Output::appendNumber(double value)
{
    char digits[32];
    const auto r = std::to_chars(digits, digits + sizeof digits, value);
    append(QByteArrayView(digits, r.ptr - digits));
}

void Output::appendLong(QByteArrayView bytes)
{
    flush();
    if (bytes.size() >= kBlock) {
        writeAll(bytes.data(), bytes.size());
        return;
    }
    std::memcpy(m_data.get(), bytes.data(), size_t(bytes.size()));
    m_used = bytes.size();
}

void Output::flush()
{
    writeAll(m_data.get(), m_used);
    m_used = 0;
}

void Output::writeAll(const char *at, qsizetype left)
{
    while (left > 0 && !m_failed) {
        const ssize_t n = ::write(m_fd, at, size_t(left));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            m_failed = true;
            break;
        }
        at += n;
        left -= n;
    }
}
