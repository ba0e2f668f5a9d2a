// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

struct ScanProgress;

// Human-readable figures shared by every panel, so "1.5 MiB" and "2h 05m" read the same
// everywhere.
namespace format {

QString bytes(qint64 bytes); // "512 B", "1.5 KiB", "12.0 MiB"
QString count(quint64 n); // "1,234,567"
QString duration(qint64 ms); // "850 ms", "43 s", "12m 03s", "2h 05m", "3d 04h"
// A TTL countdown from an absolute expiry (ms since epoch): "no TTL" for -1, "expired" when
// past, empty when unknown (INT64_MIN).
QString ttl(qint64 expireAtMs, qint64 nowMs);
// What the scan sends and why it goes at that pace: "8,200 commands/s · adaptive: PING took
// 1.9 ms (0.31 ms before the scan): slowed to 4,000/s", "… · ceiling 50,000/s", "… · unpaced".
QString scanPace(const ScanProgress &progress);

} // namespace format
