// SPDX-License-Identifier: GPL-3.0-or-later
#include "patternindex.h"
#include "threadcheck.h"

#include "keysampler.h"
#include "keyscanner.h"
#include "redisclient.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QPointer>
#include <QSet>
#include <QTimer>
#include <QVersionNumber>

#include <array>
#include <cmath>
#include <memory>
#include <vector>

namespace {

constexpr int kMaxSamples = 32; // per group, when the first samples disagree
constexpr int kSliceMs = 4;
constexpr int kPaceMs = 50;
constexpr int kUnpacedBatch = 1024; // commands in one sampling batch without a ceiling
constexpr int kFlushMs = 100;
constexpr int kEmitBatch = 4096; // matches per 'classified'
constexpr qint64 kSecond = 1000;
constexpr qint64 kHour = 3600 * kSecond;

int ttlClass(qint64 pttl)
{
    if (pttl == ttl::kUnknown)
        return 0;
    if (pttl < 0)
        return 1;
    if (pttl <= 90 * kSecond)
        return 2;
    if (pttl <= kHour)
        return 3;
    if (pttl <= 24 * kHour)
        return 4;
    return 5;
}

int lengthClass(KeyType type, qint64 elements)
{
    if (type != KeyType::String || elements < 0)
        return 0;
    return elements <= 24 ? 1 : 2;
}

} // namespace

struct PatternIndex::Private
{
    // One per key, in a vector so groups can list their keys as small indexes and the hash
    // holds only an int. The verdict is an index into 'verdicts': the keys of a group share
    // one, so a million keys cost no million copies of a PatternMatch.
    struct Slot
    {
        QByteArray key; // null: a free slot
        qint64 pttl = ttl::kUnknown;
        qint64 elements = -1;
        int group = -1;
        int verdict = -1;
        KeyType type = KeyType::Unknown;
        bool fromRule = false;
        bool inFlight = false;
        bool queued = false; // in 'out'
    };

    struct Group
    {
        int family = -1;
        KeyType type = KeyType::Unknown;
        QList<int> keys; // slots; may hold slots that left the group since: checked on use
        int live = 0; // keys whose slot is in this group and not decided by a rule
        QHash<QByteArray, KeySample> samples;
        QHash<QByteArray, int> own; // the sampled keys' own verdicts
        int inFlight = 0;
        int wanted = kSamplesPerGroup;
        quint64 picks = 0;
        int typed = 0; // untyped groups: keys whose TYPE was read (they moved on)
        bool decided = false;
        PatternMatch verdict;
        int verdictGeneration = 0;
        int inherited = -1; // verdicts index of inherited(), for inheritedGeneration/Samples
        int inheritedGeneration = -1;
        qsizetype inheritedSamples = -1;
    };

    struct Family
    {
        QString name;
        int keys = 0;
        QList<int> groups;
    };

    struct Sampled
    {
        QByteArray key;
        int group = -1;
        KeyType type = KeyType::Unknown;
        int first = 0;
        int count = 0;
        int pttlAt = 0;
        int lengthAt = -1;
    };

    PatternIndex *q;
    QPointer<RedisClient> client;
    PatternRules rules;
    PatternClassifier classifier;
    QObject *context = nullptr; // replaced on clear(): replies for the old state are dropped

    // key → slot, in shards: growing one big table would rehash a million keys at once on the
    // GUI thread; a shard rehashes a 64th of them.
    static constexpr int kShards = 64;
    std::array<QHash<QByteArray, int>, kShards> ids;
    int keyCount = 0;
    // Slots in chunks that never move, so the table grows without copying what it holds.
    static constexpr int kChunkBits = 12;
    std::vector<std::unique_ptr<Slot[]>> chunks;
    int slotCount = 0;
    QList<int> freeSlots;
    QList<PatternMatch> verdicts; // shared verdicts; key, type and pttlMs are filled in per key
    std::array<int, kPatternKindCount> counts{};
    QList<Group> groups;
    QHash<quint64, int> groupIds; // family, type, TTL class, length class → group
    QList<Family> families;
    QHash<QString, int> familyIds;
    QHash<quint64, int> ruleVerdicts; // rule index, group → verdict
    // match() hands out pointers into this ring: callers read them at once.

    QList<ScannedKey> intake;
    qsizetype intakeAt = 0;
    struct Propagation
    {
        int group;
        qsizetype next;
    };
    QList<Propagation> propagations;
    QList<QByteArray> reassign; // after setRules
    qsizetype reassignAt = 0;
    QList<int> wanting; // groups that want samples, in order
    QSet<int> wantingSet;

