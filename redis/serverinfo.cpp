// SPDX-License-Identifier: GPL-3.0-or-later
#include "serverinfo.h"

#include <QMap>
#include <algorithm>
#include <iterator>
#include <limits>

namespace {

// The fields of merged() that add up across servers.
const char *const kSummed[] = {
    "used_memory",
    "used_memory_rss",
    "used_memory_peak",
    "used_memory_dataset",
    "connected_clients",
    "blocked_clients",
    "connected_slaves",
    "total_connections_received",
    "rejected_connections",
    "total_commands_processed",
    "instantaneous_ops_per_sec",
    "total_net_input_bytes",
    "total_net_output_bytes",
    "keyspace_hits",
    "keyspace_misses",
    "expired_keys",
    "evicted_keys",
    "total_error_replies",
    "rdb_changes_since_last_save",
    "rdb_saves",
};

// The fields of merged() whose smallest value stands for all.
const char *const kYoungest[] = {"uptime_in_seconds", "uptime_in_days", "rdb_last_save_time"};

bool isOneOf(const QByteArray &name, const char *const *begin, const char *const *end)
{
    return std::any_of(begin, end, [&name](const char *n) { return name == n; });
}

} // namespace

ServerInfo ServerInfo::parse(const QByteArray &text, qint64 capturedAtMs)
{
    ServerInfo info;
    info.m_capturedAtMs = capturedAtMs;
    QByteArray section;
    qsizetype pos = 0;
    while (pos < text.size()) {
        qsizetype end = text.indexOf('\n', pos);
        if (end < 0)
            end = text.size();
        QByteArrayView line(text.constData() + pos, end - pos);
        pos = end + 1;
        if (line.endsWith('\r'))
            line.chop(1);
        if (line.isEmpty())
            continue;
        if (line.startsWith('#')) {
            section = line.sliced(1).toByteArray().trimmed();
            if (!info.m_sections.contains(section))
                info.m_sections.append(section);
            continue;
        }
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            continue;
        Field f{section, line.first(colon).toByteArray(), line.sliced(colon + 1).toByteArray()};
        if (info.m_sections.isEmpty() || info.m_sections.constLast() != section) {
            if (!info.m_sections.contains(section))
                info.m_sections.append(section);
        }
        const auto it = info.m_byName.constFind(f.name);
        if (it != info.m_byName.constEnd()) {
            info.m_fields[*it] = std::move(f);
        } else {
            info.m_byName.insert(f.name, info.m_fields.size());
            info.m_fields.append(std::move(f));
        }
    }
    return info;
}

QByteArray ServerInfo::value(const QByteArray &name) const
{
    const auto it = m_byName.constFind(name);
    return it == m_byName.constEnd() ? QByteArray() : m_fields.at(*it).value;
}

qint64 ServerInfo::integer(const QByteArray &name, qint64 fallback) const
{
    const auto it = m_byName.constFind(name);
    if (it == m_byName.constEnd())
        return fallback;
    bool ok = false;
    const qint64 v = m_fields.at(*it).value.toLongLong(&ok);
    return ok ? v : fallback;
}

double ServerInfo::real(const QByteArray &name, double fallback) const
{
    const auto it = m_byName.constFind(name);
    if (it == m_byName.constEnd())
        return fallback;
    bool ok = false;
    const double v = m_fields.at(*it).value.toDouble(&ok);
    return ok ? v : fallback;
}

bool ServerInfo::hasSection(const QByteArray &name) const
{
    for (const QByteArray &s : m_sections)
        if (s.compare(name, Qt::CaseInsensitive) == 0)
            return true;
    return false;
}

QList<ServerInfo::Field> ServerInfo::section(const QByteArray &name) const
{
    QList<Field> out;
    for (const Field &f : m_fields)
        if (f.section.compare(name, Qt::CaseInsensitive) == 0)
            out.append(f);
    return out;
}

QList<std::pair<QByteArray, QByteArray>> ServerInfo::subfields(const QByteArray &value)
{
    QList<std::pair<QByteArray, QByteArray>> out;
    for (const QByteArray &part : value.split(',')) {
        const qsizetype eq = part.indexOf('=');
        if (eq > 0)
            out.append({part.left(eq), part.mid(eq + 1)});
    }
    return out;
}

QList<KeyspaceDb> ServerInfo::keyspace() const
{
    QList<KeyspaceDb> out;
    for (const Field &f : m_fields) {
        // Other sections may one day have a field that looks like "db0" (Redis 8's keysizes
        // section already has "db0_distrib_…").
        const bool inKeyspace = f.section.isEmpty() || f.section.compare("Keyspace", Qt::CaseInsensitive) == 0;
        if (!inKeyspace || !f.name.startsWith("db"))
            continue;
        bool ok = false;
        const int db = f.name.mid(2).toInt(&ok);
        if (!ok)
            continue;
        KeyspaceDb d;
        d.db = db;
        for (const auto &[k, v] : subfields(f.value)) {
            if (k == "keys")
                d.keys = v.toLongLong();
            else if (k == "expires")
                d.expires = v.toLongLong();
            else if (k == "avg_ttl")
                d.avgTtlMs = v.toLongLong();
        }
        out.append(d);
    }
    return out;
}

