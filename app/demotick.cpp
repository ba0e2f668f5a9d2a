// SPDX-License-Identifier: GPL-3.0-or-later
// The demo's simulator: one function per pattern adds what its clients would do in one tick.
#include "demo.h"
#include "demo_p.h"

#include "redisclient.h"
#include "scriptlibrary.h"

#include <QVersionNumber>

#include <algorithm>

using namespace demo;

void Demo::tickCaches(Batch &b)
{
    // Cache-aside: last tick's lock winners write the entry with a jittered TTL and release
    // their recompute lock; this tick's readers go through cache_get_or_lock.
    for (const auto &r : std::as_const(m_recompute)) {
        const int id = r.first.mid(12).toInt();
        const int category = id % 20 + 1;
        const QByteArray tag = "tag:category:" + num(category);
        b.add({"SET", r.first, productJson(id), "PX",
               num(kHour + m_rng.bounded(qint64(-6 * kMinute), qint64(6 * kMinute)))});
        b.add({"SADD", tag, r.first});
        b.add({"PEXPIRE", tag, num(category == 13 ? 2 * kMinute : 2 * kHour + 30 * kMinute)});
        b.add(script("lock_release", {r.first + ":lock"}, {r.second}));
    }
    m_recompute.clear();
    // Tag invalidation: a category changed; its entries go in bounded batches picked with
    // SRANDMEMBER on one tick and deleted by the script on the next.
    if (m_invalidate.size() > 1)
        b.add(script("tag_invalidate", m_invalidate, {}));
    m_invalidate.clear();
    if (m_ticks % 15 == 7) {
        const QByteArray tag = "tag:category:" + num(between(1, 20));
        b.add({"SRANDMEMBER", tag, "5"}, [this, tag](const RedisValue &v) {
            m_invalidate = {tag};
            for (const RedisValue &member : v.elements()) {
                // Keep the seeded entries without a TTL: they are the "going wrong" examples.
                if (member.bytes().mid(12).toInt() % 167 != 0)
                    m_invalidate.append(member.bytes());
            }
        });
    }
    for (int i = 0; i < 12; ++i) {
        const QByteArray key = "app:product:" + num(between(1, kProducts + 100));
        const QByteArray token = hex(8);
        b.add(script("cache_get_or_lock", {key, key + ":lock"}, {token, "5000"}),
              [this, key, token](const RedisValue &v) {
                  if (v.at(1).toInteger() == 1)
                      m_recompute.append({key, token});
              });
    }
    for (int i = 0; i < 15; ++i)
        b.add({"GET", "app:product:" + num(between(1, kProducts + 300))});
    for (int i = 0; i < 3; ++i)
        b.add({"GET", "app:user:" + num(kFirstUser + between(0, kUsers + 20)) + ":profile"});
    if (between(0, 3) == 0)
        b.add({"SET", "app:product:" + num(900001 + between(0, 60)), "{\"missing\":true}", "EX", "30"});
}

void Demo::tickSessions(Batch &b, qint64 now)
{
    // Sessions: slide a few on use; now and then one logs out and another logs in. Ids of
    // sessions found gone leave their user's index, so the simulator adds no dangling ids.
    for (const KnownSession &gone : std::as_const(m_staleSessions))
        b.add({"SREM", userSessionsKey(gone.user), gone.id});
    m_staleSessions.clear();
    for (int i = 0; i < 5 && !m_sessions.isEmpty(); ++i) {
        const KnownSession s = m_sessions.at(between(0, int(m_sessions.size()) - 1));
        b.add(script("session_touch", {sessionKey(s.id)}, {num(2 * kHour), num(now), "user_id"}),
              [this, s](const RedisValue &v) {
                  if (v.at(0).toInteger() != 0)
                      return;
                  const auto known = std::find_if(m_sessions.begin(), m_sessions.end(),
                                                  [&s](const KnownSession &k) { return k.id == s.id; });
                  if (known != m_sessions.end()) {
                      m_sessions.erase(known);
                      m_staleSessions.append(s);
                  }
              });
    }
    if (between(0, 4) == 0 && !m_sessions.isEmpty()) {
        const KnownSession gone = m_sessions.takeAt(between(0, int(m_sessions.size()) - 1));
        b.add({"DEL", sessionKey(gone.id)});
        b.add({"SREM", userSessionsKey(gone.user), gone.id});
        const int user = kFirstUser + between(0, kUsers - 1);
        const QByteArray id = newSession(b, user, now, 30 * kMinute + m_rng.bounded(qint64(90 * kMinute)));
        b.add({"SADD", userSessionsKey(user), id});
        b.add({"PEXPIRE", userSessionsKey(user), num(kDay)});
        if (m_sessions.size() < kMaxKnownSessions)
            m_sessions.append(KnownSession{id, user});
    }
}