    QList<int> out; // slots whose verdict changed since the last 'classified'
    QList<QByteArray> gone;
    QTimer *slice = nullptr;
    QTimer *pace = nullptr;
    QTimer *flush = nullptr;
    QElapsedTimer paceClock;
    double allowance = 0;
    int maxCps = 2000;
    qint64 commands = 0;
    int sampledKeys = 0;
    bool batchInFlight = false;
    int largestBatch = 0;
    bool idleReported = true;
    // Groups whose verdict may change once a sibling key is known (PatternClassifier::
    // mayChangeWithSiblings), decided again from their samples when the index next goes idle.
    QSet<int> awaitingSiblings;
    qint64 keysSinceRecheck = 0;

    explicit Private(PatternIndex *owner) : q(owner) { }

    qint64 now() const { return QDateTime::currentMSecsSinceEpoch(); }

    const QString &familyName(int fid) const { return families.at(fid).name; }

    int familyId(const QString &name)
    {
        const auto it = familyIds.constFind(name);
        if (it != familyIds.cend())
            return it.value();
        Family f;
        f.name = name;
        families.append(f);
        const int fid = int(families.size() - 1);
        familyIds.insert(name, fid);
        return fid;
    }

    int groupFor(int fid, const Slot &e)
    {
        const quint64 id = (quint64(quint32(fid)) << 24) | (quint64(quint8(e.type)) << 16)
            | (quint64(ttlClass(e.pttl)) << 8) | quint64(lengthClass(e.type, e.elements));
        const auto it = groupIds.constFind(id);
        if (it != groupIds.cend())
            return it.value();
        Group g;
        g.family = fid;
        g.type = e.type;
        groups.append(g);
        const int gid = int(groups.size() - 1);
        groupIds.insert(id, gid);
        families[fid].groups.append(gid);
        return gid;
    }

    static size_t shardOf(const QByteArray &key)
    {
        // A seed of its own: the shard's bits must not be the ones its buckets are chosen by.
        return (qHash(key, size_t(0x9e3779b97f4a7c15ULL)) >> 17) % kShards;
    }
    int slotOf(const QByteArray &key) const { return ids[shardOf(key)].value(key, -1); }
    bool known(const QByteArray &key) const { return ids[shardOf(key)].contains(key); }
    Slot &slot(int id) { return chunks[size_t(id) >> kChunkBits][size_t(id) & ((1u << kChunkBits) - 1)]; }
    const Slot &slot(int id) const { return chunks[size_t(id) >> kChunkBits][size_t(id) & ((1u << kChunkBits) - 1)]; }
    int newSlot()
    {
        if (!freeSlots.isEmpty())
            return freeSlots.takeLast();
        if ((size_t(slotCount) >> kChunkBits) >= chunks.size())
            chunks.emplace_back(new Slot[size_t(1) << kChunkBits]);
        return slotCount++;
    }

    PatternMatch materialize(const Slot &s) const
    {
        PatternMatch m = verdicts.at(s.verdict);
        m.key = s.key;
        m.type = s.type;
        m.pttlMs = s.pttl;
        return m;
    }

    int addVerdict(PatternMatch m)
    {
        m.key.clear();
        verdicts.append(std::move(m));
        return int(verdicts.size() - 1);
    }

    PatternKind familyKind(const Group &g, int except) const
    {
        QHash<int, int> weight;
        for (int gid : families.at(g.family).groups) {
            const Group &o = groups.at(gid);
            if (gid == except || !o.decided || o.verdict.kind == PatternKind::Unknown)
                continue;
            weight[int(o.verdict.kind)] += qMax(1, o.live);
        }
        int best = -1, bestWeight = 0;
        for (auto it = weight.cbegin(); it != weight.cend(); ++it) {
            if (it.value() > bestWeight) {
                best = it.key();
                bestWeight = it.value();
            }
        }
        return best < 0 ? PatternKind::Unknown : PatternKind(best);
    }

    PatternContext contextFor(int gid) const
    {
        const Group &g = groups.at(gid);
        PatternContext c;
        c.family = familyName(g.family);
        c.familySize = families.at(g.family).keys;
        c.familyKind = familyKind(g, gid);
        c.familyKnown = [this](const QString &f) { return familyIds.contains(f); };
        c.keyKnown = [this](const QByteArray &k) { return known(k); };
        c.nowMs = now();
        return c;
    }

    void queue(int id)
    {
        Slot &s = slot(id);
        if (!s.queued) {
            s.queued = true;
            out.append(id);
        }
    }

    // Gives the slot verdict 'v'; 'classified' reports it when it reads differently.
    void setVerdict(int id, int v)
    {
        Slot &s = slot(id);
        if (s.verdict == v)
            return;
        const PatternMatch &m = verdicts.at(v);
        bool changed = true;
        if (s.verdict >= 0) {
            const PatternMatch &o = verdicts.at(s.verdict);
            changed
                = o.kind != m.kind || o.confidence != m.confidence || o.fromRule != m.fromRule || o.reason != m.reason;
            --counts[size_t(o.kind)];
        }
        ++counts[size_t(m.kind)];
        s.verdict = v;
        if (changed)
            queue(id);
    }

