// SPDX-License-Identifier: GPL-3.0-or-later
#include "triagecollector.h"

#include "cachesreader.h"
#include "geo.h"
#include "geohash.h"
#include "jobqueuesreader.h"
#include "locksreader.h"
#include "patternindex.h"
#include "queuesreader.h"
#include "ratelimitsreader.h"
#include "redisclient.h"
#include "redlockreader.h"
#include "sessionsreader.h"
#include "streamsreader.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTimer>
#include <type_traits>

namespace {

// The settings the rules read, one CONFIG GET each: a user may be allowed some and not others.
const char *const kConfigNames[] = {"save", "appendonly", "maxmemory-policy", "bind", "protected-mode", "maxclients"};

qint64 now()
{
    return QDateTime::currentMSecsSinceEpoch();
}

// An e-mail address, a JSON Web Token, or a well-known secret prefix inside a key name.
QString sensitiveIn(const QByteArray &key)
{
    static const QRegularExpression email(
        QStringLiteral("[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,}"));
    static const QRegularExpression jwt(QStringLiteral("eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\."));
    static const QRegularExpression secret(QStringLiteral("(sk_live_|rk_live_|ghp_|gho_|xox[abp]-|AKIA[0-9A-Z]{16})"));
    if (key.contains('@')) {
        if (email.match(QString::fromUtf8(key)).hasMatch())
            return QStringLiteral("an e-mail address");
    }
    if (key.contains("eyJ") && jwt.match(QString::fromUtf8(key)).hasMatch())
        return QStringLiteral("a JSON Web Token");
    // Most keys hold none of the prefixes: a byte search spares them the expression.
    const bool maySecret = key.contains("_live_") || key.contains("gh") || key.contains("xox") || key.contains("AKIA");
    if (maySecret && secret.match(QString::fromUtf8(key)).hasMatch())
        return QStringLiteral("an API key");
    return {};
}

// A logical expiry inside a cached JSON value: the field names the early-refresh pattern uses,
// as epoch seconds or milliseconds. -1 when there is none.
qint64 logicalExpiryOf(const QByteArray &value, qint64 nowMs)
{
    if (!value.startsWith('{'))
        return -1;
    const QJsonObject o = QJsonDocument::fromJson(value).object();
    for (const char *name : {"logical_expires_at", "logical_expiry", "soft_expires_at", "refresh_at", "stale_at",
                             "expires_at", "expiresAt", "softExpiry"}) {
        const QJsonValue v = o.value(QLatin1String(name));
        if (!v.isDouble())
            continue;
        const double n = v.toDouble();
        // Seconds or milliseconds, whichever lies within ten years of now.
        for (double ms : {n * 1000.0, n}) {
            if (std::abs(ms - double(nowMs)) < 10.0 * 365 * 86400 * 1000)
                return qint64(ms);
        }
    }
    return -1;
}

} // namespace

struct TriageCollector::Round : QObject
{
    TriageFacts facts;
    QList<PatternMatch> locks, caches, sessions, rateLimits, jobs, cacheEntries;
    QList<QByteArray> streams, lists, zsets, geo;
    QList<std::pair<QByteArray, KeyType>> probe;
    // The pass over the index (readIndex): where it stands, and what it keeps between slices.
    QPointer<const PatternIndex> index;
    quint64 epoch = 0;
    int slot = 0; // -1: done
    qsizetype visited = 0;
    qsizetype probeStep = 1;
    QHash<QString, qsizetype> familyRow;
    QHash<QString, int> logicalPerFamily;
};

TriageCollector::TriageCollector(RedisClient *client, QObject *parent) : QObject(parent), m_client(client)
{ }

TriageCollector::~TriageCollector() = default;

bool TriageCollector::isBusy() const
{
    return !m_round.isNull();
}

// The round's readers and replies go with it: deleted from the event loop, as a reader may be
// the caller; until then its callbacks see that it is no longer the current round.
void TriageCollector::cancel()
{
    if (m_round)
        m_round->deleteLater();
    m_round = nullptr;
    m_steps.clear();
}

