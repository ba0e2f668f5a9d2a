// SPDX-License-Identifier: GPL-3.0-or-later
#include "elidinglabel.h"

#include <QPainter>
#include <QStyle>

ElidingLabel::ElidingLabel(QWidget *parent) : QLabel(parent)
{
    setTextFormat(Qt::PlainText);
    setWordWrap(false);
}

QSize ElidingLabel::minimumSizeHint() const
{
    const QMargins m = contentsMargins();
    // Room for the text's first few characters and the ellipsis.
    return {fontMetrics().horizontalAdvance(text().left(6) + QChar(0x2026)) + m.left() + m.right(),
            QLabel::minimumSizeHint().height()};
}

QString ElidingLabel::shownText() const
{
    return fontMetrics().elidedText(text(), Qt::ElideRight, contentsRect().width());
}

void ElidingLabel::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    style()->drawItemText(&painter, contentsRect(), int(alignment()), palette(), isEnabled(), shownText(),
                          foregroundRole());
}
