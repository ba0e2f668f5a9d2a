// SPDX-License-Identifier: GPL-3.0-or-later
// The demo's data: every pattern of docs/patterns.md, healthy and broken variants side by side.
#include "demo.h"
#include "demo_p.h"

#include "scriptlibrary.h"

#include <QHash>
#include <QSet>

#include <algorithm>
#include <cmath>

using namespace demo;

QByteArray Demo::hex(int bytes)
{
    QByteArray raw(bytes, Qt::Uninitialized);
    for (int i = 0; i < bytes; ++i)
        raw[i] = char(m_rng.bounded(256));
    return raw.toHex();
}

int Demo::between(int low, int high)
{
    return m_rng.bounded(low, high + 1);
}

QByteArray Demo::productJson(int id)
{
    const QByteArray name = QByteArray(kAdjectives[id % lengthOf(kAdjectives)]) + ' '
        + QByteArray(kNouns[(id / lengthOf(kAdjectives)) % lengthOf(kNouns)]);
    return "{\"id\":" + num(id) + ",\"sku\":\"SKU-" + num(id).rightJustified(6, '0') + "\",\"name\":\"" + name
        + "\",\"category\":" + num(id % 20 + 1) + ",\"price_cents\":" + num(between(299, 49999))
        + ",\"currency\":\"EUR\",\"stock\":" + num(between(0, 250)) + ",\"updated_at\":" + num(nowMs()) + ",\"v\":2}";
}

QByteArray Demo::jobJson(int id)
{
    static const char *const types[] = {"send_reminder", "expire_trial", "retry_payment", "publish_post"};
    return "{\"id\":" + num(id) + ",\"type\":\"" + QByteArray(types[id % lengthOf(types)])
        + "\",\"user_id\":" + num(kFirstUser + id % kUsers) + '}';
}

QByteArray Demo::emailJob(int id, qint64 enqueuedAtMs)
{
    return "{\"id\":\"em-" + num(id) + "\",\"template\":\"" + QByteArray(kTemplates[id % lengthOf(kTemplates)])
        + "\",\"user_id\":" + num(kFirstUser + id % kUsers) + ",\"enqueued_at\":" + num(enqueuedAtMs) + '}';
}

