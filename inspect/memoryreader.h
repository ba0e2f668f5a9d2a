// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keyscanner.h"
#include "memorystats.h"

#include <QObject>
#include <deque>

class QTimer;
class RedisClient;

// One memory analysis: a KeyScanner with MEMORY USAGE and the length commands (no PTTL) on the
// given connection, its batches summed into MemoryStats on this thread in slices of a few
// milliseconds, so that a million keys never hold the event loop. The panel and the
// benchmark both run this.
class MemoryReader : public QObject
{
    Q_OBJECT
public:
    static constexpr int kCommandsPerKey = 3; // TYPE, MEMORY USAGE, the length command

    explicit MemoryReader(RedisClient *client, QObject *parent = nullptr);
    ~MemoryReader() override;

    // Forgets the previous figures and scans again, at most this many commands per second
    // (0: no ceiling).
    void start(int maxCommandsPerSecond);
    void pause();
    void resume();
    void cancel();
    bool isRunning() const { return m_running; }
    bool isPaused() const;
    const MemoryStats &stats() const { return m_stats; }
    MemoryStats &stats() { return m_stats; }
    const ScanProgress &progress() const { return m_progress; }
    // DBSIZE, for the estimate before a run: keyCountAvailable() answers.
    void readKeyCount();

Q_SIGNALS:
    void progressChanged(const ScanProgress &progress);
    // Emitted after a slice added keys (and once on start, empty); cheap to connect, expensive
    // to react to every time.
    void statsAvailable(const MemoryStats &stats);
    // -1 when DBSIZE failed.
    void keyCountAvailable(qint64 keys);
    // The scan is over and every key it found is summed.
    void finished(const ScanProgress &progress);

private:
    void applySlice();
    void maybeFinish();

    RedisClient *m_client;
    KeyScanner *m_scanner;
    MemoryStats m_stats;
    std::deque<ScanBatch> m_queue;
    qsizetype m_queuePos = 0;
    QTimer *m_sliceTimer;
    ScanProgress m_progress;
    bool m_running = false;
    bool m_scanDone = false;
};
