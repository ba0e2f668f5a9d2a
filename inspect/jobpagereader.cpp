// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobpagereader.h"

#include "boundedread.h"
#include "redisclient.h"
#include "rediscommand.h"
#include "zsetkind.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>

namespace {

// The fields of a job hash a page shows: its name, times, attempts and failure.
QList<QByteArray> pageFields(const QString &library)
{
    if (library == QLatin1String("RQ"))
        return {"description", "created_at", "enqueued_at", "ended_at", "status", "exc_info"};
    return {"name",         "timestamp", "delay",        "processedOn", "finishedOn",
            "failedReason", "atm",       "attemptsMade", "stacktrace"};
}

// RQ compresses a job's exc_info with zlib; older versions kept the text as it was.
QByteArray inflated(const QByteArray &value)
{
    const QByteArray text = jobpages::inflate(value);
    return text.isEmpty() ? value : text;
}

// The state key's length: how many jobs it holds (a string holds none).
RedisCommand lengthCommand(const JobQueueKey &k)
{
    return k.type == KeyType::String ? RedisCommand() : boundedread::lengthOf(k.key, k.type);
}

// RQ's latest result of a job (XREVRANGE rq:results:<id> + - COUNT 1): a failure's traceback,
// base64 of zlib, and when it was written (the entry id's milliseconds).
void readRqResult(const RedisValue &reply, JobEntry *job)
{
    const RedisValue &entry = reply.at(0);
    const RedisValue &fields = entry.at(1);
    QByteArray type, exc;
    for (qsizetype i = 0; i + 1 < fields.size(); i += 2) {
        if (fields.at(i).bytes() == "type")
            type = fields.at(i + 1).bytes();
        else if (fields.at(i).bytes() == "exc_string")
            exc = fields.at(i + 1).bytes();
    }
    if (type != "2" || exc.isEmpty()) // Result.Type.FAILED
        return;
    const QByteArray text = jobpages::inflate(QByteArray::fromBase64(exc));
    if (text.isEmpty())
        return;
    job->error = QString::fromUtf8(text);
    job->reason = jobpages::reasonLine(job->error);
    const qint64 at = entry.at(0).bytes().split('-').value(0).toLongLong();
    if (job->finishedMs < 0 && at > 0)
        job->finishedMs = at;
}

// A range read's reply as (member, score) pairs, in the order the page lists them; the score is
// NaN where the key is not a sorted set.
QList<QPair<QByteArray, double>> membersOf(const RedisValue &v, KeyType type, const QString &library)
{
    QList<QPair<QByteArray, double>> members;
    if (type == KeyType::ZSet)
        return boundedread::scoredMembers(v);
    if (type == KeyType::Hash) {
        // Celery's unacked: delivery tag → [message, exchange, routing key].
        const RedisValue &fields = v.at(1);
        for (qsizetype f = 1; f < fields.size(); f += 2) {
            const QJsonObject message = QJsonDocument::fromJson(fields.at(f).bytes()).array().at(0).toObject();
            members.append(
                {message.isEmpty() ? fields.at(f).bytes() : QJsonDocument(message).toJson(QJsonDocument::Compact),
                 qQNaN()});
        }
        return members;
    }
    QList<RedisValue> elements = v.elements();
    if (type == KeyType::List && jobpages::takesFromRight(library))
        std::reverse(elements.begin(), elements.end());
    for (const RedisValue &e : elements)
        members.append({e.bytes(), qQNaN()});
    return members;
}

// The page's jobs from one key's members: ids (the libraries that keep job hashes) or payloads,
// with the due or end time a sorted set's scores give, in whatever epoch unit they are.
void appendJobs(JobPage &page, const QList<QPair<QByteArray, double>> &members, const QString &library, qint64 now)
{
    QList<double> scores;
    for (const auto &m : members) {
        if (!std::isnan(m.second))
            scores.append(m.second);
    }
    const double scale = scores.isEmpty() ? 0 : epochScoreScale(scores, now);
    const bool hashes = jobpages::keepsJobHashes(library);
    for (const auto &[member, score] : members) {
        JobEntry job;
        if (hashes) {
            // RQ 2 lists a started job as "<job id>:<execution id>".
            const qsizetype colon = library == QLatin1String("RQ") ? member.indexOf(':') : -1;
            job.id = colon > 0 ? member.left(colon) : member;
        } else {
            job = jobpages::entryFromPayload(member);
        }
        if (scale > 0 && !std::isnan(score)) {
            const qint64 ms = qint64(score / scale);
            if (jobpages::newestFirst(page.role)) {
                // RQ scores its failed and finished registries by when they expire.
                if (library != QLatin1String("RQ") && job.finishedMs < 0)
                    job.finishedMs = ms;
            } else if (job.dueMs < 0) {
                job.dueMs = ms;
            }
        }
        page.jobs.append(job);
    }
}

} // namespace

