// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rowtablemodel.h"
#include "scanbatch.h"

#include <QHash>
#include <QSet>
#include <array>
#include <vector>

// A key as the memory analysis sees it.
struct KeySize
{
    QByteArray name;
    qint64 memory = -1; // MEMORY USAGE, bytes; -1 unknown
    qint64 elements = -1; // STRLEN/LLEN/SCARD/ZCARD/HLEN/XLEN; -1 unknown
    KeyType type = KeyType::Unknown;
    quint64 seen = 0; // order of arrival: on equal sizes the first one found ranks first
};

struct NamespaceMemory
{
    QByteArray prefix; // with its trailing separator; empty for keys without one
    quint64 keys = 0;
    quint64 measured = 0; // keys whose MEMORY USAGE is known
    qint64 memory = 0; // sum of the known MEMORY USAGE figures
    KeySize biggest; // by memory
};

// Sums a memory scan (KeyScanner with memory and elements on) into per-namespace totals and
// bounded top-N lists, overall and per type. Memory stays proportional to the number of
// namespaces and N, not to the keyspace: a million keys cost 8 bytes each for the duplicate
// check and nothing else.
class MemoryStats
{
public:
    static constexpr int kMaxDepth = 3;

    MemoryStats();

    void setSeparator(const QByteArray &separator);
    QByteArray separator() const { return m_separator; }
    void setTopN(int n);
    int topN() const { return m_topN; }
    void clear();
    // Adds a scan batch; keys seen before in this analysis are ignored (SCAN may repeat one).
    void add(const ScanBatch &batch);
    void add(const ScannedKey &key);

    quint64 keyCount() const { return m_keys; }
    qint64 totalMemory() const { return m_memory; }
    quint64 measuredCount() const { return m_measured; }
    // Keys of a type with a length command whose length stayed unknown: replaced by another
    // type between TYPE and the length command (WRONGTYPE), or the command was refused. They
    // count everywhere except in the by-elements lists.
    quint64 lengthUnknownCount() const { return m_lengthUnknown; }
    // Namespaces at a depth of 1..kMaxDepth separator-delimited segments, by memory, largest
    // first. A key with fewer segments counts at its own deepest level ("a:b" at depth 3 is in
    // "a:").
    QList<NamespaceMemory> namespaces(int depth = 1) const;
    // Largest first. KeyType::Unknown means every type.
    QList<KeySize> topByMemory(KeyType type = KeyType::Unknown) const;
    QList<KeySize> topByElements(KeyType type) const;
    // The single biggest key of a type, as redis-cli --memkeys / --bigkeys name it; an
    // empty name when there is none.
    KeySize biggestByMemory(KeyType type) const;
    KeySize biggestByElements(KeyType type) const;
    quint64 keysOfType(KeyType type) const;
    qint64 memoryOfType(KeyType type) const;

    // The namespace of 'key' at 'depth'.
    QByteArray namespaceOf(const QByteArray &key, int depth) const;

private:
    static constexpr int kTypes = int(KeyType::Module) + 1;
    // A bounded min-heap: the smallest of the kept N on top, so a new key costs O(log N).
    struct TopList
    {
        std::vector<KeySize> heap;
        bool byElements = false;
        void offer(const KeySize &k, int n);
        QList<KeySize> sorted() const;
    };
    struct TypeTotals
    {
        quint64 keys = 0;
        qint64 memory = 0;
    };

    QByteArray m_separator = ":";
    int m_topN = 50;
    quint64 m_keys = 0;
    quint64 m_measured = 0;
    quint64 m_lengthUnknown = 0;
    qint64 m_memory = 0;
    quint64 m_seen = 0;
    QSet<quint64> m_names; // 64-bit hashes of the names counted so far
    std::array<QHash<QByteArray, NamespaceMemory>, kMaxDepth> m_namespaces;
    TopList m_topAll;
    std::array<TopList, kTypes> m_topMemory;
    std::array<TopList, kTypes> m_topElements;
    std::array<TypeTotals, kTypes> m_types;
};

// The per-namespace table of a MemoryStats snapshot, merged by prefix (RowListModel): a
// refresh during a scan keeps the selection on its namespace.
class NamespaceMemoryModel : public RowListModel<NamespaceMemory>, public RowTableRoles
{
    Q_OBJECT
public:
    enum Column { NamespaceColumn, KeysColumn, MemoryColumn, ShareColumn, AverageColumn, BiggestColumn, ColumnCount };

    explicit NamespaceMemoryModel(QObject *parent = nullptr);
    void setResults(const QList<NamespaceMemory> &rows, qint64 totalMemory);
    const NamespaceMemory &at(int row) const { return rows().at(row); }

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    qint64 m_total = 0;
};

// A row of the top keys table: the key and its place in the list, which travels with the row
// so that a merge that inserts above it changes it by an update, not behind the view's back.
struct RankedKey
{
    KeySize key;
    int rank = 0; // 1-based
};

// The top keys of a MemoryStats snapshot, by memory or by element count, merged by name.
class TopKeysModel : public RowListModel<RankedKey>, public RowTableRoles
{
    Q_OBJECT
public:
    enum Column { RankColumn, KeyColumn, TypeColumn, MemoryColumn, ElementsColumn, ColumnCount };

    explicit TopKeysModel(QObject *parent = nullptr);
    // Largest first, as MemoryStats lists them.
    void setResults(const QList<KeySize> &keys);
    const KeySize &at(int row) const { return rows().at(row).key; }

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};
