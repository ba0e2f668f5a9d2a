// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "modelrecords.h"
#include "panelshow.h"

#include <QAbstractItemModel>

// A panel whose records are the rows of its table models (ModelRecords): the first table, or
// the one --table names. Subclasses own the models, fill them from their readers and call
// tablesReady() once the read is complete.
class TablesShow : public PanelShow
{
    Q_OBJECT
public:
    using PanelShow::PanelShow;

    QList<Column> columns() const override { return m_records.columns(); }
    qsizetype recordCount() const override { return m_records.rowCount(); }
    void writeRecord(RecordWriter &writer, qsizetype row) const override { m_records.write(writer, row); }
    QJsonObject coverage() const override;
    QStringList tableNames() const;

protected:
    // The panel's tables in the order it shows them; the first is the default.
    void addTable(const QString &name, const QAbstractItemModel *model) { m_tables.append({name, model}); }
    void tablesReady();
    // The table the records are, once tablesReady() found it.
    const QString &table() const { return m_table; }
    QJsonObject m_coverage; // what a subclass adds about its read

private:
    QList<QPair<QString, const QAbstractItemModel *>> m_tables;
    ModelRecords m_records;
    QString m_table;
};
