// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// PatternIndex's private half, shared by the files it is written in: patternindex.cpp (the
// public calls and the scheduling: intake in slices, paced sample reads, batched emits) and
// patternverdicts.cpp (what a group's samples decide, and which keys take that verdict). The
// keys, groups and families themselves are the PatternBook it derives from.

#include "patternbook.h"
#include "patternindex.h"

#include "keyscanner.h"
#include "redisclient.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QSet>
#include <QTimer>

struct PatternIndex::Private : PatternBook
{
    static_assert(PatternBook::kSamplesPerGroup == PatternIndex::kSamplesPerGroup);
    static constexpr int kMaxSamples = 32; // per group, when the first samples disagree
    static constexpr int kSliceMs = 4;
    static constexpr int kPaceMs = 50;
    static constexpr int kUnpacedBatch = 1024; // commands in one sampling batch without a ceiling
    quint64 epoch = 0; // clear() counts up: slot ids of an earlier epoch mean nothing
    static constexpr int kFlushMs = 100;
    static constexpr int kEmitBatch = 4096; // matches per 'classified'

    // One key's sampling commands in a batch: where its replies stand.
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

    // A group's new verdict, handed to its keys a slice at a time from 'next' on.
    struct Propagation
    {
        int group;
        qsizetype next;
    };

    PatternIndex *q;
    QPointer<RedisClient> client;
    PatternRules rules;
    PatternClassifier classifier;
    QObject *context = nullptr; // replaced on clear(): replies for the old state are dropped
    QHash<quint64, int> ruleVerdicts; // rule index, group → verdict

    QList<ScannedKey> intake;
    qsizetype intakeAt = 0;
    QList<Propagation> propagations;
    QList<QByteArray> reassign; // after setRules
    qsizetype reassignAt = 0;
    QList<int> wanting; // groups that want samples, in order
    QSet<int> wantingSet;

    QList<QByteArray> gone;
    QTimer *slice = nullptr;
    QTimer *pace = nullptr;
    QTimer *flush = nullptr;
    QElapsedTimer paceClock;
    double allowance = 0;
    int maxCps = 2000;
    bool adaptive = false;
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

    // ---- verdicts (patternverdicts.cpp)
    // The verdict of a user rule for this key, shared by the keys of its group that match it.
    int ruleVerdict(const Slot &e);
    // Gives a key its verdict: a rule, its own sample, its group's, or none yet.
    void assign(int id);
    // One key's replies: it is gone, has a type now, changed type, or gets its own verdict.
    void takeSample(const RedisReply &r, const Sampled &s);
    // A group is decided once its samples are in: the majority's verdict goes to the rest.
    void decide(int gid, bool cascade = true);
    // The type alone decides (no reads): one key of the group stands for all.
    void decideByType(int gid);
    // Siblings decided without knowing what this family is may read differently now (a lock
    // without TTL next to locks with one), and untyped keys wait for a verdict.
    void revisitSiblings(int gid);
    QString disagreement(int gid, PatternKind kind) const;
    // Keys of unknown type: a few have their TYPE read and move to typed groups; the rest take
    // the family's verdict once one exists.
    void decideUntyped(int gid);

    // ---- scheduling (patternindex.cpp)
    void want(int gid);
    void ingest(const ScannedKey &k);
    void paceTick();
    void onSample(const RedisReply &r, const QList<Sampled> &sent);
    void scheduleSlice();
    // Work that will change verdicts is still queued or on the wire.
    bool working() const;
    void scheduleFlush();
    void runSlice();
    void flushNow();
    void checkIdle();
    bool busy() const { return working() || !out.isEmpty(); }
};
