// SPDX-License-Identifier: GPL-3.0-or-later
#include "topologypanel.h"

#include "chartstyle.h"
#include "clusterrouter.h"
#include "format.h"
#include "panelparts.h"
#include "redisclient.h"
#include "tableview.h"
#include "topology.h"
#include "topologyreader.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>
#include <iterator>

// Keys per slot: the 16,384 slots left to right, each column of pixels the slots it covers,
// shaded by their keys on a log scale (the palette's base for none, hatched where not counted
// yet), over a band that shows which primary owns them. Hovering says the slots, keys and owner.
class SlotStrip : public QWidget
{
public:
    explicit SlotStrip(QWidget *parent) : QWidget(parent)
    {
        setObjectName(QStringLiteral("slotStrip"));
        setMouseTracking(true);
        setMinimumHeight(46);
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    }
    void setData(const std::vector<qint64> &counts, const QList<topology::NodeRow> &nodes, const ClusterRouter *router)
    {
        m_counts = counts;
        m_owner.assign(size_t(cluster::kSlotCount), -1);
        m_owners.clear();
        if (router) {
            for (const topology::NodeRow &n : nodes)
                if (n.primary && n.slotCount > 0)
                    m_owners << n.address;
            for (int s = 0; s < cluster::kSlotCount; ++s)
                if (const cluster::Node *o = router->ownerOf(s))
                    m_owner[size_t(s)] = qint16(m_owners.indexOf(o->address.toString()));
        }
        update();
    }
    QSize sizeHint() const override { return {600, 46}; }

protected:
    void paintEvent(QPaintEvent *) override
    {
        QPainter p(this);
        const QPalette &pal = palette();
        const int w = width();
        const int heatH = height() - 14;
        p.fillRect(rect(), pal.base());
        if (m_counts.size() != size_t(cluster::kSlotCount) || w <= 0)
            return;
        qint64 most = 0;
        for (int x = 0; x < w; ++x)
            most = qMax(most, columnKeys(x).first);
        const QColor hot = chartstyle::series(0, pal);
        const QColor cold = pal.base().color();
        for (int x = 0; x < w; ++x) {
            const auto [keys, counted] = columnKeys(x);
            if (!counted) {
                p.setPen(pal.mid().color());
                if (x % 4 == 0)
                    p.drawLine(x, 0, x, heatH - 1);
                continue;
            }
            const double t = most > 0 && keys > 0 ? std::log1p(double(keys)) / std::log1p(double(most)) : 0;
            const QColor c = QColor::fromRgbF(float(cold.redF() + (hot.redF() - cold.redF()) * t),
                                              float(cold.greenF() + (hot.greenF() - cold.greenF()) * t),
                                              float(cold.blueF() + (hot.blueF() - cold.blueF()) * t));
            p.setPen(c);
            p.drawLine(x, 0, x, heatH - 1);
        }
        // The owners' band: one colour per primary, a gap where no primary owns the slots.
        for (int x = 0; x < w; ++x) {
            const int first = x * cluster::kSlotCount / w;
            const qint16 o = m_owner[size_t(first)];
            if (o < 0)
                continue;
            p.setPen(chartstyle::series(1 + o, pal));
            p.drawLine(x, heatH + 4, x, height() - 1);
        }
        p.setPen(pal.mid().color());
        p.setBrush(Qt::NoBrush);
        p.drawRect(0, 0, w - 1, heatH - 1);
    }
    void mouseMoveEvent(QMouseEvent *event) override
    {
        const int w = width();
        if (w <= 0 || m_counts.size() != size_t(cluster::kSlotCount))
            return;
        const int x = qBound(0, int(event->position().x()), w - 1);
        const int first = x * cluster::kSlotCount / w;
        const int last = qMax(first, (x + 1) * cluster::kSlotCount / w - 1);
        const auto [keys, counted] = columnKeys(x);
        const qint16 o = m_owner[size_t(first)];
        const QString slots = first == last ? tr("slot %1").arg(first) : tr("slots %1–%2").arg(first).arg(last);
        const QString owner = o >= 0 ? m_owners.value(o) : tr("no primary");
        QToolTip::showText(event->globalPosition().toPoint(),
                           counted ? tr("%1: %2 keys · %3").arg(slots, format::count(quint64(keys)), owner)
                                   : tr("%1: not counted yet · %2").arg(slots, owner),
                           this);
    }

private:
    // The keys in the slots under pixel column x, and whether any of them was counted.
    QPair<qint64, bool> columnKeys(int x) const
    {
        const int w = width();
        const int first = x * cluster::kSlotCount / w;
        const int last = qMax(first, (x + 1) * cluster::kSlotCount / w - 1);
        qint64 sum = 0;
        bool counted = false;
        for (int s = first; s <= last; ++s) {
            const qint64 k = m_counts[size_t(s)];
            if (k >= 0) {
                sum += k;
                counted = true;
            }
        }
        return {sum, counted};
    }

