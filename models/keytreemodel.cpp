// SPDX-License-Identifier: GPL-3.0-or-later
#include "keytreemodel.h"

#include "backgroundrelease.h"
#include "bytesescape.h"
#include "format.h"

#include <QDateTime>
#include <QFont>
#include <QTimer>
#include <algorithm>
#include <limits>

namespace {
enum Tag : quintptr { FolderTag = 0, KeyTag = 1, LoadMoreTag = 2 };
constexpr quintptr makeId(quint32 index, Tag tag)
{
    return (quintptr(index) << 2) | tag;
}
constexpr Tag tagOf(quintptr id)
{
    return Tag(id & 3);
}
constexpr quint32 indexOf(quintptr id)
{
    return quint32(id >> 2);
}
} // namespace

KeyTreeModel::KeyTreeModel(QObject *parent) : QAbstractItemModel(parent)
{
    m_sliceTimer = new QTimer(this);
    m_sliceTimer->setSingleShot(true);
    m_sliceTimer->setInterval(0);
    connect(m_sliceTimer, &QTimer::timeout, this, &KeyTreeModel::applySlice);
    resetStorage();
}

KeyTreeModel::~KeyTreeModel() = default;

void KeyTreeModel::resetStorage()
{
    m_keys.clear();
    m_memory.clear();
    m_freeKeys.clear();
    m_index.clear();
    m_names.clear();
    resetFolders();
}

void KeyTreeModel::resetFolders()
{
    m_folders.clear();
    m_touched.clear();
    m_removedFolders = 0;
    Folder root;
    root.folderAllowance = quint32(m_childLimit);
    root.keyAllowance = quint32(m_childLimit);
    m_folders.push_back(std::move(root));
}

void KeyTreeModel::clear()
{
    beginResetModel();
    m_queue.clear();
    m_queuePos = 0;
    m_sliceTimer->stop();
    resetStorage();
    endResetModel();
    Q_EMIT keysApplied(0);
}

void KeyTreeModel::setChildLimit(int limit)
{
    m_childLimit = qMax(1, limit);
}

void KeyTreeModel::setSeparator(const QByteArray &separator)
{
    if (separator == m_separator)
        return;
    // Rebuild the folders from the keys we hold: nothing is asked of the server again, and
    // the keys, their names and the index stay as they are.
    beginResetModel();
    m_separator = separator;
    resetFolders();
    for (size_t id = 0; id < m_keys.size(); ++id) {
        if (!m_keys[id].isFree())
            placeKey(quint32(id));
    }
    // Every folder is invisible to the view now; publish sets the counts silently.
    for (size_t fi = 0; fi < m_folders.size(); ++fi) {
        Folder &f = m_folders[fi];
        f.shownFolders = quint32(qMin<size_t>(f.folders.size(), f.folderAllowance));
        f.shownKeys = quint32(qMin<size_t>(f.keys.size(), f.keyAllowance));
        f.moreShown = f.folders.size() > f.shownFolders || f.keys.size() > f.shownKeys;
        f.hiddenShown = (f.folders.size() - f.shownFolders) + (f.keys.size() - f.shownKeys);
        f.touched = false;
        std::sort(f.folders.begin(), f.folders.end(),
                  [this](quint32 a, quint32 b) { return m_folders[a].name < m_folders[b].name; });
        for (size_t i = 0; i < f.folders.size(); ++i)
            m_folders[f.folders[i]].row = quint32(i);
    }
    m_touched.clear();
    endResetModel();
    Q_EMIT keysApplied(keyCount());
}

qint64 KeyTreeModel::totalMemory() const
{
    return m_folders[0].memory;
}

void KeyTreeModel::appendBatch(const ScanBatch &batch)
{
    if (batch.keys.isEmpty())
        return;
    m_queue.push_back(batch);
    scheduleSlice();
}

void KeyTreeModel::scheduleSlice()
{
    if (!m_sliceTimer->isActive())
        m_sliceTimer->start();
}

