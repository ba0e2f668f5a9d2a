// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keytype.h"
#include "threadcheck.h"

#include <QAbstractTableModel>
#include <QByteArray>
#include <QHash>
#include <QList>
#include <QSet>
#include <algorithm>
#include <functional>
#include <numeric>

// Row severity, for the views to colour: none, worth a look, wrong.
enum class Severity : quint8 { None, Warning, Bad };

// A read-only table over plain row structs, replaced by setRows(), which merges the new rows
// into the old by id: rows whose id is gone are removed, new ids are inserted where they stand,
// rows that moved are moved with a layout change, and every kept row is updated in place. Views
// keep their selection, current index and scroll position across a poll, and a proxy sorts
// without a reset. Subclasses give data() and headerData(); a countdown column, when there is
// one, is refreshed by setNow() alone.
template <typename Row, typename Id = QByteArray> class RowListModel : public QAbstractTableModel
{
public:
    using IdOf = std::function<Id(const Row &)>;

    void setRows(QList<Row> rows)
    {
        REDISLENS_ASSERT_OWN_THREAD(this);
        QHash<Id, qsizetype> wanted; // id -> row in 'rows'
        wanted.reserve(rows.size());
        for (qsizetype i = 0; i < rows.size(); ++i)
            wanted.insert(m_id(rows.at(i)), i);
        if (wanted.size() != rows.size()) { // two rows with one id: nothing to merge by
            beginResetModel();
            m_rows = std::move(rows);
            endResetModel();
            return;
        }
        removeRowsNotIn(wanted);
        reorderAs(wanted);
        insertRowsOf(rows);
        m_rows = std::move(rows);
        if (!m_rows.isEmpty())
            Q_EMIT dataChanged(index(0, 0), index(int(m_rows.size()) - 1, m_columnCount - 1));
    }
    void clear() { setRows({}); }
    const QList<Row> &rows() const { return m_rows; }
    int rowOf(const Id &id) const
    {
        for (qsizetype i = 0; i < m_rows.size(); ++i)
            if (m_id(m_rows.at(i)) == id)
                return int(i);
        return -1;
    }
    // The row with that id, or nullptr.
    const Row *find(const Id &id) const
    {
        const int row = rowOf(id);
        return row < 0 ? nullptr : &m_rows.at(row);
    }
    // The countdown: the countdown column is computed from each row's read time and 'nowMs'.
    void setNow(qint64 nowMs)
    {
        m_now = nowMs;
        if (m_countdownColumn >= 0 && !m_rows.isEmpty())
            Q_EMIT dataChanged(index(0, m_countdownColumn), index(int(m_rows.size()) - 1, m_countdownColumn),
                               {Qt::DisplayRole});
    }
    qint64 now() const { return m_now; }

    int rowCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : int(m_rows.size()); }
    int columnCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : m_columnCount; }

protected:
    RowListModel(IdOf id, int columnCount, int countdownColumn, QObject *parent)
        : QAbstractTableModel(parent),
          m_id(std::move(id)),
          m_columnCount(columnCount),
          m_countdownColumn(countdownColumn)
    { }

    // Valid, top-level and in range: what data() and flags() answer for.
    bool isCell(const QModelIndex &index) const
    {
        return index.isValid() && checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid);
    }

