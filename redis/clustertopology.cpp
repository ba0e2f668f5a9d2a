// SPDX-License-Identifier: GPL-3.0-or-later
#include "clustertopology.h"
#include "redisvalue.h"
#include <QHashFunctions>
#include <QRegularExpression>
#include <algorithm>

namespace cluster {

namespace {

// CRC16-CCITT as Redis Cluster uses it (XMODEM: polynomial 0x1021, initial value 0, no
// reflection). The table is computed once from the polynomial.
struct Crc16Table
{
    std::array<quint16, 256> v{};
    Crc16Table()
    {
        for (int i = 0; i < 256; ++i) {
            quint16 crc = quint16(i << 8);
            for (int bit = 0; bit < 8; ++bit)
                crc = (crc & 0x8000) ? quint16((crc << 1) ^ 0x1021) : quint16(crc << 1);
            v[size_t(i)] = crc;
        }
    }
};

quint16 crc16(const char *data, qsizetype size)
{
    static const Crc16Table table;
    quint16 crc = 0;
    for (qsizetype i = 0; i < size; ++i)
        crc = quint16((crc << 8) ^ table.v[((crc >> 8) ^ quint8(data[i])) & 0xff]);
    return crc;
}

// The bytes keySlot() hashes: [begin, end) of the hash tag, or the whole key.
std::pair<qsizetype, qsizetype> hashedPart(const QByteArray &key)
{
    const qsizetype open = key.indexOf('{');
    if (open < 0)
        return {0, key.size()};
    const qsizetype close = key.indexOf('}', open + 1);
    if (close < 0 || close == open + 1) // no '}', or "{}": the whole key
        return {0, key.size()};
    return {open + 1, close};
}

QString textOf(const RedisValue &v)
{
    return QString::fromUtf8(v.bytes());
}

// Field/value pairs of a RESP2 flat array or a RESP3 map, by field name.
QHash<QByteArray, RedisValue> fieldsOf(const RedisValue &v)
{
    QHash<QByteArray, RedisValue> out;
    for (qsizetype i = 0; i + 1 < v.size(); i += 2)
        out.insert(v.at(i).bytes(), v.at(i + 1));
    return out;
}

} // namespace

QString slotRangesText(const QList<int> &sortedSlots)
{
    QStringList parts;
    for (qsizetype i = 0; i < sortedSlots.size();) {
        qsizetype j = i;
        while (j + 1 < sortedSlots.size() && sortedSlots.at(j + 1) == sortedSlots.at(j) + 1)
            ++j;
        parts << (j == i ? QString::number(sortedSlots.at(i))
                         : QStringLiteral("%1-%2").arg(sortedSlots.at(i)).arg(sortedSlots.at(j)));
        i = j + 1;
    }
    return parts.join(QLatin1String(", "));
}

quint16 keySlot(const QByteArray &key)
{
    const auto [begin, end] = hashedPart(key);
    return crc16(key.constData() + begin, end - begin) & (kSlotCount - 1);
}

QByteArray hashTag(const QByteArray &key)
{
    const auto [begin, end] = hashedPart(key);
    if (begin == 0 && end == key.size())
        return {};
    return key.mid(begin, end - begin);
}

QString Address::toString() const
{
    if (host.contains(QLatin1Char(':')))
        return QStringLiteral("[%1]:%2").arg(host).arg(port);
    return QStringLiteral("%1:%2").arg(host).arg(port);
}

size_t qHash(const Address &a, size_t seed)
{
    return qHashMulti(seed, a.host, a.port);
}

int Node::slotCount() const
{
    int n = 0;
    for (const SlotRange &r : slots)
        n += r.count();
    return n;
}

int Node::firstSlot() const
{
    int first = kSlotCount;
    for (const SlotRange &r : slots)
        first = qMin(first, r.first);
    return first;
}

QString Node::slotsText() const
{
    QList<int> all;
    for (const SlotRange &r : slots)
        for (int s = r.first; s <= r.last; ++s)
            all.append(s);
    std::sort(all.begin(), all.end());
    return slotRangesText(all);
}

bool parseAddress(const QString &text, Address *out)
{
    const QString t = text.trimmed();
    QString host;
    QString port;
    if (t.startsWith(QLatin1Char('['))) {
        const qsizetype close = t.indexOf(QLatin1String("]:"));
        if (close < 0)
            return false;
        host = t.mid(1, close - 1);
        port = t.mid(close + 2);
    } else {
        const qsizetype colon = t.lastIndexOf(QLatin1Char(':'));
        if (colon < 0)
            return false;
        host = t.left(colon);
        port = t.mid(colon + 1);
    }
    // A node reports "host:port@busport" in CLUSTER NODES and in some errors.
    port = port.section(QLatin1Char('@'), 0, 0);
    bool ok = false;
    const uint p = port.toUInt(&ok);
    if (!ok || p == 0 || p > 65535)
        return false;
    out->host = host;
    out->port = quint16(p);
    return true;
}

bool AddressMap::parse(const QString &text, QString *error)
{
    m_rules.clear();
    static const QRegularExpression separators(QStringLiteral("[,\\s]+"));
    for (const QString &rule : text.split(separators, Qt::SkipEmptyParts)) {
        const qsizetype eq = rule.indexOf(QLatin1Char('='));
        const QString from = eq < 0 ? QString() : rule.left(eq);
        const QString to = eq < 0 ? QString() : rule.mid(eq + 1);
        Address a;
        Address b;
        const bool bothAddresses = parseAddress(from, &a) && parseAddress(to, &b);
        const bool bothHosts
            = !from.isEmpty() && !to.isEmpty() && !from.contains(QLatin1Char(':')) && !to.contains(QLatin1Char(':'));
        if (!bothAddresses && !bothHosts) {
            if (error)
                *error = QStringLiteral("address map rule \"%1\" is not host:port=host:port or host=host").arg(rule);
            m_rules.clear();
            return false;
        }
        m_rules.append({from, to});
    }
    return true;
}

void AddressMap::addRule(const QString &from, const QString &to)
{
    m_rules.append({from, to});
}

Address AddressMap::map(const Address &announced) const
{
    Address out = announced;
    if (out.host.isEmpty() && !m_seedHost.isEmpty())
        out.host = m_seedHost;
    const QString whole = announced.toString();
    for (const auto &[from, to] : m_rules) {
        if (from == whole) {
            parseAddress(to, &out);
            return out;
        }
    }
    for (const auto &[from, to] : m_rules) {
        if (!from.contains(QLatin1Char(':')) && from == announced.host) {
            out.host = to;
            return out;
        }
    }
    if (m_keepSeedHost && !m_seedHost.isEmpty())
        out.host = m_seedHost;
    return out;
}

QString AddressMap::toString() const
{
    QStringList parts;
    for (const auto &[from, to] : m_rules)
        parts << from + QLatin1Char('=') + to;
    return parts.join(QLatin1Char(','));
}

Topology::Topology()
{
    m_owner.fill(-1);
}

QList<Node> Topology::primaries() const
{
    // A primary that failed and lost its slots to its replica is still listed (CLUSTER SHARDS
    // keeps it, role master, no slots): it holds nothing to read.
    QList<Node> out;
    for (const Node &n : m_nodes)
        if (n.primary && n.slotCount() > 0)
            out << n;
    return out;
}

QList<Node> Topology::replicasOf(const QByteArray &primaryId) const
{
    QList<Node> out;
    for (const Node &n : m_nodes)
        if (!n.primary && n.primaryId == primaryId)
            out << n;
    return out;
}

const Node *Topology::ownerOf(int slot) const
{
    if (slot < 0 || slot >= kSlotCount || m_owner[size_t(slot)] < 0)
        return nullptr;
    return &m_nodes[m_owner[size_t(slot)]];
}

const Node *Topology::nodeAt(const Address &address) const
{
    for (const Node &n : m_nodes)
        if (n.address == address)
            return &n;
    return nullptr;
}

int Topology::coveredSlots() const
{
    return int(std::count_if(m_owner.begin(), m_owner.end(), [](qint16 o) { return o >= 0; }));
}

void Topology::rebuildOwners()
{
    m_owner.fill(-1);
    for (qsizetype i = 0; i < m_nodes.size(); ++i) {
        if (!m_nodes[i].primary)
            continue;
        for (const SlotRange &r : m_nodes[i].slots)
            for (int s = std::max(r.first, 0); s <= std::min(r.last, kSlotCount - 1); ++s)
                m_owner[size_t(s)] = qint16(i);
    }
}

bool Topology::readShards(const RedisValue &reply, const AddressMap &map, QString *error)
{
    if (!reply.isArray()) {
        if (error)
            *error = QStringLiteral("CLUSTER SHARDS did not answer with a list");
        return false;
    }
    QList<Node> nodes;
    for (const RedisValue &shardValue : reply.elements()) {
        const QHash<QByteArray, RedisValue> shard = fieldsOf(shardValue);
        QList<SlotRange> ranges;
        const RedisValue slots = shard.value("slots");
        for (qsizetype i = 0; i + 1 < slots.size(); i += 2)
            ranges.append({int(slots.at(i).toInteger()), int(slots.at(i + 1).toInteger())});
        QByteArray primaryId;
        QList<Node> members;
        const RedisValue nodeValues = shard.value("nodes");
        for (const RedisValue &nodeValue : nodeValues.elements()) {
            const QHash<QByteArray, RedisValue> f = fieldsOf(nodeValue);
            Node n;
            n.id = f.value("id").bytes();
            QString host = textOf(f.value("endpoint"));
            if (host.isEmpty() || host == QLatin1String("?"))
                host = textOf(f.value("ip"));
            const qint64 port = f.contains("port") ? f.value("port").toInteger() : f.value("tls-port").toInteger();
            n.announced = {host, quint16(port)};
            n.address = map.map(n.announced);
            n.health = f.value("health").bytes();
            // After a failover a shard can list two masters: the promoted replica and the old
            // primary, failed (Redis 7.2+ keeps it in its shard; Redis 8 says "fail", the
            // documentation "failed"). Only a live one owns the slots.
            const bool failed = n.health == "fail" || n.health == "failed";
            n.primary = f.value("role").bytes() == "master" && !failed;
            bool ok = false;
            n.replicationOffset = f.value("replication-offset").toInteger(&ok);
            if (!ok)
                n.replicationOffset = -1;
            if (n.primary) {
                n.slots = ranges;
                primaryId = n.id;
            }
            members << n;
        }
        // A shard whose primary failed and has not been replaced lists no primary: its
        // replicas still name their shard.
        for (Node &n : members) {
            if (!n.primary)
                n.primaryId = primaryId;
            nodes << n;
        }
    }
    return adopt(nodes, QStringLiteral("CLUSTER SHARDS listed no nodes"), error);
}

bool Topology::readSlots(const RedisValue &reply, const AddressMap &map, QString *error)
{
    if (!reply.isArray()) {
        if (error)
            *error = QStringLiteral("CLUSTER SLOTS did not answer with a list");
        return false;
    }
    QList<Node> nodes;
    auto nodeFrom = [&](const RedisValue &v) {
        Node n;
        n.announced = {textOf(v.at(0)), quint16(v.at(1).toInteger())};
        if (n.announced.host == QLatin1String("?"))
            n.announced.host.clear();
        n.address = map.map(n.announced);
        n.id = v.size() > 2 ? v.at(2).bytes() : QByteArray();
        return n;
    };
    auto indexOf = [&](const Node &n) -> qsizetype {
        for (qsizetype i = 0; i < nodes.size(); ++i)
            if ((!n.id.isEmpty() && nodes[i].id == n.id) || (n.id.isEmpty() && nodes[i].address == n.address))
                return i;
        return -1;
    };
    for (const RedisValue &range : reply.elements()) {
        if (range.size() < 3)
            continue;
        Node primary = nodeFrom(range.at(2));
        qsizetype p = indexOf(primary);
        if (p < 0) {
            nodes << primary;
            p = nodes.size() - 1;
        }
        nodes[p].slots.append({int(range.at(0).toInteger()), int(range.at(1).toInteger())});
        for (qsizetype r = 3; r < range.size(); ++r) {
            Node replica = nodeFrom(range.at(r));
            replica.primary = false;
            replica.primaryId = nodes[p].id;
            if (indexOf(replica) < 0)
                nodes << replica;
        }
    }
    return adopt(nodes, QStringLiteral("CLUSTER SLOTS listed no slots"), error);
}

bool Topology::adopt(const QList<Node> &nodes, const QString &whyEmpty, QString *error)
{
    if (nodes.isEmpty()) {
        if (error)
            *error = whyEmpty;
        return false;
    }
    m_nodes = nodes;
    rebuildOwners();
    return true;
}

bool Topology::moveSlot(int slot, const Address &address)
{
    if (slot < 0 || slot >= kSlotCount)
        return false;
    qsizetype target = -1;
    for (qsizetype i = 0; i < m_nodes.size(); ++i)
        if (m_nodes[i].address == address)
            target = i;
    if (target < 0) {
        Node n;
        n.address = address;
        n.announced = address;
        m_nodes << n;
        target = m_nodes.size() - 1;
    }
    if (m_owner[size_t(slot)] == target)
        return false;
    // The slot leaves its old owner's ranges and joins the new one's.
    const qint16 old = m_owner[size_t(slot)];
    if (old >= 0) {
        QList<SlotRange> kept;
        for (const SlotRange &r : m_nodes[old].slots) {
            if (slot < r.first || slot > r.last) {
                kept << r;
                continue;
            }
            if (r.first < slot)
                kept.append({r.first, slot - 1});
            if (slot < r.last)
                kept.append({slot + 1, r.last});
        }
        m_nodes[old].slots = kept;
    }
    m_nodes[target].primary = true;
    m_nodes[target].slots.append({slot, slot});
    m_owner[size_t(slot)] = qint16(target);
    return true;
}

Redirect Redirect::parse(const QByteArray &errorMessage)
{
    Redirect r;
    const QList<QByteArray> words = errorMessage.trimmed().split(' ');
    if (words.size() != 3)
        return r;
    Redirect::Kind kind = Kind::None;
    if (words[0] == "MOVED")
        kind = Kind::Moved;
    else if (words[0] == "ASK")
        kind = Kind::Ask;
    else
        return r;
    bool ok = false;
    const int slot = words[1].toInt(&ok);
    Address address;
    if (!ok || slot < 0 || slot >= kSlotCount || !parseAddress(QString::fromUtf8(words[2]), &address))
        return r;
    r.kind = kind;
    r.slot = slot;
    r.address = address;
    return r;
}

} // namespace cluster