void KeyTreeModel::applyAllPending()
{
    const int budget = m_sliceBudgetMs;
    m_sliceBudgetMs = std::numeric_limits<int>::max();
    while (!m_queue.empty())
        applySlice();
    m_sliceBudgetMs = budget;
    m_sliceTimer->stop();
}

void KeyTreeModel::applySlice()
{
    QElapsedTimer clock;
    clock.start();
    bool outOfTime = false;
    while (!m_queue.empty() && !outOfTime) {
        const ScanBatch &batch = m_queue.front();
        const qsizetype n = batch.keys.size();
        while (m_queuePos < n) {
            applyKey(batch.keys.at(m_queuePos), batch.capturedAtMs);
            ++m_queuePos;
            if ((m_queuePos & 31) == 0 && clock.elapsed() >= m_sliceBudgetMs) {
                outOfTime = true;
                break;
            }
        }
        if (m_queuePos >= n) {
            // Freeing a batch frees each of its names: tens of thousands of blocks, several
            // milliseconds. Another thread does it; the tree keeps copies in its arena.
            BackgroundRelease::release(std::move(m_queue.front()));
            m_queue.pop_front();
            m_queuePos = 0;
        }
    }
    publish();
    Q_EMIT keysApplied(keyCount());
    if (!m_queue.empty())
        scheduleSlice();
    else
        Q_EMIT pendingDrained();
}

void KeyTreeModel::applyBatch(const ScanBatch &batch)
{
    if (batch.keys.isEmpty())
        return;
    for (const ScannedKey &key : batch.keys)
        applyKey(key, batch.capturedAtMs);
    publish();
    Q_EMIT keysApplied(keyCount());
}

void KeyTreeModel::upsertKey(const ScannedKey &key, qint64 capturedAtMs)
{
    applyKey(key, capturedAtMs);
    publish();
    Q_EMIT keysApplied(keyCount());
}

void KeyTreeModel::applyKey(const ScannedKey &key, qint64 capturedAtMs)
{
    const qint64 expireAt = ttl::expireAt(key.pttlMs, capturedAtMs);

    bool added = false;
    const int found = m_index.findOrAdd(
        key.name, holdsKey(), [this] { return int(newKeyId()); }, &added);
    if (!added) {
        Key &k = m_keys[size_t(found)];
        // A names-only rescan must not wipe what a detailed scan learned.
        if (key.type == KeyType::Unknown)
            return;
        const qint64 memory = memoryOf(quint32(found));
        const bool memoryChanged = key.memoryBytes >= 0 && key.memoryBytes != memory;
        if (k.type == key.type && k.expireAtMs == expireAt && !memoryChanged)
            return;
        if (memoryChanged) {
            addMemory(k.folder, key.memoryBytes - qMax<qint64>(0, memory), 0);
            setMemory(quint32(found), key.memoryBytes);
        }
        if (k.type != key.type)
            k.hint = TypeHint::None; // replaced by a key of another type
        k.type = key.type;
        k.expireAtMs = expireAt;
        Folder &f = m_folders[k.folder];
        if (k.pos < f.shownKeys) {
            f.changedFirst = f.changedFirst == kNone ? k.pos : qMin(f.changedFirst, k.pos);
            f.changedLast = qMax(f.changedLast, k.pos);
            touch(k.folder);
        }
        return;
    }

    const auto id = quint32(found);
    Key &k = m_keys[id];
    k.nameAt = m_names.add(key.name);
    k.type = key.type;
    k.hint = TypeHint::None;
    k.expireAtMs = expireAt;
    setMemory(id, key.memoryBytes);
    placeKey(id);
}

void KeyTreeModel::setMemory(quint32 id, qint64 bytes)
{
    if (id < m_memory.size())
        m_memory[id] = bytes;
    else if (bytes >= 0) {
        while (m_memory.size() < id)
            m_memory.push_back(-1);
        m_memory.push_back(bytes);
    }
}

quint32 KeyTreeModel::newKeyId()
{
    if (m_freeKeys.empty()) {
        m_keys.push_back(Key());
        return quint32(m_keys.size() - 1);
    }
    const quint32 id = m_freeKeys.back();
    m_freeKeys.pop_back();
    return id;
}

