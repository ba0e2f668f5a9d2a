// SPDX-License-Identifier: GPL-3.0-or-later
// The values a grammar reader (pickle, Java serialization, Marshal, PHP serialize) builds before
// its tree, and the one way that tree is made from them.
#pragma once

#include "decoded.h"

#include <optional>

namespace decode::detail {

// A reader's values: scalars, and containers that refer to other values by index, so that a
// value the data shares (pickle's memo, Java's handles, Marshal's and PHP's links) is one value
// wherever it is used, and one that holds itself is a cycle.
class ValueGraph
{
public:
    virtual ~ValueGraph() = default;
    // Values are numbered from 0 to valueCount() - 1.
    virtual int valueCount() const = 0;
    // The value at 'index' without its children: its kind, type and (scalars) value.
    virtual Node shell(int index) const = 0;
    // A container's children in order, as value indexes; a map's entries with their key text.
    virtual int childCount(int index) const = 0;
    virtual int child(int index, int k) const = 0;
    virtual QString childKey(int index, int k) const = 0;
};

// The graph of a reader whose values have a kind, a type, a value (scalars) and 'items': the
// children in order, or for a map its keys and values alternating (pickle, Marshal, PHP); the
// reader says how a key reads as text. A reader keeps its values and hands them out by index.
template <typename V> class AlternatingGraph : public ValueGraph
{
public:
    Node shell(int index) const override
    {
        const V &v = graphValue(index);
        Node n;
        n.kind = v.kind;
        n.type = v.type;
        n.value = v.value;
        return n;
    }
    int childCount(int index) const override
    {
        const V &v = graphValue(index);
        return int(v.kind == Node::Kind::Map ? v.items.size() / 2 : v.items.size());
    }
    int child(int index, int k) const override
    {
        const V &v = graphValue(index);
        return v.kind == Node::Kind::Map ? v.items[size_t(2 * k + 1)] : v.items[size_t(k)];
    }
    QString childKey(int index, int k) const override { return keyText(graphValue(index).items[size_t(2 * k)]); }

protected:
    virtual const V &graphValue(int index) const = 0;
    // The text of the value at 'index' as a map's key.
    virtual QString keyText(int index) const = 0;
};

// The tree of 'root': a shared value shown wherever it is used, a container met again inside
// itself named "<itself>", one deeper than Limits::maxDepth named so. Its size is counted
// first (links can name each other into billions of nodes in a few bytes): past
// Limits::maxNodes nothing is built, and 'why' says so.
std::optional<Node> buildTree(const ValueGraph &graph, int root, const Limits &limits, QString *why);

} // namespace decode::detail
