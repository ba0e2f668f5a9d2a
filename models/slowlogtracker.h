// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "slowlog.h"

#include <QByteArray>
#include <QList>
#include <QString>

// Why an entry should not be in a live app's slow log. Diagnostic is a neutral note (DEBUG is
// somebody testing, not the app); the others are problems.
enum class SlowlogFlag : quint8 { None, Keys, Flush, BigCollection, LongScript, Diagnostic };

struct SlowlogVerdict
{
    SlowlogFlag flag = SlowlogFlag::None;
    QString reason; // one line, empty for None

    bool isProblem() const { return flag != SlowlogFlag::None && flag != SlowlogFlag::Diagnostic; }
};

namespace slowlogflags {

constexpr qint64 kBigCollectionElements = 1000; // SMEMBERS/HGETALL/LRANGE 0 -1 of this many
constexpr qint64 kBigCollectionUs = 10'000; // ... or that took this long
constexpr qint64 kLongScriptUs = 5'000; // EVAL/EVALSHA/FCALL longer than this

// The command that counts what the entry read whole, with the key: SCARD for SMEMBERS, HLEN for
// HGETALL, LLEN for LRANGE key 0 -1. Empty for every other entry.
// "850 µs", "12.3 ms", "1.25 s"
QString durationText(qint64 us);
QList<QByteArray> sizeCommand(const SlowlogEntry &entry);
// 'keySize' is the element count of the entry's key when known, else -1.
SlowlogVerdict judge(const SlowlogEntry &entry, qint64 keySize = -1);
// Short column text: "KEYS", "FLUSH", "big collection", "long script", "debug".
QString label(SlowlogFlag flag);

} // namespace slowlogflags

// Turns successive SLOWLOG GET pages into the entries not seen before. Ids grow by one per
// logged entry, so the last id seen tells what is new:
// - a page is complete when it reaches back to the last seen id, or holds the whole log (fewer
//   entries than asked for, or as many as SLOWLOG LEN, or the fetch limit). Otherwise ask again
//   with requestCount(), which grows to what the newest id says is missing.
// - entries between the last seen id and the oldest id of a complete page came and went
//   between two polls (the log wrapped): they are counted as missed.
// - ids going backwards or a new server run id mean a restart; a log shorter than the last one
//   plus what arrived means SLOWLOG RESET. Either is reported once; what was shown stays, and a
//   restart starts a new epoch because ids begin again at 0.
class SlowlogTracker
{
public:
    static constexpr int kFirstRequest = 128; // the default slowlog-max-len: one round trip
    static constexpr int kIncrementalRequest = 32;
    static constexpr int kDefaultFetchLimit = 1000;

    struct Outcome
    {
        bool complete = true; // false: ask again with requestCount() (nothing else is set)
        QList<SlowlogEntry> fresh; // oldest first
        bool reset = false;
        qint64 missed = 0;
        int epoch = 0;
    };

    // Entries fetched per poll at most; more than that between two polls count as missed.
    void setFetchLimit(int limit);
    int fetchLimit() const { return m_limit; }
    // The count for the next SLOWLOG GET.
    int requestCount() const { return m_request; }

    Outcome apply(const SlowlogPage &page);

    qint64 lastSeenId() const { return m_lastId; } // -1: none yet
    int epoch() const { return m_epoch; }
    qint64 totalMissed() const { return m_totalMissed; }
    int resetCount() const { return m_resets; }

private:
    qint64 m_lastId = -1;
    qint64 m_lastLength = -1;
    QByteArray m_runId;
    bool m_started = false;
    bool m_pendingRestart = false;
    bool m_pendingCleared = false;
    int m_epoch = 0;
    int m_request = kFirstRequest;
    int m_limit = kDefaultFetchLimit;
    qint64 m_totalMissed = 0;
    int m_resets = 0;
};
