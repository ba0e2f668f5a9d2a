// SPDX-License-Identifier: GPL-3.0-or-later
#include "topologyreader.h"

#include "clusterrouter.h"
#include "redisclient.h"
#include "sentinelresolver.h"
#include "serverinfo.h"

#include <QDateTime>
#include <QHash>
#include <QPointer>
#include <QTimer>
#include <algorithm>

using namespace topology;

namespace {

// What a node's flags in CLUSTER NODES say of it, for the Link column; empty when all is well.
QString linkOf(const NodesLine &line)
{
    if (line.has("fail"))
        return QStringLiteral("failing (the cluster marked it failed)");
    if (line.has("fail?"))
        return QStringLiteral("suspected down (fail?)");
    if (line.has("handshake"))
        return QStringLiteral("joining (handshake)");
    if (line.has("noaddr"))
        return QStringLiteral("disconnected (no known address)");
    if (!line.has("myself") && line.linkState == "disconnected")
        return QStringLiteral("disconnected (the cluster bus link is down)");
    return {};
}

bool worthAsking(const NodeRow &row)
{
    return !row.link.startsWith(QLatin1String("failing")) && !row.link.startsWith(QLatin1String("disconnected (no"))
        && !row.link.startsWith(QLatin1String("joining"));
}

// Primaries by their first slot, each followed by its replicas (by address); replicas whose
// primary is not listed come last.
QList<NodeRow> ordered(const QList<NodeRow> &rows, const QHash<QString, int> &firstSlot)
{
    QList<NodeRow> primaries;
    QList<NodeRow> replicas;
    for (const NodeRow &r : rows)
        (r.primary ? primaries : replicas) << r;
    std::sort(primaries.begin(), primaries.end(), [&](const NodeRow &a, const NodeRow &b) {
        const int fa = firstSlot.value(a.address, cluster::kSlotCount);
        const int fb = firstSlot.value(b.address, cluster::kSlotCount);
        return fa != fb ? fa < fb : a.address < b.address;
    });
    std::sort(replicas.begin(), replicas.end(),
              [](const NodeRow &a, const NodeRow &b) { return a.address < b.address; });
    QList<NodeRow> out;
    for (const NodeRow &p : primaries) {
        out << p;
        for (const NodeRow &r : replicas)
            if (r.primaryAddress == p.address)
                out << r;
    }
    for (const NodeRow &r : replicas) {
        bool placed = false;
        for (const NodeRow &p : primaries)
            placed = placed || r.primaryAddress == p.address;
        if (!placed)
            out << r;
    }
    return out;
}

// Where this connection goes: the socket, the Sentinel's current primary, or host:port.
QString ownAddress(RedisClient *client)
{
    const ConnectionProfile &p = client->profile();
    if (p.usesUnixSocket())
        return p.socketPath;
    if (client->sentinel() && !p.sentinelReplica && !client->sentinel()->lastPrimary().isNull())
        return client->sentinel()->lastPrimary().toString();
    return cluster::Address{p.host, p.port}.toString();
}

} // namespace

TopologyReader::TopologyReader(RedisClient *client, QObject *parent)
    : PollingReader(client, kRefreshMs, WhileBusy::Skip, BeforeMatches::Read, parent)
{
    // The first round on screen comes as soon as the connection is up, not a poll later.
    connect(client, &RedisClient::ready, this, [this] {
        if (isPolling())
            refresh();
    });
}

TopologyReader::~TopologyReader() = default;

void TopologyReader::startRound()
{
    // Before the connection is up (and a cluster's map read) there is nothing to say yet.
    if (!m_client->isReady()) {
        roundDone();
        return;
    }
    if (m_client->cluster())
        readCluster();
    else if (m_client->sentinel())
        readSentinel();
    else
        readSingle();
}

