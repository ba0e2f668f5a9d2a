// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelrecords.h"

#include "rowtablemodel.h"

#include <QAbstractItemModel>
#include <QSet>

namespace {

bool isNumber(const QVariant &v)
{
    switch (v.typeId()) {
    case QMetaType::Int:
    case QMetaType::UInt:
    case QMetaType::LongLong:
    case QMetaType::ULongLong:
    case QMetaType::Double:
    case QMetaType::Float:
    case QMetaType::Long:
    case QMetaType::ULong:
    case QMetaType::Short:
    case QMetaType::UShort: return true;
    default: return false;
    }
}

bool isInteger(const QVariant &v)
{
    return isNumber(v) && v.typeId() != QMetaType::Double && v.typeId() != QMetaType::Float;
}

} // namespace

QByteArray ModelRecords::fieldName(const QString &header)
{
    QByteArray out;
    bool gap = false;
    for (const QChar c : header) {
        if (c.isLetterOrNumber() && c.unicode() < 0x80) {
            if (gap && !out.isEmpty())
                out += '_';
            out += char(c.toLower().unicode());
            gap = false;
        } else if (c == u'%') {
            if (!out.isEmpty())
                out += '_';
            out += "pct";
            gap = true;
        } else {
            gap = true;
        }
    }
    return out.isEmpty() ? QByteArrayLiteral("n") : out;
}

void ModelRecords::setModel(const QAbstractItemModel *model)
{
    m_model = model;
    m_columns.clear();
    m_fields.clear();
    if (!model)
        return;
    const int rows = model->rowCount();
    const auto any = [&](int role, int column) {
        for (int r = 0; r < rows; ++r) {
            if (model->data(model->index(r, column), role).isValid())
                return true;
        }
        return false;
    };
    QSet<QByteArray> taken;
    const auto add = [&](QByteArray name, Column::Type type, Field::Source source, int column) {
        while (taken.contains(name))
            name += "_shown";
        taken.insert(name);
        m_columns.append({name, type});
        m_fields.append({source, column});
    };
    if (rows > 0 && any(RowTableRoles::KeyRole, 0)
        && model->data(model->index(0, 0), RowTableRoles::KeyRole).typeId() == QMetaType::QByteArray)
        add("key", Column::Type::Text, Field::Key, 0);
    if (rows > 0 && any(RowTableRoles::SeverityRole, 0))
        add("severity", Column::Type::Text, Field::Severity, 0);
    for (int c = 0; c < model->columnCount(); ++c) {
        const QByteArray name = fieldName(model->headerData(c, Qt::Horizontal).toString());
        add(name, Column::Type::Text, Field::Display, c);
        // A number column: every row's sort value is a number.
        bool numbers = rows > 0, integers = true;
        for (int r = 0; r < rows && numbers; ++r) {
            const QVariant v = model->data(model->index(r, c), RowTableRoles::SortRole);
            numbers = isNumber(v);
            integers = integers && isInteger(v);
        }
        if (numbers)
            add(name + "_value", integers ? Column::Type::Integer : Column::Type::Number, Field::SortValue, c);
    }
}

qsizetype ModelRecords::rowCount() const
{
    return m_model ? m_model->rowCount() : 0;
}

void ModelRecords::write(RecordWriter &w, qsizetype row) const
{
    for (const Field &f : m_fields) {
        const QModelIndex index = m_model->index(int(row), f.column);
        switch (f.source) {
        case Field::Key: {
            const QVariant key = index.data(RowTableRoles::KeyRole);
            if (key.isValid())
                w.bytes(key.toByteArray());
            else
                w.null();
            break;
        }
        case Field::Severity: {
            const int s = index.data(RowTableRoles::SeverityRole).toInt();
            w.text(s == int(Severity::Bad) ? "bad" : s == int(Severity::Warning) ? "warning" : "none");
            break;
        }
        case Field::Display: w.text(index.data(Qt::DisplayRole).toString()); break;
        case Field::SortValue: {
            const QVariant v = index.data(RowTableRoles::SortRole);
            if (isInteger(v))
                w.integer(v.toLongLong());
            else
                w.number(v.toDouble());
            break;
        }
        }
    }
}
