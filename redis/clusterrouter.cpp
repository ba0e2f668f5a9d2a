// SPDX-License-Identifier: GPL-3.0-or-later
#include "clusterrouter.h"

#include "clusterkeys.h"
#include "threadcheck.h"

#include <QTimer>
#include <limits>
#include <numeric>

using namespace cluster;

namespace {
// A command follows at most this many redirections, as redis-cli and the client libraries do.
constexpr int kMaxRedirects = 5;
// TRYAGAIN (a multi-key command during a migration) and CLUSTERDOWN (no majority yet, or a slot
// without owner during a failover): retried after 50, 100, 200, … ms, at most this many times.
constexpr int kMaxRetries = 8;
constexpr int kRetryBaseMs = 50;
// A node connection that is down makes the map suspect: read it again this often until all are up.
constexpr int kHealthIntervalMs = 1000;
// Several MOVED in a moment (a resharding) lead to one read of the map.
constexpr int kRefreshCoalesceMs = 100;

// Commands without keys whose effect every primary needs: SCRIPT LOAD caches a script on the node
// it reaches, and the EVALSHA that follows goes to whichever node owns its keys.
bool isForEveryPrimary(const RedisCommand &argv)
{
    return argv.size() >= 2 && argv.at(0).compare("SCRIPT", Qt::CaseInsensitive) == 0
        && argv.at(1).compare("LOAD", Qt::CaseInsensitive) == 0;
}
} // namespace

struct ClusterRouter::Request
{
    QPointer<QObject> context;
    Callback callback;
    QList<RedisCommand> commands;
    QList<RedisValue> values;
    QList<quint8> redirects; // per command
    QList<quint8> retries; // per command
    QList<bool> resolved;
    // Commands sent to every primary (SCRIPT LOAD): answers still to come.
    QHash<int, int> broadcastLeft;
    int remaining = 0;
    int timeoutMs = -1;
    RedisError error;
    QElapsedTimer clock;
    QList<QPair<QPointer<RedisClient>, RequestId>> inner;
};

ClusterRouter::ClusterRouter(RedisClient *seed) : QObject(seed), m_seed(seed)
{
    const ConnectionProfile &p = seed->profile();
    QString error;
    m_map.parse(p.clusterAddressMap, &error); // checked when the profile was made
    m_map.setSeedHost(p.host);
    m_map.setKeepSeedHost(p.clusterKeepSeedHost);
    m_refreshTimer = new QTimer(this);
    m_refreshTimer->setSingleShot(true);
    m_refreshTimer->setInterval(kRefreshCoalesceMs);
    connect(m_refreshTimer, &QTimer::timeout, this, [this] { refresh(); });
    m_healthTimer = new QTimer(this);
    m_healthTimer->setInterval(kHealthIntervalMs);
    connect(m_healthTimer, &QTimer::timeout, this, [this] {
        bool allUp = true;
        for (const Node &n : m_topology.primaries()) {
            RedisClient *c = m_clients.value(n.address);
            allUp = allUp && c && c->state() != RedisClient::State::Backoff
                && c->state() != RedisClient::State::Disconnected;
        }
        // Slots without an owner: a primary failed and its replica is not promoted yet.
        if (allUp && m_topology.coveredSlots() == kSlotCount)
            m_healthTimer->stop();
        else
            refresh();
    });
}

ClusterRouter::~ClusterRouter()
{
    qDeleteAll(m_requests);
}

RedisClient *ClusterRouter::liveNode() const
{
    // The seed; while it is down (it failed over, say), a primary that is up.
    if (m_seed->isReady())
        return m_seed;
    for (const Node &n : m_topology.primaries())
        if (RedisClient *c = m_clients.value(n.address); c && c->isReady())
            return c;
    return nullptr;
}

RedisClient *ClusterRouter::seedTarget() const
{
    RedisClient *live = liveNode();
    return live ? live : m_seed;
}

RequestId ClusterRouter::sendOn(RedisClient *target, const QList<RedisCommand> &commands, const Callback &callback,
                                int timeoutMs)
{
    // The seed's own connection, not its routing: this router is what routes it.
    return target == m_seed ? m_seed->sendDirect(commands, this, callback, timeoutMs)
                            : target->sendBatch(commands, this, callback, timeoutMs);
}

bool ClusterRouter::adoptMap(const RedisValue &shards, const RedisValue &slots, QString *error)
{
    if (!readTopology(shards, slots, error))
        return false;
    for (const Node &n : m_topology.primaries())
        clientFor(n.address);
    return true;
}