void TriageCollector::collect(const PatternIndex &index, const KeyspaceCoverage &coverage,
                              const ServerInfo &earlierInfo)
{
    cancel();
    m_round = new Round;
    m_round->setParent(this); // a round still waiting for its deferred delete goes with the collector
    Round &r = *m_round;
    r.facts.coverage = coverage;
    r.facts.earlierInfo = earlierInfo;
    r.index = &index;
    r.epoch = index.epoch();
    r.probeStep = index.size() > kSizeProbe ? index.size() / kSizeProbe : 1;
    m_steps = {[this] { readIndex(); },         [this] { readServer(); }, [this] { readPatterns(); },
               [this] { readStreams(); },       [this] { readQueues(); }, [this] { readSizes(); },
               [this] { readLogicalExpiry(); }, [this] { readGeo(); },    [this] { readSecondInfo(); }};
    // Run from the event loop, so a caller connected after collect() hears every step.
    QTimer::singleShot(0, &r, [this] { next(); });
}

// What the index knows, in one pass over its keys, a slice per turn of the event loop (a million
// keys would hold the window for a noticeable time in one go): per-kind counts, families, keys per
// reader, the sensitive names and the keys the size probe reads.
void TriageCollector::readIndex()
{
    Round &r = *m_round;
    if (!r.index || r.index->epoch() != r.epoch) {
        // The keyspace was cleared under the pass (a reconnect to another server): nothing of it holds.
        r.facts = TriageFacts{};
        r.facts.coverage = KeyspaceCoverage{};
        r.slot = -1;
    }
    if (r.slot >= 0) {
        QHash<const PatternMatch *, qsizetype> verdictRow; // keys of a group share their verdict
        QHash<const PatternMatch *, bool> queueVerdict;
        r.slot = r.index->visitKeyVerdicts(r.slot, kIndexSlice, [&](const PatternIndex::KeyVerdict &k, int slot) {
            visitKey(k, slot, verdictRow, queueVerdict);
        });
    }
    if (r.slot >= 0) {
        QTimer::singleShot(0, &r, [this] { readIndex(); });
        return;
    }
    r.index = nullptr;
    next();
}

void TriageCollector::visitKey(const PatternIndex::KeyVerdict &k, int slot,
                               QHash<const PatternMatch *, qsizetype> &verdictRow,
                               QHash<const PatternMatch *, bool> &queueVerdict)
{
    Round &r = *m_round;
    const PatternMatch &v = *k.verdict;
    const QByteArray key(k.key.constData(), k.key.size()); // the view, owned
    r.facts.kindCounts[size_t(v.kind)] += 1;
    qsizetype row = verdictRow.value(k.verdict, -1);
    if (row < 0) {
        auto it = r.familyRow.constFind(v.family);
        if (it == r.familyRow.cend()) {
            it = r.familyRow.insert(v.family, r.facts.families.size());
            r.facts.families.append({v.family, v.kind, k.type, 0, 0, key});
        }
        row = it.value();
        verdictRow.insert(k.verdict, row);
    }
    r.facts.typeCounts[k.type] += 1;
    const qsizetype colon = key.indexOf(':');
    r.facts.namespaceCounts[colon < 0 ? QByteArray() : key.left(colon)] += 1;
    if (const int b = findings::ttlBucket(k.pttlMs); b >= 0)
        r.facts.ttlHistogram[size_t(b)] += 1;
    FamilyFacts &fam = r.facts.families[row];
    ++fam.keys;
    fam.noTtl += k.pttlMs == -1 ? 1 : 0;
    if (const QString what = sensitiveIn(key); !what.isEmpty()) {
        ++r.facts.sensitiveNameCount;
        if (r.facts.sensitiveNames.size() < kSensitiveExamples)
            r.facts.sensitiveNames.append({key, what});
    }
    if (r.visited++ % r.probeStep == 0 && r.probe.size() < kSizeProbe && k.type != KeyType::Unknown
        && k.type != KeyType::Module)
        r.probe.append({key, k.type});
    switch (k.type) {
    case KeyType::Stream:
        if (r.streams.size() < kMaxStreams)
            r.streams.append(key);
        break;
    case KeyType::List:
        if (r.lists.size() < QueuesReader::kMaxLists)
            r.lists.append(key);
        break;
    case KeyType::ZSet:
        if (r.zsets.size() < QueuesReader::kMaxZSets)
            r.zsets.append(key);
        break;
    default: break;
    }
    // The keys each reader reads, as the panels' indexes would hand them over.
    switch (v.kind) {
    case PatternKind::Lock: r.locks.append(r.index->matchAt(slot)); break;
    case PatternKind::FixedWindow:
    case PatternKind::SlidingWindow:
    case PatternKind::TokenBucket: r.rateLimits.append(r.index->matchAt(slot)); break;
    case PatternKind::Session:
    case PatternKind::SessionIndex: r.sessions.append(r.index->matchAt(slot)); break;
    case PatternKind::CacheEntry: {
        const PatternMatch m = r.index->matchAt(slot);
        r.caches.append(m);
        // A few cache values of each namespace, for a logical expiry inside them.
        int &n = r.logicalPerFamily[m.family];
        if (n++ < kLogicalSample && m.type == KeyType::String)
            r.cacheEntries.append(m);
        break;
    }
    case PatternKind::NegativeCache:
    case PatternKind::CacheTagSet:
    case PatternKind::DedupSet:
    case PatternKind::DedupKey:
    case PatternKind::Counter:
    case PatternKind::HyperLogLog: r.caches.append(r.index->matchAt(slot)); break;
    case PatternKind::JobQueue: {
        auto it = queueVerdict.constFind(k.verdict);
        if (it == queueVerdict.cend())
            it = queueVerdict.insert(k.verdict, jobqueues::isQueueKey(r.index->matchAt(slot)));
        if (it.value())
            r.jobs.append(r.index->matchAt(slot));
        break;
    }
    case PatternKind::GeoSet:
        if (r.geo.size() < kGeoSets)
            r.geo.append(key);
        break;
    default: break;
    }
}

