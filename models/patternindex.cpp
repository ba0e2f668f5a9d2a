// SPDX-License-Identifier: GPL-3.0-or-later
#include "patternindex.h"

#include "keyscanner.h"
#include "redisclient.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QPointer>
#include <QSet>
#include <QTimer>
#include <QVersionNumber>

#include <cmath>

namespace {

constexpr int kMaxSamples = 32; // per group, when the first samples disagree
constexpr int kSliceMs = 4;
constexpr int kPaceMs = 50;
constexpr int kFlushMs = 100;
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

QList<double> scoresOf(const RedisValue &v, QList<QByteArray> *members)
{
    QList<double> out;
    const QList<RedisValue> &e = v.elements();
    // RESP2: member, score, member, score; RESP3: [member, score] pairs.
    if (!e.isEmpty() && e.first().isArray()) {
        for (const RedisValue &pair : e) {
            members->append(pair.at(0).bytes());
            out.append(pair.at(1).toDouble());
        }
        return out;
    }
    for (qsizetype i = 0; i + 1 < e.size(); i += 2) {
        members->append(e.at(i).bytes());
        out.append(e.at(i + 1).toDouble());
    }
    return out;
}

} // namespace

struct PatternIndex::Private
{
    struct Entry
    {
        KeyType type = KeyType::Unknown;
        qint64 pttl = ttl::kUnknown;
        qint64 elements = -1;
        int group = -1;
        bool fromRule = false;
        bool has = false;
        bool inFlight = false;
        PatternMatch match;
    };

    struct Group
    {
        QString family;
        KeyType type = KeyType::Unknown;
        QList<QByteArray> keys; // may hold keys that left the group since: checked on use
        int live = 0; // keys whose entry is in this group and not decided by a rule
        QHash<QByteArray, KeySample> samples;
        QHash<QByteArray, PatternMatch> own; // the sampled keys' own verdicts
        int inFlight = 0;
        int wanted = kSamplesPerGroup;
        quint64 picks = 0;
        int typed = 0; // untyped groups: keys whose TYPE was read (they moved on)
        bool decided = false;
        PatternMatch verdict;
    };

    struct Family
    {
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

    QHash<QByteArray, Entry> entries;
    QList<Group> groups;
    QHash<QString, int> groupIds;
    QHash<QString, Family> families;
    QList<QSet<QByteArray>> byKind = QList<QSet<QByteArray>>(kPatternKindCount);

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

    QList<PatternMatch> out;
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
    bool idleReported = true;

    explicit Private(PatternIndex *owner) : q(owner) { }

    qint64 now() const { return QDateTime::currentMSecsSinceEpoch(); }

    int groupFor(const QString &family, const Entry &e)
    {
        const QString id = family + QLatin1Char('\x1f') + QString::number(int(e.type)) + QLatin1Char('/')
            + QString::number(ttlClass(e.pttl)) + QLatin1Char('/') + QString::number(lengthClass(e.type, e.elements));
        auto it = groupIds.constFind(id);
        if (it != groupIds.cend())
            return it.value();
        Group g;
        g.family = family;
        g.type = e.type;
        groups.append(g);
        const int gid = int(groups.size() - 1);
        groupIds.insert(id, gid);
        families[family].groups.append(gid);
        return gid;
    }

