// SPDX-License-Identifier: GPL-3.0-or-later
#include "valuegraph.h"

#include <vector>

namespace decode::detail {

namespace {

class TreeBuilder
{
public:
    TreeBuilder(const ValueGraph &graph, const Limits &limits, qsizetype values)
        : m_graph(graph), m_limits(limits), m_open(size_t(values), false), m_size(size_t(values), -1)
    { }

    // The nodes 'index' becomes, each shared value counted wherever it is used; stops counting
    // once past the cap.
    qsizetype expanded(int index, int depth)
    {
        const Node::Kind kind = m_graph.shell(index).kind;
        if ((kind != Node::Kind::List && kind != Node::Kind::Map) || m_open[size_t(index)] || depth > m_limits.maxDepth)
            return 1;
        if (m_size[size_t(index)] >= 0)
            return m_size[size_t(index)];
        m_open[size_t(index)] = true;
        qsizetype total = 1;
        const int n = m_graph.childCount(index);
        for (int k = 0; k < n && total <= m_limits.maxNodes; ++k)
            total += expanded(m_graph.child(index, k), depth + 1);
        m_open[size_t(index)] = false;
        m_size[size_t(index)] = total;
        return total;
    }

    Node build(int index, int depth)
    {
        Node n = m_graph.shell(index);
        if (!n.isContainer())
            return n;
        if (m_open[size_t(index)] || depth > m_limits.maxDepth) {
            // A container inside itself (a list that holds itself) is named, not followed.
            n.kind = Node::Kind::Null; // printed as it is, not as a string
            n.value = m_open[size_t(index)] ? QStringLiteral("<itself>")
                                            : QStringLiteral("<deeper than %1>").arg(m_limits.maxDepth);
            n.type = QStringLiteral("reference");
            return n;
        }
        m_open[size_t(index)] = true;
        const bool map = n.kind == Node::Kind::Map;
        const int count = m_graph.childCount(index);
        n.children.reserve(count);
        for (int k = 0; k < count; ++k) {
            Node child = build(m_graph.child(index, k), depth + 1);
            if (map)
                child.key = m_graph.childKey(index, k);
            n.children.append(std::move(child));
        }
        m_open[size_t(index)] = false;
        return n;
    }

private:
    const ValueGraph &m_graph;
    const Limits &m_limits;
    std::vector<bool> m_open; // containers on the path being walked
    std::vector<qsizetype> m_size; // expanded() of each value, once known
};

} // namespace

std::optional<Node> buildTree(const ValueGraph &graph, int root, const Limits &limits, QString *why)
{
    TreeBuilder builder(graph, limits, graph.valueCount());
    if (builder.expanded(root, 0) > limits.maxNodes) {
        *why = QStringLiteral("more than %1 nodes once shared values are shown where they are used")
                   .arg(limits.maxNodes);
        return std::nullopt;
    }
    return builder.build(root, 0);
}

} // namespace decode::detail
