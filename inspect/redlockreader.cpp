// SPDX-License-Identifier: GPL-3.0-or-later
#include "redlockreader.h"

#include "boundedread.h"
#include "clustertopology.h"
#include "redisclient.h"

struct RedlockReader::Round
{
    QList<QByteArray> keys;
    QList<RedlockNodeRead> reads;
    int pending = 0; // nodes (or peers, while discovering) not yet answered
};

RedlockReader::RedlockReader(RedisClient *client, const ConnectionProfile &profile, QObject *parent)
    : PollingReader(client, kRefreshMs, WhileBusy::Skip, BeforeMatches::Read, parent)
{
    m_nodes.append(profile.usesUnixSocket() ? profile.socketPath
                                            : cluster::Address{profile.host, profile.port}.toString());
    for (const QString &peer : profile.redlockPeers) {
        cluster::Address at;
        cluster::parseAddress(peer, &at); // checked when the profile was made
        const ConnectionProfile p
            = profile.atAddress(at.host, at.port, QStringLiteral("%1 (Redlock peer)").arg(at.toString()));
        auto *c = new RedisClient(p, this);
        c->connectToServer();
        m_peers.append(c);
        m_nodes.append(at.toString());
        m_peerLocks.append(QSet<QByteArray>());
    }
}

RedlockReader::~RedlockReader() = default;

RedisClient *RedlockReader::clientAt(int node) const
{
    return node == 0 ? m_client : m_peers.value(node - 1);
}

void RedlockReader::setMatches(const QList<PatternMatch> &matches)
{
    m_mainKeys.clear();
    for (const PatternMatch &m : matches) {
        if (m.kind != PatternKind::Lock || m_mainKeys.size() >= kMaxLocks)
            continue;
        m_mainKeys.append(m.key);
        m_families.insert(m.key, m.family);
    }
    matchesChanged();
}

void RedlockReader::startRound()
{
    auto round = std::make_shared<Round>();
    if (m_rounds++ % kDiscoverEvery == 0 && !m_peers.isEmpty()) {
        discover(round);
        return;
    }
    readNodes(round);
}

// ---- discovery: the locks each peer holds ----

void RedlockReader::discover(const std::shared_ptr<Round> &round)
{
    m_partialPeers.clear();
    round->pending = int(m_peers.size());
    for (int peer = 0; peer < m_peers.size(); ++peer)
        scanPeer(round, peer, "0", 0);
}

void RedlockReader::scanPeer(const std::shared_ptr<Round> &round, int peer, const QByteArray &cursor, int seen)
{
    // A Redlock node holds little but locks: its string keys are scanned and classified. SCAN's
    // TYPE filter (Redis 6) keeps hashes, lists and the rest off the wire.
    auto candidates = std::make_shared<QList<QByteArray>>();
    auto step = std::make_shared<std::function<void(const QByteArray &, int)>>();
    *step = [this, round, peer, candidates, step](const QByteArray &at, int count) {
        m_peers.at(peer)->send({"SCAN", at, "COUNT", "1000", "TYPE", "string"}, context(),
                               [this, round, peer, candidates, step, count](const RedisReply &r) {
                                   const RedisValue &v = r.value(0);
                                   if (!r.ok() || v.isError() || v.elements().size() != 2) {
                                       // Unreachable or refused: the round's read says so for this node.
                                       classifyPeer(round, peer, {});
                                       *step = nullptr;
                                       return;
                                   }
                                   int total = count;
                                   for (const RedisValue &k : v.elements().at(1).elements()) {
                                       candidates->append(k.bytes());
                                       ++total;
                                   }
                                   const QByteArray next = v.elements().at(0).bytes();
                                   if (next == "0" || total >= kDiscoverKeys) {
                                       if (next != "0")
                                           m_partialPeers.append(m_nodes.at(peer + 1));
                                       classifyPeer(round, peer, *candidates);
                                       *step = nullptr; // the cycle through the capture ends here
                                       return;
                                   }
                                   (*step)(next, total);
                               });
    };
    (*step)(cursor, seen);
}

