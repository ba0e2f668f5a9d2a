// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <optional>

// A HyperLogLog's cardinality from its bytes, as PFCOUNT would answer it, without PFCOUNT:
// PFCOUNT is flagged read-only but rewrites the cached cardinality inside the value, so the
// key's bytes change (DEBUG DIGEST sees it). RedisLens reads the string (at most 12,304
// bytes, GETRANGE 0 12303) and counts here: the cached figure when it is valid, otherwise the
// registers through the same estimator as Redis 5 and later.
namespace hyperloglog {

// Bytes to read for any HyperLogLog: the 16-byte header and 16,384 six-bit registers.
constexpr int kMaxBytes = 16 + 16384 * 6 / 8;

// The cardinality, or nullopt with 'why' when the bytes are not a HyperLogLog Redis wrote
// (a look-alike string, a truncated read, a corrupt sparse run).
std::optional<qint64> cardinality(const QByteArray &bytes, QString *why = nullptr);

} // namespace hyperloglog
