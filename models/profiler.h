// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "patterns.h"
#include "timeseries.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QHash>
#include <QList>
#include <QSet>
#include <QString>

class RedisValue;
class ServerInfo;

// What the Profiler shows, with no I/O: command rates and latencies from two readings of
// INFO commandstats, and the summary of a bounded MONITOR capture.
namespace profiler {

// One cmdstat_ line: "cmdstat_get:calls=3,usec=12,usec_per_call=4.00,rejected_calls=0,failed_calls=0".
struct CommandCounters
{
    qint64 calls = 0;
    qint64 usec = 0;
    qint64 rejected = -1; // 7.0+; -1 on older servers
    qint64 failed = -1; // 7.0+
};

// A reading of INFO commandstats: command (lower case, "client|list") → its counters.
struct CommandStatsSample
{
    qint64 atMs = 0; // when the reply arrived, for the chart
    qint64 monotonicUs = -1; // the same on a steady clock, for the interval; -1: use atMs
    QByteArray runId; // INFO server's run_id: a new one is a restart
    QHash<QByteArray, CommandCounters> commands;
};

// The Commandstats section of an INFO reply (or the whole reply: other lines are skipped).
QHash<QByteArray, CommandCounters> parseCommandStats(const ServerInfo &info);

// One command over the last interval between two readings and over the session (every reading
// since the first).
struct CommandRate
{
    QByteArray command;
    // The last interval; 0 when the command was not called in it.
    double callsPerSec = 0;
    double usecPerSec = 0; // server time: 1e6 is one core busy with this command
    double avgUsec = -1; // delta usec / delta calls; -1 without calls
    double failedPerSec = -1; // -1 when the server does not count them (before 7.0)
    double rejectedPerSec = -1;
    double timeShare = 0; // of every command's server time in the interval, 0..1
    // The session.
    qint64 sessionCalls = 0;
    qint64 sessionUsec = 0;
    qint64 sessionFailed = -1;
    qint64 sessionRejected = -1;
    double sessionCallsPerSec = 0;
    double sessionAvgUsec = -1;
    double sessionTimeShare = 0;
    qint64 totalCalls = 0; // the server's counter (since its start or its last CONFIG RESETSTAT)

    // The last interval's rate against the session's average rate: +0.5 is half again as many
    // calls per second as on average; NaN when the session has no rate yet.
    double change() const;
};

// Readings in, rates out. A reading whose counters went down (CONFIG RESETSTAT, a restart: a
// command missing, fewer calls or less time than before, another run_id) restarts the deltas:
// that interval has no rate (its length before the reset is unknown), the session keeps what
// happened since the reset, and the chart breaks its lines there. No rate is ever negative.
class CommandStatsTracker
{
public:
    // The chart's history per command: exact for kRawPoints readings, then 30 s means, kept 6 h.
    static constexpr int kRawPoints = 900;

    struct Outcome
    {
        bool first = false; // the first reading: the base, no rates yet
        bool reset = false; // the counters went down: the deltas start again from this reading
        bool ignored = false; // not after the previous reading in time
        double intervalSecs = 0;
    };
    Outcome apply(const CommandStatsSample &sample);
    void clear();

    bool hasRates() const { return m_hasRates; }
    int readings() const { return m_readings; }
    int resets() const { return m_resets; }
    qint64 lastResetMs() const { return m_lastResetMs; }
    double sessionSecs() const { return m_sessionSecs; }
    double intervalSecs() const { return m_intervalSecs; }
    qint64 lastAtMs() const { return m_previous.atMs; }

    // Every command run in the session, the last interval's busiest first (then by session calls).
    QList<CommandRate> rates() const;
    // The whole server over the last interval and the session.
    double totalCallsPerSec() const { return m_totalCallsPerSec; }
    double totalUsecPerSec() const { return m_totalUsecPerSec; }
    qint64 sessionCalls() const { return m_sessionCallsAll; }
    qint64 sessionUsec() const { return m_sessionUsecAll; }

    // The 'n' commands with the most calls over the session, most first.
    QList<QByteArray> topBySessionCalls(int n) const;
    QList<QByteArray> topBySessionTime(int n) const;
    // Calls per second of one command, one point per reading (a NaN-free line with breaks at
    // resets); null when the command was never seen.
    const TimeSeries *callsSeries(const QByteArray &command) const;

private:
    struct Session
    {
        qint64 calls = 0;
        qint64 usec = 0;
        qint64 failed = -1;
        qint64 rejected = -1;
        CommandCounters interval; // the last interval's deltas
    };
    bool wentDown(const CommandStatsSample &sample) const;

    CommandStatsSample m_previous;
    QHash<QByteArray, Session> m_session;
    QHash<QByteArray, TimeSeries> m_series;
    int m_readings = 0;
    int m_resets = 0;
    qint64 m_lastResetMs = 0;
    double m_sessionSecs = 0;
    double m_intervalSecs = 0;
    double m_totalCallsPerSec = 0;
    double m_totalUsecPerSec = 0;
    qint64 m_intervalUsecAll = 0;
    qint64 m_sessionCallsAll = 0;
    qint64 m_sessionUsecAll = 0;
    bool m_hasRates = false;
};

// One line of MONITOR: `1700000000.123456 [0 127.0.0.1:50000] "GET" "key"`. The client is
// "lua" for a script's commands, "unix:/path" for a Unix socket, "[::1]:50000" for IPv6.
struct MonitorLine
{
    double time = 0; // seconds since the epoch
    int db = -1;
    QByteArray client;
    QList<QByteArray> args; // unescaped; args[0] is the command as the client spelled it
};

// Parses a line exactly: arguments are quoted and escaped as sdscatrepr writes them (\" \\ \n \r
// \t \a \b \xHH). False, with a reason in 'error', for anything else.
bool parseMonitorLine(QByteArrayView line, MonitorLine *out, QString *error = nullptr);

// The command's name as INFO commandstats spells it: lower case, a container command with its
// subcommand ("config|get", "client|list").
QByteArray commandName(const QList<QByteArray> &args);

// The keys a command names (commandkeys::keyPositions), at most kMaxKeysPerLine.
constexpr int kMaxKeysPerLine = 64;
QList<QByteArray> keysOf(const QList<QByteArray> &args);

// What a capture saw, summed as the lines arrive (a capture never keeps its lines).
class MonitorSummary
{
public:
    // Tracked one by one up to these; beyond, a line counts in the totals and in "other".
    static constexpr int kMaxKeys = 50000;
    static constexpr int kMaxFamilies = 5000;
    static constexpr int kMaxClients = 5000;