void RedlockReader::classifyPeer(const std::shared_ptr<Round> &round, int peer, const QList<QByteArray> &candidates)
{
    auto found = std::make_shared<QSet<QByteArray>>();
    auto finish = [this, round, peer, found] {
        m_peerLocks[peer] = *found;
        if (--round->pending == 0)
            readNodes(round);
    };
    if (candidates.isEmpty()) {
        finish();
        return;
    }
    boundedread::inBatches(
        m_peers.at(peer), context(), int(candidates.size()), kBatch,
        [candidates](int from, int to) {
            QList<RedisCommand> cmds;
            cmds.reserve((to - from) * 3);
            for (int i = from; i < to; ++i) {
                const QByteArray &k = candidates.at(i);
                cmds.append({"GETRANGE", k, "0", QByteArray::number(PatternClassifier::kHeadBytes - 1)});
                cmds.append({"STRLEN", k});
                cmds.append({"PTTL", k});
            }
            return cmds;
        },
        [this, candidates, found, finish](int from, int to, const RedisReply &r, qint64) {
            if (!r.ok()) {
                finish();
                return false;
            }
            const PatternClassifier classifier;
            for (int i = from; i < to; ++i) {
                const RedisValue &head = r.value((i - from) * 3);
                if (head.isError())
                    continue;
                KeySample s;
                s.key = candidates.at(i);
                s.type = KeyType::String;
                s.head = head.bytes();
                s.elements = r.value((i - from) * 3 + 1).toInteger();
                s.pttlMs = ttl::fromReply(r.value((i - from) * 3 + 2));
                s.sampled = true;
                if (s.pttlMs == -2)
                    continue; // gone since the scan
                const PatternMatch m = classifier.classify(s);
                if (m.kind == PatternKind::Lock) {
                    found->insert(s.key);
                    if (!m_families.contains(s.key))
                        m_families.insert(s.key, m.family);
                }
            }
            return true;
        },
        finish);
}

// ---- the round: every key on every node ----

void RedlockReader::readNodes(const std::shared_ptr<Round> &round)
{
    QSet<QByteArray> seen(m_mainKeys.cbegin(), m_mainKeys.cend());
    round->keys = m_mainKeys;
    m_peerOnly = 0;
    for (const QSet<QByteArray> &locks : std::as_const(m_peerLocks)) {
        QList<QByteArray> sorted(locks.cbegin(), locks.cend());
        std::sort(sorted.begin(), sorted.end());
        for (const QByteArray &k : std::as_const(sorted)) {
            if (round->keys.size() >= kMaxLocks)
                break;
            if (seen.contains(k))
                continue;
            seen.insert(k);
            round->keys.append(k);
            ++m_peerOnly;
        }
    }
    round->reads.resize(m_nodes.size());
    round->pending = int(m_nodes.size());
    for (int node = 0; node < m_nodes.size(); ++node) {
        round->reads[node].address = m_nodes.at(node);
        readNode(round, node);
    }
}

void RedlockReader::readNode(const std::shared_ptr<Round> &round, int node)
{
    boundedread::inBatches(
        clientAt(node), context(), int(round->keys.size()), kBatch,
        [round](int from, int to) {
            QList<RedisCommand> cmds;
            cmds.reserve((to - from) * 2);
            for (int i = from; i < to; ++i) {
                cmds.append({"GETRANGE", round->keys.at(i), "0", QByteArray::number(kValueBytes - 1)});
                cmds.append({"PTTL", round->keys.at(i)});
            }
            return cmds;
        },
        [this, round, node](int from, int to, const RedisReply &r, qint64 sent) {
            RedlockNodeRead &read = round->reads[node];
            if (!r.ok()) {
                read.error = r.error.message;
                nodeDone(round);
                return false;
            }
            for (int i = from; i < to; ++i) {
                const RedisValue &value = r.value((i - from) * 2);
                const RedisValue &pttl = r.value((i - from) * 2 + 1);
                RedlockHold h;
                h.read = true;
                h.readAtMs = sent;
                h.pttlMs = ttl::fromReply(pttl);
                if (pttl.isError()) {
                    h.error = QString::fromUtf8(pttl.bytes());
                    if (RedisError::fromReply(pttl).kind == RedisError::Kind::NoPerm) {
                        read.error = tr("%1 (the Redlock view needs +getrange +pttl)").arg(h.error);
                        nodeDone(round);
                        return false;
                    }
                }
                h.exists = h.pttlMs != -2 && !pttl.isError();
                if (value.isError()) {
                    h.error = QString::fromUtf8(value.bytes());
                    h.exists = false; // not a string: not a Redlock lock
                } else {
                    h.token = value.bytes();
                }
                read.holds.insert(round->keys.at(i), h);
            }
            return true;
        },
        [this, round] { nodeDone(round); });
}

void RedlockReader::nodeDone(const std::shared_ptr<Round> &round)
{
    if (--round->pending > 0)
        return;
    m_nodeErrors.clear();
    bool anyRead = false;
    for (const RedlockNodeRead &r : std::as_const(round->reads)) {
        m_nodeErrors.append(r.error);
        anyRead = anyRead || r.error.isEmpty();
    }
    if (!anyRead) {
        fail(tr("no node of the Redlock set answered: %1").arg(m_nodeErrors.join(QStringLiteral("; "))));
        return;
    }
    m_locks = combineRedlock(round->keys, m_families, round->reads);
    Q_EMIT redlockAvailable(m_locks);
    roundDone();
}
