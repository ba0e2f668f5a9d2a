// SPDX-License-Identifier: GPL-3.0-or-later
#include "memorystats.h"

#include "bytesescape.h"
#include "format.h"

#include <algorithm>

namespace {
qint64 sizeOf(const KeySize &k, bool byElements)
{
    return byElements ? k.elements : k.memory;
}

// Larger first; on a tie the one found first, as redis-cli reports the first maximum.
bool ranksAbove(const KeySize &a, const KeySize &b, bool byElements)
{
    const qint64 sa = sizeOf(a, byElements), sb = sizeOf(b, byElements);
    return sa != sb ? sa > sb : a.seen < b.seen;
}
} // namespace

MemoryStats::MemoryStats()
{
    for (TopList &t : m_topElements)
        t.byElements = true;
}

void MemoryStats::setSeparator(const QByteArray &separator)
{
    m_separator = separator;
}

void MemoryStats::setTopN(int n)
{
    m_topN = qMax(1, n);
}

void MemoryStats::clear()
{
    m_keys = m_measured = m_seen = m_lengthUnknown = 0;
    m_memory = 0;
    m_names.clear();
    for (auto &level : m_namespaces)
        level.clear();
    m_topAll.heap.clear();
    for (TopList &t : m_topMemory)
        t.heap.clear();
    for (TopList &t : m_topElements)
        t.heap.clear();
    m_types.fill({});
}

QByteArray MemoryStats::namespaceOf(const QByteArray &key, int depth) const
{
    if (m_separator.isEmpty())
        return {};
    qsizetype end = 0;
    for (int level = 0; level < depth; ++level) {
        const qsizetype at = key.indexOf(m_separator, end);
        if (at < 0)
            break;
        end = at + m_separator.size();
    }
    return key.left(end);
}

void MemoryStats::TopList::offer(const KeySize &k, int n)
{
    if (sizeOf(k, byElements) < 0)
        return;
    // The heap's front is the entry that ranks lowest.
    const auto lower = [this](const KeySize &a, const KeySize &b) { return ranksAbove(a, b, byElements); };
    if (int(heap.size()) < n) {
        heap.push_back(k);
        std::push_heap(heap.begin(), heap.end(), lower);
        return;
    }
    if (!ranksAbove(k, heap.front(), byElements))
        return;
    std::pop_heap(heap.begin(), heap.end(), lower);
    heap.back() = k;
    std::push_heap(heap.begin(), heap.end(), lower);
}

QList<KeySize> MemoryStats::TopList::sorted() const
{
    QList<KeySize> out(heap.begin(), heap.end());
    std::sort(out.begin(), out.end(),
              [this](const KeySize &a, const KeySize &b) { return ranksAbove(a, b, byElements); });
    return out;
}

void MemoryStats::add(const ScanBatch &batch)
{
    for (const ScannedKey &sk : batch.keys)
        add(sk);
}

void MemoryStats::add(const ScannedKey &sk)
{
    // A 64-bit hash stands in for the name: 8 bytes a key instead of the name itself. Two
    // names colliding in a million keys has a chance of about 1 in 36 million.
    const quint64 h = quint64(qHash(sk.name, size_t(0x5eed1e55)));
    if (m_names.contains(h))
        return;
    m_names.insert(h);
    KeySize k{sk.name, sk.memoryBytes, sk.elements, sk.type, ++m_seen};
    ++m_keys;
    const int t = int(sk.type);
    ++m_types[t].keys;
    if (k.memory >= 0) {
        ++m_measured;
        m_memory += k.memory;
        m_types[t].memory += k.memory;
    }
    if (k.elements < 0 && !keyTypeLengthCommand(sk.type).isEmpty())
        ++m_lengthUnknown;
    // The prefixes of all depths in one pass; looked up through raw views of the name, so a
    // known namespace costs no allocation.
    qsizetype end = 0;
    for (int depth = 1; depth <= kMaxDepth; ++depth) {
        if (!m_separator.isEmpty() && (depth == 1 || end > 0)) {
            const qsizetype at = sk.name.indexOf(m_separator, end);
            if (at >= 0)
                end = at + m_separator.size();
        }
        auto &level = m_namespaces[depth - 1];
        auto it = level.find(QByteArray::fromRawData(sk.name.constData(), end));
        if (it == level.end()) {
            const QByteArray prefix(sk.name.constData(), end);
            it = level.insert(prefix, NamespaceMemory{});
            it->prefix = prefix;
        }
        NamespaceMemory &ns = *it;
        ++ns.keys;
        if (k.memory >= 0) {
            ++ns.measured;
            ns.memory += k.memory;
            if (ns.biggest.name.isNull() || ranksAbove(k, ns.biggest, false))
                ns.biggest = k;
        }
    }
    m_topAll.offer(k, m_topN);
    m_topMemory[t].offer(k, m_topN);
    m_topElements[t].offer(k, m_topN);
}

QList<NamespaceMemory> MemoryStats::namespaces(int depth) const
{
    const auto &level = m_namespaces[qBound(1, depth, kMaxDepth) - 1];
    QList<NamespaceMemory> out;
    out.reserve(level.size());
    for (const NamespaceMemory &ns : level)
        out.append(ns);
    std::sort(out.begin(), out.end(), [](const NamespaceMemory &a, const NamespaceMemory &b) {
        if (a.memory != b.memory)
            return a.memory > b.memory;
        if (a.keys != b.keys)
            return a.keys > b.keys;
        return a.prefix < b.prefix;
    });
    return out;
}

