// SPDX-License-Identifier: GPL-3.0-or-later
// The findings engine, rule by rule: each with facts that must raise it and facts just short of
// it, so a rule that never fires or always fires fails here. The same rules on a real server:
// tests/integration/tst_triage.cpp.
#include "findings.h"
#include "geo.h"

#include <QJsonArray>
#include <QTemporaryFile>
#include <QTest>

namespace {

constexpr qint64 kNow = 1'800'000'000'000;

ServerInfo info(const QByteArray &text, qint64 at = kNow)
{
    return ServerInfo::parse(text, at);
}

TriageFacts scanned(qint64 keys = 100)
{
    TriageFacts f;
    f.nowMs = kNow;
    f.coverage.scanned = true;
    f.coverage.complete = true;
    f.coverage.examined = keys;
    f.coverage.total = keys;
    return f;
}

const Finding *find(const TriageResult &r, const QString &id)
{
    for (const Finding &f : r.findings)
        if (f.id == id)
            return &f;
    return nullptr;
}

TriageResult run(const TriageFacts &facts, const QString &only)
{
    return evaluateTriage(facts, TriageThresholds(), only.isEmpty() ? QStringList() : QStringList{only});
}

LockInfo lock(const QByteArray &key, quint8 flags, qint64 pttl = 10'000)
{
    LockInfo l;
    l.key = key;
    l.family = QStringLiteral("lock:{id}");
    l.flags = flags;
    l.pttlMs = pttl;
    return l;
}

} // namespace

class TestFindings : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void severityNames();
    void thresholdsLoadAndRefuse();
    void coverageSaysWhatWasSeen();
    void everyRuleIsKnownAndOnlyFilters();
    void notCheckedSaysWhy();
    void memoryRules();
    void policyMismatch();
    void namespaceMemoryAndHotKeys();
    void persistenceRules();
    void cacheRules();
    void lifetimeRules();
    void errorRules();
    void lockRules();
    void redlockRules();
    void streamRules();
    void queueRules();
    void jobRules();
    void sizeRules();
    void commandRules();
    void securityRules();
    void serverRules();
    void geoRuleAndLandMask();
    void rankedBySeverityThenImpact();
    void jsonShape();
};

void TestFindings::severityNames()
{
    for (FindingSeverity s : {FindingSeverity::Info, FindingSeverity::Warning, FindingSeverity::Critical})
        QCOMPARE(findingSeverityFromName(findingSeverityName(s)), s);
    QVERIFY(!findingSeverityFromName(QStringLiteral("fatal")));
}

void TestFindings::thresholdsLoadAndRefuse()
{
    TriageThresholds t;
    QCOMPARE(t.value("stream.poison_deliveries"), 5.0);
    QVERIFY(t.names().size() >= 20);
    QCOMPARE(t.loadJson(R"({"stream.poison_deliveries": 3, "_comment": "ours"})"), QString());
    QCOMPARE(t.value("stream.poison_deliveries"), 3.0);
    // An unknown name or a value that is not a number changes nothing.
    QVERIFY(t.loadJson(R"({"stream.poison_deliveries": 9, "no.such": 1})").contains(QStringLiteral("no.such")));
    QCOMPARE(t.value("stream.poison_deliveries"), 3.0);
    QVERIFY(t.loadJson(R"({"stream.poison_deliveries": "9"})").contains(QStringLiteral("not a number")));
    QVERIFY(t.loadJson("[1]").contains(QStringLiteral("object")));
    QVERIFY(t.loadJson("{").contains(QStringLiteral("not JSON")));
    QVERIFY(t.load(QStringLiteral("/nonexistent/thresholds.json")).contains(QStringLiteral("cannot read")));
    QTemporaryFile file;
    QVERIFY(file.open());
    file.write(R"({"queue.length": 5})");
    file.flush();
    QCOMPARE(t.load(file.fileName()), QString());
    QCOMPARE(t.value("queue.length"), 5.0);
}

void TestFindings::coverageSaysWhatWasSeen()
{
    KeyspaceCoverage c;
    QVERIFY(c.sentence().contains(QStringLiteral("no key scan")));
    c.scanned = true;
    c.complete = true;
    c.examined = 1204113;
    c.total = 1204113;
    QCOMPARE(c.sentence(), QStringLiteral("from a complete scan of 1,204,113 keys"));
    QCOMPARE(c.estimate(12), QStringLiteral("12"));
    c.complete = false;
    c.sampled = true;
    c.examined = 10000;
    QCOMPARE(c.sentence(), QStringLiteral("from a sample of 10,000 of 1,204,113 keys"));
    // 100 of 10,000 sampled: 1 % of 1.2 M, ± 1.96 √(p(1-p)/n) N with the finite population correction.
    const QString e = c.estimate(100);
    QVERIFY2(e.startsWith(QStringLiteral("an estimated 12,041 ± 2,3")), qPrintable(e));
    QVERIFY(e.endsWith(QStringLiteral("of 1,204,113")));
}

