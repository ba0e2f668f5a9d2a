// SPDX-License-Identifier: GPL-3.0-or-later
#include "clusterscan_p.h"

#include "clusterrouter.h"
#include "glob.h"
#include "redisclient.h"

#include <QDateTime>
#include <QTimer>
#include <algorithm>

using namespace cluster;

namespace {
// CLUSTER COUNTKEYSINSLOT / GETKEYSINSLOT commands per pipeline while sweeping.
constexpr int kSweepBatch = 256;
// How long a walk whose nodes are all done waits for slots without an owner to get one (a
// failover takes the cluster's node timeout, 15 s by default, and an election).
constexpr int kOwnerWaitMs = 60000;

// The slots a node's own line of CLUSTER NODES marks as migrating ("[93->-<id>]") or
// importing ("[93-<-<id>]").
QList<int> slotsInMotion(const QByteArray &nodes)
{
    QList<int> out;
    for (const QByteArray &line : nodes.split('\n')) {
        if (!line.contains("myself"))
            continue;
        for (const QByteArray &field : line.split(' ')) {
            if (!field.startsWith('['))
                continue;
            const qsizetype dash = field.indexOf('-');
            bool ok = false;
            const int slot = field.mid(1, dash - 1).toInt(&ok);
            if (ok)
                out << slot;
        }
    }
    return out;
}
} // namespace

ClusterScan::ClusterScan(ClusterRouter *router, const ScanOptions &options, quint64 generation, QObject *parent)
    : QObject(parent), m_router(router), m_options(options), m_generation(generation)
{ }

void ClusterScan::start()
{
    m_ownerAtStart.resize(kSlotCount);
    for (int s = 0; s < kSlotCount; ++s)
        if (const Node *n = m_router->ownerOf(s))
            m_ownerAtStart[s] = n->address;
    m_redirectMark = m_router->redirectMark();
    connect(m_router, &ClusterRouter::topologyChanged, this, &ClusterScan::onTopologyChanged);
    for (RedisClient *c : m_router->scanClients(m_options.replicas))
        startNode(c);
}

void ClusterScan::startNode(RedisClient *client)
{
    if (m_nodes.contains(client))
        return;
    auto *scanner = new KeyScanner(client, this);
    m_nodes[client].scanner = scanner;
    if (m_options.replicas) {
        // A replica answers reads of its primary's keys (TYPE, PTTL) only after READONLY, and
        // again after each reconnect. A shard walked on its primary takes it harmlessly.
        const auto readOnly = [this, client] { client->send({"READONLY"}, this, [](const RedisReply &) {}); };
        connect(client, &RedisClient::ready, this, readOnly);
        readOnly();
    }
    connect(scanner, &KeyScanner::batchAvailable, this, [this](ScanBatch batch) {
        batch.generation = m_generation;
        Q_EMIT batchAvailable(batch);
    });
    connect(scanner, &KeyScanner::progressChanged, this, [this, client](const ScanProgress &p) {
        m_nodes[client].progress = p;
        if (!m_finished)
            Q_EMIT progressChanged(merged());
    });
    connect(scanner, &KeyScanner::finished, this, [this, client](const ScanProgress &p) {
        NodeScan &n = m_nodes[client];
        n.progress = p;
        n.done = true;
        if (p.error && p.error.kind != RedisError::Kind::Cancelled && !m_error)
            m_error = p.error;
        onNodeFinished();
    });
    scanner->start(m_options);
    if (m_paused)
        scanner->pause();
}

void ClusterScan::onTopologyChanged()
{
    if (m_finished)
        return;
    // A node that walks a shard now (a failover promoted a replica, a node joined, another replica
    // was chosen) is walked whole; one that no longer does stops: its keys are another's now.
    const QList<RedisClient *> walkers = m_router->scanClients(m_options.replicas);
    if (!m_sweeping)
        for (RedisClient *c : walkers)
            startNode(c);
    for (auto it = m_nodes.begin(); it != m_nodes.end(); ++it) {
        if (!walkers.contains(it.key()) && !it->done) {
            it->done = true;
            it->scanner->cancel();
        }
    }
    onNodeFinished();
}