// One page being read: the keys of the state, their lengths, and the page's members.
struct JobPageReader::Read
{
    JobQueueSpec queue;
    JobPage page;
    QList<JobQueueKey> keys;
    QList<qint64> lengths;
    qint64 now = 0;
};

JobPageReader::JobPageReader(RedisClient *client, QObject *parent) : QObject(parent), m_client(client)
{ }

JobPageReader::~JobPageReader() = default;

qint64 JobPageReader::now() const
{
    return m_nowOverride > 0 ? m_nowOverride : QDateTime::currentMSecsSinceEpoch();
}

void JobPageReader::read(const JobQueueSpec &queue, const QString &role, int page)
{
    delete m_context;
    m_context = new QObject(this);
    auto read = std::make_shared<Read>();
    read->queue = queue;
    read->now = now();
    read->page.queue = queue.id();
    read->page.role = role;
    read->page.page = qMax(0, page);
    QList<RedisCommand> lengths;
    for (const JobQueueKey &k : queue.keys) {
        if (k.role != role)
            continue;
        const RedisCommand c = lengthCommand(k);
        // Celery's unacked_index holds the same messages as its unacked hash.
        if (c.isEmpty() || (queue.library == QLatin1String("Celery") && k.type == KeyType::ZSet))
            continue;
        read->keys.append(k);
        lengths.append(c);
    }
    if (lengths.isEmpty()) {
        read->page.total = 0;
        Q_EMIT pageAvailable(read->page);
        return;
    }
    m_client->sendBatch(lengths, m_context, [this, read](const RedisReply &r) {
        if (!r.ok()) {
            Q_EMIT failed(r.error.message);
            return;
        }
        read->page.total = 0;
        for (qsizetype i = 0; i < read->keys.size(); ++i) {
            const qint64 n = r.value(i).isInteger() ? r.value(i).toInteger() : 0;
            read->lengths.append(n);
            read->page.total += n;
        }
        read->page.page = qMin(read->page.page, read->page.pageCount() - 1);
        readMembers(read);
    });
}

void JobPageReader::readMembers(const std::shared_ptr<Read> &read)
{
    const QString &library = read->queue.library;
    const QString &role = read->page.role;
    // The page's range over the keys of the state, one after the other.
    qint64 from = qint64(read->page.page) * jobpages::kPageSize;
    qint64 want = jobpages::kPageSize;
    QList<RedisCommand> commands;
    QList<JobQueueKey> sources;
    for (qsizetype i = 0; i < read->keys.size() && want > 0; ++i) {
        const JobQueueKey &k = read->keys.at(i);
        const qint64 n = read->lengths.at(i);
        if (from >= n) {
            from -= n;
            continue;
        }
        const qint64 take = qMin(want, n - from);
        const QByteArray first = QByteArray::number(from);
        const QByteArray last = QByteArray::number(from + take - 1);
        switch (k.type) {
        case KeyType::List:
            if (jobpages::takesFromRight(library))
                commands.append({"LRANGE", k.key, QByteArray::number(-(from + take)), QByteArray::number(-(from + 1))});
            else
                commands.append({"LRANGE", k.key, first, last});
            break;
        case KeyType::ZSet:
            commands.append({jobpages::newestFirst(role) ? "ZREVRANGE" : "ZRANGE", k.key, first, last, "WITHSCORES"});
            break;
        case KeyType::Set: commands.append({"SRANDMEMBER", k.key, QByteArray::number(take)}); break;
        case KeyType::Hash: commands.append({"HSCAN", k.key, "0", "COUNT", QByteArray::number(take)}); break;
        default: continue;
        }
        sources.append(k);
        want -= take;
        from = 0;
    }
    if (commands.isEmpty()) {
        Q_EMIT pageAvailable(read->page);
        return;
    }
    m_client->sendBatch(commands, m_context, [this, read, sources](const RedisReply &r) {
        if (!r.ok()) {
            Q_EMIT failed(r.error.message);
            return;
        }
        const bool hashes = jobpages::keepsJobHashes(read->queue.library);
        for (qsizetype i = 0; i < sources.size(); ++i) {
            const RedisValue &v = r.value(i);
            if (v.isError())
                read->page.error = QString::fromUtf8(v.bytes());
            else
                appendJobs(read->page, membersOf(v, sources.at(i).type, read->queue.library), read->queue.library,
                           read->now);
        }
        if (hashes && !read->page.jobs.isEmpty())
            readHashes(read);
        else
            Q_EMIT pageAvailable(read->page);
    });
}