    PatternKind familyKind(const Group &g, int except) const
    {
        const auto f = families.constFind(g.family);
        if (f == families.cend())
            return PatternKind::Unknown;
        QHash<int, int> weight;
        for (int gid : f->groups) {
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
        c.family = g.family;
        c.familySize = families.value(g.family).keys;
        c.familyKind = familyKind(g, gid);
        c.familyKnown = [this](const QString &f) { return families.contains(f); };
        c.keyKnown = [this](const QByteArray &k) { return entries.contains(k); };
        c.nowMs = now();
        return c;
    }

    void setMatch(const QByteArray &key, Entry &e, PatternMatch m)
    {
        m.key = key;
        m.type = e.type;
        m.pttlMs = e.pttl;
        const bool changed = !e.has || e.match.kind != m.kind || e.match.confidence != m.confidence
            || e.match.reason != m.reason || e.match.fromRule != m.fromRule;
        if (e.has && e.match.kind != m.kind)
            byKind[int(e.match.kind)].remove(key);
        byKind[int(m.kind)].insert(key);
        e.match = m;
        e.has = true;
        if (changed)
            out.append(e.match);
    }

    void want(int gid)
    {
        if (!wantingSet.contains(gid)) {
            wantingSet.insert(gid);
            wanting.append(gid);
        }
        if (!pace->isActive()) {
            paceClock.restart();
            pace->start();
        }
    }

    void leaveGroup(Entry &e)
    {
        if (e.group < 0)
            return;
        Group &g = groups[e.group];
        if (!e.fromRule)
            --g.live;
        e.group = -1;
    }

    // Gives a key its verdict: a rule, its own sample, its group's, or none yet.
    void assign(const QByteArray &key, Entry &e)
    {
        if (std::optional<PatternMatch> rule = classifier.ruleMatch(key, e.type)) {
            if (!e.fromRule && e.group >= 0)
                --groups[e.group].live;
            e.fromRule = true;
            rule->family = groups.at(e.group).family;
            setMatch(key, e, *rule);
            return;
        }
        if (e.fromRule && e.group >= 0)
            ++groups[e.group].live;
        e.fromRule = false;
        Group &g = groups[e.group];
        if (const auto own = g.own.constFind(key); own != g.own.cend()) {
            setMatch(key, e, own.value());
            return;
        }
        if (g.decided) {
            setMatch(key, e, inherited(g));
            // A group decided on its first few keys samples again once it has grown.
            if (g.samples.size() < g.wanted && g.live > 2 * qMax<qsizetype>(1, g.samples.size())
                && g.type != KeyType::Unknown)
                want(e.group);
            return;
        }
        if (e.has) {
            byKind[int(e.match.kind)].remove(key);
            e.has = false;
        }
        if (PatternClassifier::decidedByType(g.type)) {
            if (!g.decided)
                decide(e.group);
            if (groups.at(e.group).decided)
                setMatch(key, e, inherited(groups.at(e.group)));
            return;
        }
        want(e.group);
    }

    PatternMatch inherited(const Group &g) const
    {
        PatternMatch m = g.verdict;
        if (g.type == KeyType::Unknown || g.samples.isEmpty())
            return m;
        m.reason = QStringLiteral("like the %1 sampled keys of %2: %3")
                       .arg(g.samples.size())
                       .arg(g.family, g.verdict.reason);
        return m;
    }

    void ingest(const ScannedKey &k)
    {
        auto it = entries.find(k.name);
        if (it == entries.end()) {
            it = entries.insert(k.name, Entry());
            const QString family = familyOf(k.name);
            ++families[family].keys;
            it->type = k.type;
            it->pttl = k.pttlMs;
            it->elements = k.elements;
            it->group = groupFor(family, *it);
        } else {
            Entry &e = *it;
            if (k.type != KeyType::Unknown)
                e.type = k.type;
            if (k.pttlMs != ttl::kUnknown)
                e.pttl = k.pttlMs;
            if (k.elements >= 0)
                e.elements = k.elements;
            const QString family = groups.at(e.group).family;
            const int gid = groupFor(family, e);
            if (gid == e.group) {
                if (e.has)
                    e.match.pttlMs = e.pttl;
                return;
            }
            leaveGroup(e);
            e.group = gid;
            e.fromRule = false;
        }
        Entry &e = *it;
        Group &g = groups[e.group];
        g.keys.append(k.name);
        ++g.live; // assign() takes it back for a rule match
        assign(k.name, e);
    }

    void moveToGroup(const QByteArray &key, Entry &e)
    {
        const QString family = groups.at(e.group).family;
        const int gid = groupFor(family, e);
        if (gid == e.group)
            return;
        const bool rule = e.fromRule;
        leaveGroup(e);
        e.group = gid;
        groups[gid].keys.append(key);
        if (!rule)
            ++groups[gid].live;
    }

    void forget(const QByteArray &key)
    {
        auto it = entries.find(key);
        if (it == entries.end())
            return;
        Entry &e = *it;
        if (e.group >= 0) {
            Group &g = groups[e.group];
            g.samples.remove(key);
            g.own.remove(key);
            const QString family = g.family;
            leaveGroup(e);
            auto f = families.find(family);
            if (f != families.end())
                --f->keys;
        }
        if (e.has)
            byKind[int(e.match.kind)].remove(key);
        entries.erase(it);
    }

    // Picks up to 'need' keys of the group that are not sampled, spread over the group.
    QList<QByteArray> pick(int gid, int need)
    {
        Group &g = groups[gid];
        QList<QByteArray> chosen;
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
                const QByteArray &key = g.keys.at(at);
                const auto e = entries.constFind(key);
                if (e == entries.cend() || e->group != gid || e->fromRule || e->inFlight || g.samples.contains(key)
                    || chosen.contains(key))
                    continue;
                chosen.append(key);
                break;
            }
        }
        return chosen;
    }

