// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "patterns.h"
#include "rowtablemodel.h"

#include <QAbstractItemModel>
#include <vector>

// The key browser grouped by pattern: kind → family (name shape) → keys. Rebuilt from the
// index's verdicts when they settle, not per batch. A family shows at most keyLimit() keys and
// then one row that counts the rest, so a million keys cost the view no more than a thousand.
class PatternGroupModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, KeysColumn, ReasonColumn, ColumnCount };
    // The same role numbers as KeyTreeModel's (RowTableRoles for the key and its type), so one
    // view can read either.
    enum Role {
        KeyBytesRole = RowTableRoles::KeyRole, // QByteArray (key rows)
        KeyTypeRole = RowTableRoles::TypeRole, // int: KeyType (key rows)
        PatternRole = Qt::UserRole + 8, // int: PatternKind (every row)
        FamilyRole, // QString (family and key rows)
    };

    explicit PatternGroupModel(QObject *parent = nullptr);

    void setKeyLimit(int limit) { m_keyLimit = limit; }
    int keyLimit() const { return m_keyLimit; }
    // Replaces everything. Unknown verdicts are grouped under "not recognised".
    void setMatches(const QList<PatternMatch> &matches);
    void clear();
    quint64 keyCount() const { return m_total; }

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Family
    {
        QString shape;
        QString reason; // of its first key: family members share a verdict
        std::vector<PatternMatch> keys; // at most keyLimit()
        quint64 total = 0;
    };
    struct Group
    {
        PatternKind kind = PatternKind::Unknown;
        std::vector<Family> families;
        quint64 total = 0;
    };

    // internalId: 0 for a group row; otherwise (group + 1) | (family + 1) << 16 for its children.
    static quintptr familyId(int group) { return quintptr(group + 1); }
    static quintptr keyId(int group, int family) { return quintptr(group + 1) | (quintptr(family + 1) << 16); }

    std::vector<Group> m_groups;
    quint64 m_total = 0;
    int m_keyLimit = 1000;
};