    void dropVerdict(Slot &s)
    {
        if (s.verdict < 0)
            return;
        --counts[size_t(verdicts.at(s.verdict).kind)];
        s.verdict = -1;
    }

    void want(int gid)
    {
        if (!wantingSet.contains(gid)) {
            wantingSet.insert(gid);
            wanting.append(gid);
        }
        if (!pace->isActive()) {
            pace->start();
            // The first reads go out now, not a pace interval later: on a small keyspace that
            // wait was most of the time classification added.
            QTimer::singleShot(0, context, [this] { paceTick(); });
        }
    }

    void leaveGroup(Slot &e)
    {
        if (e.group < 0)
            return;
        Group &g = groups[e.group];
        if (!e.fromRule)
            --g.live;
        e.group = -1;
    }

    // The verdict of a user rule for this key, shared by the keys of its group that match it.
    int ruleVerdict(const Slot &e)
    {
        if (rules.isEmpty())
            return -1;
        const PatternRule *rule = rules.match(e.key, e.type);
        if (!rule)
            return -1;
        const quint64 id = (quint64(quint32(rules.indexOf(rule))) << 32) | quint32(e.group);
        const auto it = ruleVerdicts.constFind(id);
        if (it != ruleVerdicts.cend())
            return it.value();
        std::optional<PatternMatch> m = classifier.ruleMatch(e.key, e.type);
        if (!m)
            return -1;
        m->family = familyName(groups.at(e.group).family);
        const int v = addVerdict(*m);
        ruleVerdicts.insert(id, v);
        return v;
    }

    int ownVerdict(const Group &g, const QByteArray &key) const
    {
        if (g.own.isEmpty())
            return -1;
        return g.own.value(key, -1);
    }

    // Gives a key its verdict: a rule, its own sample, its group's, or none yet.
    void assign(int id)
    {
        Slot &e = slot(id);
        if (const int rule = ruleVerdict(e); rule >= 0) {
            if (!e.fromRule && e.group >= 0)
                --groups[e.group].live;
            e.fromRule = true;
            setVerdict(id, rule);
            return;
        }
        if (e.fromRule && e.group >= 0)
            ++groups[e.group].live;
        e.fromRule = false;
        const int gid = e.group;
        Group &g = groups[gid];
        if (const int own = ownVerdict(g, e.key); own >= 0) {
            setVerdict(id, own);
            return;
        }
        if (g.decided) {
            setVerdict(id, inheritedIndex(gid));
            // A group decided on its first few keys samples its late members too, up to
            // kSamplesPerGroup: how the scan's batches fall must not decide whether a minority
            // (a negative marker among cache entries) is seen. 'wanted' was lowered to what
            // there was to read when the group ran dry, so it is raised again here.
            if (g.samples.size() < kSamplesPerGroup && g.live > g.samples.size() && g.type != KeyType::Unknown) {
                g.wanted = qMax(g.wanted, int(qMin<qsizetype>(kSamplesPerGroup, g.live)));
                want(gid);
            }
            return;
        }
        dropVerdict(e);
        if (PatternClassifier::decidedByType(g.type)) {
            decide(gid);
            if (groups.at(gid).decided)
                setVerdict(id, inheritedIndex(gid));
            return;
        }
        want(gid);
    }

    PatternMatch inherited(const Group &g) const
    {
        PatternMatch m = g.verdict;
        if (g.type == KeyType::Unknown || g.samples.isEmpty())
            return m;
        m.reason = QStringLiteral("like the %1 sampled keys of %2: %3")
                       .arg(g.samples.size())
                       .arg(familyName(g.family), g.verdict.reason);
        return m;
    }

    // The group's verdict as its keys read it, built once per verdict and sample count.
    int inheritedIndex(int gid)
    {
        Group &g = groups[gid];
        if (g.inherited < 0 || g.inheritedGeneration != g.verdictGeneration || g.inheritedSamples != g.samples.size()) {
            g.inherited = addVerdict(inherited(g));
            g.inheritedGeneration = g.verdictGeneration;
            g.inheritedSamples = g.samples.size();
        }
        return g.inherited;
    }

    void setGroupVerdict(Group &g, const PatternMatch &verdict)
    {
        g.verdict = verdict;
        g.decided = true;
        ++g.verdictGeneration;
    }

