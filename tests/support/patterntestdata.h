// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "patterns.h"
#include "redisclient.h"
#include "ttl.h"

#include <QList>
#include <QSignalSpy>
#include <QString>
#include <QVariantMap>
#include <memory>

class TestServer;

// A classifier verdict as the pattern index hands it to a monitor or panel: confidence 90,
// a rule's (fromRule) when 'params' are given.
PatternMatch patternMatch(const QByteArray &key, PatternKind kind, KeyType type, const QString &family,
                          qint64 pttlMs = ttl::kUnknown, const QVariantMap &params = {});

// A ready client logged in as 'user' (created on 'server' with +@all minus 'denied'
// commands), for the "no permission is one line" checks; nullptr when it did not get ready.
std::unique_ptr<RedisClient> clientWithout(TestServer &server, const QByteArray &user, const QList<QByteArray> &denied);

// What a panel or monitor says when a command is denied: names the missing permission, in
// one line.
bool isOneLinePermissionError(const QString &message);

// The first message 'reader' (a pattern monitor) reports with failed() after it is handed
// 'matches' and refreshed; empty when none came within 'timeoutMs'.
template <typename Reader> QString firstFailure(Reader &reader, const QList<PatternMatch> &matches, int timeoutMs)
{
    QSignalSpy failed(&reader, &Reader::failed);
    reader.setMatches(matches);
    reader.refresh();
    if (failed.isEmpty() && !failed.wait(timeoutMs))
        return {};
    return failed.first().first().toString();
}