void TriageCollector::next()
{
    if (!m_round)
        return;
    if (m_steps.isEmpty()) {
        finish();
        return;
    }
    const std::function<void()> run = m_steps.takeFirst();
    run();
}

void TriageCollector::readServer()
{
    Round &r = *m_round;
    if (!m_client) {
        r.facts.infoError = QStringLiteral("not connected");
        next();
        return;
    }
    Q_EMIT step(QStringLiteral("reading the server's facts…"));
    QList<RedisCommand> cmds{{"INFO", "everything"}};
    for (const char *name : kConfigNames)
        cmds.append(RedisCommand{"CONFIG", "GET", name});
    cmds.append(RedisCommand{"ACL", "LIST"});
    cmds.append(RedisCommand{"SLOWLOG", "GET", "128"});
    m_client->sendBatch(cmds, &r, [this, round = m_round.data()](const RedisReply &reply) {
        if (round != m_round)
            return;
        Round &r = *round;
        TriageFacts &f = r.facts;
        const RedisValue &info = reply.value(0);
        if (info.isString()) {
            f.info = ServerInfo::parse(info.bytes(), now());
        } else {
            f.infoError = reply.ok() ? QString::fromUtf8(info.bytes()) : reply.error.message;
        }
        qsizetype i = 1;
        for (const char *name : kConfigNames) {
            const RedisValue &v = reply.value(i++);
            if (v.isArray() && v.elements().size() >= 2)
                f.config.insert(name, v.elements().at(1).bytes());
            else if (v.isError() && f.configError.isEmpty())
                f.configError = QString::fromUtf8(v.bytes());
            else if (!reply.ok() && f.configError.isEmpty())
                f.configError = reply.error.message;
        }
        const RedisValue &acl = reply.value(i++);
        if (acl.isArray()) {
            f.aclRead = true;
            for (const RedisValue &line : acl.elements())
                f.aclUsers.append(line.bytes());
        } else {
            f.aclError = acl.isError() ? QString::fromUtf8(acl.bytes()) : reply.error.message;
        }
        const RedisValue &slow = reply.value(i++);
        QString why;
        if (slowlog::parseEntries(slow, &f.slowlog, &why))
            f.slowlogRead = true;
        else
            f.slowlogError = slow.isError() ? QString::fromUtf8(slow.bytes()) : why;
        next();
    });
}

