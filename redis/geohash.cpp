// SPDX-License-Identifier: GPL-3.0-or-later
#include "geohash.h"

#include <cmath>

namespace {
// Spreads the low 32 bits of x to the even bit positions.
quint64 spread(quint64 x)
{
    x &= 0xFFFFFFFFull;
    x = (x | (x << 16)) & 0x0000FFFF0000FFFFull;
    x = (x | (x << 8)) & 0x00FF00FF00FF00FFull;
    x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0Full;
    x = (x | (x << 2)) & 0x3333333333333333ull;
    x = (x | (x << 1)) & 0x5555555555555555ull;
    return x;
}

// The inverse: gathers the even bit positions into the low 32 bits.
quint64 squash(quint64 x)
{
    x &= 0x5555555555555555ull;
    x = (x | (x >> 1)) & 0x3333333333333333ull;
    x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0Full;
    x = (x | (x >> 4)) & 0x00FF00FF00FF00FFull;
    x = (x | (x >> 8)) & 0x0000FFFF0000FFFFull;
    x = (x | (x >> 16)) & 0x00000000FFFFFFFFull;
    return x;
}

constexpr double kCells = double(1u << geohash::kStep);
constexpr double kPi = 3.14159265358979323846;
} // namespace

namespace geohash {

bool isValidScore(double score)
{
    return std::isfinite(score) && score >= 0 && score < kLimit && std::floor(score) == score;
}

GeoPoint decode(quint64 hash)
{
    // Latitude sits in the even bits, longitude in the odd ones.
    const double latCell = double(squash(hash));
    const double lonCell = double(squash(hash >> 1));
    const double latMin = kLatMin + latCell / kCells * (kLatMax - kLatMin);
    const double latMax = kLatMin + (latCell + 1) / kCells * (kLatMax - kLatMin);
    const double lonMin = kLonMin + lonCell / kCells * (kLonMax - kLonMin);
    const double lonMax = kLonMin + (lonCell + 1) / kCells * (kLonMax - kLonMin);
    GeoPoint p;
    p.lon = qBound(kLonMin, (lonMin + lonMax) / 2, kLonMax);
    p.lat = qBound(kLatMin, (latMin + latMax) / 2, kLatMax);
    return p;
}

GeoPoint decodeScore(double score)
{
    return decode(quint64(score));
}

bool encode(GeoPoint point, quint64 *hash)
{
    if (!(point.lon >= kLonMin && point.lon <= kLonMax && point.lat >= kLatMin && point.lat <= kLatMax))
        return false;
    const auto latCell = quint64((point.lat - kLatMin) / (kLatMax - kLatMin) * kCells);
    const auto lonCell = quint64((point.lon - kLonMin) / (kLonMax - kLonMin) * kCells);
    // The top edge belongs to the last cell, as in Redis (which masks to 26 bits).
    *hash
        = spread(qMin<quint64>(latCell, (1u << kStep) - 1)) | (spread(qMin<quint64>(lonCell, (1u << kStep) - 1)) << 1);
    return true;
}

double distanceM(GeoPoint a, GeoPoint b)
{
    const double lat1 = a.lat * kPi / 180, lat2 = b.lat * kPi / 180;
    const double u = std::sin((lat2 - lat1) / 2);
    const double v = std::sin((b.lon - a.lon) * kPi / 180 / 2);
    return 2.0 * kEarthRadiusM * std::asin(std::sqrt(u * u + std::cos(lat1) * std::cos(lat2) * v * v));
}

} // namespace geohash
