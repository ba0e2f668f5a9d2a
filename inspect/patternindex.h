// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "patternrules.h"
#include "patterns.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <functional>
#include <memory>
#include <optional>

class RedisClient;
struct ScannedKey;
struct ScanProgress;

// What every scanned key is an instance of. Fed with the scanner's keys (name, type, TTL); reads
// a small, paced sample of the keys it cannot decide from the name shape alone (a few keys per
// family, not every key), classifies them with PatternClassifier and the user's rules, and
// keeps one PatternMatch per key. Panels ask it for the keys of their kinds.
//
// Keys are grouped by family (familyOf), type, TTL class (none, ≤ 90 s, ≤ 1 h, ≤ 1 day, longer)
// and, for strings whose length the scan read, tiny (≤ 24 bytes) or not: a negative marker in a
// cache family or a lock without TTL in a lock family lands in a group of its own and is read.
// Each group reads up to kSamplesPerGroup keys, spread over the group (more when they disagree);
// the others take the group's verdict. Sampled keys keep their own verdict. Work on the GUI
// thread runs in slices of a few milliseconds. 'classified' comes in batches of a few thousand
// keys, about every 100 ms while work goes on and at once when it is done; one flush emits
// for a few milliseconds at most and leaves the rest to the next.
class PatternIndex : public QObject
{
    Q_OBJECT

public:
    explicit PatternIndex(RedisClient *client, QObject *parent = nullptr);
    ~PatternIndex() override;

    // Replaces the user rules and reclassifies what is known (no new reads for rule matches).
    void setRules(const PatternRules &rules);
    const PatternRules &rules() const;

    void addKeys(const QList<ScannedKey> &keys);
    void removeKey(const QByteArray &key);
    void clear();

    // Empty when the key is not known (yet). The keys of a group share one verdict; the
    // PatternMatch is assembled on the call.
    std::optional<PatternMatch> match(const QByteArray &key) const;
    QList<PatternMatch> matchesOf(PatternKind kind, int limit = -1) const;
    // The keys of 'kind' whose verdict passes 'keep'. Keys of a group share their verdict, so
    // 'keep' runs once per verdict, not per key: a million job hashes cost no million calls.
    QList<PatternMatch> matchesOf(PatternKind kind, const std::function<bool(const PatternMatch &)> &keep,
                                  int limit = -1) const;
    QList<PatternMatch> matches() const;
    // One key as the index holds it, its PatternMatch not assembled: 'verdict' is the one its
    // group shares, whose key, type and TTL are not this key's. Valid until the index changes.
    struct KeyVerdict
    {
        QByteArray key; // a view of the index's bytes: valid until clear()
        const PatternMatch *verdict;
        qint64 pttlMs;
        KeyType type;
    };
    // Every key with a verdict, as matches() lists them, at a fraction of the cost.
    QList<KeyVerdict> keyVerdicts() const;
    // The same for work spread over turns of the event loop: the keys with a verdict from slot
    // 'from' on, at most 'maxKeys' of them (-1: all), each with its slot; matchAt(slot) assembles
    // its PatternMatch during the call. Returns the slot to go on from, or -1 when none is left.
    // Slots keep their ids until clear(), which changes epoch(); a key removed meanwhile may
    // leave its slot to a key added later.
    int visitKeyVerdicts(int from, int maxKeys, const std::function<void(const KeyVerdict &, int slot)> &visit) const;
    PatternMatch matchAt(int slot) const;
    quint64 epoch() const;
    int count(PatternKind kind) const;
    int size() const; // keys known, classified or not
    bool isIdle() const;

    // Sampling reads are paced: at most this many commands per second (default 2000); 0 is
    // no ceiling (as --scan-rate 0): one batch of at most 1,024 commands in flight at a time;
    // kAdaptivePacing: a tenth of the key scan's ceiling as followScanPace() hears it.
    void setMaxCommandsPerSecond(int commandsPerSecond);
    void followScanPace(const ScanProgress &progress);
    int maxCommandsPerSecond() const;
    // Commands sent for samples since construction or clear(): bounded per family (a few keys
    // of each family and TTL class), not per key.
    qint64 sampleCommandCount() const;
    // The most commands one sampling batch carried: the ceiling's allowance shows in it.
    int largestSampleBatch() const;
    int sampledKeyCount() const;
    static constexpr int kSamplesPerGroup = 8;

Q_SIGNALS:
    // A batch of keys got (or changed) their verdict.
    void classified(const QList<PatternMatch> &matches);
    // Everything added so far is classified.
    void idle();
    // Keys a sample found gone (they are no longer in the index).
    void removed(const QList<QByteArray> &keys);

private:
    struct Private;
    std::unique_ptr<Private> d;
};
