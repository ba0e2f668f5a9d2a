// SPDX-License-Identifier: GPL-3.0-or-later
#include "boundedread.h"

#include "redisclient.h"

#include <QDateTime>
#include <QPointer>
#include <memory>

namespace boundedread {

namespace {

struct BatchState
{
    QPointer<RedisClient> client;
    QPointer<QObject> context;
    int items = 0;
    int perBatch = 1;
    BatchCommands commands;
    BatchArrived arrived;
    std::function<void()> done;
};

void batchFrom(const std::shared_ptr<BatchState> &s, int from)
{
    for (; from < s->items; from = qMin(from + s->perBatch, s->items)) {
        if (!s->client)
            break;
        const int to = qMin(from + s->perBatch, s->items);
        const QList<RedisCommand> commands = s->commands(from, to);
        if (commands.isEmpty())
            continue;
        const qint64 sent = QDateTime::currentMSecsSinceEpoch();
        s->client->sendBatch(commands, s->context, [s, from, to, sent](const RedisReply &r) {
            if (s->arrived(from, to, r, sent))
                batchFrom(s, to);
        });
        return;
    }
    s->done();
}

struct ScanState
{
    QPointer<RedisClient> client;
    QPointer<QObject> context;
    int cap = 0;
    QHash<QByteArray, ScannedSet> sets;
    QList<QPair<QByteArray, QByteArray>> active; // key, cursor
    std::function<void(const QHash<QByteArray, ScannedSet> &, const RedisError &)> done;
};

void scanRound(const std::shared_ptr<ScanState> &s)
{
    if (s->active.isEmpty() || !s->client) {
        s->done(s->sets, {});
        return;
    }
    QList<RedisCommand> commands;
    for (const auto &a : std::as_const(s->active))
        commands.append({"SSCAN", a.first, a.second, "COUNT", "100"});
    s->client->sendBatch(commands, s->context, [s](const RedisReply &r) {
        if (!r.ok()) {
            s->done(s->sets, r.error);
            return;
        }
        QList<QPair<QByteArray, QByteArray>> next;
        for (qsizetype i = 0; i < s->active.size(); ++i) {
            const QByteArray &key = s->active.at(i).first;
            ScannedSet &set = s->sets[key];
            const RedisValue &v = r.value(i);
            if (v.isError() || !v.isArray() || v.size() < 2) {
                set.error = v.isError()
                    ? RedisError::fromReply(v)
                    : RedisError::make(RedisError::Kind::Protocol, QStringLiteral("bad SSCAN reply"));
                continue;
            }
            for (const RedisValue &m : v.at(1).elements()) {
                if (set.members.size() >= s->cap)
                    break;
                set.members.append(m.bytes());
            }
            const QByteArray cursor = v.at(0).bytes();
            if (cursor == "0")
                set.complete = true;
            else if (set.members.size() < s->cap)
                next.append({key, cursor});
        }
        s->active = next;
        scanRound(s);
    });
}

} // namespace

void inBatches(RedisClient *client, QObject *context, int items, int perBatch, BatchCommands commands,
               BatchArrived arrived, std::function<void()> done)
{
    auto s = std::make_shared<BatchState>();
    s->client = client;
    s->context = context;
    s->items = items;
    s->perBatch = qMax(1, perBatch);
    s->commands = std::move(commands);
    s->arrived = std::move(arrived);
    s->done = std::move(done);
    batchFrom(s, 0);
}

void runBatches(RedisClient *client, QObject *context, const QList<RedisCommand> &commands, int chunk,
                const std::function<void(const QList<RedisValue> &, const RedisError &)> &done)
{
    auto values = std::make_shared<QList<RedisValue>>();
    inBatches(
        client, context, int(commands.size()), chunk,
        [commands](int from, int to) { return commands.mid(from, to - from); },
        [values, done](int, int, const RedisReply &r, qint64) {
            values->append(r.values);
            if (!r.ok())
                done(*values, r.error);
            return r.ok();
        },
        [values, done] { done(*values, {}); });
}

void scanSets(RedisClient *client, QObject *context, const QList<QByteArray> &keys, int capPerSet,
              std::function<void(const QHash<QByteArray, ScannedSet> &, const RedisError &)> done)
{
    auto s = std::make_shared<ScanState>();
    s->client = client;
    s->context = context;
    s->cap = capPerSet;
    s->done = std::move(done);
    for (const QByteArray &key : keys) {
        if (s->sets.contains(key))
            continue;
        s->sets.insert(key, {});
        s->active.append({key, "0"});
    }
    scanRound(s);
}

QList<int> rotate(qsizetype &cursor, qsizetype size, qsizetype max)
{
    QList<int> slice;
    for (qsizetype i = 0; i < qMin(max, size); ++i)
        slice.append(int((cursor + i) % size));
    cursor = size == 0 ? 0 : (cursor + slice.size()) % size;
    return slice;
}

RedisCommand lengthOf(const QByteArray &key, KeyType type)
{
    const QByteArray command = keyTypeLengthCommand(type);
    return command.isEmpty() ? RedisCommand() : RedisCommand{command, key};
}

QList<QPair<QByteArray, double>> scoredMembers(const RedisValue &reply)
{
    QList<QPair<QByteArray, double>> out;
    if (!reply.elements().isEmpty() && reply.at(0).isArray()) {
        for (const RedisValue &p : reply.elements())
            out.append({p.at(0).bytes(), p.at(1).toDouble()});
    } else {
        for (qsizetype k = 0; k + 1 < reply.size(); k += 2)
            out.append({reply.at(k).bytes(), reply.at(k + 1).toDouble()});
    }
    return out;
}

} // namespace boundedread
