// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clientlist.h"

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QString>

// Pub/sub has no keys: what a server says of it is its channels (PUBSUB CHANNELS, NUMSUB,
// SHARDCHANNELS, SHARDNUMSUB), the count of pattern subscriptions (PUBSUB NUMPAT: no command
// lists the patterns themselves), and its subscribers' connections (CLIENT LIST TYPE pubsub),
// whose output buffers grow when they stop reading until the server cuts them at
// client-output-buffer-limit pubsub.
namespace pubsub {

struct Channel
{
    QByteArray name;
    qint64 subscribers = -1; // NUMSUB / SHARDNUMSUB; -1 unknown
    bool shard = false; // a shard channel (SSUBSCRIBE, 7.0+)
};

// client-output-buffer-limit's pubsub class: the hard limit cuts a client at once, the soft
// one when it stays over it for softSeconds. 0 means no limit.
struct OutputLimit
{
    qint64 hardBytes = 0;
    qint64 softBytes = 0;
    qint64 softSeconds = 0;
    bool known = false;
};
// "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60" → the pubsub class
// (the values as CONFIG GET gives them, in bytes; units such as "32mb" are read too).
OutputLimit pubsubLimit(const QByteArray &configValue);

// A subscriber whose output buffer is growing towards its cut-off.
struct SlowSubscriber
{
    ClientEntry client;
    QString verdict; // "over the soft limit (8 MiB): cut after 60 s over it"
    double shareOfHard = -1; // omem / hard limit; -1 without a hard limit
    bool critical = false; // over the soft limit, or at 75 % of the hard one
};

// The pub/sub clients whose output buffers deserve a look: over a quarter of the hard limit,
// over the soft limit, or (without limits) holding more than 1 MiB; worst first.
QList<SlowSubscriber> slowSubscribers(const QList<ClientEntry> &clients, const OutputLimit &limit);

// One read of a server's pub/sub.
struct Snapshot
{
    QList<Channel> channels; // plain channels, then shard channels; by name
    qint64 patterns = -1; // PUBSUB NUMPAT; -1 unknown
    QList<ClientEntry> subscribers; // the pub/sub clients (CLIENT LIST TYPE pubsub)
    QList<SlowSubscriber> slow;
    OutputLimit limit;
    bool channelsTruncated = false; // more channels than were counted (NUMSUB of the first N)
    QString shardNote; // why shard channels are not listed (a server before 7.0), else empty
    QString clientsError; // CLIENT LIST or CONFIG GET refused (ACL), else empty
    QByteArray keyspaceEvents; // notify-keyspace-events ("" when off)
    bool keyspaceEventsKnown = false;
    QString keyspaceEventsError; // CONFIG GET refused, else empty
};

} // namespace pubsub

Q_DECLARE_METATYPE(pubsub::Snapshot)
