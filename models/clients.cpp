// SPDX-License-Identifier: GPL-3.0-or-later
#include "clients.h"

#include <QCoreApplication>
#include <QHash>
#include <algorithm>

namespace clients {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("clients", text);
}

constexpr std::pair<GroupBy, const char *> kIds[] = {
    {GroupBy::Name, "name"}, {GroupBy::Library, "lib"}, {GroupBy::Address, "addr"},
    {GroupBy::User, "user"}, {GroupBy::Database, "db"}, {GroupBy::Command, "cmd"},
};

QByteArray keyOf(const ClientEntry &c, GroupBy by)
{
    switch (by) {
    case GroupBy::Name: return c.name.isEmpty() ? QByteArray("(no name)") : c.name;
    case GroupBy::Library:
        if (c.libName.isEmpty())
            return QByteArray("(not said)"); // before 7.2, or a library that does not say
        return c.libVer.isEmpty() ? c.libName : c.libName + ' ' + c.libVer;
    case GroupBy::Address: return c.host();
    case GroupBy::User: return c.user.isEmpty() ? QByteArray("(unknown)") : c.user;
    case GroupBy::Database: return "db " + QByteArray::number(c.db);
    case GroupBy::Command: return c.cmd.isEmpty() ? QByteArray("(none)") : c.cmd;
    }
    return {};
}

qint64 median(QList<qint64> v)
{
    if (v.isEmpty())
        return -1;
    std::sort(v.begin(), v.end());
    return v.at(v.size() / 2);
}

// Blocked: the 'b' flag (BLPOP, XREAD BLOCK, WAIT…).
bool isBlocked(const ClientEntry &c)
{
    return c.flags.contains('b');
}

} // namespace

QString groupById(GroupBy by)
{
    for (const auto &[b, id] : kIds)
        if (b == by)
            return QString::fromLatin1(id);
    return {};
}

std::optional<GroupBy> groupByFromId(const QString &id)
{
    for (const auto &[b, name] : kIds)
        if (id == QLatin1String(name))
            return b;
    return std::nullopt;
}

QStringList groupByIds()
{
    QStringList out;
    for (const auto &entry : kIds)
        out << QString::fromLatin1(entry.second);
    return out;
}

bool isOwn(const ClientEntry &c)
{
    return c.name.startsWith("redislens") || c.libName == "redislens";
}

QList<Group> group(const QList<ClientEntry> &clients, GroupBy by)
{
    QHash<QByteArray, qsizetype> at;
    QList<Group> out;
    QList<QList<qint64>> ages, idles;
    for (const ClientEntry &c : clients) {
        const QByteArray key = keyOf(c, by);
        auto it = at.constFind(key);
        if (it == at.constEnd()) {
            it = at.insert(key, out.size());
            Group g;
            g.key = key;
            g.own = true;
            out.append(g);
            ages.append(QList<qint64>());
            idles.append(QList<qint64>());
        }
        Group &g = out[*it];
        ++g.connections;
        const bool own = isOwn(c);
        g.own = g.own && own;
        g.ownConnections += own ? 1 : 0;
        g.ids.append(c.id);
        ++g.commands[c.cmd.isEmpty() ? QByteArray("(none)") : c.cmd];
        g.unnamed += c.name.isEmpty() ? 1 : 0;
        g.young += c.age >= 0 && c.age < kYoungSeconds ? 1 : 0;
        g.idleLong += c.idle >= kLongIdleSeconds ? 1 : 0;
        g.queryBuffers += qMax<qint64>(0, c.qbuf);
        g.outputBuffers += qMax<qint64>(0, c.omem);
        g.memory += qMax<qint64>(0, c.totMem);
        if (isBlocked(c)) {
            ++g.blocked;
            ++g.blockedOn[c.cmd.isEmpty() ? QByteArray("(unknown)") : c.cmd];
        }
        if (c.age >= 0)
            ages[*it].append(c.age);
        if (c.idle >= 0)
            idles[*it].append(c.idle);
    }
    for (qsizetype i = 0; i < out.size(); ++i) {
        Group &g = out[i];
        if (!ages.at(i).isEmpty()) {
            g.minAge = *std::min_element(ages.at(i).cbegin(), ages.at(i).cend());
            g.maxAge = *std::max_element(ages.at(i).cbegin(), ages.at(i).cend());
            g.medianAge = median(ages.at(i));
        }
        if (!idles.at(i).isEmpty()) {
            g.minIdle = *std::min_element(idles.at(i).cbegin(), idles.at(i).cend());
            g.maxIdle = *std::max_element(idles.at(i).cbegin(), idles.at(i).cend());
            g.medianIdle = median(idles.at(i));
        }
    }
    std::sort(out.begin(), out.end(), [](const Group &a, const Group &b) {
        return a.connections != b.connections ? a.connections > b.connections : a.key < b.key;
    });
    return out;
}

QList<Hint> hints(const QList<ClientEntry> &clients, const Churn &churn)
{
    QList<Hint> out;
    QList<ClientEntry> others;
    for (const ClientEntry &c : clients)
        if (!isOwn(c))
            others.append(c);
    // A new connection per request: new connections keep arriving from one address, and most
    // of what it has connected is only seconds old (a pool just started has young connections
    // too, but opens no new ones).
    for (const Group &g : group(others, GroupBy::Address)) {
        const double arriving = churn.newPerSecondByHost.value(g.key, 0);
        if (arriving >= 5 && g.connections >= 3 && g.young * 5 >= g.connections * 4)
            out.append({QStringLiteral("connection-per-request"), g.key,
                        tr("%1 new connections a second from %2, and %3 of its %4 are under %5 s old: it looks "
                           "like a new connection per request (use a pool, and keep it)")
                            .arg(arriving, 0, 'f', 1)
                            .arg(QString::fromUtf8(g.key))
                            .arg(g.young)
                            .arg(g.connections)
                            .arg(kYoungSeconds)});
    }
    // A pool far larger than its use: many connections of one application idle for a long time.
    for (const Group &g : group(others, GroupBy::Name)) {
        if (g.key != "(no name)" && g.connections >= 8 && g.idleLong * 4 >= g.connections * 3)
            out.append({QStringLiteral("oversized-pool"), g.key,
                        tr("%1 of the %2 connections named %3 have been idle for %4 s or more: the pool is much "
                           "larger than its use (each costs the server memory and a file descriptor)")
                            .arg(g.idleLong)
                            .arg(g.connections)
                            .arg(QString::fromUtf8(g.key))
                            .arg(kLongIdleSeconds)});
    }
    int unnamed = 0;
    for (const ClientEntry &c : others)
        unnamed += c.name.isEmpty() ? 1 : 0;
    if (unnamed > 0)
        out.append(
            {QStringLiteral("no-client-name"), QByteArray("(no name)"),
             tr("%1 connection(s) without a name (CLIENT SETNAME): harder to trace to an application").arg(unnamed)});
    if (churn.maxClients > 0 && churn.connected >= 0 && churn.connected * 5 >= churn.maxClients * 4)
        out.append({QStringLiteral("maxclients"),
                    {},
                    tr("%1 of maxclients %2 connected: new connections are refused at the limit")
                        .arg(churn.connected)
                        .arg(churn.maxClients)});
    if (churn.rejected > 0)
        out.append({QStringLiteral("rejected"),
                    {},
                    tr("%1 connection(s) refused since the server started (maxclients reached)").arg(churn.rejected)});
    return out;
}

} // namespace clients
