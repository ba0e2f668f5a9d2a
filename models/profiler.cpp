// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler.h"

#include "bytesescape.h"
#include "commandkeys.h"
#include "redisvalue.h"
#include "serverinfo.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace profiler {

namespace {

constexpr double kSeriesBucketSecs = 30;
constexpr double kSeriesMaxAgeSecs = 6 * 3600;

template <typename T, typename Key> QList<T> sortedTop(QList<T> list, int n, Key key)
{
    std::sort(list.begin(), list.end(), [&](const T &a, const T &b) {
        const auto ka = key(a), kb = key(b);
        return ka != kb ? ka > kb : a.name < b.name;
    });
    if (n >= 0 && list.size() > n)
        list.resize(n);
    return list;
}

QByteArray topOf(const QHash<QByteArray, qint64> &counts)
{
    QByteArray best;
    qint64 most = -1;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
        if (it.value() > most || (it.value() == most && it.key() < best)) {
            most = it.value();
            best = it.key();
        }
    }
    return best;
}

} // namespace

QHash<QByteArray, CommandCounters> parseCommandStats(const ServerInfo &info)
{
    QHash<QByteArray, CommandCounters> out;
    for (const ServerInfo::Field &f : info.fields()) {
        if (!f.name.startsWith("cmdstat_"))
            continue;
        CommandCounters c;
        bool haveCalls = false;
        for (const auto &[name, value] : ServerInfo::subfields(f.value)) {
            bool ok = false;
            const qint64 v = value.toLongLong(&ok);
            if (!ok)
                continue;
            if (name == "calls") {
                c.calls = v;
                haveCalls = true;
            } else if (name == "usec") {
                c.usec = v;
            } else if (name == "rejected_calls") {
                c.rejected = v;
            } else if (name == "failed_calls") {
                c.failed = v;
            }
        }
        if (haveCalls)
            out.insert(f.name.mid(8).toLower(), c);
    }
    return out;
}

double CommandRate::change() const
{
    if (sessionCallsPerSec <= 0)
        return std::numeric_limits<double>::quiet_NaN();
    return callsPerSec / sessionCallsPerSec - 1.0;
}

bool CommandStatsTracker::wentDown(const CommandStatsSample &sample) const
{
    if (!sample.runId.isEmpty() && !m_previous.runId.isEmpty() && sample.runId != m_previous.runId)
        return true;
    for (auto it = m_previous.commands.cbegin(); it != m_previous.commands.cend(); ++it) {
        const auto now = sample.commands.constFind(it.key());
        // CONFIG RESETSTAT drops every line; a command that has run never leaves otherwise.
        if (now == sample.commands.cend())
            return true;
        if (now->calls < it->calls || now->usec < it->usec || (it->failed >= 0 && now->failed < it->failed)
            || (it->rejected >= 0 && now->rejected < it->rejected))
            return true;
    }
    return false;
}

