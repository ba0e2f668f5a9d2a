// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clustertopology.h"
#include "keyscanner.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>

class ClusterRouter;
class QTimer;

// KeyScanner's cluster half: one KeyScanner per primary (or, with ScanOptions::replicas, per
// replica of each primary, after READONLY), in parallel, merged into one stream of batches and
// one progress. Keys can move between nodes while the walk runs (a resharding, a
// failover); at the end the slots whose owner changed, that were redirected, or that are still
// migrating are fetched again from every primary (CLUSTER GETKEYSINSLOT), so no key is missed.
// A primary that fails is replaced by its successor's whole walk; while its slots have no owner
// yet the scan waits for one rather than end without their keys.
// The model drops the duplicates that this (and SCAN itself) can produce.
class ClusterScan : public QObject
{
    Q_OBJECT
public:
    ClusterScan(ClusterRouter *router, const ScanOptions &options, quint64 generation, QObject *parent);
    void start();
    void setPaused(bool paused);
    // Stops every node's walk and says nothing more.
    void halt();

Q_SIGNALS:
    void batchAvailable(const ScanBatch &batch);
    void progressChanged(const ScanProgress &progress);
    void finished(const ScanProgress &progress);

private:
    struct NodeScan
    {
        KeyScanner *scanner = nullptr;
        ScanProgress progress;
        bool done = false;
    };
    void startNode(RedisClient *client);
    void onTopologyChanged();
    void onNodeFinished();
    // Slots a primary owned when the walk began that no primary owns now.
    QList<int> orphanedSlots() const;
    void sweep();
    void sweepSlots(const QList<int> &slots);
    void fetchDetails(const QList<QByteArray> &names);
    void finish();
    ScanProgress merged() const;

    ClusterRouter *m_router;
    ScanOptions m_options;
    quint64 m_generation;
    QHash<RedisClient *, NodeScan> m_nodes; // by the router's connection to the node
    QList<cluster::Address> m_ownerAtStart; // per slot; null for none
    quint64 m_redirectMark = 0;
    bool m_paused = false;
    bool m_sweeping = false;
    bool m_finished = false;
    int m_sweepOutstanding = 0;
    quint64 m_swept = 0;
    RedisError m_error;
    // Every node is done but some slots have no owner: waiting (at most a while) for a failover
    // to give them one, since their keys are read from it.
    QTimer *m_ownerWait = nullptr;
    bool m_ownerWaitOver = false;
    RedisError m_waitReason;
};
