// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMetaType>
#include <QString>

class RedisValue;

// One entry of SLOWLOG GET. Arguments are what the server kept: it logs at most 32 of them
// (the 32nd becomes "... (N more arguments)") and cuts strings longer than 128 bytes to their
// first 128 bytes plus "... (N more bytes)". Both markers are recognised on parsing, so a
// shortened argument is never mistaken for real key bytes.
struct SlowlogEntry
{
    qint64 id = -1;
    qint64 timestamp = 0; // seconds since the epoch, server clock
    qint64 durationUs = 0;
    // Real arguments only (the "more arguments" marker is removed); a shortened argument holds
    // only the bytes the server kept.
    QList<QByteArray> args;
    // Empty when no argument was shortened, otherwise one per argument: the bytes left out.
    QList<qint64> argMissingBytes;
    qint64 moreArguments = 0; // arguments the server did not log at all
    QByteArray clientAddress; // empty before Redis 4.0
    QByteArray clientName;
    bool truncated = false; // any argument or the argument list was shortened

    bool isArgumentComplete(qsizetype i) const
    {
        return i >= 0 && i < args.size() && (argMissingBytes.isEmpty() || argMissingBytes.at(i) == 0);
    }
    qint64 originalArgumentCount() const { return args.size() + moreArguments; }
    // Upper-case command name; for commands with subcommands the pair ("CONFIG SET").
    QByteArray commandName() const;
    // Index in args of the first key argument, or -1 (no key, or it was shortened).
    int keyIndex() const;
    bool hasKey() const { return keyIndex() >= 0; }
    QByteArray key() const;

    bool operator==(const SlowlogEntry &o) const;
    bool operator!=(const SlowlogEntry &o) const { return !(*this == o); }
};
Q_DECLARE_METATYPE(SlowlogEntry)

// One poll of the slow log: SLOWLOG GET <requested> (newest first, as the server answers),
// SLOWLOG LEN right after it, and what is known about the log's configuration.
struct SlowlogPage
{
    QList<SlowlogEntry> entries; // newest first
    int requested = 0; // the count asked for
    qint64 length = -1; // SLOWLOG LEN; -1 unknown
    qint64 maxLength = -1; // slowlog-max-len; -1 unknown
    QByteArray runId; // the server's run id when known: a change means a restart
};
Q_DECLARE_METATYPE(SlowlogPage)

// slowlog-log-slower-than and slowlog-max-len as CONFIG GET reports them.
struct SlowlogConfig
{
    bool known = false; // false: CONFIG GET failed or was refused
    qint64 slowerThanUs = 10000; // negative: the slow log is off; 0: every command is logged
    qint64 maxLength = 128;
};
Q_DECLARE_METATYPE(SlowlogConfig)

// One row of LATENCY LATEST. Servers that report the sum and count of the series (Valkey 8.1)
// fill the last two; others leave -1.
struct LatencyEvent
{
    QByteArray name;
    qint64 latestTimestamp = 0; // seconds since the epoch
    qint64 latestMs = 0;
    qint64 maxMs = 0;
    qint64 sumMs = -1;
    qint64 count = -1;

    bool operator==(const LatencyEvent &o) const;
};
Q_DECLARE_METATYPE(LatencyEvent)

// One point of LATENCY HISTORY <event>.
struct LatencySample
{
    qint64 timestamp = 0; // seconds since the epoch
    qint64 latencyMs = 0;

    bool operator==(const LatencySample &o) const { return timestamp == o.timestamp && latencyMs == o.latencyMs; }
};
Q_DECLARE_METATYPE(LatencySample)

namespace slowlog {

constexpr int kMaxLoggedArguments = 32; // SLOWLOG_ENTRY_MAX_ARGC in the server
constexpr int kMaxLoggedStringBytes = 128; // SLOWLOG_ENTRY_MAX_STRING

// The parsers return false (and a one-line reason) for an error reply or a reply whose shape
// is not the documented one. Fields a newer server adds at the end are ignored.
bool parseEntries(const RedisValue &reply, QList<SlowlogEntry> *out, QString *error = nullptr);
bool parseEntry(const RedisValue &value, SlowlogEntry *out, QString *error = nullptr);
bool parseLatencyLatest(const RedisValue &reply, QList<LatencyEvent> *out, QString *error = nullptr);
bool parseLatencyHistory(const RedisValue &reply, QList<LatencySample> *out, QString *error = nullptr);
// CONFIG GET replies (RESP2 flat array or RESP3 map): name → value.
QHash<QByteArray, QByteArray> parseConfigGet(const RedisValue &reply);
SlowlogConfig configFrom(const QHash<QByteArray, QByteArray> &config);

// "... (N more arguments)" → N, "x{128}... (N more bytes)" → 128 and N. Used by the parser;
// public so tests can hold them to the server's exact spelling.
bool parseMoreArgumentsMarker(const QByteArray &arg, qint64 *count);
bool parseShortenedString(const QByteArray &arg, qsizetype *kept, qint64 *missing);

// Index in 'args' of the first key argument of this command, or -1 when it has none
// (commandkeys::keyPositions).
int keyIndexOf(const QList<QByteArray> &args);

// The command as one line for a table: arguments escaped redis-cli style and quoted when
// needed, each cut to 'maxArgBytes' bytes and the whole to 'maxChars' characters (-1: no
// limit), with what the server left out spelled "…(+N bytes)" and "…(+N more arguments)".
QString displayText(const SlowlogEntry &entry, int maxArgBytes = -1, int maxChars = -1);

} // namespace slowlog
