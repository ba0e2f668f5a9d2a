// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rediscommand.h"

#include <QAbstractTableModel>
#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QVersionNumber>

class RedisClient;

// One member of a board as a window of ZRANGE … WITHSCORES returned it.
struct LeaderboardEntry
{
    QByteArray member;
    QByteArray scoreText; // as the server spelled it ("inf", "1e+300"): shown as is
    double score = 0;
    qint64 rank = 0; // 0-based, in the direction the window was fetched
    int tieGroup = -1; // >= 0: shares its score with a neighbour; groups are numbered in order
};

// What the header says about a board.
struct BoardHeader
{
    static constexpr qint64 kTrimThreshold = 10000;
    QByteArray key;
    qint64 cardinality = -1; // ZCARD; -1 unknown
    qint64 memory = -1; // MEMORY USAGE; -1 unknown
    bool memoryDenied = false;
    qint64 pttlMs = -2; // PTTL: -1 no TTL, -2 no key
    QString error; // one line when the board cannot be read (wrong type, NOPERM…)
    // Empty unless the board is big and has no TTL.
    QString trimSuggestion() const;
};
Q_DECLARE_METATYPE(BoardHeader)

// The result of a member search.
struct MemberSearch
{
    QByteArray member;
    bool found = false;
    qint64 rank = -1; // 0-based in the search direction
    QByteArray scoreText;
    QString error;
};
Q_DECLARE_METATYPE(MemberSearch)

// A score histogram counted on the server with ZCOUNT: never by reading members.
struct ScoreHistogram
{
    struct Bucket
    {
        double low = 0;
        double high = 0;
        bool lowInclusive = false; // the first finite bucket and the infinity buckets include both ends
        QByteArray lowArg, highArg; // the ZCOUNT bounds sent
        qint64 count = 0;
    };
    QByteArray key;
    QList<Bucket> buckets;
    qint64 cardinality = -1; // ZCARD read in the same batch as the extremes
    QString error;
    qint64 total() const;
};
Q_DECLARE_METATYPE(ScoreHistogram)

// Several boards combined with ZUNION (read-only; nothing is written).
struct BoardUnion
{
    QList<QByteArray> keys;
    qint64 unionSize = -1; // members in the union
    qint64 inputSize = -1; // sum of the boards' ZCARDs
    QList<LeaderboardEntry> top; // highest first
    QString error; // why there is no result (old server, too big…)
};
Q_DECLARE_METATYPE(BoardUnion)

struct BoardSize
{
    QByteArray key;
    qint64 cardinality = 0;
};

// One window of a board: rank, tie marker, member and score. Rows with equal scores share a
// tie group: a "=" in the tie column, a shared background and a tooltip saying how Redis
// orders them.
class LeaderboardModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { RankColumn, TieColumn, MemberColumn, ScoreColumn, ColumnCount };
    enum Role { MemberRole = Qt::UserRole + 1, ScoreRole, RankRole, TieGroupRole, HighlightRole };

    using QAbstractTableModel::QAbstractTableModel;

    // 'rows' in rank order; 'descending' tells how the ranks were counted (for the tooltip).
    void setRows(const QList<LeaderboardEntry> &rows, bool descending);
    void clear();
    // Highlights the row of this member (one at most); empty clears.
    void setHighlightedMember(const QByteArray &member);
    int highlightedRow() const { return m_highlight; }
    const QList<LeaderboardEntry> &rows() const { return m_rows; }
    const LeaderboardEntry &at(int row) const { return m_rows.at(row); }
    bool isDescending() const { return m_descending; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Numbers runs of equal scores in 'rows' (tieGroup); rows without an equal neighbour get -1.
    static void markTies(QList<LeaderboardEntry> &rows);

private:
    QList<LeaderboardEntry> m_rows;
    QByteArray m_highlightMember;
    int m_highlight = -1;
    bool m_descending = true;
};

// Reads boards for the leaderboard panel and fills its models. Every read is bounded: pages are
// ZRANGE windows, the rank is ZREVRANK/ZRANK, the histogram is ZCOUNT per bucket, the union
// only runs when the boards are small. Replies for a board or page the user left are dropped.
class LeaderboardLoader : public QObject
{
    Q_OBJECT
public:
    static constexpr int kNeighbours = 5;
    static constexpr int kMaxCandidates = 200;
    static constexpr qint64 kMaxUnionInput = 100000;

    explicit LeaderboardLoader(RedisClient *client, QObject *parent = nullptr);

    LeaderboardModel *pageModel() const { return m_page; }
    LeaderboardModel *unionModel() const { return m_union; }

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
    // ZUNION of 'keys' (rolling total); top 'topN' into unionModel().
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
    void pageAvailable(qint64 start, int rows);
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
    LeaderboardModel *m_page;
    LeaderboardModel *m_union;
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