    std::vector<qint64> m_counts;
    std::vector<qint16> m_owner; // index into m_owners per slot
    QStringList m_owners;
};

namespace {
constexpr int kSlotsColumn = 3; // NodesModel's
} // namespace

TopologyPanel::TopologyPanel(RedisClient *client, QWidget *parent)
    : Panel(parent),
      m_client(client),
      m_reader(new TopologyReader(client, this)),
      m_nodes(new topology::NodesModel(this)),
      m_hot(new topology::HotSlotsModel(this)),
      m_sentinels(new topology::SentinelsModel(this))
{
    auto *layout = new QVBoxLayout(this);
    m_summary = panelparts::statusLabel(QStringLiteral("topologySummary"), tr("Reading the topology…"), this);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    m_balance = panelparts::statusLabel(QStringLiteral("topologyBalance"), {}, this);
    m_balance->hide();
    layout->addWidget(m_balance);

    layout->addWidget(panelparts::heading(tr("Nodes"), this));
    auto *nodesProxy = new SeverityProxyModel(this, this);
    nodesProxy->setSourceModel(m_nodes);
    m_nodesView = tableview::make(nodesProxy, this, QStringLiteral("topologyNodes"));
    // The link state next to the role: what is wrong stays in sight beside the key browser.
    const int widths[] = {150, 62, 150, 130, 64, 72, 56, 86};
    for (int c = 0; c < int(std::size(widths)); ++c)
        m_nodesView->horizontalHeader()->resizeSection(c, widths[c]);
    layout->addWidget(m_nodesView, 2);

    m_slotsBox = new QWidget(this);
    auto *slots = new QVBoxLayout(m_slotsBox);
    slots->setContentsMargins(0, 0, 0, 0);
    auto *slotsTop = new QHBoxLayout;
    slotsTop->addWidget(panelparts::heading(tr("Keys per slot"), m_slotsBox));
    m_slotsStatus = panelparts::statusLabel(QStringLiteral("slotsStatus"), tr("not counted yet"), m_slotsBox);
    slotsTop->addWidget(m_slotsStatus, 1);
    m_recount = new QPushButton(tr("Count again"), m_slotsBox);
    m_recount->setToolTip(tr("CLUSTER COUNTKEYSINSLOT for every slot, on the node that owns it, paced"));
    slotsTop->addWidget(m_recount);
    slots->addLayout(slotsTop);
    m_strip = new SlotStrip(m_slotsBox);
    slots->addWidget(m_strip);
    m_hotHeading = panelparts::heading(tr("Slots holding far more than their share"), m_slotsBox);
    slots->addWidget(m_hotHeading);
    auto *hotProxy = new SeverityProxyModel(this, this);
    hotProxy->setSourceModel(m_hot);
    m_hotView = tableview::make(hotProxy, m_slotsBox, QStringLiteral("hotSlots"));
    m_hotView->horizontalHeader()->resizeSection(0, 64);
    m_hotView->horizontalHeader()->resizeSection(1, 72);
    m_hotView->horizontalHeader()->resizeSection(2, 150);
    m_hotView->horizontalHeader()->resizeSection(3, 200);
    slots->addWidget(m_hotView, 1);
    layout->addWidget(m_slotsBox, 1);
    m_slotsBox->hide();

    m_sentinelsBox = new QWidget(this);
    auto *sentinels = new QVBoxLayout(m_sentinelsBox);
    sentinels->setContentsMargins(0, 0, 0, 0);
    sentinels->addWidget(panelparts::heading(tr("Sentinels"), m_sentinelsBox));
    auto *sentinelsProxy = new SeverityProxyModel(this, this);
    sentinelsProxy->setSourceModel(m_sentinels);
    auto *sentinelsView = tableview::make(sentinelsProxy, m_sentinelsBox, QStringLiteral("sentinels"));
    sentinelsView->horizontalHeader()->resizeSection(0, 190);
    sentinels->addWidget(sentinelsView);
    layout->addWidget(m_sentinelsBox, 1);
    m_sentinelsBox->hide();

    connect(m_reader, &TopologyReader::refreshed, this, &TopologyPanel::onRefreshed);
    connect(m_reader, &TopologyReader::failed, this,
            [this](const QString &message) { m_summary->setText(tr("Cannot read the topology: %1").arg(message)); });
    connect(m_reader, &TopologyReader::slotsChanged, this, &TopologyPanel::onSlots);
    connect(m_recount, &QPushButton::clicked, m_reader, &TopologyReader::countSlots);
}

