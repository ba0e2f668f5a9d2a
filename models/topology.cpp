// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology.h"

#include "bytesescape.h"
#include "format.h"
#include "serverinfo.h"

#include <QHash>
#include <algorithm>
#include <cctype>

namespace topology {

namespace {

// "host:port@cport" or "host:port"; the last ':' splits, so "::1:7000@17000" works too.
cluster::Address addressOf(const QByteArray &field)
{
    QByteArray hostPort = field.left(field.indexOf('@') >= 0 ? field.indexOf('@') : field.size());
    const qsizetype colon = hostPort.lastIndexOf(':');
    if (colon < 0)
        return {};
    bool ok = false;
    const int port = hostPort.mid(colon + 1).toInt(&ok);
    if (!ok || port < 0 || port > 65535)
        return {};
    return {QString::fromUtf8(hostPort.left(colon)), quint16(port)};
}

QVariant rightAligned()
{
    return int(Qt::AlignRight | Qt::AlignVCenter);
}

using NodeColumn = RowTableModel<NodeRow>::Column;

// A number column: "—" where the node did not say; sorted by the number.
NodeColumn figure(const QString &title, qint64 NodeRow::*field, QString (*text)(qint64))
{
    return {title, [field, text](const NodeRow &n, int role) -> QVariant {
                const qint64 v = n.*field;
                switch (role) {
                case Qt::TextAlignmentRole: return rightAligned();
                case RowTableRoles::SortRole: return v;
                case Qt::DisplayRole: return v < 0 ? QStringLiteral("—") : text(v);
                }
                return {};
            }};
}

QString countText(qint64 v)
{
    return format::count(quint64(v));
}

QString plainText(qint64 v)
{
    return QString::number(v);
}

} // namespace

QList<NodesLine> parseClusterNodes(const QByteArray &text)
{
    QList<NodesLine> out;
    for (const QByteArray &raw : text.split('\n')) {
        const QList<QByteArray> f = raw.trimmed().split(' ');
        if (f.size() < 8 || f.at(0).size() != 40)
            continue;
        NodesLine n;
        n.id = f.at(0);
        const QList<QByteArray> addr = f.at(1).split(',');
        n.announced = addressOf(addr.at(0));
        if (addr.size() > 1 && !addr.at(1).isEmpty())
            n.announced.host = QString::fromUtf8(addr.at(1));
        n.flags = f.at(2).split(',');
        n.primaryId = f.at(3) == "-" ? QByteArray() : f.at(3);
        n.linkState = f.at(7);
        for (qsizetype i = 8; i < f.size(); ++i) {
            const QByteArray &s = f.at(i);
            if (s.isEmpty() || s.startsWith('['))
                continue;
            const qsizetype dash = s.indexOf('-');
            bool okA = false;
            bool okB = false;
            const int a = (dash < 0 ? s : s.left(dash)).toInt(&okA);
            const int b = dash < 0 ? a : s.mid(dash + 1).toInt(&okB);
            if (okA && (dash < 0 || okB) && a >= 0 && b >= a && b < cluster::kSlotCount)
                n.slots.append({a, b});
        }
        out << n;
    }
    return out;
}

Severity severityOf(const NodeRow &row)
{
    const QString &l = row.link;
    if (!row.error.isEmpty() || l.startsWith(QLatin1String("failing")) || l.startsWith(QLatin1String("down"))
        || l.startsWith(QLatin1String("disconnected")))
        return Severity::Bad;
    if (l.startsWith(QLatin1String("suspected")) || row.lagSeconds > 10 || row.lagBytes > 1024 * 1024)
        return Severity::Warning;
    return Severity::None;
}

Imbalance imbalance(const QList<NodeRow> &nodes, qint64 NodeRow::*field)
{
    Imbalance out;
    int n = 0;
    double sum = 0;
    for (const NodeRow &r : nodes) {
        const qint64 v = r.*field;
        if (!r.primary || v < 0)
            continue;
        if (n == 0 || v > out.most) {
            out.most = v;
            out.node = r.address;
        }
        out.least = n == 0 ? v : qMin(out.least, v);
        sum += double(v);
        ++n;
    }
    if (n == 0)
        return out;
    out.mean = sum / n;
    out.ratio = n >= 2 && out.mean > 0 ? double(out.most) / out.mean : 0;
    return out;
}

QList<int> hottestSlots(const std::vector<qint64> &keysPerSlot, int limit, qint64 minKeys, double factor)
{
    double sum = 0;
    int counted = 0;
    for (const qint64 k : keysPerSlot) {
        if (k >= 0) {
            sum += double(k);
            ++counted;
        }
    }
    if (counted == 0)
        return {};
    const double floor = qMax(double(minKeys), factor * sum / counted);
    QList<int> out;
    for (int s = 0; s < int(keysPerSlot.size()); ++s)
        if (keysPerSlot[size_t(s)] >= floor)
            out << s;
    std::stable_sort(out.begin(), out.end(),
                     [&](int a, int b) { return keysPerSlot[size_t(a)] > keysPerSlot[size_t(b)]; });
    if (out.size() > limit)
        out.resize(limit);
    return out;
}

QPair<QByteArray, int> commonestTag(const QList<QByteArray> &keys)
{
    QHash<QByteArray, int> counts;
    for (const QByteArray &k : keys) {
        const QByteArray tag = cluster::hashTag(k);
        if (!tag.isEmpty())
            ++counts[tag];
    }
    QPair<QByteArray, int> best;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
        if (it.value() > best.second || (it.value() == best.second && it.key() < best.first))
            best = {it.key(), it.value()};
    return best;
}

void applyInfo(NodeRow &row, const ServerInfo &info)
{
    qint64 keys = 0;
    for (const KeyspaceDb &db : info.keyspace())
        keys += db.keys;
    row.keys = keys;
    row.usedMemory = info.integer("used_memory");
    row.opsPerSecond = info.integer("instantaneous_ops_per_sec");
    const bool replica = info.value("role") == "slave";
    row.replicationOffset = replica ? info.integer("slave_repl_offset") : info.integer("master_repl_offset");
    if (replica && info.value("master_link_status") == "down" && row.link.isEmpty())
        row.link = QStringLiteral("disconnected from its primary");
}

QList<NodeRow> replicasFromInfo(const ServerInfo &primaryInfo)
{
    QList<NodeRow> out;
    const qint64 primaryOffset = primaryInfo.integer("master_repl_offset");
    for (const ServerInfo::Field &f : primaryInfo.fields()) {
        if (!f.name.startsWith("slave") || f.name.size() < 6 || !std::isdigit(uchar(f.name.at(5))))
            continue;
        QHash<QByteArray, QByteArray> v;
        for (const auto &[name, value] : ServerInfo::subfields(f.value))
            v.insert(name, value);
        NodeRow r;
        r.primary = false;
        r.address = QStringLiteral("%1:%2").arg(QString::fromUtf8(v.value("ip")), QString::fromUtf8(v.value("port")));
        bool ok = false;
        r.replicationOffset = v.value("offset").toLongLong(&ok);
        if (!ok)
            r.replicationOffset = -1;
        if (r.replicationOffset >= 0 && primaryOffset >= 0)
            r.lagBytes = qMax<qint64>(0, primaryOffset - r.replicationOffset);
        r.lagSeconds = v.value("lag").toLongLong(&ok);
        if (!ok)
            r.lagSeconds = -1;
        const QByteArray state = v.value("state");
        r.link = state == "online" ? QStringLiteral("connected")
                                   : QStringLiteral("syncing (%1)").arg(QString::fromUtf8(state));
        out << r;
    }
    return out;
}

NodesModel::NodesModel(QObject *parent)
    : RowTableModel<NodeRow>(
        {
            {tr("Node"),
             [](const NodeRow &n, int role) -> QVariant {
                 if (role == Qt::ToolTipRole) {
                     QStringList parts;
                     if (!n.announced.isEmpty())
                         parts << tr("announced as %1").arg(n.announced);
                     if (!n.id.isEmpty())
                         parts << tr("node id %1").arg(QString::fromLatin1(n.id));
                     if (!n.error.isEmpty())
                         parts << n.error;
                     return parts.isEmpty() ? QVariant() : QVariant(parts.join(QLatin1Char('\n')));
                 }
                 return role == Qt::DisplayRole
                     ? QVariant(n.primary ? n.address : QStringLiteral("  ↳ %1").arg(n.address))
                     : QVariant();
             }},
            {tr("Role"),
             [](const NodeRow &n, int role) -> QVariant {
                 if (role != Qt::DisplayRole)
                     return {};
                 return n.primary ? tr("primary") : tr("replica");
             }},
            {tr("Link"),
             [](const NodeRow &n, int role) -> QVariant {
                 if (role == Qt::ToolTipRole)
                     return n.error.isEmpty() ? QVariant() : QVariant(n.error);
                 if (role != Qt::DisplayRole)
                     return {};
                 if (!n.error.isEmpty() && n.link.isEmpty())
                     return tr("unreadable");
                 return n.link.isEmpty() ? QStringLiteral("connected") : n.link;
             }},
            {tr("Slots"),
             [](const NodeRow &n, int role) -> QVariant {
                 switch (role) {
                 case Qt::TextAlignmentRole: return rightAligned();
                 case RowTableRoles::SortRole: return n.slotCount;
                 case Qt::ToolTipRole: return n.slots.isEmpty() ? QVariant() : QVariant(n.slots);
                 case Qt::DisplayRole:
                     if (n.slotCount < 0 || !n.primary)
                         return QStringLiteral("—");
                     return n.slots.size() <= 24
                         ? QStringLiteral("%1 (%2)").arg(format::count(quint64(n.slotCount)), n.slots)
                         : format::count(quint64(n.slotCount));
                 }
                 return {};
             }},
            figure(tr("Keys"), &NodeRow::keys, countText),
            figure(tr("Memory"), &NodeRow::usedMemory, format::bytes),
            figure(tr("Ops/s"), &NodeRow::opsPerSecond, countText),
            figure(tr("Offset"), &NodeRow::replicationOffset, plainText),
            {tr("Lag"),
             [](const NodeRow &n, int role) -> QVariant {
                 switch (role) {
                 case Qt::TextAlignmentRole: return rightAligned();
                 case RowTableRoles::SortRole: return n.lagBytes;
                 case Qt::DisplayRole: {
                     if (n.primary)
                         return QStringLiteral("—");
                     QStringList parts;
                     if (n.lagBytes >= 0)
                         parts << format::bytes(n.lagBytes);
                     if (n.lagSeconds >= 0)
                         parts << tr("%1 s").arg(n.lagSeconds);
                     return parts.isEmpty() ? QStringLiteral("—") : parts.join(QStringLiteral(" · "));
                 }
                 }
                 return {};
             }},
        },
        {[](const NodeRow &n) { return n.address.toUtf8(); }, severityOf, {}}, parent)
{ }

HotSlotsModel::HotSlotsModel(QObject *parent)
    : RowTableModel<HotSlot>(
        {
            {tr("Slot"),
             [](const HotSlot &h, int role) -> QVariant {
                 switch (role) {
                 case Qt::TextAlignmentRole: return rightAligned();
                 case RowTableRoles::SortRole: return h.slot;
                 case Qt::DisplayRole: return QString::number(h.slot);
                 }
                 return {};
             }},
            {tr("Keys"),
             [](const HotSlot &h, int role) -> QVariant {
                 switch (role) {
                 case Qt::TextAlignmentRole: return rightAligned();
                 case RowTableRoles::SortRole: return h.keys;
                 case Qt::DisplayRole: return format::count(quint64(h.keys));
                 }
                 return {};
             }},
            {tr("Node"),
             [](const HotSlot &h, int role) -> QVariant {
                 return role == Qt::DisplayRole ? QVariant(h.node) : QVariant();
             }},
            {tr("Hash tag"),
             [](const HotSlot &h, int role) -> QVariant {
                 if (role == Qt::ToolTipRole)
                     return h.tag.isEmpty()
                         ? tr("None of the sampled keys has a hash tag: their names hash to this slot.")
                         : tr("Keys named with {%1} all go to this slot.").arg(bytesescape::escape(h.tag));
                 if (role != Qt::DisplayRole)
                     return {};
                 return h.tag.isEmpty() ? tr("(none)") : QStringLiteral("{%1}").arg(bytesescape::escape(h.tag));
             }},
            {tr("Tagged"),
             [](const HotSlot &h, int role) -> QVariant {
                 switch (role) {
                 case Qt::TextAlignmentRole: return rightAligned();
                 case RowTableRoles::SortRole: return h.tagged;
                 case Qt::DisplayRole:
                     return h.sampled == 0 ? QStringLiteral("—") : tr("%1 of %2 sampled").arg(h.tagged).arg(h.sampled);
                 }
                 return {};
             }},
        },
        {[](const HotSlot &h) { return QByteArray::number(h.slot); }, {}, {}}, parent)
{ }

SentinelsModel::SentinelsModel(QObject *parent)
    : RowTableModel<SentinelRow>(
        {
            {tr("Sentinel"),
             [](const SentinelRow &s, int role) -> QVariant {
                 return role == Qt::DisplayRole ? QVariant(s.address) : QVariant();
             }},
            {tr("Flags"),
             [](const SentinelRow &s, int role) -> QVariant {
                 return role == Qt::DisplayRole ? QVariant(QString::fromUtf8(s.flags)) : QVariant();
             }},
        },
        {[](const SentinelRow &s) { return s.address.toUtf8(); },
         [](const SentinelRow &s) {
             return s.flags.contains("down") || s.flags == "unreachable" ? Severity::Bad : Severity::None;
         },
         {}},
        parent)
{ }

} // namespace topology
