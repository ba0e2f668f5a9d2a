// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "connectionprofile.h"
#include "locksreader.h"
#include "patterns.h"
#include "pollingreader.h"
#include "redlock.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QSet>
#include <QStringList>
#include <memory>

class RedisClient;

// Reads the locks of a Redlock set: the window's server and the profile's redlockPeers, each an
// independent primary with the same credentials, TLS and tunnel. Every round asks each node, in
// parallel, for GETRANGE 0 kValueBytes-1 and PTTL of every lock key (pipelined, kBatch keys at a
// time), and combines the answers (combineRedlock). The keys are the classifier's locks on the
// window's server and, since a lock may be held on a majority that leaves that server out, the
// locks found on each peer: every kDiscoverEvery rounds a peer's string keys are scanned (at most
// kDiscoverKeys) and classified from their value and TTL. Read-only: SCAN, GETRANGE, PTTL. A node
// that does not answer is shown as unread; the round fails only when none answers.
class RedlockReader : public PollingReader
{
    Q_OBJECT
public:
    // The bounds and pace of the locks panel's own reader.
    static constexpr int kMaxLocks = LocksReader::kMaxLocks;
    static constexpr int kBatch = LocksReader::kBatch;
    static constexpr int kValueBytes = LocksReader::kValueBytes;
    static constexpr int kRefreshMs = LocksReader::kRefreshMs;
    static constexpr int kDiscoverKeys = 10000;
    static constexpr int kDiscoverEvery = 10;

    RedlockReader(RedisClient *client, const ConnectionProfile &profile, QObject *parent = nullptr);
    ~RedlockReader() override;

    // host:port of every node of the set: the window's server first.
    QStringList nodes() const { return m_nodes; }
    int quorum() const { return int(m_nodes.size()) / 2 + 1; }
    // PatternKind::Lock matches of the window's server; others are ignored.
    void setMatches(const QList<PatternMatch> &matches);

    const QList<RedlockLock> &locks() const { return m_locks; }
    // Per node, why the last round could not read it; empty strings for nodes that answered.
    const QStringList &nodeErrors() const { return m_nodeErrors; }
    // Lock keys found on the peers that the window's server does not hold.
    int peerOnlyKeys() const { return m_peerOnly; }
    // Peers whose keyspace was larger than kDiscoverKeys: their discovery was partial.
    const QStringList &partialPeers() const { return m_partialPeers; }

Q_SIGNALS:
    void redlockAvailable(const QList<RedlockLock> &locks);

private:
    struct Round;
    void startRound() override;
    void discover(const std::shared_ptr<Round> &round);
    void scanPeer(const std::shared_ptr<Round> &round, int peer, const QByteArray &cursor, int seen);
    void classifyPeer(const std::shared_ptr<Round> &round, int peer, const QList<QByteArray> &candidates);
    void readNodes(const std::shared_ptr<Round> &round);
    void readNode(const std::shared_ptr<Round> &round, int node);
    void nodeDone(const std::shared_ptr<Round> &round);
    RedisClient *clientAt(int node) const;

    QStringList m_nodes;
    QList<RedisClient *> m_peers; // one per peer, owned
    QList<QByteArray> m_mainKeys; // the classifier's locks on the window's server
    QHash<QByteArray, QString> m_families;
    QList<QSet<QByteArray>> m_peerLocks; // what discovery found per peer
    QList<RedlockLock> m_locks;
    QStringList m_nodeErrors;
    QStringList m_partialPeers;
    int m_peerOnly = 0;
    int m_rounds = 0;
};