CommandStatsTracker::Outcome CommandStatsTracker::apply(const CommandStatsSample &sample)
{
    Outcome o;
    if (m_readings == 0) {
        m_previous = sample;
        m_readings = 1;
        o.first = true;
        return o;
    }
    // Two readings may come within a millisecond of each other: the steady clock tells them apart.
    const bool monotonic = sample.monotonicUs >= 0 && m_previous.monotonicUs >= 0;
    const double dt = monotonic ? double(sample.monotonicUs - m_previous.monotonicUs) / 1e6
                                : double(sample.atMs - m_previous.atMs) / 1000.0;
    if (dt <= 0) {
        o.ignored = true;
        return o;
    }
    ++m_readings;
    const double t = double(sample.atMs) / 1000.0;
    o.intervalSecs = dt;
    o.reset = wentDown(sample);
    m_totalCallsPerSec = 0;
    m_totalUsecPerSec = 0;
    m_intervalUsecAll = 0;

    if (o.reset) {
        // The counters started again somewhere in the interval: what they hold now happened in
        // the session, but over an unknown part of the interval, so it gives no rate.
        ++m_resets;
        m_lastResetMs = sample.atMs;
        m_hasRates = false;
        m_intervalSecs = 0;
        for (auto it = m_session.begin(); it != m_session.end(); ++it)
            it->interval = CommandCounters{0, 0, -1, -1};
        for (auto it = m_series.begin(); it != m_series.end(); ++it)
            it->appendBreak(t);
        for (auto it = sample.commands.cbegin(); it != sample.commands.cend(); ++it) {
            Session &s = m_session[it.key()];
            s.calls += it->calls;
            s.usec += it->usec;
            if (it->failed >= 0)
                s.failed = qMax<qint64>(0, s.failed) + it->failed;
            if (it->rejected >= 0)
                s.rejected = qMax<qint64>(0, s.rejected) + it->rejected;
            m_sessionCallsAll += it->calls;
            m_sessionUsecAll += it->usec;
        }
        m_previous = sample;
        return o;
    }

    m_sessionSecs += dt;
    m_intervalSecs = dt;
    m_hasRates = true;
    for (auto it = m_session.begin(); it != m_session.end(); ++it)
        it->interval = CommandCounters{0, 0, -1, -1};
    for (auto it = sample.commands.cbegin(); it != sample.commands.cend(); ++it) {
        const CommandCounters before = m_previous.commands.value(it.key());
        CommandCounters d;
        d.calls = it->calls - before.calls;
        d.usec = it->usec - before.usec;
        if (it->failed >= 0)
            d.failed = it->failed - qMax<qint64>(0, before.failed);
        if (it->rejected >= 0)
            d.rejected = it->rejected - qMax<qint64>(0, before.rejected);
        Session &s = m_session[it.key()];
        s.interval = d;
        s.calls += d.calls;
        s.usec += d.usec;
        if (d.failed >= 0)
            s.failed = qMax<qint64>(0, s.failed) + d.failed;
        if (d.rejected >= 0)
            s.rejected = qMax<qint64>(0, s.rejected) + d.rejected;
        m_sessionCallsAll += d.calls;
        m_sessionUsecAll += d.usec;
        m_totalCallsPerSec += double(d.calls) / dt;
        m_totalUsecPerSec += double(d.usec) / dt;
        m_intervalUsecAll += d.usec;
    }
    // A line per command that has been called in the session, 0 while it is not called.
    for (auto it = m_session.cbegin(); it != m_session.cend(); ++it) {
        if (it->calls == 0)
            continue;
        auto series = m_series.find(it.key());
        if (series == m_series.end())
            series = m_series.insert(it.key(), TimeSeries(kRawPoints, kSeriesBucketSecs, kSeriesMaxAgeSecs));
        series->append(t, double(it->interval.calls) / dt);
    }
    m_previous = sample;
    return o;
}

void CommandStatsTracker::clear()
{
    *this = CommandStatsTracker();
}

QList<CommandRate> CommandStatsTracker::rates() const
{
    QList<CommandRate> out;
    out.reserve(m_session.size());
    for (auto it = m_session.cbegin(); it != m_session.cend(); ++it) {
        const Session &s = it.value();
        // A command the server ran before the session but not in it is not the session's.
        if (s.calls == 0 && s.interval.calls == 0)
            continue;
        CommandRate r;
        r.command = it.key();
        r.totalCalls = m_previous.commands.value(it.key()).calls;
        r.sessionCalls = s.calls;
        r.sessionUsec = s.usec;
        r.sessionFailed = s.failed;
        r.sessionRejected = s.rejected;
        r.sessionAvgUsec = s.calls > 0 ? double(s.usec) / double(s.calls) : -1;
        r.sessionCallsPerSec = m_sessionSecs > 0 ? double(s.calls) / m_sessionSecs : 0;
        r.sessionTimeShare = m_sessionUsecAll > 0 ? double(s.usec) / double(m_sessionUsecAll) : 0;
        if (m_hasRates && m_intervalSecs > 0) {
            const CommandCounters &d = s.interval;
            r.callsPerSec = double(d.calls) / m_intervalSecs;
            r.usecPerSec = double(d.usec) / m_intervalSecs;
            r.avgUsec = d.calls > 0 ? double(d.usec) / double(d.calls) : -1;
            r.failedPerSec = d.failed >= 0 ? double(d.failed) / m_intervalSecs : -1;
            r.rejectedPerSec = d.rejected >= 0 ? double(d.rejected) / m_intervalSecs : -1;
            r.timeShare = m_intervalUsecAll > 0 ? double(d.usec) / double(m_intervalUsecAll) : 0;
        }
        out.append(r);
    }
    std::sort(out.begin(), out.end(), [](const CommandRate &a, const CommandRate &b) {
        if (a.callsPerSec != b.callsPerSec)
            return a.callsPerSec > b.callsPerSec;
        if (a.sessionCalls != b.sessionCalls)
            return a.sessionCalls > b.sessionCalls;
        return a.command < b.command;
    });
    return out;
}

