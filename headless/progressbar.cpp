// SPDX-License-Identifier: GPL-3.0-or-later
#include "progressbar.h"

#include <QLocale>
#include <cstdio>
#include <unistd.h>

ProgressBar::ProgressBar(bool enabled) : m_enabled(enabled)
{ }

ProgressBar::~ProgressBar()
{
    clear();
}

bool ProgressBar::stderrIsTerminal()
{
    return ::isatty(STDERR_FILENO) == 1;
}

void ProgressBar::scanned(quint64 done, qint64 total, double keysPerSecond, bool force)
{
    if (!m_enabled)
        return;
    constexpr int kWidth = 30;
    QByteArray line = "scanning ";
    const QLocale c = QLocale::c();
    if (total > 0) {
        const double fraction = qBound(0.0, double(done) / double(total), 1.0);
        const int filled = int(fraction * kWidth);
        line += '[' + QByteArray(filled, '#') + QByteArray(kWidth - filled, '.') + "] ";
        line += QByteArray::number(int(fraction * 100)) + "% ";
        line += c.toString(qulonglong(done)).toUtf8() + " / " + c.toString(qlonglong(total)).toUtf8() + " keys";
    } else {
        line += c.toString(qulonglong(done)).toUtf8() + " keys";
    }
    line += ", " + c.toString(qlonglong(keysPerSecond)).toUtf8() + " keys/s";
    if (!m_pace.isEmpty()) // kept short: the line is redrawn in place and must not wrap
        line += " · " + m_pace.left(70).toUtf8();
    // The first count after a status line, and the last one, are drawn at once.
    draw(line, force || m_status);
    m_status = false;
}

void ProgressBar::status(const QString &what)
{
    if (!m_enabled)
        return;
    draw(what.toUtf8(), true);
    m_status = true;
}

void ProgressBar::clear()
{
    if (!m_enabled || !m_drawn)
        return;
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    m_drawn = false;
}

void ProgressBar::draw(const QByteArray &line, bool force)
{
    if (!force && m_drawn && m_sinceDraw.isValid() && m_sinceDraw.elapsed() < 100)
        return;
    m_sinceDraw.start();
    // \r and erase-to-end: one line, redrawn in place.
    std::fprintf(stderr, "\r\033[K%s", line.constData());
    std::fflush(stderr);
    m_drawn = true;
}