void KeyTreeModel::placeKey(quint32 id)
{
    Key &k = m_keys[id];
    const quint32 folder = folderFor(nameView(k));
    k.folder = folder;
    Folder &f = m_folders[folder];
    k.pos = quint32(f.keys.size());
    f.keys.push_back(id);
    addMemory(folder, qMax<qint64>(0, memoryOf(id)), 1);
}

quint32 KeyTreeModel::folderFor(const QByteArray &name)
{
    if (m_separator.isEmpty())
        return 0;
    quint32 folder = 0;
    qsizetype from = 0;
    for (int depth = 0; depth < m_maxDepth; ++depth) {
        const qsizetype at = name.indexOf(m_separator, from);
        if (at < 0)
            break;
        folder = childFolder(folder, name.constData() + from, at - from);
        from = at + m_separator.size();
    }
    return folder;
}

quint32 KeyTreeModel::childFolder(quint32 parent, const char *segment, qsizetype length)
{
    // A raw-data view for the lookup: no allocation for folders that exist already.
    const QByteArray probe = QByteArray::fromRawData(segment, length);
    {
        const Folder &p = m_folders[parent];
        const auto it = p.childByName.constFind(probe);
        if (it != p.childByName.constEnd())
            return it.value();
    }
    const quint32 id = quint32(m_folders.size());
    Folder f;
    f.name = QByteArray(segment, length);
    f.prefix = m_folders[parent].prefix + f.name + m_separator;
    f.parent = parent;
    f.depth = m_folders[parent].depth + 1;
    f.folderAllowance = quint32(m_childLimit);
    f.keyAllowance = quint32(m_childLimit);
    m_folders.push_back(std::move(f)); // may move Folders: take references only after
    Folder &p = m_folders[parent];
    m_folders[id].row = quint32(p.folders.size());
    p.folders.push_back(id);
    p.childByName.insert(m_folders[id].name, id);
    touch(parent);
    return id;
}

void KeyTreeModel::touch(quint32 folder)
{
    Folder &f = m_folders[folder];
    if (!f.touched) {
        f.touched = true;
        m_touched.push_back(folder);
    }
}

void KeyTreeModel::addMemory(quint32 folder, qint64 delta, qint64 keys)
{
    for (quint32 f = folder; f != kNone; f = m_folders[f].parent) {
        Folder &node = m_folders[f];
        node.memory += delta;
        node.totalKeys = quint64(qint64(node.totalKeys) + keys);
        touch(f);
    }
}

bool KeyTreeModel::isVisible(quint32 folder) const
{
    while (folder != 0) {
        const Folder &f = m_folders[folder];
        if (f.row >= m_folders[f.parent].shownFolders)
            return false;
        folder = f.parent;
    }
    return true;
}

void KeyTreeModel::publish()
{
    if (m_touched.empty())
        return;
    // Deepest first: a folder not yet shown takes its children's counts silently and then
    // appears with all of them in one insert of its parent.
    std::sort(m_touched.begin(), m_touched.end(),
              [this](quint32 a, quint32 b) { return m_folders[a].depth > m_folders[b].depth; });
    for (const quint32 f : m_touched)
        publishFolder(f);
    m_touched.clear();
}

