// SPDX-License-Identifier: GPL-3.0-or-later
#include "output.h"

#include <cerrno>
#include <charconv>
#include <unistd.h>

Output::Output(int fd) : m_fd(fd)
{
    m_buffer.reserve(kBlock + 4096);
}

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

void Output::flush()
{
    const char *at = m_buffer.constData();
    qsizetype left = m_buffer.size();
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
    m_buffer.resize(0);
}