void TriageCollector::readSecondInfo()
{
    Round &r = *m_round;
    if (!m_client || r.facts.info.isEmpty()) {
        next();
        return;
    }
    // Rates need two reads at least kRateSpanMs apart: the caller's earlier one and this round's,
    // or this round's first and a second one here.
    const bool hasEarlier
        = !r.facts.earlierInfo.isEmpty() && r.facts.earlierInfo.capturedAtMs() < r.facts.info.capturedAtMs();
    const ServerInfo base = hasEarlier ? r.facts.earlierInfo : r.facts.info;
    if (hasEarlier && r.facts.info.capturedAtMs() - base.capturedAtMs() >= kRateSpanMs) {
        next();
        return;
    }
    const qint64 wait = qMax<qint64>(0, base.capturedAtMs() + kRateSpanMs - now());
    Q_EMIT step(QStringLiteral("reading INFO again for rates…"));
    QTimer::singleShot(int(wait), &r, [this, round = m_round.data(), base] {
        if (round != m_round || !m_client)
            return;
        m_client->send({"INFO", "everything"}, round, [this, round, base](const RedisReply &reply) {
            if (round != m_round)
                return;
            Round &r = *round;
            if (reply.value(0).isString()) {
                r.facts.earlierInfo = base;
                r.facts.info = ServerInfo::parse(reply.value(0).bytes(), now());
            }
            next();
        });
    });
}

void TriageCollector::readPatterns()
{
    Round &r = *m_round;
    if (!m_client) {
        next();
        return;
    }
    // Each reader reads one round and hands over its results; the readers live as long as the round.
    auto pending = std::make_shared<int>(0);
    Round *round = m_round;
    const auto done = [this, round, pending] {
        if (round == m_round && --*pending == 0)
            next();
    };
    // One PollingReader of 'matches': 'Available' delivers its results into 'fact'.
    const auto readOnce
        = [&](auto *reader, auto available, auto &fact, const QList<PatternMatch> &matches, const char *what) {
              using Result = typename std::remove_reference_t<decltype(fact)>::value_type;
              ++*pending;
              connect(reader, available, &r, [&fact](const Result &result) { fact = result; });
              connect(reader, &PollingReader::refreshed, &r, done);
              connect(reader, &PollingReader::failed, &r, [round, what, done](const QString &message) {
                  round->facts.readerErrors.append(QStringLiteral("%1: %2").arg(QLatin1String(what), message));
                  done();
              });
              reader->setMatches(matches);
              reader->refresh();
          };
    Q_EMIT step(QStringLiteral("reading locks, caches, sessions and rate limits…"));
    if (!r.locks.isEmpty())
        readOnce(new LocksReader(m_client, &r), &LocksReader::locksAvailable, r.facts.locks, r.locks, "locks");
    if (!r.caches.isEmpty())
        readOnce(new CachesReader(m_client, &r), &CachesReader::cachesAvailable, r.facts.caches, r.caches, "caches");
    if (!r.sessions.isEmpty())
        readOnce(new SessionsReader(m_client, &r), &SessionsReader::sessionsAvailable, r.facts.sessions, r.sessions,
                 "sessions");
    if (!r.rateLimits.isEmpty())
        readOnce(new RateLimitsReader(m_client, &r), &RateLimitsReader::rateLimitsAvailable, r.facts.rateLimits,
                 r.rateLimits, "rate limits");
    // A Redlock set is read even without locks on this server: its locks may be on the others.
    if (!m_client->profile().redlockPeers.isEmpty()) {
        if (!m_redlock)
            m_redlock = new RedlockReader(m_client, m_client->profile(), this);
        RedlockReader *set = m_redlock;
        connect(set, &RedlockReader::redlockAvailable, &r, [round, set](const QList<RedlockLock> &locks) {
            round->facts.redlock = locks;
            round->facts.redlockNodes = set->nodes();
            round->facts.redlockNodeErrors = set->nodeErrors();
        });
        ++*pending;
        connect(set, &PollingReader::refreshed, &r, done);
        connect(set, &PollingReader::failed, &r, [round, done](const QString &message) {
            round->facts.readerErrors.append(QStringLiteral("Redlock set: %1").arg(message));
            done();
        });
        set->setMatches(r.locks); // a new key list: a round still running from before is dropped
        set->refresh();
    }
    if (*pending == 0)
        next();
}

