// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clustertopology.h"
#include "rowtablemodel.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <vector>

class ServerInfo;

// What the topology panel shows: the servers behind a connection (a cluster's nodes, a
// Sentinel-managed primary with its replicas and sentinels, or one server and its replicas),
// per node its role, slots, keys, memory, load, replication offset and lag, and link state;
// for a cluster the keys in each slot, the slots that hold far more than their share (and the
// hash tag that put them there), and how evenly memory is spread over the primaries.
namespace topology {

enum class Mode : quint8 { Single, Cluster, Sentinel };

// One line of CLUSTER NODES: "<id> <ip:port@cport[,hostname]> <flags> <master> <ping-sent>
// <pong-recv> <config-epoch> <link-state> <slot> …".
struct NodesLine
{
    QByteArray id;
    cluster::Address announced; // the hostname when the node announces one, else the ip
    QList<QByteArray> flags; // myself, master, slave, fail?, fail, handshake, noaddr, nofailover
    QByteArray primaryId; // replicas; empty for a primary
    QByteArray linkState; // connected, disconnected
    QList<cluster::SlotRange> slots; // migrating and importing markers left out
    bool has(const char *flag) const { return flags.contains(QByteArray(flag)); }
};
// Lines that are not node lines are skipped.
QList<NodesLine> parseClusterNodes(const QByteArray &text);

struct NodeRow
{
    QString address; // as this desktop reaches it
    QString announced; // as the servers name it, when that differs
    QByteArray id; // a cluster node's id; empty elsewhere
    bool primary = true;
    QString primaryAddress; // a replica's primary
    int slotCount = -1; // -1: not a cluster
    QString slots; // "0-5460"
    qint64 keys = -1;
    qint64 usedMemory = -1;
    qint64 opsPerSecond = -1;
    qint64 replicationOffset = -1;
    qint64 lagBytes = -1; // a replica: its primary's offset minus its own
    qint64 lagSeconds = -1; // a replica: seconds since its last acknowledgement, as its primary says
    QString link; // "connected", "failing", "suspected down", "disconnected", "down (s_down)", …
    QString error; // why its INFO could not be read
};
// Bad: failing, down, disconnected or unreadable; Warning: suspected down, or a replica more
// than 10 s or 1 MiB behind.
Severity severityOf(const NodeRow &row);

struct SentinelRow
{
    QString address;
    QByteArray flags; // "sentinel", "sentinel,s_down", "unreachable"
};

// A slot that holds far more keys than the mean, and what its keys share.
struct HotSlot
{
    int slot = 0;
    qint64 keys = 0;
    QString node;
    QByteArray tag; // the commonest hash tag among the sampled keys; empty when none has one
    int tagged = 0; // sampled keys with that tag
    int sampled = 0;
};

// How unevenly the primaries hold memory (or keys): the largest against the mean.
struct Imbalance
{
    QString node; // the primary that holds the most
    qint64 most = 0;
    qint64 least = 0;
    double mean = 0;
    double ratio = 0; // most / mean; 0 with fewer than two primaries
    bool notable(double threshold) const { return ratio >= threshold; }
};
// Over the primaries that reported a value (>= 0) for 'field'.
Imbalance imbalance(const QList<NodeRow> &nodes, qint64 NodeRow::*field);

// The slots with the most keys, most first: at most 'limit', each holding at least 'minKeys'
// and at least 'factor' times the mean over the counted slots (counts < 0 are not counted).
QList<int> hottestSlots(const std::vector<qint64> &keysPerSlot, int limit, qint64 minKeys, double factor);
// The commonest hash tag among 'keys' and how many carry it; empty and 0 when none has one.
QPair<QByteArray, int> commonestTag(const QList<QByteArray> &keys);

// INFO's figures for one node: keys (summed over databases), used_memory,
// instantaneous_ops_per_sec, and the replication offset (master_repl_offset on a primary,
// slave_repl_offset on a replica).
void applyInfo(NodeRow &row, const ServerInfo &info);
// A primary's INFO replication lines "slaveN:ip=…,port=…,state=online,offset=…,lag=…" as
// replica rows (address "ip:port"), with their lag against the primary's offset.
QList<NodeRow> replicasFromInfo(const ServerInfo &primaryInfo);

struct Snapshot
{
    Mode mode = Mode::Single;
    QList<NodeRow> nodes; // primaries first (by first slot), each followed by its replicas
    QList<SentinelRow> sentinels;
    QString master; // Sentinel: the master's name; a cluster: the seed node's id
    int coveredSlots = -1;
    std::vector<qint64> keysPerSlot; // a cluster: kSlotCount counts, -1 where not counted yet
    qint64 slotsCountedAtMs = 0; // when the last full count ended; 0 before
    QList<HotSlot> hotSlots;
    QString error;
};

// The nodes table: Node, Role, Link, Slots, Keys, Memory, Ops/s, Offset, Lag. KeyRole is the
// node's address; SeverityRole Bad for a failing or disconnected node, Warning for one
// suspected down or lagging.
class NodesModel : public RowTableModel<NodeRow>
{
    Q_OBJECT
public:
    explicit NodesModel(QObject *parent = nullptr);
};

// Hot slots: Slot, Keys, Node, Hash tag, Tagged.
class HotSlotsModel : public RowTableModel<HotSlot>
{
    Q_OBJECT
public:
    explicit HotSlotsModel(QObject *parent = nullptr);
};

// Sentinels: Sentinel, Flags.
class SentinelsModel : public RowTableModel<SentinelRow>
{
    Q_OBJECT
public:
    explicit SentinelsModel(QObject *parent = nullptr);
};

} // namespace topology
