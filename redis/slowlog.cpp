// SPDX-License-Identifier: GPL-3.0-or-later
#include "slowlog.h"

#include "bytesescape.h"
#include "commandkeys.h"
#include "redisvalue.h"

#include <QSet>

namespace slowlog {

// Commands logged with their subcommand, so the aggregate tells CONFIG SET from CONFIG GET.
static bool hasSubcommands(const QByteArray &upperName)
{
    static const QSet<QByteArray> containers{
        "ACL",    "CLIENT", "CLUSTER", "COMMAND", "CONFIG", "DEBUG",   "FUNCTION", "LATENCY",
        "MEMORY", "MODULE", "OBJECT",  "PUBSUB",  "SCRIPT", "SLOWLOG", "XGROUP",   "XINFO",
    };
    return containers.contains(upperName);
}

namespace {

bool fail(QString *error, const QString &why)
{
    if (error)
        *error = why;
    return false;
}

// Reads "<digits><suffix>" at 'from' up to the end of 'text'.
bool digitsThenSuffix(const QByteArray &text, qsizetype from, const char *suffix, qint64 *value)
{
    const QByteArray tail(suffix);
    if (text.size() < from + 1 + tail.size() || !text.endsWith(tail))
        return false;
    const QByteArray digits = text.mid(from, text.size() - from - tail.size());
    for (const char c : digits) {
        if (c < '0' || c > '9')
            return false;
    }
    bool ok = false;
    const qint64 v = digits.toLongLong(&ok);
    if (!ok)
        return false;
    *value = v;
    return true;
}

QByteArray argumentBytes(const RedisValue &v, bool *ok)
{
    *ok = true;
    if (v.isString())
        return v.bytes();
    if (v.isInteger())
        return QByteArray::number(v.toInteger());
    *ok = false;
    return {};
}

// Cuts at 'max' bytes without splitting a UTF-8 sequence.
QByteArray cutUtf8(const QByteArray &bytes, qsizetype max)
{
    qsizetype end = max;
    while (end > 0 && end < bytes.size() && (uchar(bytes.at(end)) & 0xc0) == 0x80)
        --end;
    return bytes.left(end);
}

} // namespace

bool parseMoreArgumentsMarker(const QByteArray &arg, qint64 *count)
{
    static const QByteArray head("... (");
    if (!arg.startsWith(head))
        return false;
    qint64 n = 0;
    if (!digitsThenSuffix(arg, head.size(), " more arguments)", &n))
        return false;
    *count = n;
    return true;
}

bool parseShortenedString(const QByteArray &arg, qsizetype *kept, qint64 *missing)
{
    // The server only shortens strings longer than 128 bytes, so the 128 bytes it kept are
    // followed by the marker; anything shorter is a real argument, whatever it says.
    static const QByteArray head("... (");
    if (arg.size() <= kMaxLoggedStringBytes || arg.indexOf(head, kMaxLoggedStringBytes) != kMaxLoggedStringBytes)
        return false;
    qint64 n = 0;
    if (!digitsThenSuffix(arg, kMaxLoggedStringBytes + head.size(), " more bytes)", &n) || n <= 0)
        return false;
    *kept = kMaxLoggedStringBytes;
    *missing = n;
    return true;
}

bool parseEntry(const RedisValue &value, SlowlogEntry *out, QString *error)
{
    if (!value.isArray() || value.size() < 4)
        return fail(error, QStringLiteral("slowlog entry is not an array of at least 4 fields"));
    SlowlogEntry e;
    bool okId = false, okTime = false, okDuration = false;
    e.id = value.at(0).toInteger(&okId);
    e.timestamp = value.at(1).toInteger(&okTime);
    e.durationUs = value.at(2).toInteger(&okDuration);
    if (!okId || !okTime || !okDuration || !value.at(0).isInteger())
        return fail(error, QStringLiteral("slowlog entry has no integer id, time or duration"));
    const RedisValue &argv = value.at(3);
    if (!argv.isArray())
        return fail(error, QStringLiteral("slowlog entry %1 has no argument array").arg(e.id));
    e.args.reserve(argv.size());
    for (const RedisValue &a : argv.elements()) {
        bool ok = false;
        e.args.append(argumentBytes(a, &ok));
        if (!ok)
            return fail(error, QStringLiteral("slowlog entry %1 has an argument that is not a string").arg(e.id));
    }
    if (e.args.size() == kMaxLoggedArguments && parseMoreArgumentsMarker(e.args.constLast(), &e.moreArguments)) {
        e.args.removeLast();
        e.truncated = true;
    }
    for (qsizetype i = 0; i < e.args.size(); ++i) {
        qsizetype kept = 0;
        qint64 missing = 0;
        if (!parseShortenedString(e.args.at(i), &kept, &missing))
            continue;
        if (e.argMissingBytes.isEmpty())
            e.argMissingBytes.fill(0, e.args.size());
        e.args[i].truncate(kept);
        e.argMissingBytes[i] = missing;
        e.truncated = true;
    }
    // Client fields arrived with Redis 4.0; older servers send four fields.
    if (value.size() >= 6) {
        e.clientAddress = value.at(4).bytes();
        e.clientName = value.at(5).bytes();
    }
    *out = std::move(e);
    return true;
}

bool parseEntries(const RedisValue &reply, QList<SlowlogEntry> *out, QString *error)
{
    if (reply.isError())
        return fail(error, QString::fromUtf8(reply.bytes()));
    if (!reply.isArray())
        return fail(error, QStringLiteral("SLOWLOG GET did not answer an array"));
    QList<SlowlogEntry> entries;
    entries.reserve(reply.size());
    for (const RedisValue &v : reply.elements()) {
        SlowlogEntry e;
        if (!parseEntry(v, &e, error))
            return false;
        entries.append(std::move(e));
    }
    *out = std::move(entries);
    return true;
}

bool parseLatencyLatest(const RedisValue &reply, QList<LatencyEvent> *out, QString *error)
{
    if (reply.isError())
        return fail(error, QString::fromUtf8(reply.bytes()));
    if (!reply.isArray())
        return fail(error, QStringLiteral("LATENCY LATEST did not answer an array"));
    QList<LatencyEvent> events;
    for (const RedisValue &v : reply.elements()) {
        if (!v.isArray() || v.size() < 4 || !v.at(0).isString())
            return fail(error, QStringLiteral("LATENCY LATEST row is not [event, time, latest, max]"));
        LatencyEvent e;
        e.name = v.at(0).bytes();
        bool ok[3] = {};
        e.latestTimestamp = v.at(1).toInteger(&ok[0]);
        e.latestMs = v.at(2).toInteger(&ok[1]);
        e.maxMs = v.at(3).toInteger(&ok[2]);
        if (!ok[0] || !ok[1] || !ok[2])
            return fail(error,
                        QStringLiteral("LATENCY LATEST row %1 has a field that is not an integer")
                            .arg(QString::fromUtf8(e.name)));
        bool extra = false;
        if (v.size() >= 6) {
            const qint64 sum = v.at(4).toInteger(&extra);
            if (extra) {
                const qint64 count = v.at(5).toInteger(&extra);
                if (extra) {
                    e.sumMs = sum;
                    e.count = count;
                }
            }
        }
        events.append(std::move(e));
    }
    *out = std::move(events);
    return true;
}

bool parseLatencyHistory(const RedisValue &reply, QList<LatencySample> *out, QString *error)
{
    if (reply.isError())
        return fail(error, QString::fromUtf8(reply.bytes()));
    if (!reply.isArray())
        return fail(error, QStringLiteral("LATENCY HISTORY did not answer an array"));
    QList<LatencySample> samples;
    samples.reserve(reply.size());
    for (const RedisValue &v : reply.elements()) {
        bool okTime = false, okMs = false;
        if (!v.isArray() || v.size() < 2)
            return fail(error, QStringLiteral("LATENCY HISTORY row is not [time, latency]"));
        LatencySample s;
        s.timestamp = v.at(0).toInteger(&okTime);
        s.latencyMs = v.at(1).toInteger(&okMs);
        if (!okTime || !okMs)
            return fail(error, QStringLiteral("LATENCY HISTORY row has a field that is not an integer"));
        samples.append(s);
    }
    *out = std::move(samples);
    return true;
}

QHash<QByteArray, QByteArray> parseConfigGet(const RedisValue &reply)
{
    QHash<QByteArray, QByteArray> out;
    if (!reply.isArray())
        return out;
    const QList<RedisValue> &e = reply.elements();
    for (qsizetype i = 0; i + 1 < e.size(); i += 2)
        out.insert(e.at(i).bytes(), e.at(i + 1).bytes());
    return out;
}

SlowlogConfig configFrom(const QHash<QByteArray, QByteArray> &config)
{
    SlowlogConfig c;
    bool okThreshold = false, okLength = false;
    const qint64 threshold = config.value("slowlog-log-slower-than").toLongLong(&okThreshold);
    const qint64 length = config.value("slowlog-max-len").toLongLong(&okLength);
    if (okThreshold && okLength) {
        c.known = true;
        c.slowerThanUs = threshold;
        c.maxLength = length;
    }
    return c;
}

int keyIndexOf(const QList<QByteArray> &args)
{
    const QList<qsizetype> keys = commandkeys::keyPositions(args, 1);
    return keys.isEmpty() ? -1 : int(keys.constFirst());
}

QString displayText(const SlowlogEntry &entry, int maxArgBytes, int maxChars)
{
    QString out;
    for (qsizetype i = 0; i < entry.args.size(); ++i) {
        if (i > 0)
            out += QLatin1Char(' ');
        const QByteArray &arg = entry.args.at(i);
        qint64 left = entry.argMissingBytes.isEmpty() ? 0 : entry.argMissingBytes.at(i);
        if (maxArgBytes >= 0 && arg.size() > maxArgBytes) {
            const QByteArray shown = cutUtf8(arg, maxArgBytes);
            left += arg.size() - shown.size();
            out += bytesescape::quoteIfNeeded(shown);
        } else {
            out += bytesescape::quoteIfNeeded(arg);
        }
        if (left > 0)
            out += QStringLiteral("…(+%1 bytes)").arg(left);
        if (maxChars >= 0 && out.size() > maxChars)
            break;
    }
    if (entry.moreArguments > 0)
        out += QStringLiteral(" …(+%1 more arguments)").arg(entry.moreArguments);
    if (maxChars >= 0 && out.size() > maxChars)
        out = out.left(qMax(0, maxChars - 1)) + QStringLiteral("…");
    return out;
}

} // namespace slowlog