void Demo::tickRateLimits(Batch &b, qint64 now)
{
    // Rate limits through their scripts.
    const QByteArray window = num(now / kFixedWindow);
    for (int i = 0; i < 20; ++i) {
        b.add(script("fixed_window_limit", {"rate:user:" + num(kFirstUser + between(0, 79)) + ':' + window},
                     {num(kFixedLimit), num(kFixedWindow)}));
    }
    for (int i = 0; i < 8; ++i) {
        const QByteArray key = "rate:sliding:user:" + num(kFirstUser + between(0, 24));
        b.add(script("sliding_window_limit", {key, key + ":seq"}, {num(now), num(kSlidingWindow), num(kSlidingLimit)}));
    }
    for (int i = 0; i < 8; ++i) {
        b.add(script("token_bucket", {"bucket:api:client-" + num(between(1, 30))},
                     {num(kBucketCapacity), num(kBucketRate), num(now), "1"}));
    }
}

void Demo::tickLocks(Batch &b)
{
    // Locks: holders extend once, then release; two new attempts per tick.
    for (qsizetype i = m_locks.size() - 1; i >= 0; --i) {
        HeldLock &l = m_locks[i];
        ++l.age;
        if (l.age == 2) {
            b.add(script("lock_extend", {l.key}, {l.token, num(between(10, 30) * 1000)}));
        } else if (l.age >= 4) {
            b.add(script("lock_release", {l.key}, {l.token}));
            m_locks.removeAt(i);
        }
    }
    for (int i = 0; i < 2; ++i) {
        const QByteArray key = "lock:" + QByteArray(kLockResources[between(0, lengthOf(kLockResources) - 1)]);
        const QByteArray token = hex(16);
        b.add(script("lock_acquire", {key}, {token, num(between(5, 30) * 1000)}),
              [this, key, token](const RedisValue &v) {
                  if (v.at(0).toInteger() == 1)
                      m_locks.append(HeldLock{key, token, 0});
              });
    }
}

void Demo::tickLeaderboard(Batch &b)
{
    const QDate day0 = today();
    // Leaderboard of the day, capped so it cannot grow without bound.
    const QByteArray board = "lb:daily:" + isoDate(day0);
    for (int i = 0; i < 15; ++i)
        b.add({"ZINCRBY", board, num(between(1, 10) * 10), "player:" + num(between(1, kPlayers))});
    b.add({"PEXPIRE", board, num(8 * kDay)});
    if (m_ticks % 30 == 0)
        b.add({"ZREMRANGEBYRANK", board, "0", "-1001"});
}

