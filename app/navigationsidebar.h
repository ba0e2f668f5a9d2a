// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rowtablemodel.h"

#include <QHash>
#include <QSet>
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
    // What the connection's user may do with the entry's panel (AccessCheck): an unusable one
    // is greyed, and 'note' ("unavailable: needs +slowlog|get") is its tool tip, before it is
    // opened. An empty note with 'usable' clears it.
    void setAccess(const QString &name, bool usable, const QString &note);
    bool isUsable(const QString &name) const { return !m_unusable.contains(name); }
    QString accessNote(const QString &name) const { return m_notes.value(name); }
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
    QHash<QString, QString> m_notes; // access notes by entry
    QSet<QString> m_unusable;
    void updateToolTip(QTreeWidgetItem *item, const QString &name);
};
