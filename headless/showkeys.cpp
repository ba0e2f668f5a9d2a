// SPDX-License-Identifier: GPL-3.0-or-later
#include "showkeys.h"

#include "keyspacescan.h"
#include "keytype.h"
#include "showrequest.h"

ShowKeys::ShowKeys(const Context &context, QObject *parent)
    : PanelShow(context, parent),
      m_scan(new KeyspaceScan(m_client, m_request, m_bar, {true, false, m_request.limit}, this))
{
    for (int t = 0; t <= int(KeyType::Module); ++t) {
        const QString name = keyTypeName(KeyType(t));
        m_typeNames.append(name.isEmpty() ? QByteArrayLiteral("unknown") : name.toUtf8());
    }
    connect(m_scan, &KeyspaceScan::failed, this, &PanelShow::failed);
    connect(m_scan, &KeyspaceScan::done, this, [this] {
        m_keys = m_scan->index().keyVerdicts();
        Q_EMIT finished();
    });
}

QByteArrayView ShowKeys::utf8Of(const QString &text) const
{
    // Families and reasons are shared by every key of a group: convert each string once.
    auto it = m_utf8.constFind(text.constData());
    if (it == m_utf8.constEnd())
        it = m_utf8.insert(text.constData(), text.toUtf8());
    return QByteArrayView(*it);
}

void ShowKeys::start()
{
    m_scan->start();
}

QList<Column> ShowKeys::columns() const
{
    return {{"key", Column::Type::Text},       {"type", Column::Type::Text},
            {"ttl_ms", Column::Type::Integer}, {"pattern", Column::Type::Text},
            {"family", Column::Type::Text},    {"confidence", Column::Type::Integer},
            {"reason", Column::Type::Text},    {"from_rule", Column::Type::Boolean},
            {"library", Column::Type::Text},   {"role", Column::Type::Text}};
}

qsizetype ShowKeys::recordCount() const
{
    return m_keys.size();
}

QByteArray ShowKeys::patternId(const PatternMatch &match)
{
    if (match.kind == PatternKind::Unknown)
        return match.fromRule ? QByteArrayLiteral("none") : QByteArrayLiteral("unknown");
    return patternKindId(match.kind);
}

void ShowKeys::writeRecord(RecordWriter &w, qsizetype row) const
{
    const PatternIndex::KeyVerdict &k = m_keys.at(row);
    const PatternMatch &m = *k.verdict; // the group's: its key, type and TTL are not this key's
    w.bytes(k.key);
    w.text(QByteArrayView(m_typeNames.at(int(k.type))));
    // -1: no TTL; a TTL the scan could not read is null, never "none".
    if (k.pttlMs == ttl::kUnknown)
        w.null();
    else
        w.integer(k.pttlMs);
    w.text(QByteArrayView(patternId(m)));
    w.text(utf8Of(m.family));
    w.integer(m.confidence);
    w.text(utf8Of(m.reason));
    w.boolean(m.fromRule);
    // Where the library catalogue (or a user rule in its vocabulary) knows who wrote the key.
    for (const QLatin1String name : {QLatin1String("library"), QLatin1String("role")}) {
        const auto it = m.params.constFind(name);
        if (it == m.params.constEnd())
            w.null();
        else
            w.text(utf8Of(it->toString()));
    }
}

QJsonObject ShowKeys::coverage() const
{
    const ScanProgress &p = m_scan->progress();
    // Complete: every key of the keyspace (or of --match) is among the records.
    const bool complete
        = !m_scan->stoppedEarly() && !p.error && (m_request.limit < 0 || m_keys.size() <= m_request.limit);
    QJsonObject c{{QStringLiteral("complete"), complete},
                  {QStringLiteral("keys"), qint64(m_keys.size())},
                  {QStringLiteral("scan_returned"), qint64(p.returned)},
                  {QStringLiteral("vanished"), qint64(p.vanished)},
                  {QStringLiteral("dbsize"), p.dbsize},
                  {QStringLiteral("seconds"), p.elapsedSeconds}};
    c.insert(QStringLiteral("match"), m_request.match.isEmpty() ? QJsonValue() : QString::fromUtf8(m_request.match));
    c.insert(QStringLiteral("limit"), m_request.limit < 0 ? QJsonValue() : QJsonValue(m_request.limit));
    c.insert(QStringLiteral("sampled_keys"), m_scan->index().sampledKeyCount());
    return c;
}