void ClusterRouter::start(const std::function<void(const QString &)> &done)
{
    QPointer<ClusterRouter> self(this);
    m_seed->sendDirect({{"CLUSTER", "MYID"}, {"CLUSTER", "SHARDS"}, {"CLUSTER", "SLOTS"}}, this,
                       [self, done](const RedisReply &r) {
                           if (!self)
                               return;
                           if (const RedisError notCluster = r.error ? r.error : RedisError::fromReply(r.value(0))) {
                               done(notCluster.message);
                               return;
                           }
                           self->m_seedId = r.value(0).bytes();
                           QString error;
                           done(self->adoptMap(r.value(1), r.value(2), &error) ? QString() : error);
                       });
}

bool ClusterRouter::readTopology(const RedisValue &shards, const RedisValue &slots, QString *error)
{
    Topology next;
    // CLUSTER SHARDS is 7.0+; before that (or when an ACL refuses it) CLUSTER SLOTS says the same,
    // and is the one asked from then on.
    if (shards.isError())
        m_mapBySlots = true;
    const bool byShards = !m_mapBySlots && shards.isArray() && next.readShards(shards, m_map, error);
    if (!byShards && !next.readSlots(slots, m_map, error))
        return false;
    m_mapBySlots = !byShards;
    if (next.coveredSlots() == 0) {
        if (error)
            *error = QStringLiteral("the cluster has no slots assigned yet");
        return false;
    }
    // Another cluster behind the same address (a reconnect after a redeploy): no node in common.
    if (!m_topology.isEmpty()) {
        bool shared = false;
        for (const Node &a : next.nodes())
            for (const Node &b : m_topology.nodes())
                shared = shared || (!a.id.isEmpty() && a.id == b.id);
        if (!shared)
            Q_EMIT clusterReplaced(
                QStringLiteral("the nodes at %1 belong to another cluster").arg(m_seed->profile().displayName()));
    }
    bool changed = m_topology.isEmpty();
    for (int s = 0; s < kSlotCount && !changed; ++s) {
        const Node *a = next.ownerOf(s);
        const Node *b = m_topology.ownerOf(s);
        changed = (a == nullptr) != (b == nullptr) || (a && b && a->address != b->address);
    }
    changed = changed || next.nodes().size() != m_topology.nodes().size();
    m_topology = next;
    if (changed)
        Q_EMIT topologyChanged();
    return true;
}

void ClusterRouter::refresh(std::function<void()> done)
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    if (done)
        m_refreshWaiters << std::move(done);
    if (m_refreshing)
        return;
    m_refreshTimer->stop();
    auto finishRefresh = [this] {
        m_refreshing = false;
        const auto waiters = std::exchange(m_refreshWaiters, {});
        for (const auto &w : waiters)
            w();
    };
    RedisClient *source = liveNode();
    if (!source) {
        setNotice(QStringLiteral("no node of the cluster answers; trying again"));
        m_healthTimer->start();
        finishRefresh();
        return;
    }
    m_refreshing = true;
    QPointer<ClusterRouter> self(this);
    const RedisCommand map = m_mapBySlots ? RedisCommand{"CLUSTER", "SLOTS"} : RedisCommand{"CLUSTER", "SHARDS"};
    sendOn(source, {map}, [self, finishRefresh](const RedisReply &r) {
        if (!self)
            return;
        // Only the map command known to work was asked (see readTopology).
        const bool bySlots = self->m_mapBySlots;
        QString error = r.error.message;
        if (r.error || !self->adoptMap(bySlots ? RedisValue() : r.value(), bySlots ? r.value() : RedisValue(), &error))
            self->setNotice(QStringLiteral("could not read the slot map: %1").arg(error));
        // Keep looking while a primary is unreachable: a failover is under way.
        self->m_healthTimer->start();
        finishRefresh();
    });
}

RedisClient *ClusterRouter::clientFor(const Address &address)
{
    if (RedisClient *c = m_clients.value(address))
        return c;
    const ConnectionProfile &seed = m_seed->profile();
    auto *c = new RedisClient(seed.atAddress(address.host, address.port,
                                             QStringLiteral("%1 %2").arg(seed.name, address.toString()).trimmed()),
                              this);
    connect(c, &RedisClient::stateChanged, this, [this](RedisClient::State state) {
        if (state == RedisClient::State::Backoff || state == RedisClient::State::Disconnected)
            m_healthTimer->start();
    });
    connect(c, &RedisClient::connectionError, this, [this, address](const RedisError &e) {
        QString node = address.toString();
        for (const Node &n : m_topology.nodes())
            if (n.address == address && n.announced != address)
                node = QStringLiteral("%1 (announced as %2)").arg(address.toString(), n.announced.toString());
        setNotice(QStringLiteral("cluster node %1: %2").arg(node, e.message));
        Q_EMIT nodeError(node, e);
    });
    m_clients.insert(address, c);
    c->connectToServer();
    return c;
}

