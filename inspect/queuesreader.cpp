// SPDX-License-Identifier: GPL-3.0-or-later
#include "queuesreader.h"

#include "boundedread.h"
#include "bytesescape.h"
#include "redisclient.h"
#include "redisvalue.h"

#include <QDateTime>
#include <QTimer>

#include <utility>

namespace {

// Due-time bucket edges after now, in ms: the histogram's buckets lie between them.
constexpr qint64 kEdgesMs[] = {0, 60000, 5 * 60000, 15 * 60000, 60 * 60000, 24 * 60 * 60000};

} // namespace

QueuesReader::QueuesReader(RedisClient *client, QObject *parent)
    : QObject(parent), m_client(client), m_pace(new QTimer(this)), m_poll(new QTimer(this))
{
    m_pace->setSingleShot(true);
    m_pace->setInterval(30); // paced sampling: a round of kZSetsPerRound keys, then a pause
    connect(m_pace, &QTimer::timeout, this, &QueuesReader::sampleRound);
    m_poll->setInterval(kRefreshMs);
    connect(m_poll, &QTimer::timeout, this, &QueuesReader::refresh);
}

void QueuesReader::setKeys(const QList<QByteArray> &lists, const QList<QByteArray> &zsets)
{
    delete m_context;
    m_context = new QObject(this);
    m_lists = lists.mid(0, kMaxLists);
    m_zsets = zsets.mid(0, kMaxZSets);
    m_samples.clear();
    m_toSample = m_zsets;
    m_classified = false;
    m_refreshing = false;
    m_refreshAgain = false;
    m_pace->stop();
    if (m_toSample.isEmpty())
        finishClassification();
    else
        sampleRound();
}

QList<double> QueuesReader::parseScores(const RedisValue &v) const
{
    QList<double> out;
    if (!v.isArray())
        return out;
    // RESP2: member, score, member, score…; RESP3: [member, score] pairs.
    if (!v.elements().isEmpty() && v.at(0).isArray()) {
        for (const RedisValue &pair : v.elements())
            out.append(pair.at(1).toDouble());
    } else {
        for (qsizetype i = 1; i < v.size(); i += 2)
            out.append(v.at(i).toDouble());
    }
    return out;
}

void QueuesReader::sampleRound()
{
    const QList<QByteArray> round = m_toSample.mid(0, kZSetsPerRound);
    m_toSample = m_toSample.mid(round.size());
    QList<RedisCommand> commands;
    for (const QByteArray &key : round) {
        commands.append({"ZRANGE", key, "0", "2", "WITHSCORES"});
        commands.append({"ZRANGE", key, "-1", "-1", "WITHSCORES"});
    }
    m_client->sendBatch(commands, m_context, [this, round](const RedisReply &r) {
        if (!r.ok()) {
            Q_EMIT failed(r.error.message);
            return;
        }
        for (qsizetype i = 0; i < round.size(); ++i) {
            const RedisValue &low = r.value(2 * i);
            if (low.isError())
                continue; // a key that changed type: left unclassified
            QList<double> scores = parseScores(low);
            const QList<double> high = parseScores(r.value(2 * i + 1));
            if (!high.isEmpty() && scores.size() >= 3)
                scores.append(high.first()); // the highest, unless the set has at most three
            if (!scores.isEmpty())
                m_samples.insert(round.at(i), scores);
        }
        if (m_toSample.isEmpty())
            finishClassification();
        else
            m_pace->start();
    });
}

void QueuesReader::reclassify()
{
    if (m_context && m_toSample.isEmpty())
        finishClassification();
}

void QueuesReader::finishClassification()
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    m_classes.clear();
    for (const QByteArray &key : m_lists)
        m_classes.insert(key, m_rules.classify(key, KeyType::List, nullptr, now));
    for (const QByteArray &key : m_zsets) {
        const auto it = m_samples.constFind(key);
        if (it == m_samples.constEnd())
            continue; // empty or gone
        m_classes.insert(key, m_rules.classify(key, KeyType::ZSet, &it.value(), now));
    }
    m_classified = true;
    Q_EMIT classified();
    refresh();
}

