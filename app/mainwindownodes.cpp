// SPDX-License-Identifier: GPL-3.0-or-later
// The node bar of a cluster: which node the overview, the slow log, the memory analysis, the
// clients and the profiler read.
#include "mainwindow.h"

#include "clientspanel.h"
#include "clusterrouter.h"
#include "memorypanel.h"
#include "overviewpanel.h"
#include "panel.h"
#include "profilerpanel.h"
#include "redisclient.h"
#include "settings.h"
#include "slowlogpanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QStackedWidget>

namespace {

// The node bar's choice for "every primary, merged" where that is not the default.
constexpr char kEveryPrimary[] = "*";

// The panels that can read every primary as one, beside one node at a time.
bool mergesNodes(const QString &panel)
{
    return panel == QLatin1String("overview") || panel == QLatin1String("slowlog");
}

bool readsPerNode(const QString &panel)
{
    // Each node has its own clients and its own command statistics.
    return panel == QLatin1String("overview") || panel == QLatin1String("slowlog") || panel == QLatin1String("memory")
        || panel == QLatin1String("clients") || panel == QLatin1String("profiler");
}

QString nodeLabel(const cluster::Node &n, const cluster::Topology &t)
{
    if (n.primary) {
        const QString slots = n.slotsText();
        return MainWindow::tr("%1 · primary · slots %2")
            .arg(n.address.toString(), slots.isEmpty() ? MainWindow::tr("none") : slots);
    }
    for (const cluster::Node &p : t.nodes())
        if (p.id == n.primaryId)
            return MainWindow::tr("%1 · replica of %2").arg(n.address.toString(), p.address.toString());
    return MainWindow::tr("%1 · replica").arg(n.address.toString());
}

} // namespace

void MainWindow::buildNodeBar(QWidget *parent)
{
    m_nodeBar = new QWidget(parent);
    m_nodeBar->setObjectName(QStringLiteral("nodeBar"));
    auto *row = new QHBoxLayout(m_nodeBar);
    row->setContentsMargins(8, 2, 8, 2);
    auto *label = new QLabel(tr("Node"), m_nodeBar);
    m_nodePicker = new QComboBox(m_nodeBar);
    m_nodePicker->setObjectName(QStringLiteral("nodePicker"));
    m_nodePicker->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_nodePicker->setToolTip(tr("The node this panel reads: each panel keeps its own choice"));
    label->setBuddy(m_nodePicker);
    row->addWidget(label);
    row->addWidget(m_nodePicker);
    row->addStretch(1);
    m_nodeBar->hide();
    connect(m_nodePicker, &QComboBox::activated, this,
            [this](int index) { chooseNode(currentPanel(), m_nodePicker->itemData(index).toString()); });
}

void MainWindow::updateNodeBar()
{
    const QString panel = currentPanel();
    ClusterRouter *router = m_client->cluster();
    const bool shown = router && readsPerNode(panel);
    m_nodeBar->setVisible(shown);
    if (!shown)
        return;
    const cluster::Topology &t = router->topology();
    m_nodePicker->clear();
    m_nodePicker->addItem(panel == QLatin1String("memory")
                              ? tr("Every primary (the keys of all, merged)")
                              : tr("The seed node (%1)").arg(m_client->profile().displayName()),
                          QString());
    if (mergesNodes(panel))
        m_nodePicker->addItem(tr("Every primary (%n merged)", nullptr, int(t.primaries().size())),
                              QString::fromLatin1(kEveryPrimary));
    QList<cluster::Node> primaries = t.primaries();
    std::sort(primaries.begin(), primaries.end(),
              [](const cluster::Node &a, const cluster::Node &b) { return a.firstSlot() < b.firstSlot(); });
    for (const cluster::Node &p : std::as_const(primaries)) {
        m_nodePicker->addItem(nodeLabel(p, t), p.address.toString());
        for (const cluster::Node &r : t.replicasOf(p.id))
            m_nodePicker->addItem(nodeLabel(r, t), r.address.toString());
    }
    const QString chosen = m_panelNodes.value(panel);
    if (chosen == QLatin1String(kEveryPrimary)) {
        // The primaries of the slot map as it is now (after a failover, the promoted replicas).
        QStringList names;
        for (const cluster::Node &p : t.primaries())
            names << p.address.toString();
        if (panel == QLatin1String("overview") && m_overview)
            m_overview->setMergedNodes(router->primaryClients());
        else if (panel == QLatin1String("slowlog") && m_slowlog)
            m_slowlog->setMergedNodes(router->primaryClients(), names);
    }
    const int at = m_nodePicker->findData(chosen);
    if (at >= 0) {
        m_nodePicker->setCurrentIndex(at);
    } else {
        // A node that left the map: still read (its connection says what is wrong), still named.
        m_nodePicker->addItem(tr("%1 · not in the slot map").arg(chosen), chosen);
        m_nodePicker->setCurrentIndex(m_nodePicker->count() - 1);
    }
}

