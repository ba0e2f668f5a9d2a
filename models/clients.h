// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clientlist.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMap>
#include <QString>
#include <optional>

// Connections and connection pools as CLIENT LIST shows them: grouped by what tells one
// application from another, with what the practice guides warn about (a connection per
// request, a pool far larger than its use, connections without a name).
namespace clients {

enum class GroupBy : quint8 { Name, Library, Address, User, Database, Command };
QString groupById(GroupBy by); // "name", "lib", "addr", "user", "db", "cmd"
std::optional<GroupBy> groupByFromId(const QString &id);
QStringList groupByIds();

// RedisLens's own connections: named "redislens…" (or lib-name redislens on 7.2+).
bool isOwn(const ClientEntry &c);

struct Group
{
    QByteArray key; // the name, "redis-py 5.0.1", the host, the user, "db 0", the command
    int connections = 0;
    int unnamed = 0;
    int young = 0; // connected less than kYoungSeconds ago
    int idleLong = 0; // idle kLongIdleSeconds or more
    int blocked = 0; // waiting in BLPOP, XREADGROUP, WAIT…
    qint64 minAge = -1, medianAge = -1, maxAge = -1; // seconds
    qint64 minIdle = -1, medianIdle = -1, maxIdle = -1;
    qint64 queryBuffers = 0; // qbuf, bytes
    qint64 outputBuffers = 0; // omem, bytes
    qint64 memory = 0; // tot-mem, bytes
    QMap<QByteArray, int> blockedOn; // command → clients blocked in it
    QMap<QByteArray, int> commands; // last command → clients whose last command it was
    bool own = false; // every connection of the group is RedisLens's
    int ownConnections = 0; // RedisLens's own among them
    QList<qint64> ids; // the CLIENT LIST ids of its connections, in the list's order
};

constexpr qint64 kYoungSeconds = 5;
constexpr qint64 kLongIdleSeconds = 60;

// The groups, most connections first (then by key).
QList<Group> group(const QList<ClientEntry> &clients, GroupBy by);

// Connections over time, from two INFO readings a known interval apart.
struct Churn
{
    double acceptedPerSecond = -1; // total_connections_received's rate; -1 unknown
    qint64 connected = -1; // connected_clients
    qint64 rejected = -1; // rejected_connections (since the server started)
    qint64 maxClients = -1; // CONFIG GET maxclients
    // Connections that appeared between the two readings, per second, by host (CLIENT LIST ids
    // not seen the time before); empty after one reading.
    QHash<QByteArray, double> newPerSecondByHost;
};

struct Hint
{
    QString id; // "connection-per-request", "oversized-pool", "no-client-name", "maxclients", "rejected"
    QByteArray group; // the group it is about (an address, a name), empty for the server
    QString text;
};

// What the guides warn about, from the connections and the churn.
QList<Hint> hints(const QList<ClientEntry> &clients, const Churn &churn);

} // namespace clients
