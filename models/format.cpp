// SPDX-License-Identifier: GPL-3.0-or-later
#include "format.h"

#include "scanbatch.h"
#include "ttl.h"

#include <limits>

namespace format {

QString bytes(qint64 b)
{
    if (b < 0)
        return {};
    if (b < 1024)
        return QStringLiteral("%1 B").arg(b);
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    double v = double(b) / 1024;
    int unit = 0;
    while (v >= 1024 && unit < 3) {
        v /= 1024;
        ++unit;
    }
    return QStringLiteral("%1 %2").arg(v, 0, 'f', v < 10 ? 1 : 0).arg(QLatin1String(units[unit]));
}

QString count(quint64 n)
{
    // Grouped by hand: the C locale has no group separator and the user's locale would make
    // figures differ between machines, tests and screenshots.
    QString digits = QString::number(n);
    for (qsizetype i = digits.size() - 3; i > 0; i -= 3)
        digits.insert(i, QLatin1Char(','));
    return digits;
}

QString duration(qint64 ms)
{
    if (ms < 0)
        ms = 0;
    if (ms < 1000)
        return QStringLiteral("%1 ms").arg(ms);
    const qint64 s = ms / 1000;
    if (s < 60)
        return QStringLiteral("%1 s").arg(s);
    const qint64 m = s / 60;
    if (m < 60)
        return QStringLiteral("%1m %2s").arg(m).arg(s % 60, 2, 10, QLatin1Char('0'));
    const qint64 h = m / 60;
    if (h < 24)
        return QStringLiteral("%1h %2m").arg(h).arg(m % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1d %2h").arg(h / 24).arg(h % 24, 2, 10, QLatin1Char('0'));
}

QString ttl(qint64 expireAtMs, qint64 nowMs)
{
    if (expireAtMs == ttl::kUnknown)
        return {};
    if (expireAtMs < 0)
        return QStringLiteral("no TTL");
    if (expireAtMs <= nowMs)
        return QStringLiteral("expired");
    // A countdown in milliseconds flickers; under a second is all a reader needs.
    if (expireAtMs - nowMs < 1000)
        return QStringLiteral("< 1 s");
    return duration(expireAtMs - nowMs);
}

QString scanPace(const ScanProgress &p)
{
    QString text = QStringLiteral("%1 commands/s").arg(count(quint64(qMax(0.0, p.commandsPerSecond))));
    if (p.adaptive)
        return text + QStringLiteral(" · adaptive: ") + p.paceReason;
    if (p.ceiling > 0)
        return text + QStringLiteral(" · ceiling %1/s").arg(count(quint64(p.ceiling)));
    return text + QStringLiteral(" · unpaced");
}

} // namespace format