void TestFindings::everyRuleIsKnownAndOnlyFilters()
{
    QSet<QString> ids;
    for (const TriageRule &r : triageRules()) {
        QVERIFY2(!ids.contains(QLatin1String(r.id)), r.id);
        ids.insert(QLatin1String(r.id));
        QVERIFY(QString::fromLatin1(r.id).startsWith(QLatin1String(r.area) + QLatin1Char('.')));
        QVERIFY(findings::isKnownRuleOrArea(QLatin1String(r.id)));
        QVERIFY(findings::isKnownRuleOrArea(QLatin1String(r.area)));
    }
    QVERIFY(!findings::isKnownRuleOrArea(QStringLiteral("lock.nope")));
    TriageFacts f = scanned();
    f.locks = QList<LockInfo>{lock("lock:a", LockInfo::NoTtl, -1)};
    QVERIFY(find(evaluateTriage(f, TriageThresholds()), QStringLiteral("lock.no-ttl")));
    QVERIFY(find(evaluateTriage(f, TriageThresholds(), {QStringLiteral("lock")}), QStringLiteral("lock.no-ttl")));
    QVERIFY(!find(evaluateTriage(f, TriageThresholds(), {}, {QStringLiteral("lock")}), QStringLiteral("lock.no-ttl")));
    QVERIFY(!find(evaluateTriage(f, TriageThresholds(), {}, {QStringLiteral("lock.no-ttl")}),
                  QStringLiteral("lock.no-ttl")));
    // --only memory: the lock rules are neither checked nor listed as not checked.
    const TriageResult memory = evaluateTriage(f, TriageThresholds(), {QStringLiteral("memory")});
    for (const auto &[id, why] : memory.notChecked)
        QVERIFY2(id.startsWith(QLatin1String("memory.")), qPrintable(id));
}

void TestFindings::notCheckedSaysWhy()
{
    TriageFacts f;
    f.infoError = QStringLiteral("NOPERM this user has no permissions to run the 'info' command");
    const TriageResult r = evaluateTriage(f, TriageThresholds());
    QVERIFY(r.findings.isEmpty());
    QCOMPARE(r.rulesChecked, 0);
    QCOMPARE(r.notChecked.size(), triageRules().size());
    bool sawNoperm = false;
    for (const auto &[id, why] : r.notChecked)
        sawNoperm = sawNoperm || (id == QLatin1String("memory.no-maxmemory") && why.contains(QStringLiteral("NOPERM")));
    QVERIFY(sawNoperm);
}

void TestFindings::memoryRules()
{
    TriageFacts f;
    f.info = info(
        "used_memory:900\r\nmaxmemory:0\r\nevicted_keys:0\r\nmem_fragmentation_ratio:1.1\r\nused_memory_rss:1000\r\n");
    QVERIFY(find(run(f, QStringLiteral("memory")), QStringLiteral("memory.no-maxmemory")));
    f.info = info("used_memory:900\r\nmaxmemory:1000\r\nevicted_keys:0\r\n");
    TriageResult r = run(f, QStringLiteral("memory"));
    QVERIFY(!find(r, QStringLiteral("memory.no-maxmemory")));
    QCOMPARE(find(r, QStringLiteral("memory.near-limit"))->severity, FindingSeverity::Warning);
    f.info = info("used_memory:960\r\nmaxmemory:1000\r\n");
    QCOMPARE(find(run(f, QStringLiteral("memory")), QStringLiteral("memory.near-limit"))->severity,
             FindingSeverity::Critical);
    f.info = info("used_memory:800\r\nmaxmemory:1000\r\n");
    QVERIFY(!find(run(f, QStringLiteral("memory")), QStringLiteral("memory.near-limit")));
    // Evictions: info since start, a warning while rising.
    f.info = info("evicted_keys:40\r\n");
    QCOMPARE(find(run(f, QStringLiteral("memory")), QStringLiteral("memory.evictions"))->severity,
             FindingSeverity::Info);
    f.earlierInfo = info("evicted_keys:10\r\n", kNow - 1000);
    QCOMPARE(find(run(f, QStringLiteral("memory")), QStringLiteral("memory.evictions"))->severity,
             FindingSeverity::Warning);
    f.info = info("evicted_keys:0\r\n");
    f.earlierInfo = {};
    QVERIFY(!find(run(f, QStringLiteral("memory")), QStringLiteral("memory.evictions")));
    // Fragmentation only matters when the bytes do.
    f.info = info("used_memory:1000000000\r\nused_memory_rss:2000000000\r\nmem_fragmentation_ratio:2.00\r\n");
    QVERIFY(find(run(f, QStringLiteral("memory")), QStringLiteral("memory.fragmentation")));
    f.info = info("used_memory:1000000\r\nused_memory_rss:3000000\r\nmem_fragmentation_ratio:3.00\r\n");
    QVERIFY(!find(run(f, QStringLiteral("memory")), QStringLiteral("memory.fragmentation")));
}