QList<QByteArray> QueuesReader::keysOfKind(QueueKind kind) const
{
    QList<QByteArray> out;
    for (auto it = m_classes.constBegin(); it != m_classes.constEnd(); ++it) {
        if (it.value().kind == kind)
            out.append(it.key());
    }
    std::sort(out.begin(), out.end());
    return out;
}

RedisCommand QueuesReader::nextDueCommand(const QByteArray &key, const QByteArray &now, const QVersionNumber &version)
{
    if (version.isNull() || version >= QVersionNumber(6, 2))
        return {"ZRANGE", key, '(' + now, "+inf", "BYSCORE", "LIMIT", "0", "10", "WITHSCORES"};
    return {"ZRANGEBYSCORE", key, '(' + now, "+inf", "WITHSCORES", "LIMIT", "0", "10"};
}

void QueuesReader::setPolling(bool on)
{
    if (on) {
        m_poll->start();
        if (m_classified)
            refresh();
    } else {
        m_poll->stop();
    }
}

void QueuesReader::refresh()
{
    if (m_refreshing) {
        m_refreshAgain = true;
        return;
    }
    if (!m_classified || !m_context)
        return;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    QList<QueueInfo> queues = plannedQueues();
    QList<DelayedInfo> delayed = plannedDelayed(now);
    const QVersionNumber version = m_versionOverride.isNull() ? m_client->facts().version : m_versionOverride;
    const QList<RedisCommand> commands = queueCommands(queues) + delayedCommands(delayed, now, version);
    if (commands.isEmpty()) {
        Q_EMIT queuesAvailable({}, {});
        return;
    }
    m_refreshing = true;
    m_client->sendBatch(commands, m_context, [this, queues, delayed, now](const RedisReply &r) mutable {
        m_refreshing = false;
        if (!r.ok()) {
            m_refreshAgain = false;
            Q_EMIT failed(r.error.message);
            return;
        }
        qsizetype i = 0;
        for (QueueInfo &q : queues)
            readQueue(r, &i, now, &q);
        for (DelayedInfo &d : delayed)
            readDelayed(r, &i, now, &d);
        Q_EMIT queuesAvailable(queues, delayed);
        if (std::exchange(m_refreshAgain, false))
            refresh();
    });
}

QList<QueueInfo> QueuesReader::plannedQueues() const
{
    // Queues and their processing lists; a processing list whose queue is empty (and so gone)
    // still gets a row under its queue's name.
    QList<QueueInfo> queues;
    QHash<QByteArray, int> queueRow;
    for (const QByteArray &key : keysOfKind(QueueKind::Queue)) {
        queueRow.insert(key, int(queues.size()));
        QueueInfo q;
        q.key = key;
        q.reason = m_classes.value(key).reason;
        queues.append(q);
    }
    for (const QByteArray &key : keysOfKind(QueueKind::ProcessingList)) {
        const QueueClassification c = m_classes.value(key);
        if (!queueRow.contains(c.queue)) {
            queueRow.insert(c.queue, int(queues.size()));
            QueueInfo q;
            q.key = c.queue;
            q.reason = QStringLiteral("has the processing list %1").arg(bytesescape::quoteIfNeeded(key));
            queues.append(q);
        }
        ProcessingListInfo p;
        p.key = key;
        queues[queueRow.value(c.queue)].processing.append(p);
    }
    return queues;
}

QList<DelayedInfo> QueuesReader::plannedDelayed(qint64 now) const
{
    QList<DelayedInfo> delayed;
    for (const QByteArray &key : keysOfKind(QueueKind::DelayedJobs)) {
        DelayedInfo d;
        d.key = key;
        d.reason = m_classes.value(key).reason;
        d.unit = m_classes.value(key).unit;
        d.readAtMs = now;
        delayed.append(d);
    }
    return delayed;
}