QByteArray SlowlogEntry::commandName() const
{
    if (args.isEmpty())
        return {};
    const QByteArray name = args.first().toUpper();
    if (args.size() > 1 && isArgumentComplete(1) && args.at(1).size() <= 32 && slowlog::hasSubcommands(name)) {
        const QByteArray sub = args.at(1).toUpper();
        for (const char c : sub) {
            if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
                return name;
        }
        return name + ' ' + sub;
    }
    return name;
}

int SlowlogEntry::keyIndex() const
{
    const int i = slowlog::keyIndexOf(args);
    // A shortened argument is a prefix, not a key; nor is anything the server dropped.
    return isArgumentComplete(i) ? i : -1;
}

QByteArray SlowlogEntry::key() const
{
    const int i = keyIndex();
    return i >= 0 ? args.at(i) : QByteArray();
}

bool SlowlogEntry::operator==(const SlowlogEntry &o) const
{
    return id == o.id && timestamp == o.timestamp && durationUs == o.durationUs && args == o.args
        && argMissingBytes == o.argMissingBytes && moreArguments == o.moreArguments && clientAddress == o.clientAddress
        && clientName == o.clientName && truncated == o.truncated;
}

bool LatencyEvent::operator==(const LatencyEvent &o) const
{
    return name == o.name && latestTimestamp == o.latestTimestamp && latestMs == o.latestMs && maxMs == o.maxMs
        && sumMs == o.sumMs && count == o.count;
}