void JobPageReader::readHashes(const std::shared_ptr<Read> &read)
{
    const QString &library = read->queue.library;
    const bool rq = library == QLatin1String("RQ");
    // RQ's latest result holds a failure's traceback: read it for failed jobs only.
    const bool results = rq && read->page.role == QLatin1String("failed");
    const QList<QByteArray> fields = pageFields(library);
    QList<RedisCommand> commands;
    for (const JobEntry &job : std::as_const(read->page.jobs)) {
        RedisCommand c{"HMGET", jobpages::jobHashKey(read->queue, job.id)};
        c += fields;
        commands.append(c);
        if (results)
            commands.append({"XREVRANGE", "rq:results:" + job.id, "+", "-", "COUNT", "1"});
    }
    m_client->sendBatch(commands, m_context, [this, read, fields, rq, results](const RedisReply &r) {
        if (!r.ok()) {
            Q_EMIT failed(r.error.message);
            return;
        }
        const int per = results ? 2 : 1;
        for (qsizetype i = 0; i < read->page.jobs.size(); ++i) {
            JobEntry &job = read->page.jobs[i];
            const RedisValue &v = r.value(i * per);
            QList<QPair<QByteArray, QByteArray>> present;
            for (qsizetype f = 0; f < fields.size() && f < v.size(); ++f) {
                if (v.at(f).isNil())
                    continue;
                QByteArray value = v.at(f).bytes();
                if (rq && fields.at(f) == "exc_info") // RQ keeps it zlib-compressed
                    value = inflated(value);
                present.append({fields.at(f), value});
            }
            if (present.isEmpty()) {
                job.missing = true;
                continue;
            }
            const qint64 due = job.dueMs;
            const qint64 finished = job.finishedMs;
            const QByteArray id = job.id;
            job = jobpages::entryFrom(jobpages::objectFromFields(present));
            job.id = id;
            // The set's score is when the library will run it (a retry's backoff moves it, while
            // the hash keeps the first delay).
            if (due > 0)
                job.dueMs = due;
            if (job.finishedMs < 0)
                job.finishedMs = finished;
            if (results && job.reason.isEmpty())
                readRqResult(r.value(i * per + 1), &job);
        }
        Q_EMIT pageAvailable(read->page);
    });
}

void JobPageReader::readJob(const JobQueueSpec &queue, const QByteArray &id)
{
    if (jobpages::jobHashKey(queue, id).isEmpty())
        return;
    delete m_jobContext;
    m_jobContext = new QObject(this);
    const QByteArray key = jobpages::jobHashKey(queue, id);
    const bool rq = queue.library == QLatin1String("RQ");
    m_client->sendBatch({{"HSCAN", key, "0", "COUNT", QByteArray::number(kMaxFields)}}, m_jobContext,
                        [this, queueId = queue.id(), id, rq](const RedisReply &r) {
                            if (!r.ok()) {
                                Q_EMIT failed(r.error.message);
                                return;
                            }
                            const RedisValue &flat = r.value(0).at(1);
                            QList<QPair<QByteArray, QByteArray>> fields;
                            for (qsizetype f = 0; f + 1 < flat.size() && fields.size() < kMaxFields; f += 2) {
                                QByteArray value = flat.at(f + 1).bytes();
                                if (rq && flat.at(f).bytes() == "exc_info")
                                    value = inflated(value);
                                fields.append({flat.at(f).bytes(), value});
                            }
                            Q_EMIT jobAvailable(queueId, id, jobpages::objectFromFields(fields));
                        });
}
