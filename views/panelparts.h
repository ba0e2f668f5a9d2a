// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QHash>
#include <QIdentityProxyModel>
#include <QList>
#include <QSortFilterProxyModel>

class QLabel;
struct PatternMatch;
class QWidget;

// Colours cells by a severity role of their row (2 and above: bad, 1: warning), in the
// palette's own warning colours. 'roles' maps a column to the role that decides it.
class ColumnSeverityProxy : public QIdentityProxyModel
{
public:
    ColumnSeverityProxy(QHash<int, int> roles, QWidget *owner);
    QVariant data(const QModelIndex &index, int role) const override;

private:
    QHash<int, int> m_roles;
    QWidget *m_owner;
};

// Sorting on the RowTableModel's SortRole, and row colours from its SeverityRole: a wrong row
// in the palette's "bad" colour, a row worth a look with its last (flags) column in "warning".
class SeverityProxyModel : public QSortFilterProxyModel
{
public:
    explicit SeverityProxyModel(QWidget *paletteSource, QObject *parent = nullptr);
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

private:
    QWidget *m_paletteSource;
};

namespace panelparts {

// A bold one-line heading.
QLabel *heading(const QString &text, QWidget *parent);
// A status line: plain text, wrapped, found by tests through 'objectName'.
QLabel *statusLabel(const QString &objectName, const QString &text, QWidget *parent);

// A line naming the libraries the catalogue (or a user rule in its vocabulary) recognised among
// 'matches', with the name shapes of their keys: "Written by connect-redis (sess:{id}, 4 keys)".
// Hidden when no key carries a library. Found by tests as "libraries".
QLabel *librariesLabel(QWidget *parent);
void showLibraries(QLabel *label, const QList<PatternMatch> &matches);

// Asks before an action that changes data: a modal Yes/Cancel question with Cancel as the
// default, so Enter or Escape on a reflex sends nothing. True on Yes. Every panel asks through
// here, so the dialogs look alike and a test can find one by confirmationObjectName().
bool confirm(QWidget *parent, const QString &title, const QString &text);
QString confirmationObjectName();

} // namespace panelparts