void TestFindings::policyMismatch()
{
    TriageFacts f = scanned();
    f.info = info("maxmemory:1000\r\nmaxmemory_policy:allkeys-lru\r\n");
    f.kindCounts[size_t(PatternKind::CacheEntry)] = 90;
    QVERIFY(!find(run(f, QStringLiteral("memory")), QStringLiteral("memory.policy-mismatch")));
    f.kindCounts[size_t(PatternKind::Stream)] = 1;
    QVERIFY(find(run(f, QStringLiteral("memory")), QStringLiteral("memory.policy-mismatch")));
    f.info = info("maxmemory:1000\r\nmaxmemory_policy:volatile-lru\r\n");
    QVERIFY(!find(run(f, QStringLiteral("memory")), QStringLiteral("memory.policy-mismatch")));
    // noeviction with nothing but cache data.
    f.kindCounts = {};
    f.kindCounts[size_t(PatternKind::CacheEntry)] = 90;
    f.info = info("maxmemory:1000\r\nmaxmemory_policy:noeviction\r\n");
    QCOMPARE(find(run(f, QStringLiteral("memory")), QStringLiteral("memory.policy-mismatch"))->severity,
             FindingSeverity::Info);
    f.kindCounts[size_t(PatternKind::Session)] = 1;
    QVERIFY(!find(run(f, QStringLiteral("memory")), QStringLiteral("memory.policy-mismatch")));
}

void TestFindings::namespaceMemoryAndHotKeys()
{
    TriageFacts f = scanned();
    f.info = info("used_memory:2000000000\r\n");
    f.memoryProbed = 100;
    f.namespaceMemory = {{"cache", 400}, {"session", 350}, {"", 250}};
    QVERIFY(!find(run(f, QStringLiteral("memory")), QStringLiteral("memory.namespace-dominates")));
    f.namespaceMemory = {{"cache", 800}, {"session", 150}, {"", 50}};
    const TriageResult dominated = run(f, QStringLiteral("memory"));
    const Finding *dominates = find(dominated, QStringLiteral("memory.namespace-dominates"));
    QVERIFY(dominates);
    QCOMPARE(dominates->title, QStringLiteral("cache: holds 80 % of the memory"));
    QVERIFY(dominates->evidence.constFirst().detail.contains(QStringLiteral("1.5 GiB")));
    // A small server is always mostly one namespace: not worth a finding.
    f.info = info("used_memory:2000000\r\n");
    QVERIFY(!find(run(f, QStringLiteral("memory")), QStringLiteral("memory.namespace-dominates")));
    // Hot keys: only under LFU, and only above the counter's threshold.
    f.freqWhy = QStringLiteral("maxmemory-policy is noeviction, not LFU");
    TriageResult r = run(f, QStringLiteral("commands.hot-keys"));
    QCOMPARE(r.notChecked.size(), 1);
    QCOMPARE(r.notChecked.constFirst().second, f.freqWhy);
    f.freqRead = true;
    f.hotKeys = {{"item:7", 255}, {"item:8", 4}};
    r = run(f, QStringLiteral("commands.hot-keys"));
    QCOMPARE(find(r, QStringLiteral("commands.hot-keys"))->evidence.size(), 1);
    QCOMPARE(find(r, QStringLiteral("commands.hot-keys"))->evidence.constFirst().key, QByteArray("item:7"));
}

void TestFindings::persistenceRules()
{
    TriageFacts f = scanned();
    f.config = {{"save", ""}, {"appendonly", "no"}};
    f.kindCounts[size_t(PatternKind::JobQueue)] = 5;
    QVERIFY(find(run(f, QStringLiteral("persistence")), QStringLiteral("persistence.off")));
    f.config["appendonly"] = "yes";
    QVERIFY(!find(run(f, QStringLiteral("persistence")), QStringLiteral("persistence.off")));
    f.config = {{"save", ""}, {"appendonly", "no"}};
    f.kindCounts = {};
    f.kindCounts[size_t(PatternKind::CacheEntry)] = 5;
    QVERIFY(!find(run(f, QStringLiteral("persistence")), QStringLiteral("persistence.off")));
    // Saves: a failed one is critical, a long-overdue one a warning.
    f.config = {{"save", "3600 1"}, {"appendonly", "no"}};
    f.info = info("rdb_last_bgsave_status:err\r\nrdb_last_save_time:1799999990\r\nrdb_changes_since_last_save:3\r\n");
    QCOMPARE(find(run(f, QStringLiteral("persistence")), QStringLiteral("persistence.save-failing"))->severity,
             FindingSeverity::Critical);
    f.info = info("rdb_last_bgsave_status:ok\r\nrdb_last_save_time:1799990000\r\nrdb_changes_since_last_save:3\r\n");
    QCOMPARE(find(run(f, QStringLiteral("persistence")), QStringLiteral("persistence.save-failing"))->severity,
             FindingSeverity::Warning);
    f.info = info("rdb_last_bgsave_status:ok\r\nrdb_last_save_time:1799999000\r\nrdb_changes_since_last_save:3\r\n");
    QVERIFY(!find(run(f, QStringLiteral("persistence")), QStringLiteral("persistence.save-failing")));
    f.info = info("aof_enabled:1\r\naof_last_bgrewrite_status:err\r\naof_last_write_status:ok\r\n");
    QVERIFY(find(run(f, QStringLiteral("persistence")), QStringLiteral("persistence.aof-failing")));
    f.info = info("aof_enabled:1\r\naof_last_bgrewrite_status:ok\r\naof_last_write_status:ok\r\n");
    QVERIFY(!find(run(f, QStringLiteral("persistence")), QStringLiteral("persistence.aof-failing")));
}

