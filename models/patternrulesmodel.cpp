// SPDX-License-Identifier: GPL-3.0-or-later
// The rules as an editable table: a row per rule, edits checked as the file's parser checks them.
#include "patternrules.h"

#include "bytesescape.h"
#include "decoders.h"

#include <QStringList>

void PatternRulesModel::setRules(const QList<PatternRule> &rules)
{
    beginResetModel();
    m_rules = rules;
    endResetModel();
}

void PatternRulesModel::addRule(const PatternRule &rule)
{
    beginInsertRows({}, int(m_rules.size()), int(m_rules.size()));
    m_rules.append(rule);
    endInsertRows();
}

void PatternRulesModel::removeRuleAt(int row)
{
    if (row < 0 || row >= m_rules.size())
        return;
    beginRemoveRows({}, row, row);
    m_rules.removeAt(row);
    endRemoveRows();
}

void PatternRulesModel::moveRule(int row, int delta)
{
    const int to = row + delta;
    if (row < 0 || row >= m_rules.size() || to < 0 || to >= m_rules.size() || delta == 0)
        return;
    // beginMoveRows counts the destination before the move.
    if (!beginMoveRows({}, row, row, {}, delta > 0 ? to + 1 : to))
        return;
    m_rules.move(row, to);
    endMoveRows();
}

int PatternRulesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rules.size());
}

int PatternRulesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PatternRulesModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const PatternRule &r = m_rules.at(index.row());
    if (role == Qt::ToolTipRole && index.column() == KindColumn)
        return r.classifies ? tr("Written as \"%1\" in the file").arg(QString::fromLatin1(patternKindId(r.kind)))
                            : tr("No kind in the file: the rule only says how to decode the values");
    if (role == Qt::ToolTipRole && index.column() == DecodeColumn)
        return tr("Steps that decode the values of matching keys, in order, ahead of detection "
                  "(base64, gzip, zlib, lz4, snappy, zstd, brotli, hex, json, msgpack, cbor, pickle, java, "
                  "marshal, php, protobuf…); empty: detected");
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    switch (index.column()) {
    case GlobColumn: return bytesescape::escape(r.glob);
    case TypeColumn: return patternRuleTypeId(r.type);
    case KindColumn:
        if (!r.classifies)
            return role == Qt::EditRole ? QString::fromLatin1(kDecodeOnly) : tr("any (decode only)");
        if (role == Qt::EditRole)
            return QString::fromLatin1(patternKindId(r.kind));
        return r.kind == PatternKind::Unknown ? tr("none (not a pattern)") : patternKindName(r.kind);
    case ParamsColumn: return PatternRules::paramsText(r.params);
    case DecodeColumn: {
        QStringList names;
        for (const decode::Format f : r.decode)
            names << decode::name(f);
        return names.join(QStringLiteral(", "));
    }
    case NoteColumn: return r.note;
    }
    return {};
}

bool PatternRulesModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || role != Qt::EditRole)
        return false;
    PatternRule r = m_rules.at(index.row());
    const QString text = value.toString().trimmed();
    QString why;
    switch (index.column()) {
    case GlobColumn: {
        const auto bytes = bytesescape::unescape(text, &why);
        if (!bytes || bytes->isEmpty())
            why = why.isEmpty() ? tr("a rule needs a glob") : tr("glob: %1").arg(why);
        else
            r.glob = *bytes;
        break;
    }
    case TypeColumn: {
        const auto t = patternRuleTypeFromId(text);
        if (!t)
            why = tr("unknown type \"%1\"").arg(text);
        else
            r.type = *t;
        break;
    }
    case KindColumn: {
        if (text == QLatin1String(kDecodeOnly)) {
            if (r.decode.isEmpty())
                why = tr("a rule without a kind needs decode steps");
            else
                r.classifies = false;
            break;
        }
        std::optional<PatternKind> k = patternKindFromId(text.toLower().toUtf8());
        for (int c = 0; c < kPatternKindCount && !k; ++c) {
            if (patternKindName(PatternKind(c)).compare(text, Qt::CaseInsensitive) == 0)
                k = PatternKind(c);
        }
        if (!k) {
            why = tr("unknown kind \"%1\"").arg(text);
        } else {
            r.kind = *k;
            r.classifies = true;
        }
        break;
    }
    case DecodeColumn: {
        QList<decode::Format> steps;
        if (text.isEmpty()) {
            if (!r.classifies)
                why = tr("a rule without a kind needs decode steps");
            else
                r.decode.clear();
        } else if (decode::parseChain(text, &steps, &why)) {
            r.decode = steps;
        } else {
            why = tr("decode: %1").arg(why);
        }
        break;
    }
    case ParamsColumn: {
        const auto params = PatternRules::paramsFromText(text, &why);
        if (params)
            r.params = *params;
        break;
    }
    case NoteColumn: r.note = value.toString(); break;
    default: return false;
    }
    if (!why.isEmpty()) {
        m_editError = why;
        Q_EMIT editRefused(why);
        return false;
    }
    m_editError.clear();
    if (r == m_rules.at(index.row()))
        return true;
    m_rules[index.row()] = r;
    Q_EMIT dataChanged(index, index);
    return true;
}

Qt::ItemFlags PatternRulesModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsEditable;
}

QVariant PatternRulesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return section + 1; // the rule number the reasons cite
    switch (section) {
    case GlobColumn: return tr("Glob");
    case TypeColumn: return tr("Type");
    case KindColumn: return tr("Kind");
    case ParamsColumn: return tr("Parameters");
    case DecodeColumn: return tr("Decode");
    case NoteColumn: return tr("Note");
    }
    return {};
}
