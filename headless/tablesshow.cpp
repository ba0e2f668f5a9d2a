// SPDX-License-Identifier: GPL-3.0-or-later
#include "tablesshow.h"

#include "showrequest.h"

#include <QJsonArray>

QStringList TablesShow::tableNames() const
{
    QStringList out;
    for (const auto &t : m_tables)
        out.append(t.first);
    return out;
}

void TablesShow::tablesReady()
{
    const QString wanted = m_request.table.isEmpty() && !m_tables.isEmpty() ? m_tables.first().first : m_request.table;
    for (const auto &t : std::as_const(m_tables)) {
        if (t.first == wanted) {
            m_table = t.first;
            m_records.setModel(t.second);
            Q_EMIT finished();
            return;
        }
    }
    Q_EMIT failed(QStringLiteral("%1 has no table '%2' (tables: %3)")
                      .arg(m_request.panel, wanted, tableNames().join(QLatin1String(", "))));
}

QJsonObject TablesShow::coverage() const
{
    QJsonObject c = m_coverage;
    c.insert(QStringLiteral("table"), m_table);
    QJsonObject rows;
    for (const auto &t : m_tables)
        rows.insert(t.first, t.second->rowCount());
    c.insert(QStringLiteral("tables"), rows);
    return c;
}