void MainWindow::chooseNode(const QString &panel, const QString &address)
{
    if (!readsPerNode(panel) || m_panelNodes.value(panel) == address)
        return;
    // Memory scans: its default and its nodes' connections are the scan connection's.
    RedisClient *source = panel == QLatin1String("memory") ? m_scanClient : m_client;
    ClusterRouter *router = source->cluster();
    const bool every = address == QLatin1String(kEveryPrimary);
    if (every && (!router || !mergesNodes(panel)))
        return;
    cluster::Address a;
    if (!every && !address.isEmpty() && (!router || !cluster::parseAddress(address, &a) || a.isNull()))
        return;
    m_panelNodes.insert(panel, address);
    if (!every && !address.isEmpty())
        source = router->clientFor(a);
    replacePanel(panel, makeServerPanel(panel, source));
    updateNodeBar(); // which gives a merged panel its nodes
}

Panel *MainWindow::makeServerPanel(const QString &name, RedisClient *client)
{
    if (name == QLatin1String("overview")) {
        m_overview = new OverviewPanel(client, m_pages);
        m_overview->setPollInterval(m_settings->pollIntervalMs());
        connect(m_settings, &Settings::pollIntervalChanged, m_overview, &OverviewPanel::setPollInterval);
        return m_overview;
    }
    if (name == QLatin1String("slowlog")) {
        m_slowlog = new SlowlogPanel(client, m_pages);
        return m_slowlog;
    }
    if (name == QLatin1String("clients")) {
        m_clients = new ClientsPanel(client, m_pages);
        return m_clients;
    }
    if (name == QLatin1String("profiler")) {
        m_profiler = new ProfilerPanel(client, m_pages);
        // It names the pattern of a key the index already classified, without a read.
        m_profiler->setPatternIndex(m_patterns);
        return m_profiler;
    }
    Q_ASSERT(name == QLatin1String("memory"));
    // The memory analysis is a scan: it runs on the scan connection, beside the key browser's.
    m_memory = new MemoryPanel(client, m_pages);
    m_memory->setScanRate(m_settings->scanRate());
    m_memory->setSeparator(m_settings->separator());
    connect(m_settings, &Settings::separatorChanged, m_memory, &MemoryPanel::setSeparator);
    connect(m_settings, &Settings::scanRateChanged, m_memory, &MemoryPanel::setScanRate);
    return m_memory;
}

void MainWindow::replacePanel(const QString &name, Panel *fresh)
{
    for (auto &entry : m_panels) {
        if (entry.first != name)
            continue;
        Panel *old = entry.second;
        const bool current = m_pages->currentWidget() == old;
        old->setActive(false);
        m_pages->insertWidget(m_pages->indexOf(old), fresh);
        entry.second = fresh;
        connectPanel(fresh, name);
        if (current)
            m_pages->setCurrentWidget(fresh);
        m_pages->removeWidget(old);
        old->deleteLater();
        updateActivePanels();
        return;
    }
}
