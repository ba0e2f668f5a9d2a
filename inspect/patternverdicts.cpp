// SPDX-License-Identifier: GPL-3.0-or-later
// What a group's samples decide, and which of its keys take that verdict. PatternIndex's
// scheduling half (patternindex.cpp) reads the samples; this half only decides.
#include "patternindex_p.h"

#include "bytesescape.h"

// The verdict of a user rule for this key, shared by the keys of its group that match it.
int PatternIndex::Private::ruleVerdict(const Slot &e)
{
    if (rules.isEmpty())
        return -1;
    const PatternRule *rule = rules.match(keyView(e), e.type);
    if (!rule)
        return -1;
    const quint64 id = (quint64(quint32(rules.indexOf(rule))) << 32) | quint32(e.group);
    const auto it = ruleVerdicts.constFind(id);
    if (it != ruleVerdicts.cend())
        return it.value();
    std::optional<PatternMatch> m = classifier.ruleMatch(keyOf(e), e.type);
    if (!m)
        return -1;
    m->family = familyName(groups.at(e.group).family);
    const int v = addVerdict(*m);
    ruleVerdicts.insert(id, v);
    return v;
}

// Gives a key its verdict: a rule, its own sample, its group's, or none yet.
void PatternIndex::Private::assign(int id)
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
    if (const int own = ownVerdict(g, keyView(e)); own >= 0) {
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

// One key's replies: it is gone, has a type now, changed type, or gets its own verdict.
void PatternIndex::Private::takeSample(const RedisReply &r, const Sampled &s)
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
        e.elements = clampElements(r.value(s.lengthAt).toInteger());
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
void PatternIndex::Private::decide(int gid, bool cascade)
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
    if (const QString note = disagreement(gid, verdict.kind); !note.isEmpty()) {
        verdict.reason += note;
        // The sampled keys that read this way say so too.
        for (auto it = g.own.begin(); it != g.own.end(); ++it) {
            PatternMatch own = verdicts.at(it.value());
            if (own.kind == verdict.kind && !own.reason.endsWith(note)) {
                own.reason += note;
                it.value() = addVerdict(own);
            }
        }
    }
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

// Keys of one family get one kind unless their structure differs; a group whose kind is not its
// family's says so, naming a key that read this way and how it differs from the family's largest
// group of the other kind: its type, whether it expires, or (same type and TTL) its value. Empty
// when the group agrees with its family or the family has no kind yet.
QString PatternIndex::Private::disagreement(int gid, PatternKind kind) const
{
    const Group &g = groups.at(gid);
    const PatternKind family = familyKind(g, gid);
    if (family == PatternKind::Unknown || kind == PatternKind::Unknown || kind == family)
        return {};
    // Only a minority disagrees: the family's other kind must hold more keys than this group.
    const Group *rest = nullptr;
    int others = 0;
    for (int other : families.at(g.family).groups) {
        const Group &o = groups.at(other);
        if (other == gid || !o.decided || o.verdict.kind != family)
            continue;
        others += o.live;
        if (!rest || o.live > rest->live)
            rest = &o;
    }
    if (others <= g.live)
        return {};
    QByteArray key;
    for (auto it = g.own.cbegin(); it != g.own.cend() && key.isEmpty(); ++it) {
        if (verdicts.at(it.value()).kind == kind)
            key = it.key();
    }
    if (key.isEmpty() && !g.samples.isEmpty())
        key = g.samples.cbegin().key();
    if (key.isEmpty() || !rest)
        return {};
    const KeySample &mine = g.samples.value(key);
    const bool expires = mine.pttlMs >= 0;
    const bool restExpires = !rest->samples.isEmpty() && rest->samples.cbegin()->pttlMs >= 0;
    QString how;
    if (rest->type != g.type)
        how = QStringLiteral("is a %1, the others %2").arg(keyTypeName(g.type), keyTypeName(rest->type));
    else if (expires != restExpires)
        how = expires ? QStringLiteral("expires, the others do not") : QStringLiteral("has no TTL, the others expire");
    else
        how = QStringLiteral("holds another kind of value");
    return QStringLiteral("; unlike the rest of %1 (%2): %3 %4")
        .arg(familyName(g.family), patternKindName(family), bytesescape::quoteIfNeeded(key), how);
}

// The type alone decides (no reads): one key of the group stands for all.
void PatternIndex::Private::decideByType(int gid)
{
    Group &g = groups[gid];
    KeySample s;
    s.type = g.type;
    bool found = false;
    for (int id : std::as_const(g.keys)) {
        if (!isFree(slot(id))) {
            s.key = keyOf(slot(id));
            s.pttlMs = slot(id).pttl;
            found = true;
            break;
        }
    }
    if (!found)
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
void PatternIndex::Private::revisitSiblings(int gid)
{
    const QList<int> siblings = families.at(groups.at(gid).family).groups;
    for (int other : siblings) {
        if (other == gid)
            continue;
        Group &o = groups[other];
        if (o.type == KeyType::Unknown)
            decideUntyped(other);
        // A sibling of another kind says how it differs once the family has a kind.
        else if (o.decided
                 && (o.verdict.kind == PatternKind::Unknown || o.verdict.confidence < 60
                     || o.verdict.kind != groups.at(gid).verdict.kind))
            decide(other, false);
    }
}

// Keys of unknown type: a few have their TYPE read and move to typed groups; the rest take
// the family's verdict once one exists.
void PatternIndex::Private::decideUntyped(int gid)
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
