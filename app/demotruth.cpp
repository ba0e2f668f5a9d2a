// SPDX-License-Identifier: GPL-3.0-or-later
#include "demotruth.h"

#include "queues.h"

QList<DemoTruthRule> demoTruth()
{
    using K = PatternKind;
    // Product ids: 1..1000 seeded, 1..1100 written by the simulator's cache_get_or_lock, 900001..
    // 900061 negative markers, 999999 the marker without TTL; the globs keep them apart.
    return {
        {"lock:*", K::Lock, "seedLocks, simulator lock_acquire (incl. no TTL and value 1)"},
        {"app:product:*:lock", K::Lock, "recompute locks (cache_get_or_lock, one without TTL)"},
        {"app:product:9000[0-9][0-9]", K::NegativeCache, "{\"missing\":true} EX 25-35 s"},
        {"app:product:999999", K::NegativeCache, "{\"missing\":true} without TTL"},
        {"app:user:90[0-9][0-9]:profile", K::NegativeCache, "\"null\" EX 25-35 s"},
        {"app:product:[0-9]", K::CacheEntry, "product JSON"},
        {"app:product:[0-9][0-9]", K::CacheEntry, "product JSON"},
        {"app:product:[0-9][0-9][0-9]", K::CacheEntry, "product JSON (167, 334, … without TTL)"},
        {"app:product:[0-9][0-9][0-9][0-9]", K::CacheEntry, "product JSON 1000-1100"},
        {"app:user:1[0-9][0-9][0-9]:profile", K::CacheEntry, "user profile JSON"},
        {"app:price:*", K::CacheEntry, "prices without jitter"},
        {"app:config:*", K::CacheEntry, "reference data without TTL"},
        {"app:report:*", K::CacheEntry, "reports with a logical expiry"},
        {"tag:category:*", K::CacheTagSet, "tag sets of product keys"},
        {"session:*", K::Session, "session hashes (two without TTL)"},
        {"user:*:sessions", K::SessionIndex, "per-user session ids"},
        {"rate:user:*", K::FixedWindow, "fixed_window_limit, and rate:user:4242:… without TTL"},
        {"rate:sliding:user:[0-9][0-9][0-9][0-9]", K::SlidingWindow, "sliding_window_limit log"},
        {"rate:sliding:user:*:seq", K::Counter, "sliding_window_limit's INCR sequence"},
        {"bucket:api:*", K::TokenBucket, "token_bucket hashes"},
        {"lb:*", K::Leaderboard, "daily and weekly boards"},
        {"geo:*", K::GeoSet, "GEOADD cities"},
        {"events:*", K::Stream, "order, dead-letter and audit streams"},
        {"q:email", K::ListQueue, "LPUSH email jobs"},
        {"q:email:proc:*", K::ProcessingList, "workers' processing lists"},
        {"sched:due", K::DelayedJobs, "due times in epoch ms"},
        {"bull:emails:*", K::JobQueue, "a queue laid out as BullMQ lays one out, one job stalled"},
        {"seen:webhook", K::DedupSet, "growing dedup set"},
        {"seen:evt:*", K::DedupKey, "SET NX EX per event"},
        {"hll:*", K::HyperLogLog, "PFADD per day"},
        {"stats:*", K::Counter, "INCRBY per day"},
        {"bin:*", K::Unknown, "binary names and values"},
        {"blob:*", K::Unknown, "a 2 MB CSV export"},
    };
}

std::optional<PatternKind> demoTruthOf(const QByteArray &key, int *matching)
{
    static const QList<DemoTruthRule> rules = demoTruth();
    std::optional<PatternKind> kind;
    int n = 0;
    for (const DemoTruthRule &r : rules) {
        if (globMatch(r.glob, key)) {
            if (!kind)
                kind = r.kind;
            ++n;
        }
    }
    if (matching)
        *matching = n;
    return kind;
}

QList<DemoFindingTruth> demoFindings()
{
    return {
        {"jobs.stalled", "bull:emails: job 55 active without its lock"},
        {"lock.no-ttl", "lock:migration:schema-v42 and a recompute lock without TTL"},
        {"lock.long-ttl", "lock:import:catalog, far above its family's TTL"},
        {"lock.not-token", "a lock holding \"1\""},
        {"cache.recompute-locks", "app:product:1006:lock without TTL"},
        {"cache.no-jitter", "app:price:* written with one TTL"},
        {"cache.no-ttl", "app:config:* and app:product:167, 334, … without TTL"},
        {"cache.negative-no-ttl", "app:product:999999 {\"missing\":true} without TTL"},
        {"cache.tag-dangling", "tag:category:* members whose keys are gone"},
        {"session.no-ttl", "two session hashes without TTL"},
        {"ratelimit.no-ttl", "rate:user:4242:… without its window TTL"},
        {"dedup.no-ttl", "seen:webhook growing without TTL"},
        {"stream.pending-idle", "events:orders › billing: entries left pending for minutes"},
        {"stream.poison", "events:orders › billing: entries delivered many times"},
        {"queue.stale-processing", "q:email:proc:worker-1 with items 47 minutes old"},
        {"queue.delayed-overdue", "sched:due with overdue jobs"},
        {"geo.swapped", "geo:stores written latitude first"},
        {"size.big-string", "blob:export:orders.csv, 2 MB"},
        {"size.big-collection", "seen:webhook, 60,000 members"},
        {"persistence.off", "the demo's server saves nothing, and holds streams and queues"},
        {"security.default-nopass", "the demo's server: the default user on loopback, no password"},
    };
}