    void ingest(const ScannedKey &k)
    {
        int id = slotOf(k.name);
        if (id < 0) {
            ++keysSinceRecheck;
            id = newSlot();
            ids[shardOf(k.name)].insert(k.name, id);
            ++keyCount;
            Slot &e = slot(id);
            const bool queued = e.queued; // a reused slot may still be listed in 'out'
            e = Slot();
            e.queued = queued;
            e.key = k.name;
            e.type = k.type;
            e.pttl = k.pttlMs;
            e.elements = k.elements;
            const int fid = familyId(familyOf(k.name));
            ++families[fid].keys;
            e.group = groupFor(fid, e);
        } else {
            Slot &e = slot(id);
            if (k.type != KeyType::Unknown)
                e.type = k.type;
            if (k.pttlMs != ttl::kUnknown)
                e.pttl = k.pttlMs;
            if (k.elements >= 0)
                e.elements = k.elements;
            const int gid = groupFor(groups.at(e.group).family, e);
            if (gid == e.group)
                return; // the new TTL is read from the slot
            leaveGroup(e);
            e.group = gid;
            e.fromRule = false;
        }
        Slot &e = slot(id);
        Group &g = groups[e.group];
        g.keys.append(id);
        ++g.live; // assign() takes it back for a rule match
        assign(id);
    }

    void moveToGroup(int id)
    {
        Slot &e = slot(id);
        const int gid = groupFor(groups.at(e.group).family, e);
        if (gid == e.group)
            return;
        const bool rule = e.fromRule;
        leaveGroup(e);
        e.group = gid;
        groups[gid].keys.append(id);
        if (!rule)
            ++groups[gid].live;
    }

    void forget(const QByteArray &key)
    {
        QHash<QByteArray, int> &shard = ids[shardOf(key)];
        const auto it = shard.find(key);
        if (it == shard.end())
            return;
        const int id = it.value();
        shard.erase(it);
        --keyCount;
        Slot &e = slot(id);
        if (e.group >= 0) {
            Group &g = groups[e.group];
            g.samples.remove(key);
            g.own.remove(key);
            const int fid = g.family;
            leaveGroup(e);
            --families[fid].keys;
        }
        dropVerdict(e);
        const bool queued = e.queued;
        e = Slot();
        e.queued = queued; // 'out' may still list it: flushNow skips free slots
        freeSlots.append(id);
    }

    // Picks up to 'need' keys of the group that are not sampled, spread over the group.
    QList<int> pick(int gid, int need)
    {
        Group &g = groups[gid];
        QList<int> chosen;
        const qsizetype n = g.keys.size();
        if (n == 0)
            return chosen;
        int attempts = 0;
        while (chosen.size() < need && attempts < need * 4) {
            ++attempts;
            // Golden-ratio steps land spread over the list however long it has grown.
            const double frac = std::fmod(double(g.picks++) * 0.6180339887498949, 1.0);
            qsizetype at = qsizetype(frac * double(n));
            for (int probe = 0; probe < 64; ++probe, at = (at + 1) % n) {
                const int id = g.keys.at(at);
                const Slot &e = slot(id);
                if (e.key.isNull() || e.group != gid || e.fromRule || e.inFlight || g.samples.contains(e.key)
                    || chosen.contains(id))
                    continue;
                chosen.append(id);
                break;
            }
        }
        return chosen;
    }

    void paceTick()
    {
        if (batchInFlight)
            return;
        if (wanting.isEmpty()) {
            pace->stop();
            checkIdle();
            return;
        }
        if (!client || !client->isReady())
            return;
        // A token bucket: the clock runs on while the pace timer is stopped, so a restart
        // finds at most the capped allowance, never more than the rate permits.
        const double elapsed = paceClock.isValid() ? double(paceClock.restart()) : double(kPaceMs);
        if (!paceClock.isValid())
            paceClock.start();
        // No ceiling (0): one bounded batch in flight at a time, the next as soon as it answers.
        allowance = maxCps <= 0 ? double(kUnpacedBatch)
                                : qMin(allowance + elapsed * maxCps / 1000.0, qMax(8.0, maxCps / 4.0));
        if (allowance < 4)
            return;
        const QVersionNumber version = client->facts().version;
        QList<RedisCommand> cmds;
        QList<Sampled> sent;
        QList<int> done;
        for (int i = 0; i < wanting.size() && cmds.size() + 3 <= allowance; ++i) {
            const int gid = wanting.at(i);
            Group &g = groups[gid];
            const int need = g.wanted - int(g.samples.size()) - g.inFlight;
            const QList<int> picked = need > 0 ? pick(gid, need) : QList<int>();
            if (picked.isEmpty()) {
                if (g.inFlight == 0) {
                    // Nothing left to read (the rest left, expired or follow a rule).
                    if (g.type == KeyType::Unknown)
                        g.wanted = qMin(g.wanted, g.typed);
                    else
                        g.wanted = qMin(g.wanted, int(g.samples.size()));
                    done.append(gid);
                }
                continue;
            }
            for (int id : picked) {
                Slot &e = slot(id);
                const QList<RedisCommand> c = keysampler::commands(e.key, e.type, e.elements, version);
                if (!cmds.isEmpty() && cmds.size() + c.size() > allowance)
                    break;
                const bool length = keysampler::readsLength(e.type, e.elements);
                const int first = int(cmds.size());
                const int count = int(c.size());
                sent.append(Sampled{e.key, gid, e.type, first, count, keysampler::pttlIndex(first, count, length),
                                    keysampler::lengthIndex(first, count, length)});
                cmds += c;
                e.inFlight = true;
                ++g.inFlight;
            }
        }
        for (int gid : done) {
            wanting.removeOne(gid);
            wantingSet.remove(gid);
            decide(gid);
        }
        if (cmds.isEmpty()) {
            scheduleSlice();
            return;
        }
        allowance -= double(cmds.size());
        commands += cmds.size();
        largestBatch = qMax(largestBatch, int(cmds.size()));
        batchInFlight = true;
        client->sendBatch(cmds, context, [this, sent](const RedisReply &r) { onSample(r, sent); });
    }

