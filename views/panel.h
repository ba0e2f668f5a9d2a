// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keyfilter.h"
#include "keytype.h"
#include "rowtablemodel.h"

#include <QWidget>

// A page of the window's right side. Panels that poll the server do so only while active:
// the window activates the panel on the current tab while the window itself is visible, so
// a minimised RedisLens costs the server nothing.
class Panel : public QWidget
{
    Q_OBJECT
public:
    using QWidget::QWidget;

    bool isActive() const { return m_active; }
    void setActive(bool active)
    {
        if (active == m_active)
            return;
        m_active = active;
        activeChanged(active);
    }
    // True once the panel shows real data (for --screenshot, which waits for it).
    virtual bool hasContent() const = 0;

    // A live count the window shows beside the panel's entry in the sidebar (locks without a
    // TTL, poison entries, overdue jobs): coloured by 'severity', explained by 'toolTip'. A
    // count of 0 shows no badge.
    void setBadge(int count, Severity severity, const QString &toolTip = {})
    {
        if (count == m_badgeCount && severity == m_badgeSeverity && toolTip == m_badgeToolTip)
            return;
        m_badgeCount = count;
        m_badgeSeverity = severity;
        m_badgeToolTip = toolTip;
        Q_EMIT badgeChanged();
    }
    void clearBadge() { setBadge(0, Severity::None); }
    int badgeCount() const { return m_badgeCount; }
    Severity badgeSeverity() const { return m_badgeSeverity; }
    QString badgeToolTip() const { return m_badgeToolTip; }

Q_SIGNALS:
    // The first time hasContent() becomes true.
    void contentReady();
    void openKeyRequested(const QByteArray &key, KeyType type);
    void filterKeysRequested(const KeyFilter &filter);
    void badgeChanged();

protected:
    virtual void activeChanged(bool active) { Q_UNUSED(active) }

private:
    bool m_active = false;
    int m_badgeCount = 0;
    Severity m_badgeSeverity = Severity::None;
    QString m_badgeToolTip;
};
