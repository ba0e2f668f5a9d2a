// SPDX-License-Identifier: GPL-3.0-or-later
#include "memoryreader.h"

#include "redisclient.h"

#include <QElapsedTimer>
#include <QTimer>

namespace {
constexpr int kSliceBudgetMs = 6;
}

MemoryReader::MemoryReader(RedisClient *client, QObject *parent)
    : QObject(parent), m_client(client), m_scanner(new KeyScanner(client, this)), m_sliceTimer(new QTimer(this))
{
    m_sliceTimer->setSingleShot(true);
    m_sliceTimer->setInterval(0);
    connect(m_sliceTimer, &QTimer::timeout, this, &MemoryReader::applySlice);
    connect(m_scanner, &KeyScanner::batchAvailable, this, [this](const ScanBatch &batch) {
        m_queue.push_back(batch);
        if (!m_sliceTimer->isActive())
            m_sliceTimer->start();
    });
    connect(m_scanner, &KeyScanner::progressChanged, this, [this](const ScanProgress &p) {
        m_progress = p;
        Q_EMIT progressChanged(p);
    });
    connect(m_scanner, &KeyScanner::finished, this, [this](const ScanProgress &p) {
        m_progress = p;
        m_scanDone = true;
        maybeFinish();
    });
}

MemoryReader::~MemoryReader() = default;

void MemoryReader::start(int maxCommandsPerSecond)
{
    m_queue.clear();
    m_queuePos = 0;
    m_stats.clear();
    m_progress = {};
    m_scanDone = false;
    m_running = true;
    ScanOptions options;
    options.details = true;
    options.ttl = false; // memory and length only: TTLs are the TTL panel's business
    options.memory = true;
    options.elements = true;
    options.maxCommandsPerSecond = maxCommandsPerSecond;
    m_scanner->start(options);
    Q_EMIT statsAvailable(m_stats);
}

void MemoryReader::readKeyCount()
{
    m_client->send({"DBSIZE"}, this, [this](const RedisReply &r) {
        Q_EMIT keyCountAvailable(r.value().isInteger() ? r.value().toInteger() : -1);
    });
}

void MemoryReader::pause()
{
    m_scanner->pause();
}

void MemoryReader::resume()
{
    m_scanner->resume();
}

bool MemoryReader::isPaused() const
{
    return m_scanner->isPaused();
}

void MemoryReader::cancel()
{
    if (!m_running)
        return;
    m_scanner->cancel(); // reports finished (cancelled); what arrived so far is still summed
}

void MemoryReader::applySlice()
{
    QElapsedTimer clock;
    clock.start();
    bool added = false;
    while (!m_queue.empty()) {
        const ScanBatch &batch = m_queue.front();
        while (m_queuePos < batch.keys.size()) {
            m_stats.add(batch.keys.at(m_queuePos++));
            added = true;
            // Check the clock every 256 keys: reading it costs more than adding one.
            if ((m_queuePos & 0xff) == 0 && clock.elapsed() >= kSliceBudgetMs)
                break;
        }
        if (m_queuePos < batch.keys.size())
            break;
        m_queue.pop_front();
        m_queuePos = 0;
    }
    if (!m_queue.empty())
        m_sliceTimer->start();
    if (added)
        Q_EMIT statsAvailable(m_stats);
    maybeFinish();
}

void MemoryReader::maybeFinish()
{
    if (!m_running || !m_scanDone || !m_queue.empty())
        return;
    m_running = false;
    Q_EMIT finished(m_progress);
}