    void onSample(const RedisReply &r, const QList<Sampled> &sent)
    {
        batchInFlight = false;
        QSet<int> touched;
        for (const Sampled &s : sent) {
            --groups[s.group].inFlight;
            touched.insert(s.group);
            takeSample(r, s);
        }
        for (int gid : std::as_const(touched))
            decide(gid);
        scheduleSlice();
        scheduleFlush();
        // The next samples need not wait for the pace timer: the allowance still bounds the rate.
        if (!wanting.isEmpty())
            paceTick();
    }

    // One key's replies: it is gone, has a type now, changed type, or gets its own verdict.
    void takeSample(const RedisReply &r, const Sampled &s)
    {
        const int id = slotOf(s.key);
        if (id < 0)
            return; // removed meanwhile
        Slot &e = slot(id);
        e.inFlight = false;
        if (!r.ok() && r.values.size() < qsizetype(s.first + s.count))
            return; // connection trouble: picked again next time
        const RedisValue &pttl = r.value(s.pttlAt);
        if (pttl.isInteger() && pttl.toInteger() == -2) {
            gone.append(s.key);
            forget(s.key);
            return;
        }
        if (e.group != s.group || e.type != s.type)
            return; // moved by a rescan while in flight
        if (pttl.isInteger())
            e.pttl = pttl.toInteger();
        const RedisValue &first = r.value(s.first);
        if (s.type == KeyType::Unknown) {
            const KeyType t = keyTypeFromReply(first.bytes());
            if (t == KeyType::None) {
                gone.append(s.key);
                forget(s.key);
                return;
            }
            ++groups[s.group].typed;
            e.type = t;
            moveToGroup(id);
            assign(id);
            return;
        }
        if (first.isError() && first.errorCode() == "WRONGTYPE") {
            e.type = KeyType::Unknown; // replaced by another type: read TYPE first
            moveToGroup(id);
            assign(id);
            return;
        }
        if (s.lengthAt >= 0 && r.value(s.lengthAt).isInteger())
            e.elements = r.value(s.lengthAt).toInteger();
        KeySample sample;
        sample.key = s.key;
        sample.type = s.type;
        sample.pttlMs = e.pttl;
        sample.elements = e.elements;
        sample.sampled = !first.isError();
        keysampler::readValue(r, s.first, &sample);
        groups[s.group].samples.insert(s.key, sample);
        ++sampledKeys;
        const int v = addVerdict(classifier.classify(sample, contextFor(s.group)));
        groups[s.group].own.insert(s.key, v);
        setVerdict(id, v);
    }

    // A group is decided once its samples are in: the majority's verdict goes to the rest.
    void decide(int gid, bool cascade = true)
    {
        Group &g = groups[gid];
        if (g.inFlight > 0)
            return;
        if (g.type == KeyType::Unknown) {
            decideUntyped(gid);
            return;
        }
        const qsizetype available = g.live;
        if (!PatternClassifier::decidedByType(g.type) && g.samples.size() < g.wanted && available > g.samples.size()) {
            want(gid);
            return;
        }
        if (g.samples.isEmpty()) {
            if (PatternClassifier::decidedByType(g.type))
                decideByType(gid);
            return;
        }
        // Classify the samples again: the family may know more now (familyKind).
        const PatternContext c = contextFor(gid);
        if (classifier.mayChangeWithSiblings(g.samples.cbegin().value()))
            awaitingSiblings.insert(gid);
        QHash<int, int> tally;
        for (auto it = g.samples.cbegin(); it != g.samples.cend(); ++it) {
            const int v = addVerdict(classifier.classify(it.value(), c));
            g.own.insert(it.key(), v);
            ++tally[int(verdicts.at(v).kind)];
        }
        int best = -1, bestCount = 0;
        for (auto it = tally.cbegin(); it != tally.cend(); ++it) {
            if (it.value() > bestCount || (it.value() == bestCount && it.key() < best)) {
                best = it.key();
                bestCount = it.value();
            }
        }
        const qsizetype n = g.samples.size();
        if (bestCount < n && g.wanted < kMaxSamples && available > n) {
            g.wanted += kSamplesPerGroup; // they disagree: look at more of them
            want(gid);
            for (auto it = g.own.cbegin(); it != g.own.cend(); ++it) {
                const int id = slotOf(it.key());
                if (id >= 0 && !slot(id).fromRule)
                    setVerdict(id, it.value());
            }
            return;
        }
        PatternMatch verdict;
        for (auto it = g.own.cbegin(); it != g.own.cend(); ++it) {
            const PatternMatch &m = verdicts.at(it.value());
            if (int(m.kind) == best && m.confidence > verdict.confidence)
                verdict = m;
        }
        verdict.confidence = int(verdict.confidence * bestCount / n);
        const bool changed = !g.decided || g.verdict.kind != verdict.kind || g.verdict.reason != verdict.reason
            || g.verdict.confidence != verdict.confidence;
        setGroupVerdict(g, verdict);
        if (changed) {
            propagations.append({gid, 0});
            scheduleSlice();
        }
        if (cascade)
            revisitSiblings(gid);
    }

