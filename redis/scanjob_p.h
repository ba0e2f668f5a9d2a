// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keyscanner.h"
#include "redisworker.h"

#include <QElapsedTimer>
#include <QObject>

class QTimer;

// The scan loop itself; lives on the connection's worker thread and talks to the worker
// directly, so the GUI thread only sees finished batches.
class ScanJob : public QObject
{
    Q_OBJECT
public:
    ScanJob(RedisWorker *worker, const ScanOptions &options, quint64 generation);

    void start();
    void pause();
    void resume();
    // A new ceiling from the load probe (0: none); the pacing restarts from now.
    void setCeiling(int commandsPerSecond, const QString &reason);

Q_SIGNALS:
    void batchAvailable(const ScanBatch &batch);
    void progressChanged(const ScanProgress &progress);
    void finished(const ScanProgress &progress);

private:
    void sendScan(const QByteArray &cursor);
    void sendScanPaced(const QByteArray &cursor);
    void onScanReply(const QByteArray &cursor, const RedisReply &reply, qint64 sentAtMs, const QByteArray &sentRunId);
    void onDetails(const QList<QByteArray> &keys, const QByteArray &cursorAfter, const RedisReply &reply);
    void onCounts(QList<ScannedKey> keys, const QByteArray &cursorAfter, qint64 capturedAt, const RedisReply &reply);
    // Hands finished keys to the next flush; every key before cursorAfter is then delivered.
    void deliver(QList<ScannedKey> &keys, const QByteArray &cursorAfter, qint64 capturedAtMs);
    int commandsPerKey() const;
    void onFailure(const RedisError &error);
    void maybeFinish();
    void flush();
    ScanProgress progress() const;

    RedisWorker *m_worker;
    ScanOptions m_options;
    quint64 m_generation;
    QTimer *m_flushTimer = nullptr;
    QTimer *m_paceTimer = nullptr;
    ScanBatch m_batch;
    QElapsedTimer m_clock;
    QByteArray m_resumeCursor = "0"; // every key before this cursor is delivered
    QByteArray m_nextCursor = "0";
    int m_count;
    int m_ceiling; // commands per second; 0: none
    QString m_paceReason;
    qint64 m_paceFromMs = 0; // pacing counts commands from here, at m_paceFromCommands
    qint64 m_paceFromCommands = 0;
    qint64 m_rateAtMs = 0; // the recent rate: commands sent since this moment
    qint64 m_rateCommands = 0;
    double m_recentRate = 0;
    int m_outstanding = 0;
    qint64 m_commandsSent = 0;
    quint64 m_returned = 0;
    quint64 m_vanished = 0;
    qint64 m_dbsize = -1;
    QByteArray m_cursorRunId; // the server process that issued the cursors we hold
    bool m_scanDone = false;
    bool m_paused = false;
    bool m_finished = false;
    bool m_waiting = false;
    bool m_scanPending = false; // a SCAN is in flight or scheduled
    RedisError m_error;
};