    QList<RedisCommand> commandsFor(const QByteArray &key, const Entry &e) const
    {
        const QVersionNumber v = client ? client->facts().version : QVersionNumber();
        QList<RedisCommand> c;
        switch (e.type) {
        case KeyType::String:
            c << RedisCommand{"GETRANGE", key, "0", QByteArray::number(PatternClassifier::kHeadBytes - 1)};
            break;
        case KeyType::Hash:
            if (!v.isNull() && v >= QVersionNumber(6, 2))
                c << RedisCommand{"HRANDFIELD", key, QByteArray::number(PatternClassifier::kFields)};
            else
                c << RedisCommand{"HSCAN", key, "0", "COUNT", QByteArray::number(PatternClassifier::kFields)};
            break;
        case KeyType::Set:
            c << RedisCommand{"SRANDMEMBER", key, QByteArray::number(PatternClassifier::kMembers)};
            break;
        case KeyType::ZSet:
            c << RedisCommand{"ZRANGE", key, "0", "3", "WITHSCORES"}
              << RedisCommand{"ZRANGE", key, "-2", "-1", "WITHSCORES"};
            break;
        case KeyType::List:
            c << RedisCommand{"LRANGE", key, "0", "1"} << RedisCommand{"LRANGE", key, "-1", "-1"};
            break;
        case KeyType::Unknown: c << RedisCommand{"TYPE", key}; break;
        default: break;
        }
        // PTTL always: it tells a key that expired since the scan (-2) from an empty value.
        c << RedisCommand{"PTTL", key};
        const QByteArray length = keyTypeLengthCommand(e.type);
        if (e.elements < 0 && !length.isEmpty())
            c << RedisCommand{length, key};
        return c;
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
        allowance = qMin(allowance + double(paceClock.restart()) * maxCps / 1000.0, qMax(8.0, maxCps / 4.0));
        if (allowance < 4)
            return;
        QList<RedisCommand> cmds;
        QList<Sampled> sent;
        QList<int> done;
        for (int i = 0; i < wanting.size() && cmds.size() + 3 <= allowance; ++i) {
            const int gid = wanting.at(i);
            Group &g = groups[gid];
            const int need = g.wanted - int(g.samples.size()) - g.inFlight;
            const QList<QByteArray> keys = need > 0 ? pick(gid, need) : QList<QByteArray>();
            if (keys.isEmpty()) {
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
            for (const QByteArray &key : keys) {
                Entry &e = entries[key];
                const QList<RedisCommand> c = commandsFor(key, e);
                if (!cmds.isEmpty() && cmds.size() + c.size() > allowance)
                    break;
                const bool length = e.elements < 0 && !keyTypeLengthCommand(e.type).isEmpty();
                const int first = int(cmds.size());
                const int count = int(c.size());
                sent.append(Sampled{key, gid, e.type, first, count, first + count - (length ? 2 : 1),
                                    length ? first + count - 1 : -1});
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
            auto it = entries.find(s.key);
            if (it == entries.end())
                continue; // removed meanwhile
            Entry &e = *it;
            e.inFlight = false;
            if (!r.ok() && r.values.size() < qsizetype(s.first + s.count))
                continue; // connection trouble: picked again next time
            const RedisValue &pttl = r.value(s.pttlAt);
            if (pttl.isInteger() && pttl.toInteger() == -2) {
                gone.append(s.key);
                forget(s.key);
                continue;
            }
            if (e.group != s.group || e.type != s.type)
                continue; // moved by a rescan while in flight
            if (pttl.isInteger())
                e.pttl = pttl.toInteger();
            const RedisValue &first = r.value(s.first);
            if (s.type == KeyType::Unknown) {
                const KeyType t = keyTypeFromReply(first.bytes());
                if (t == KeyType::None) {
                    gone.append(s.key);
                    forget(s.key);
                    continue;
                }
                ++groups[s.group].typed;
                e.type = t;
                moveToGroup(s.key, e);
                assign(s.key, e);
                continue;
            }
            if (first.isError() && first.errorCode() == "WRONGTYPE") {
                e.type = KeyType::Unknown; // replaced by another type: read TYPE first
                moveToGroup(s.key, e);
                assign(s.key, e);
                continue;
            }
            if (s.lengthAt >= 0 && r.value(s.lengthAt).isInteger())
                e.elements = r.value(s.lengthAt).toInteger();
            KeySample sample;
            sample.key = s.key;
            sample.type = s.type;
            sample.pttlMs = e.pttl;
            sample.elements = e.elements;
            sample.sampled = !first.isError();
            switch (s.type) {
            case KeyType::String: sample.head = first.bytes(); break;
            case KeyType::Hash:
                if (first.isArray() && first.size() == 2 && first.at(1).isArray()) {
                    const QList<RedisValue> &kv = first.at(1).elements(); // HSCAN: cursor, [field, value…]
                    for (qsizetype i = 0; i < kv.size(); i += 2)
                        sample.members.append(kv.at(i).bytes());
                } else {
                    for (const RedisValue &f : first.elements())
                        sample.members.append(f.bytes());
                }
                break;
            case KeyType::Set:
                for (const RedisValue &m : first.elements())
                    sample.members.append(m.bytes());
                break;
            case KeyType::ZSet: {
                QList<QByteArray> members;
                QList<double> scores = scoresOf(first, &members);
                QList<QByteArray> high;
                const QList<double> highScores = scoresOf(r.value(s.first + 1), &high);
                for (qsizetype i = 0; i < high.size(); ++i) {
                    if (!members.contains(high.at(i))) {
                        members.append(high.at(i));
                        scores.append(highScores.at(i));
                    }
                }
                sample.members = members;
                sample.scores = scores;
                break;
            }
            case KeyType::List:
                for (const RedisValue &m : first.elements())
                    sample.members.append(m.bytes());
                for (const RedisValue &m : r.value(s.first + 1).elements())
                    sample.members.append(m.bytes());
                break;
            default: break;
            }
            groups[s.group].samples.insert(s.key, sample);
            ++sampledKeys;
            const PatternMatch m = classifier.classify(sample, contextFor(s.group));
            groups[s.group].own.insert(s.key, m);
            setMatch(s.key, e, m);
        }
        for (int gid : std::as_const(touched))
            decide(gid);
        scheduleFlush();
        scheduleSlice();
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
            if (PatternClassifier::decidedByType(g.type)) {
                // The type alone decides: no reads.
                KeySample s;
                s.type = g.type;
                for (const QByteArray &k : std::as_const(g.keys)) {
                    if (entries.contains(k)) {
                        s.key = k;
                        break;
                    }
                }
                if (s.key.isEmpty())
                    return;
                const auto e = entries.constFind(s.key);
                s.pttlMs = e->pttl;
                g.verdict = classifier.classify(s, contextFor(gid));
                g.decided = true;
                propagations.append({gid, 0});
                scheduleSlice();
            }
            return;
        }
        // Classify the samples again: the family may know more now (familyKind).
        const PatternContext c = contextFor(gid);
        QHash<int, int> tally;
        for (auto it = g.samples.cbegin(); it != g.samples.cend(); ++it) {
            const PatternMatch m = classifier.classify(it.value(), c);
            g.own.insert(it.key(), m);
            ++tally[int(m.kind)];
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
                auto e = entries.find(it.key());
                if (e != entries.end() && !e->fromRule)
                    setMatch(it.key(), *e, it.value());
            }
            return;
        }
        PatternMatch verdict;
        for (auto it = g.own.cbegin(); it != g.own.cend(); ++it) {
            if (int(it->kind) == best && it->confidence > verdict.confidence)
                verdict = it.value();
        }
        verdict.confidence = int(verdict.confidence * bestCount / n);
        const bool changed = !g.decided || g.verdict.kind != verdict.kind || g.verdict.reason != verdict.reason
            || g.verdict.confidence != verdict.confidence;
        g.verdict = verdict;
        g.decided = true;
        if (changed) {
            propagations.append({gid, 0});
            scheduleSlice();
        }
        if (!cascade)
            return;
        // Siblings decided without knowing what this family is may read differently now
        // (a lock without TTL next to locks with one), and untyped keys wait for a verdict.
        for (int other : families.value(g.family).groups) {
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
        for (int other : families.value(g.family).groups) {
            if (other != gid && !groups.at(other).decided && groups.at(other).live > 0)
                anyPending = true;
        }
        if (anyPending && !g.decided)
            return;
        PatternMatch verdict;
        verdict.kind = kind;
        verdict.family = g.family;
        verdict.confidence = kind == PatternKind::Unknown ? 0 : 50;
        verdict.reason = kind == PatternKind::Unknown
            ? QStringLiteral("type not read; its family shows no pattern")
            : QStringLiteral("type not read; the sampled keys of %1 are %2").arg(g.family, patternKindName(kind));
        const bool changed = !g.decided || g.verdict.kind != verdict.kind;
        g.verdict = verdict;
        g.decided = true;
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

    void scheduleFlush()
    {
        if (!out.isEmpty() && !flush->isActive())
            flush->start();
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
            intake.clear();
            intakeAt = 0;
        }
        while (!propagations.isEmpty() && t.elapsed() < kSliceMs) {
            Propagation &p = propagations.first();
            Group &g = groups[p.group];
            const qsizetype end = qMin(g.keys.size(), p.next + 512);
            for (; p.next < end; ++p.next) {
                const QByteArray &key = g.keys.at(p.next);
                auto e = entries.find(key);
                if (e == entries.end() || e->group != p.group || e->fromRule)
                    continue;
                if (const auto own = g.own.constFind(key); own != g.own.cend())
                    setMatch(key, *e, own.value());
                else
                    setMatch(key, *e, inherited(g));
            }
            if (p.next >= g.keys.size())
                propagations.removeFirst();
        }
        while (reassignAt < reassign.size() && t.elapsed() < kSliceMs) {
            const qsizetype end = qMin(reassign.size(), reassignAt + 256);
            for (; reassignAt < end; ++reassignAt) {
                auto e = entries.find(reassign.at(reassignAt));
                if (e != entries.end())
                    assign(e.key(), *e);
            }
        }
        if (reassignAt >= reassign.size()) {
            reassign.clear();
            reassignAt = 0;
        }
        if (!intake.isEmpty() || !propagations.isEmpty() || !reassign.isEmpty())
            slice->start();
        else if (!wanting.isEmpty() && !pace->isActive())
            pace->start();
        scheduleFlush();
        checkIdle();
    }

    bool busy() const
    {
        return !intake.isEmpty() || !propagations.isEmpty() || !reassign.isEmpty() || !wanting.isEmpty()
            || batchInFlight || !out.isEmpty();
    }

    void flushNow()
    {
        if (!gone.isEmpty()) {
            const QList<QByteArray> g = gone;
            gone.clear();
            Q_EMIT q->removed(g);
        }
        if (!out.isEmpty()) {
            const QList<PatternMatch> batch = out;
            out.clear();
            Q_EMIT q->classified(batch);
        }
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
    d->rules = rules;
    d->classifier.setRules(&d->rules);
    d->reassign = d->entries.keys();
    d->reassignAt = 0;
    d->idleReported = false;
    d->scheduleSlice();
}

const PatternRules &PatternIndex::rules() const
{
    return d->rules;
}

void PatternIndex::addKeys(const QList<ScannedKey> &keys)
{
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
    delete d->context; // in-flight replies die with it
    d->context = new QObject(this);
    d->entries.clear();
    d->groups.clear();
    d->groupIds.clear();
    d->families.clear();
    d->byKind = QList<QSet<QByteArray>>(kPatternKindCount);
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
    d->sampledKeys = 0;
    d->pace->stop();
    d->idleReported = true;
}

const PatternMatch *PatternIndex::match(const QByteArray &key) const
{
    const auto it = d->entries.constFind(key);
    return it != d->entries.cend() && it->has ? &it->match : nullptr;
}

QList<PatternMatch> PatternIndex::matchesOf(PatternKind kind, int limit) const
{
    QList<PatternMatch> out;
    const QSet<QByteArray> &keys = d->byKind.at(int(kind));
    for (const QByteArray &k : keys) {
        if (limit >= 0 && out.size() >= limit)
            break;
        const auto it = d->entries.constFind(k);
        if (it != d->entries.cend() && it->has)
            out.append(it->match);
    }
    return out;
}

QList<PatternMatch> PatternIndex::matches() const
{
    QList<PatternMatch> out;
    out.reserve(d->entries.size());
    for (auto it = d->entries.cbegin(); it != d->entries.cend(); ++it) {
        if (it->has)
            out.append(it->match);
    }
    return out;
}

int PatternIndex::count(PatternKind kind) const
{
    return int(d->byKind.at(int(kind)).size());
}

int PatternIndex::size() const
{
    return int(d->entries.size());
}

bool PatternIndex::isIdle() const
{
    return !d->busy();
}

void PatternIndex::setMaxCommandsPerSecond(int commandsPerSecond)
{
    d->maxCps = qMax(10, commandsPerSecond);
}

int PatternIndex::maxCommandsPerSecond() const
{
    return d->maxCps;
}

qint64 PatternIndex::sampleCommandCount() const
{
    return d->commands;
}

int PatternIndex::sampledKeyCount() const
{
    return d->sampledKeys;
}