void ClusterScan::onNodeFinished()
{
    if (m_sweeping || m_finished)
        return;
    for (const NodeScan &n : std::as_const(m_nodes))
        if (!n.done)
            return;
    const QList<int> orphaned = orphanedSlots();
    if (!orphaned.isEmpty() && !m_ownerWaitOver) {
        if (!m_ownerWait) {
            m_ownerWait = new QTimer(this);
            m_ownerWait->setSingleShot(true);
            connect(m_ownerWait, &QTimer::timeout, this, [this] {
                m_ownerWaitOver = true;
                onNodeFinished();
            });
            m_ownerWait->start(kOwnerWaitMs);
        }
        m_waitReason = RedisError::make(
            RedisError::Kind::ClusterDown,
            QStringLiteral("no primary owns slots %1 yet; waiting for a failover").arg(slotRangesText(orphaned)));
        Q_EMIT progressChanged(merged());
        return;
    }
    if (m_ownerWait)
        m_ownerWait->stop();
    m_waitReason = {};
    if (!orphaned.isEmpty())
        m_error = RedisError::make(
            RedisError::Kind::ClusterDown,
            QStringLiteral("no primary owned slots %1; their keys were not read").arg(slotRangesText(orphaned)));
    sweep();
}

QList<int> ClusterScan::orphanedSlots() const
{
    QList<int> out;
    for (int s = 0; s < kSlotCount; ++s)
        if (!m_ownerAtStart.at(s).isNull() && !m_router->ownerOf(s))
            out << s;
    return out;
}

void ClusterScan::setPaused(bool paused)
{
    m_paused = paused;
    for (const NodeScan &n : std::as_const(m_nodes)) {
        if (n.done)
            continue;
        if (paused)
            n.scanner->pause();
        else
            n.scanner->resume();
    }
    Q_EMIT progressChanged(merged());
}

void ClusterScan::halt()
{
    m_finished = true;
    for (const NodeScan &n : std::as_const(m_nodes)) {
        n.scanner->disconnect(this);
        n.scanner->cancel();
    }
}

void ClusterScan::sweep()
{
    m_sweeping = true;
    Q_EMIT progressChanged(merged());
    QPointer<ClusterScan> self(this);
    m_router->refresh([self] {
        if (!self)
            return;
        // Slots whose owner changed, that answered MOVED or ASK, or that a primary says are
        // still moving: their keys may have moved past a cursor.
        QSet<int> slots = self->m_router->slotsRedirectedSince(self->m_redirectMark);
        for (int s = 0; s < kSlotCount; ++s) {
            const Node *n = self->m_router->ownerOf(s);
            const Address now = n ? n->address : Address();
            if (now != self->m_ownerAtStart.at(s))
                slots.insert(s);
        }
        const QList<RedisClient *> primaries = self->m_router->primaryClients();
        auto remaining = std::make_shared<int>(int(primaries.size()));
        auto moving = std::make_shared<QSet<int>>(slots);
        if (primaries.isEmpty()) {
            self->finish();
            return;
        }
        for (RedisClient *c : primaries) {
            c->send({"CLUSTER", "NODES"}, self, [self, remaining, moving](const RedisReply &r) {
                for (int s : slotsInMotion(r.value().bytes()))
                    moving->insert(s);
                if (--*remaining == 0) {
                    QList<int> sorted(moving->cbegin(), moving->cend());
                    std::sort(sorted.begin(), sorted.end());
                    self->sweepSlots(sorted);
                }
            });
        }
    });
}

void ClusterScan::sweepSlots(const QList<int> &slots)
{
    if (slots.isEmpty()) {
        finish();
        return;
    }
    // Every primary holds some keys of a slot in motion (the source what has not moved yet, the
    // target what has): ask each what it holds, a pipeline of slots at a time.
    const QList<RedisClient *> primaries = m_router->primaryClients();
    QPointer<ClusterScan> self(this);
    for (RedisClient *c : primaries) {
        for (qsizetype from = 0; from < slots.size(); from += kSweepBatch) {
            const QList<int> part = slots.mid(from, kSweepBatch);
            QList<RedisCommand> counts;
            for (int s : part)
                counts.append({"CLUSTER", "COUNTKEYSINSLOT", QByteArray::number(s)});
            ++m_sweepOutstanding;
            c->sendBatch(counts, this, [self, c, part](const RedisReply &r) {
                if (!self)
                    return;
                QList<RedisCommand> gets;
                for (qsizetype i = 0; i < part.size(); ++i) {
                    const qint64 n = r.value(i).isInteger() ? r.value(i).toInteger() : 0;
                    if (n > 0)
                        gets.append(
                            {"CLUSTER", "GETKEYSINSLOT", QByteArray::number(part.at(i)), QByteArray::number(n)});
                }
                if (gets.isEmpty() || !c) {
                    if (--self->m_sweepOutstanding == 0)
                        self->finish();
                    return;
                }
                c->sendBatch(gets, self, [self](const RedisReply &keys) {
                    if (!self)
                        return;
                    QList<QByteArray> names;
                    for (const RedisValue &v : keys.values)
                        for (const RedisValue &k : v.elements())
                            if (self->m_options.match.isEmpty() || globMatch(self->m_options.match, k.bytes()))
                                names << k.bytes();
                    self->fetchDetails(names);
                    if (--self->m_sweepOutstanding == 0)
                        self->finish();
                });
            });
        }
    }
    if (m_sweepOutstanding == 0)
        finish();
}

