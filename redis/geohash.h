// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QtGlobal>

// A position on Earth. Longitude first, everywhere: it is the order of GEOADD, GEOPOS and x/y.
struct GeoPoint
{
    double lon = 0;
    double lat = 0;
};

// Redis's GEO score: a 52-bit geohash, 26 bits of longitude and 26 of latitude interleaved
// (longitude in the odd bits), over longitude [-180, 180] and the Web-Mercator latitude band
// [-85.05112878, 85.05112878]. Decoding gives the centre of the cell, as GEOPOS does.
namespace geohash {

constexpr int kStep = 26;
constexpr double kLonMin = -180.0;
constexpr double kLonMax = 180.0;
constexpr double kLatMin = -85.05112878;
constexpr double kLatMax = 85.05112878;
constexpr double kLimit = 4503599627370496.0; // 2^52
// Redis's Earth radius for GEODIST and the searches, in metres.
constexpr double kEarthRadiusM = 6372797.560856;

// True for a score that Redis could have written: an integer in [0, 2^52).
bool isValidScore(double score);
// The cell centre of a valid score; for an invalid one the result is meaningless.
GeoPoint decode(quint64 hash);
GeoPoint decodeScore(double score);
// The 52-bit hash of a point inside the ranges (as GEOADD computes it); false outside them.
bool encode(GeoPoint point, quint64 *hash);
// Great-circle distance in metres, with Redis's formula and radius.
double distanceM(GeoPoint a, GeoPoint b);

} // namespace geohash
