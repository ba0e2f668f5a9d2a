// SPDX-License-Identifier: GPL-3.0-or-later
#include "serverinfo.h"

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
