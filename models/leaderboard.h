// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rowtablemodel.h"

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QObject>

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

// One window of a board, as the reader delivers it.
struct LeaderboardPage
{
    QByteArray key;
    qint64 start = 0; // 0-based rank of the first row
    bool descending = true; // how the ranks were counted
    QByteArray highlight; // the member searched for; null for a plain page
    QList<LeaderboardEntry> rows; // in rank order, ties marked
};
Q_DECLARE_METATYPE(LeaderboardPage)

// One window of a board: rank, tie marker, member and score. Rows with equal scores share a
// tie group: a "=" in the tie column, a shared background and a tooltip saying how Redis
// orders them. Rows are merged by member (RowListModel).
class LeaderboardModel : public RowListModel<LeaderboardEntry>, public RowTableRoles
{
    Q_OBJECT
public:
    enum Column { RankColumn, TieColumn, MemberColumn, ScoreColumn, ColumnCount };
    // KeyRole is the member's bytes.
    enum Role { ScoreRole = FirstExtraRole, RankRole, TieGroupRole, HighlightRole };

    explicit LeaderboardModel(QObject *parent = nullptr);

    // 'rows' in rank order; 'descending' tells how the ranks were counted (for the tooltip).
    void setRows(const QList<LeaderboardEntry> &rows, bool descending);
    // A page as the reader delivered it, with its highlighted member.
    void setPage(const LeaderboardPage &page);
    void clear();
    // Highlights the row of this member (one at most); empty clears.
    void setHighlightedMember(const QByteArray &member);
    int highlightedRow() const { return m_highlightMember.isNull() ? -1 : rowOf(m_highlightMember); }
    const LeaderboardEntry &at(int row) const { return rows().at(row); }
    bool isDescending() const { return m_descending; }

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Numbers runs of equal scores in 'rows' (tieGroup); rows without an equal neighbour get -1.
    static void markTies(QList<LeaderboardEntry> &rows);

private:
    QByteArray m_highlightMember;
    bool m_descending = true;
};