    // The type alone decides (no reads): one key of the group stands for all.
    void decideByType(int gid)
    {
        Group &g = groups[gid];
        KeySample s;
        s.type = g.type;
        for (int id : std::as_const(g.keys)) {
            if (!slot(id).key.isNull()) {
                s.key = slot(id).key;
                s.pttlMs = slot(id).pttl;
                break;
            }
        }
        if (s.key.isEmpty())
            return;
        if (classifier.mayChangeWithSiblings(s))
            awaitingSiblings.insert(gid);
        const PatternMatch verdict = classifier.classify(s, contextFor(gid));
        if (g.decided && g.verdict.kind == verdict.kind && g.verdict.reason == verdict.reason)
            return;
        setGroupVerdict(g, verdict);
        propagations.append({gid, 0});
        scheduleSlice();
    }

    // Siblings decided without knowing what this family is may read differently now (a lock
    // without TTL next to locks with one), and untyped keys wait for a verdict.
    void revisitSiblings(int gid)
    {
        const QList<int> siblings = families.at(groups.at(gid).family).groups;
        for (int other : siblings) {
            if (other == gid)
                continue;
            Group &o = groups[other];
            if (o.type == KeyType::Unknown)
                decideUntyped(other);
            else if (o.decided && (o.verdict.kind == PatternKind::Unknown || o.verdict.confidence < 60))
                decide(other, false);
        }
    }

    // Keys of unknown type: a few have their TYPE read and move to typed groups; the rest take
    // the family's verdict once one exists.
    void decideUntyped(int gid)
    {
        Group &g = groups[gid];
        if (g.inFlight > 0)
            return;
        if (g.typed < g.wanted && g.live > 0) {
            want(gid);
            return;
        }
        const PatternKind kind = familyKind(g, gid);
        bool anyPending = false;
        for (int other : families.at(g.family).groups) {
            if (other != gid && !groups.at(other).decided && groups.at(other).live > 0)
                anyPending = true;
        }
        if (anyPending && !g.decided)
            return;
        PatternMatch verdict;
        verdict.kind = kind;
        verdict.family = familyName(g.family);
        verdict.confidence = kind == PatternKind::Unknown ? 0 : 50;
        verdict.reason = kind == PatternKind::Unknown
            ? QStringLiteral("type not read; its family shows no pattern")
            : QStringLiteral("type not read; the sampled keys of %1 are %2").arg(verdict.family, patternKindName(kind));
        const bool changed = !g.decided || g.verdict.kind != verdict.kind;
        setGroupVerdict(g, verdict);
        if (changed) {
            propagations.append({gid, 0});
            scheduleSlice();
        }
    }

    void scheduleSlice()
    {
        if (!slice->isActive())
            slice->start();
    }

    // Work that will change verdicts is still queued or on the wire.
    bool working() const
    {
        return !intake.isEmpty() || !propagations.isEmpty() || !reassign.isEmpty() || !wanting.isEmpty()
            || batchInFlight;
    }

    void scheduleFlush()
    {
        if (out.isEmpty() && gone.isEmpty())
            return;
        // Batches while work goes on; the last one at once, so idle() is not held back.
        if (!working()) {
            if (!flush->isActive() || flush->remainingTime() > 0)
                flush->start(0);
        } else if (!flush->isActive()) {
            flush->start(kFlushMs);
        }
    }

