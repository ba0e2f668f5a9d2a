// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "patternrules.h"
#include "patterns.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <functional>
#include <optional>

// What widely used client libraries write (job queues, sessions, locks, rate limiters, caches),
// as data: resources/catalogue/libraries.json, a rules file in the vocabulary of the user's
// rules.json. Each entry is a glob, a type and a kind, and its params say whose key it is:
//
//   library   "BullMQ": who writes it
//   role      "waiting", "job", "lock", "worker"…: what the key is to that library
//   queue     "{2}": the queue it belongs to, from what the glob's '*'s matched ({1} the first)
//   prefix    "{1}:{2}": what the queue's keys share
//   requires  "{1}:{2}:meta | {1}:{2}:events": a sibling that must exist (any one of them)
//   fields    "data,opts,timestamp": hash fields that must all be in the sample
//   field_glob, max_fields: every sampled field matches the glob; at most that many fields
//   contains  "\"cookie\"": bytes a string's first bytes (or one sampled list item) must hold
//
// Entries are tried in order; the first whose glob, type and conditions hold wins. A user rule
// (rules.json) with the same params is read the same way, so a user can teach RedisLens a
// library, or a custom prefix, without a new release.
class LibraryCatalogue
{
public:
    static constexpr qsizetype kMaxKeyBytes = 1024;

    // The catalogue RedisLens ships. A broken file is a build defect (tst_librarycatalogue).
    static const LibraryCatalogue &builtIn();

    bool parse(const QByteArray &json, QString *error = nullptr);
    const QList<PatternRule> &rules() const { return m_rules; }

    struct Match
    {
        const PatternRule *rule = nullptr;
        QList<QByteArray> captures;
        QString library;
        QString role;
        QByteArray queue;
        QByteArray prefix;
    };
    // The first entry that holds for this sample; 'keyKnown' answers whether a sibling exists
    // (null: required siblings count as missing).
    std::optional<Match> match(const KeySample &sample,
                               const std::function<bool(const QByteArray &key)> &keyKnown) const;

    // Whether an entry with a 'requires' fits this sample but for its siblings.
    bool awaitsSibling(const KeySample &sample) const;

    // "{1}:{2}:meta" with the captures of a match; {N} beyond them stays as written.
    static QByteArray expand(const QString &pattern, const QList<QByteArray> &captures);
    // A rule's params read back (for a user rule or a catalogue entry): library, role, queue
    // and prefix of a key that matched 'rule'.
    static Match describe(const PatternRule &rule, const QList<QByteArray> &captures);

    // The verdict of the catalogue's first matching entry, or of the structure of a job queue
    // whose library the catalogue does not know (a prefix whose keys are named for queue
    // states). Empty when neither says anything.
    std::optional<PatternMatch> classify(const KeySample &sample, const PatternContext &context) const;

    // The names of queue states that, two or more of them beside each other under one prefix,
    // make a job queue of an unknown library: "wait" → "waiting", "dead" → "dead", …
    static std::optional<QString> stateRole(const QByteArray &segment);

private:
    QList<PatternRule> m_rules;
};
