// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "geohash.h"

#include <QList>
#include <QMetaType>
#include <QString>
#include <optional>

// What a sorted set's scores say it is used for.
enum class ZSetKind : quint8 { Leaderboard, Geo, TimeScheduled };
QString zsetKindName(ZSetKind kind); // "leaderboard", "geo", "scheduled"

// Decides from a small sample. 'scores' are the sampled scores (any order); 'positions' are
// GEOPOS answers for the members of the first positions.size() scores (nullopt for a nil),
// empty when GEOPOS was not asked or failed. 'nowMs' is the wall clock.
// Scores that are epoch times, in one unit for the whole sample, within ten years of now: how
// many score units make one millisecond. 0.001 for seconds, 1 for milliseconds, 1000 for
// microseconds, 10^6 for nanoseconds, 4096 for "milliseconds × 4096 + a sequence number" (the
// delayed sets of BullMQ and Bull). 0 when the scores are not such times.
double epochScoreScale(const QList<double> &scores, qint64 nowMs);

ZSetKind classifyZSetSample(const QList<double> &scores, const QList<std::optional<GeoPoint>> &positions, qint64 nowMs);

Q_DECLARE_METATYPE(ZSetKind)