TopologyPanel::~TopologyPanel() = default;

void TopologyPanel::activeChanged(bool active)
{
    m_reader->setPolling(active);
}

QString TopologyPanel::summaryText() const
{
    const topology::Snapshot &s = m_reader->snapshot();
    int primaries = 0;
    int replicas = 0;
    int troubled = 0;
    for (const topology::NodeRow &n : s.nodes) {
        (n.primary ? primaries : replicas) += 1;
        troubled += topology::severityOf(n) == Severity::Bad ? 1 : 0;
    }
    QString text;
    switch (s.mode) {
    case topology::Mode::Cluster:
        text = tr("Redis Cluster · %1 primaries, %2 replicas · %3 of %4 slots covered · seed node %5")
                   .arg(primaries)
                   .arg(replicas)
                   .arg(format::count(quint64(qMax(0, s.coveredSlots))), format::count(cluster::kSlotCount),
                        s.master.left(8));
        break;
    case topology::Mode::Sentinel: {
        int down = 0;
        for (const topology::SentinelRow &r : s.sentinels)
            down += r.flags.contains("down") || r.flags == "unreachable" ? 1 : 0;
        text = tr("Sentinel master %1 · primary %2 · %n replica(s)", nullptr, replicas)
                   .arg(s.master, s.nodes.isEmpty() ? tr("unknown") : s.nodes.constFirst().address)
            + tr(" · %n sentinel(s)", nullptr, int(s.sentinels.size()))
            + (down > 0 ? tr(", %1 down or unreachable").arg(down) : QString());
        break;
    }
    case topology::Mode::Single:
        // readSingle() lists a replica's primary first, not asked.
        if (s.nodes.size() >= 2 && s.nodes.constFirst().link.startsWith(QLatin1String("not asked")))
            text = tr("A replica of %1").arg(s.nodes.constFirst().address);
        else
            text = replicas == 0 ? tr("One server, no replicas") : tr("One primary · %n replica(s)", nullptr, replicas);
        break;
    }
    if (troubled > 0)
        text += tr(" · %n node(s) failing or unreachable", nullptr, troubled);
    if (!s.error.isEmpty())
        text += QStringLiteral(" · ") + s.error;
    return text;
}