void TopologyReader::readCluster()
{
    ClusterRouter *router = m_client->cluster();
    QPointer<TopologyReader> self(this);
    m_client->send({"CLUSTER", "NODES"}, context(), [self, router](const RedisReply &reply) {
        if (!self)
            return;
        const cluster::Topology &map = router->topology();
        QHash<QByteArray, NodesLine> lines;
        for (const NodesLine &l : parseClusterNodes(reply.value().bytes()))
            lines.insert(l.id, l);
        QHash<QByteArray, QString> addressOfId;
        for (const cluster::Node &n : map.nodes())
            addressOfId.insert(n.id, n.address.toString());
        auto rows = std::make_shared<QList<NodeRow>>();
        QHash<QString, int> firstSlot;
        for (const cluster::Node &n : map.nodes()) {
            NodeRow r;
            r.address = n.address.toString();
            if (n.announced != n.address)
                r.announced = n.announced.toString();
            r.id = n.id;
            r.primary = n.primary;
            r.primaryAddress = n.primary ? QString() : addressOfId.value(n.primaryId);
            r.slotCount = n.slotCount();
            r.slots = n.slotsText();
            if (n.firstSlot() < cluster::kSlotCount)
                firstSlot.insert(r.address, n.firstSlot());
            const auto line = lines.constFind(n.id);
            if (line != lines.cend())
                r.link = linkOf(*line);
            else if (!n.health.isEmpty() && n.health != "online")
                r.link = n.health == "fail" || n.health == "failed"
                    ? QStringLiteral("failing (the cluster marked it failed)")
                    : QString::fromUtf8(n.health);
            *rows << r;
        }
        // Nodes the cluster knows that the slot map leaves out (CLUSTER SLOTS lists no failed
        // primary and no node without slots): shown as the cluster names them, not asked.
        for (const NodesLine &l : std::as_const(lines)) {
            if (addressOfId.contains(l.id))
                continue;
            NodeRow r;
            r.address = l.announced.toString();
            r.id = l.id;
            r.primary = l.has("master");
            r.primaryAddress = addressOfId.value(l.primaryId);
            r.slotCount = 0;
            r.link = linkOf(l);
            if (r.link.isEmpty())
                r.link = QStringLiteral("not in the slot map");
            *rows << r;
        }
        auto left = std::make_shared<int>(1);
        auto infos = std::make_shared<QHash<QString, ServerInfo>>();
        auto finish = [self, rows, infos, firstSlot, router] {
            if (!self)
                return;
            // A replica's lag: its primary's offset minus its own, and the seconds since its last
            // acknowledgement as the primary's INFO says.
            QHash<QString, qint64> primaryOffset;
            QHash<QString, NodeRow> ack; // by "ip:port" as the primary lists its replicas
            for (const NodeRow &r : std::as_const(*rows)) {
                if (!r.primary || !infos->contains(r.address))
                    continue;
                primaryOffset.insert(r.address, r.replicationOffset);
                for (const NodeRow &a : replicasFromInfo(infos->value(r.address)))
                    ack.insert(a.address, a);
            }
            for (NodeRow &r : *rows) {
                if (r.primary)
                    continue;
                const qint64 po = primaryOffset.value(r.primaryAddress, -1);
                if (po >= 0 && r.replicationOffset >= 0)
                    r.lagBytes = qMax<qint64>(0, po - r.replicationOffset);
                const auto a = ack.constFind(r.announced.isEmpty() ? r.address : r.announced);
                if (a != ack.cend())
                    r.lagSeconds = a->lagSeconds;
            }
            Snapshot &s = self->m_snapshot;
            s.mode = Mode::Cluster;
            s.nodes = ordered(*rows, firstSlot);
            s.sentinels.clear();
            s.master = QString::fromLatin1(router->seedNodeId());
            s.coveredSlots = router->topology().coveredSlots();
            s.error.clear();
            if (s.keysPerSlot.size() != size_t(cluster::kSlotCount))
                s.keysPerSlot.assign(size_t(cluster::kSlotCount), -1);
            self->roundDone();
            self->maybeRecount();
        };
        for (NodeRow &r : *rows) {
            if (!worthAsking(r))
                continue;
            cluster::Address a;
            if (!cluster::parseAddress(r.address, &a))
                continue;
            RedisClient *node = router->clientFor(a);
            ++*left;
            const QString address = r.address;
            node->send(
                {"INFO"}, self,
                [self, rows, infos, left, address, finish](const RedisReply &info) {
                    for (NodeRow &row : *rows) {
                        if (row.address != address)
                            continue;
                        if (info.ok() && info.value().isString()) {
                            const ServerInfo parsed = ServerInfo::parse(info.value().bytes());
                            applyInfo(row, parsed);
                            infos->insert(address, parsed);
                        } else {
                            const RedisError e = info.firstError();
                            row.error = QStringLiteral("INFO: %1").arg(e ? e.message : QStringLiteral("no answer"));
                        }
                    }
                    if (--*left == 0)
                        finish();
                },
                kNodeTimeoutMs);
        }
        if (--*left == 0)
            finish();
    });
}