void KeyTreeModel::publishFolder(quint32 id)
{
    Folder &f = m_folders[id];
    f.touched = false;
    if (f.removed)
        return;
    const auto targetFolders = quint32(qMin<size_t>(f.folders.size(), f.folderAllowance));
    const auto targetKeys = quint32(qMin<size_t>(f.keys.size(), f.keyAllowance));
    if (targetFolders > f.shownFolders) {
        // Newly revealed folders appear sorted by name among themselves.
        auto first = f.folders.begin() + f.shownFolders;
        std::sort(first, f.folders.end(),
                  [this](quint32 a, quint32 b) { return m_folders[a].name < m_folders[b].name; });
        for (size_t i = f.shownFolders; i < f.folders.size(); ++i)
            m_folders[f.folders[i]].row = quint32(i);
    }
    const bool more = f.folders.size() > targetFolders || f.keys.size() > targetKeys;
    const quint64 hidden = (f.folders.size() - targetFolders) + (f.keys.size() - targetKeys);

    if (!isVisible(id)) {
        f.shownFolders = targetFolders;
        f.shownKeys = targetKeys;
        f.moreShown = more;
        f.hiddenShown = hidden;
        f.changedFirst = kNone;
        return;
    }
    const QModelIndex parentIndex = folderIndex(id);
    if (targetFolders > f.shownFolders) {
        beginInsertRows(parentIndex, int(f.shownFolders), int(targetFolders - 1));
        f.shownFolders = targetFolders;
        endInsertRows();
    }
    if (targetKeys > f.shownKeys) {
        const int first = int(f.shownFolders + f.shownKeys);
        beginInsertRows(parentIndex, first, first + int(targetKeys - f.shownKeys) - 1);
        f.shownKeys = targetKeys;
        endInsertRows();
    }
    const int moreRow = int(f.shownFolders + f.shownKeys);
    if (more && !f.moreShown) {
        beginInsertRows(parentIndex, moreRow, moreRow);
        f.moreShown = true;
        f.hiddenShown = hidden;
        endInsertRows();
    } else if (!more && f.moreShown) {
        beginRemoveRows(parentIndex, moreRow, moreRow);
        f.moreShown = false;
        endRemoveRows();
    } else if (more && f.hiddenShown != hidden) {
        f.hiddenShown = hidden;
        const QModelIndex row = index(moreRow, NameColumn, parentIndex);
        Q_EMIT dataChanged(row, row, {Qt::DisplayRole});
    }
    if (f.changedFirst != kNone) {
        const quint32 last = qMin(f.changedLast, f.shownKeys - 1);
        if (f.changedFirst <= last && f.shownKeys > 0)
            Q_EMIT dataChanged(index(int(f.shownFolders + f.changedFirst), TypeColumn, parentIndex),
                               index(int(f.shownFolders + last), MemoryColumn, parentIndex));
        f.changedFirst = kNone;
        f.changedLast = 0;
    }
    if (id != 0)
        Q_EMIT dataChanged(folderIndex(id, MemoryColumn), folderIndex(id, KeysColumn));
}

QModelIndex KeyTreeModel::folderIndex(quint32 folder, int column) const
{
    if (folder == 0)
        return {};
    return createIndex(int(m_folders[folder].row), column, makeId(folder, FolderTag));
}

int KeyTreeModel::keyRow(const Key &k) const
{
    return int(m_folders[k.folder].shownFolders + k.pos);
}

void KeyTreeModel::removeKey(const QByteArray &name)
{
    const int found = m_index.take(name, holdsKey());
    if (found < 0)
        return;
    const auto id = quint32(found);
    Key &k = m_keys[id];
    const quint32 folderId = k.folder;
    const quint32 pos = k.pos;
    const qint64 memory = qMax<qint64>(0, memoryOf(id));
    Folder &f = m_folders[folderId];
    const bool shown = pos < f.shownKeys;
    const bool visible = shown && isVisible(folderId);
    if (visible)
        beginRemoveRows(folderIndex(folderId), int(f.shownFolders + pos), int(f.shownFolders + pos));
    f.keys.erase(pos);
    for (size_t i = pos; i < f.keys.size(); ++i)
        m_keys[f.keys[i]].pos = quint32(i);
    if (shown)
        --f.shownKeys;
    if (visible)
        endRemoveRows();
    k = Key();
    setMemory(id, -1);
    m_freeKeys.push_back(id);
    addMemory(folderId, -memory, -1);
    removeEmptyFolders(folderId);
    publish();
    Q_EMIT keysApplied(keyCount());
}