QList<RedisCommand> QueuesReader::queueCommands(const QList<QueueInfo> &queues)
{
    QList<RedisCommand> commands;
    for (const QueueInfo &q : queues) {
        commands.append({"LLEN", q.key});
        commands.append({"LINDEX", q.key, "0"});
        commands.append({"LINDEX", q.key, "-1"});
        // Workers move items with LMOVE queue proc RIGHT LEFT (or RPOPLPUSH), so a processing
        // list fills at its head and the item taken longest ago sits at its tail.
        for (const ProcessingListInfo &p : q.processing) {
            commands.append({"LLEN", p.key});
            commands.append({"LINDEX", p.key, "-1"});
        }
    }
    return commands;
}

QList<RedisCommand> QueuesReader::delayedCommands(const QList<DelayedInfo> &delayed, qint64 now,
                                                  const QVersionNumber &version)
{
    QList<RedisCommand> commands;
    for (const DelayedInfo &d : delayed) {
        const auto at = [&d, now](qint64 offsetMs) { return scoreAtMs(now + offsetMs, d.unit); };
        const QByteArray nowArg = at(0);
        commands.append({"ZCARD", d.key});
        commands.append(nextDueCommand(d.key, nowArg, version));
        commands.append({"ZRANGE", d.key, "0", "0", "WITHSCORES"});
        // Due-time buckets: (-inf, now], (now, now+1m], …, (now+24h, +inf): they add up to ZCARD.
        commands.append({"ZCOUNT", d.key, "-inf", nowArg});
        for (size_t i = 0; i + 1 < std::size(kEdgesMs); ++i)
            commands.append({"ZCOUNT", d.key, '(' + at(kEdgesMs[i]), at(kEdgesMs[i + 1])});
        commands.append({"ZCOUNT", d.key, '(' + at(kEdgesMs[std::size(kEdgesMs) - 1]), "+inf"});
    }
    return commands;
}

void QueuesReader::readQueue(const RedisReply &r, qsizetype *i, qint64 now, QueueInfo *q)
{
    q->length = r.value((*i)++).toInteger();
    q->head = r.value((*i)++).bytes();
    q->tail = r.value((*i)++).bytes();
    QList<QPair<qint64, qint64>> &samples = m_lengthSamples[q->key];
    samples.append({now, q->length});
    while (samples.size() > 13) // about a minute at one sample per kRefreshMs
        samples.removeFirst();
    const qint64 span = samples.last().first - samples.first().first;
    if (samples.size() >= 2 && span > 0)
        q->growthPerMin = double(samples.last().second - samples.first().second) * 60000.0 / double(span);
    for (ProcessingListInfo &p : q->processing) {
        p.length = r.value((*i)++).toInteger();
        p.tail = r.value((*i)++).bytes();
        if (const auto ts = itemTimestampMs(p.tail, now, &p.ageSource)) {
            p.oldestAgeMs = qMax<qint64>(0, now - *ts);
            p.stale = p.oldestAgeMs > m_staleMs;
        }
    }
}

void QueuesReader::readDelayed(const RedisReply &r, qsizetype *i, qint64 now, DelayedInfo *d)
{
    d->total = r.value((*i)++).toInteger();
    const RedisValue &next = r.value((*i)++);
    const RedisValue &first = r.value((*i)++);
    for (const auto &p : boundedread::scoredMembers(next))
        d->next.append({p.first, p.second, dueMsOf(p.second, d->unit)});
    d->histogram.clear();
    for (int b = 0; b < DelayedInfo::kBuckets; ++b)
        d->histogram.append(r.value((*i)++).toInteger());
    d->overdue = d->histogram.value(0);
    const auto lowest = boundedread::scoredMembers(first);
    if (d->overdue > 0 && !lowest.isEmpty())
        d->oldestOverdueAgeMs = qMax<qint64>(0, now - dueMsOf(lowest.first().second, d->unit));
}