QList<QByteArray> CommandStatsTracker::topBySessionCalls(int n) const
{
    struct Item
    {
        QByteArray name;
        qint64 v;
    };
    QList<Item> items;
    for (auto it = m_session.cbegin(); it != m_session.cend(); ++it)
        if (it->calls > 0)
            items.append({it.key(), it->calls});
    QList<QByteArray> out;
    for (const Item &i : sortedTop(items, n, [](const Item &i) { return i.v; }))
        out.append(i.name);
    return out;
}

QList<QByteArray> CommandStatsTracker::topBySessionTime(int n) const
{
    struct Item
    {
        QByteArray name;
        qint64 v;
    };
    QList<Item> items;
    for (auto it = m_session.cbegin(); it != m_session.cend(); ++it)
        if (it->usec > 0)
            items.append({it.key(), it->usec});
    QList<QByteArray> out;
    for (const Item &i : sortedTop(items, n, [](const Item &i) { return i.v; }))
        out.append(i.name);
    return out;
}

const TimeSeries *CommandStatsTracker::callsSeries(const QByteArray &command) const
{
    const auto it = m_series.constFind(command);
    return it == m_series.cend() ? nullptr : &it.value();
}

// MONITOR lines ------------------------------------------------------------------------------

namespace {

bool failWith(QString *error, const QString &why)
{
    if (error)
        *error = why;
    return false;
}

} // namespace

bool parseMonitorLine(QByteArrayView line, MonitorLine *out, QString *error)
{
    // "1700000000.123456 [0 127.0.0.1:50000] "GET" "key""
    while (!line.isEmpty() && (line.back() == '\n' || line.back() == '\r'))
        line.chop(1);
    const qsizetype space = line.indexOf(' ');
    if (space <= 0)
        return failWith(error, QStringLiteral("no time"));
    const QByteArrayView time = line.first(space);
    const qsizetype dot = time.indexOf('.');
    if (dot <= 0 || dot == time.size() - 1)
        return failWith(error, QStringLiteral("the time is not seconds.microseconds"));
    for (qsizetype i = 0; i < time.size(); ++i) {
        if (i != dot && (time[i] < '0' || time[i] > '9'))
            return failWith(error, QStringLiteral("the time is not seconds.microseconds"));
    }
    MonitorLine m;
    m.time = time.toByteArray().toDouble();

    qsizetype at = space + 1;
    if (at >= line.size() || line[at] != '[')
        return failWith(error, QStringLiteral("no [db client]"));
    ++at;
    qsizetype dbEnd = at;
    while (dbEnd < line.size() && line[dbEnd] >= '0' && line[dbEnd] <= '9')
        ++dbEnd;
    if (dbEnd == at || dbEnd >= line.size() || line[dbEnd] != ' ' || dbEnd - at > 9)
        return failWith(error, QStringLiteral("no database number"));
    m.db = line.sliced(at, dbEnd - at).toByteArray().toInt();
    at = dbEnd + 1;
    // The client ends at the first "] \"": an IPv6 address holds brackets of its own, and the
    // arguments only start after it.
    const qsizetype clientEnd = line.indexOf(QByteArrayView("] \""), at);
    if (clientEnd <= at)
        return failWith(error, QStringLiteral("no client, or no arguments"));
    m.client = line.sliced(at, clientEnd - at).toByteArray();
    at = clientEnd + 2;

    while (at < line.size()) {
        if (line[at] != '"')
            return failWith(error, QStringLiteral("an argument is not quoted at byte %1").arg(at));
        ++at;
        QByteArray arg;
        bool closed = false;
        while (at < line.size()) {
            const char c = line[at];
            if (c == '"') {
                closed = true;
                ++at;
                break;
            }
            if (c != '\\') {
                arg.append(c);
                ++at;
                continue;
            }
            if (at + 1 >= line.size())
                return failWith(error, QStringLiteral("a backslash ends the line"));
            const char e = line[at + 1];
            at += 2;
            switch (e) {
            case '\\': arg.append('\\'); break;
            case '"': arg.append('"'); break;
            case 'n': arg.append('\n'); break;
            case 'r': arg.append('\r'); break;
            case 't': arg.append('\t'); break;
            case 'a': arg.append('\a'); break;
            case 'b': arg.append('\b'); break;
            case 'x': {
                const int hi = at < line.size() ? bytesescape::hexValue(line[at]) : -1;
                const int lo = at + 1 < line.size() ? bytesescape::hexValue(line[at + 1]) : -1;
                if (hi < 0 || lo < 0)
                    return failWith(error, QStringLiteral("a \\x escape without two hex digits"));
                arg.append(char(hi * 16 + lo));
                at += 2;
                break;
            }
            default: return failWith(error, QStringLiteral("an unknown escape \\%1").arg(QLatin1Char(e)));
            }
        }
        if (!closed)
            return failWith(error, QStringLiteral("an argument is not closed"));
        m.args.append(arg);
        if (at < line.size()) {
            if (line[at] != ' ')
                return failWith(error, QStringLiteral("no space between arguments"));
            ++at;
            if (at == line.size())
                return failWith(error, QStringLiteral("a space ends the line"));
        }
    }
    if (m.args.isEmpty())
        return failWith(error, QStringLiteral("no command"));
    *out = std::move(m);
    return true;
}

