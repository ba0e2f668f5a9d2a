// SPDX-License-Identifier: GPL-3.0-or-later
#include "zsetkind.h"

#include <cmath>

namespace {
constexpr double kYearMs = 365.25 * 86400 * 1000;
// Below 2^44 the top four bits of both coordinates are zero: longitude in [-180, -157.5],
// latitude in [-85.05, -74.4], the Ross Sea corner of the grid.
constexpr double kCornerLimit = 17592186044416.0; // 2^44

bool allWithin(const QList<double> &scores, double centre, double halfWidth)
{
    for (double s : scores)
        if (!(std::abs(s - centre) <= halfWidth))
            return false;
    return true;
}
} // namespace

double epochScoreScale(const QList<double> &scores, qint64 nowMs)
{
    if (scores.isEmpty())
        return 0;
    // Seconds first: seconds read as milliseconds would be 1970. The windows do not overlap:
    // ten years either side of now in one unit never reaches another unit's window.
    for (double scale : {0.001, 1.0, 4096.0, 1000.0, 1e6}) {
        if (allWithin(scores, double(nowMs) * scale, 10 * kYearMs * scale))
            return scale;
    }
    return 0;
}

QString zsetKindName(ZSetKind kind)
{
    switch (kind) {
    case ZSetKind::Geo: return QStringLiteral("geo");
    case ZSetKind::TimeScheduled: return QStringLiteral("scheduled");
    case ZSetKind::Leaderboard: break;
    }
    return QStringLiteral("leaderboard");
}

ZSetKind classifyZSetSample(const QList<double> &scores, const QList<std::optional<GeoPoint>> &positions, qint64 nowMs)
{
    if (scores.isEmpty())
        return ZSetKind::Leaderboard;
    // Due times of queues and delayed jobs: epoch times within ten years of now (seconds,
    // milliseconds, microseconds, nanoseconds, or milliseconds × 4096). Checked first: epoch
    // milliseconds are valid geohash integers too. A geo set whose sampled points all fall in
    // lon [-180, -168.75], lat [-85, -80] would be misread; no real data set lives only there.
    if (epochScoreScale(scores, nowMs) != 0)
        return ZSetKind::TimeScheduled;
    double highest = 0;
    for (double s : scores) {
        if (!geohash::isValidScore(s))
            return ZSetKind::Leaderboard;
        highest = qMax(highest, s);
    }
    // Every integer below 2^52 is a "valid" geohash and GEOPOS answers for any zset member, so
    // neither check alone tells a leaderboard (100, 2500, 31337, even 10^12) from a geo set. A
    // leaderboard's integers are small next to 2^52 and decode to the grid's origin corner
    // (see kCornerLimit); a geo set whose every point lies there is not real data. So: a geo
    // set needs its highest sampled score at or above 2^44.
    if (highest < kCornerLimit)
        return ZSetKind::Leaderboard;
    int answered = 0;
    for (qsizetype i = 0; i < positions.size() && i < scores.size(); ++i) {
        if (!positions.at(i))
            continue; // removed between the two reads
        const GeoPoint decoded = geohash::decodeScore(scores.at(i));
        if (std::abs(decoded.lon - positions.at(i)->lon) > 1e-6 || std::abs(decoded.lat - positions.at(i)->lat) > 1e-6)
            return ZSetKind::Leaderboard;
        ++answered;
    }
    return answered > 0 ? ZSetKind::Geo : ZSetKind::Leaderboard;
}
