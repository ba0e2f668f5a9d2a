// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "panel.h"

class QLabel;
class QPushButton;
class QTableView;
class RedisClient;
class SlotStrip;
class TopologyReader;
namespace topology {
class HotSlotsModel;
class NodesModel;
class SentinelsModel;
} // namespace topology

// The servers behind the connection, live while shown: a cluster's nodes (role, slots, keys,
// memory, ops/s, replication offset and lag, link state), the keys in each slot as a heat
// strip over the primaries that own them, the slots that hold far more than their share with
// the hash tag that put them there, and how evenly memory and keys are spread over the
// primaries; a Sentinel-managed primary with its replicas and the sentinels with their flags;
// one server with its replicas (or its primary).
class TopologyPanel : public Panel
{
    Q_OBJECT
public:
    // A primary holding this many times the mean of the primaries is called out.
    static constexpr double kImbalanceRatio = 1.5;

    explicit TopologyPanel(RedisClient *client, QWidget *parent = nullptr);
    ~TopologyPanel() override;

    bool hasContent() const override { return m_hasContent; }
    TopologyReader *reader() const { return m_reader; }
    topology::NodesModel *nodes() const { return m_nodes; }
    topology::HotSlotsModel *hotSlots() const { return m_hot; }
    topology::SentinelsModel *sentinels() const { return m_sentinels; }
    QString summaryText() const;
    QString balanceText() const;
    QString slotsText() const;

protected:
    void activeChanged(bool active) override;

private:
    void onRefreshed();
    void onSlots();

    RedisClient *m_client;
    TopologyReader *m_reader;
    topology::NodesModel *m_nodes;
    topology::HotSlotsModel *m_hot;
    topology::SentinelsModel *m_sentinels;
    QLabel *m_summary;
    QLabel *m_balance;
    QTableView *m_nodesView;
    QWidget *m_slotsBox;
    SlotStrip *m_strip;
    QLabel *m_slotsStatus;
    QPushButton *m_recount;
    QLabel *m_hotHeading;
    QTableView *m_hotView;
    QWidget *m_sentinelsBox;
    bool m_hasContent = false;
};
