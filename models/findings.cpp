// SPDX-License-Identifier: GPL-3.0-or-later
#include "findings.h"

#include "bytesescape.h"
#include "format.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QVersionNumber>
#include <algorithm>
#include <cmath>

QString findingSeverityName(FindingSeverity severity)
{
    switch (severity) {
    case FindingSeverity::Critical: return QStringLiteral("critical");
    case FindingSeverity::Warning: return QStringLiteral("warning");
    case FindingSeverity::Info: break;
    }
    return QStringLiteral("info");
}

std::optional<FindingSeverity> findingSeverityFromName(const QString &name)
{
    for (FindingSeverity s : {FindingSeverity::Info, FindingSeverity::Warning, FindingSeverity::Critical}) {
        if (findingSeverityName(s) == name)
            return s;
    }
    return std::nullopt;
}

// ---- thresholds ----

// Outside any namespace, as Q_INIT_RESOURCE requires: the qrc lives in a static library, whose
// resources are registered only when something names them.
static void initTriageResource()
{
    Q_INIT_RESOURCE(triage);
}

TriageThresholds::TriageThresholds()
{
    static const bool once = [] {
        initTriageResource();
        return true;
    }();
    Q_UNUSED(once);
    QFile f(QStringLiteral(":/triage/thresholds.json"));
    if (f.open(QIODevice::ReadOnly)) {
        const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (it.value().isDouble())
                m_values.insert(it.key(), it.value().toDouble());
        }
    }
}

QString TriageThresholds::load(const QString &fileName)
{
    QFile f(fileName);
    if (!f.open(QIODevice::ReadOnly))
        return QStringLiteral("cannot read %1: %2").arg(fileName, f.errorString());
    const QString error = loadJson(f.readAll());
    return error.isEmpty() ? error : QStringLiteral("%1: %2").arg(fileName, error);
}

QString TriageThresholds::loadJson(const QByteArray &json)
{
    QJsonParseError parse{};
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parse);
    if (parse.error != QJsonParseError::NoError)
        return QStringLiteral("not JSON at byte %1: %2").arg(parse.offset).arg(parse.errorString());
    if (!doc.isObject())
        return QStringLiteral("expected an object of names and numbers");
    const QJsonObject o = doc.object();
    QHash<QString, double> values = m_values;
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (it.key().startsWith(QLatin1Char('$')) || it.key().startsWith(QLatin1Char('_')))
            continue; // "$schema", "_comment"
        if (!m_values.contains(it.key()))
            return QStringLiteral("unknown threshold '%1'").arg(it.key());
        if (!it.value().isDouble())
            return QStringLiteral("threshold '%1' is not a number").arg(it.key());
        values.insert(it.key(), it.value().toDouble());
    }
    m_values = values;
    return {};
}

double TriageThresholds::value(const char *name) const
{
    const auto it = m_values.constFind(QLatin1String(name));
    Q_ASSERT_X(it != m_values.cend(), "TriageThresholds::value", name);
    return it == m_values.cend() ? 0.0 : it.value();
}

QStringList TriageThresholds::names() const
{
    QStringList n = m_values.keys();
    n.sort();
    return n;
}

QString TriageThresholds::userFile()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation) + QStringLiteral("/thresholds.json");
}

// ---- coverage ----

QString KeyspaceCoverage::sentence() const
{
    if (!scanned)
        return QStringLiteral("from server facts (no key scan)");
    if (complete && !sampled)
        return QStringLiteral("from a complete scan of %1 keys").arg(format::count(quint64(examined)));
    const QString of = total >= 0 ? QStringLiteral(" of %1").arg(format::count(quint64(total))) : QString();
    if (sampled)
        return QStringLiteral("from a sample of %1%2 keys").arg(format::count(quint64(examined)), of);
    return QStringLiteral("from a scan still running: %1%2 keys so far").arg(format::count(quint64(examined)), of);
}

QString KeyspaceCoverage::estimate(qint64 hits) const
{
    if (!scanned || (complete && !sampled) || total <= examined || examined <= 0)
        return format::count(quint64(hits));
    // A proportion from a simple random sample, with the finite population correction; the
    // scan's order is the hash table's, which is close enough to random for an estimate.
    const double n = double(examined);
    const double N = double(total);
    const double p = double(hits) / n;
    const double half = 1.96 * N * std::sqrt(p * (1 - p) / n) * std::sqrt((N - n) / std::max(1.0, N - 1));
    return QStringLiteral("an estimated %1 ± %2 of %3")
        .arg(format::count(quint64(std::llround(p * N))), format::count(quint64(std::llround(half))),
             format::count(quint64(total)));
}

// ---- the rules ----

const QList<TriageRule> &triageRules()
{
    static const QList<TriageRule> rules = {
        {"memory.no-maxmemory", "memory", "no memory limit"},
        {"memory.near-limit", "memory", "used memory near maxmemory"},
        {"memory.evictions", "memory", "keys evicted"},
        {"memory.policy-mismatch", "memory", "an eviction policy that does not fit the data"},
        {"memory.fragmentation", "memory", "high fragmentation"},
        {"memory.namespace-dominates", "memory", "one namespace holding most of the memory"},
        {"persistence.off", "persistence", "persistence off while durable data is present"},
        {"persistence.save-failing", "persistence", "RDB saves failing or long overdue"},
        {"persistence.aof-failing", "persistence", "AOF writes or rewrites failing"},
        {"cache.no-ttl", "cache", "cache namespaces with keys without TTL"},
        {"cache.no-jitter", "cache", "cache keys expiring together"},
        {"cache.negative-no-ttl", "cache", "negative markers without TTL"},
        {"cache.tag-dangling", "cache", "tag sets with dangling or outliving members"},
        {"cache.recompute-locks", "cache", "recompute locks piling up or without TTL"},
        {"cache.logical-expiry", "cache", "logical expiry long past (the refresher stopped)"},
        {"ratelimit.no-ttl", "ratelimit", "rate-limit keys without TTL"},
        {"session.no-ttl", "session", "sessions without TTL"},
        {"dedup.no-ttl", "dedup", "dedup sets or keys without TTL"},
        {"errors.rising", "errors", "error replies per second"},
        {"errors.recorded", "errors", "error replies since the server started"},
        {"geo.swapped", "geo", "geo points in the sea (longitude and latitude swapped)"},
        {"lock.no-ttl", "lock", "locks without TTL"},
        {"lock.long-ttl", "lock", "locks held far longer than their family's TTL"},
        {"lock.not-token", "lock", "lock values that are not tokens"},
        {"lock.redlock-split", "lock", "Redlock locks held by different tokens on different nodes"},
        {"lock.redlock-minority", "lock", "Redlock locks held on fewer than a majority of the set"},
        {"lock.redlock-node-down", "lock", "nodes of the Redlock set that do not answer"},
        {"stream.untrimmed", "stream", "streams growing without trimming"},
        {"stream.pending-idle", "stream", "pending entries idle past a threshold"},
        {"stream.poison", "stream", "entries delivered many times (poison)"},
        {"stream.idle-consumer", "stream", "idle consumers holding pending entries"},
        {"stream.lag", "stream", "consumer groups lagging behind"},
        {"queue.long", "queue", "list queues long or growing"},
        {"queue.stale-processing", "queue", "processing lists with stale items"},
        {"queue.delayed-overdue", "queue", "delayed jobs overdue"},
        {"jobs.stalled", "jobs", "stalled or long-running active jobs"},
        {"jobs.failed", "jobs", "failed jobs piling up"},
        {"jobs.dead-worker", "jobs", "workers that stopped beating while holding work"},
        {"size.big-string", "size", "big strings"},
        {"size.big-collection", "size", "big collections"},
        {"size.tiny-strings", "size", "many tiny strings that would be cheaper in hashes"},
        {"commands.dangerous", "commands", "KEYS, FLUSHALL or FLUSHDB in use"},
        {"commands.whole-reads", "commands", "whole reads of collections in the slow log"},
        {"commands.long-scripts", "commands", "long scripts in the slow log"},
        {"commands.hot-keys", "commands", "hot keys (OBJECT FREQ under an LFU policy)"},
        {"security.default-nopass", "security", "the default user has no password"},
        {"security.protected-mode", "security", "protected mode off on a reachable address"},
        {"keys.sensitive-names", "keys", "e-mail addresses or tokens in key names"},
        {"server.databases", "server", "several logical databases in use"},
        {"server.scripts", "server", "many cached Lua scripts"},
        {"server.old-version", "server", "an old server version"},
        {"clients.too-many", "clients", "many connected clients or little maxclients headroom"},
    };
    return rules;
}

