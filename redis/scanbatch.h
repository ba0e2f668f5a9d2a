// SPDX-License-Identifier: GPL-3.0-or-later
// What a keyspace scan delivers (KeyScanner, in keyscanner.h, sends the commands): models take
// these and never see the scanner.
#pragma once

#include "keytype.h"
#include "rediserror.h"
#include "ttl.h"

#include <QList>
#include <QMetaType>
#include <QString>

struct ScannedKey
{
    QByteArray name;
    qint64 pttlMs = ttl::kUnknown; // see ttl.h; unknown in a names-only scan
    qint64 memoryBytes = -1; // -1 unknown
    qint64 elements = -1; // STRLEN/HLEN/LLEN/SCARD/ZCARD/XLEN by type; -1 unknown
    KeyType type = KeyType::Unknown;
};

// What one flush of the scanner delivers: keys found since the previous flush. A key can
// appear in two batches (SCAN may return it twice while the server rehashes); the model
// keeps it once.
struct ScanBatch
{
    quint64 generation = 0; // which scan produced it; stale generations are dropped
    QList<ScannedKey> keys;
    qint64 capturedAtMs = 0; // wall clock when the TTLs were read
};
Q_DECLARE_METATYPE(ScanBatch)

// One node's part of a Redis Cluster walk (ScanProgress::perNode).
struct NodeScanProgress
{
    QString address; // host:port, as the node is reached
    quint64 returned = 0; // names its SCAN returned
    qint64 dbsize = -1; // its DBSIZE at the start
    bool done = false;
    bool waiting = false; // for its connection
    QString problem; // why it waits, or why its walk stopped
};

struct ScanProgress
{
    quint64 generation = 0;
    quint64 returned = 0; // names SCAN returned, duplicates included
    quint64 vanished = 0; // keys gone between SCAN and TYPE
    qint64 dbsize = -1; // DBSIZE at the start
    double keysPerSecond = 0;
    int count = 0; // the current COUNT hint
    double commandsPerSecond = 0; // what the scan sent over about the last half second
    int ceiling = 0; // commands per second now allowed; 0: none
    bool adaptive = false; // the ceiling follows the server's load (see LoadProbe)
    QString paceReason; // why the ceiling is what it is (adaptive pacing)
    double elapsedSeconds = 0;
    bool finished = false;
    bool paused = false;
    bool waitingForConnection = false;
    RedisError error; // the scan stopped or is waiting because of this
    // A Redis Cluster: the primaries walked (each with its own cursor, in parallel) and how many
    // have finished; sweeping while the slots that moved during the walk are read again.
    int nodes = 0;
    int nodesDone = 0;
    bool sweeping = false;
    QList<NodeScanProgress> perNode; // by address
};
Q_DECLARE_METATYPE(ScanProgress)
