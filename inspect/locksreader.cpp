// SPDX-License-Identifier: GPL-3.0-or-later
#include "locksreader.h"

#include "boundedread.h"
#include "redisclient.h"

LocksReader::LocksReader(RedisClient *client, QObject *parent)
    : PollingReader(client, kRefreshMs, WhileBusy::Queue, BeforeMatches::Read, parent)
{ }

const LockInfo *LocksReader::lock(const QByteArray &key) const
{
    for (const LockInfo &l : m_locks)
        if (l.key == key)
            return &l;
    return nullptr;
}

void LocksReader::setMatches(const QList<PatternMatch> &matches)
{
    m_matches.clear();
    for (const PatternMatch &m : matches) {
        if (m.kind == PatternKind::Lock && m_matches.size() < kMaxLocks)
            m_matches.append(m);
    }
    // A rescan: what was read stays until the next round replaces it.
    matchesChanged();
}

void LocksReader::startRound()
{
    m_reading.clear();
    boundedread::inBatches(
        m_client, context(), int(m_matches.size()), kBatch,
        [this](int from, int to) {
            QList<RedisCommand> cmds;
            cmds.reserve((to - from) * 3);
            for (int i = from; i < to; ++i) {
                const QByteArray &k = m_matches.at(i).key;
                cmds.append({"GETRANGE", k, "0", QByteArray::number(kValueBytes - 1)});
                cmds.append({"STRLEN", k});
                cmds.append({"PTTL", k});
            }
            return cmds;
        },
        [this](int from, int to, const RedisReply &r, qint64 sent) { return readBatch(from, to, r, sent); },
        [this] { finishRound(); });
}

bool LocksReader::readBatch(int from, int to, const RedisReply &r, qint64 sent)
{
    if (!r.ok()) {
        fail(r.error.message);
        return false;
    }
    for (int i = from; i < to; ++i) {
        const PatternMatch &m = m_matches.at(i);
        const RedisValue &value = r.value((i - from) * 3);
        const RedisValue &len = r.value((i - from) * 3 + 1);
        const RedisValue &pttl = r.value((i - from) * 3 + 2);
        const RedisError perm = RedisError::fromReply(pttl);
        if (perm.kind == RedisError::Kind::NoPerm) {
            fail(tr("%1 (the locks panel needs +getrange +strlen +pttl)").arg(perm.message));
            return false;
        }
        LockInfo l;
        l.key = m.key;
        l.family = m.family;
        l.type = m.type == KeyType::Unknown ? KeyType::String : m.type;
        l.readAtMs = sent; // the request's start: the countdown errs on the short side
        l.pttlMs = ttl::fromReply(pttl);
        if (value.isError()) {
            if (value.errorCode() == "WRONGTYPE") {
                if (l.type == KeyType::String)
                    l.type = KeyType::Unknown;
            } else {
                l.error = QString::fromUtf8(value.bytes());
            }
        } else {
            l.type = KeyType::String;
            l.value = value.bytes();
            l.valueLength = len.isInteger() ? len.toInteger() : -1;
        }
        m_reading.append(l);
    }
    return true;
}

void LocksReader::finishRound()
{
    QList<LockInfo> rows;
    rows.reserve(m_reading.size());
    for (LockInfo &l : m_reading) {
        if (l.pttlMs == -2) {
            // Gone: shown once as released if it was held at the previous read, then dropped.
            const LockInfo *before = lock(l.key);
            if (before && !before->released && !m_shownReleased.contains(l.key)) {
                LockInfo r = *before;
                r.released = true;
                r.readAtMs = l.readAtMs;
                rows.append(r);
                m_shownReleased.insert(l.key);
            }
            continue;
        }
        m_shownReleased.remove(l.key);
        rows.append(l);
    }
    m_reading.clear();
    flagLocks(rows);
    sortLocks(rows);
    m_locks = rows;
    Q_EMIT locksAvailable(m_locks);
    roundDone();
}
