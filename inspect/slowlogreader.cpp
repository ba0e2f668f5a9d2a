// SPDX-License-Identifier: GPL-3.0-or-later
#include "slowlogreader.h"

#include "redisclient.h"

#include <QTimer>
#include <utility>

SlowlogReader::SlowlogReader(RedisClient *client, QObject *parent)
    : QObject(parent), m_client(client), m_timer(new QTimer(this))
{
    qRegisterMetaType<SlowlogEntry>();
    qRegisterMetaType<SlowlogConfig>();
    m_timer->setInterval(m_intervalMs);
    connect(m_timer, &QTimer::timeout, this, &SlowlogReader::tick);
    connect(m_client, &RedisClient::ready, this, [this] {
        if (m_running)
            tick();
    });
}

SlowlogReader::~SlowlogReader() = default;

void SlowlogReader::setIntervalMs(int ms)
{
    m_intervalMs = qMax(50, ms);
    m_timer->setInterval(m_intervalMs);
}

void SlowlogReader::start()
{
    if (m_running)
        return;
    m_running = true;
    m_timer->start();
    tick();
}

void SlowlogReader::stop()
{
    if (!m_running)
        return;
    m_running = false;
    m_timer->stop();
    if (m_inFlight)
        m_client->cancel(m_inFlight);
    if (m_sizesInFlight) {
        m_client->cancel(m_sizesInFlight);
        m_sizeQueue = std::exchange(m_sizeBatch, {}) + m_sizeQueue;
    }
    m_inFlight = m_sizesInFlight = 0;
}

void SlowlogReader::pollNow()
{
    tick();
}

void SlowlogReader::tick()
{
    // One poll at a time: a slow server is not asked faster than it answers.
    if (m_inFlight || !m_client->isReady())
        return;
    request(m_tracker.requestCount(), 0);
}

void SlowlogReader::request(int count, int attempt)
{
    const QList<RedisCommand> commands{
        {"SLOWLOG", "GET", QByteArray::number(count)},
        {"SLOWLOG", "LEN"},
        {"CONFIG", "GET", "slowlog-*"},
    };
    m_inFlight = m_client->sendBatch(commands, this,
                                     [this, count, attempt](const RedisReply &r) { onReply(r, count, attempt); });
}

void SlowlogReader::onReply(const RedisReply &reply, int count, int attempt)
{
    m_inFlight = 0;
    if (!reply.ok()) {
        setError(reply.error);
        ++m_polls;
        Q_EMIT polled();
        return;
    }

    // CONFIG GET may be refused while SLOWLOG is allowed, and the other way round.
    const RedisValue &configReply = reply.value(2);
    m_configError = RedisError::fromReply(configReply);
    const SlowlogConfig config
        = m_configError ? SlowlogConfig() : slowlog::configFrom(slowlog::parseConfigGet(configReply));
    m_config = config;
    Q_EMIT configAvailable(config);

    SlowlogPage page;
    QString parseError;
    const RedisValue &getReply = reply.value(0);
    if (const RedisError e = RedisError::fromReply(getReply)) {
        setError(e);
        ++m_polls;
        Q_EMIT polled();
        return;
    }
    if (!slowlog::parseEntries(getReply, &page.entries, &parseError)) {
        setError(RedisError::make(RedisError::Kind::Protocol, parseError));
        ++m_polls;
        Q_EMIT polled();
        return;
    }
    bool ok = false;
    page.length = reply.value(1).toInteger(&ok);
    if (!ok || !reply.value(1).isInteger())
        page.length = -1;
    page.requested = count;
    page.maxLength = config.known ? config.maxLength : -1;
    page.runId = m_client->facts().runId;

    const SlowlogTracker::Outcome outcome = m_tracker.apply(page);
    // An incomplete page is asked again at once with the count the tracker wants; the limit
    // on attempts only guards against a log that grows faster than it can be read.
    if (!outcome.complete && attempt < 8) {
        request(m_tracker.requestCount(), attempt + 1);
        return;
    }
    setError({});
    if (outcome.reset)
        Q_EMIT resetDetected();
    if (outcome.missed > 0)
        Q_EMIT entriesMissed(outcome.missed);
    if (!outcome.fresh.isEmpty()) {
        for (const SlowlogEntry &e : outcome.fresh) {
            const RedisCommand size = slowlogflags::sizeCommand(e);
            if (size.isEmpty() || m_sizeAsked.contains(size.at(1)) || m_sizeAsked.size() >= kMaxKeySizeLookups)
                continue;
            m_sizeAsked.insert(size.at(1));
            m_sizeQueue.append(size);
        }
        Q_EMIT entriesAvailable(outcome.fresh, outcome.epoch);
    }
    ++m_polls;
    Q_EMIT polled();
    askKeySizes();
}

void SlowlogReader::askKeySizes()
{
    if (m_sizesInFlight || m_sizeQueue.isEmpty() || !m_running)
        return;
    m_sizeBatch = m_sizeQueue.mid(0, kKeySizesPerBatch);
    m_sizeQueue.remove(0, m_sizeBatch.size());
    m_sizesInFlight = m_client->sendBatch(m_sizeBatch, this, [this](const RedisReply &r) {
        m_sizesInFlight = 0;
        const QList<RedisCommand> batch = std::exchange(m_sizeBatch, {});
        if (!r.ok()) {
            // Lost with the connection: ask again after the next good poll.
            m_sizeQueue = batch + m_sizeQueue;
            return;
        }
        for (qsizetype i = 0; i < batch.size(); ++i) {
            bool ok = false;
            const RedisValue &v = r.value(i);
            const qint64 size = v.isInteger() ? v.toInteger(&ok) : -1;
            // A key of another type now (WRONGTYPE) or a refused command: known to be unknown.
            Q_EMIT keySizeAvailable(batch.at(i).at(1), ok ? size : -1);
        }
        askKeySizes();
    });
}

void SlowlogReader::setError(const RedisError &error)
{
    const bool changed = error.kind != m_error.kind || error.message != m_error.message;
    m_error = error;
    if (changed)
        Q_EMIT errorChanged(error);
}