private:
    // Removes, in runs from the bottom, the rows whose id is not wanted.
    void removeRowsNotIn(const QHash<Id, qsizetype> &wanted)
    {
        qsizetype end = m_rows.size();
        while (end > 0) {
            if (wanted.contains(m_id(m_rows.at(end - 1)))) {
                --end;
                continue;
            }
            qsizetype begin = end - 1;
            while (begin > 0 && !wanted.contains(m_id(m_rows.at(begin - 1))))
                --begin;
            beginRemoveRows({}, int(begin), int(end - 1));
            m_rows.remove(begin, end - begin);
            endRemoveRows();
            end = begin;
        }
    }
    // Puts the kept rows in the order they have in the new list (a layout change that carries
    // persistent indexes along), when they are not in it already.
    void reorderAs(const QHash<Id, qsizetype> &wanted)
    {
        QList<qsizetype> target(m_rows.size());
        bool ordered = true;
        for (qsizetype i = 0; i < m_rows.size(); ++i) {
            target[i] = wanted.value(m_id(m_rows.at(i)));
            ordered = ordered && (i == 0 || target.at(i - 1) < target.at(i));
        }
        if (ordered)
            return;
        Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
        QList<qsizetype> order(m_rows.size()); // order[newRow] = oldRow
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(), [&](qsizetype a, qsizetype b) { return target.at(a) < target.at(b); });
        QList<int> newRowOf(m_rows.size());
        QList<Row> sorted;
        sorted.reserve(m_rows.size());
        for (qsizetype i = 0; i < order.size(); ++i) {
            newRowOf[order.at(i)] = int(i);
            sorted.append(m_rows.at(order.at(i)));
        }
        m_rows = std::move(sorted);
        const QModelIndexList before = persistentIndexList();
        QModelIndexList after;
        after.reserve(before.size());
        for (const QModelIndex &old : before)
            after.append(index(newRowOf.at(old.row()), old.column()));
        changePersistentIndexList(before, after);
        Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
    }
    // Inserts, in runs, the rows of 'rows' whose id is not here yet; the kept rows are already in
    // the order of 'rows', so each run goes where it stands there.
    void insertRowsOf(const QList<Row> &rows)
    {
        QSet<Id> kept;
        kept.reserve(m_rows.size());
        for (const Row &r : std::as_const(m_rows))
            kept.insert(m_id(r));
        qsizetype i = 0;
        while (i < rows.size()) {
            if (kept.contains(m_id(rows.at(i)))) {
                ++i;
                continue;
            }
            qsizetype end = i + 1;
            while (end < rows.size() && !kept.contains(m_id(rows.at(end))))
                ++end;
            beginInsertRows({}, int(i), int(end - 1));
            for (qsizetype j = i; j < end; ++j)
                m_rows.insert(j, rows.at(j));
            endInsertRows();
            i = end;
        }
    }

    IdOf m_id;
    int m_columnCount;
    int m_countdownColumn;
    QList<Row> m_rows;
    qint64 m_now = 0;
};

// The roles of every row table model, whatever its rows (a proxy and a delegate can name them).
struct RowTableRoles
{
    enum Role {
        KeyRole = Qt::UserRole + 1, // QByteArray: the row's key (or namespace prefix)
        SortRole, // numbers for numeric columns
        SeverityRole, // int(Severity), per row
        TypeRole, // int(KeyType)
        FirstExtraRole, // a model's own roles start here
    };
};

// A RowListModel whose columns are cell functions, for tables that need no class of their own.
template <typename Row> class RowTableModel : public RowListModel<Row>, public RowTableRoles
{
public:
    // DisplayRole, SortRole, ToolTipRole or TextAlignmentRole for one cell.
    using Cell = std::function<QVariant(const Row &, int role)>;
    struct Column
    {
        QString title;
        Cell cell;
    };
    struct Meta
    {
        std::function<QByteArray(const Row &)> key;
        std::function<Severity(const Row &)> severity;
        std::function<KeyType(const Row &)> type;
    };

    RowTableModel(QList<Column> columns, Meta meta, QObject *parent = nullptr)
        : RowListModel<Row>(meta.key, int(columns.size()), -1, parent),
          m_columns(std::move(columns)),
          m_meta(std::move(meta))
    { }

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override
    {
        if (!this->isCell(index))
            return {};
        const Row &row = this->rows().at(index.row());
        switch (role) {
        case KeyRole: return m_meta.key(row);
        case SeverityRole: return m_meta.severity ? int(m_meta.severity(row)) : 0;
        case TypeRole: return m_meta.type ? int(m_meta.type(row)) : int(KeyType::Unknown);
        case Qt::DisplayRole:
        case Qt::ToolTipRole:
        case Qt::TextAlignmentRole: return m_columns.at(index.column()).cell(row, role);
        case SortRole: {
            const QVariant v = m_columns.at(index.column()).cell(row, role);
            return v.isValid() ? v : m_columns.at(index.column()).cell(row, Qt::DisplayRole);
        }
        }
        return {};
    }
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override
    {
        if (orientation == Qt::Horizontal && role == Qt::DisplayRole && section >= 0 && section < m_columns.size())
            return m_columns.at(section).title;
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    Qt::ItemFlags flags(const QModelIndex &index) const override
    {
        if (!this->isCell(index))
            return Qt::NoItemFlags;
        return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
    }

private:
    QList<Column> m_columns;
    Meta m_meta;
};
