// SPDX-License-Identifier: GPL-3.0-or-later
#include "redlock.h"

#include "bytesescape.h"
#include "format.h"

#include <algorithm>

int RedlockLock::severity() const
{
    if (flags & SplitTokens)
        return 3;
    if (flags & (NoMajority | NoTtl))
        return 2;
    if (flags & SomeUnread)
        return 1;
    return 0;
}

QString RedlockLock::heldText() const
{
    int unread = 0;
    for (const RedlockHold &h : holds)
        unread += h.read ? 0 : 1;
    const QString text = QObject::tr("%1 of %2").arg(held).arg(nodes);
    return unread ? QObject::tr("%1 (%2 unread)").arg(text).arg(unread) : text;
}

QString RedlockLock::flagsText() const
{
    QStringList parts;
    if (flags & SplitTokens)
        parts << QObject::tr("%1 different tokens").arg(tokens);
    if (flags & NoMajority)
        parts << QObject::tr("no majority: %1 of %2 needed").arg(quorum).arg(nodes);
    if (flags & NoTtl)
        parts << QObject::tr("no TTL on a node");
    if (flags & SomeUnread)
        parts << QObject::tr("a node did not answer");
    return parts.join(QStringLiteral(" · "));
}

QList<RedlockLock> combineRedlock(const QList<QByteArray> &keys, const QHash<QByteArray, QString> &families,
                                  const QList<RedlockNodeRead> &reads)
{
    const int n = int(reads.size());
    QList<RedlockLock> out;
    for (const QByteArray &key : keys) {
        RedlockLock l;
        l.key = key;
        l.family = families.value(key);
        l.nodes = n;
        l.quorum = n / 2 + 1;
        QHash<QByteArray, int> perToken;
        bool unread = false;
        for (const RedlockNodeRead &node : reads) {
            RedlockHold h = node.holds.value(key);
            if (!node.error.isEmpty())
                h.read = false;
            unread = unread || !h.read;
            if (h.read && h.exists) {
                ++l.held;
                ++perToken[h.token];
                if (l.readAtMs == 0 || h.readAtMs < l.readAtMs)
                    l.readAtMs = h.readAtMs;
                if (h.pttlMs == -1)
                    l.flags |= RedlockLock::NoTtl;
            }
            l.holds.append(h);
        }
        if (l.held == 0)
            continue; // released everywhere (or never read): nothing to show
        l.tokens = int(perToken.size());
        for (auto it = perToken.cbegin(); it != perToken.cend(); ++it) {
            if (it.value() > l.majorityHolders || (it.value() == l.majorityHolders && it.key() < l.token)) {
                l.majorityHolders = it.value();
                l.token = it.key();
            }
        }
        // The validity left: the smallest TTL among the nodes holding that token. A node without
        // a TTL does not shorten it; every one without: none.
        for (const RedlockHold &h : std::as_const(l.holds)) {
            if (!h.read || !h.exists || h.token != l.token || h.pttlMs < 0)
                continue;
            const qint64 expires = ttl::expireAt(h.pttlMs, h.readAtMs);
            const qint64 current = l.expireAtMs();
            if (l.minPttlMs == ttl::kUnknown || current < 0 || expires < current)
                l.minPttlMs = expires - l.readAtMs;
        }
        if (l.minPttlMs == ttl::kUnknown && (l.flags & RedlockLock::NoTtl))
            l.minPttlMs = -1;
        if (l.tokens > 1)
            l.flags |= RedlockLock::SplitTokens;
        if (!l.valid())
            l.flags |= RedlockLock::NoMajority;
        if (unread)
            l.flags |= RedlockLock::SomeUnread;
        out.append(l);
    }
    std::stable_sort(out.begin(), out.end(), [](const RedlockLock &a, const RedlockLock &b) {
        if (a.severity() != b.severity())
            return a.severity() > b.severity();
        return a.key < b.key;
    });
    return out;
}

// ---- model ----

RedlockModel::RedlockModel(QObject *parent)
    : RowListModel([](const RedlockLock &l) { return l.key; }, ColumnCount, RemainingColumn, parent)
{ }

QVariant RedlockModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    const RedlockLock &l = rows().at(index.row());
    switch (role) {
    case KeyRole: return l.key;
    case SeverityRole:
        return int(l.severity() >= 2 ? Severity::Bad : l.severity() == 1 ? Severity::Warning : Severity::None);
    case HeldSeverityRole:
        return int((l.flags & RedlockLock::NoMajority)       ? Severity::Bad
                       : (l.flags & RedlockLock::SomeUnread) ? Severity::Warning
                                                             : Severity::None);
    case SortRole:
        if (index.column() == HeldColumn)
            return l.held;
        if (index.column() == RemainingColumn && l.minPttlMs != ttl::kUnknown) {
            const qint64 now = this->now() ? this->now() : l.readAtMs;
            return l.minPttlMs < 0 ? qint64(-1) : qMax<qint64>(0, l.expireAtMs() - now);
        }
        return {};
    case Qt::ToolTipRole:
        if (index.column() == HeldColumn || index.column() == TokenColumn) {
            QStringList lines;
            for (int i = 0; i < l.holds.size(); ++i) {
                const RedlockHold &h = l.holds.at(i);
                const QString node = i < m_nodes.size() ? m_nodes.at(i) : tr("node %1").arg(i + 1);
                if (!h.read)
                    lines << tr("%1: not read").arg(node);
                else if (!h.error.isEmpty())
                    lines << tr("%1: %2").arg(node, h.error);
                else if (!h.exists)
                    lines << tr("%1: not held").arg(node);
                else
                    lines << tr("%1: %2, %3")
                                 .arg(node, bytesescape::escapeElided(h.token, 80),
                                      h.pttlMs == -1 ? tr("no TTL") : format::duration(h.pttlMs));
            }
            return lines.join(QLatin1Char('\n'));
        }
        if (index.column() == FlagsColumn && l.flags) {
            QStringList why;
            if (l.flags & RedlockLock::SplitTokens)
                why << tr("Different holders' tokens on different nodes: two clients each took part of the "
                          "set, or a holder's lock expired on some nodes and another took it there.");
            if (l.flags & RedlockLock::NoMajority)
                why << tr("No token is set on a majority (%1 of %2): nobody holds this lock. What is left "
                          "is an acquisition that failed and was not cleaned up, or one that is expiring.")
                           .arg(l.quorum)
                           .arg(l.nodes);
            if (l.flags & RedlockLock::NoTtl)
                why << tr("A node holds it without a TTL: there it is never released if the holder dies.");
            if (l.flags & RedlockLock::SomeUnread)
                why << tr("A node of the set did not answer: the lock may be held there too.");
            return why.join(QLatin1Char('\n'));
        }
        return {};
    case Qt::DisplayRole: break;
    default: return {};
    }
    switch (index.column()) {
    case ResourceColumn: return bytesescape::escape(l.key);
    case HeldColumn: return l.heldText();
    case TokenColumn: return bytesescape::quoteIfNeeded(l.token); // the others: Flags and the tooltip
    case RemainingColumn:
        if (l.minPttlMs == ttl::kUnknown)
            return tr("unknown");
        return format::ttl(l.expireAtMs(), now() ? now() : l.readAtMs);
    case FlagsColumn: return l.flagsText();
    default: return {};
    }
}

QVariant RedlockModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ResourceColumn: return tr("Resource (key)");
    case HeldColumn: return tr("Held on");
    case TokenColumn: return tr("Token");
    case RemainingColumn: return tr("Smallest TTL");
    case FlagsColumn: return tr("Flags");
    default: return {};
    }
}
