// SPDX-License-Identifier: GPL-3.0-or-later
#include "panelparts.h"

#include "patterns.h"

#include "chartstyle.h"
#include "rowtablemodel.h"

#include <QBrush>
#include <QLabel>
#include <QMap>
#include <QMessageBox>
#include <QWidget>

ColumnSeverityProxy::ColumnSeverityProxy(QHash<int, int> roles, QWidget *owner)
    : QIdentityProxyModel(owner), m_roles(std::move(roles)), m_owner(owner)
{ }

QVariant ColumnSeverityProxy::data(const QModelIndex &index, int role) const
{
    if (role == Qt::ForegroundRole && m_roles.contains(index.column())) {
        const int s = QIdentityProxyModel::data(index, m_roles.value(index.column())).toInt();
        if (s >= 2)
            return QBrush(chartstyle::bad(m_owner->palette()));
        if (s == 1)
            return QBrush(chartstyle::warning(m_owner->palette()));
    }
    return QIdentityProxyModel::data(index, role);
}

SeverityProxyModel::SeverityProxyModel(QWidget *paletteSource, QObject *parent)
    : QSortFilterProxyModel(parent), m_paletteSource(paletteSource)
{
    setSortRole(RowTableRoles::SortRole);
}

QVariant SeverityProxyModel::data(const QModelIndex &index, int role) const
{
    if (role != Qt::ForegroundRole)
        return QSortFilterProxyModel::data(index, role);
    const auto severity = Severity(index.data(RowTableRoles::SeverityRole).toInt());
    if (severity == Severity::Bad)
        return chartstyle::bad(m_paletteSource->palette());
    if (severity == Severity::Warning && index.column() == columnCount(index.parent()) - 1)
        return chartstyle::warning(m_paletteSource->palette());
    return {};
}

namespace panelparts {

QLabel *heading(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    QFont f = label->font();
    f.setBold(true);
    label->setFont(f);
    return label;
}

QLabel *librariesLabel(QWidget *parent)
{
    QLabel *label = statusLabel(QStringLiteral("libraries"), {}, parent);
    label->hide();
    return label;
}

void showLibraries(QLabel *label, const QList<PatternMatch> &matches)
{
    // library → family → keys, in a stable order.
    QMap<QString, QMap<QString, int>> found;
    for (const PatternMatch &m : matches) {
        const QString library = m.params.value(QStringLiteral("library")).toString();
        if (!library.isEmpty() && library != QLatin1String("unknown"))
            ++found[library][m.family];
    }
    QStringList parts;
    for (auto lib = found.cbegin(); lib != found.cend(); ++lib) {
        QStringList families;
        for (auto f = lib->cbegin(); f != lib->cend(); ++f)
            families.append(QObject::tr("%1, %n key(s)", nullptr, f.value()).arg(f.key()));
        parts.append(QStringLiteral("%1 (%2)").arg(lib.key(), families.join(QStringLiteral("; "))));
    }
    label->setText(parts.isEmpty() ? QString() : QObject::tr("Written by %1").arg(parts.join(QStringLiteral(", "))));
    label->setVisible(!parts.isEmpty());
}

QLabel *statusLabel(const QString &objectName, const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    label->setObjectName(objectName);
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText);
    return label;
}

QString confirmationObjectName()
{
    return QStringLiteral("confirmation");
}

bool confirm(QWidget *parent, const QString &title, const QString &text)
{
    QMessageBox box(QMessageBox::Question, title, text, QMessageBox::Yes | QMessageBox::Cancel, parent);
    box.setObjectName(confirmationObjectName());
    // Key names are shown escaped but may still hold '<': as rich text they could hide or
    // fake what the question says.
    box.setTextFormat(Qt::PlainText);
    box.setDefaultButton(QMessageBox::Cancel);
    return box.exec() == QMessageBox::Yes;
}

} // namespace panelparts
