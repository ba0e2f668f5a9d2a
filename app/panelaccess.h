// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "accesscheck.h"

#include <QObject>

class NavigationSidebar;
class QLabel;
class RedisClient;

// The window's side of AccessCheck: after each connect (the user may have changed with a new
// password), which panels this user may use. Unusable ones are greyed in the sidebar with the
// reason as their tool tip; the page of a panel that is unavailable or partial says so in a
// line above it.
class PanelAccess : public QObject
{
    Q_OBJECT
public:
    PanelAccess(RedisClient *client, NavigationSidebar *sidebar, QLabel *line, QObject *parent = nullptr);

    void refresh();
    // The line for the panel now shown ("keys", "slowlog", …).
    void showFor(const QString &panel);
    const AccessCheck::Result &result() const { return m_check->result(); }
    // The line above the page; empty when it is hidden.
    QString lineText() const;

Q_SIGNALS:
    void checked();

private:
    void apply();

    AccessCheck *m_check;
    NavigationSidebar *m_sidebar;
    QLabel *m_line;
    QString m_shown;
    bool m_done = false;
};