RedisClient *ClusterRouter::clientForSlot(int slot)
{
    const Node *owner = m_topology.ownerOf(slot);
    return owner ? clientFor(owner->address) : nullptr;
}

QList<RedisClient *> ClusterRouter::primaryClients()
{
    QList<RedisClient *> out;
    for (const Node &n : m_topology.primaries())
        out << clientFor(n.address);
    return out;
}

QList<RedisClient *> ClusterRouter::scanClients(bool replicas)
{
    QList<RedisClient *> out;
    for (const Node &n : m_topology.primaries()) {
        Address walker = n.address;
        qint64 bestOffset = std::numeric_limits<qint64>::min();
        if (replicas) {
            for (const Node &r : m_topology.replicasOf(n.id)) {
                if (r.health == "failed" || r.health == "loading" || r.address.isNull())
                    continue;
                if (r.replicationOffset > bestOffset) {
                    bestOffset = r.replicationOffset;
                    walker = r.address;
                }
            }
        }
        out << clientFor(walker);
    }
    return out;
}

QSet<int> ClusterRouter::slotsRedirectedSince(quint64 mark) const
{
    QSet<int> out;
    for (auto it = m_redirectedAt.cbegin(); it != m_redirectedAt.cend(); ++it)
        if (it.value() > mark)
            out.insert(it.key());
    return out;
}

void ClusterRouter::setNotice(const QString &text)
{
    m_notice = text;
    Q_EMIT notice(text);
}

RequestId ClusterRouter::sendBatch(const QList<RedisCommand> &commands, QObject *context, Callback callback,
                                   int timeoutMs)
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    const RequestId id = nextRequestId();
    auto *r = new Request;
    r->context = context;
    r->callback = std::move(callback);
    r->commands = commands;
    r->values.resize(commands.size());
    r->redirects.fill(0, commands.size());
    r->retries.fill(0, commands.size());
    r->resolved.fill(false, commands.size());
    r->remaining = int(commands.size());
    r->timeoutMs = timeoutMs;
    r->clock.start();
    m_requests.insert(id, r);
    if (commands.isEmpty()) {
        QTimer::singleShot(0, this, [this, id] { finish(id); });
        return id;
    }
    QList<int> all(commands.size());
    std::iota(all.begin(), all.end(), 0);
    dispatch(id, all);
    return id;
}

void ClusterRouter::dispatch(RequestId id, const QList<int> &indexes)
{
    Request *r = m_requests.value(id);
    if (!r)
        return;
    // Grouped by node, each group in the batch's order: one pipeline per node.
    QList<QPair<RedisClient *, QList<int>>> groups;
    const auto addTo = [&groups](RedisClient *target, int i) {
        auto it = std::find_if(groups.begin(), groups.end(), [&](const auto &g) { return g.first == target; });
        if (it == groups.end())
            groups.append({target, {i}});
        else
            it->second << i;
    };
    for (int i : indexes) {
        if (isForEveryPrimary(r->commands.at(i))) {
            const QList<RedisClient *> primaries = primaryClients();
            if (!primaries.isEmpty()) {
                r->broadcastLeft.insert(i, int(primaries.size()));
                for (RedisClient *target : primaries)
                    addTo(target, i);
                continue;
            }
        }
        const int slot = commandSlot(r->commands.at(i));
        // CROSSSLOT: sent to the first key's owner, which explains it.
        const int routeSlot
            = slot == -2 ? int(keySlot(r->commands.at(i).at(keyPositions(r->commands.at(i)).first()))) : slot;
        RedisClient *target = routeSlot >= 0 ? clientForSlot(routeSlot) : seedTarget();
        if (!target)
            target = seedTarget(); // an uncovered slot: the server answers CLUSTERDOWN
        addTo(target, i);
    }
    for (const auto &g : groups)
        sendTo(id, g.first, g.second, false);
}