void TopologyReader::readSentinel()
{
    QPointer<TopologyReader> self(this);
    m_client->send({"INFO"}, context(), [self](const RedisReply &reply) {
        if (!self)
            return;
        const ServerInfo info = ServerInfo::parse(reply.value().bytes());
        QPointer<QObject> round = self->context();
        self->m_client->sentinel()->describe([self, info, round, reply](const SentinelReport &report) {
            if (!self || self->context() != round)
                return;
            Snapshot &s = self->m_snapshot;
            s.mode = Mode::Sentinel;
            s.master = self->m_client->profile().sentinelMaster;
            s.coveredSlots = -1;
            s.keysPerSlot.clear();
            s.hotSlots.clear();
            s.error = report.error;
            NodeRow primary;
            primary.address = report.master.isEmpty() ? ownAddress(self->m_client) : report.master;
            if (reply.ok() && reply.value().isString())
                applyInfo(primary, info);
            else
                primary.error = QStringLiteral("INFO: %1").arg(reply.firstError().message);
            if (report.masterFlags.contains("down"))
                primary.link = QStringLiteral("down (%1)").arg(QString::fromUtf8(report.masterFlags));
            QList<NodeRow> rows{primary};
            QHash<QString, NodeRow> ack;
            for (const NodeRow &a : replicasFromInfo(info))
                ack.insert(a.address, a);
            for (const SentinelReport::Replica &rep : report.replicas) {
                NodeRow r;
                r.primary = false;
                r.address = rep.address;
                r.primaryAddress = primary.address;
                r.replicationOffset = rep.offset;
                if (rep.offset >= 0 && primary.replicationOffset >= 0)
                    r.lagBytes = qMax<qint64>(0, primary.replicationOffset - rep.offset);
                if (const auto a = ack.constFind(rep.address); a != ack.cend())
                    r.lagSeconds = a->lagSeconds;
                if (rep.flags.contains("down"))
                    r.link = QStringLiteral("down (%1)").arg(QString::fromUtf8(rep.flags));
                else if (rep.linkDownMs > 0)
                    r.link = QStringLiteral("disconnected from its primary for %1 s").arg(rep.linkDownMs / 1000);
                rows << r;
            }
            s.nodes = rows;
            s.sentinels.clear();
            for (const SentinelReport::Sentinel &sen : report.sentinels)
                s.sentinels.append({sen.address, sen.flags});
            self->roundDone();
        });
    });
}

void TopologyReader::readSingle()
{
    QPointer<TopologyReader> self(this);
    m_client->send({"INFO"}, context(), [self](const RedisReply &reply) {
        if (!self)
            return;
        if (!reply.ok() || !reply.value().isString()) {
            self->fail(reply.firstError().message);
            return;
        }
        const ServerInfo info = ServerInfo::parse(reply.value().bytes());
        Snapshot &s = self->m_snapshot;
        s.mode = Mode::Single;
        s.master.clear();
        s.coveredSlots = -1;
        s.keysPerSlot.clear();
        s.hotSlots.clear();
        s.sentinels.clear();
        s.error.clear();
        NodeRow self_;
        self_.address = ownAddress(self->m_client);
        applyInfo(self_, info);
        QList<NodeRow> rows;
        if (info.value("role") == "slave") {
            // A replica: its primary first (not asked: this connection is to the replica).
            NodeRow primary;
            primary.address = QStringLiteral("%1:%2").arg(info.text("master_host"), info.text("master_port"));
            primary.link = QStringLiteral("not asked (this connection is to its replica)");
            self_.primary = false;
            self_.primaryAddress = primary.address;
            if (info.value("master_link_status") == "down")
                self_.link = QStringLiteral("disconnected from its primary for %1 s")
                                 .arg(info.integer("master_link_down_since_seconds", 0));
            rows << primary << self_;
        } else {
            rows << self_;
            for (NodeRow r : replicasFromInfo(info)) {
                r.primaryAddress = self_.address;
                rows << r;
            }
        }
        s.nodes = rows;
        self->roundDone();
    });
}

void TopologyReader::maybeRecount()
{
    if (!isPolling() || m_counting)
        return;
    if (m_snapshot.slotsCountedAtMs == 0 || m_sinceCount.hasExpired(kRecountAfterMs))
        countSlots();
}