namespace {

// Container commands: INFO commandstats names them with their subcommand.
const QSet<QByteArray> &containers()
{
    static const QSet<QByteArray> set{"acl",      "client",  "cluster", "command", "config",
                                      "function", "latency", "memory",  "module",  "object",
                                      "pubsub",   "script",  "slowlog", "xinfo",   "xgroup"};
    return set;
}

} // namespace

QByteArray commandName(const QList<QByteArray> &args)
{
    if (args.isEmpty())
        return {};
    QByteArray name = args.constFirst().toLower();
    if (args.size() > 1 && containers().contains(name))
        name += '|' + args.at(1).toLower();
    return name;
}

QList<QByteArray> keysOf(const QList<QByteArray> &args)
{
    QList<QByteArray> keys;
    for (const qsizetype i : commandkeys::keyPositions(args, kMaxKeysPerLine))
        keys.append(args.at(i));
    return keys;
}

void MonitorSummary::setClientNames(const QHash<QByteArray, QByteArray> &names, const QSet<QByteArray> &own)
{
    m_names = names;
    m_ownLater = own;
}

bool MonitorSummary::addLine(QByteArrayView line)
{
    MonitorLine m;
    if (!parseMonitorLine(line, &m)) {
        if (m_malformed++ == 0)
            m_firstMalformed = line.toByteArray().left(200);
        return false;
    }
    add(m);
    return true;
}

void MonitorSummary::add(const MonitorLine &line)
{
    ++m_lines;
    if (m_first == 0 || line.time < m_first)
        m_first = line.time;
    m_last = qMax(m_last, line.time);
    const QByteArray command = commandName(line.args);

    auto client = m_clients.find(line.client);
    if (client == m_clients.end() && m_clients.size() < kMaxClients)
        client = m_clients.insert(line.client, ClientAcc());
    if (client != m_clients.end()) {
        ++client->lines;
        ++client->commands[command];
    }
    if (m_own.contains(line.client)) {
        ++m_ownLines;
        return;
    }
    ++m_commands[command];
    for (const QByteArray &key : keysOf(line.args)) {
        auto k = m_keys.find(key);
        const bool isNew = k == m_keys.end();
        if (isNew && m_keys.size() < kMaxKeys)
            k = m_keys.insert(key, 0);
        if (k == m_keys.end()) {
            ++m_untrackedKeyLines;
        } else {
            ++k.value();
        }
        const QString family = familyOf(key);
        auto f = m_families.find(family);
        if (f == m_families.end() && m_families.size() < kMaxFamilies)
            f = m_families.insert(family, FamilyAcc());
        if (f == m_families.end())
            continue;
        ++f->lines;
        ++f->commands[command];
        if (k != m_keys.end()) {
            if (isNew)
                ++f->keys;
            if (k.value() > f->sampleLines) {
                f->sampleLines = k.value();
                f->sampleKey = key;
            }
        }
    }
}

void MonitorSummary::clear()
{
    *this = MonitorSummary();
}

QList<MonitorSummary::Count> MonitorSummary::topCommands(int n) const
{
    QList<Count> all;
    all.reserve(m_commands.size());
    for (auto it = m_commands.cbegin(); it != m_commands.cend(); ++it)
        all.append({it.key(), it.value()});
    return sortedTop(all, n, [](const Count &c) { return c.lines; });
}

QList<MonitorSummary::Count> MonitorSummary::topKeys(int n) const
{
    QList<Count> all;
    all.reserve(m_keys.size());
    for (auto it = m_keys.cbegin(); it != m_keys.cend(); ++it)
        all.append({it.key(), it.value()});
    return sortedTop(all, n, [](const Count &c) { return c.lines; });
}

