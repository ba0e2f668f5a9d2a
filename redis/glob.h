// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QList>
#include <optional>

// Redis-style glob on bytes, as KEYS/SCAN MATCH read it: *, ?, [abc], [^a-z] / [!a-z],
// and \ escaping the next byte. No character classes beyond byte ranges.
bool globMatch(const QByteArray &pattern, const QByteArray &text);
// The same match, with what each '*' took, in order; each '*' takes as much as it can, so in
// "bull:*:*" the first takes all but the last segment. nullopt when the glob does not match.
std::optional<QList<QByteArray>> globCaptures(const QByteArray &pattern, const QByteArray &text);
