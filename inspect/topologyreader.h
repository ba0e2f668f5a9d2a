// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pollingreader.h"
#include "topology.h"

#include <QElapsedTimer>
#include <memory>

// The topology panel's reader. Each round reads who the servers are and how each is doing:
// - a cluster: CLUSTER NODES (flags and link state) beside the client's slot map, and INFO from
//   every node it can reach (replicas too, on connections of their own);
// - Sentinel: what the sentinels say of the master, its replicas and themselves, and the
//   primary's INFO;
// - one server: its INFO, whose replication section lists its replicas (or its primary).
// On a cluster it also counts the keys in every slot (CLUSTER COUNTKEYSINSLOT to the slot's
// owner, 512 slots per pipeline and a pause between, so a count costs each node about 3,000
// O(1) commands per second), again a minute after the last count while polling, and samples the
// keys of the slots that hold far more than their share (CLUSTER GETKEYSINSLOT) for the hash tag
// that sent them there.
class TopologyReader : public PollingReader
{
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 2000;
    static constexpr int kSlotsPerBatch = 512;
    static constexpr int kBatchPauseMs = 150;
    static constexpr int kRecountAfterMs = 60000;
    static constexpr int kHotSlots = 8;
    static constexpr int kSampledKeys = 200;
    static constexpr int kNodeTimeoutMs = 3000;

    explicit TopologyReader(RedisClient *client, QObject *parent = nullptr);
    ~TopologyReader() override;

    const topology::Snapshot &snapshot() const { return m_snapshot; }
    // Counts the keys of every slot now (a cluster; nothing otherwise), unless a count runs.
    void countSlots();
    bool isCountingSlots() const { return m_counting != nullptr; }
    // Slots counted so far in the running count, or in the last one.
    int slotsCounted() const { return m_slotsCounted; }

Q_SIGNALS:
    // Counts arrived (keysPerSlot), or a count ended (hotSlots, slotsCountedAtMs).
    void slotsChanged();

protected:
    void startRound() override;

private:
    void readCluster();
    void readSentinel();
    void readSingle();
    void countNext(RedisClient *node, const std::shared_ptr<QList<int>> &slots, qsizetype from);
    void sampleHotSlots();
    void endCount();
    void maybeRecount();

    topology::Snapshot m_snapshot;
    QObject *m_counting = nullptr; // the running count's context; null when none runs
    int m_countingNodes = 0;
    int m_slotsCounted = 0;
    QElapsedTimer m_sinceCount;
};
