// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <QByteArray>
#include <QHash>
#include <QList>
#include <QString>
#include <array>

class RedisValue;

// Redis Cluster's key space: 16384 hash slots, each owned by one primary.
namespace cluster {

constexpr int kSlotCount = 16384;

// The slot of a key: CRC16 (XMODEM) of the key, or of its hash tag (the bytes between the
// first '{' and the first '}' after it, when there are any), modulo 16384.
quint16 keySlot(const QByteArray &key);
// The hash tag keySlot() would hash, or empty when the whole key is hashed.
QByteArray hashTag(const QByteArray &key);
// Sorted slots as ranges for the screen: "0-5460, 10923".
QString slotRangesText(const QList<int> &sortedSlots);

struct Address
{
    QString host;
    quint16 port = 0;
    bool isNull() const { return host.isEmpty() || port == 0; }
    // "host:port" ("[::1]:port" for IPv6).
    QString toString() const;
    bool operator==(const Address &o) const { return host == o.host && port == o.port; }
    bool operator!=(const Address &o) const { return !(*this == o); }
};
size_t qHash(const Address &a, size_t seed = 0);

struct SlotRange
{
    int first = 0;
    int last = 0; // inclusive
    int count() const { return last - first + 1; }
};

struct Node
{
    QByteArray id;
    Address announced; // as the cluster announces it
    Address address; // where this desktop reaches it (after the address map)
    bool primary = true;
    QByteArray primaryId; // replicas: the id of their primary, when known
    QList<SlotRange> slots; // primaries only
    QByteArray health; // CLUSTER SHARDS: online, failed, loading; empty when not reported
    qint64 replicationOffset = -1;
    int slotCount() const;
    // The lowest slot it owns, or kSlotCount when none (for ordering primaries).
    int firstSlot() const;
    // Its slots as slotRangesText() says them ("0-5460, 10923"); empty when none.
    QString slotsText() const;
};

// Announced addresses this desktop cannot reach (NAT, containers) mapped to ones it can.
// Rules are "host:port=host:port" (one node) or "host=host" (every port of a host); a node
// announced with an empty host (a node that does not know its own address) is reached at the
// seed's host. With keepSeedHost, every node is reached at the host the user connected to, on
// its announced port.
class AddressMap
{
public:
    // Parses "from=to" rules separated by commas or whitespace; false and a one-line reason on
    // the first that is not one.
    bool parse(const QString &text, QString *error);
    void addRule(const QString &from, const QString &to);
    void setSeedHost(const QString &host) { m_seedHost = host; }
    void setKeepSeedHost(bool keep) { m_keepSeedHost = keep; }
    bool isEmpty() const { return m_rules.isEmpty() && !m_keepSeedHost; }
    Address map(const Address &announced) const;
    // The rules as parse() takes them, for settings.
    QString toString() const;

private:
    QList<QPair<QString, QString>> m_rules; // in the order given
    QString m_seedHost;
    bool m_keepSeedHost = false;
};

// The slot map: which primary owns each slot, and the nodes the cluster reports. Read from
// CLUSTER SHARDS (7.0+) or CLUSTER SLOTS; kept current by MOVED redirections.
class Topology
{
public:
    Topology();
    // Replaces the map with a CLUSTER SHARDS reply (RESP2 or RESP3). False and a reason when the
    // reply is not one.
    bool readShards(const RedisValue &reply, const AddressMap &map, QString *error);
    // The same from CLUSTER SLOTS (older servers, or CLUSTER SHARDS refused).
    bool readSlots(const RedisValue &reply, const AddressMap &map, QString *error);

    const QList<Node> &nodes() const { return m_nodes; }
    // The primaries that own slots (a failed one whose replica took over owns none).
    QList<Node> primaries() const;
    QList<Node> replicasOf(const QByteArray &primaryId) const;
    // The node that owns 'slot', or null when no primary does (a cluster with uncovered slots).
    const Node *ownerOf(int slot) const;
    const Node *nodeAt(const Address &address) const;
    int coveredSlots() const;
    bool isEmpty() const { return m_nodes.isEmpty(); }
    // A MOVED redirection: 'slot' now lives at 'address' (already mapped). Returns true when
    // the map changed; an address not in the map becomes a new primary.
    bool moveSlot(int slot, const Address &address);

private:
    void rebuildOwners();
    // Takes 'nodes' as the map, or says 'whyEmpty' when there are none.
    bool adopt(const QList<Node> &nodes, const QString &whyEmpty, QString *error);
    QList<Node> m_nodes;
    std::array<qint16, kSlotCount> m_owner; // index into m_nodes, -1 for none
};

// A MOVED or ASK error reply: "MOVED 3999 127.0.0.1:6381".
struct Redirect
{
    enum class Kind : quint8 { None, Moved, Ask };
    Kind kind = Kind::None;
    int slot = -1;
    Address address; // as announced: map it before connecting
    static Redirect parse(const QByteArray &errorMessage);
};

// Parses "host:port" with an IPv6 host in brackets or bare (the last colon splits). Empty host
// allowed (":6379", which a node without cluster-announce-ip may report).
bool parseAddress(const QString &text, Address *out);

} // namespace cluster
