// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keytype.h"
#include "patternrules.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

enum class QueueKind : quint8 { Queue, ProcessingList, DelayedJobs, NotAQueue };
QString queueKindName(QueueKind kind); // "queue", "processing list", "delayed jobs", "not a queue"
QByteArray queueKindId(QueueKind kind); // "queue", "processing", "delayed", "none" (the JSON file's spelling)
std::optional<QueueKind> queueKindFromId(const QByteArray &id);

// MsTimes4096: milliseconds × 4096 plus a sequence number below 4096 (BullMQ's and Bull's
// delayed sets).
enum class EpochUnit : quint8 { None, Seconds, Milliseconds, Microseconds, Nanoseconds, MsTimes4096 };
QString epochUnitName(EpochUnit unit); // "s", "ms", "µs", "ns", "ms × 4096"
// The unit when every score is an epoch time within ten years of nowMs; the test itself is
// ZSetKind's (models/zsetkind.h), so queues and geo detection never disagree.
EpochUnit detectEpochUnit(const QList<double> &scores, qint64 nowMs);
// A score in 'unit' as epoch milliseconds.
qint64 dueMsOf(double score, EpochUnit unit);
// The score an epoch time in milliseconds has in 'unit' (for ZCOUNT and ZRANGE BYSCORE bounds).
QByteArray scoreAtMs(qint64 ms, EpochUnit unit);

// The epoch time an item carries, in ms: a JSON object's enqueued_at / created_at / ts /
// timestamp / queued_at field (epoch s or ms, number or numeric string), or a leading epoch
// number ("1718000000123:payload"). 'source' says what was read ("enqueued_at (ms)").
std::optional<qint64> itemTimestampMs(const QByteArray &item, qint64 nowMs, QString *source = nullptr);

// The pattern kinds that are queues here; a user rule of another kind says "not a queue".
std::optional<QueueKind> queueKindOf(PatternKind kind);
PatternKind patternKindOf(QueueKind kind);

struct QueueClassification
{
    QueueKind kind = QueueKind::NotAQueue;
    QString reason; // one line: why
    QByteArray queue; // for a processing list: the queue it belongs to
    EpochUnit unit = EpochUnit::None; // for delayed jobs: the unit of the scores
};

// What counts as a queue, in one place. User rules (the shared rules file, ordered, first
// match wins) come before the built-in ones, which look at name segments (split on ':', '.',
// '/') and, for sorted sets, at the scores. A user rule of a kind that is not a queue kind
// (a lock, a leaderboard…) makes the key "not a queue".
class QueueRules
{
public:
    const PatternRules &userRules() const { return m_rules; }
    void setUserRules(const PatternRules &rules) { m_rules = rules; }
    void setUserRules(const QList<PatternRule> &rules) { m_rules.setRules(rules); }

    // 'scores': a sample of a sorted set's scores (lowest few and the highest), if read.
    QueueClassification classify(const QByteArray &key, KeyType type, const QList<double> *scores = nullptr,
                                 qint64 nowMs = 0) const;

    // One line per built-in rule, for the rules tab.
    static QStringList builtInDescriptions();
    static const QList<QByteArray> &queueSegments();
    static const QList<QByteArray> &processingSegments();
    static const QList<QByteArray> &delayedSegments();

private:
    PatternRules m_rules;
};
