// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "recordwriter.h"

#include <QList>
#include <QPointer>

class QAbstractItemModel;

// A panel's table as records, read from the same model the panel's table view shows: one field
// per column named after its header ("Expires at" → expires_at) holding the text the table
// shows, then '<name>_value' with the column's sort value where that is a number (milliseconds,
// counts, bytes), so the figures are the panel's and scripts need not parse "12 s". 'key' (the
// row's key bytes, escaped) and 'severity' (none, warning, bad) come first when the model has
// them (RowTableRoles). Which columns have a number is decided from the rows held.
class ModelRecords
{
public:
    void setModel(const QAbstractItemModel *model);
    const QAbstractItemModel *model() const { return m_model; }

    QList<Column> columns() const { return m_columns; }
    qsizetype rowCount() const;
    void write(RecordWriter &writer, qsizetype row) const;

    // "Expires at" → "expires_at", "TTL p50" → "ttl_p50", "#" → "n".
    static QByteArray fieldName(const QString &header);

private:
    struct Field
    {
        enum Source { Key, Severity, Display, SortValue };
        Source source = Display;
        int column = -1;
    };

    QPointer<const QAbstractItemModel> m_model;
    QList<Column> m_columns;
    QList<Field> m_fields;
};