QList<MonitorSummary::Family> MonitorSummary::topFamilies(int n) const
{
    QList<Family> all;
    all.reserve(m_families.size());
    for (auto it = m_families.cbegin(); it != m_families.cend(); ++it) {
        Family f;
        f.family = it.key();
        f.lines = it->lines;
        f.keys = it->keys;
        f.sampleKey = it->sampleKey;
        f.topCommand = topOf(it->commands);
        f.kind = it->kind;
        f.kindReason = it->kindReason;
        f.kindKnown = it->kindKnown;
        all.append(f);
    }
    std::sort(all.begin(), all.end(), [](const Family &a, const Family &b) {
        return a.lines != b.lines ? a.lines > b.lines : a.family < b.family;
    });
    if (n >= 0 && all.size() > n)
        all.resize(n);
    return all;
}

QList<MonitorSummary::Client> MonitorSummary::topClients(int n) const
{
    QList<Client> all;
    all.reserve(m_clients.size());
    for (auto it = m_clients.cbegin(); it != m_clients.cend(); ++it) {
        Client c;
        c.addr = it.key();
        c.name = m_names.value(it.key());
        c.lines = it->lines;
        c.own = m_own.contains(it.key()) || m_ownLater.contains(it.key());
        c.topCommand = topOf(it->commands);
        all.append(c);
    }
    std::sort(all.begin(), all.end(), [](const Client &a, const Client &b) {
        return a.lines != b.lines ? a.lines > b.lines : a.addr < b.addr;
    });
    if (n >= 0 && all.size() > n)
        all.resize(n);
    return all;
}

void MonitorSummary::setFamilyKind(const QString &family, PatternKind kind, const QString &reason)
{
    const auto it = m_families.find(family);
    if (it == m_families.end())
        return;
    it->kind = kind;
    it->kindReason = reason;
    it->kindKnown = true;
}

// Hot keys -----------------------------------------------------------------------------------

void TopKeys::add(const QByteArray &key, qint64 value)
{
    ++m_added;
    if (m_top.size() == m_n && value <= m_top.constLast().value)
        return;
    // A key read twice (a SCAN may return it again) keeps its latest value.
    for (qsizetype i = 0; i < m_top.size(); ++i) {
        if (m_top.at(i).key == key) {
            m_top.removeAt(i);
            break;
        }
    }
    HotKey h;
    h.key = key;
    h.value = value;
    const auto at = std::upper_bound(m_top.begin(), m_top.end(), h, [](const HotKey &a, const HotKey &b) {
        return a.value != b.value ? a.value > b.value : a.key < b.key;
    });
    m_top.insert(at, h);
    if (m_top.size() > m_n)
        m_top.removeLast();
}

void TopKeys::clear()
{
    m_top.clear();
    m_added = 0;
}

QList<HotKey> TopKeys::top() const
{
    QList<HotKey> out = m_top;
    for (HotKey &h : out)
        h.family = familyOf(h.key);
    return out;
}

HotkeysReport parseHotkeysGet(const RedisValue &reply)
{
    HotkeysReport r;
    if (!reply.isArray() || reply.size() == 0)
        return r;
    // A cluster-aware reply may wrap one node's map in an array of one.
    const RedisValue &map = reply.size() == 1 && reply.at(0).isArray() ? reply.at(0) : reply;
    auto keysOfList = [](const RedisValue &list) {
        QList<HotKey> out;
        for (qsizetype i = 0; i + 1 < list.size(); i += 2) {
            HotKey h;
            h.key = list.at(i).bytes();
            h.value = list.at(i + 1).toInteger();
            h.family = familyOf(h.key);
            out.append(h);
        }
        return out;
    };
    for (qsizetype i = 0; i + 1 < map.size(); i += 2) {
        const QByteArray name = map.at(i).bytes();
        const RedisValue &v = map.at(i + 1);
        r.present = true;
        if (name == "tracking-active")
            r.active = v.toInteger() != 0;
        else if (name == "collection-start-time-unix-ms")
            r.startMs = v.toInteger();
        else if (name == "collection-duration-ms")
            r.durationMs = v.toInteger();
        else if (name == "by-cpu-time-us")
            r.byCpuUs = keysOfList(v);
        else if (name == "by-net-bytes")
            r.byNetBytes = keysOfList(v);
    }
    return r;
}

} // namespace profiler
