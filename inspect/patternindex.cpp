// SPDX-License-Identifier: GPL-3.0-or-later
// PatternIndex's public calls and its scheduling: keys are taken in slices of a few
// milliseconds on the GUI thread, samples are read in paced batches, and verdicts are emitted
// in bounded batches. What the samples decide is in patternverdicts.cpp; the keys, groups and
// families are the PatternBook (patternbook.cpp).
#include "patternindex_p.h"
#include "scanpacer.h"
#include "threadcheck.h"

#include <QMetaMethod>
#include <QVersionNumber>

namespace {
constexpr int kScanShare = 10; // adaptive: samples get a tenth of the scan's ceiling
constexpr int kDefaultSamplesPerSecond = 2000; // the index's ceiling unless told otherwise
} // namespace

void PatternIndex::Private::want(int gid)
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

void PatternIndex::Private::ingest(const ScannedKey &k)
{
    bool created = false;
    const int id = slotFor(k.name, &created);
    if (created) {
        ++keysSinceRecheck;
        Slot &e = slot(id);
        e.type = k.type;
        e.pttl = k.pttlMs;
        e.elements = clampElements(k.elements);
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
            e.elements = clampElements(k.elements);
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

void PatternIndex::Private::paceTick()
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
    allowance
        = maxCps <= 0 ? double(kUnpacedBatch) : qMin(allowance + elapsed * maxCps / 1000.0, qMax(8.0, maxCps / 4.0));
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
            const QList<RedisCommand> c = keysampler::commands(keyOf(e), e.type, e.elements, version);
            if (!cmds.isEmpty() && cmds.size() + c.size() > allowance)
                break;
            const bool length = keysampler::readsLength(e.type, e.elements);
            const int first = int(cmds.size());
            const int count = int(c.size());
            sent.append(Sampled{keyOf(e), gid, e.type, first, count, keysampler::pttlIndex(first, count, length),
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

void PatternIndex::Private::onSample(const RedisReply &r, const QList<Sampled> &sent)
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

void PatternIndex::Private::scheduleSlice()
{
    if (!slice->isActive())
        slice->start();
}

// Work that will change verdicts is still queued or on the wire.
bool PatternIndex::Private::working() const
{
    return !intake.isEmpty() || !propagations.isEmpty() || !reassign.isEmpty() || !wanting.isEmpty() || batchInFlight;
}

void PatternIndex::Private::scheduleFlush()
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

void PatternIndex::Private::runSlice()
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
            const int own = ownVerdict(g, keyView(e));
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

void PatternIndex::Private::flushNow()
{
    if (!gone.isEmpty()) {
        const QList<QByteArray> g = gone;
        gone.clear();
        Q_EMIT q->removed(g);
    }
    if (!q->isSignalConnected(QMetaMethod::fromSignal(&PatternIndex::classified))) {
        // Nobody listens (`show keys` reads the book when the scan is done): a million keys
        // need not be assembled into matches no one reads.
        for (const int id : std::as_const(out))
            slot(id).queued = false;
        out = QList<int>();
        checkIdle();
        return;
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
            if (!isFree(s) && s.verdict >= 0)
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

void PatternIndex::Private::checkIdle()
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
    d->pace->setInterval(Private::kPaceMs);
    connect(d->pace, &QTimer::timeout, this, [this] { d->paceTick(); });
    d->flush = new QTimer(this);
    d->flush->setSingleShot(true);
    d->flush->setInterval(Private::kFlushMs);
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
        if (!Private::isFree(d->slot(id)))
            d->reassign.append(d->keyView(d->slot(id))); // cleared with the book
    }
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
    ++d->epoch;
    d->context = new QObject(this);
    d->clearBook();
    d->awaitingSiblings.clear();
    d->keysSinceRecheck = 0;
    d->ruleVerdicts.clear();
    d->intake.clear();
    d->intakeAt = 0;
    d->propagations.clear();
    d->reassign.clear();
    d->reassignAt = 0;
    d->wanting.clear();
    d->wantingSet.clear();
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

QList<PatternIndex::KeyVerdict> PatternIndex::keyVerdicts() const
{
    QList<KeyVerdict> out;
    out.reserve(d->keyCount);
    visitKeyVerdicts(0, -1, [&out](const KeyVerdict &k, int) { out.append(k); });
    return out;
}

int PatternIndex::visitKeyVerdicts(int from, int maxKeys,
                                   const std::function<void(const KeyVerdict &, int)> &visit) const
{
    int visited = 0;
    for (int id = qMax(from, 0); id < d->slotCount; ++id) {
        if (maxKeys >= 0 && visited >= maxKeys)
            return id;
        const Private::Slot &s = d->slot(id);
        if (s.verdict < 0)
            continue;
        visit({d->keyView(s), &d->verdicts.at(s.verdict), s.pttl, s.type}, id);
        ++visited;
    }
    return -1;
}

PatternMatch PatternIndex::matchAt(int slot) const
{
    return d->materialize(d->slot(slot));
}

quint64 PatternIndex::epoch() const
{
    return d->epoch;
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
    d->adaptive = commandsPerSecond == kAdaptivePacing;
    if (d->adaptive)
        commandsPerSecond = ScanPacer::kStart / kScanShare;
    d->maxCps = commandsPerSecond <= 0 ? 0 : qMax(10, commandsPerSecond);
}

void PatternIndex::followScanPace(const ScanProgress &progress)
{
    // Samples go out on the scan's connection beside the scan: a share of what the load probe
    // allows the scan, none when the scan has no ceiling.
    if (!d->adaptive || !progress.adaptive)
        return;
    if (progress.finished) // nothing measures the load any more: the index's own default
        d->maxCps = kDefaultSamplesPerSecond;
    else
        d->maxCps = progress.ceiling > 0 ? qMax(10, progress.ceiling / kScanShare) : progress.ceiling == 0 ? 0 : 10;
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
