// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "leaderboard.h"
#include "rediscommand.h"

#include <QObject>
#include <QVersionNumber>
#include <functional>

class RedisClient;

// Reads boards and emits what it read as plain structs (pages, header, histogram, union) for
// the panel's LeaderboardModels or a headless caller. Every read is bounded: pages are
// ZRANGE windows, the rank is ZREVRANK/ZRANK, the histogram is ZCOUNT per bucket, the union
// only runs when the boards are small. Replies for a board or page the user left are dropped.
class LeaderboardReader : public QObject
{
    Q_OBJECT
public:
    static constexpr int kNeighbours = 5;
    static constexpr int kMaxCandidates = 200;
    static constexpr qint64 kMaxUnionInput = 100000;

    explicit LeaderboardReader(RedisClient *client, QObject *parent = nullptr);

    QByteArray key() const { return m_key; }
    bool isDescending() const { return m_descending; }
    int pageSize() const { return m_pageSize; }
    qint64 pageStart() const { return m_pageStart; } // 0-based rank of the first row shown
    const BoardHeader &header() const { return m_header; }
    bool isLoading() const { return m_pending > 0; }

    // The version the command choice follows: the server's, unless overridden (tests, or a
    // server that hides INFO and is known to be new).
    QVersionNumber serverVersion() const;
    void overrideServerVersion(const QVersionNumber &version) { m_versionOverride = version; }

    // Opens a board: header, first page, histogram. Forgets everything about the previous one.
    void setKey(const QByteArray &key);
    void setDescending(bool descending);
    void setPageSize(int rows);
    void setHistogramBuckets(int buckets) { m_buckets = qBound(1, buckets, 100); }
    void loadPage(qint64 start);
    void nextPage();
    void previousPage();
    void refreshHeader();
    // Rank and score of 'member', then the window of five above and five below, highlighted.
    void findMember(const QByteArray &member);
    void loadHistogram();
    // ZUNION of 'keys' (rolling total); the top 'topN' in BoardUnion::top.
    void compare(const QList<QByteArray> &keys, int topN = 50);
    // ZCARD of at most kMaxCandidates keys, pipelined; largest first.
    void loadCandidates(const QList<QByteArray> &keys);

    // Command choice by server version, public so it can be tested without an old server.
    static RedisCommand rangeCommand(const QByteArray &key, qint64 start, qint64 stop, bool descending,
                                     const QVersionNumber &version);
    static RedisCommand rankCommand(const QByteArray &key, const QByteArray &member, bool descending,
                                    const QVersionNumber &version);
    // Empty when ZUNION can be used, else the line to show.
    static QString unionUnavailable(const QVersionNumber &version);
    // Equal-width ZCOUNT buckets between finite min and max whose counts add up exactly to the
    // members in [min, max]; infinity buckets are added by the loader.
    static QList<ScoreHistogram::Bucket> bucketsFor(double min, double max, int count);
    // Pairs of a WITHSCORES reply (RESP2 flat, or RESP3 pairs).
    static QList<LeaderboardEntry> parseWithScores(const RedisValue &reply, qint64 firstRank);

Q_SIGNALS:
    void headerAvailable(const BoardHeader &header);
    void pageAvailable(const LeaderboardPage &page);
    void memberSearched(const MemberSearch &result);
    void histogramAvailable(const ScoreHistogram &histogram);
    void unionAvailable(const BoardUnion &result);
    void candidatesAvailable(const QList<BoardSize> &boards);
    void pageFailed(const QString &message);

private:
    void send(const QList<RedisCommand> &commands, std::function<void(const RedisReply &)> done);
    void requestWindow(qint64 start, qint64 stop, const QByteArray &highlight);
    void countBuckets(ScoreHistogram histogram, quint64 generation);

    RedisClient *m_client;
    QByteArray m_key;
    BoardHeader m_header;
    QVersionNumber m_versionOverride;
    quint64 m_generation = 0; // bumped when the board or direction changes
    quint64 m_pageRequest = 0; // the newest page request; older page replies are dropped
    quint64 m_unionRequest = 0;
    quint64 m_candidateRequest = 0;
    qint64 m_pageStart = 0;
    int m_pageSize = 50;
    int m_buckets = 20;
    int m_pending = 0;
    bool m_descending = true;
};
