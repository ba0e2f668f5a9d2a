// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clustertopology.h"
#include "redisclient.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QSet>

class QTimer;

// The cluster half of a RedisClient whose profile says `cluster`: it reads the slot map from the
// seed, keeps one connection per node (each on its own worker thread, with the profile's
// credentials, TLS, tunnel and read-only setting), and sends every command to the node that owns
// its keys. Batches are split by node and answered in their order. MOVED updates the map and the
// command goes again; ASK is followed with ASKING; TRYAGAIN and CLUSTERDOWN are retried with
// backoff, and said in notice(). Commands without keys go to the seed, except SCRIPT LOAD,
// which every primary gets (the EVALSHA after it may go to any of them).
class ClusterRouter : public QObject
{
    Q_OBJECT
public:
    using Callback = RedisClient::Callback;
    // 'seed' is the RedisClient this router belongs to; its own connection is the seed's.
    explicit ClusterRouter(RedisClient *seed);
    ~ClusterRouter() override;

    // Reads the slot map (CLUSTER SHARDS, or CLUSTER SLOTS before 7.0) and connects to every
    // primary; 'done' gets an empty string, or why the server is not a usable cluster.
    void start(const std::function<void(const QString &error)> &done);
    bool hasTopology() const { return !m_topology.isEmpty(); }
    const cluster::Topology &topology() const { return m_topology; }
    // The seed's CLUSTER MYID and the node count, for the banner.
    QByteArray seedNodeId() const { return m_seedId; }
    // Connections to the primaries, in the order of the slot map (connected on demand).
    QList<RedisClient *> primaryClients();
    RedisClient *clientFor(const cluster::Address &address);
    // Who walks each primary's keys in a scan: the primary, or with 'replicas' its healthiest
    // replica (not failed or loading, the highest replication offset), the primary when it has
    // none. In the order of primaryClients().
    QList<RedisClient *> scanClients(bool replicas);
    RedisClient *clientForSlot(int slot);
    // The primary that owns 'slot' now, or null.
    const cluster::Node *ownerOf(int slot) const { return m_topology.ownerOf(slot); }

    RequestId sendBatch(const QList<RedisCommand> &commands, QObject *context, Callback callback, int timeoutMs);
    void cancel(RequestId id);
    int pendingCount() const { return int(m_requests.size()); }

    // Reads the slot map again (coalesced: several calls within a moment read it once). 'done',
    // when given, runs after that read.
    void refresh(std::function<void()> done = {});
    // Slots a MOVED or ASK was seen for since the count 'since' (redirectMark() before, the
    // set after): a scan rechecks them.
    quint64 redirectMark() const { return m_redirectCount; }
    QSet<int> slotsRedirectedSince(quint64 mark) const;
    QString lastNotice() const { return m_notice; }

Q_SIGNALS:
    // The slot map changed (a MOVED, a failover, a resharding seen by refresh()).
    void topologyChanged();
    // A cluster whose nodes share nothing with the previous map: another cluster answered.
    void clusterReplaced(const QString &detail);
    // A line for the status bar: redirections followed, retries, nodes unreachable.
    void notice(const QString &text);
    // A node's connection failed (refused, lost, timed out): 'node' as announced and as reached.
    void nodeError(const QString &node, const RedisError &error);

private:
    struct Request;
    void dispatch(RequestId id, const QList<int> &indexes);
    void sendTo(RequestId id, RedisClient *target, const QList<int> &indexes, bool asking);
    void onPart(RequestId id, const QList<int> &indexes, bool asking, const RedisReply &reply);
    void resolve(RequestId id, int index, const RedisValue &value);
    void finish(RequestId id);
    bool readTopology(const RedisValue &shards, const RedisValue &slots, QString *error);
    void setNotice(const QString &text);
    // The seed when it is up, else a primary that is; null when none answers.
    RedisClient *liveNode() const;
    // Where keyless commands go: liveNode(), or the seed (to fail there) when none is up.
    RedisClient *seedTarget() const;
    RequestId sendOn(RedisClient *target, const QList<RedisCommand> &commands, const Callback &callback,
                     int timeoutMs = -1);
    // Reads the slot map from a CLUSTER SHARDS or CLUSTER SLOTS reply (the other may be empty) and
    // connects to every primary; false and why when neither is one.
    bool adoptMap(const RedisValue &shards, const RedisValue &slots, QString *error);

    RedisClient *m_seed;
    cluster::AddressMap m_map;
    cluster::Topology m_topology;
    QByteArray m_seedId;
    QHash<cluster::Address, RedisClient *> m_clients;
    QHash<RequestId, Request *> m_requests;
    QList<std::function<void()>> m_refreshWaiters;
    QTimer *m_refreshTimer = nullptr;
    QTimer *m_healthTimer = nullptr;
    bool m_refreshing = false;
    bool m_mapBySlots = false; // CLUSTER SHARDS failed (before 7.0, or an ACL): CLUSTER SLOTS
    quint64 m_redirectCount = 0;
    QHash<int, quint64> m_redirectedAt; // slot -> the count when it was last redirected
    QString m_notice;
};