void ClusterScan::fetchDetails(const QList<QByteArray> &names)
{
    if (names.isEmpty())
        return;
    m_swept += quint64(names.size());
    const KeyType wanted = m_options.type;
    if (!m_options.details && wanted == KeyType::Unknown) {
        ScanBatch batch;
        batch.generation = m_generation;
        for (const QByteArray &n : names)
            batch.keys.append({n});
        Q_EMIT batchAvailable(batch);
        return;
    }
    // TYPE and PTTL through the router: a key still importing answers ASK, which it follows.
    QList<RedisCommand> commands;
    for (const QByteArray &n : names) {
        commands.append({"TYPE", n});
        commands.append({"PTTL", n});
    }
    ++m_sweepOutstanding;
    QPointer<ClusterScan> self(this);
    m_router->sendBatch(
        commands, this,
        [self, names, wanted](const RedisReply &r) {
            if (!self)
                return;
            ScanBatch batch;
            batch.generation = self->m_generation;
            batch.capturedAtMs = QDateTime::currentMSecsSinceEpoch();
            for (qsizetype i = 0; i < names.size(); ++i) {
                ScannedKey k;
                k.name = names.at(i);
                k.type = keyTypeFromReply(r.value(2 * i).bytes());
                if (k.type == KeyType::None)
                    continue; // gone since
                if (wanted != KeyType::Unknown && k.type != wanted)
                    continue;
                if (self->m_options.ttl)
                    k.pttlMs = ttl::fromReply(r.value(2 * i + 1));
                batch.keys.append(k);
            }
            if (!batch.keys.isEmpty())
                Q_EMIT self->batchAvailable(batch);
            if (--self->m_sweepOutstanding == 0)
                self->finish();
        },
        -1);
}

void ClusterScan::finish()
{
    if (m_finished || m_sweepOutstanding > 0)
        return;
    m_finished = true;
    m_sweeping = false;
    ScanProgress p = merged();
    p.finished = true;
    Q_EMIT finished(p);
}

ScanProgress ClusterScan::merged() const
{
    ScanProgress out;
    out.generation = m_generation;
    out.dbsize = 0;
    bool anySize = false;
    for (auto it = m_nodes.cbegin(); it != m_nodes.cend(); ++it) {
        const NodeScan &n = it.value();
        const ScanProgress &p = n.progress;
        const ConnectionProfile &node = it.key()->profile();
        out.perNode.append({cluster::Address{node.host, node.port}.toString(), p.returned, p.dbsize, n.done,
                            !n.done && p.waitingForConnection,
                            // A node handed over to its successor was cancelled: not a problem.
                            p.error && p.error.kind != RedisError::Kind::Cancelled ? p.error.message : QString()});
        out.returned += p.returned;
        out.vanished += p.vanished;
        if (p.dbsize >= 0) {
            out.dbsize += p.dbsize;
            anySize = true;
        }
        out.keysPerSecond += n.done ? 0 : p.keysPerSecond;
        out.commandsPerSecond += n.done ? 0 : p.commandsPerSecond;
        out.ceiling += p.ceiling;
        out.count = qMax(out.count, p.count);
        out.adaptive = out.adaptive || p.adaptive;
        if (out.paceReason.isEmpty() && !n.done)
            out.paceReason = p.paceReason;
        out.elapsedSeconds = qMax(out.elapsedSeconds, p.elapsedSeconds);
        out.waitingForConnection = out.waitingForConnection || (!n.done && p.waitingForConnection);
        if (!out.error && !n.done && p.error)
            out.error = p.error;
        ++out.nodes;
        out.nodesDone += n.done ? 1 : 0;
    }
    std::sort(out.perNode.begin(), out.perNode.end(), [](const NodeScanProgress &a, const NodeScanProgress &b) {
        return a.address.size() != b.address.size() ? a.address.size() < b.address.size() : a.address < b.address;
    });
    out.returned += m_swept;
    if (!anySize)
        out.dbsize = -1;
    if (!out.error)
        out.error = m_error;
    if (m_waitReason) {
        out.waitingForConnection = true;
        out.error = m_waitReason;
    }
    out.paused = m_paused;
    out.sweeping = m_sweeping;
    return out;
}
