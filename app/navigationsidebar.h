// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rowtablemodel.h"

#include <QHash>
#include <QWidget>

class QTreeWidget;
class QTreeWidgetItem;

// The window's navigation: the registry's panels under their group headers (Triage, Keys,
// Server, Patterns, Console), each entry with its live badge. A group with no entry is hidden.
class NavigationSidebar : public QWidget
{
    Q_OBJECT
public:
    enum Column { TitleColumn, BadgeColumn };

    explicit NavigationSidebar(QWidget *parent = nullptr);

    // The entry names, in the order the sidebar shows them (Ctrl+1…9 follow it).
    QStringList entryNames() const { return m_order; }
    // Marks 'name' as the shown page without emitting entryActivated.
    void setCurrent(const QString &name);
    QString current() const;
    void setBadge(const QString &name, int count, Severity severity, const QString &toolTip);
    // What the badge shows ("3"), empty without one; and its tool tip.
    QString badgeText(const QString &name) const;
    QString badgeToolTip(const QString &name) const;
    // Whether the group header of this title is shown.
    bool isGroupShown(const QString &groupTitle) const;
    QTreeWidget *tree() const { return m_tree; }
    QTreeWidgetItem *item(const QString &name) const { return m_items.value(name); }

Q_SIGNALS:
    // The user picked an entry (click, keyboard).
    void entryActivated(const QString &name);

private:
    void onCurrentItemChanged(QTreeWidgetItem *current, QTreeWidgetItem *previous);

    QTreeWidget *m_tree = nullptr;
    QHash<QString, QTreeWidgetItem *> m_items;
    QStringList m_order;
    bool m_settingCurrent = false;
};
