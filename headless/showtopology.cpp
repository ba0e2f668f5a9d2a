// SPDX-License-Identifier: GPL-3.0-or-later
#include "showtopology.h"

#include "progressbar.h"
#include "topology.h"
#include "topologyreader.h"

#include <QJsonArray>

namespace {

QJsonObject imbalanceJson(const topology::Imbalance &i)
{
    QJsonObject o;
    o.insert(QStringLiteral("node"), i.node);
    o.insert(QStringLiteral("most"), i.most);
    o.insert(QStringLiteral("least"), i.least);
    o.insert(QStringLiteral("mean"), i.mean);
    o.insert(QStringLiteral("ratio"), i.ratio);
    return o;
}

} // namespace

ShowTopology::ShowTopology(const Context &context, QObject *parent)
    : TablesShow(context, parent),
      m_reader(new TopologyReader(m_client, this)),
      m_nodes(new topology::NodesModel(this)),
      m_hot(new topology::HotSlotsModel(this)),
      m_sentinels(new topology::SentinelsModel(this))
{
    addTable(QStringLiteral("nodes"), m_nodes);
    addTable(QStringLiteral("slots"), m_hot);
    addTable(QStringLiteral("sentinels"), m_sentinels);
    connect(m_reader, &TopologyReader::refreshed, this, &ShowTopology::onRefreshed);
    connect(m_reader, &TopologyReader::failed, this, [this](const QString &message) {
        Q_EMIT failed(QStringLiteral("cannot read the topology: %1").arg(message));
    });
    connect(m_reader, &TopologyReader::slotsChanged, this, [this] {
        if (m_bar && m_reader->isCountingSlots())
            m_bar->status(QStringLiteral("counting keys per slot: %1 of %2")
                              .arg(m_reader->slotsCounted())
                              .arg(cluster::kSlotCount));
        if (m_read && !m_reader->isCountingSlots())
            ready();
    });
}

void ShowTopology::start()
{
    m_reader->refresh();
}

void ShowTopology::onRefreshed()
{
    if (m_read)
        return;
    m_read = true;
    const topology::Snapshot &s = m_reader->snapshot();
    m_nodes->setRows(s.nodes);
    m_sentinels->setRows(s.sentinels);
    if (s.mode == topology::Mode::Cluster) {
        m_reader->countSlots(); // ends in slotsChanged() with no count running
        return;
    }
    ready();
}

void ShowTopology::ready()
{
    const topology::Snapshot &s = m_reader->snapshot();
    m_hot->setRows(s.hotSlots);
    m_details = {};
    const char *mode = s.mode == topology::Mode::Cluster ? "cluster"
        : s.mode == topology::Mode::Sentinel             ? "sentinel"
                                                         : "single";
    m_details.insert(QStringLiteral("mode"), QLatin1String(mode));
    if (!s.master.isEmpty())
        m_details.insert(s.mode == topology::Mode::Sentinel ? QStringLiteral("master_name")
                                                            : QStringLiteral("seed_node_id"),
                         s.master);
    if (s.mode == topology::Mode::Cluster) {
        m_details.insert(QStringLiteral("covered_slots"), s.coveredSlots);
        qint64 total = 0;
        int counted = 0;
        for (const qint64 k : s.keysPerSlot) {
            if (k >= 0) {
                total += k;
                ++counted;
            }
        }
        m_details.insert(QStringLiteral("slots_counted"), counted);
        m_details.insert(QStringLiteral("keys_in_counted_slots"), total);
        m_details.insert(QStringLiteral("memory_balance"),
                         imbalanceJson(topology::imbalance(s.nodes, &topology::NodeRow::usedMemory)));
        m_details.insert(QStringLiteral("keys_balance"),
                         imbalanceJson(topology::imbalance(s.nodes, &topology::NodeRow::keys)));
    }
    if (!s.error.isEmpty())
        m_details.insert(QStringLiteral("error"), s.error);
    m_coverage.insert(QStringLiteral("nodes"), int(s.nodes.size()));
    tablesReady();
}
