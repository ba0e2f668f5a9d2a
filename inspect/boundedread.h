// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keytype.h"
#include "rediscommand.h"
#include "rediserror.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <functional>

class QObject;
class RedisClient;

// Bounded, pipelined reading shared by the pattern monitors. Replies for a 'context' that is
// gone are dropped, and with them the rest of the reading.
namespace boundedread {

// Reads 'items' things, 'perBatch' at a time, one pipeline after the other: 'commands' builds
// the batch [from, to) (an empty batch is skipped, nothing is sent), 'arrived' reads its reply
// with the local time it was sent at and returns false to stop; 'done' follows the last batch.
using BatchCommands = std::function<QList<RedisCommand>(int from, int to)>;
using BatchArrived = std::function<bool(int from, int to, const RedisReply &reply, qint64 sentAtMs)>;
void inBatches(RedisClient *client, QObject *context, int items, int perBatch, BatchCommands commands,
               BatchArrived arrived, std::function<void()> done);

// Sends 'commands' as consecutive pipelines of at most 'chunk' commands; 'done' gets every
// value in order, or the first batch-level error (then the values stop where it happened).
void runBatches(RedisClient *client, QObject *context, const QList<RedisCommand> &commands, int chunk,
                const std::function<void(const QList<RedisValue> &values, const RedisError &error)> &done);

// The command that sizes a key of 'type' (keyTypeLengthCommand: STRLEN, LLEN, SCARD, ZCARD,
// HLEN, XLEN), or an empty command for a type without one.
RedisCommand lengthOf(const QByteArray &key, KeyType type);

// The (member, score) pairs of a WITHSCORES reply, RESP2 (flat) or RESP3 (pairs).
QList<QPair<QByteArray, double>> scoredMembers(const RedisValue &reply);

struct ScannedSet
{
    QList<QByteArray> members;
    bool complete = false; // the cursor came back to 0 before the cap
    RedisError error; // e.g. WRONGTYPE after the key changed
};
// SSCAN of each set, pipelined across the sets, round after round, until each cursor is back
// at 0 or the set gave 'capPerSet' members. Never SMEMBERS: a tag or index can be huge.
void scanSets(RedisClient *client, QObject *context, const QList<QByteArray> &keys, int capPerSet,
              std::function<void(const QHash<QByteArray, ScannedSet> &sets, const RedisError &error)> done);

// The next slice of a rotation through 'size' rows: at most 'max' row numbers from 'cursor'
// on, wrapping; 'cursor' moves past them. Every row is read within a few polls however many.
QList<int> rotate(qsizetype &cursor, qsizetype size, qsizetype max);

} // namespace boundedread