QList<KeySize> MemoryStats::topByMemory(KeyType type) const
{
    return type == KeyType::Unknown ? m_topAll.sorted() : m_topMemory[int(type)].sorted();
}

QList<KeySize> MemoryStats::topByElements(KeyType type) const
{
    return m_topElements[int(type)].sorted();
}

KeySize MemoryStats::biggestByMemory(KeyType type) const
{
    const QList<KeySize> top = topByMemory(type);
    return top.isEmpty() ? KeySize{} : top.first();
}

KeySize MemoryStats::biggestByElements(KeyType type) const
{
    const QList<KeySize> top = topByElements(type);
    return top.isEmpty() ? KeySize{} : top.first();
}

quint64 MemoryStats::keysOfType(KeyType type) const
{
    return m_types[int(type)].keys;
}

qint64 MemoryStats::memoryOfType(KeyType type) const
{
    return m_types[int(type)].memory;
}

NamespaceMemoryModel::NamespaceMemoryModel(QObject *parent)
    : RowListModel([](const NamespaceMemory &ns) { return ns.prefix; }, ColumnCount, -1, parent)
{ }

void NamespaceMemoryModel::setResults(const QList<NamespaceMemory> &rows, qint64 totalMemory)
{
    m_total = totalMemory; // the shares of kept rows follow with the update setRows() sends
    setRows(rows);
}

QVariant NamespaceMemoryModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    const NamespaceMemory &ns = rows().at(index.row());
    const double share = m_total > 0 ? 100.0 * double(ns.memory) / double(m_total) : 0;
    const qint64 average = ns.measured > 0 ? ns.memory / qint64(ns.measured) : -1;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NamespaceColumn: return ns.prefix.isEmpty() ? tr("(no namespace)") : bytesescape::escape(ns.prefix);
        case KeysColumn: return format::count(ns.keys);
        case MemoryColumn: return format::bytes(ns.memory);
        case ShareColumn: return QString(QString::number(share, 'f', 1) + QLatin1Char('%'));
        case AverageColumn: return average < 0 ? QString() : format::bytes(average);
        case BiggestColumn:
            return ns.biggest.name.isNull() ? QString()
                                            : bytesescape::quoteIfNeeded(ns.biggest.name.left(200))
                    + QStringLiteral(" (") + format::bytes(ns.biggest.memory) + QLatin1Char(')');
        }
        break;
    case Qt::TextAlignmentRole:
        if (index.column() != NamespaceColumn && index.column() != BiggestColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Qt::ToolTipRole:
        if (ns.measured < ns.keys)
            return tr("%1 of %2 keys measured (MEMORY USAGE failed for the rest)")
                .arg(format::count(ns.measured), format::count(ns.keys));
        break;
    case KeyRole: return ns.prefix;
    case SortRole:
        switch (index.column()) {
        case NamespaceColumn: return QString::fromLatin1(ns.prefix.toHex()); // byte order
        case KeysColumn: return ns.keys;
        case MemoryColumn:
        case ShareColumn: return ns.memory;
        case AverageColumn: return average;
        case BiggestColumn: return ns.biggest.memory;
        }
        break;
    }
    return {};
}

QVariant NamespaceMemoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NamespaceColumn: return tr("Namespace");
    case KeysColumn: return tr("Keys");
    case MemoryColumn: return tr("Memory");
    case ShareColumn: return tr("Share");
    case AverageColumn: return tr("Per key");
    case BiggestColumn: return tr("Biggest key");
    }
    return {};
}

TopKeysModel::TopKeysModel(QObject *parent)
    : RowListModel([](const RankedKey &r) { return r.key.name; }, ColumnCount, -1, parent)
{ }

void TopKeysModel::setResults(const QList<KeySize> &keys)
{
    QList<RankedKey> ranked;
    ranked.reserve(keys.size());
    for (const KeySize &k : keys)
        ranked.append({k, int(ranked.size()) + 1});
    setRows(std::move(ranked));
}

QVariant TopKeysModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    const RankedKey &ranked = rows().at(index.row());
    const KeySize &k = ranked.key;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case RankColumn: return ranked.rank;
        case KeyColumn: return bytesescape::quoteIfNeeded(k.name.left(512));
        case TypeColumn: return keyTypeName(k.type);
        case MemoryColumn: return k.memory < 0 ? QString() : format::bytes(k.memory);
        case ElementsColumn:
            return k.elements < 0 ? QString()
                                  : format::count(quint64(k.elements)) + QLatin1Char(' ') + keyTypeLengthUnit(k.type);
        }
        break;
    case Qt::TextAlignmentRole:
        if (index.column() != KeyColumn && index.column() != TypeColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Qt::ToolTipRole:
        if (index.column() == KeyColumn)
            return bytesescape::quoteIfNeeded(k.name.left(4096));
        break;
    case KeyRole: return k.name;
    case TypeRole: return int(k.type);
    case SortRole:
        switch (index.column()) {
        case RankColumn: return ranked.rank - 1;
        case KeyColumn: return QString::fromLatin1(k.name.left(256).toHex());
        case TypeColumn: return keyTypeName(k.type);
        case MemoryColumn: return k.memory;
        case ElementsColumn: return k.elements;
        }
        break;
    }
    return {};
}

QVariant TopKeysModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case RankColumn: return tr("#");
    case KeyColumn: return tr("Key");
    case TypeColumn: return tr("Type");
    case MemoryColumn: return tr("Memory");
    case ElementsColumn: return tr("Size");
    }
    return {};
}