    void runSlice()
    {
        QElapsedTimer t;
        t.start();
        while (intakeAt < intake.size() && t.elapsed() < kSliceMs) {
            for (int i = 0; i < 64 && intakeAt < intake.size(); ++i)
                ingest(intake.at(intakeAt++));
        }
        if (intakeAt >= intake.size()) {
            intake = QList<ScannedKey>(); // clear() would keep the room of the biggest burst
            intakeAt = 0;
        }
        while (!propagations.isEmpty() && t.elapsed() < kSliceMs) {
            Propagation &p = propagations.first();
            const int gid = p.group;
            Group &g = groups[gid];
            const qsizetype end = qMin(g.keys.size(), p.next + 2048);
            const int shared = inheritedIndex(gid);
            for (; p.next < end; ++p.next) {
                const int id = g.keys.at(p.next);
                const Slot &e = slot(id);
                if (e.group != gid || e.fromRule)
                    continue;
                const int own = ownVerdict(g, e.key);
                setVerdict(id, own >= 0 ? own : shared);
            }
            if (p.next >= g.keys.size())
                propagations.removeFirst();
        }
        while (reassignAt < reassign.size() && t.elapsed() < kSliceMs) {
            const qsizetype end = qMin(reassign.size(), reassignAt + 256);
            for (; reassignAt < end; ++reassignAt) {
                const int id = slotOf(reassign.at(reassignAt));
                if (id >= 0)
                    assign(id);
            }
        }
        if (reassignAt >= reassign.size()) {
            reassign = QList<QByteArray>();
            reassignAt = 0;
        }
        if (!intake.isEmpty() || !propagations.isEmpty() || !reassign.isEmpty())
            slice->start();
        else if (!wanting.isEmpty() && !pace->isActive())
            pace->start();
        scheduleFlush();
        checkIdle();
    }

    bool busy() const { return working() || !out.isEmpty(); }

    void flushNow()
    {
        if (!gone.isEmpty()) {
            const QList<QByteArray> g = gone;
            gone.clear();
            Q_EMIT q->removed(g);
        }
        // Bounded batches: the receivers (the key tree looks every key up) run in this slice too.
        QElapsedTimer t;
        t.start();
        qsizetype at = 0;
        while (at < out.size() && (at == 0 || t.elapsed() < kSliceMs)) {
            const qsizetype end = qMin(out.size(), at + kEmitBatch);
            QList<PatternMatch> batch;
            batch.reserve(end - at);
            for (; at < end; ++at) {
                Slot &s = slot(out.at(at));
                s.queued = false;
                if (!s.key.isNull() && s.verdict >= 0)
                    batch.append(materialize(s));
            }
            if (!batch.isEmpty())
                Q_EMIT q->classified(batch);
        }
        if (at >= out.size())
            out = QList<int>();
        else
            out.remove(0, at);
        if (!out.isEmpty())
            flush->start(0);
        checkIdle();
    }

    void checkIdle()
    {
        if (busy() || idleReported)
            return;
        if (!gone.isEmpty()) {
            scheduleFlush();
            return;
        }
        // Verdicts that waited for a sibling (a library's key beside its queue's other keys)
        // are made again once the keys that arrived since are in: scan order is the server's.
        if (keysSinceRecheck > 0 && !awaitingSiblings.isEmpty()) {
            keysSinceRecheck = 0;
            const QList<int> waiting(awaitingSiblings.cbegin(), awaitingSiblings.cend());
            for (int gid : waiting) {
                if (groups.at(gid).decided)
                    decide(gid, false);
            }
            if (busy()) {
                scheduleSlice();
                return;
            }
        }
        idleReported = true;
        Q_EMIT q->idle();
    }
};

PatternIndex::PatternIndex(RedisClient *client, QObject *parent) : QObject(parent), d(new Private(this))
{
    d->client = client;
    d->classifier.setRules(&d->rules);
    d->context = new QObject(this);
    d->slice = new QTimer(this);
    d->slice->setSingleShot(true);
    d->slice->setInterval(0);
    connect(d->slice, &QTimer::timeout, this, [this] { d->runSlice(); });
    d->pace = new QTimer(this);
    d->pace->setInterval(kPaceMs);
    connect(d->pace, &QTimer::timeout, this, [this] { d->paceTick(); });
    d->flush = new QTimer(this);
    d->flush->setSingleShot(true);
    d->flush->setInterval(kFlushMs);
    connect(d->flush, &QTimer::timeout, this, [this] { d->flushNow(); });
}

PatternIndex::~PatternIndex() = default;

void PatternIndex::setRules(const PatternRules &rules)
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    d->rules = rules;
    d->classifier.setRules(&d->rules);
    d->ruleVerdicts.clear();
    d->reassign.clear();
    d->reassign.reserve(d->keyCount);
    for (int id = 0; id < d->slotCount; ++id) {
        if (!d->slot(id).key.isNull())
            d->reassign.append(d->slot(id).key);
    }
    d->reassignAt = 0;
    d->idleReported = false;
    d->scheduleSlice();
}

const PatternRules &PatternIndex::rules() const
{
    return d->rules;
}