QString TopologyPanel::balanceText() const
{
    const topology::Snapshot &s = m_reader->snapshot();
    if (s.mode != topology::Mode::Cluster)
        return {};
    const topology::Imbalance memory = topology::imbalance(s.nodes, &topology::NodeRow::usedMemory);
    const topology::Imbalance keys = topology::imbalance(s.nodes, &topology::NodeRow::keys);
    if (memory.ratio == 0)
        return {};
    QString text = memory.notable(kImbalanceRatio)
        ? tr("Memory is uneven: %1 holds %2, %3× the mean of the primaries (%4); the least holds %5.")
              .arg(memory.node, format::bytes(memory.most))
              .arg(memory.ratio, 0, 'f', 1)
              .arg(format::bytes(qint64(memory.mean)), format::bytes(memory.least))
        : tr("Memory is even across the primaries (the largest holds %1× the mean).").arg(memory.ratio, 0, 'f', 2);
    if (keys.notable(kImbalanceRatio))
        text += QLatin1Char(' ')
            + tr("Keys are uneven: %1 holds %2, %3× the mean.")
                  .arg(keys.node, format::count(quint64(keys.most)))
                  .arg(keys.ratio, 0, 'f', 1);
    return text;
}

QString TopologyPanel::slotsText() const
{
    const topology::Snapshot &s = m_reader->snapshot();
    if (m_reader->isCountingSlots())
        return tr("counting: %1 of %2 slots")
            .arg(format::count(quint64(m_reader->slotsCounted())), format::count(cluster::kSlotCount));
    if (s.slotsCountedAtMs == 0)
        return tr("not counted yet");
    qint64 total = 0;
    int busiest = -1;
    for (int i = 0; i < int(s.keysPerSlot.size()); ++i) {
        const qint64 k = s.keysPerSlot[size_t(i)];
        if (k < 0)
            continue;
        total += k;
        if (busiest < 0 || k > s.keysPerSlot[size_t(busiest)])
            busiest = i;
    }
    const QString when = QDateTime::fromMSecsSinceEpoch(s.slotsCountedAtMs).toString(QStringLiteral("HH:mm:ss"));
    if (busiest < 0)
        return tr("counted at %1: no slot could be counted").arg(when);
    return tr("counted at %1 · %2 keys · busiest slot %3 with %4 (mean %5)")
        .arg(when, format::count(quint64(total)))
        .arg(busiest)
        .arg(format::count(quint64(s.keysPerSlot[size_t(busiest)])))
        .arg(double(total) / cluster::kSlotCount, 0, 'f', 1);
}

void TopologyPanel::onRefreshed()
{
    const topology::Snapshot &s = m_reader->snapshot();
    m_nodes->setRows(s.nodes);
    m_sentinels->setRows(s.sentinels);
    m_summary->setText(summaryText());
    const QString balance = balanceText();
    m_balance->setText(balance);
    m_balance->setVisible(!balance.isEmpty());
    const bool uneven = balance.contains(QLatin1String("uneven"));
    QPalette pal = palette();
    if (uneven)
        pal.setColor(QPalette::WindowText, chartstyle::warning(palette()));
    m_balance->setPalette(pal);
    m_slotsBox->setVisible(s.mode == topology::Mode::Cluster);
    m_nodesView->setColumnHidden(kSlotsColumn, s.mode != topology::Mode::Cluster);
    m_sentinelsBox->setVisible(s.mode == topology::Mode::Sentinel);
    onSlots();
    if (!m_hasContent && !s.nodes.isEmpty()) {
        m_hasContent = true;
        Q_EMIT contentReady();
    }
}

void TopologyPanel::onSlots()
{
    const topology::Snapshot &s = m_reader->snapshot();
    if (s.mode != topology::Mode::Cluster)
        return;
    m_strip->setData(s.keysPerSlot, s.nodes, m_client->cluster());
    m_slotsStatus->setText(slotsText());
    m_recount->setEnabled(!m_reader->isCountingSlots());
    m_hot->setRows(s.hotSlots);
    const bool counted = s.slotsCountedAtMs > 0;
    m_hotHeading->setText(counted && s.hotSlots.isEmpty() ? tr("No slot holds far more than its share")
                                                          : tr("Slots holding far more than their share"));
    m_hotView->setVisible(!s.hotSlots.isEmpty());
}