void KeyTreeModel::removeEmptyFolders(quint32 id)
{
    while (id != 0) {
        Folder &f = m_folders[id];
        if (f.totalKeys != 0 || !f.folders.empty() || f.keys.size() != 0)
            return;
        const quint32 parentId = f.parent;
        Folder &p = m_folders[parentId];
        const quint32 row = f.row;
        const bool shown = row < p.shownFolders;
        const bool visible = shown && isVisible(parentId);
        if (visible)
            beginRemoveRows(folderIndex(parentId), int(row), int(row));
        p.folders.erase(p.folders.begin() + row);
        for (size_t i = row; i < p.folders.size(); ++i)
            m_folders[p.folders[i]].row = quint32(i);
        if (shown)
            --p.shownFolders;
        p.childByName.remove(f.name);
        if (visible)
            endRemoveRows();
        // It may wait in m_touched: publish() passes over it. A key under the same prefix later
        // gets a new folder.
        f.removed = true;
        ++m_removedFolders;
        touch(parentId);
        id = parentId;
    }
}

bool KeyTreeModel::renameKey(const QByteArray &from, const QByteArray &to)
{
    const int id = idOf(from);
    if (id < 0)
        return false;
    const Key old = m_keys[size_t(id)];
    const qint64 oldMemory = memoryOf(quint32(id));
    removeKey(from);
    ScannedKey moved;
    moved.name = to;
    moved.type = old.type;
    moved.memoryBytes = oldMemory;
    // The expiry is absolute already: read it back as a PTTL captured at time zero.
    moved.pttlMs = old.expireAtMs;
    upsertKey(moved, 0);
    setTypeHint(to, old.hint);
    return true;
}

QModelIndex KeyTreeModel::indexForKey(const QByteArray &key) const
{
    const int id = idOf(key);
    if (id < 0)
        return {};
    const Key &k = m_keys[size_t(id)];
    if (k.pos >= m_folders[k.folder].shownKeys || !isVisible(k.folder))
        return {};
    return createIndex(keyRow(k), NameColumn, makeId(quint32(id), KeyTag));
}

QModelIndex KeyTreeModel::indexForPrefix(const QByteArray &prefix) const
{
    quint32 folder = 0;
    qsizetype from = 0;
    while (from < prefix.size()) {
        const qsizetype at = prefix.indexOf(m_separator, from);
        if (at < 0 || m_separator.isEmpty())
            return {};
        const auto it = m_folders[folder].childByName.constFind(prefix.mid(from, at - from));
        if (it == m_folders[folder].childByName.constEnd())
            return {};
        folder = it.value();
        from = at + m_separator.size();
    }
    return folder != 0 && isVisible(folder) ? folderIndex(folder) : QModelIndex();
}

KeyTreeModel::NodeKind KeyTreeModel::kindOf(const QModelIndex &index) const
{
    switch (tagOf(index.internalId())) {
    case KeyTag: return NodeKind::Key;
    case LoadMoreTag: return NodeKind::LoadMore;
    default: return NodeKind::Folder;
    }
}

QByteArray KeyTreeModel::keyAt(const QModelIndex &index) const
{
    if (!index.isValid() || tagOf(index.internalId()) != KeyTag)
        return {};
    return nameOf(m_keys[indexOf(index.internalId())]);
}

void KeyTreeModel::loadMore(const QModelIndex &row)
{
    if (!row.isValid() || tagOf(row.internalId()) != LoadMoreTag)
        return;
    const quint32 id = indexOf(row.internalId());
    Folder &f = m_folders[id];
    if (f.folders.size() > f.folderAllowance)
        f.folderAllowance += quint32(m_childLimit);
    if (f.keys.size() > f.keyAllowance)
        f.keyAllowance += quint32(m_childLimit);
    touch(id);
    publish();
}

QModelIndex KeyTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    quint32 folder = 0;
    if (parent.isValid()) {
        if (tagOf(parent.internalId()) != FolderTag || parent.column() != 0)
            return {};
        folder = indexOf(parent.internalId());
    }
    const Folder &f = m_folders[folder];
    const auto r = quint32(row);
    if (r < f.shownFolders)
        return createIndex(row, column, makeId(f.folders[r], FolderTag));
    if (r < f.shownFolders + f.shownKeys)
        return createIndex(row, column, makeId(f.keys[r - f.shownFolders], KeyTag));
    if (r == f.shownFolders + f.shownKeys && f.moreShown)
        return createIndex(row, column, makeId(folder, LoadMoreTag));
    return {};
}

