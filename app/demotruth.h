// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "patterns.h"

#include <QByteArray>
#include <QList>
#include <optional>

// What the demo (demo.cpp) writes, pattern by pattern: the ground truth the classifier is measured
// against. It comes from the demo's code, never from the classifier. The globs are disjoint, so
// every demo key matches exactly one; the deliberate oddities (a lock without TTL, a lock holding
// "1", recompute locks beside cache entries, negative markers inside the cache namespaces, a
// counter left without its window TTL) keep the kind the demo gave them.
struct DemoTruthRule
{
    QByteArray glob; // Redis glob on bytes (globMatch in models/patternrules.h)
    PatternKind kind = PatternKind::Unknown; // Unknown: deliberately no pattern (binary keys, a blob)
    const char *what = ""; // which part of the demo writes it
};

QList<DemoTruthRule> demoTruth();

// The kind of a demo key, or nullopt when no rule explains it. 'matching' (optional) receives
// how many rules match: exactly one for every key the demo writes.
std::optional<PatternKind> demoTruthOf(const QByteArray &key, int *matching = nullptr);

// The findings the triage must give on the demo (redislens report --demo), each from a part of
// the demo written to show it. Nothing else may be found: the rest of the demo is done right.
struct DemoFindingTruth
{
    const char *rule; // the finding's id
    const char *what; // which part of the demo causes it
};
QList<DemoFindingTruth> demoFindings();