void TestFindings::cacheRules()
{
    TriageFacts f = scanned();
    CachesResults c;
    CacheNamespaceRow good;
    good.family = QStringLiteral("app:product:{n}");
    good.keys = good.withTtl = 100;
    c.namespaces = {good};
    f.caches = c;
    f.logicalExpiryRead = true;
    f.logicalExpiry = {{"app:report:1", PatternKind::CacheEntry, kNow - 60'000}};
    f.locks = QList<LockInfo>{lock("app:product:7:lock", 0)};
    const TriageResult clean = run(f, QStringLiteral("cache"));
    QVERIFY2(clean.findings.isEmpty(), qPrintable(clean.findings.value(0).id));
    CacheNamespaceRow bad = good;
    bad.noTtl = 4;
    bad.withTtl = 96;
    bad.negatives = 3;
    bad.negativesNoTtl = 1;
    bad.cliffs = {TtlCliff{kNow, kNow + 1000, 80, 80, kNow, 1.0, 0, 80}};
    TagRow tag;
    tag.key = "tag:category:1";
    tag.dangling = {"app:product:9"};
    c.namespaces = {bad};
    c.tags = {tag};
    f.caches = c;
    f.logicalExpiry = {{"app:report:1", PatternKind::CacheEntry, kNow - 3'600'000}};
    f.locks = QList<LockInfo>{lock("app:product:7:lock", LockInfo::NoTtl, -1)};
    const TriageResult r = run(f, QStringLiteral("cache"));
    for (const char *id : {"cache.no-ttl", "cache.no-jitter", "cache.negative-no-ttl", "cache.tag-dangling",
                           "cache.recompute-locks", "cache.logical-expiry"})
        QVERIFY2(find(r, QLatin1String(id)), id);
    QCOMPARE(find(r, QStringLiteral("cache.no-ttl"))->affected, 4);
    QCOMPARE(find(r, QStringLiteral("cache.no-ttl"))->evidence.constFirst().subject, QStringLiteral("app:product:{n}"));
    QCOMPARE(find(r, QStringLiteral("cache.logical-expiry"))->evidence.constFirst().key, QByteArray("app:report:1"));
    // Recompute locks that all expire but pile up.
    QList<LockInfo> many;
    for (int i = 0; i < 25; ++i)
        many.append(lock("app:product:" + QByteArray::number(i) + ":lock", 0));
    f.locks = many;
    QCOMPARE(find(run(f, QStringLiteral("cache.recompute-locks")), QStringLiteral("cache.recompute-locks"))->severity,
             FindingSeverity::Info);
}

void TestFindings::lifetimeRules()
{
    TriageFacts f = scanned();
    RateLimitAnalysis a;
    CallerState ok;
    ok.key = "rate:user:1:29000000";
    a.callers = {ok};
    f.rateLimits = a;
    SessionsResults s;
    SessionRow fine;
    fine.key = "session:abc";
    fine.lifetime = sessions::Lifetime::Sliding;
    s.sessions = {fine};
    f.sessions = s;
    CachesResults c;
    DedupSetRow daily;
    daily.key = "seen:2026-12-06";
    daily.pttlMs = 86'000'000;
    daily.cardinality = 90'000;
    c.dedupSets = {daily};
    f.caches = c;
    QVERIFY(run(f, QStringLiteral("ratelimit")).findings.isEmpty());
    QVERIFY(run(f, QStringLiteral("session")).findings.isEmpty());
    QVERIFY(run(f, QStringLiteral("dedup")).findings.isEmpty());
    a.callers.first().flags = CallerState::NoTtl;
    f.rateLimits = a;
    s.sessions.first().lifetime = sessions::Lifetime::NoTtl;
    f.sessions = s;
    c.dedupSets.first().pttlMs = -1;
    f.caches = c;
    QVERIFY(find(run(f, QStringLiteral("ratelimit")), QStringLiteral("ratelimit.no-ttl")));
    QVERIFY(find(run(f, QStringLiteral("session")), QStringLiteral("session.no-ttl")));
    QVERIFY(find(run(f, QStringLiteral("dedup")), QStringLiteral("dedup.no-ttl")));
    // A small dedup set without TTL that is not growing is left alone.
    c.dedupSets.first().cardinality = 10;
    f.caches = c;
    QVERIFY(!find(run(f, QStringLiteral("dedup")), QStringLiteral("dedup.no-ttl")));
}

void TestFindings::errorRules()
{
    TriageFacts f;
    f.info = info("total_error_replies:0\r\n");
    QVERIFY(run(f, QStringLiteral("errors")).findings.isEmpty());
    QVERIFY(run(f, QStringLiteral("errors")).notChecked.size() == 1); // rising: needs two reads
    f.info = info("# Stats\r\ntotal_error_replies:130\r\n# Errorstats\r\nerrorstat_WRONGTYPE:count=100\r\n"
                  "errorstat_NOPERM:count=30\r\n");
    f.earlierInfo = info("total_error_replies:100\r\n", kNow - 2000);
    const TriageResult r = run(f, QStringLiteral("errors"));
    const Finding *rising = find(r, QStringLiteral("errors.rising"));
    QVERIFY(rising);
    QCOMPARE(rising->title, QStringLiteral("15 error replies per second"));
    QCOMPARE(rising->evidence.constFirst().subject, QStringLiteral("WRONGTYPE"));
    QCOMPARE(find(r, QStringLiteral("errors.recorded"))->severity, FindingSeverity::Info);
    f.earlierInfo = info("total_error_replies:129\r\n", kNow - 2000);
    QVERIFY(!find(run(f, QStringLiteral("errors")), QStringLiteral("errors.rising")));
}

void TestFindings::lockRules()
{
    TriageFacts f = scanned();
    f.locks = QList<LockInfo>{lock("lock:a", 0), lock("lock:b", 0)};
    QVERIFY(run(f, QStringLiteral("lock")).findings.isEmpty());
    f.locks = QList<LockInfo>{lock("lock:a", LockInfo::NoTtl, -1), lock("lock:b", LockInfo::LongTtl),
                              lock("lock:c", LockInfo::NotTokenLike)};
    const TriageResult r = run(f, QStringLiteral("lock"));
    QCOMPARE(find(r, QStringLiteral("lock.no-ttl"))->severity, FindingSeverity::Critical);
    QCOMPARE(find(r, QStringLiteral("lock.no-ttl"))->title, QStringLiteral("1 lock without TTL"));
    QCOMPARE(find(r, QStringLiteral("lock.long-ttl"))->evidence.constFirst().key, QByteArray("lock:b"));
    QCOMPARE(find(r, QStringLiteral("lock.not-token"))->severity, FindingSeverity::Info);
    // A released lock is no longer evidence.
    LockInfo gone = lock("lock:a", LockInfo::NoTtl, -1);
    gone.released = true;
    f.locks = QList<LockInfo>{gone};
    QVERIFY(run(f, QStringLiteral("lock")).findings.isEmpty());
}

void TestFindings::redlockRules()
{
    TriageFacts f = scanned();
    f.locks = QList<LockInfo>{}; // the server's own lock rules ran and found nothing
    // No set: not checked, and why.
    TriageResult none = run(f, QStringLiteral("lock.redlock-split"));
    QVERIFY(none.findings.isEmpty());
    QCOMPARE(none.notChecked.size(), 1);
    QVERIFY(none.notChecked.constFirst().second.contains(QLatin1String("--redlock")));
    // A set whose every lock is sound, every node read: nothing.
    const auto held = [](const QByteArray &key, quint8 flags) {
        RedlockLock l;
        l.key = key;
        l.nodes = 3;
        l.quorum = 2;
        l.held = (flags & RedlockLock::NoMajority) ? 1 : 3;
        l.flags = flags;
        l.tokens = (flags & RedlockLock::SplitTokens) ? 2 : 1;
        return l;
    };
    f.redlock = QList<RedlockLock>{held("locks:a", 0)};
    f.redlockNodes
        = {QStringLiteral("127.0.0.1:7001"), QStringLiteral("127.0.0.1:7002"), QStringLiteral("127.0.0.1:7003")};
    f.redlockNodeErrors = {QString(), QString(), QString()};
    TriageResult r = run(f, QStringLiteral("lock"));
    for (const Finding &fd : r.findings)
        QVERIFY2(!fd.id.startsWith(QLatin1String("lock.redlock")), qPrintable(fd.id));
    QCOMPARE(r.notChecked.size(), 0);
    // Split tokens (critical), a minority (warning) and a node down (warning).
    f.redlock = QList<RedlockLock>{held("locks:a", 0), held("locks:split", RedlockLock::SplitTokens),
                                   held("locks:minority", RedlockLock::NoMajority)};
    f.redlockNodeErrors = {QString(), QString(), QStringLiteral("Connection refused")};
    r = run(f, QStringLiteral("lock"));
    const Finding *split = find(r, QStringLiteral("lock.redlock-split"));
    QVERIFY(split);
    QCOMPARE(split->severity, FindingSeverity::Critical);
    QCOMPARE(split->title, QStringLiteral("1 Redlock lock held by different tokens on different nodes"));
    QCOMPARE(split->evidence.size(), 1);
    QCOMPARE(split->evidence.constFirst().key, QByteArray("locks:split"));
    QCOMPARE(split->panel, QStringLiteral("locks"));
    QVERIFY(split->coverage.contains(QLatin1String("127.0.0.1:7003")));
    const Finding *minority = find(r, QStringLiteral("lock.redlock-minority"));
    QVERIFY(minority);
    QCOMPARE(minority->severity, FindingSeverity::Warning);
    QCOMPARE(minority->evidence.constFirst().key, QByteArray("locks:minority"));
    const Finding *down = find(r, QStringLiteral("lock.redlock-node-down"));
    QVERIFY(down);
    QCOMPARE(down->evidence.size(), 1);
    QCOMPARE(down->evidence.constFirst().subject, QStringLiteral("127.0.0.1:7003"));
    QCOMPARE(down->evidence.constFirst().detail, QStringLiteral("Connection refused"));
}

void TestFindings::streamRules()
{
    TriageFacts f = scanned();
    StreamFacts s;
    s.row.key = "events:orders";
    s.row.loaded = true;
    s.row.info.length = 500;
    s.row.info.entriesAdded = 500;
    s.row.info.maxDeletedEntryId = "0-0";
    StreamFacts::Group g;
    g.info.name = "billing";
    g.info.pending = 1;
    g.info.lag = 3;
    g.consumers = {{"worker-1", 1, 1000, 1000}};
    g.oldestPending = {{"1-0", "worker-1", 1000, 1}};
    s.groups = {g};
    f.streams = QList<StreamFacts>{s};
    QVERIFY2(run(f, QStringLiteral("stream")).findings.isEmpty(),
             qPrintable(run(f, QStringLiteral("stream")).findings.value(0).id));
    s.row.info.length = 50'000;
    s.row.info.entriesAdded = 50'000;
    g.info.lag = 20'000;
    g.consumers = {{"worker-1", 1, 3'600'000, 3'600'000}};
    g.oldestPending = {{"1-0", "worker-1", 3'600'000, 9}};
    s.groups = {g};
    f.streams = QList<StreamFacts>{s};
    const TriageResult r = run(f, QStringLiteral("stream"));
    for (const char *id :
         {"stream.untrimmed", "stream.pending-idle", "stream.poison", "stream.idle-consumer", "stream.lag"})
        QVERIFY2(find(r, QLatin1String(id)), id);
    // A trimmed stream (something was deleted) of any length is not "untrimmed".
    s.row.info.maxDeletedEntryId = "5-0";
    f.streams = QList<StreamFacts>{s};
    QVERIFY(!find(run(f, QStringLiteral("stream")), QStringLiteral("stream.untrimmed")));
}

void TestFindings::queueRules()
{
    TriageFacts f = scanned();
    QueueInfo q;
    q.key = "q:email";
    q.length = 10;
    ProcessingListInfo p;
    p.key = "q:email:proc:1";
    p.length = 1;
    q.processing = {p};
    DelayedInfo d;
    d.key = "sched:due";
    d.overdue = 1;
    d.oldestOverdueAgeMs = 5000;
    f.queues = QList<QueueInfo>{q};
    f.delayed = QList<DelayedInfo>{d};
    QVERIFY(run(f, QStringLiteral("queue")).findings.isEmpty());
    q.length = 20'000;
    q.processing.first().stale = true;
    d.oldestOverdueAgeMs = 600'000;
    f.queues = QList<QueueInfo>{q};
    f.delayed = QList<DelayedInfo>{d};
    const TriageResult r = run(f, QStringLiteral("queue"));
    for (const char *id : {"queue.long", "queue.stale-processing", "queue.delayed-overdue"})
        QVERIFY2(find(r, QLatin1String(id)), id);
    // Growth alone is enough.
    q.length = 10;
    q.growthPerMin = 5000;
    f.queues = QList<QueueInfo>{q};
    QVERIFY(find(run(f, QStringLiteral("queue.long")), QStringLiteral("queue.long")));
}

void TestFindings::jobRules()
{
    TriageFacts f = scanned();
    JobQueueInfo q;
    q.spec.library = QStringLiteral("RQ");
    q.spec.name = "default";
    q.states.insert(QStringLiteral("failed"), 3);
    ActiveJob running;
    running.id = "j1";
    q.active = {running};
    QueueWorker alive;
    alive.name = QStringLiteral("w1");
    q.workers = {alive};
    f.jobQueues = QList<JobQueueInfo>{q};
    QVERIFY(run(f, QStringLiteral("jobs")).findings.isEmpty());
    q.states.insert(QStringLiteral("failed"), 500);
    q.active.first().stalled = true;
    q.active.first().why = QStringLiteral("worker stopped beating 5m ago");
    q.workers.first().alive = false;
    q.workers.first().holds = {"j1"};
    f.jobQueues = QList<JobQueueInfo>{q};
    const TriageResult r = run(f, QStringLiteral("jobs"));
    QCOMPARE(find(r, QStringLiteral("jobs.stalled"))->severity, FindingSeverity::Critical);
    QVERIFY(find(r, QStringLiteral("jobs.stalled"))->evidence.constFirst().detail.contains(QStringLiteral("5m ago")));
    QVERIFY(find(r, QStringLiteral("jobs.failed")));
    QCOMPARE(find(r, QStringLiteral("jobs.dead-worker"))->severity, FindingSeverity::Critical);
}

void TestFindings::sizeRules()
{
    TriageFacts f = scanned(2000);
    const auto sample = [](const QByteArray &key, KeyType type, qint64 elements) {
        KeySample s;
        s.key = key;
        s.type = type;
        s.elements = elements;
        return s;
    };
    f.bigKeys = {sample("blob", KeyType::String, 100'000), sample("set", KeyType::Set, 4999)};
    QVERIFY(run(f, QStringLiteral("size")).findings.isEmpty());
    f.bigKeys = {sample("blob", KeyType::String, 2'000'000), sample("set", KeyType::Set, 60'000)};
    TriageResult r = run(f, QStringLiteral("size"));
    QCOMPARE(find(r, QStringLiteral("size.big-string"))->evidence.constFirst().detail, QStringLiteral("1.9 MiB"));
    QVERIFY(find(r, QStringLiteral("size.big-collection")));
    // Tiny strings: a family of 2,000 strings of a few bytes each.
    FamilyFacts flags{
        QStringLiteral("flag:user:{n}"), PatternKind::Unknown, KeyType::String, 2000, 2000, "flag:user:1"};
    f.families = {flags};
    f.bigKeys.clear();
    for (int i = 0; i < 20; ++i)
        f.bigKeys.append(sample("flag:user:" + QByteArray::number(i), KeyType::String, 1));
    QVERIFY(find(run(f, QStringLiteral("size")), QStringLiteral("size.tiny-strings")));
    f.families.first().kind = PatternKind::DedupKey; // one key each, to expire one by one
    QVERIFY(!find(run(f, QStringLiteral("size")), QStringLiteral("size.tiny-strings")));
}

void TestFindings::commandRules()
{
    TriageFacts f;
    f.info = info("# Commandstats\r\ncmdstat_get:calls=10,usec=1\r\n");
    f.slowlogRead = true;
    QVERIFY(run(f, QStringLiteral("commands")).findings.isEmpty());
    f.info = info("# Commandstats\r\ncmdstat_keys:calls=3,usec=1\r\n");
    SlowlogEntry whole;
    whole.durationUs = 20'000;
    whole.args = {"HGETALL", "user:1"};
    SlowlogEntry script;
    script.durationUs = 250'000;
    script.args = {"EVALSHA", "abc", "0"};
    f.slowlog = {whole, script};
    const TriageResult r = run(f, QStringLiteral("commands"));
    QCOMPARE(find(r, QStringLiteral("commands.dangerous"))->affected, 3);
    QCOMPARE(find(r, QStringLiteral("commands.whole-reads"))->evidence.constFirst().key, QByteArray("user:1"));
    QVERIFY(find(r, QStringLiteral("commands.long-scripts")));
    // LRANGE with a window is paging, not a whole read.
    whole.args = {"LRANGE", "q", "0", "99"};
    f.slowlog = {whole};
    QVERIFY(!find(run(f, QStringLiteral("commands")), QStringLiteral("commands.whole-reads")));
}

void TestFindings::securityRules()
{
    TriageFacts f = scanned();
    f.aclRead = true;
    f.aclUsers = {"user default on #5e88489 ~* &* +@all"};
    f.config = {{"bind", "0.0.0.0"}, {"protected-mode", "yes"}};
    QVERIFY(run(f, QStringLiteral("security")).findings.isEmpty());
    f.aclUsers = {"user default on nopass ~* &* +@all"};
    QCOMPARE(find(run(f, QStringLiteral("security")), QStringLiteral("security.default-nopass"))->severity,
             FindingSeverity::Critical);
    f.config = {{"bind", "127.0.0.1 -::1"}, {"protected-mode", "no"}};
    TriageResult r = run(f, QStringLiteral("security"));
    QCOMPARE(find(r, QStringLiteral("security.default-nopass"))->severity, FindingSeverity::Info);
    QVERIFY(!find(r, QStringLiteral("security.protected-mode")));
    f.config = {{"bind", "* -::*"}, {"protected-mode", "no"}};
    QVERIFY(find(run(f, QStringLiteral("security")), QStringLiteral("security.protected-mode")));
    f.sensitiveNameCount = 2;
    f.sensitiveNames = {{"user:ann@example.com", QStringLiteral("an e-mail address")}};
    QCOMPARE(find(run(f, QStringLiteral("keys")), QStringLiteral("keys.sensitive-names"))->affected, 2);
}

void TestFindings::serverRules()
{
    TriageFacts f;
    f.info = info("# Server\r\nredis_version:7.0.15\r\n# Clients\r\nconnected_clients:5\r\n# Stats\r\n"
                  "number_of_cached_scripts:3\r\n# Keyspace\r\ndb0:keys=10,expires=0,avg_ttl=0\r\n");
    QVERIFY(run(f, QStringLiteral("server")).findings.isEmpty());
    QVERIFY(run(f, QStringLiteral("clients")).findings.isEmpty());
    f.info = info("# Server\r\nredis_version:5.0.7\r\n# Clients\r\nconnected_clients:9500\r\n# Stats\r\n"
                  "number_of_cached_scripts:4000\r\n# Keyspace\r\ndb0:keys=10,expires=0,avg_ttl=0\r\n"
                  "db3:keys=1,expires=0,avg_ttl=0\r\n");
    f.config = {{"maxclients", "10000"}};
    const TriageResult r = run(f, QString());
    for (const char *id : {"server.old-version", "server.scripts", "server.databases", "clients.too-many"})
        QVERIFY2(find(r, QLatin1String(id)), id);
    QCOMPARE(find(r, QStringLiteral("clients.too-many"))->severity, FindingSeverity::Warning);
}

void TestFindings::geoRuleAndLandMask()
{
    const LandMask &land = LandMask::world();
    QVERIFY(!land.isEmpty());
    QVERIFY(land.isLand({2.3522, 48.8566})); // Paris
    QVERIFY(land.isLand({-99.13, 19.43})); // Mexico City
    QVERIFY(land.isLand({151.2, -33.87 + 0.5})); // inland from Sydney
    QVERIFY(land.isLand({30.0, -80.0})); // Antarctica: its ring has no closing edge in the file
    QVERIFY(land.isLand({100.0, 60.0})); // Siberia, east and west of the antimeridian cut
    QVERIFY(!land.isLand({48.8566, 2.3522})); // Paris swapped: off Somalia
    QVERIFY(!land.isLand({-30.0, 30.0})); // the Atlantic
    QVERIFY(!land.isLand({-150.0, 0.0})); // the Pacific
    QVERIFY(!land.isLand({0.0, 0.0})); // Null Island
    TriageFacts f = scanned();
    f.geo = QList<GeoFacts>{{"geo:cities", 50, 50, 2, 0}};
    QVERIFY(run(f, QStringLiteral("geo")).findings.isEmpty());
    f.geo = QList<GeoFacts>{{"geo:stores", 50, 50, 40, 38}};
    QVERIFY(find(run(f, QStringLiteral("geo")), QStringLiteral("geo.swapped")));
}

void TestFindings::rankedBySeverityThenImpact()
{
    TriageFacts f = scanned();
    f.locks = QList<LockInfo>{lock("lock:a", LockInfo::NotTokenLike), lock("lock:b", LockInfo::NoTtl, -1)};
    SessionsResults s;
    for (int i = 0; i < 3; ++i) {
        SessionRow row;
        row.key = "session:" + QByteArray::number(i);
        row.lifetime = sessions::Lifetime::NoTtl;
        s.sessions.append(row);
    }
    f.sessions = s;
    RateLimitAnalysis a;
    CallerState c;
    c.flags = CallerState::NoTtl;
    a.callers = {c};
    f.rateLimits = a;
    const TriageResult r = evaluateTriage(f, TriageThresholds());
    QStringList order;
    for (const Finding &x : r.findings)
        order << x.id;
    QCOMPARE(order,
             QStringList({QStringLiteral("lock.no-ttl"), QStringLiteral("session.no-ttl"),
                          QStringLiteral("ratelimit.no-ttl"), QStringLiteral("lock.not-token")}));
}

void TestFindings::jsonShape()
{
    TriageFacts f = scanned();
    f.locks = QList<LockInfo>{lock(QByteArray("lock:\x01\xff", 7), LockInfo::NoTtl, -1)};
    f.typeCounts.insert(KeyType::String, 3);
    f.namespaceCounts.insert("lock", 1);
    const TriageResult r = evaluateTriage(f, TriageThresholds());
    const QJsonObject o = findings::toJson(r.findings.constFirst());
    for (const char *name : {"id", "severity", "title", "evidence", "coverage", "hint", "affected", "panel"})
        QVERIFY2(o.contains(QLatin1String(name)), name);
    QCOMPARE(o.value(QStringLiteral("severity")).toString(), QStringLiteral("critical"));
    // Binary key bytes are escaped as everywhere else.
    QCOMPARE(o.value(QStringLiteral("evidence")).toArray().first().toObject().value(QStringLiteral("key")).toString(),
             QStringLiteral("lock:\\x01\\xff"));
    const QJsonObject summary = findings::summaryJson(f);
    QCOMPARE(summary.value(QStringLiteral("keys_by_type")).toObject().value(QStringLiteral("string")).toInt(), 3);
    QCOMPARE(summary.value(QStringLiteral("ttl_histogram")).toObject().keys().size(), 6);
}

QTEST_GUILESS_MAIN(TestFindings)
#include "tst_findings.moc"