ServerInfo ServerInfo::merged(const QList<ServerInfo> &parts)
{
    if (parts.isEmpty())
        return {};
    const ServerInfo &first = parts.constFirst();
    auto all = [&parts](const QByteArray &name, auto &&combine, qint64 start) {
        qint64 out = start;
        for (const ServerInfo &p : parts)
            out = combine(out, p.integer(name, 0));
        return out;
    };
    auto mergedValue = [&](const QByteArray &name) -> QByteArray {
        if (isOneOf(name, std::begin(kSummed), std::end(kSummed)))
            return QByteArray::number(all(
                name, [](qint64 a, qint64 b) { return a + b; }, 0));
        if (isOneOf(name, std::begin(kYoungest), std::end(kYoungest)))
            return QByteArray::number(all(
                name, [](qint64 a, qint64 b) { return std::min(a, b); }, std::numeric_limits<qint64>::max()));
        if (name == "maxmemory") {
            const bool everyLimited = std::all_of(parts.begin(), parts.end(),
                                                  [](const ServerInfo &p) { return p.integer("maxmemory", 0) > 0; });
            return everyLimited ? QByteArray::number(all(
                       name, [](qint64 a, qint64 b) { return a + b; }, 0))
                                : QByteArray("0");
        }
        if (name == "aof_enabled")
            return QByteArray::number(all(
                name, [](qint64 a, qint64 b) { return std::max(a, b); }, 0));
        if (name == "run_id") {
            QList<QByteArray> ids;
            for (const ServerInfo &p : parts)
                ids.append(p.value(name));
            return ids.join(',');
        }
        if (name == "rdb_last_bgsave_status" || name == "aof_last_bgrewrite_status") {
            for (const ServerInfo &p : parts)
                if (p.has(name) && p.value(name) != "ok")
                    return p.value(name);
            return first.value(name);
        }
        return first.value(name);
    };

    ServerInfo out;
    for (const ServerInfo &p : parts)
        out.m_capturedAtMs = std::max(out.m_capturedAtMs, p.m_capturedAtMs);
    auto add = [&out](const QByteArray &section, const QByteArray &name, const QByteArray &value) {
        if (!out.m_sections.contains(section))
            out.m_sections.append(section);
        out.m_byName.insert(name, out.m_fields.size());
        out.m_fields.append(Field{section, name, value});
    };

    // Keys per database over every part: a database may be on some parts only.
    QMap<int, KeyspaceDb> dbs;
    QMap<int, double> ttlWeight; // avg_ttl × expires, for the weighted mean
    for (const ServerInfo &p : parts) {
        for (const KeyspaceDb &d : p.keyspace()) {
            KeyspaceDb &m = dbs[d.db];
            m.db = d.db;
            m.keys += d.keys;
            m.expires += d.expires;
            ttlWeight[d.db] += double(d.avgTtlMs) * double(d.expires);
        }
    }

    bool keyspaceDone = false;
    auto addKeyspace = [&](const QByteArray &section) {
        keyspaceDone = true;
        if (!out.m_sections.contains(section))
            out.m_sections.append(section);
        for (const KeyspaceDb &d : std::as_const(dbs)) {
            const qint64 avg = d.expires > 0 ? qint64(ttlWeight.value(d.db) / double(d.expires)) : 0;
            add(section, "db" + QByteArray::number(d.db),
                "keys=" + QByteArray::number(d.keys) + ",expires=" + QByteArray::number(d.expires)
                    + ",avg_ttl=" + QByteArray::number(avg));
        }
    };
    for (const QByteArray &section : first.m_sections) {
        if (section.compare("Keyspace", Qt::CaseInsensitive) == 0) {
            addKeyspace(section);
            continue;
        }
        if (!out.m_sections.contains(section))
            out.m_sections.append(section);
    }
    for (const Field &f : first.m_fields) {
        const bool inKeyspace = f.section.compare("Keyspace", Qt::CaseInsensitive) == 0
            || (f.section.isEmpty() && f.name.startsWith("db"));
        if (inKeyspace)
            continue;
        add(f.section, f.name, f.name == "mem_fragmentation_ratio" ? QByteArray() : mergedValue(f.name));
    }
    if (!keyspaceDone && !dbs.isEmpty())
        addKeyspace("Keyspace");
    const qint64 used = out.integer("used_memory", 0);
    const qint64 rss = out.integer("used_memory_rss", 0);
    if (const auto it = out.m_byName.constFind("mem_fragmentation_ratio"); it != out.m_byName.constEnd())
        out.m_fields[*it].value = used > 0 ? QByteArray::number(double(rss) / double(used), 'f', 2) : QByteArray();
    add("RedisLens", "merged_nodes", QByteArray::number(parts.size()));
    return out;
}