void ClusterRouter::sendTo(RequestId id, RedisClient *target, const QList<int> &indexes, bool asking)
{
    Request *r = m_requests.value(id);
    if (!r)
        return;
    QList<RedisCommand> part;
    if (asking)
        part << RedisCommand{"ASKING"};
    for (int i : indexes)
        part << r->commands.at(i);
    QPointer<ClusterRouter> self(this);
    auto onReply = [self, id, indexes, asking](const RedisReply &reply) {
        if (self)
            self->onPart(id, indexes, asking, reply);
    };
    const RequestId inner = sendOn(target, part, onReply, r->timeoutMs);
    r->inner.append({QPointer<RedisClient>(target), inner});
}

void ClusterRouter::onPart(RequestId id, const QList<int> &indexes, bool asking, const RedisReply &reply)
{
    Request *r = m_requests.value(id);
    if (!r)
        return;
    const int offset = asking ? 1 : 0;
    if (reply.error) {
        // The node is gone or did not answer: what arrived counts, the rest fails with the reason.
        if (!r->error)
            r->error = reply.error;
        if (reply.error.isConnectionLevel())
            refresh();
        for (qsizetype k = 0; k < indexes.size(); ++k) {
            const qsizetype at = k + offset;
            resolve(id, indexes.at(k),
                    at < reply.values.size() ? reply.values.at(at) : RedisValue::error(reply.error.message.toUtf8()));
        }
        return;
    }
    for (qsizetype k = 0; k < indexes.size(); ++k) {
        const int i = indexes.at(k);
        const RedisValue &v = reply.values.value(k + offset);
        const RedisError e = RedisError::fromReply(v);
        if ((e.kind == RedisError::Kind::Moved || e.kind == RedisError::Kind::Ask) && r->redirects[i] < kMaxRedirects) {
            const Redirect to = Redirect::parse(v.bytes());
            if (to.kind != Redirect::Kind::None) {
                ++r->redirects[i];
                m_redirectedAt.insert(to.slot, ++m_redirectCount);
                const Address address = m_map.map(to.address);
                if (to.kind == Redirect::Kind::Moved) {
                    if (m_topology.moveSlot(to.slot, address))
                        Q_EMIT topologyChanged();
                    m_refreshTimer->start(); // the whole map has probably changed
                    setNotice(QStringLiteral("slot %1 moved to %2").arg(to.slot).arg(address.toString()));
                    sendTo(id, clientFor(address), {i}, false);
                } else {
                    sendTo(id, clientFor(address), {i}, true);
                }
                continue;
            }
        }
        const bool transient = e.kind == RedisError::Kind::ClusterDown || e.code == "TRYAGAIN";
        if (transient && r->retries[i] < kMaxRetries && !r->broadcastLeft.contains(i)) {
            const int delay = kRetryBaseMs << r->retries[i];
            ++r->retries[i];
            setNotice(QStringLiteral("%1; retrying in %2 ms").arg(e.message).arg(delay));
            if (e.kind == RedisError::Kind::ClusterDown)
                m_refreshTimer->start();
            QPointer<ClusterRouter> self(this);
            QTimer::singleShot(delay, this, [self, id, i] {
                if (self)
                    self->dispatch(id, {i});
            });
            continue;
        }
        resolve(id, i, v);
    }
}

void ClusterRouter::resolve(RequestId id, int index, const RedisValue &value)
{
    Request *r = m_requests.value(id);
    if (!r || r->resolved[index])
        return;
    RedisValue answer = value;
    if (auto left = r->broadcastLeft.find(index); left != r->broadcastLeft.end()) {
        // Sent to every primary: the first error, else the first answer, once all have answered
        // (values[index] is invalid until an answer is kept).
        if (!r->values[index].isValid() || (value.isError() && !r->values[index].isError()))
            r->values[index] = value;
        if (--left.value() > 0)
            return;
        answer = r->values[index];
    }
    r->resolved[index] = true;
    r->values[index] = answer;
    if (--r->remaining == 0)
        finish(id);
}

void ClusterRouter::finish(RequestId id)
{
    Request *r = m_requests.take(id);
    if (!r)
        return;
    RedisReply reply;
    reply.id = id;
    reply.values = std::move(r->values);
    reply.error = r->error;
    reply.elapsedUs = r->clock.nsecsElapsed() / 1000;
    const QPointer<QObject> context = r->context;
    const Callback callback = std::move(r->callback);
    delete r;
    if (context && callback)
        callback(reply);
}

void ClusterRouter::cancel(RequestId id)
{
    Request *r = m_requests.take(id);
    if (!r)
        return;
    for (const auto &in : std::as_const(r->inner))
        if (in.first)
            in.first == m_seed ? m_seed->cancelDirect(in.second) : in.first->cancel(in.second);
    delete r;
}