void PatternIndex::reserve(qsizetype keys)
{
    // Growing the key table while a big scan arrives rehashes it all at once on the GUI thread.
    const qsizetype perShard = keys / Private::kShards + keys / Private::kShards / 8 + 16;
    for (QHash<QByteArray, int> &shard : d->ids) {
        if (perShard > shard.capacity())
            shard.reserve(perShard);
    }
}

void PatternIndex::addKeys(const QList<ScannedKey> &keys)
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    if (keys.isEmpty())
        return;
    d->intake += keys;
    d->idleReported = false;
    d->scheduleSlice();
}

void PatternIndex::removeKey(const QByteArray &key)
{
    d->forget(key);
}

void PatternIndex::clear()
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    delete d->context; // in-flight replies die with it
    d->context = new QObject(this);
    for (QHash<QByteArray, int> &shard : d->ids)
        shard.clear();
    d->keyCount = 0;
    d->chunks.clear();
    d->slotCount = 0;
    d->freeSlots.clear();
    d->verdicts.clear();
    d->counts.fill(0);
    d->groups.clear();
    d->awaitingSiblings.clear();
    d->keysSinceRecheck = 0;
    d->groupIds.clear();
    d->families.clear();
    d->familyIds.clear();
    d->ruleVerdicts.clear();
    d->intake.clear();
    d->intakeAt = 0;
    d->propagations.clear();
    d->reassign.clear();
    d->reassignAt = 0;
    d->wanting.clear();
    d->wantingSet.clear();
    d->out.clear();
    d->gone.clear();
    d->batchInFlight = false;
    d->commands = 0;
    d->largestBatch = 0;
    d->sampledKeys = 0;
    d->pace->stop();
    d->paceClock.invalidate();
    d->allowance = 0;
    d->flush->stop();
    d->idleReported = true;
}

std::optional<PatternMatch> PatternIndex::match(const QByteArray &key) const
{
    const int id = d->slotOf(key);
    if (id < 0)
        return std::nullopt;
    const Private::Slot &s = d->slot(id);
    if (s.verdict < 0)
        return std::nullopt;
    return d->materialize(s);
}

QList<PatternMatch> PatternIndex::matchesOf(PatternKind kind, int limit) const
{
    QList<PatternMatch> out;
    const int n = d->counts.at(size_t(kind));
    if (n == 0 || limit == 0)
        return out;
    out.reserve(limit >= 0 ? qMin(limit, n) : n);
    for (int id = 0; id < d->slotCount; ++id) {
        const Private::Slot &s = d->slot(id);
        if (s.verdict < 0 || d->verdicts.at(s.verdict).kind != kind)
            continue;
        out.append(d->materialize(s));
        if (out.size() == n || (limit >= 0 && out.size() >= limit))
            break;
    }
    return out;
}

QList<PatternMatch> PatternIndex::matchesOf(PatternKind kind, const std::function<bool(const PatternMatch &)> &keep,
                                            int limit) const
{
    QList<PatternMatch> out;
    const int n = d->counts.at(size_t(kind));
    if (n == 0 || limit == 0)
        return out;
    std::vector<qint8> kept(size_t(d->verdicts.size()), -1); // -1: not asked yet
    for (int id = 0; id < d->slotCount; ++id) {
        const Private::Slot &s = d->slot(id);
        if (s.verdict < 0 || d->verdicts.at(s.verdict).kind != kind)
            continue;
        qint8 &k = kept[size_t(s.verdict)];
        if (k < 0)
            k = keep(d->materialize(s)) ? 1 : 0;
        if (k == 0)
            continue;
        out.append(d->materialize(s));
        if (limit >= 0 && out.size() >= limit)
            break;
    }
    return out;
}

QList<PatternMatch> PatternIndex::matches() const
{
    QList<PatternMatch> out;
    out.reserve(d->keyCount);
    for (int id = 0; id < d->slotCount; ++id) {
        const Private::Slot &s = d->slot(id);
        if (s.verdict >= 0)
            out.append(d->materialize(s));
    }
    return out;
}

int PatternIndex::count(PatternKind kind) const
{
    return d->counts.at(size_t(kind));
}

int PatternIndex::size() const
{
    return d->keyCount;
}

bool PatternIndex::isIdle() const
{
    return !d->busy();
}

void PatternIndex::setMaxCommandsPerSecond(int commandsPerSecond)
{
    d->maxCps = commandsPerSecond <= 0 ? 0 : qMax(10, commandsPerSecond);
}

int PatternIndex::maxCommandsPerSecond() const
{
    return d->maxCps;
}

int PatternIndex::largestSampleBatch() const
{
    return d->largestBatch;
}

qint64 PatternIndex::sampleCommandCount() const
{
    return d->commands;
}

int PatternIndex::sampledKeyCount() const
{
    return d->sampledKeys;
}