QModelIndex KeyTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    const quint32 id = indexOf(child.internalId());
    switch (tagOf(child.internalId())) {
    case FolderTag: return folderIndex(m_folders[id].parent);
    case KeyTag: return folderIndex(m_keys[id].folder);
    case LoadMoreTag: return folderIndex(id);
    }
    return {};
}

int KeyTreeModel::rowCount(const QModelIndex &parent) const
{
    quint32 folder = 0;
    if (parent.isValid()) {
        if (parent.column() != 0 || tagOf(parent.internalId()) != FolderTag)
            return 0;
        folder = indexOf(parent.internalId());
    }
    const Folder &f = m_folders[folder];
    return int(f.shownFolders + f.shownKeys + (f.moreShown ? 1 : 0));
}

int KeyTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

bool KeyTreeModel::hasChildren(const QModelIndex &parent) const
{
    return rowCount(parent) > 0;
}

Qt::ItemFlags KeyTreeModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (tagOf(index.internalId()) != FolderTag)
        f |= Qt::ItemNeverHasChildren;
    return f;
}

QVariant KeyTreeModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    const quint32 id = indexOf(index.internalId());
    switch (tagOf(index.internalId())) {
    case FolderTag: return folderData(m_folders[id], index.column(), role);
    case KeyTag: return keyData(id, index.column(), role);
    case LoadMoreTag: return loadMoreData(m_folders[id], index.column(), role);
    }
    return {};
}

QVariant KeyTreeModel::folderData(const Folder &f, int column, int role) const
{
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn: return f.name.isEmpty() ? QStringLiteral("\"\"") : bytesescape::escape(f.name);
        case MemoryColumn: return f.memory > 0 ? format::bytes(f.memory) : QString();
        case KeysColumn: return format::count(f.totalKeys);
        default: return {};
        }
    case Qt::ToolTipRole:
        if (column == NameColumn)
            return QStringLiteral("%1*  —  %2 keys")
                .arg(bytesescape::escapeElided(f.prefix, 1024), format::count(f.totalKeys));
        return {};
    case Qt::TextAlignmentRole:
        return column >= MemoryColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    case PrefixBytesRole: return f.prefix;
    case NodeKindRole: return int(NodeKind::Folder);
    case MemoryRole: return f.memory;
    case KeyCountRole: return f.totalKeys;
    default: return {};
    }
}

QVariant KeyTreeModel::keyData(quint32 id, int column, int role) const
{
    const Key &k = m_keys[id];
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn: return bytesescape::quoteIfNeeded(m_names.view(k.nameAt, 1024));
        case TypeColumn: return k.hint == TypeHint::Geo ? QStringLiteral("geo") : keyTypeName(k.type);
        case PatternColumn: {
            const std::optional<PatternMatch> m = m_patterns ? m_patterns(nameView(k)) : std::nullopt;
            return m && m->kind != PatternKind::Unknown ? patternKindName(m->kind) : QString();
        }
        case TtlColumn: return format::ttl(k.expireAtMs, QDateTime::currentMSecsSinceEpoch());
        case MemoryColumn: {
            const qint64 memory = memoryOf(id);
            return memory >= 0 ? format::bytes(memory) : QString();
        }
        default: return {};
        }
    case Qt::ToolTipRole:
        if (column == NameColumn)
            return QString(bytesescape::escapeElided(nameView(k), 4096)
                           + QStringLiteral("\n%1 bytes").arg(m_names.size(k.nameAt)));
        if (column == PatternColumn) {
            const std::optional<PatternMatch> m = m_patterns ? m_patterns(nameView(k)) : std::nullopt;
            if (!m)
                return tr("Not classified yet");
            return tr("%1 (%2 % sure%3)\n%4")
                .arg(patternKindName(m->kind))
                .arg(m->confidence)
                .arg(m->fromRule ? tr(", from a rule") : QString(), m->reason);
        }
        if (column == TypeColumn && k.hint == TypeHint::Geo)
            return tr("A sorted set whose scores are geohashes (GEOADD)");
        return {};
    case Qt::TextAlignmentRole:
        return column >= MemoryColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    case KeyBytesRole: return nameOf(k);
    case NodeKindRole: return int(NodeKind::Key);
    case KeyTypeRole: return int(k.type);
    case ExpireAtRole: return k.expireAtMs;
    case MemoryRole: return memoryOf(id);
    case PatternRole: {
        const std::optional<PatternMatch> m = m_patterns ? m_patterns(nameView(k)) : std::nullopt;
        return int(m ? m->kind : PatternKind::Unknown);
    }
    default: return {};
    }
}