void TriageCollector::readStreams()
{
    Round &r = *m_round;
    if (!m_client || r.streams.isEmpty()) {
        next();
        return;
    }
    Q_EMIT step(QStringLiteral("reading %1 streams…").arg(r.streams.size()));
    // XINFO STREAM and XINFO GROUPS for every stream, then the consumers and the oldest pending
    // entries of every group.
    QList<RedisCommand> cmds;
    for (const QByteArray &key : std::as_const(r.streams)) {
        cmds.append({"XINFO", "STREAM", key});
        cmds.append({"XINFO", "GROUPS", key});
    }
    m_client->sendBatch(cmds, &r, [this, round = m_round.data()](const RedisReply &reply) {
        if (round != m_round)
            return;
        Round &r = *round;
        QList<StreamFacts> streams;
        QList<RedisCommand> more;
        for (qsizetype s = 0; s < r.streams.size(); ++s) {
            StreamFacts f;
            f.row.key = r.streams.at(s);
            const RedisValue &info = reply.value(2 * s);
            if (info.isError()) {
                f.row.error = QString::fromUtf8(info.bytes());
            } else if (streaminfo::parseStream(info, &f.row.info)) {
                f.row.loaded = true;
            }
            QList<StreamGroupInfo> groups;
            if (streaminfo::parseGroups(reply.value(2 * s + 1), &groups)) {
                for (const StreamGroupInfo &g : std::as_const(groups)) {
                    f.groups.append({g, {}, {}});
                    more.append({"XINFO", "CONSUMERS", f.row.key, g.name});
                    more.append({"XPENDING", f.row.key, g.name, "-", "+", QByteArray::number(kPendingPage)});
                }
            }
            streams.append(f);
        }
        if (more.isEmpty()) {
            r.facts.streams = streams;
            next();
            return;
        }
        m_client->sendBatch(more, &r, [this, round = m_round.data(), streams](const RedisReply &reply) mutable {
            if (round != m_round)
                return;
            qsizetype i = 0;
            for (StreamFacts &f : streams) {
                for (StreamFacts::Group &g : f.groups) {
                    streaminfo::parseConsumers(reply.value(i++), &g.consumers);
                    streaminfo::parsePending(reply.value(i++), &g.oldestPending);
                }
            }
            round->facts.streams = streams;
            next();
        });
    });
}

void TriageCollector::readQueues()
{
    Round &r = *m_round;
    if (!m_client || (r.lists.isEmpty() && r.zsets.isEmpty() && r.jobs.isEmpty())) {
        next();
        return;
    }
    Q_EMIT step(QStringLiteral("reading queues…"));
    auto pending = std::make_shared<int>(0);
    Round *round = m_round;
    const auto done = [this, round, pending] {
        if (round == m_round && --*pending == 0)
            next();
    };
    if (!r.lists.isEmpty() || !r.zsets.isEmpty()) {
        auto *reader = new QueuesReader(m_client, &r);
        ++*pending;
        connect(reader, &QueuesReader::queuesAvailable, &r,
                [round, done](const QList<QueueInfo> &q, const QList<DelayedInfo> &d) {
                    round->facts.queues = q;
                    round->facts.delayed = d;
                    done();
                });
        connect(reader, &QueuesReader::failed, &r, [round, done](const QString &message) {
            round->facts.readerErrors.append(QStringLiteral("queues: ") + message);
            done();
        });
        reader->setKeys(r.lists, r.zsets);
    }
    if (!r.jobs.isEmpty()) {
        auto *reader = new JobQueuesReader(m_client, &r);
        ++*pending;
        connect(reader, &JobQueuesReader::queuesAvailable, &r, [round, done](const QList<JobQueueInfo> &q) {
            round->facts.jobQueues = q;
            done();
        });
        connect(reader, &JobQueuesReader::failed, &r, [round, done](const QString &message) {
            round->facts.readerErrors.append(QStringLiteral("job queues: ") + message);
            done();
        });
        reader->setQueues(jobqueues::group(r.jobs));
        reader->refresh();
    }
}

