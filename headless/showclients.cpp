// SPDX-License-Identifier: GPL-3.0-or-later
#include "showclients.h"

#include "bytesescape.h"
#include "showrequest.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTimer>

ShowClients::ShowClients(const Context &context, QObject *parent)
    : PanelShow(context, parent), m_reader(new ClientsReader(m_client, this))
{
    connect(m_reader, &ClientsReader::failed, this, &PanelShow::failed);
    connect(m_reader, &ClientsReader::readingAvailable, this, [this](const ClientsReading &r) {
        if (!r.error.isEmpty()) {
            Q_EMIT failed(r.error);
            return;
        }
        if (++m_readings < 2) {
            // The second reading gives the connection rate.
            QTimer::singleShot(kIntervalMs, this, [this] { m_reader->read(); });
            return;
        }
        m_reading = r;
        m_groups = clients::group(r.clients, m_by);
        Q_EMIT finished();
    });
}

void ShowClients::start()
{
    if (!m_request.groupBy.isEmpty()) {
        const auto by = clients::groupByFromId(m_request.groupBy);
        if (!by) {
            Q_EMIT failed(QStringLiteral("unknown --group-by '%1' (known: %2)")
                              .arg(m_request.groupBy, clients::groupByIds().join(QStringLiteral(", "))));
            return;
        }
        m_by = *by;
    }
    m_reader->read();
}

QList<Column> ShowClients::columns() const
{
    return {{"by", Column::Type::Text},
            {"name", Column::Type::Text},
            {"connections", Column::Type::Integer},
            {"own", Column::Type::Boolean},
            {"unnamed", Column::Type::Integer},
            {"young", Column::Type::Integer},
            {"idle_long", Column::Type::Integer},
            {"blocked", Column::Type::Integer},
            {"blocked_on", Column::Type::Text},
            {"min_age_s", Column::Type::Integer},
            {"median_age_s", Column::Type::Integer},
            {"max_age_s", Column::Type::Integer},
            {"median_idle_s", Column::Type::Integer},
            {"max_idle_s", Column::Type::Integer},
            {"query_buffer_bytes", Column::Type::Integer},
            {"output_buffer_bytes", Column::Type::Integer},
            {"memory_bytes", Column::Type::Integer}};
}

void ShowClients::writeRecord(RecordWriter &writer, qsizetype row) const
{
    const clients::Group &g = m_groups.at(row);
    const auto numberOrNull = [&writer](qint64 n) {
        if (n < 0)
            writer.null();
        else
            writer.integer(n);
    };
    writer.text(clients::groupById(m_by));
    writer.bytes(g.key);
    writer.integer(g.connections);
    writer.boolean(g.own);
    writer.integer(g.unnamed);
    writer.integer(g.young);
    writer.integer(g.idleLong);
    writer.integer(g.blocked);
    QStringList on;
    for (auto it = g.blockedOn.constBegin(); it != g.blockedOn.constEnd(); ++it)
        on << QStringLiteral("%1 %2").arg(QString::fromUtf8(it.key())).arg(it.value());
    if (on.isEmpty())
        writer.null();
    else
        writer.text(on.join(QStringLiteral(", ")));
    numberOrNull(g.minAge);
    numberOrNull(g.medianAge);
    numberOrNull(g.maxAge);
    numberOrNull(g.medianIdle);
    numberOrNull(g.maxIdle);
    writer.integer(g.queryBuffers);
    writer.integer(g.outputBuffers);
    writer.integer(g.memory);
}

QJsonObject ShowClients::coverage() const
{
    return {{QStringLiteral("group_by"), clients::groupById(m_by)},
            {QStringLiteral("connections"), m_reading.clients.size()},
            {QStringLiteral("groups"), m_groups.size()},
            {QStringLiteral("interval_ms"), kIntervalMs}};
}

QJsonObject ShowClients::details() const
{
    const clients::Churn &c = m_reading.churn;
    const auto orNull = [](qint64 n) { return n < 0 ? QJsonValue() : QJsonValue(n); };
    QJsonArray hints;
    for (const clients::Hint &h : clients::hints(m_reading.clients, c))
        hints.append(QJsonObject{
            {QStringLiteral("id"), h.id},
            {QStringLiteral("group"), h.group.isEmpty() ? QJsonValue() : QJsonValue(bytesescape::escape(h.group))},
            {QStringLiteral("text"), h.text}});
    return {{QStringLiteral("hints"), hints},
            {QStringLiteral("churn"),
             QJsonObject{{QStringLiteral("accepted_per_second"),
                          c.acceptedPerSecond < 0 ? QJsonValue() : QJsonValue(c.acceptedPerSecond)},
                         {QStringLiteral("connected"), orNull(c.connected)},
                         {QStringLiteral("rejected"), orNull(c.rejected)},
                         {QStringLiteral("maxclients"), orNull(c.maxClients)}}}};
}