QVariant KeyTreeModel::loadMoreData(const Folder &f, int column, int role) const
{
    switch (role) {
    case Qt::DisplayRole:
        if (column == NameColumn) {
            const quint64 hidden = f.hiddenShown;
            return QStringLiteral("Load %1 more of %2 hidden…")
                .arg(format::count(qMin<quint64>(hidden, quint64(m_childLimit) * 2)), format::count(hidden));
        }
        return {};
    case Qt::FontRole: {
        QFont font;
        font.setItalic(true);
        return font;
    }
    case NodeKindRole: return int(NodeKind::LoadMore);
    default: return {};
    }
}

QVariant KeyTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Key");
    case TypeColumn: return tr("Type");
    case PatternColumn: return tr("Pattern");
    case TtlColumn: return tr("TTL");
    case MemoryColumn: return tr("Memory");
    case KeysColumn: return tr("Keys");
    default: return {};
    }
}

ScanBatch KeyTreeModel::matching(const KeyFilter &filter, qint64 nowMs, qsizetype limit) const
{
    ScanBatch out;
    out.capturedAtMs = nowMs;
    for (size_t id = 0; id < m_keys.size(); ++id) {
        const Key &k = m_keys[id];
        if (k.isFree() || !filter.matches(nameView(k), k.expireAtMs, nowMs))
            continue;
        ScannedKey s;
        s.name = nameOf(k);
        s.type = k.type;
        s.memoryBytes = memoryOf(quint32(id));
        s.pttlMs = k.expireAtMs >= 0 ? qMax<qint64>(0, k.expireAtMs - nowMs) : k.expireAtMs;
        out.keys.append(std::move(s));
        if (limit > 0 && out.keys.size() >= limit)
            break;
    }
    return out;
}

bool KeyTreeModel::setTypeHint(const QByteArray &key, TypeHint hint)
{
    const int id = idOf(key);
    if (id < 0)
        return false;
    Key &k = m_keys[size_t(id)];
    if (k.hint == hint)
        return true;
    k.hint = hint;
    const QModelIndex row = indexForKey(key);
    if (row.isValid()) {
        const QModelIndex type = row.siblingAtColumn(TypeColumn);
        Q_EMIT dataChanged(type, type, {Qt::DisplayRole, Qt::ToolTipRole});
    }
    return true;
}

KeyTreeModel::TypeHint KeyTreeModel::typeHint(const QByteArray &key) const
{
    const int id = idOf(key);
    return id < 0 ? TypeHint::None : m_keys[size_t(id)].hint;
}

QList<QByteArray> KeyTreeModel::keysOfType(KeyType type, qsizetype limit) const
{
    QList<QByteArray> out;
    for (size_t id = 0; id < m_keys.size(); ++id) {
        const Key &k = m_keys[id];
        if (k.isFree() || k.type != type)
            continue;
        out.append(nameOf(k));
        if (limit > 0 && out.size() >= limit)
            break;
    }
    return out;
}

void KeyTreeModel::setPatternLookup(PatternLookup lookup)
{
    // Set once, before verdicts arrive; later verdicts come through patternsChanged().
    m_patterns = std::move(lookup);
}

void KeyTreeModel::patternsChanged(const QList<PatternMatch> &matches)
{
    for (const PatternMatch &m : matches) {
        const QModelIndex row = indexForKey(m.key);
        if (row.isValid()) {
            const QModelIndex cell = row.siblingAtColumn(PatternColumn);
            Q_EMIT dataChanged(cell, cell, {Qt::DisplayRole, Qt::ToolTipRole, PatternRole});
        }
    }
}
