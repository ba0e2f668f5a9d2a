// SPDX-License-Identifier: GPL-3.0-or-later
#include "patternbook.h"

#include <cmath>

static_assert(sizeof(void *) != 8 || sizeof(PatternBook::Slot) == 32,
              "a key's slot is part of the per-key memory budget");

namespace {

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

void PatternBook::clearBook()
{
    index.clear();
    keyCount = 0;
    chunks.clear();
    names.clear();
    slotCount = 0;
    freeSlots.clear();
    verdicts.clear();
    counts.fill(0);
    groups.clear();
    groupIds.clear();
    families.clear();
    familyIds.clear();
    out.clear();
}

int PatternBook::familyId(const QString &name)
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

int PatternBook::groupFor(int fid, const Slot &e)
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

int PatternBook::newSlot()
{
    if (!freeSlots.isEmpty())
        return freeSlots.takeLast();
    if ((size_t(slotCount) >> kChunkBits) >= chunks.size())
        chunks.emplace_back(new Slot[size_t(1) << kChunkBits]);
    return slotCount++;
}

int PatternBook::slotOf(const QByteArray &key) const
{
    return index.find(key, holdsKey());
}

int PatternBook::slotFor(const QByteArray &key, bool *created)
{
    const int id = index.findOrAdd(
        key, holdsKey(), [this] { return newSlot(); }, created);
    if (!*created)
        return id;
    ++keyCount;
    Slot &e = slot(id);
    const bool queued = e.queued; // a reused slot may still be listed in 'out'
    e = Slot();
    e.queued = queued;
    e.nameAt = names.add(key);
    return id;
}

PatternMatch PatternBook::materialize(const Slot &s) const
{
    PatternMatch m = verdicts.at(s.verdict);
    m.key = keyOf(s);
    m.type = s.type;
    m.pttlMs = s.pttl;
    return m;
}

int PatternBook::addVerdict(PatternMatch m)
{
    m.key.clear();
    verdicts.append(std::move(m));
    return int(verdicts.size() - 1);
}

PatternKind PatternBook::familyKind(const Group &g, int except) const
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

PatternContext PatternBook::contextFor(int gid) const
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

void PatternBook::queue(int id)
{
    Slot &s = slot(id);
    if (!s.queued) {
        s.queued = true;
        out.append(id);
    }
}

// Gives the slot verdict 'v'; 'classified' reports it when it reads differently.
void PatternBook::setVerdict(int id, int v)
{
    Slot &s = slot(id);
    if (s.verdict == v)
        return;
    const PatternMatch &m = verdicts.at(v);
    bool changed = true;
    if (s.verdict >= 0) {
        const PatternMatch &o = verdicts.at(s.verdict);
        changed = o.kind != m.kind || o.confidence != m.confidence || o.fromRule != m.fromRule || o.reason != m.reason;
        --counts[size_t(o.kind)];
    }
    ++counts[size_t(m.kind)];
    s.verdict = v;
    if (changed)
        queue(id);
}

void PatternBook::dropVerdict(Slot &s)
{
    if (s.verdict < 0)
        return;
    --counts[size_t(verdicts.at(s.verdict).kind)];
    s.verdict = -1;
}

void PatternBook::leaveGroup(Slot &e)
{
    if (e.group < 0)
        return;
    Group &g = groups[e.group];
    if (!e.fromRule)
        --g.live;
    e.group = -1;
}

int PatternBook::ownVerdict(const Group &g, const QByteArray &key) const
{
    if (g.own.isEmpty())
        return -1;
    return g.own.value(key, -1);
}

PatternMatch PatternBook::inherited(const Group &g) const
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
int PatternBook::inheritedIndex(int gid)
{
    Group &g = groups[gid];
    if (g.inherited < 0 || g.inheritedGeneration != g.verdictGeneration || g.inheritedSamples != g.samples.size()) {
        g.inherited = addVerdict(inherited(g));
        g.inheritedGeneration = g.verdictGeneration;
        g.inheritedSamples = g.samples.size();
    }
    return g.inherited;
}

void PatternBook::setGroupVerdict(Group &g, const PatternMatch &verdict)
{
    g.verdict = verdict;
    g.decided = true;
    ++g.verdictGeneration;
}

void PatternBook::moveToGroup(int id)
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

void PatternBook::forget(const QByteArray &key)
{
    const int id = index.take(key, holdsKey());
    if (id < 0)
        return;
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
QList<int> PatternBook::pick(int gid, int need)
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
            if (isFree(e) || e.group != gid || e.fromRule || e.inFlight || g.samples.contains(keyView(e))
                || chosen.contains(id))
                continue;
            chosen.append(id);
            break;
        }
    }
    return chosen;
}
