// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keyidindex.h"
#include "keysampler.h"
#include "keytype.h"
#include "namearena.h"
#include "patterns.h"

#include <QByteArray>
#include <QDateTime>
#include <QHash>
#include <QList>
#include <QString>

#include <array>
#include <limits>
#include <memory>
#include <vector>

// PatternIndex's book: every key it knows, the groups and families they fall into, and the
// verdicts they share. It reads nothing and schedules nothing: PatternIndex decides what to
// sample and when, and writes what it learns here.
//
// One slot per key, in a vector, so groups list their keys as small indexes and the key table
// holds only an int. A slot's verdict is an index into 'verdicts': the keys of a group share
// one, so a million keys cost no million copies of a PatternMatch.
class PatternBook
{
public:
    static constexpr int kSamplesPerGroup = 8;

    static constexpr quint64 kNoName = ~quint64(0);

    // 32 bytes, and the name in 'names': a key costs no heap block of its own.
    struct Slot
    {
        quint64 nameAt = kNoName; // in 'names'; kNoName: a free slot
        qint64 pttl = ttl::kUnknown;
        qint32 elements = -1; // a length past 2^31 - 1 reads as that: it only picks a class
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

    // key → slot, by the key's hash (KeyIdIndex); tests set its hash function to make keys collide.
    KeyIdIndex index;
    auto holdsKey() const
    {
        return [this](int id, const QByteArray &key) {
            const Slot &s = slot(id);
            return s.nameAt != kNoName && names.equals(s.nameAt, key);
        };
    }
    // Every key's bytes, side by side; a forgotten key's stay until clearBook().
    NameArena names;
    static bool isFree(const Slot &s) { return s.nameAt == kNoName; }
    static qint32 clampElements(qint64 n)
    {
        return n > std::numeric_limits<qint32>::max() ? std::numeric_limits<qint32>::max() : qint32(n);
    }
    // The slot's key, not copied: valid until clearBook(), which also empties everything that
    // may hold such a view (groups, 'reassign', 'gone'). Copy it to keep it longer.
    QByteArray keyView(const Slot &s) const { return names.view(s.nameAt); }
    QByteArray keyOf(const Slot &s) const { return names.copy(s.nameAt); }
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
    QList<int> out; // slots whose verdict changed since the last 'classified'

    // Forgets every key, group, family and verdict.
    void clearBook();

    static qint64 now() { return QDateTime::currentMSecsSinceEpoch(); }
    const QString &familyName(int fid) const { return families.at(fid).name; }
    int slotOf(const QByteArray &key) const;
    // The key's slot; a new, empty one with the key set (and *created) when it was not known.
    int slotFor(const QByteArray &key, bool *created);
    bool known(const QByteArray &key) const { return slotOf(key) >= 0; }
    Slot &slot(int id) { return chunks[size_t(id) >> kChunkBits][size_t(id) & ((1u << kChunkBits) - 1)]; }
    const Slot &slot(int id) const { return chunks[size_t(id) >> kChunkBits][size_t(id) & ((1u << kChunkBits) - 1)]; }

    // The family's id, a new one for a name not seen before.
    int familyId(const QString &name);
    // The group of family 'fid' that a key with this type, TTL and length falls into.
    int groupFor(int fid, const Slot &e);
    int newSlot();
    // The key's PatternMatch: its verdict with its own key, type and TTL.
    PatternMatch materialize(const Slot &s) const;
    int addVerdict(PatternMatch m);
    // What the family's other decided groups are, weighted by their keys.
    PatternKind familyKind(const Group &g, int except) const;
    PatternContext contextFor(int gid) const;
    void queue(int id);
    // Gives the slot verdict 'v'; the slot goes to 'out' when the verdict reads differently.
    void setVerdict(int id, int v);
    void dropVerdict(Slot &s);
    void leaveGroup(Slot &e);
    int ownVerdict(const Group &g, const QByteArray &key) const;
    PatternMatch inherited(const Group &g) const;
    // The group's verdict as its keys read it, built once per verdict and sample count.
    int inheritedIndex(int gid);
    void setGroupVerdict(Group &g, const PatternMatch &verdict);
    // A key whose type or TTL changed moves to the group they now put it in.
    void moveToGroup(int id);
    // Drops the key; its slot is free for the next.
    void forget(const QByteArray &key);
    // Picks up to 'need' keys of the group that are not sampled, spread over the group.
    QList<int> pick(int gid, int need);
};