    struct Count
    {
        QByteArray name;
        qint64 lines = 0;
    };
    struct Family
    {
        QString family; // familyOf(key)
        qint64 lines = 0; // keys of the family named (a line that names three counts three)
        int keys = 0; // distinct keys seen (while keys were still tracked)
        QByteArray sampleKey; // the family's busiest key
        QByteArray topCommand;
        PatternKind kind = PatternKind::Unknown;
        QString kindReason; // the classifier's one line on the family's busiest key
        bool kindKnown = false; // set by setFamilyKind
    };
    struct Client
    {
        QByteArray addr; // as the line says it; "lua" for scripts
        QByteArray name; // CLIENT LIST's name for that address, when known
        qint64 lines = 0;
        bool own = false; // a RedisLens connection
        QByteArray topCommand;
    };

    // Addresses of RedisLens's own connections: their lines are counted apart (ownLines()) and
    // left out of commands, families and keys. Set before the lines arrive.
    void setOwnClients(const QSet<QByteArray> &addrs) { m_own = addrs; }
    // Client names by address (CLIENT LIST), for the clients table; 'own' marks more addresses
    // as RedisLens's (connections made during the capture).
    void setClientNames(const QHash<QByteArray, QByteArray> &names, const QSet<QByteArray> &own = {});

    // Parses and adds one line; false (and counted as malformed) when it does not parse.
    bool addLine(QByteArrayView line);
    void add(const MonitorLine &line);
    void clear();

    qint64 lines() const { return m_lines; } // parsed, own included
    qint64 ownLines() const { return m_ownLines; }
    qint64 malformed() const { return m_malformed; }
    double firstTime() const { return m_first; }
    double lastTime() const { return m_last; }
    QByteArray firstMalformed() const { return m_firstMalformed; }

    QList<Count> topCommands(int n) const;
    QList<Family> topFamilies(int n) const;
    QList<Client> topClients(int n) const;
    QList<Count> topKeys(int n) const;
    // What a capture learnt the family is (from its busiest key), and why.
    void setFamilyKind(const QString &family, PatternKind kind, const QString &reason = {});
    qint64 untrackedKeyLines() const { return m_untrackedKeyLines; }

private:
    struct FamilyAcc
    {
        qint64 lines = 0;
        int keys = 0;
        QByteArray sampleKey;
        qint64 sampleLines = 0;
        QHash<QByteArray, qint64> commands;
        PatternKind kind = PatternKind::Unknown;
        QString kindReason;
        bool kindKnown = false;
    };
    struct ClientAcc
    {
        qint64 lines = 0;
        QHash<QByteArray, qint64> commands;
    };

    QSet<QByteArray> m_own;
    QSet<QByteArray> m_ownLater;
    QHash<QByteArray, QByteArray> m_names;
    QHash<QByteArray, qint64> m_commands;
    QHash<QString, FamilyAcc> m_families;
    QHash<QByteArray, ClientAcc> m_clients;
    QHash<QByteArray, qint64> m_keys;
    qint64 m_lines = 0;
    qint64 m_ownLines = 0;
    qint64 m_malformed = 0;
    qint64 m_untrackedKeyLines = 0;
    double m_first = 0;
    double m_last = 0;
    QByteArray m_firstMalformed;
};

// A hot key: OBJECT FREQ's counter under an LFU policy, or HOTKEYS's CPU time (µs) or
// network bytes (Redis 8.6+).
struct HotKey
{
    QByteArray key;
    qint64 value = 0;
    QString family; // familyOf(key)
    PatternKind kind = PatternKind::Unknown;
    bool kindKnown = false;
};

// The 'n' keys with the highest values among those added, in bounded memory (n entries).
class TopKeys
{
public:
    explicit TopKeys(int n) : m_n(qMax(1, n)) { }
    void add(const QByteArray &key, qint64 value);
    void clear();
    // Highest first; ties by key.
    QList<HotKey> top() const;
    qint64 added() const { return m_added; }

private:
    int m_n;
    QList<HotKey> m_top; // sorted, highest first
    qint64 m_added = 0;
};

// HOTKEYS GET's reply (Redis 8.6+; a flat array of names and values, or a RESP3 map).
struct HotkeysReport
{
    bool present = false; // a tracking session exists (the reply was not nil or empty)
    bool active = false; // it still runs
    qint64 startMs = -1;
    qint64 durationMs = -1;
    QList<HotKey> byCpuUs; // by-cpu-time-us, busiest first
    QList<HotKey> byNetBytes; // by-net-bytes
};
HotkeysReport parseHotkeysGet(const RedisValue &reply);

} // namespace profiler
