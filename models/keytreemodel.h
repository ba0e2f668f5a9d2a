// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keyfilter.h"
#include "keyidindex.h"
#include "namearena.h"
#include "patterns.h"
#include "rowtablemodel.h"
#include "scanbatch.h"
#include "segmentedvector.h"

#include <QAbstractItemModel>
#include <QElapsedTimer>
#include <QHash>
#include <deque>
#include <functional>
#include <vector>

class QTimer;

// The key browser's namespace tree. Keys are split into folders by a separator ("app:user:7"
// sits in app: → user:); each folder knows how many keys (and, when measured, how many bytes)
// lie beneath it. A folder shows at most childLimit() children and then a "load more" row, so
// a folder of a million keys costs the view no more than one of a thousand.
//
// Scan batches are applied on the GUI thread in time slices (a few ms each, then the event
// loop runs), with one beginInsertRows per folder per slice. Each key is kept once, however
// often SCAN returns it. Nothing it holds grows by copying all of it (segmented vectors, a
// sharded key index), so no slice at ten million keys waits for a reallocation or a rehash;
// names lie side by side in an arena (about 80 bytes per key in all).
class KeyTreeModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    // What a key is beyond its Redis type, once something has looked: a sorted set whose
    // scores are geohashes is shown as "geo".
    enum class TypeHint : quint8 { None, Geo };

    enum Column { NameColumn, TypeColumn, PatternColumn, TtlColumn, MemoryColumn, KeysColumn, ColumnCount };
    // The key and its type are read under the row tables' role numbers (RowTableRoles), so a
    // delegate or a view reads either kind of model alike.
    enum Role {
        KeyBytesRole = RowTableRoles::KeyRole, // QByteArray: the exact key (keys only)
        PrefixBytesRole, // QByteArray: the folder's prefix including the separator (folders only)
        NodeKindRole, // int: NodeKind
        KeyTypeRole, // int: KeyType
        ExpireAtRole, // qint64: ms since epoch; -1 no TTL; INT64_MIN unknown
        MemoryRole, // qint64 bytes; -1 unknown
        KeyCountRole, // quint64 keys beneath a folder
        PatternRole, // int: PatternKind (keys only; Unknown until classified)
    };
    static_assert(int(KeyTypeRole) == int(RowTableRoles::TypeRole));
    enum class NodeKind { Folder, Key, LoadMore };

    explicit KeyTreeModel(QObject *parent = nullptr);
    ~KeyTreeModel() override;

    // The separator splits names into folders; changing it rebuilds the tree. Empty: flat list.
    void setSeparator(const QByteArray &separator);
    QByteArray separator() const { return m_separator; }
    // Children shown per folder before a "load more" row.
    void setChildLimit(int limit);
    int childLimit() const { return m_childLimit; }
    // Folders deeper than this keep the rest of the name in the key row.
    void setMaxDepth(int depth) { m_maxDepth = depth; }
    // Work per slice on the GUI thread, in milliseconds.
    void setSliceBudgetMs(int ms) { m_sliceBudgetMs = ms; }

    void clear();
    // Queues a scan batch; it is applied in slices from the event loop.
    void appendBatch(const ScanBatch &batch);
    // Applies a small batch now, ahead of any queued ones, with one update of the view per folder
    // (keys a follower of key events looked up).
    void applyBatch(const ScanBatch &batch);
    // Applies queued work now, ignoring the time budget (headless use and tests).
    void applyAllPending();
    bool hasPendingWork() const { return !m_queue.empty(); }
    // Adds or refreshes one key (a key opened by name, or re-read after an edit).
    void upsertKey(const ScannedKey &key, qint64 capturedAtMs);
    // A folder left without keys goes with its last one (a key deleted or expired on the server).
    void removeKey(const QByteArray &key);
    // After a server-side RENAME: the entry moves with its type, TTL and memory. False when
    // 'from' is not in the tree.
    bool renameKey(const QByteArray &from, const QByteArray &to);

    // Names of the keys held of one type, at most 'limit' (0: all), in no particular order.
    QList<QByteArray> keysOfType(KeyType type, qsizetype limit = 0) const;
    // Marks a key held in the tree; false when it is not. Cleared when a later scan finds the
    // key with another type.
    bool setTypeHint(const QByteArray &key, TypeHint hint);
    TypeHint typeHint(const QByteArray &key) const;
    // Where the pattern column reads a key's verdict (the PatternIndex); the tree keeps no copy,
    // so a million keys cost it nothing. Call patternsChanged() when verdicts arrive.
    using PatternLookup = std::function<std::optional<PatternMatch>(const QByteArray &key)>;
    void setPatternLookup(PatternLookup lookup);
    void patternsChanged(const QList<PatternMatch> &matches);

    // The keys held that pass 'filter' at 'nowMs', as one batch captured at nowMs: what a
    // filtered view of this model starts from. At most 'limit' keys (0: all).
    ScanBatch matching(const KeyFilter &filter, qint64 nowMs, qsizetype limit = 0) const;

    quint64 keyCount() const { return quint64(m_index.size()); }
    quint64 folderCount() const { return quint64(m_folders.size() - 1) - m_removedFolders; }
    qint64 totalMemory() const;
    bool contains(const QByteArray &key) const { return idOf(key) >= 0; }
    // The row of a key, when it is currently shown.
    QModelIndex indexForKey(const QByteArray &key) const;
    QModelIndex indexForPrefix(const QByteArray &prefix) const;
    NodeKind kindOf(const QModelIndex &index) const;
    QByteArray keyAt(const QModelIndex &index) const;
    // Shows childLimit() more children of the folder whose "load more" row this is.
    void loadMore(const QModelIndex &loadMoreRow);

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    bool hasChildren(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;

Q_SIGNALS:
    // Emitted after each applied slice; the view refreshes counters from it.
    void keysApplied(quint64 keyCount);
    void pendingDrained();

private:
    static constexpr quint32 kNone = 0xffffffffu;

    struct Folder
    {
        QByteArray name; // this level's segment, without separator
        QByteArray prefix; // full prefix including the trailing separator
        QHash<QByteArray, quint32> childByName;
        std::vector<quint32> folders; // child folders; the first shownFolders are visible
        SegmentedVector<quint32> keys; // keys directly in this folder
        quint64 totalKeys = 0; // recursive
        qint64 memory = 0; // recursive, of the keys whose memory is known
        quint32 parent = kNone;
        quint32 row = 0; // index in the parent's folders vector
        quint32 depth = 0;
        quint32 folderAllowance = 0;
        quint32 keyAllowance = 0;
        quint32 shownFolders = 0; // what the view has been told
        quint32 shownKeys = 0;
        bool moreShown = false;
        quint64 hiddenShown = 0; // the count the load-more row shows; changes with dataChanged
        bool touched = false;
        bool removed = false; // emptied and taken out of its parent; its entry is not reused
        quint32 changedFirst = kNone; // key rows whose data changed in this slice
        quint32 changedLast = 0;
    };
    static constexpr quint64 kNoName = ~quint64(0);
    // 32 bytes; the name's bytes and length are in m_names, its memory (when measured) in
    // m_memory.
    struct Key
    {
        qint64 expireAtMs = 0;
        quint64 nameAt = kNoName; // in m_names; kNoName: a free entry
        quint32 folder = 0;
        quint32 pos = 0; // index in the folder's keys vector
        KeyType type = KeyType::Unknown;
        TypeHint hint = TypeHint::None;
        bool isFree() const { return nameAt == kNoName; }
    };
    static_assert(sizeof(void *) != 8 || sizeof(Key) == 32, "a key's entry is part of the per-key memory budget");

    // Whether entry 'id' holds exactly these bytes: KeyIdIndex's check.
    auto holdsKey() const
    {
        return [this](int id, const QByteArray &name) { return m_names.equals(m_keys[size_t(id)].nameAt, name); };
    }
    int idOf(const QByteArray &key) const { return m_index.find(key, holdsKey()); }
    // The key's name: a view valid while the key is held, or a copy to keep.
    QByteArray nameView(const Key &k) const { return m_names.view(k.nameAt); }
    QByteArray nameOf(const Key &k) const { return m_names.copy(k.nameAt); }
    // MEMORY USAGE of key 'id' in bytes; -1 unknown.
    qint64 memoryOf(quint32 id) const { return id < m_memory.size() ? m_memory[id] : -1; }
    void setMemory(quint32 id, qint64 bytes);
    quint32 newKeyId(); // a free entry, or a new one
    void placeKey(quint32 id); // into the folder its name puts it in
    void applySlice();
    void scheduleSlice();
    void applyKey(const ScannedKey &key, qint64 capturedAtMs);
    quint32 folderFor(const QByteArray &name);
    quint32 childFolder(quint32 parent, const char *segment, qsizetype length);
    void touch(quint32 folder);
    void addMemory(quint32 folder, qint64 delta, qint64 keys);
    void removeEmptyFolders(quint32 folder);
    void publish();
    void publishFolder(quint32 f);
    bool isVisible(quint32 folder) const;
    QModelIndex folderIndex(quint32 folder, int column = 0) const;
    int keyRow(const Key &k) const;
    QVariant folderData(const Folder &f, int column, int role) const;
    QVariant keyData(quint32 id, int column, int role) const;
    QVariant loadMoreData(const Folder &f, int column, int role) const;
    void resetStorage();
    void resetFolders();

    QByteArray m_separator = ":";
    int m_childLimit = 1000;
    int m_maxDepth = 16;
    int m_sliceBudgetMs = 8;
    PatternLookup m_patterns;
    SegmentedVector<Folder, 12> m_folders; // [0] is the invisible root
    SegmentedVector<Key> m_keys;
    // By key id, as far as the highest id whose memory was read: a scan without MEMORY USAGE
    // (the default) costs nothing here.
    SegmentedVector<qint64> m_memory;
    std::vector<quint32> m_freeKeys;
    quint64 m_removedFolders = 0;
    NameArena m_names;
    KeyIdIndex m_index;
    std::vector<quint32> m_touched;
    std::deque<ScanBatch> m_queue;
    qsizetype m_queuePos = 0;
    QTimer *m_sliceTimer = nullptr;
};