namespace findings {

bool isKnownRuleOrArea(const QString &name)
{
    for (const TriageRule &r : triageRules()) {
        if (name == QLatin1String(r.id) || name == QLatin1String(r.area))
            return true;
    }
    return false;
}

QJsonObject toJson(const Finding &f, int maxEvidence)
{
    QJsonArray evidence;
    for (qsizetype i = 0; i < f.evidence.size() && i < maxEvidence; ++i) {
        const FindingItem &e = f.evidence.at(i);
        QJsonObject o{{QStringLiteral("subject"), e.subject}, {QStringLiteral("detail"), e.detail}};
        if (!e.key.isEmpty())
            o.insert(QStringLiteral("key"), bytesescape::escape(e.key));
        evidence.append(o);
    }
    QJsonObject figures;
    for (const auto &[name, value] : f.figures)
        figures.insert(name, value);
    return {
        {QStringLiteral("id"), f.id},
        {QStringLiteral("severity"), findingSeverityName(f.severity)},
        {QStringLiteral("title"), f.title},
        {QStringLiteral("evidence"), evidence},
        {QStringLiteral("evidence_total"), qint64(f.evidence.size())},
        {QStringLiteral("affected"), f.affected},
        {QStringLiteral("figures"), figures},
        {QStringLiteral("coverage"), f.coverage},
        {QStringLiteral("hint"), f.hint},
        {QStringLiteral("panel"), f.panel},
    };
}

QStringList ttlBucketLabels()
{
    return {QStringLiteral("none"), QStringLiteral("1m"), QStringLiteral("1h"),
            QStringLiteral("1d"),   QStringLiteral("7d"), QStringLiteral("longer")};
}

int ttlBucket(qint64 pttlMs)
{
    if (pttlMs == -1)
        return 0;
    if (pttlMs < 0)
        return -1;
    const qint64 bounds[] = {60'000, 3'600'000, 86'400'000, 7 * 86'400'000LL};
    for (int i = 0; i < 4; ++i) {
        if (pttlMs <= bounds[i])
            return i + 1;
    }
    return 5;
}

QJsonObject summaryJson(const TriageFacts &f)
{
    QJsonObject types;
    for (auto it = f.typeCounts.cbegin(); it != f.typeCounts.cend(); ++it)
        types.insert(keyTypeName(it.key()), it.value());
    QJsonObject kinds;
    for (int k = 0; k < kPatternKindCount; ++k) {
        if (f.kindCounts.at(size_t(k)) > 0)
            kinds.insert(QString::fromLatin1(patternKindId(PatternKind(k))), f.kindCounts.at(size_t(k)));
    }
    QJsonObject libraries;
    if (f.jobQueues) {
        for (const JobQueueInfo &q : *f.jobQueues)
            libraries.insert(q.spec.library, libraries.value(q.spec.library).toInt() + 1);
    }
    QList<std::pair<QByteArray, qint64>> spaces;
    for (auto it = f.namespaceCounts.cbegin(); it != f.namespaceCounts.cend(); ++it)
        spaces.append({it.key(), it.value()});
    std::sort(spaces.begin(), spaces.end(), [](const auto &a, const auto &b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    QJsonArray namespaces;
    for (qsizetype i = 0; i < spaces.size() && i < 20; ++i)
        namespaces.append(QJsonObject{{QStringLiteral("namespace"), bytesescape::escape(spaces.at(i).first)},
                                      {QStringLiteral("keys"), spaces.at(i).second}});
    QJsonObject ttl;
    const QStringList labels = ttlBucketLabels();
    for (int i = 0; i < labels.size(); ++i)
        ttl.insert(labels.at(i), f.ttlHistogram.at(size_t(i)));
    QJsonObject server;
    const ServerInfo &info = f.info;
    if (!info.isEmpty()) {
        server = {{QStringLiteral("version"), info.text("redis_version")},
                  {QStringLiteral("mode"), info.text("redis_mode")},
                  {QStringLiteral("role"), info.text("role")},
                  {QStringLiteral("uptime_s"), info.integer("uptime_in_seconds")},
                  {QStringLiteral("used_memory"), info.integer("used_memory")},
                  {QStringLiteral("maxmemory"), info.integer("maxmemory")},
                  {QStringLiteral("maxmemory_policy"), info.text("maxmemory_policy")},
                  {QStringLiteral("connected_clients"), info.integer("connected_clients")},
                  {QStringLiteral("aof_enabled"), info.integer("aof_enabled") == 1}};
    }
    if (f.config.contains("save"))
        server.insert(QStringLiteral("save"), QString::fromUtf8(f.config.value("save")));
    QJsonObject coverage{{QStringLiteral("keys_examined"), f.coverage.examined},
                         {QStringLiteral("keys_total"), f.coverage.total},
                         {QStringLiteral("complete"), f.coverage.complete && !f.coverage.sampled},
                         {QStringLiteral("sampled"), f.coverage.sampled},
                         {QStringLiteral("sentence"), f.coverage.sentence()}};
    return {{QStringLiteral("keys_by_type"), types},
            {QStringLiteral("keys_by_kind"), kinds},
            {QStringLiteral("job_queue_libraries"), libraries},
            {QStringLiteral("namespaces"), namespaces},
            {QStringLiteral("ttl_histogram"), ttl},
            {QStringLiteral("server"), server},
            {QStringLiteral("coverage"), coverage}};
}

} // namespace findings

namespace {

using Sev = FindingSeverity;

// A finding's evidence, how much it concerns, and its rank among findings of its severity
// (by default that count).
void withEvidence(Finding &f, const QList<FindingItem> &items, qint64 affected, double impact = -1)
{
    f.evidence = items;
    f.affected = affected;
    f.impact = impact < 0 ? double(affected) : impact;
}

// A title with its count: the singular form for one.
QString counted(qint64 n, const char *one, const char *many)
{
    return QString::fromLatin1(n == 1 ? one : many).arg(format::count(quint64(n)));
}

QString keyText(const QByteArray &key)
{
    return bytesescape::escapeElided(key, 160);
}

FindingItem keyItem(const QByteArray &key, const QString &detail)
{
    return {keyText(key), key, detail};
}

QString pct(double share)
{
    return QStringLiteral("%1 %").arg(share * 100, 0, 'f', share < 0.1 ? 1 : 0);
}

bool isLoopbackBind(const QByteArray &bind)
{
    const QList<QByteArray> addresses = bind.simplified().split(' ');
    if (addresses.isEmpty() || bind.trimmed().isEmpty())
        return false; // no bind: every interface
    for (QByteArray a : addresses) {
        if (a.startsWith('-'))
            a = a.mid(1); // "-::1": optional address
        if (!(a.startsWith("127.") || a == "::1" || a == "localhost"))
            return false;
    }
    return true;
}

// Everything one evaluation shares: the facts, the thresholds, and the findings so far.
class Evaluation
{
public:
    Evaluation(const TriageFacts &facts, const TriageThresholds &t, const QStringList &only, const QStringList &exclude)
        : f(facts), t(t), m_only(only), m_exclude(exclude)
    { }

    const TriageFacts &f;
    const TriageThresholds &t;
    TriageResult result;

    // Whether the rule runs; otherwise it is neither checked nor listed as not checked.
    bool wanted(const char *id) const
    {
        const QString rule = QLatin1String(id);
        const QString area = rule.section(QLatin1Char('.'), 0, 0);
        if (!m_only.isEmpty() && !m_only.contains(rule) && !m_only.contains(area))
            return false;
        return !m_exclude.contains(rule) && !m_exclude.contains(area);
    }
    // A rule that could run on these facts, or the reason it could not.
    bool check(const char *id, bool possible, const QString &why)
    {
        if (!wanted(id))
            return false;
        if (!possible) {
            result.notChecked.append({QLatin1String(id), why});
            return false;
        }
        ++result.rulesChecked;
        return true;
    }
    Finding &add(const char *id, Sev severity, const QString &title, const QString &hint, const QString &coverage,
                 const QString &panel = {})
    {
        Finding fd;
        fd.id = QLatin1String(id);
        fd.severity = severity;
        fd.title = title;
        fd.hint = hint;
        fd.coverage = coverage;
        fd.panel = panel;
        result.findings.append(fd);
        return result.findings.last();
    }

    QString server() const { return QStringLiteral("from INFO"); }
    QString keys() const { return f.coverage.sentence(); }
    bool hasInfo() const { return !f.info.isEmpty(); }
    QString noInfo() const
    {
        return f.infoError.isEmpty() ? QStringLiteral("INFO was not read")
                                     : QStringLiteral("INFO refused: ") + f.infoError;
    }
    bool hasConfig(const QByteArray &name) const { return f.config.contains(name); }
    QString noConfig() const
    {
        return f.configError.isEmpty() ? QStringLiteral("CONFIG GET was not read")
                                       : QStringLiteral("CONFIG GET refused: ") + f.configError;
    }
    qint64 kind(PatternKind k) const { return f.kindCounts.at(size_t(k)); }
    qint64 durableKeys() const
    {
        return kind(PatternKind::Stream) + kind(PatternKind::ListQueue) + kind(PatternKind::ProcessingList)
            + kind(PatternKind::DelayedJobs) + kind(PatternKind::JobQueue);
    }
    QString durableSummary() const
    {
        QStringList parts;
        for (PatternKind k : {PatternKind::Stream, PatternKind::ListQueue, PatternKind::ProcessingList,
                              PatternKind::DelayedJobs, PatternKind::JobQueue, PatternKind::Lock}) {
            if (kind(k) > 0)
                parts << QStringLiteral("%1 %2").arg(format::count(quint64(kind(k))), patternKindName(k));
        }
        return parts.join(QStringLiteral(", "));
    }
    QString readerMissing(const char *what) const
    {
        return f.coverage.scanned ? QStringLiteral("no %1 found").arg(QLatin1String(what))
                                  : QStringLiteral("the keyspace was not scanned");
    }

private:
    QStringList m_only, m_exclude;
};

void memoryRules(Evaluation &e)
{
    const ServerInfo &info = e.f.info;
    const qint64 maxmemory = info.integer("maxmemory", -1);
    const qint64 used = info.integer("used_memory", -1);
    if (e.check("memory.no-maxmemory", e.hasInfo() && maxmemory >= 0, e.noInfo()) && maxmemory == 0) {
        Finding &fd = e.add("memory.no-maxmemory", Sev::Warning, QStringLiteral("No memory limit (maxmemory 0)"),
                            QStringLiteral("Set maxmemory below the machine's memory and a maxmemory-policy that "
                                           "fits the data, so a growing cache is evicted instead of the process "
                                           "being killed or swapping."),
                            e.server(), QStringLiteral("overview"));
        fd.figures = {{QStringLiteral("used memory"), format::bytes(used)},
                      {QStringLiteral("system memory"), format::bytes(info.integer("total_system_memory", 0))}};
        fd.evidence.append({QStringLiteral("maxmemory"), {}, QStringLiteral("0 (no limit)")});
        fd.affected = 1;
        fd.impact = double(used);
    }
    if (e.check("memory.near-limit", e.hasInfo() && maxmemory >= 0 && used >= 0, e.noInfo()) && maxmemory > 0) {
        const double share = double(used) / double(maxmemory);
        if (share >= e.t.value("memory.near_limit_warning")) {
            const bool critical = share >= e.t.value("memory.near_limit_critical");
            Finding &fd = e.add("memory.near-limit", critical ? Sev::Critical : Sev::Warning,
                                QStringLiteral("Memory at %1 of maxmemory").arg(pct(share)),
                                QStringLiteral("Raise maxmemory, shorten TTLs or remove what is no longer read; with "
                                               "noeviction, writes fail with OOM once the limit is reached."),
                                e.server(), QStringLiteral("memory"));
            fd.figures = {{QStringLiteral("used memory"), format::bytes(used)},
                          {QStringLiteral("maxmemory"), format::bytes(maxmemory)},
                          {QStringLiteral("policy"), info.text("maxmemory_policy")}};
            fd.evidence.append({QStringLiteral("used_memory"),
                                {},
                                QStringLiteral("%1 of %2").arg(format::bytes(used), format::bytes(maxmemory))});
            fd.affected = 1;
            fd.impact = share;
        }
    }
    const qint64 evicted = info.integer("evicted_keys", -1);
    if (e.check("memory.evictions", e.hasInfo() && evicted >= 0, e.noInfo()) && evicted > 0) {
        const qint64 before = e.f.earlierInfo.integer("evicted_keys", -1);
        const bool rising = before >= 0 && evicted > before;
        Finding &fd = e.add(
            "memory.evictions", rising ? Sev::Warning : Sev::Info,
            rising ? QStringLiteral("Keys are being evicted now (%1 since the last read)")
                         .arg(format::count(quint64(evicted - before)))
                   : QStringLiteral("%1 keys evicted since the server started").arg(format::count(quint64(evicted))),
            QStringLiteral("Evictions mean the data does not fit maxmemory: fine for a pure cache, "
                           "data loss for anything else. Raise the limit or move durable data to "
                           "a server without eviction."),
            e.server(), QStringLiteral("overview"));
        fd.figures = {{QStringLiteral("evicted_keys"), format::count(quint64(evicted))},
                      {QStringLiteral("policy"), info.text("maxmemory_policy")}};
        fd.evidence.append({QStringLiteral("evicted_keys"), {}, format::count(quint64(evicted))});
        fd.affected = evicted;
        fd.impact = double(evicted);
    }
    const QByteArray policy = e.f.config.value("maxmemory-policy", info.value("maxmemory_policy"));
    if (e.check("memory.policy-mismatch", !policy.isEmpty() && e.f.coverage.scanned,
                policy.isEmpty() ? e.noInfo() : QStringLiteral("the keyspace was not scanned"))) {
        const qint64 durable = e.durableKeys() + e.kind(PatternKind::Lock);
        if (policy.startsWith("allkeys-") && durable > 0) {
            Finding &fd = e.add("memory.policy-mismatch", Sev::Warning,
                                QStringLiteral("%1 may evict streams, queues and locks").arg(QString::fromUtf8(policy)),
                                QStringLiteral("An allkeys policy evicts any key under memory pressure, including "
                                               "queued jobs and held locks. Use a volatile-* policy with TTLs on the "
                                               "cache, or keep durable data on a server with noeviction."),
                                e.keys(), QStringLiteral("patterns"));
            fd.evidence.append({QStringLiteral("maxmemory-policy"), {}, QString::fromUtf8(policy)});
            fd.evidence.append({QStringLiteral("durable keys"), {}, e.durableSummary()});
            fd.affected = durable;
            fd.impact = double(durable);
        } else if (policy == "noeviction" && info.integer("maxmemory", 0) > 0) {
            const qint64 cacheLike = e.kind(PatternKind::CacheEntry) + e.kind(PatternKind::NegativeCache)
                + e.kind(PatternKind::CacheTagSet);
            qint64 all = 0;
            for (qint64 n : e.f.kindCounts)
                all += n;
            if (cacheLike > 0 && cacheLike == all) {
                Finding &fd = e.add("memory.policy-mismatch", Sev::Info,
                                    QStringLiteral("noeviction on a server that holds only cache data"),
                                    QStringLiteral("With noeviction, writes fail with OOM at the limit. A cache is "
                                                   "better served by allkeys-lru or allkeys-lfu."),
                                    e.keys(), QStringLiteral("caches"));
                fd.evidence.append({QStringLiteral("maxmemory-policy"), {}, QStringLiteral("noeviction")});
                fd.affected = cacheLike;
            }
        }
    }
    const double ratio = info.real("mem_fragmentation_ratio", -1);
    const qint64 rss = info.integer("used_memory_rss", -1);
    if (e.check("memory.fragmentation", e.hasInfo() && ratio >= 0, e.noInfo())
        && ratio >= e.t.value("memory.fragmentation_ratio") && rss - used >= e.t.value("memory.fragmentation_bytes")) {
        Finding &fd = e.add("memory.fragmentation", Sev::Warning,
                            QStringLiteral("Memory fragmentation %1").arg(ratio, 0, 'f', 2),
                            QStringLiteral("The process holds much more memory than its data. Enable "
                                           "activedefrag, or restart a replica and fail over to it."),
                            e.server(), QStringLiteral("memory"));
        fd.figures = {{QStringLiteral("used_memory_rss"), format::bytes(rss)},
                      {QStringLiteral("used_memory"), format::bytes(used)}};
        fd.evidence.append({QStringLiteral("mem_fragmentation_ratio"), {}, QString::number(ratio, 'f', 2)});
        fd.affected = 1;
        fd.impact = ratio;
    }
}

void namespaceMemoryRule(Evaluation &e)
{
    if (!e.check("memory.namespace-dominates", e.f.memoryProbed > 0,
                 e.f.coverage.scanned ? QStringLiteral("MEMORY USAGE was not read")
                                      : QStringLiteral("the keyspace was not scanned")))
        return;
    qint64 total = 0;
    for (qint64 bytes : e.f.namespaceMemory)
        total += bytes;
    if (total <= 0 || e.f.namespaceMemory.size() < 2)
        return;
    QList<std::pair<QByteArray, qint64>> spaces;
    for (auto it = e.f.namespaceMemory.cbegin(); it != e.f.namespaceMemory.cend(); ++it)
        spaces.append({it.key(), it.value()});
    std::sort(spaces.begin(), spaces.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
    const double share = double(spaces.constFirst().second) / double(total);
    const qint64 used = e.f.info.integer("used_memory", -1);
    // Dominance matters where the bytes do: a small server is always mostly its main namespace.
    if (share < e.t.value("memory.namespace_share")
        || share * double(qMax<qint64>(used, total)) < e.t.value("memory.namespace_bytes"))
        return;
    const QString name = spaces.constFirst().first.isEmpty()
        ? QStringLiteral("(names without ':')")
        : bytesescape::escape(spaces.constFirst().first) + QLatin1Char(':');
    Finding &fd = e.add("memory.namespace-dominates", Sev::Info,
                        QStringLiteral("%1 holds %2 of the memory").arg(name, pct(share)),
                        QStringLiteral("One family of keys dominates: check that its size is intended (TTLs, trimming, "
                                       "compression), and consider a server of its own if its eviction needs differ."),
                        QStringLiteral("from MEMORY USAGE of %1 keys").arg(format::count(quint64(e.f.memoryProbed))),
                        QStringLiteral("memory"));
    for (qsizetype i = 0; i < spaces.size() && i < 10; ++i) {
        const double s = double(spaces.at(i).second) / double(total);
        fd.evidence.append(
            {spaces.at(i).first.isEmpty() ? QStringLiteral("(names without ':')")
                                          : bytesescape::escape(spaces.at(i).first) + QLatin1Char(':'),
             {},
             used > 0
                 ? QStringLiteral("%1, about %2 of used memory").arg(pct(s), format::bytes(qint64(s * double(used))))
                 : pct(s)});
    }
    fd.affected = 1;
    fd.impact = share;
}

void hotKeysRule(Evaluation &e)
{
    if (!e.check("commands.hot-keys", e.f.freqRead,
                 e.f.freqWhy.isEmpty() ? QStringLiteral("OBJECT FREQ was not read") : e.f.freqWhy))
        return;
    QList<FindingItem> items;
    for (const auto &[key, freq] : e.f.hotKeys) {
        if (freq >= e.t.value("commands.hot_key_freq"))
            items.append(keyItem(key, QStringLiteral("LFU counter %1").arg(freq)));
    }
    if (items.isEmpty())
        return;
    withEvidence(e.add("commands.hot-keys", Sev::Info, counted(items.size(), "%1 hot key", "%1 hot keys"),
                       QStringLiteral("A few keys take most of the reads: cache them in the application for a "
                                      "moment, or spread them over copies (key:{1..N}) on a cluster."),
                       QStringLiteral("from OBJECT FREQ of %1 keys").arg(format::count(quint64(e.f.memoryProbed))),
                       QStringLiteral("keys")),
                 items, items.size());
}

void persistenceRules(Evaluation &e)
{
    const ServerInfo &info = e.f.info;
    const bool configKnown = e.hasConfig("save") && e.hasConfig("appendonly");
    if (e.check("persistence.off", configKnown && e.f.coverage.scanned,
                configKnown ? QStringLiteral("the keyspace was not scanned") : e.noConfig())) {
        const bool off = e.f.config.value("save").trimmed().isEmpty() && e.f.config.value("appendonly") == "no";
        const qint64 durable = e.durableKeys();
        if (off && durable > 0) {
            Finding &fd = e.add("persistence.off", Sev::Warning,
                                QStringLiteral("Persistence is off while streams and queues are stored"),
                                QStringLiteral("A restart loses every queued job and stream entry. Turn on AOF "
                                               "(appendonly yes, appendfsync everysec) or RDB snapshots."),
                                e.keys(), QStringLiteral("overview"));
            fd.evidence.append({QStringLiteral("save"), {}, QStringLiteral("\"\" (no snapshots)")});
            fd.evidence.append({QStringLiteral("appendonly"), {}, QStringLiteral("no")});
            fd.evidence.append({QStringLiteral("durable keys"), {}, e.durableSummary()});
            fd.affected = durable;
            fd.impact = double(durable);
        }
    }
    if (e.check("persistence.save-failing", e.hasInfo() && info.has("rdb_last_bgsave_status"), e.noInfo())) {
        const bool failed = info.value("rdb_last_bgsave_status") != "ok";
        const qint64 lastSave = info.integer("rdb_last_save_time", 0);
        const qint64 changes = info.integer("rdb_changes_since_last_save", 0);
        const qint64 age = e.f.nowMs / 1000 - lastSave;
        const bool saving = !e.f.config.value("save").trimmed().isEmpty();
        const bool overdue = saving && changes > 0 && lastSave > 0 && age > e.t.value("persistence.save_age_s");
        if (failed || overdue) {
            Finding &fd = e.add("persistence.save-failing", failed ? Sev::Critical : Sev::Warning,
                                failed ? QStringLiteral("The last RDB save failed")
                                       : QStringLiteral("No RDB save for %1 with %2 changes")
                                             .arg(format::duration(age * 1000), format::count(quint64(changes))),
                                QStringLiteral("Check the server's log and the disk (space, permissions); with "
                                               "stop-writes-on-bgsave-error yes, writes are refused until a save "
                                               "succeeds."),
                                e.server(), QStringLiteral("overview"));
            fd.evidence.append({QStringLiteral("rdb_last_bgsave_status"), {}, info.text("rdb_last_bgsave_status")});
            fd.evidence.append({QStringLiteral("rdb_changes_since_last_save"), {}, format::count(quint64(changes))});
            fd.affected = 1;
        }
    }
    if (e.check("persistence.aof-failing", e.hasInfo() && info.has("aof_enabled"), e.noInfo())) {
        QStringList bad;
        for (const char *name : {"aof_last_bgrewrite_status", "aof_last_write_status"}) {
            if (info.has(name) && info.value(name) != "ok")
                bad << QLatin1String(name);
        }
        if (!bad.isEmpty()) {
            Finding &fd = e.add("persistence.aof-failing", Sev::Critical, QStringLiteral("AOF writes are failing"),
                                QStringLiteral("Check the disk the AOF lives on (space, permissions, I/O errors) "
                                               "and the server's log."),
                                e.server(), QStringLiteral("overview"));
            for (const QString &name : std::as_const(bad))
                fd.evidence.append({name, {}, info.text(name.toLatin1())});
            fd.affected = bad.size();
        }
    }
}

void cacheRules(Evaluation &e)
{
    const bool caches = e.f.caches.has_value();
    const QString none = e.readerMissing("cache keys");
    const QString panel = QStringLiteral("caches");
    if (e.check("cache.no-ttl", caches, none)) {
        QList<FindingItem> items;
        qint64 keys = 0;
        for (const CacheNamespaceRow &n : e.f.caches->namespaces) {
            if (n.noTtl == 0)
                continue;
            keys += qint64(n.noTtl);
            items.append(
                {n.family,
                 {},
                 QStringLiteral("%1 of %2 keys without TTL").arg(format::count(n.noTtl), format::count(n.keys))});
        }
        if (!items.isEmpty()) {
            withEvidence(e.add("cache.no-ttl", Sev::Warning,
                               QStringLiteral("%1 cache keys without TTL in %2 namespaces")
                                   .arg(e.f.coverage.estimate(keys))
                                   .arg(items.size()),
                               QStringLiteral("A cache entry without TTL is never refreshed and never leaves: set "
                                              "one on every write (SET key value EX seconds)."),
                               e.keys(), panel),
                         items, keys, double(keys));
        }
    }
    if (e.check("cache.no-jitter", caches, none)) {
        QList<FindingItem> items;
        qint64 keys = 0;
        for (const CacheNamespaceRow &n : e.f.caches->namespaces) {
            if (!n.noJitter())
                continue;
            quint64 inCliffs = 0;
            quint32 peak = 0;
            for (const TtlCliff &c : n.cliffs) {
                inCliffs += c.keys;
                peak = qMax(peak, c.peak);
            }
            keys += qint64(inCliffs);
            items.append({n.family,
                          {},
                          QStringLiteral("%1 keys expire within %2 s bursts (peak %3 in one second)")
                              .arg(format::count(inCliffs))
                              .arg(n.cliffs.size())
                              .arg(peak)});
        }
        if (!items.isEmpty()) {
            withEvidence(e.add("cache.no-jitter", Sev::Warning,
                               counted(items.size(), "Cache keys of %1 namespace expire together",
                                       "Cache keys of %1 namespaces expire together"),
                               QStringLiteral("Keys written with the same TTL expire in the same second and send "
                                              "every reader to the database at once. Add jitter: TTL × (1 ± 10 %)."),
                               e.keys(), panel),
                         items, keys, double(keys));
        }
    }
    if (e.check("cache.negative-no-ttl", caches, none)) {
        QList<FindingItem> items;
        qint64 keys = 0;
        for (const CacheNamespaceRow &n : e.f.caches->namespaces) {
            if (n.negativesNoTtl == 0)
                continue;
            keys += qint64(n.negativesNoTtl);
            items.append({n.family,
                          {},
                          QStringLiteral("%1 of %2 negative markers without TTL")
                              .arg(format::count(n.negativesNoTtl), format::count(n.negatives))});
        }
        if (!items.isEmpty()) {
            withEvidence(e.add("cache.negative-no-ttl", Sev::Warning,
                               counted(keys, "%1 negative marker without TTL", "%1 negative markers without TTL"),
                               QStringLiteral("A \"not found\" marker without TTL hides the row for ever once it "
                                              "is created. Give markers a short TTL (30-60 s)."),
                               e.keys(), panel),
                         items, keys, double(keys));
        }
    }
    if (e.check("cache.tag-dangling", caches, none)) {
        QList<FindingItem> items;
        qint64 members = 0;
        for (const TagRow &tag : e.f.caches->tags) {
            if (tag.dangling.isEmpty() && tag.outlivingMembers == 0)
                continue;
            QStringList what;
            if (!tag.dangling.isEmpty())
                what << QStringLiteral("%1 dangling members").arg(format::count(quint64(tag.dangling.size())));
            if (tag.outlivingMembers > 0)
                what << QStringLiteral("%1 members outlive the tag").arg(format::count(quint64(tag.outlivingMembers)));
            members += tag.dangling.size() + tag.outlivingMembers;
            items.append(keyItem(tag.key, what.join(QStringLiteral(" · "))));
        }
        if (!items.isEmpty()) {
            withEvidence(e.add("cache.tag-dangling", Sev::Info,
                               counted(items.size(), "%1 tag set out of step with its members",
                                       "%1 tag sets out of step with their members"),
                               QStringLiteral("Remove a member from its tag set when the cache key is deleted, and "
                                              "give the tag a TTL at least as long as its longest member's."),
                               e.keys(), panel),
                         items, members, double(members));
        }
    }
    if (e.check("cache.recompute-locks", e.f.locks.has_value(), e.readerMissing("locks"))) {
        QList<FindingItem> items;
        int noTtl = 0;
        for (const LockInfo &lock : *e.f.locks) {
            if (!lock.key.endsWith(":lock") || lock.released)
                continue;
            const bool none = lock.flags & LockInfo::NoTtl;
            noTtl += none ? 1 : 0;
            QString detail = none ? QStringLiteral("no TTL") : lock.flagsText();
            if (detail.isEmpty())
                detail
                    = lock.pttlMs >= 0 ? QStringLiteral("expires in %1").arg(format::duration(lock.pttlMs)) : QString();
            items.append(keyItem(lock.key, detail));
        }
        const bool piling = items.size() >= e.t.value("cache.recompute_locks");
        if (noTtl > 0 || piling) {
            withEvidence(e.add("cache.recompute-locks", noTtl > 0 ? Sev::Warning : Sev::Info,
                               noTtl > 0
                                   ? counted(noTtl, "%1 recompute lock without TTL", "%1 recompute locks without TTL")
                                   : QStringLiteral("%1 recompute locks held at once").arg(items.size()),
                               QStringLiteral("A recompute lock (<key>:lock, SET NX PX) must expire on its own, or "
                                              "a crashed recomputation keeps every reader waiting on a stale "
                                              "value. Many at once means many hot keys expired together."),
                               e.keys(), QStringLiteral("locks")),
                         items, items.size(), noTtl * 1000.0 + items.size());
        }
    }
    if (e.check("cache.logical-expiry", e.f.logicalExpiryRead, none)) {
        QList<FindingItem> items;
        qint64 stale = 0;
        for (const CacheKeyState &k : e.f.logicalExpiry) {
            const qint64 past = e.f.nowMs - k.expireAtMs;
            if (past < e.t.value("cache.logical_expiry_past_ms"))
                continue;
            ++stale;
            items.append(keyItem(k.key, QStringLiteral("logical expiry passed %1 ago").arg(format::duration(past))));
        }
        if (!items.isEmpty()) {
            Finding &fd = e.add(
                "cache.logical-expiry", Sev::Warning,
                counted(stale, "%1 cache value past its logical expiry", "%1 cache values past their logical expiry"),
                QStringLiteral("These values carry a refresh time inside a longer TTL (early "
                               "refresh); it passed long ago, so the refresher has stopped and "
                               "readers get stale data until the real TTL ends."),
                e.keys(), panel);
            fd.evidence = items;
            fd.affected = stale;
            fd.impact = double(stale);
        }
    }
}

void keyLifetimeRules(Evaluation &e)
{
    if (e.check("ratelimit.no-ttl", e.f.rateLimits.has_value(), e.readerMissing("rate limits"))) {
        QList<FindingItem> items;
        for (const CallerState &c : e.f.rateLimits->callers) {
            if (c.flags & CallerState::NoTtl)
                items.append(
                    keyItem(c.key, QStringLiteral("%1 · caller %2").arg(c.limiter, bytesescape::escape(c.caller))));
        }
        if (!items.isEmpty()) {
            Finding &fd
                = e.add("ratelimit.no-ttl", Sev::Warning,
                        counted(items.size(), "%1 rate-limit key without TTL", "%1 rate-limit keys without TTL"),
                        QStringLiteral("A window counter without TTL locks its caller out for ever once it "
                                       "passes the limit; buckets and logs never go away. Set the TTL in "
                                       "the same script or MULTI as the INCR or ZADD."),
                        e.keys(), QStringLiteral("ratelimits"));
            fd.evidence = items;
            fd.affected = items.size();
            fd.impact = double(items.size());
        }
    }
    if (e.check("session.no-ttl", e.f.sessions.has_value(), e.readerMissing("sessions"))) {
        QList<FindingItem> items;
        for (const SessionRow &s : e.f.sessions->sessions) {
            if (s.lifetime == sessions::Lifetime::NoTtl)
                items.append(keyItem(s.key, s.family));
        }
        if (!items.isEmpty()) {
            withEvidence(e.add("session.no-ttl", Sev::Warning,
                               counted(items.size(), "%1 session without TTL", "%1 sessions without TTL"),
                               QStringLiteral("A session without TTL never logs out and never leaves memory. Set "
                                              "the TTL on every write (sliding) or once at login (fixed)."),
                               e.keys(), QStringLiteral("sessions")),
                         items, items.size(), double(items.size()));
        }
    }
    if (e.check("dedup.no-ttl", e.f.caches.has_value(), e.readerMissing("dedup keys"))) {
        QList<FindingItem> items;
        qint64 affected = 0;
        for (const DedupSetRow &d : e.f.caches->dedupSets) {
            if (d.pttlMs != -1)
                continue;
            if (!d.growingWithoutTtl() && d.cardinality < e.t.value("dedup.set_members"))
                continue;
            ++affected;
            items.append(keyItem(d.key,
                                 d.growingWithoutTtl()
                                     ? QStringLiteral("%1 members, growing").arg(format::count(quint64(d.cardinality)))
                                     : QStringLiteral("%1 members").arg(format::count(quint64(d.cardinality)))));
        }
        for (const DedupFamilyRow &d : e.f.caches->dedupFamilies) {
            if (d.noTtl == 0)
                continue;
            affected += qint64(d.noTtl);
            items.append({d.family, {}, QStringLiteral("%1 keys without TTL").arg(format::count(d.noTtl))});
        }
        if (!items.isEmpty()) {
            withEvidence(e.add("dedup.no-ttl", Sev::Warning,
                               counted(items.size(), "%1 dedup set or family without TTL",
                                       "%1 dedup sets or families without TTL"),
                               QStringLiteral("A dedup set only grows unless it expires: key it by day "
                                              "(seen:2026-12-06) with a TTL, or use SET NX EX per event."),
                               e.keys(), QStringLiteral("caches")),
                         items, affected, double(affected));
        }
    }
}

void errorRules(Evaluation &e)
{
    const ServerInfo &info = e.f.info;
    const qint64 errors = info.integer("total_error_replies", -1);
    QList<FindingItem> byPrefix;
    for (const ServerInfo::Field &field : info.section("Errorstats")) {
        const auto parts = ServerInfo::subfields(field.value);
        const QByteArray prefix = field.name.startsWith("errorstat_") ? field.name.mid(10) : field.name;
        for (const auto &[name, value] : parts) {
            if (name == "count")
                byPrefix.append({QString::fromUtf8(prefix), {}, QString::fromLatin1(value)});
        }
    }
    std::sort(byPrefix.begin(), byPrefix.end(),
              [](const FindingItem &a, const FindingItem &b) { return a.detail.toLongLong() > b.detail.toLongLong(); });
    const qint64 before = e.f.earlierInfo.integer("total_error_replies", -1);
    const qint64 spanMs = info.capturedAtMs() - e.f.earlierInfo.capturedAtMs();
    if (e.check("errors.rising", errors >= 0 && before >= 0 && spanMs > 0,
                errors < 0 ? QStringLiteral("the server does not count error replies (before 6.2) or INFO was not read")
                           : QStringLiteral("needs two INFO reads"))) {
        const double rate = double(errors - before) * 1000.0 / double(spanMs);
        if (rate >= e.t.value("errors.per_second")) {
            Finding &fd = e.add("errors.rising", Sev::Warning,
                                QStringLiteral("%1 error replies per second").arg(rate, 0, 'f', rate < 10 ? 1 : 0),
                                QStringLiteral("Clients are getting errors now. The prefixes say why: OOM (memory "
                                               "limit), NOPERM (ACL), WRONGTYPE (a key used as two types), BUSY (a "
                                               "long script)."),
                                QStringLiteral("from two INFO reads %1 apart").arg(format::duration(spanMs)),
                                QStringLiteral("overview"));
            fd.evidence = byPrefix;
            fd.figures = {{QStringLiteral("errors per second"), QString::number(rate, 'f', 1)},
                          {QStringLiteral("total_error_replies"), format::count(quint64(errors))}};
            fd.affected = errors - before;
            fd.impact = rate;
        }
    }
    if (e.check("errors.recorded", errors >= 0,
                QStringLiteral("the server does not count error replies (before 6.2) or INFO was not read"))
        && errors > 0) {
        Finding &fd
            = e.add("errors.recorded", Sev::Info,
                    QStringLiteral("%1 error replies since the server started").arg(format::count(quint64(errors))),
                    QStringLiteral("Look at the prefixes: OOM, NOPERM and BUSY point at the server's "
                                   "settings; WRONGTYPE and ERR at the application's code."),
                    e.server(), QStringLiteral("overview"));
        fd.evidence = byPrefix;
        fd.affected = errors;
        fd.impact = double(errors);
    }
}

void geoRules(Evaluation &e)
{
    if (!e.check("geo.swapped", e.f.geo.has_value(), e.readerMissing("geo sets")))
        return;
    QList<FindingItem> items;
    for (const GeoFacts &g : *e.f.geo) {
        if (g.sampled < 5 || double(g.inSea) / g.sampled < e.t.value("geo.sea_share"))
            continue;
        items.append(keyItem(g.key,
                             QStringLiteral("%1 of %2 sampled points in the sea; %3 of those on land when swapped")
                                 .arg(g.inSea)
                                 .arg(g.sampled)
                                 .arg(g.swappedOnLand)));
    }
    if (!items.isEmpty()) {
        Finding &fd = e.add(
            "geo.swapped", Sev::Warning,
            counted(items.size(), "%1 geo set with most points in the sea", "%1 geo sets with most points in the sea"),
            QStringLiteral("GEOADD takes longitude first, then latitude; points in the sea usually "
                           "mean the two were swapped when the set was written."),
            e.keys(), QStringLiteral("geo"));
        fd.evidence = items;
        fd.affected = items.size();
    }
}

void lockRules(Evaluation &e)
{
    const bool read = e.f.locks.has_value();
    const QString none = e.readerMissing("locks");
    struct LockRule
    {
        const char *id;
        LockInfo::Flag flag;
        Sev severity;
        const char *title;
        const char *one; // the title for one lock
        const char *hint;
    };
    static const LockRule rules[] = {
        {"lock.no-ttl", LockInfo::NoTtl, Sev::Critical, "%1 locks without TTL", "%1 lock without TTL",
         "A lock without TTL is held for ever once its holder dies. Take it with SET key token NX PX ms "
         "and release it with a script that checks the token."},
        {"lock.long-ttl", LockInfo::LongTtl, Sev::Warning, "%1 locks held far longer than their family's TTL",
         "%1 lock held far longer than its family's TTL",
         "A TTL far above its siblings' usually means a holder that extends its lock in a loop after the "
         "work is done, or a wrong unit (seconds given as milliseconds)."},
        {"lock.not-token", LockInfo::NotTokenLike, Sev::Info, "%1 lock values that are not tokens",
         "%1 lock value that is not a token",
         "Without a unique token per holder, a holder whose lock expired can delete the next holder's lock. "
         "Store a random token and compare it on release."},
    };
    for (const LockRule &r : rules) {
        if (!e.check(r.id, read, none))
            continue;
        QList<FindingItem> items;
        for (const LockInfo &lock : *e.f.locks) {
            if (!lock.released && (lock.flags & r.flag))
                items.append(keyItem(lock.key, lock.flagsText()));
        }
        if (items.isEmpty())
            continue;
        withEvidence(e.add(r.id, r.severity, counted(items.size(), r.one, r.title), QString::fromLatin1(r.hint),
                           e.keys(), QStringLiteral("locks")),
                     items, items.size(), double(items.size()));
    }
}

// Only with a Redlock set (--redlock): without one they are not checked, and say so.
void redlockRules(Evaluation &e)
{
    if (!e.f.redlock) {
        const QString why = QStringLiteral("no Redlock set (name its other primaries with --redlock)");
        for (const char *id : {"lock.redlock-split", "lock.redlock-minority", "lock.redlock-node-down"})
            e.check(id, false, why);
        return;
    }
    const QString coverage
        = QStringLiteral("from every node of the Redlock set (%1)").arg(e.f.redlockNodes.join(QStringLiteral(", ")));
    const auto byFlag = [&](const char *id, RedlockLock::Flag flag, Sev severity, const char *one, const char *many,
                            const char *hint) {
        if (!e.check(id, true, {}))
            return;
        QList<FindingItem> items;
        for (const RedlockLock &l : *e.f.redlock) {
            if (l.flags & flag)
                items.append(keyItem(l.key, QStringLiteral("held on %1 · %2").arg(l.heldText(), l.flagsText())));
        }
        if (items.isEmpty())
            return;
        withEvidence(e.add(id, severity, counted(items.size(), one, many), QString::fromLatin1(hint), coverage,
                           QStringLiteral("locks")),
                     items, items.size(), double(items.size()));
    };
    byFlag("lock.redlock-split", RedlockLock::SplitTokens, Sev::Critical,
           "%1 Redlock lock held by different tokens on different nodes",
           "%1 Redlock locks held by different tokens on different nodes",
           "Two holders each set their token on part of the set: both may believe they hold the lock. A "
           "client whose Redlock lists fewer nodes than the others, or clocks and pauses longer than the "
           "validity, cause it. Give every client the same nodes, and fence the work it protects.");
    byFlag("lock.redlock-minority", RedlockLock::NoMajority, Sev::Warning,
           "%1 Redlock lock held on fewer than a majority of nodes",
           "%1 Redlock locks held on fewer than a majority of nodes",
           "Nobody holds these locks: an acquisition that failed and did not release what it took, or a "
           "client that lists only some of the set's nodes. They block others until their TTL runs out.");
    if (e.check("lock.redlock-node-down", true, {})) {
        QList<FindingItem> items;
        for (int i = 0; i < e.f.redlockNodes.size(); ++i) {
            const QString why = e.f.redlockNodeErrors.value(i);
            if (!why.isEmpty())
                items.append({e.f.redlockNodes.at(i), {}, why});
        }
        if (!items.isEmpty())
            withEvidence(e.add("lock.redlock-node-down", Sev::Warning,
                               counted(items.size(), "%1 node of the Redlock set does not answer",
                                       "%1 nodes of the Redlock set do not answer"),
                               QStringLiteral("A Redlock set of N nodes takes locks while N/2 + 1 answer; each "
                                              "node down brings it closer to refusing every lock. Its locks "
                                              "there are not counted."),
                               coverage, QStringLiteral("locks")),
                         items, items.size(), double(items.size()));
    }
}

void streamRules(Evaluation &e)
{
    const bool read = e.f.streams.has_value();
    const QString none = e.readerMissing("streams");
    const QString panel = QStringLiteral("streams");
    const auto groupName = [](const StreamFacts &s, const StreamFacts::Group &g) {
        return QStringLiteral("%1 › %2").arg(keyText(s.row.key), bytesescape::escape(g.info.name));
    };
    if (e.check("stream.untrimmed", read, none)) {
        QList<FindingItem> items;
        for (const StreamFacts &s : *e.f.streams) {
            const std::optional<bool> never = s.row.info.neverDeleted();
            if (!s.row.loaded || s.row.info.length < e.t.value("stream.untrimmed_length"))
                continue;
            if (!(never.value_or(false) || s.row.onlyGrows()))
                continue;
            items.append(keyItem(
                s.row.key, QStringLiteral("%1 entries, never trimmed").arg(format::count(quint64(s.row.info.length)))));
        }
        if (!items.isEmpty()) {
            withEvidence(e.add("stream.untrimmed", Sev::Warning,
                               counted(items.size(), "%1 stream growing without trimming",
                                       "%1 streams growing without trimming"),
                               QStringLiteral("A stream keeps every entry until it is trimmed. Add MAXLEN ~ n or "
                                              "MINID ~ id to XADD, or XTRIM on a schedule."),
                               e.keys(), panel),
                         items, items.size());
        }
    }
    const qint64 idleMs = qint64(e.t.value("stream.pending_idle_ms"));
    const qint64 poison = qint64(e.t.value("stream.poison_deliveries"));
    if (e.check("stream.pending-idle", read, none)) {
        QList<FindingItem> items;
        qint64 entries = 0;
        for (const StreamFacts &s : *e.f.streams) {
            for (const StreamFacts::Group &g : s.groups) {
                qint64 n = 0;
                qint64 oldest = 0;
                for (const PendingEntry &p : g.oldestPending) {
                    if (p.idleMs >= idleMs) {
                        ++n;
                        oldest = qMax(oldest, p.idleMs);
                    }
                }
                if (n == 0)
                    continue;
                entries += n;
                items.append({groupName(s, g), s.row.key,
                              QStringLiteral("%1%2 entries idle, the oldest %3")
                                  .arg(n >= g.oldestPending.size() && g.info.pending > n ? QStringLiteral("at least ")
                                                                                         : QString())
                                  .arg(format::count(quint64(n)))
                                  .arg(format::duration(oldest))});
            }
        }
        if (!items.isEmpty()) {
            withEvidence(e.add("stream.pending-idle", Sev::Warning,
                               counted(entries, "%1 pending entry idle for more than %2",
                                       "%1 pending entries idle for more than %2")
                                   .arg(format::duration(idleMs)),
                               QStringLiteral("Entries delivered and never acknowledged: their consumer died or "
                                              "failed. Claim them (XAUTOCLAIM) from a live consumer."),
                               e.keys(), panel),
                         items, entries, double(entries));
        }
    }
    if (e.check("stream.poison", read, none)) {
        QList<FindingItem> items;
        for (const StreamFacts &s : *e.f.streams) {
            for (const StreamFacts::Group &g : s.groups) {
                for (const PendingEntry &p : g.oldestPending) {
                    if (p.deliveries > poison)
                        items.append({QStringLiteral("%1 › %2").arg(groupName(s, g), QString::fromLatin1(p.id)),
                                      s.row.key,
                                      QStringLiteral("delivered %1 times, consumer %2")
                                          .arg(p.deliveries)
                                          .arg(bytesescape::escape(p.consumer))});
                }
            }
        }
        if (!items.isEmpty()) {
            withEvidence(e.add("stream.poison", Sev::Warning,
                               counted(items.size(), "%1 stream entry delivered more than %2 times",
                                       "%1 stream entries delivered more than %2 times")
                                   .arg(poison),
                               QStringLiteral("An entry that fails every time it is processed: move it to a "
                                              "dead-letter stream and XACK it, so it stops being retried."),
                               e.keys(), panel),
                         items, items.size(), double(items.size()));
        }
    }
    if (e.check("stream.idle-consumer", read, none)) {
        QList<FindingItem> items;
        const qint64 consumerIdle = qint64(e.t.value("stream.consumer_idle_ms"));
        for (const StreamFacts &s : *e.f.streams) {
            for (const StreamFacts::Group &g : s.groups) {
                for (const StreamConsumerInfo &c : g.consumers) {
                    const qint64 idle = c.inactiveMs.value_or(c.idleMs);
                    if (c.pending > 0 && idle >= consumerIdle)
                        items.append({QStringLiteral("%1 › %2").arg(groupName(s, g), bytesescape::escape(c.name)),
                                      s.row.key,
                                      QStringLiteral("%1 pending, idle %2")
                                          .arg(format::count(quint64(c.pending)), format::duration(idle))});
                }
            }
        }
        if (!items.isEmpty()) {
            withEvidence(e.add("stream.idle-consumer", Sev::Warning,
                               counted(items.size(), "%1 idle consumer holds pending entries",
                                       "%1 idle consumers hold pending entries"),
                               QStringLiteral("A consumer that stopped reading keeps its entries pending for "
                                              "ever. Claim them from a live consumer (XAUTOCLAIM), then "
                                              "XGROUP DELCONSUMER the dead one."),
                               e.keys(), panel),
                         items, items.size());
        }
    }
    if (e.check("stream.lag", read, none)) {
        QList<FindingItem> items;
        for (const StreamFacts &s : *e.f.streams) {
            for (const StreamFacts::Group &g : s.groups) {
                if (g.info.lag && *g.info.lag >= e.t.value("stream.group_lag"))
                    items.append(
                        {groupName(s, g), s.row.key,
                         QStringLiteral("%1 entries not yet delivered").arg(format::count(quint64(*g.info.lag)))});
            }
        }
        if (!items.isEmpty()) {
            withEvidence(e.add("stream.lag", Sev::Warning,
                               counted(items.size(), "%1 consumer group lagging", "%1 consumer groups lagging"),
                               QStringLiteral("The group reads more slowly than producers write: add consumers, or "
                                              "find what slows them down."),
                               e.keys(), panel),
                         items, items.size());
        }
    }
}

void queueRules(Evaluation &e)
{
    const QString panel = QStringLiteral("queues");
    const QString none = e.readerMissing("queues");
    if (e.check("queue.long", e.f.queues.has_value(), none)) {
        QList<FindingItem> items;
        for (const QueueInfo &q : *e.f.queues) {
            const bool growing = !std::isnan(q.growthPerMin) && q.growthPerMin >= e.t.value("queue.growth_per_min");
            if (q.length < e.t.value("queue.length") && !growing)
                continue;
            items.append(keyItem(q.key,
                                 growing ? QStringLiteral("%1 items, +%2 per minute")
                                               .arg(format::count(quint64(q.length)))
                                               .arg(q.growthPerMin, 0, 'f', 0)
                                         : QStringLiteral("%1 items").arg(format::count(quint64(q.length)))));
        }
        if (!items.isEmpty()) {
            withEvidence(e.add("queue.long", Sev::Warning,
                               counted(items.size(), "%1 list queue long or growing", "%1 list queues long or growing"),
                               QStringLiteral("Producers outpace consumers: add workers, or look for a worker that "
                                              "stopped."),
                               e.keys(), panel),
                         items, items.size());
        }
    }
    if (e.check("queue.stale-processing", e.f.queues.has_value(), none)) {
        QList<FindingItem> items;
        for (const QueueInfo &q : *e.f.queues) {
            for (const ProcessingListInfo &p : q.processing) {
                if (p.stale)
                    items.append(keyItem(p.key,
                                         QStringLiteral("%1 items, the oldest %2 old")
                                             .arg(format::count(quint64(p.length)), format::duration(p.oldestAgeMs))));
            }
        }
        if (!items.isEmpty()) {
            withEvidence(e.add("queue.stale-processing", Sev::Warning,
                               counted(items.size(), "%1 processing list holds stale items",
                                       "%1 processing lists hold stale items"),
                               QStringLiteral("Items moved to a processing list (LMOVE) and never finished: their "
                                              "worker died. A reaper must move them back to the queue."),
                               e.keys(), panel),
                         items, items.size());
        }
    }
    if (e.check("queue.delayed-overdue", e.f.delayed.has_value(), e.readerMissing("delayed job sets"))) {
        QList<FindingItem> items;
        qint64 overdue = 0;
        for (const DelayedInfo &d : *e.f.delayed) {
            if (d.overdue == 0 || d.oldestOverdueAgeMs < e.t.value("queue.delayed_overdue_ms"))
                continue;
            overdue += d.overdue;
            items.append(keyItem(d.key,
                                 QStringLiteral("%1 overdue, the oldest by %2")
                                     .arg(format::count(quint64(d.overdue)), format::duration(d.oldestOverdueAgeMs))));
        }
        if (!items.isEmpty()) {
            withEvidence(e.add("queue.delayed-overdue", Sev::Warning,
                               counted(overdue, "%1 delayed job overdue", "%1 delayed jobs overdue"),
                               QStringLiteral("The scheduler that moves due jobs to their queue is not running or "
                                              "cannot keep up."),
                               e.keys(), panel),
                         items, overdue, double(overdue));
        }
    }
    const bool jobs = e.f.jobQueues.has_value();
    const QString noJobs = e.readerMissing("job queues");
    const auto queueName = [](const JobQueueInfo &q) {
        return QStringLiteral("%1 %2").arg(
            q.spec.library, q.spec.name.isEmpty() ? QStringLiteral("(all queues)") : bytesescape::escape(q.spec.name));
    };
    if (e.check("jobs.stalled", jobs, noJobs)) {
        QList<FindingItem> items;
        int stalled = 0;
        for (const JobQueueInfo &q : *e.f.jobQueues) {
            for (const ActiveJob &job : q.active) {
                if (!job.stalled && !job.longRunning)
                    continue;
                stalled += job.stalled ? 1 : 0;
                items.append({QStringLiteral("%1 › job %2").arg(queueName(q), bytesescape::escape(job.id)),
                              {},
                              QStringLiteral("%1: %2").arg(
                                  job.stalled ? QStringLiteral("stalled") : QStringLiteral("long running"), job.why)});
            }
        }
        if (!items.isEmpty()) {
            Finding &fd = e.add("jobs.stalled", stalled > 0 ? Sev::Critical : Sev::Warning,
                                stalled > 0 ? counted(stalled, "%1 active job stalled", "%1 active jobs stalled")
                                            : counted(items.size(), "%1 active job running far too long",
                                                      "%1 active jobs running far too long"),
                                QStringLiteral("A job is active but nothing works on it: its worker died or lost its "
                                               "lock. The library's stalled-job check (or a restart of the worker) "
                                               "puts it back; a job stuck in an endless await needs a timeout."),
                                e.keys(), panel);
            fd.evidence = items;
            fd.affected = items.size();
            fd.impact = stalled * 1000.0 + items.size();
        }
    }
    if (e.check("jobs.failed", jobs, noJobs)) {
        QList<FindingItem> items;
        qint64 failed = 0;
        for (const JobQueueInfo &q : *e.f.jobQueues) {
            qint64 n = 0;
            for (const QString &role : {QStringLiteral("failed"), QStringLiteral("dead")})
                n += qMax<qint64>(0, q.state(role));
            if (n < e.t.value("jobs.failed"))
                continue;
            failed += n;
            items.append({queueName(q), {}, QStringLiteral("%1 failed or dead jobs").arg(format::count(quint64(n)))});
        }
        if (!items.isEmpty()) {
            withEvidence(e.add("jobs.failed", Sev::Warning,
                               counted(failed, "%1 failed job kept", "%1 failed jobs kept"),
                               QStringLiteral("Failed jobs pile up unless something retries or removes them: look "
                                              "at the most common error, then retry or clean (removeOnFail, a "
                                              "dead-set limit)."),
                               e.keys(), panel),
                         items, failed, double(failed));
        }
    }
    if (e.check("jobs.dead-worker", jobs, noJobs)) {
        QList<FindingItem> items;
        for (const JobQueueInfo &q : *e.f.jobQueues) {
            for (const QueueWorker &w : q.workers) {
                if (w.alive || w.holds.isEmpty())
                    continue;
                items.append({QStringLiteral("%1 › %2").arg(queueName(q), w.name),
                              {},
                              QStringLiteral("last beat %1 ago, holds %2 jobs")
                                  .arg(w.lastSeenMs >= 0 ? format::duration(w.lastSeenMs) : QStringLiteral("long"))
                                  .arg(w.holds.size())});
            }
        }
        if (!items.isEmpty()) {
            Finding &fd = e.add("jobs.dead-worker", Sev::Critical,
                                counted(items.size(), "%1 worker stopped beating while holding jobs",
                                        "%1 workers stopped beating while holding jobs"),
                                QStringLiteral("The worker process is gone but its jobs stay claimed. Restart it or "
                                               "requeue its jobs (RQ: clean the registries; Sidekiq: the super "
                                               "fetch's recovery)."),
                                e.keys(), panel);
            fd.evidence = items;
            fd.affected = items.size();
        }
    }
}

void sizeRules(Evaluation &e)
{
    const bool read = !e.f.bigKeys.isEmpty() || e.f.coverage.scanned;
    const QString cov = QStringLiteral("from the lengths of %1 keys").arg(format::count(quint64(e.f.bigKeys.size())));
    const QString covSentence
        = e.f.coverage.complete && !e.f.coverage.sampled && e.f.bigKeys.size() >= e.f.coverage.examined
        ? e.f.coverage.sentence()
        : cov;
    if (e.check("size.big-string", read, QStringLiteral("the keyspace was not scanned"))) {
        QList<FindingItem> items;
        for (const KeySample &k : e.f.bigKeys) {
            if (k.type == KeyType::String && k.elements >= e.t.value("size.big_string_bytes"))
                items.append(keyItem(k.key, format::bytes(k.elements)));
        }
        if (!items.isEmpty()) {
            Finding &fd
                = e.add("size.big-string", Sev::Warning, counted(items.size(), "%1 big string", "%1 big strings"),
                        QStringLiteral("Big values block the server while they are read, written or "
                                       "deleted, and fill the network. Split them, compress them, or keep "
                                       "them elsewhere; delete with UNLINK."),
                        covSentence, QStringLiteral("memory"));
            fd.evidence = items;
            fd.affected = items.size();
        }
    }
    if (e.check("size.big-collection", read, QStringLiteral("the keyspace was not scanned"))) {
        QList<FindingItem> items;
        for (const KeySample &k : e.f.bigKeys) {
            if (k.type != KeyType::String && k.elements >= e.t.value("size.big_collection_elements"))
                items.append(keyItem(
                    k.key,
                    QStringLiteral("%1, %2 elements").arg(keyTypeName(k.type), format::count(quint64(k.elements)))));
        }
        if (!items.isEmpty()) {
            Finding &fd = e.add("size.big-collection", Sev::Warning,
                                counted(items.size(), "%1 big collection", "%1 big collections"),
                                QStringLiteral("Reading a big collection whole (HGETALL, SMEMBERS, LRANGE 0 -1) "
                                               "blocks the server; so does deleting it with DEL. Page with the SCAN "
                                               "family, split by a bucket in the name, delete with UNLINK."),
                                covSentence, QStringLiteral("memory"));
            fd.evidence = items;
            fd.affected = items.size();
        }
    }
    if (e.check("size.tiny-strings", e.f.coverage.scanned, QStringLiteral("the keyspace was not scanned"))) {
        QHash<QString, std::pair<int, int>> byFamily; // probed strings, tiny ones
        for (const KeySample &k : e.f.bigKeys) {
            if (k.type != KeyType::String || k.elements < 0)
                continue;
            auto &[n, tiny] = byFamily[familyOf(k.key)];
            ++n;
            tiny += k.elements <= e.t.value("size.tiny_string_bytes") ? 1 : 0;
        }
        QList<FindingItem> items;
        qint64 keys = 0;
        for (const FamilyFacts &fam : e.f.families) {
            if (fam.type != KeyType::String || fam.keys < e.t.value("size.tiny_strings_family"))
                continue;
            const auto it = byFamily.constFind(fam.family);
            if (it == byFamily.cend() || it->first < 5 || it->second < 0.9 * it->first)
                continue;
            if (fam.kind == PatternKind::Lock || fam.kind == PatternKind::DedupKey
                || fam.kind == PatternKind::FixedWindow)
                continue; // one key each on purpose: they expire one by one
            keys += fam.keys;
            items.append({fam.family,
                          {},
                          QStringLiteral("%1 strings, nearly all of at most %2 bytes")
                              .arg(format::count(quint64(fam.keys)))
                              .arg(e.t.value("size.tiny_string_bytes"))});
        }
        if (!items.isEmpty()) {
            withEvidence(
                e.add("size.tiny-strings", Sev::Info,
                      counted(items.size(), "%1 family of many tiny strings", "%1 families of many tiny strings"),
                      QStringLiteral("Each key costs about 50-70 bytes of its own. Small values that are "
                                     "read together are cheaper as fields of hashes bucketed by id "
                                     "(user:12:… → HSET users:0 12 …), unless each needs its own TTL."),
                      e.keys(), QStringLiteral("memory")),
                items, keys, double(keys));
        }
    }
}

void commandRules(Evaluation &e)
{
    const ServerInfo &info = e.f.info;
    if (e.check("commands.dangerous", info.hasSection("Commandstats") || e.f.slowlogRead,
                QStringLiteral("neither INFO commandstats nor the slow log could be read"))) {
        QList<FindingItem> items;
        qint64 calls = 0;
        for (const char *cmd : {"keys", "flushall", "flushdb"}) {
            const QByteArray stat = info.value(QByteArray("cmdstat_") + cmd);
            for (const auto &[name, value] : ServerInfo::subfields(stat)) {
                if (name == "calls" && value.toLongLong() > 0) {
                    calls += value.toLongLong();
                    items.append(
                        {QString::fromLatin1(cmd).toUpper(),
                         {},
                         QStringLiteral("%1 calls since the server started").arg(format::count(value.toULongLong()))});
                }
            }
        }
        for (const SlowlogEntry &s : e.f.slowlog) {
            const QByteArray name = s.commandName();
            if (name == "KEYS" || name == "FLUSHALL" || name == "FLUSHDB")
                items.append({QString::fromLatin1(name),
                              {},
                              QStringLiteral("in the slow log: %1 µs from %2")
                                  .arg(s.durationUs)
                                  .arg(QString::fromUtf8(s.clientAddress))});
        }
        if (!items.isEmpty()) {
            Finding &fd
                = e.add("commands.dangerous", Sev::Warning, QStringLiteral("KEYS, FLUSHALL or FLUSHDB have been run"),
                        QStringLiteral("KEYS walks the whole keyspace in one blocking call; use SCAN. "
                                       "Rename or deny FLUSHALL, FLUSHDB and KEYS with ACLs "
                                       "(-@dangerous) for application users."),
                        QStringLiteral("from INFO commandstats and the slow log"), QStringLiteral("slowlog"));
            fd.evidence = items;
            fd.affected = calls;
            fd.impact = double(calls);
        }
    }
    const QString noSlowlog = e.f.slowlogError.isEmpty() ? QStringLiteral("the slow log was not read")
                                                         : QStringLiteral("SLOWLOG refused: ") + e.f.slowlogError;
    if (e.check("commands.whole-reads", e.f.slowlogRead, noSlowlog)) {
        QList<FindingItem> items;
        for (const SlowlogEntry &s : e.f.slowlog) {
            const QByteArray name = s.commandName();
            bool whole = name == "HGETALL" || name == "SMEMBERS" || name == "HKEYS" || name == "HVALS"
                || name == "SUNION" || name == "SINTER" || name == "SDIFF";
            if ((name == "LRANGE" || name == "ZRANGE") && s.args.size() >= 4 && s.args.at(2) == "0"
                && s.args.at(3) == "-1")
                whole = true;
            if (name == "XRANGE" && s.args.size() == 4 && s.args.at(2) == "-" && s.args.at(3) == "+")
                whole = true;
            if (whole)
                items.append({QStringLiteral("%1 %2").arg(QString::fromLatin1(name), keyText(s.key())), s.key(),
                              QStringLiteral("%1 ms").arg(double(s.durationUs) / 1000.0, 0, 'f', 1)});
        }
        if (!items.isEmpty()) {
            withEvidence(e.add("commands.whole-reads", Sev::Info,
                               counted(items.size(), "%1 whole read of a collection in the slow log",
                                       "%1 whole reads of collections in the slow log"),
                               QStringLiteral("Page through big collections (HSCAN, SSCAN, LRANGE with a window, "
                                              "ZRANGE … LIMIT) instead of reading them whole."),
                               QStringLiteral("from the slow log"), QStringLiteral("slowlog")),
                         items, items.size());
        }
    }
    if (e.check("commands.long-scripts", e.f.slowlogRead, noSlowlog)) {
        QList<FindingItem> items;
        for (const SlowlogEntry &s : e.f.slowlog) {
            const QByteArray name = s.commandName();
            const bool script = name.startsWith("EVAL") || name.startsWith("FCALL");
            if (script && s.durationUs >= e.t.value("commands.long_script_us"))
                items.append({QString::fromLatin1(name),
                              {},
                              QStringLiteral("%1 ms").arg(double(s.durationUs) / 1000.0, 0, 'f', 1)});
        }
        if (!items.isEmpty()) {
            Finding &fd
                = e.add("commands.long-scripts", Sev::Warning,
                        counted(items.size(), "%1 long script in the slow log", "%1 long scripts in the slow log"),
                        QStringLiteral("A script blocks every other client while it runs. Keep scripts "
                                       "short; page big work over several calls."),
                        QStringLiteral("from the slow log"), QStringLiteral("slowlog"));
            fd.evidence = items;
            fd.affected = items.size();
        }
    }
}

void securityRules(Evaluation &e)
{
    const QString noAcl = e.f.aclError.isEmpty() ? QStringLiteral("ACL LIST was not read")
                                                 : QStringLiteral("ACL LIST refused: ") + e.f.aclError;
    const bool bindKnown = e.hasConfig("bind") && e.hasConfig("protected-mode");
    const bool exposed = bindKnown && !isLoopbackBind(e.f.config.value("bind"));
    if (e.check("security.default-nopass", e.f.aclRead, noAcl)) {
        for (const QByteArray &line : e.f.aclUsers) {
            const QList<QByteArray> words = line.split(' ');
            if (words.size() < 3 || words.at(1) != "default" || !words.contains("on") || !words.contains("nopass"))
                continue;
            const bool loopback = bindKnown && !exposed;
            Finding &fd = e.add("security.default-nopass",
                                exposed        ? Sev::Critical
                                    : loopback ? Sev::Info
                                               : Sev::Warning,
                                QStringLiteral("The default user needs no password"),
                                QStringLiteral("Anyone who reaches the port can read and write everything. Set a "
                                               "password (requirepass, or ACL SETUSER default >…) or turn the "
                                               "default user off and give each application its own user."),
                                QStringLiteral("from ACL LIST"));
            fd.evidence.append({QStringLiteral("user default"), {}, QString::fromUtf8(line)});
            if (bindKnown)
                fd.evidence.append({QStringLiteral("bind"), {}, QString::fromUtf8(e.f.config.value("bind"))});
            fd.affected = 1;
        }
    }
    if (e.check("security.protected-mode", bindKnown, e.noConfig())) {
        if (exposed && e.f.config.value("protected-mode") == "no") {
            Finding &fd = e.add("security.protected-mode", Sev::Critical,
                                QStringLiteral("Protected mode is off on a non-loopback address"),
                                QStringLiteral("Keep protected-mode yes unless every user has a password and the "
                                               "port is firewalled; bind only the interfaces clients use."),
                                QStringLiteral("from CONFIG GET"));
            fd.evidence.append({QStringLiteral("bind"), {}, QString::fromUtf8(e.f.config.value("bind"))});
            fd.evidence.append({QStringLiteral("protected-mode"), {}, QStringLiteral("no")});
            fd.affected = 1;
        }
    }
    if (e.check("keys.sensitive-names", e.f.coverage.scanned, QStringLiteral("the keyspace was not scanned"))
        && e.f.sensitiveNameCount > 0) {
        Finding &fd = e.add("keys.sensitive-names", Sev::Warning,
                            QStringLiteral("%1 key names hold e-mail addresses or tokens")
                                .arg(e.f.coverage.estimate(e.f.sensitiveNameCount)),
                            QStringLiteral("Key names show up in logs, the slow log, MONITOR and every tool. Use "
                                           "an id (or a hash of the address) in the name and keep the value "
                                           "inside."),
                            e.keys(), QStringLiteral("keys"));
        for (const auto &[key, what] : e.f.sensitiveNames)
            fd.evidence.append(keyItem(key, what));
        fd.affected = e.f.sensitiveNameCount;
        fd.impact = double(e.f.sensitiveNameCount);
    }
}

void serverRules(Evaluation &e)
{
    const ServerInfo &info = e.f.info;
    if (e.check("server.databases", e.hasInfo(), e.noInfo())) {
        QList<FindingItem> items;
        for (const KeyspaceDb &db : info.keyspace()) {
            if (db.keys > 0)
                items.append({QStringLiteral("db%1").arg(db.db),
                              {},
                              QStringLiteral("%1 keys").arg(format::count(quint64(db.keys)))});
        }
        if (items.size() > 1) {
            withEvidence(
                e.add("server.databases", Sev::Info,
                      counted(items.size(), "%1 logical databases hold keys", "%1 logical databases hold keys"),
                      QStringLiteral("Logical databases share one server's memory, CPU and eviction, and "
                                     "Redis Cluster has only db0. Prefer separate servers, or key prefixes."),
                      e.server(), QStringLiteral("overview")),
                items, items.size());
        }
    }
    const qint64 scripts = info.integer("number_of_cached_scripts", -1);
    if (e.check("server.scripts", scripts >= 0, e.noInfo()) && scripts >= e.t.value("server.cached_scripts")) {
        Finding &fd
            = e.add("server.scripts", Sev::Warning,
                    QStringLiteral("%1 cached Lua scripts").arg(format::count(quint64(scripts))),
                    QStringLiteral("Scripts built with values inside their text are cached one by one and "
                                   "never freed. Pass values as KEYS and ARGV, so one script serves every call."),
                    e.server(), QStringLiteral("console"));
        fd.evidence.append({QStringLiteral("number_of_cached_scripts"), {}, format::count(quint64(scripts))});
        fd.evidence.append(
            {QStringLiteral("used_memory_scripts"), {}, format::bytes(info.integer("used_memory_scripts", 0))});
        fd.affected = scripts;
    }
    const QVersionNumber version = QVersionNumber::fromString(info.text("redis_version"));
    if (e.check("server.old-version", !version.isNull(), e.noInfo())) {
        const double v = version.majorVersion() + version.minorVersion() / 10.0;
        if (v < e.t.value("server.min_version")) {
            Finding &fd
                = e.add("server.old-version", Sev::Info, QStringLiteral("Redis %1 is old").arg(version.toString()),
                        QStringLiteral("Newer servers fix bugs and security issues and add what RedisLens "
                                       "reads (error statistics, stream lag, client library names). Plan an "
                                       "upgrade."),
                        e.server(), QStringLiteral("overview"));
            fd.evidence.append({QStringLiteral("redis_version"), {}, version.toString()});
            fd.affected = 1;
        }
    }
    const qint64 clients = info.integer("connected_clients", -1);
    if (e.check("clients.too-many", clients >= 0, e.noInfo())) {
        const qint64 maxclients = e.f.config.value("maxclients", info.value("maxclients")).toLongLong();
        const double headroom = maxclients > 0 ? 1.0 - double(clients) / double(maxclients) : 1.0;
        const bool many = clients >= e.t.value("clients.connected");
        const bool tight = maxclients > 0 && headroom < e.t.value("clients.headroom");
        if (many || tight) {
            Finding &fd = e.add("clients.too-many", tight ? Sev::Warning : Sev::Info,
                                tight ? QStringLiteral("%1 clients of maxclients %2").arg(clients).arg(maxclients)
                                      : QStringLiteral("%1 connected clients").arg(format::count(quint64(clients))),
                                QStringLiteral("Many connections usually mean a connection per request or pools far "
                                               "larger than needed; past maxclients, new connections are refused."),
                                e.server(), QStringLiteral("overview"));
            fd.evidence.append({QStringLiteral("connected_clients"), {}, format::count(quint64(clients))});
            if (maxclients > 0)
                fd.evidence.append({QStringLiteral("maxclients"), {}, format::count(quint64(maxclients))});
            fd.affected = clients;
        }
    }
}

} // namespace

TriageResult evaluateTriage(const TriageFacts &facts, const TriageThresholds &thresholds, const QStringList &only,
                            const QStringList &exclude)
{
    Evaluation e(facts, thresholds, only, exclude);
    memoryRules(e);
    namespaceMemoryRule(e);
    hotKeysRule(e);
    persistenceRules(e);
    cacheRules(e);
    keyLifetimeRules(e);
    errorRules(e);
    geoRules(e);
    lockRules(e);
    redlockRules(e);
    streamRules(e);
    queueRules(e);
    sizeRules(e);
    commandRules(e);
    securityRules(e);
    serverRules(e);
    TriageResult r = std::move(e.result);
    std::stable_sort(r.findings.begin(), r.findings.end(), [](const Finding &a, const Finding &b) {
        if (a.severity != b.severity)
            return a.severity > b.severity;
        return a.impact > b.impact;
    });
    r.coverage = facts.coverage.sentence();
    return r;
}
