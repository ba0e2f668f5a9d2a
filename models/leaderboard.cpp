// SPDX-License-Identifier: GPL-3.0-or-later
#include "leaderboard.h"

#include "bytesescape.h"
#include "format.h"

#include <QColor>
#include <QFont>
#include <QGuiApplication>
#include <QPalette>

QString BoardHeader::trimSuggestion() const
{
    if (cardinality <= kTrimThreshold || pttlMs != -1)
        return {};
    return QCoreApplication::translate("Leaderboard",
                                       "Grows without bound (%1 members, no TTL): trim with ZREMRANGEBYRANK %2 0 -%3 "
                                       "(keeps the top %4) or give it a TTL.")
        .arg(format::count(quint64(cardinality)), bytesescape::quoteIfNeeded(key), QString::number(kTrimThreshold + 1),
             format::count(quint64(kTrimThreshold)));
}

qint64 ScoreHistogram::total() const
{
    qint64 sum = 0;
    for (const Bucket &b : buckets)
        sum += b.count;
    return sum;
}

// --- LeaderboardModel ---------------------------------------------------------------------

LeaderboardModel::LeaderboardModel(QObject *parent)
    : RowListModel([](const LeaderboardEntry &e) { return e.member; }, ColumnCount, -1, parent)
{ }

void LeaderboardModel::setRows(const QList<LeaderboardEntry> &rows, bool descending)
{
    m_descending = descending; // the tooltips of kept rows follow with the update setRows() sends
    RowListModel::setRows(rows);
}

void LeaderboardModel::setPage(const LeaderboardPage &page)
{
    setHighlightedMember(page.highlight);
    setRows(page.rows, page.descending);
}

void LeaderboardModel::clear()
{
    m_highlightMember = QByteArray();
    RowListModel::clear();
}

void LeaderboardModel::setHighlightedMember(const QByteArray &member)
{
    const int old = highlightedRow();
    m_highlightMember = member;
    for (int row : {old, highlightedRow()}) {
        if (row >= 0)
            Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
    }
}

QVariant LeaderboardModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    const LeaderboardEntry &e = rows().at(index.row());
    const bool highlighted = !m_highlightMember.isNull() && e.member == m_highlightMember;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case RankColumn: return QString::number(e.rank + 1);
        case TieColumn: return e.tieGroup >= 0 ? QStringLiteral("=") : QString();
        case MemberColumn: return bytesescape::escape(e.member);
        case ScoreColumn: return QString::fromLatin1(e.scoreText);
        }
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == RankColumn || index.column() == ScoreColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        if (index.column() == TieColumn)
            return QVariant::fromValue(Qt::AlignCenter);
        break;
    case Qt::BackgroundRole:
        if (highlighted) {
            QColor c = QGuiApplication::palette().color(QPalette::Highlight);
            c.setAlpha(110);
            return c;
        }
        // Alternate shades per tie group so neighbouring groups stay apart.
        if (e.tieGroup >= 0) {
            QColor c = QGuiApplication::palette().color(QPalette::Link);
            c.setAlpha(e.tieGroup % 2 ? 40 : 70);
            return c;
        }
        break;
    case Qt::FontRole:
        if (highlighted) {
            QFont f;
            f.setBold(true);
            return f;
        }
        break;
    case Qt::ToolTipRole:
        if (e.tieGroup >= 0) {
            return m_descending
                ? tr("Tied at score %1. Redis orders equal scores by member bytes; highest first (REV) reverses "
                     "that, so the member that sorts last byte-wise ranks first. A tied member's rank depends on "
                     "its name, not on who got there first.")
                      .arg(QString::fromLatin1(e.scoreText))
                : tr("Tied at score %1. Redis orders equal scores by member bytes (lexicographically), so a tied "
                     "member's rank depends on its name, not on who got there first.")
                      .arg(QString::fromLatin1(e.scoreText));
        }
        if (index.column() == MemberColumn)
            return bytesescape::escape(e.member);
        break;
    case KeyRole: return e.member;
    case SortRole:
        switch (index.column()) {
        case RankColumn: return e.rank;
        case TieColumn: return e.tieGroup;
        case MemberColumn: return e.member;
        case ScoreColumn: return e.score;
        }
        break;
    case ScoreRole: return e.score;
    case RankRole: return e.rank;
    case TieGroupRole: return e.tieGroup;
    case HighlightRole: return highlighted;
    default: break;
    }
    return {};
}

QVariant LeaderboardModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case RankColumn: return tr("Rank");
        case TieColumn: return tr("Tie");
        case MemberColumn: return tr("Member");
        case ScoreColumn: return tr("Score");
        }
    } else if (role == Qt::ToolTipRole && section == TieColumn) {
        return tr("\"=\": shares its score with the rows next to it; Redis breaks the tie by member bytes");
    }
    return {};
}

void LeaderboardModel::markTies(QList<LeaderboardEntry> &rows)
{
    int group = -1;
    for (int i = 0; i < rows.size(); ++i) {
        const bool withPrevious = i > 0 && rows.at(i - 1).score == rows.at(i).score;
        const bool withNext = i + 1 < rows.size() && rows.at(i + 1).score == rows.at(i).score;
        if (withPrevious) {
            rows[i].tieGroup = rows.at(i - 1).tieGroup;
        } else if (withNext) {
            rows[i].tieGroup = ++group;
        } else {
            rows[i].tieGroup = -1;
        }
    }
}
