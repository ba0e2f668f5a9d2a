// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "patternrules.h"
#include "patterns.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <memory>

class RedisClient;
struct ScannedKey;

// What every scanned key is an instance of. Fed with the scanner's keys (name, type, TTL); reads
// a small, paced sample of the keys it cannot decide from the name shape alone (a few keys per
// family, not every key), classifies them with PatternClassifier and the user's rules, and
// keeps one PatternMatch per key. Panels ask it for the keys of their kinds.
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

    // Null when the key is not known (yet).
    const PatternMatch *match(const QByteArray &key) const;
    QList<PatternMatch> matchesOf(PatternKind kind, int limit = -1) const;
    QList<PatternMatch> matches() const;
    int count(PatternKind kind) const;
    bool isIdle() const;

Q_SIGNALS:
    // A batch of keys got (or changed) their verdict.
    void classified(const QList<PatternMatch> &matches);
    // Everything added so far is classified.
    void idle();

private:
    struct Private;
    std::unique_ptr<Private> d;
};
