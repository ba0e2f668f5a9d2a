// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "tablesshow.h"

class TopologyReader;
namespace topology {
class HotSlotsModel;
class NodesModel;
class SentinelsModel;
} // namespace topology

// `show topology`: one read of the topology panel's reader into its models. Tables: nodes (the
// default), slots (the slots holding far more than their share, after a count of every slot on
// a cluster), sentinels. The json document's details give the mode, the slots covered, the
// keys counted and how evenly memory and keys are spread over the primaries.
class ShowTopology final : public TablesShow
{
    Q_OBJECT
public:
    explicit ShowTopology(const Context &context, QObject *parent = nullptr);
    void start() override;
    QJsonObject details() const override { return m_details; }

private:
    void onRefreshed();
    void ready();

    TopologyReader *m_reader;
    topology::NodesModel *m_nodes;
    topology::HotSlotsModel *m_hot;
    topology::SentinelsModel *m_sentinels;
    QJsonObject m_details; // beside the records at the top of a json document
    bool m_read = false;
};