void Demo::tickStream(Batch &b)
{
    // Stream: produce, consume with XREADGROUP, acknowledge last tick's reads (keeping a
    // bounded few pending), now and then dead-letter one of those.
    const QByteArray stream = "events:orders";
    const int produce = between(1, 5);
    for (int i = 0; i < produce; ++i) {
        const int order = 60000 + m_ticks * 5 + i;
        b.add({"XADD", stream, "MAXLEN", "~", num(kStreamCap), "*", "type",
               kOrderEvents[between(0, lengthOf(kOrderEvents) - 1)], "order_id", num(order), "user_id",
               num(kFirstUser + order % kUsers), "amount_cents", num(between(500, 250000)), "currency", "EUR"});
    }
    if (!m_toAck.isEmpty() && between(0, 9) == 0)
        m_leftPending.append(m_toAck.takeLast());
    while (m_leftPending.size() > 20)
        m_toAck.append(m_leftPending.takeFirst());
    if (!m_toAck.isEmpty()) {
        RedisCommand ack{"XACK", stream, "billing"};
        ack << m_toAck;
        b.add(ack);
        m_toAck.clear();
    }
    if (m_ticks % 20 == 19 && !m_leftPending.isEmpty()) {
        const QByteArray id = m_leftPending.takeFirst();
        b.add(script("stream_dead_letter", {stream, "events:orders:dead"},
                     {"billing", id, "gave up after retries", "10000"}));
    }
    const QByteArray consumer = m_ticks % 2 ? "worker-1" : "worker-2";
    b.add({"XREADGROUP", "GROUP", "billing", consumer, "COUNT", "6", "STREAMS", stream, ">"},
          [this](const RedisValue &v) {
              for (const RedisValue &s : v.elements()) {
                  for (const RedisValue &entry : s.at(1).elements())
                      m_toAck.append(entry.at(0).bytes());
              }
          });
    b.add({"XREADGROUP", "GROUP", "analytics", "reader-1", "COUNT", "4", "NOACK", "STREAMS", stream, ">"});
    b.add({"PUBLISH", "orders.live", "{\"tick\":" + num(m_ticks) + '}'});
    if (m_ticks % 3 == 0)
        b.add({"PUBLISH", "notify.email",
               "{\"to\":\"user-" + num(m_ticks % 40)
                   + "\",\"template\":\"receipt\",\"order\":" + num(60000 + m_ticks * 5) + '}'});
}

void Demo::tickQueues(Batch &b, qint64 now)
{
    // Reliable list queue: ack what worker-2 took last tick, enqueue, take a few more.
    for (const QByteArray &item : std::as_const(m_processing))
        b.add({"LREM", "q:email:proc:worker-2", "1", item});
    m_processing.clear();
    const int enqueue = between(1, 4);
    for (int i = 0; i < enqueue; ++i) {
        b.add({"LPUSH", "q:email", emailJob(m_nextEmail++, now)},
              [this](const RedisValue &v) { m_queueLength = v.toInteger(); });
    }
    const bool hasLmove = m_client->facts().version.isNull() || m_client->facts().version >= QVersionNumber(6, 2);
    const int take = m_queueLength > 300 ? 8 : 3;
    for (int i = 0; i < take; ++i) {
        RedisCommand move = hasLmove ? RedisCommand{"LMOVE", "q:email", "q:email:proc:worker-2", "RIGHT", "LEFT"}
                                     : RedisCommand{"RPOPLPUSH", "q:email", "q:email:proc:worker-2"};
        b.add(move, [this](const RedisValue &v) {
            if (v.isString())
                m_processing.append(v.bytes());
        });
    }

    // Delayed jobs: schedule a few, claim the due ones in a bounded batch.
    const int schedule = between(1, 3);
    for (int i = 0; i < schedule; ++i)
        b.add({"ZADD", "sched:due", num(now + qint64(between(5, 600)) * 1000), jobJson(m_nextJob++)});
    b.add(script("claim_due_jobs", {"sched:due"}, {num(now), "5"}));
}

void Demo::tickCounters(Batch &b)
{
    const QDate day0 = today();
    // Unique counting, counters, dedup (event ids from a bounded space).
    RedisCommand pfadd{"PFADD", "hll:pageviews:" + isoDate(day0)};
    for (int i = 0; i < 10; ++i)
        pfadd << "v" + num(between(1, 20000));
    b.add(pfadd);
    if (between(0, 2) == 0)
        b.add({"INCR", "stats:signups:" + isoDate(day0)});
    b.add({"INCRBY", "stats:orders:" + isoDate(day0), num(between(1, 5))});
    const QByteArray event = "wh_" + num(between(1, 3000));
    b.add({"SADD", "seen:webhook", event});
    // Bad habits for the slowlog panel: a cleanup job that reads the whole dedup set, and a
    // report that still uses KEYS. Both are what docs/patterns.md says never to do in production.
    if (m_ticks % 4 == 0)
        b.add({"SMEMBERS", "seen:webhook"});
    if (m_ticks % 10 == 1)
        b.add({"KEYS", "stats:*"});
    b.add({"SET", "seen:evt:" + event, "1", "NX", "EX", "3600"});
}
