// SPDX-License-Identifier: GPL-3.0-or-later
#include "patterngroupmodel.h"

#include "bytesescape.h"
#include "format.h"
#include "keytreemodel.h"

#include <QHash>
#include <algorithm>

static_assert(int(PatternGroupModel::KeyBytesRole) == int(KeyTreeModel::KeyBytesRole)
              && int(PatternGroupModel::KeyTypeRole) == int(KeyTreeModel::KeyTypeRole)
              && int(PatternGroupModel::PatternRole) == int(KeyTreeModel::PatternRole));

PatternGroupModel::PatternGroupModel(QObject *parent) : QAbstractItemModel(parent)
{ }

void PatternGroupModel::setMatches(const QList<PatternMatch> &matches)
{
    beginResetModel();
    m_groups.clear();
    m_total = quint64(matches.size());
    QHash<int, int> groupOf;
    QList<QHash<QString, int>> familyOf;
    for (const PatternMatch &m : matches) {
        auto g = groupOf.constFind(int(m.kind));
        if (g == groupOf.constEnd()) {
            g = groupOf.insert(int(m.kind), int(m_groups.size()));
            m_groups.push_back(Group{m.kind, {}, 0});
            familyOf.append(QHash<QString, int>());
        }
        Group &group = m_groups[size_t(g.value())];
        ++group.total;
        const QString shape = m.family.isEmpty() ? QString::fromUtf8(m.key) : m.family;
        auto f = familyOf[g.value()].constFind(shape);
        if (f == familyOf[g.value()].constEnd()) {
            f = familyOf[g.value()].insert(shape, int(group.families.size()));
            group.families.push_back(Family{shape, m.reason, {}, 0});
        }
        Family &family = group.families[size_t(f.value())];
        ++family.total;
        if (int(family.keys.size()) < m_keyLimit)
            family.keys.push_back(m);
    }
    // Kinds in catalogue order with "not recognised" last; families and keys by size and name.
    std::sort(m_groups.begin(), m_groups.end(), [](const Group &a, const Group &b) {
        const auto rank = [](PatternKind k) { return k == PatternKind::Unknown ? kPatternKindCount : int(k); };
        return rank(a.kind) < rank(b.kind);
    });
    for (Group &g : m_groups) {
        std::sort(g.families.begin(), g.families.end(), [](const Family &a, const Family &b) {
            return a.total != b.total ? a.total > b.total : a.shape < b.shape;
        });
        for (Family &f : g.families)
            std::sort(f.keys.begin(), f.keys.end(),
                      [](const PatternMatch &a, const PatternMatch &b) { return a.key < b.key; });
    }
    endResetModel();
}

void PatternGroupModel::clear()
{
    setMatches({});
}

QModelIndex PatternGroupModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount || row >= rowCount(parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, quintptr(0));
    if (parent.internalId() == 0)
        return createIndex(row, column, familyId(parent.row()));
    return createIndex(row, column, keyId(int(parent.internalId()) - 1, parent.row()));
}

QModelIndex PatternGroupModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == 0)
        return {};
    const quintptr id = child.internalId();
    const int group = int(id & 0xffff) - 1;
    const int family = int(id >> 16) - 1;
    if (family < 0)
        return createIndex(group, 0, quintptr(0));
    return createIndex(family, 0, familyId(group));
}

int PatternGroupModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return int(m_groups.size());
    if (parent.column() != 0)
        return 0;
    const quintptr id = parent.internalId();
    if (id == 0)
        return int(m_groups[size_t(parent.row())].families.size());
    if ((id >> 16) != 0)
        return 0; // key rows are leaves
    const Family &f = m_groups[size_t((id & 0xffff) - 1)].families[size_t(parent.row())];
    // One more row says how many keys are not listed.
    return int(f.keys.size()) + (f.total > f.keys.size() ? 1 : 0);
}

int PatternGroupModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant PatternGroupModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    const quintptr id = index.internalId();
    const int column = index.column();
    if (id == 0) {
        const Group &g = m_groups[size_t(index.row())];
        switch (role) {
        case Qt::DisplayRole:
            if (column == NameColumn)
                return g.kind == PatternKind::Unknown ? tr("not recognised") : patternKindName(g.kind);
            if (column == KeysColumn)
                return format::count(g.total);
            return {};
        case Qt::TextAlignmentRole:
            return column == KeysColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
        case PatternRole: return int(g.kind);
        default: return {};
        }
    }
    const int group = int(id & 0xffff) - 1;
    const int family = int(id >> 16) - 1;
    const Group &g = m_groups[size_t(group)];
    if (family < 0) {
        const Family &f = g.families[size_t(index.row())];
        switch (role) {
        case Qt::DisplayRole:
            if (column == NameColumn)
                return f.shape;
            if (column == KeysColumn)
                return format::count(f.total);
            if (column == ReasonColumn)
                return f.reason;
            return {};
        case Qt::ToolTipRole: return column == ReasonColumn ? f.reason : QVariant();
        case Qt::TextAlignmentRole:
            return column == KeysColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
        case PatternRole: return int(g.kind);
        case FamilyRole: return f.shape;
        default: return {};
        }
    }
    const Family &f = g.families[size_t(family)];
    if (index.row() >= int(f.keys.size())) {
        if (role == Qt::DisplayRole && column == NameColumn)
            return tr("… %1 more keys of this shape").arg(format::count(f.total - f.keys.size()));
        return role == PatternRole ? QVariant(int(g.kind)) : QVariant();
    }
    const PatternMatch &m = f.keys[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        if (column == NameColumn)
            return bytesescape::quoteIfNeeded(m.key.size() > 1024 ? m.key.left(1024) : m.key);
        if (column == KeysColumn)
            return tr("%1 %").arg(m.confidence);
        if (column == ReasonColumn)
            return m.fromRule ? tr("rule: %1").arg(m.reason) : m.reason;
        return {};
    case Qt::ToolTipRole:
        if (column == NameColumn)
            return bytesescape::escapeElided(m.key, 4096);
        return column == ReasonColumn ? m.reason : QVariant();
    case Qt::TextAlignmentRole:
        return column == KeysColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    case KeyBytesRole: return m.key;
    case KeyTypeRole: return int(m.type);
    case PatternRole: return int(m.kind);
    case FamilyRole: return f.shape;
    default: return {};
    }
}

QVariant PatternGroupModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Pattern / shape / key");
    case KeysColumn: return tr("Keys");
    case ReasonColumn: return tr("Why");
    default: return {};
    }
}
