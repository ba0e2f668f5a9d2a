// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keyfilter.h"
#include "keytype.h"

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

Q_SIGNALS:
    // The first time hasContent() becomes true.
    void contentReady();
    void openKeyRequested(const QByteArray &key, KeyType type);
    void filterKeysRequested(const KeyFilter &filter);

protected:
    virtual void activeChanged(bool active) { Q_UNUSED(active) }

private:
    bool m_active = false;
};
