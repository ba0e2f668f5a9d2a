// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keytype.h"
#include "scanbatch.h"

#include <QObject>
#include <QPointer>

class ClusterScan;
class LoadProbe;
class RedisClient;
class ScanJob;

// ScanOptions::maxCommandsPerSecond (and --scan-rate auto): the scan measures what it does to
// the server and its other clients and paces itself (LoadProbe, ScanPacer).
constexpr int kAdaptivePacing = -1;

struct ScanOptions
{
    QByteArray match; // SCAN MATCH pattern; empty means all
    KeyType type = KeyType::Unknown; // SCAN TYPE filter (6.0+)
    bool details = true; // pipelined TYPE (+ PTTL) per key
    bool ttl = true; // PTTL per key, when details are on
    bool memory = false; // MEMORY USAGE per key (opt-in: it costs more)
    // Element count per key (the length command of its type). It needs the type first, so
    // it goes out as a second pipeline per step, behind the next SCAN: no extra round trip.
    bool elements = false;
    int maxCommandsPerSecond = 0; // 0: no ceiling; kAdaptivePacing: measured
    int initialCount = 100;
    int maxCount = 2000;
    int flushIntervalMs = 100;
    // Redis Cluster: walk one replica of each primary (after READONLY) instead of the primary, so
    // that the scan spares the primaries; a shard without a healthy replica is walked on its
    // primary. Also on when the profile says clusterScanReplicas.
    bool replicas = false;
};

// Walks the keyspace with SCAN, never KEYS. On a Redis Cluster it walks every primary in
// parallel, each with its own cursor (ClusterScan), and delivers one stream and one progress. The work runs on the
// connection's worker thread (a dedicated connection keeps the scan from delaying value requests); results arrive on
// the GUI thread in batches at most every flushIntervalMs. Pausing keeps the cursor; a lost
// connection suspends the scan and it resumes from the last complete cursor on reconnect.
class KeyScanner : public QObject
{
    Q_OBJECT
public:
    explicit KeyScanner(RedisClient *client, QObject *parent = nullptr);
    ~KeyScanner() override;

    quint64 start(const ScanOptions &options);
    void pause();
    void resume();
    void cancel();
    bool isRunning() const { return m_running; }
    bool isPaused() const { return m_paused; }
    quint64 generation() const { return m_generation; }

Q_SIGNALS:
    void batchAvailable(const ScanBatch &batch);
    void progressChanged(const ScanProgress &progress);
    void finished(const ScanProgress &progress);

private:
    void onBatch(const ScanBatch &batch);
    void onProgress(const ScanProgress &progress);
    void stopJob();

    void launch(const ScanOptions &options);
    void startCluster(const ScanOptions &options);

    RedisClient *m_client;
    QPointer<ScanJob> m_job;
    ClusterScan *m_cluster = nullptr;
    QMetaObject::Connection m_waitForCluster;
    LoadProbe *m_probe = nullptr;
    quint64 m_generation = 0;
    bool m_running = false;
    bool m_paused = false;
};
