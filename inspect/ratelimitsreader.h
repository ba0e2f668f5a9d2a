// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "patterns.h"
#include "pollingreader.h"
#include "ratelimits.h"
#include "rediscommand.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QVariantMap>

class RedisClient;

// Reads the limiter keys the classifier found, at most kMaxKeys per poll, in pipelined batches
// of kBatch keys: counters GET + PTTL; sliding logs ZCARD, PTTL and both end members, then
// ZCOUNT inside the window once the window is known; buckets HMGET of the field names this
// project's token_bucket.lua writes (tokens, last_refill) and common others (ts, updated_at).
// The clock is the server's (TIME): the scripts are handed the callers' clocks, which the
// server's is closer to than ours. Again every kRefreshMs while polling. Each round ends with
// rateLimitsAvailable (the analysis: limiters and callers), then refreshed.
class RateLimitsReader : public PollingReader
{
    Q_OBJECT
public:
    static constexpr int kMaxKeys = 500;
    static constexpr int kBatch = 100;
    static constexpr int kRefreshMs = 3000;

    explicit RateLimitsReader(RedisClient *client, QObject *parent = nullptr);

    // FixedWindow, SlidingWindow and TokenBucket matches; others are ignored. Reads at once only
    // while polling.
    void setMatches(const QList<PatternMatch> &matches);
    int matchCount() const { return int(m_matches.size()); }

    // What the last round read.
    const RateLimitAnalysis &analysis() const { return m_analysis; }
    const LimiterInfo *limiter(const QString &name) const;
    const CallerState *caller(const QByteArray &key) const;

Q_SIGNALS:
    void rateLimitsAvailable(const RateLimitAnalysis &analysis);

private:
    void startRound() override;
    QList<RedisCommand> keyCommands(int from, int to, QList<int> *first = nullptr) const;
    void readKeys(int from, int to, const RedisReply &reply, qint64 sent);
    void findSlidingWindows();
    QList<int> countable(int from, int to) const;
    void finishRound();
    bool failOn(const RedisReply &reply);

    RateLimitAnalysis m_analysis; // the last round's
    QList<PatternMatch> m_matches;
    QHash<QString, QVariantMap> m_params; // per limiter, from rules
    QList<CallerState> m_reading;
    QList<int> m_sliding; // indexes into m_reading
    QHash<QString, qint64> m_slidingWindow; // per limiter, for ZCOUNT
    qint64 m_clockOffset = 0; // server minus local, ms
};
