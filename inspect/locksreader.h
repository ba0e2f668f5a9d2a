// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "locks.h"
#include "patterns.h"
#include "pollingreader.h"
#include "rediscommand.h"

#include <QByteArray>
#include <QList>
#include <QSet>

class RedisClient;

// Reads the locks the classifier found: per key GETRANGE 0 kValueBytes-1 (a huge value costs
// nothing), STRLEN and PTTL, pipelined in batches of kBatch keys, one batch after the other,
// at most kMaxLocks keys per poll; again every kRefreshMs while polling. Each round ends with
// locksAvailable (flagged and sorted), then refreshed; refresh() reads one round without a timer.
class LocksReader : public PollingReader
{
    Q_OBJECT
public:
    static constexpr int kMaxLocks = 500;
    static constexpr int kBatch = 100;
    static constexpr int kValueBytes = 256;
    static constexpr int kRefreshMs = 3000;

    explicit LocksReader(RedisClient *client, QObject *parent = nullptr);

    // PatternKind::Lock matches; others are ignored. Reads at once only while polling.
    void setMatches(const QList<PatternMatch> &matches);
    int matchCount() const { return int(m_matches.size()); }

    // What the last round read.
    const QList<LockInfo> &locks() const { return m_locks; }
    const LockInfo *lock(const QByteArray &key) const;

Q_SIGNALS:
    void locksAvailable(const QList<LockInfo> &locks);

private:
    void startRound() override;
    bool readBatch(int from, int to, const RedisReply &reply, qint64 sentAtMs);
    void finishRound();

    QList<LockInfo> m_locks; // the last round's
    QList<PatternMatch> m_matches;
    QList<LockInfo> m_reading; // this round's results so far
    QSet<QByteArray> m_shownReleased; // shown as released once already: dropped now
};
