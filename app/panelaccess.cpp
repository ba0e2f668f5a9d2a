// SPDX-License-Identifier: GPL-3.0-or-later
#include "panelaccess.h"

#include "navigationsidebar.h"
#include "panelregistry.h"

#include <QLabel>

PanelAccess::PanelAccess(RedisClient *client, NavigationSidebar *sidebar, QLabel *line, QObject *parent)
    : QObject(parent), m_check(new AccessCheck(client, this)), m_sidebar(sidebar), m_line(line)
{
    m_line->hide();
    connect(m_check, &AccessCheck::finished, this, &PanelAccess::apply);
}

void PanelAccess::refresh()
{
    m_done = false;
    m_check->start();
}

void PanelAccess::apply()
{
    const AccessCheck::Result &r = m_check->result();
    if (!r.error.isEmpty())
        return; // the connection went: the next connect checks again
    m_done = true;
    for (const AccessCheck::Panel &p : r.panels) {
        const bool usable = p.status != AccessCheck::Status::Unavailable;
        const bool worthSaying = p.status != AccessCheck::Status::Available || p.keysRestricted;
        m_sidebar->setAccess(p.name, usable, worthSaying ? p.summary() : QString());
    }
    showFor(m_shown);
    Q_EMIT checked();
}

void PanelAccess::showFor(const QString &panel)
{
    m_shown = panel;
    const AccessCheck::Panel *p = m_done ? m_check->result().panel(panel) : nullptr;
    if (!p || (p->status == AccessCheck::Status::Available && !p->keysRestricted)) {
        m_line->hide();
        m_line->clear();
        return;
    }
    const QString user = m_check->result().user.isEmpty() ? tr("this user") : m_check->result().user;
    const QString title = panelregistry::title(panel);
    const QString text = p->status == AccessCheck::Status::Unavailable
        ? tr("%1 is unavailable to %2: it needs %3.").arg(title, user, p->missing.join(QLatin1String(", ")))
        : tr("%1, as %2: %3.").arg(title, user, p->summary());
    m_line->setText(text);
    m_line->show();
}

QString PanelAccess::lineText() const
{
    return m_line->isHidden() ? QString() : m_line->text();
}