QByteArray Demo::newSession(Batch &b, int userId, qint64 createdMs, qint64 ttlMs)
{
    static const char *const agents[] = {
        "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0", "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) Safari/605.1.15",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/126.0", "RedisLensDemo/1.0 (Android 14)"};
    const QByteArray id = hex(16);
    const QByteArray key = sessionKey(id);
    b.add({"HSET", key, "user_id", num(userId), "created_at", num(createdMs), "last_seen",
           num(createdMs + between(0, 600) * 1000), "csrf_token", hex(16), "ip", "198.51.100." + num(between(1, 254)),
           "user_agent", agents[between(0, lengthOf(agents) - 1)], "locale", (userId % 3 == 0) ? "de-DE" : "en-GB"});
    if (ttlMs > 0)
        b.add({"PEXPIRE", key, num(ttlMs)});
    return id;
}

void Demo::seedCaches(Batch &b)
{
    const qint64 now = nowMs();
    // Cache-aside with jitter: a base TTL per kind plus up to ±10 %, so entries written
    // together do not all expire together.
    static const qint64 bases[] = {15 * kMinute, kHour, 2 * kHour};
    for (int id = 1; id <= kProducts; ++id) {
        const QByteArray key = "app:product:" + num(id);
        if (id % 167 == 0) {
            b.add({"SET", key, productJson(id)}); // forgotten TTL: grows for ever
            continue;
        }
        const qint64 base = bases[id % 3];
        const qint64 ttl = base + m_rng.bounded(qint64(-base / 10), qint64(base / 10));
        b.add({"SET", key, productJson(id), "PX", num(ttl)});
    }
    for (int u = 0; u < kUsers; ++u) {
        const int id = kFirstUser + u;
        const QByteArray json = "{\"id\":" + num(id) + ",\"display_name\":\"user" + num(id) + "\",\"plan\":\""
            + QByteArray(u % 4 == 0 ? "pro" : "free") + "\",\"created_at\":" + num(now - qint64(between(1, 900)) * kDay)
            + '}';
        b.add({"SET", "app:user:" + num(id) + ":profile", json, "PX",
               num(30 * kMinute + m_rng.bounded(qint64(5 * kMinute)))});
    }
    // A namespace written without jitter: every price expires in the same second.
    const qint64 priceExpiry = (now / 1000 + 600) * 1000;
    for (int i = 1; i <= 200; ++i) {
        const QByteArray key = "app:price:sku-" + num(i).rightJustified(6, '0');
        b.add({"SET", key, "{\"amount_cents\":" + num(between(199, 99999)) + ",\"currency\":\"EUR\"}"});
        b.add({"PEXPIREAT", key, num(priceExpiry)});
    }
    // Reference data that is meant to live without a TTL.
    b.add({"SET", "app:config:feature-flags", "{\"new_checkout\":true,\"dark_mode\":true,\"beta_search\":false}"});
    b.add({"SET", "app:config:currencies", "[\"EUR\",\"USD\",\"GBP\",\"JPY\",\"CHF\"]"});
    b.add({"SET", "app:config:shipping-zones", "{\"eu\":[\"DE\",\"FR\",\"NL\"],\"uk\":[\"GB\"],\"us\":[\"US\"]}"});

    // Negative caching: short-lived markers for rows that do not exist, and one without a TTL.
    for (int i = 0; i < 30; ++i)
        b.add({"SET", "app:product:" + num(900001 + i), "{\"missing\":true}", "EX", num(between(25, 35))});
    for (int i = 0; i < 10; ++i)
        b.add({"SET", "app:user:" + num(9001 + i) + ":profile", "null", "EX", num(between(25, 35))});
    b.add({"SET", "app:product:999999", "{\"missing\":true}"});

    // Stampede protection, second style: the value carries a logical expiry, the real TTL is longer.
    static const char *const regions[] = {"emea", "apac", "amer", "latam"};
    for (int i = 0; i < 20; ++i) {
        const QByteArray key = "app:report:sales:" + QByteArray(regions[i % 4]) + ':' + num(2026 * 100 + i / 4 + 1);
        b.add({"SET", key,
               "{\"value\":{\"orders\":" + num(between(100, 9000))
                   + ",\"revenue_cents\":" + num(between(10000, 9000000))
                   + "},\"logical_expires_at\":" + num(now + between(1, 10) * kMinute) + '}',
               "PX", num(kHour + m_rng.bounded(qint64(10 * kMinute)))});
    }
    // Recompute locks beside missing entries, and one left behind without a TTL.
    for (int id = kProducts + 1; id <= kProducts + 5; ++id)
        b.add({"SET", "app:product:" + num(id) + ":lock", hex(8), "NX", "PX", num(between(20, 45) * 1000)});
    b.add({"SET", "app:product:" + num(kProducts + 6) + ":lock", hex(8)});

    // Tags: each product's category; a few dangling members whose entry is gone; tag TTL a
    // little longer than its members', except category 13 (shorter: invalidation misses keys).
    for (int tag = 1; tag <= 20; ++tag) {
        RedisCommand sadd{"SADD", "tag:category:" + num(tag)};
        for (int id = 1; id <= kProducts; ++id) {
            if (id % 20 + 1 == tag) // the category productJson() writes
                sadd << "app:product:" + num(id);
        }
        for (int d = 0; d < 1 + tag % 3; ++d)
            sadd << "app:product:" + num(5000 + tag * 10 + d);
        b.add(sadd);
        b.add({"PEXPIRE", "tag:category:" + num(tag), num(tag == 13 ? 2 * kMinute : 2 * kHour + 30 * kMinute)});
    }
}

void Demo::seedSessions(Batch &b)
{
    const qint64 now = nowMs();
    QHash<int, QList<QByteArray>> byUser;
    for (int i = 0; i < 400; ++i) {
        const int user = kFirstUser + between(0, kUsers - 1);
        const qint64 ttl = (30 * kMinute) + m_rng.bounded(qint64(kDay - 30 * kMinute));
        const QByteArray id = newSession(b, user, now - m_rng.bounded(qint64(20 * kHour)), ttl);
        byUser[user].append(id);
        m_sessions.append(KnownSession{id, user});
    }
    // Sessions somebody created without a TTL.
    for (int i = 0; i < 2; ++i) {
        const int user = kFirstUser + i;
        const QByteArray id = newSession(b, user, now - 3 * kDay, 0);
        byUser[user].append(id);
    }
    for (auto it = byUser.cbegin(); it != byUser.cend(); ++it) {
        RedisCommand sadd{"SADD", userSessionsKey(it.key())};
        sadd << it.value();
        if (it.key() % 5 == 0)
            sadd << hex(16); // a session that expired without the index being cleaned
        b.add(sadd);
        b.add({"PEXPIRE", userSessionsKey(it.key()), num(kDay)});
    }
}

void Demo::seedRateLimits(Batch &b)
{
    const qint64 now = nowMs();
    const QByteArray window = num(now / kFixedWindow);
    for (int u = 0; u < 80; ++u) {
        const QByteArray key = "rate:user:" + num(kFirstUser + u) + ':' + window;
        const int hits = between(1, kFixedLimit + 4);
        for (int h = 0; h < hits; ++h)
            b.add(script("fixed_window_limit", {key}, {num(kFixedLimit), num(kFixedWindow)}));
    }
    // A counter written without its TTL: this caller stays locked out for ever.
    b.add({"INCRBY", "rate:user:4242:" + num(now / kFixedWindow - 37), "57"});

    for (int u = 0; u < 25; ++u) {
        const QByteArray key = "rate:sliding:user:" + num(kFirstUser + u);
        const int hits = between(3, kSlidingLimit + 6);
        const qint64 span = kSlidingWindow - 5000;
        for (int h = 0; h < hits; ++h) {
            const qint64 at = now - span + span * h / hits;
            b.add(script("sliding_window_limit", {key, key + ":seq"},
                         {num(at), num(kSlidingWindow), num(kSlidingLimit)}));
        }
    }

    for (int c = 1; c <= 30; ++c) {
        const QByteArray key = "bucket:api:client-" + num(c);
        const int calls = between(1, kBucketCapacity + 10);
        for (int i = 0; i < calls; ++i) {
            b.add(
                script("token_bucket", {key}, {num(kBucketCapacity), num(kBucketRate), num(now - 3000 + i * 40), "1"}));
        }
    }
}

void Demo::seedLocks(Batch &b)
{
    for (const char *resource : kLockResources) {
        b.add(script("lock_acquire", {"lock:" + QByteArray(resource)}, {hex(16), num(between(10, 300) * 1000)}));
    }
    // Going wrong, on purpose: a lock stuck without a TTL (its holder crashed), a lock whose
    // value is "1" (anyone may release it), and a TTL far longer than the work it guards.
    b.add({"SET", "lock:migration:schema-v42", hex(16)});
    b.add({"SET", "lock:cron:send-digest", "1", "PX", num(15 * kMinute)});
    b.add(script("lock_acquire", {"lock:import:catalog"}, {hex(16), num(kDay)}));
}

void Demo::seedLeaderboards(Batch &b)
{
    const QDate day0 = today();
    RedisCommand weekly{"ZUNIONSTORE", "lb:weekly:" + isoWeek(day0), "7"};
    for (int d = 0; d < 7; ++d) {
        const QByteArray key = "lb:daily:" + isoDate(day0.addDays(-d));
        weekly << key;
        // 300 of the 400 players; scores in steps of 10, so ties happen as they do in games.
        QList<int> players;
        for (int p = 1; p <= kPlayers; ++p)
            players.append(p);
        for (int i = players.size() - 1; i > 0; --i)
            players.swapItemsAt(i, between(0, i));
        players.resize(300);
        RedisCommand zadd{"ZADD", key};
        for (int i = 0; i < players.size(); ++i) {
            // The top two are tied: ZRANGE orders them by member name, which nobody chose.
            const int score = i < 2 ? 6000 : between(0, 500) * 10;
            zadd << num(score) << "player:" + num(players.at(i));
            if (zadd.size() >= 2 + 200) {
                b.add(zadd);
                zadd = RedisCommand{"ZADD", key};
            }
        }
        if (zadd.size() > 2)
            b.add(zadd);
        b.add({"PEXPIRE", key, num(8 * kDay)});
    }
    b.add(weekly);
    b.add({"PEXPIRE", "lb:weekly:" + isoWeek(day0), num(14 * kDay)});
}

void Demo::seedGeo(Batch &b)
{
    RedisCommand geo{"GEOADD", "geo:cities"};
    for (const City &c : kCities)
        geo << QByteArray::number(c.lon, 'f', 4) << QByteArray::number(c.lat, 'f', 4) << QByteArray(c.name);
    b.add(geo);
    // The mistake the guides warn about: latitude given first. The cities whose longitude is a
    // valid latitude land far out at sea (Paris at 48.9°E 2.4°N, off Somalia).
    RedisCommand swapped{"GEOADD", "geo:stores"};
    for (const City &c : kCities) {
        if (std::abs(c.lon) < 85)
            swapped << QByteArray::number(c.lat, 'f', 4) << QByteArray::number(c.lon, 'f', 4) << QByteArray(c.name);
    }
    b.add(swapped);
}

void Demo::seedStreams(Batch &b)
{
    const qint64 now = nowMs();
    const QByteArray stream = "events:orders";
    QList<QByteArray> ids;
    const qint64 first = now - 2 * kHour;
    for (int i = 0; i < 500; ++i) {
        // Explicit ids, known before the replies arrive, so the group set-up fits one pipeline.
        const QByteArray id = num(first + qint64(i) * 14000 + between(0, 999)) + "-0";
        ids.append(id);
        const int order = 50000 + i;
        b.add({"XADD", stream, "MAXLEN", "~", num(kStreamCap), id, "type", kOrderEvents[i % lengthOf(kOrderEvents)],
               "order_id", num(order), "user_id", num(kFirstUser + order % kUsers), "amount_cents",
               num(between(500, 250000)), "currency", "EUR"});
    }
    b.add({"XGROUP", "CREATE", stream, "billing", "0"});
    b.add({"XGROUP", "CREATE", stream, "analytics", ids.at(449)});
    b.add({"XREADGROUP", "GROUP", "billing", "worker-1", "COUNT", "60", "STREAMS", stream, ">"});
    b.add({"XREADGROUP", "GROUP", "billing", "worker-2", "COUNT", "40", "STREAMS", stream, ">"});
    b.add({"XREADGROUP", "GROUP", "analytics", "reader-1", "COUNT", "10", "STREAMS", stream, ">"});

    // Left pending: {index, consumer, idle minutes (negative: seconds), delivery count}.
    struct Stuck
    {
        int index;
        const char *consumer;
        int idle;
        int deliveries;
    };
    static const Stuck stuck[] = {
        {0, "worker-1", 95, 17},  {1, "worker-1", 80, 25}, {2, "worker-1", 70, 12}, // poison
        {5, "worker-1", 60, 2},   {10, "worker-1", 45, 1}, {20, "worker-1", 30, 3},  {30, "worker-1", 20, 1},
        {40, "worker-1", 12, 2},  {50, "worker-1", 5, 1},  {55, "worker-1", -90, 1}, {58, "worker-1", -20, 1},
        {59, "worker-1", -3, 1},  {60, "worker-2", 40, 4}, {70, "worker-2", 10, 1},  {85, "worker-2", 2, 1},
        {95, "worker-2", -30, 1}, {98, "worker-2", -8, 1}, {99, "worker-2", -1, 1},
    };
    QSet<int> keep;
    for (const Stuck &s : stuck)
        keep.insert(s.index);
    RedisCommand ack{"XACK", stream, "billing"};
    for (int i = 0; i < 100; ++i) {
        if (!keep.contains(i))
            ack << ids.at(i);
    }
    b.add(ack);
    RedisCommand ackAnalytics{"XACK", stream, "analytics"};
    for (int i = 450; i < 460; ++i)
        ackAnalytics << ids.at(i);
    b.add(ackAnalytics);
    for (const Stuck &s : stuck) {
        const qint64 idleMs = s.idle >= 0 ? s.idle * kMinute : qint64(-s.idle) * 1000;
        b.add({"XCLAIM", stream, "billing", s.consumer, "0", ids.at(s.index), "IDLE", num(idleMs), "RETRYCOUNT",
               num(s.deliveries), "JUSTID"});
    }
    // The worst poison entry goes to the dead-letter stream, atomically with its XACK.
    b.add(script("stream_dead_letter", {stream, "events:orders:dead"},
                 {"billing", ids.at(1), "delivered 25 times", "10000"}));

    // An audit stream nobody trims.
    const qint64 auditFirst = now - 6 * kHour;
    static const char *const actions[] = {"login", "update_profile", "export", "delete_item", "grant_role"};
    for (int i = 0; i < 300; ++i) {
        b.add({"XADD", "events:audit", num(auditFirst + qint64(i) * 70000) + "-0", "actor",
               "user:" + num(kFirstUser + between(0, kUsers - 1)), "action", actions[i % lengthOf(actions)], "target",
               "app:product:" + num(between(1, kProducts))});
    }
}

void Demo::seedQueues(Batch &b)
{
    const qint64 now = nowMs();
    // LPUSH to enqueue, workers take from the right: the oldest item is the last one.
    RedisCommand push{"LPUSH", "q:email"};
    for (int i = 0; i < 120; ++i) {
        push << emailJob(m_nextEmail++, now - 10 * kMinute + qint64(i) * 5000);
        if (push.size() >= 2 + 50) {
            b.add(push);
            push = RedisCommand{"LPUSH", "q:email"};
        }
    }
    if (push.size() > 2)
        b.add(push);
    m_queueLength = 120;
    // worker-1 died 45 minutes ago holding three items; worker-2 is alive.
    RedisCommand dead{"LPUSH", "q:email:proc:worker-1"};
    for (int i = 0; i < 3; ++i)
        dead << emailJob(m_nextEmail++, now - 47 * kMinute + i * 1000);
    b.add(dead);
    const QByteArray working = emailJob(m_nextEmail++, now - 3000);
    b.add({"LPUSH", "q:email:proc:worker-2", working});
    m_processing.append(working);

    // Delayed jobs in epoch ms: 40 overdue (some by hours), the rest due within two hours.
    RedisCommand zadd{"ZADD", "sched:due"};
    for (int i = 0; i < 300; ++i) {
        const qint64 due = i < 40 ? now - qint64(between(1, 180)) * kMinute : now + qint64(between(1, 120)) * kMinute;
        zadd << num(due) << jobJson(m_nextJob++);
        if (zadd.size() >= 2 + 200) {
            b.add(zadd);
            zadd = RedisCommand{"ZADD", "sched:due"};
        }
    }
    if (zadd.size() > 2)
        b.add(zadd);
    b.add(script("claim_due_jobs", {"sched:due"}, {num(now), "10"}));
}

void Demo::seedLibraryQueue(Batch &b)
{
    // A job queue laid out as BullMQ lays one out (written here, not by BullMQ): 30 completed,
    // 10 failed, 12 waiting, 3 active and 3 delayed jobs of queue "emails". Job 55 is active
    // without its lock: the worker that took it died, so the job is stalled until a worker's
    // stall check moves it back to wait.
    const qint64 now = nowMs();
    const QByteArray q = "bull:emails";
    b.add({"HSET", q + ":meta", "opts.maxLenEvents", "10000", "version", "bullmq:5.34.0"});
    b.add({"SET", q + ":id", "58"});
    const auto job = [&](int id, qint64 createdMs) {
        RedisCommand h{"HSET",      q + ":" + num(id),
                       "name",      "send-email",
                       "data",      "{\"to\":\"user" + num(id) + "@example.org\",\"template\":\"welcome\"}",
                       "opts",      "{\"attempts\":3,\"backoff\":{\"type\":\"exponential\",\"delay\":1000}}",
                       "timestamp", num(createdMs),
                       "delay",     "0",
                       "priority",  "0"};
        return h;
    };
    RedisCommand completed{"ZADD", q + ":completed"}, failed{"ZADD", q + ":failed"};
    for (int id = 1; id <= 40; ++id) {
        const qint64 created = now - qint64(90 - id) * kMinute;
        const qint64 finished = created + 1500;
        RedisCommand h = job(id, created);
        h << "processedOn" << num(created + 200) << "finishedOn" << num(finished) << "atm" << (id > 30 ? "3" : "1");
        if (id > 30)
            h << "failedReason"
              << "SMTP 550: mailbox unavailable";
        else
            h << "returnvalue"
              << "{\"sent\":true}";
        b.add(h);
        (id > 30 ? failed : completed) << num(finished) << num(id);
    }
    b.add(completed);
    b.add(failed);
    RedisCommand wait{"LPUSH", q + ":wait"};
    for (int id = 41; id <= 52; ++id) {
        b.add(job(id, now - qint64(53 - id) * 20000));
        wait << num(id);
    }
    b.add(wait);
    RedisCommand active{"LPUSH", q + ":active"};
    for (int id = 53; id <= 55; ++id) {
        RedisCommand h = job(id, now - 6 * kMinute);
        h << "processedOn" << num(now - qint64(56 - id) * kMinute) << "atm"
          << "0"
          << "ats"
          << "1";
        b.add(h);
        active << num(id);
        // Locks of ten minutes (lockDuration 600000); job 55's worker died and its lock is gone.
        if (id != 55)
            b.add({"SET", q + ":" + num(id) + ":lock", hex(16) + ":1", "PX", "600000"});
    }
    b.add(active);
    RedisCommand delayed{"ZADD", q + ":delayed"};
    for (int id = 56; id <= 58; ++id) {
        RedisCommand h = job(id, now);
        h[h.indexOf("delay") + 1] = num(qint64(id - 55) * 15 * kMinute);
        b.add(h);
        // BullMQ's delayed scores: the due time in ms × 4096, plus a sequence number.
        delayed << num((now + qint64(id - 55) * 15 * kMinute) * 4096 + (id - 55)) << num(id);
    }
    b.add(delayed);
    for (int id = 50; id <= 58; ++id)
        b.add({"XADD", q + ":events", "MAXLEN", "~", "10000", "*", "event", "added", "jobId", num(id), "name",
               "send-email"});
}

void Demo::seedMisc(Batch &b)
{
    const QDate day0 = today();
    // Dedup: one set that only grows (to 60,000 ids, big enough that reading it whole is
    // slow), and per-event keys that expire.
    RedisCommand seen{"SADD", "seen:webhook"};
    for (int i = 1; i <= 60000; ++i) {
        seen << "wh_" + num(i * 7 + between(0, 6));
        if (seen.size() >= 2 + 250) {
            b.add(seen);
            seen = RedisCommand{"SADD", "seen:webhook"};
        }
    }
    if (seen.size() > 2)
        b.add(seen);
    for (int i = 1; i <= 200; ++i)
        b.add({"SET", "seen:evt:wh_" + num(i), "1", "NX", "EX", num(between(3600, 86400))});

    // HyperLogLogs per day and counters per day.
    for (int d = 0; d < 7; ++d) {
        const QByteArray key = "hll:pageviews:" + isoDate(day0.addDays(-d));
        const int visitors = between(1500, 3000);
        RedisCommand pfadd{"PFADD", key};
        for (int v = 0; v < visitors; ++v) {
            pfadd << "v" + num(between(1, 20000));
            if (pfadd.size() >= 2 + 500) {
                b.add(pfadd);
                pfadd = RedisCommand{"PFADD", key};
            }
        }
        if (pfadd.size() > 2)
            b.add(pfadd);
        b.add({"PEXPIRE", key, num(35 * kDay)});
    }
    for (int d = 0; d < 14; ++d) {
        const QByteArray date = isoDate(day0.addDays(-d));
        b.add({"INCRBY", "stats:signups:" + date, num(between(20, 200))});
        b.add({"INCRBY", "stats:orders:" + date, num(between(100, 900))});
    }

    // Bytes, not strings: names with a NUL, with invalid UTF-8 and a newline, binary values,
    // and one big blob (which also shows what "blobs belong in an object store" means).
    b.add({"SET",
           bytes("bin:nul\x00"
                 "name"),
           "a key whose name holds a NUL byte"});
    b.add({"SET", bytes("bin:\xff\xfe-not-utf8"), bytes("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")});
    b.add({"SET", bytes("bin:\x00\xff\nkey"), bytes("line one\nline two\x00\xff\xfe")});
    QByteArray blob;
    blob.reserve(2 * 1024 * 1024 + 128);
    blob += "order_id,user_id,amount_cents,currency,created_at\n";
    const qint64 start = nowMs() - 30 * kDay;
    for (int row = 0; blob.size() < 2 * 1024 * 1024; ++row) {
        blob += num(1000000 + row) + ',' + num(kFirstUser + row % kUsers) + ',' + num(between(500, 250000)) + ",EUR,"
            + num(start + qint64(row) * 1000) + '\n';
    }
    b.add({"SET", "blob:export:orders.csv", blob});
}
