// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMetaType>
#include <QString>
#include <utility>

// One database line of INFO keyspace: "db0:keys=12,expires=3,avg_ttl=5000".
struct KeyspaceDb
{
    int db = 0;
    qint64 keys = 0;
    qint64 expires = 0;
    qint64 avgTtlMs = 0; // 0 when no key has a TTL
};

// The reply to INFO, parsed once: sections in server order, fields by name. Values stay
// bytes (INFO is ASCII, but a client name or a module field need not be); typed getters
// read numbers. Copyable, so the worker can hand it to models on the GUI thread.
class ServerInfo
{
public:
    struct Field
    {
        QByteArray section; // as the server spells it, without "# "
        QByteArray name;
        QByteArray value;
    };

    // Parses the bulk reply of INFO [section...]. Lines that are neither "# Section" nor
    // "name:value" are skipped; the last value wins when a name repeats.
    static ServerInfo parse(const QByteArray &text, qint64 capturedAtMs = 0);
    // Several servers read as one (a cluster's primaries): what adds up is summed (memory,
    // clients, replicas, the counters of commands, bytes, hits, misses, expired and evicted keys
    // and errors, keys and expires per database), maxmemory too when every part has a limit (else
    // 0: no limit), the fragmentation ratio is recomputed from the sums, the uptime and the last
    // save are the youngest part's, run_id joins every part's (any part's restart is a restart),
    // a failed background save wins over "ok"; anything else is the first part's. The field
    // merged_nodes (section "RedisLens") counts the parts; capturedAtMs is the latest part's.
    static ServerInfo merged(const QList<ServerInfo> &parts);
    // How many servers merged() read as this one; 0 for one server's own INFO.
    int mergedNodes() const { return int(integer("merged_nodes", 0)); }

    bool isEmpty() const { return m_fields.isEmpty(); }
    qint64 capturedAtMs() const { return m_capturedAtMs; }
    bool has(const QByteArray &name) const { return m_byName.contains(name); }
    QByteArray value(const QByteArray &name) const;
    QString text(const QByteArray &name) const { return QString::fromUtf8(value(name)); }
    // 'fallback' when missing or not a whole number.
    qint64 integer(const QByteArray &name, qint64 fallback = -1) const;
    // 'fallback' when missing or not a number.
    double real(const QByteArray &name, double fallback) const;

    const QList<Field> &fields() const { return m_fields; }
    // Every "# Section" header in server order, including empty ones (an empty keyspace
    // still has its "# Keyspace" line).
    QList<QByteArray> sections() const { return m_sections; }
    bool hasSection(const QByteArray &name) const; // case-insensitive
    QList<Field> section(const QByteArray &name) const; // case-insensitive
    // The "dbN:keys=…" lines of the Keyspace section (or of a reply without section headers).
    QList<KeyspaceDb> keyspace() const;

    // "keys=12,expires=3" → {keys: 12, expires: 3}, in order. Used by keyspace, cmdstat_*,
    // errorstat_* and latency percentiles.
    static QList<std::pair<QByteArray, QByteArray>> subfields(const QByteArray &value);

private:
    QList<Field> m_fields;
    QList<QByteArray> m_sections;
    QHash<QByteArray, qsizetype> m_byName;
    qint64 m_capturedAtMs = 0;
};
Q_DECLARE_METATYPE(ServerInfo)