void TriageCollector::readSizes()
{
    Round &r = *m_round;
    if (!m_client || r.probe.isEmpty()) {
        next();
        return;
    }
    // Per key: its length, its memory (MEMORY USAGE, 5 samples of a collection's elements) and,
    // under an LFU policy, its access frequency counter.
    const QByteArray policy = r.facts.config.value("maxmemory-policy", r.facts.info.value("maxmemory_policy"));
    const bool lfu = policy.contains("lfu");
    r.facts.freqRead = lfu;
    r.facts.freqWhy = policy.isEmpty()
        ? QStringLiteral("the eviction policy is unknown")
        : QStringLiteral("maxmemory-policy is %1, not LFU (OBJECT FREQ needs one)").arg(QString::fromUtf8(policy));
    const int per = lfu ? 3 : 2;
    Q_EMIT step(QStringLiteral("reading the lengths and memory of %1 keys…").arg(r.probe.size()));
    QList<RedisCommand> cmds;
    cmds.reserve(r.probe.size() * per);
    for (const auto &[key, type] : std::as_const(r.probe)) {
        cmds.append({keyTypeLengthCommand(type), key});
        cmds.append({"MEMORY", "USAGE", key, "SAMPLES", "5"});
        if (lfu)
            cmds.append({"OBJECT", "FREQ", key});
    }
    m_client->sendBatch(cmds, &r, [this, round = m_round.data(), per, lfu](const RedisReply &reply) {
        if (round != m_round)
            return;
        Round &r = *round;
        QList<std::pair<QByteArray, qint64>> hot;
        for (qsizetype i = 0; i < r.probe.size(); ++i) {
            const RedisValue &length = reply.value(i * per);
            const RedisValue &memory = reply.value(i * per + 1);
            const QByteArray &key = r.probe.at(i).first;
            if (length.isInteger()) {
                KeySample s;
                s.key = key;
                s.type = r.probe.at(i).second;
                s.elements = length.toInteger();
                r.facts.bigKeys.append(s);
            }
            if (memory.isInteger()) {
                const qsizetype colon = key.indexOf(':');
                r.facts.namespaceMemory[colon < 0 ? QByteArray() : key.left(colon)] += memory.toInteger();
                ++r.facts.memoryProbed;
            }
            if (lfu && reply.value(i * per + 2).isInteger())
                hot.append({key, reply.value(i * per + 2).toInteger()});
        }
        std::sort(hot.begin(), hot.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
        r.facts.hotKeys = hot.mid(0, 100);
        next();
    });
}

void TriageCollector::readLogicalExpiry()
{
    Round &r = *m_round;
    if (!m_client || r.cacheEntries.isEmpty()) {
        next();
        return;
    }
    QList<RedisCommand> cmds;
    for (const PatternMatch &m : std::as_const(r.cacheEntries))
        cmds.append({"GETRANGE", m.key, "0", "1023"});
    m_client->sendBatch(cmds, &r, [this, round = m_round.data()](const RedisReply &reply) {
        if (round != m_round)
            return;
        Round &r = *round;
        r.facts.logicalExpiryRead = reply.ok();
        const qint64 t = now();
        for (qsizetype i = 0; i < r.cacheEntries.size(); ++i) {
            const RedisValue &v = reply.value(i);
            if (!v.isString())
                continue;
            const qint64 at = logicalExpiryOf(v.bytes(), t);
            if (at >= 0)
                r.facts.logicalExpiry.append({r.cacheEntries.at(i).key, PatternKind::CacheEntry, at});
        }
        next();
    });
}

void TriageCollector::readGeo()
{
    Round &r = *m_round;
    if (!m_client || r.geo.isEmpty()) {
        next();
        return;
    }
    Q_EMIT step(QStringLiteral("reading %1 geo sets…").arg(r.geo.size()));
    QList<RedisCommand> cmds;
    for (const QByteArray &key : std::as_const(r.geo)) {
        cmds.append({"ZCARD", key});
        cmds.append({"ZRANDMEMBER", key, QByteArray::number(kGeoPoints), "WITHSCORES"});
    }
    m_client->sendBatch(cmds, &r, [this, round = m_round.data()](const RedisReply &reply) {
        if (round != m_round)
            return;
        Round &r = *round;
        const LandMask &land = LandMask::world();
        QList<GeoFacts> sets;
        for (qsizetype g = 0; g < r.geo.size(); ++g) {
            GeoFacts f;
            f.key = r.geo.at(g);
            f.members = reply.value(2 * g).toInteger();
            const QList<RedisValue> &flat = reply.value(2 * g + 1).elements();
            for (qsizetype i = 0; i + 1 < flat.size(); i += 2) {
                bool ok = false;
                const double score = flat.at(i + 1).toDouble(&ok);
                if (!ok || !geohash::isValidScore(score))
                    continue;
                const GeoPoint p = geohash::decodeScore(score);
                ++f.sampled;
                if (land.isEmpty() || land.isLand(p))
                    continue;
                ++f.inSea;
                if (qAbs(p.lon) <= 90 && land.isLand({p.lat, p.lon}))
                    ++f.swappedOnLand;
            }
            sets.append(f);
        }
        r.facts.geo = sets;
        next();
    });
}

void TriageCollector::finish()
{
    Round *r = m_round;
    r->facts.nowMs = now();
    const TriageFacts facts = r->facts;
    cancel();
    Q_EMIT collected(facts);
}