void TopologyReader::countSlots()
{
    ClusterRouter *router = m_client->cluster();
    if (!router || m_counting || !router->hasTopology())
        return;
    m_counting = new QObject(this);
    m_slotsCounted = 0;
    if (m_snapshot.keysPerSlot.size() != size_t(cluster::kSlotCount))
        m_snapshot.keysPerSlot.assign(size_t(cluster::kSlotCount), -1);
    // Each slot is asked of its owner: COUNTKEYSINSLOT counts what the node it reaches holds.
    QHash<RedisClient *, QList<int>> byOwner;
    for (int s = 0; s < cluster::kSlotCount; ++s) {
        if (RedisClient *owner = router->clientForSlot(s))
            byOwner[owner] << s;
        else
            m_snapshot.keysPerSlot[size_t(s)] = -1;
    }
    m_countingNodes = int(byOwner.size());
    if (m_countingNodes == 0) {
        endCount();
        return;
    }
    for (auto it = byOwner.cbegin(); it != byOwner.cend(); ++it)
        countNext(it.key(), std::make_shared<QList<int>>(it.value()), 0);
}

void TopologyReader::countNext(RedisClient *node, const std::shared_ptr<QList<int>> &slots, qsizetype from)
{
    const QList<int> part = slots->mid(from, kSlotsPerBatch);
    QList<RedisCommand> commands;
    commands.reserve(part.size());
    for (int s : part)
        commands.append({"CLUSTER", "COUNTKEYSINSLOT", QByteArray::number(s)});
    QPointer<TopologyReader> self(this);
    QPointer<RedisClient> target(node);
    node->sendBatch(
        commands, m_counting,
        [self, target, slots, from, part](const RedisReply &r) {
            if (!self)
                return;
            for (qsizetype i = 0; i < part.size(); ++i) {
                const RedisValue &v = r.value(i);
                self->m_snapshot.keysPerSlot[size_t(part.at(i))] = v.isInteger() ? v.toInteger() : -1;
            }
            self->m_slotsCounted += int(part.size());
            Q_EMIT self->slotsChanged();
            const qsizetype next = from + part.size();
            if (next < slots->size() && target) {
                QTimer::singleShot(kBatchPauseMs, self->m_counting, [self, target, slots, next] {
                    if (self && target)
                        self->countNext(target, slots, next);
                });
                return;
            }
            if (--self->m_countingNodes == 0)
                self->sampleHotSlots();
        },
        kNodeTimeoutMs * 3);
}

void TopologyReader::sampleHotSlots()
{
    ClusterRouter *router = m_client->cluster();
    const QList<int> hot = hottestSlots(m_snapshot.keysPerSlot, kHotSlots, 64, 8.0);
    auto found = std::make_shared<QList<HotSlot>>();
    auto left = std::make_shared<int>(1);
    QPointer<TopologyReader> self(this);
    auto done = [self, found] {
        if (!self)
            return;
        std::stable_sort(found->begin(), found->end(),
                         [](const HotSlot &a, const HotSlot &b) { return a.keys > b.keys; });
        self->m_snapshot.hotSlots = *found;
        self->endCount();
    };
    for (int slot : hot) {
        RedisClient *owner = router ? router->clientForSlot(slot) : nullptr;
        if (!owner)
            continue;
        HotSlot h;
        h.slot = slot;
        h.keys = m_snapshot.keysPerSlot[size_t(slot)];
        h.node = router->ownerOf(slot)->address.toString();
        ++*left;
        owner->send(
            {"CLUSTER", "GETKEYSINSLOT", QByteArray::number(slot), QByteArray::number(kSampledKeys)}, m_counting,
            [h, found, left, done](const RedisReply &r) mutable {
                QList<QByteArray> keys;
                for (const RedisValue &k : r.value().elements())
                    keys << k.bytes();
                const auto [tag, count] = commonestTag(keys);
                h.tag = tag;
                h.tagged = count;
                h.sampled = int(keys.size());
                *found << h;
                if (--*left == 0)
                    done();
            },
            kNodeTimeoutMs);
    }
    if (--*left == 0)
        done();
}

void TopologyReader::endCount()
{
    m_snapshot.slotsCountedAtMs = QDateTime::currentMSecsSinceEpoch();
    m_sinceCount.start();
    if (m_counting) {
        m_counting->deleteLater();
        m_counting = nullptr;
    }
    Q_EMIT slotsChanged();
}
