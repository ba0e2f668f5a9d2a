// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLabel>

// A one-line label that, given less room than its text needs, ends the text with "…" instead
// of cutting it off mid-letter. text() stays the whole text; the owner sets the tooltip.
class ElidingLabel : public QLabel
{
    Q_OBJECT
public:
    explicit ElidingLabel(QWidget *parent = nullptr);
    // Room for a few characters and the ellipsis: a layout may give it less than its text.
    QSize minimumSizeHint() const override;
    // What is painted at the current width.
    QString shownText() const;

protected:
    void paintEvent(QPaintEvent *event) override;
};
