// SPDX-License-Identifier: GPL-3.0-or-later
#include "chartstyle.h"

#include <QPalette>
#include "qcp.h"

namespace chartstyle {

bool isDark(const QPalette &palette)
{
    return palette.color(QPalette::Base).lightness() < 128;
}

namespace {
void styleAxis(QCPAxis *axis, const QPalette &palette)
{
    const QColor text = palette.color(QPalette::Text);
    QColor grid = text;
    grid.setAlpha(isDark(palette) ? 45 : 35);
    QColor subGrid = grid;
    subGrid.setAlpha(grid.alpha() / 2);
    axis->setBasePen(QPen(text, 1));
    axis->setTickPen(QPen(text, 1));
    axis->setSubTickPen(QPen(text, 1));
    axis->setTickLabelColor(text);
    axis->setLabelColor(text);
    axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
    axis->grid()->setSubGridPen(QPen(subGrid, 1, Qt::DotLine));
    axis->grid()->setZeroLinePen(QPen(grid, 1));
}
} // namespace

void apply(QCustomPlot *plot, const QPalette &palette)
{
    plot->setBackground(palette.color(QPalette::Base));
    const QList<QCPAxisRect *> rects = plot->axisRects();
    for (QCPAxisRect *rect : rects) {
        rect->setBackground(palette.color(QPalette::Base));
        const QList<QCPAxis *> axes = rect->axes();
        for (QCPAxis *axis : axes)
            styleAxis(axis, palette);
    }
    if (plot->legend) {
        plot->legend->setBrush(palette.color(QPalette::Base));
        plot->legend->setTextColor(palette.color(QPalette::Text));
        QColor border = palette.color(QPalette::Text);
        border.setAlpha(60);
        plot->legend->setBorderPen(QPen(border));
    }
    plot->replot(QCustomPlot::rpQueuedReplot);
}

QColor series(int index, const QPalette &palette)
{
    // Hues picked to stay apart for colour-blind readers (blue, orange, green, purple first).
    static const int hues[] = {212, 28, 140, 275, 350, 190, 55, 0};
    const int hue = hues[((index % 8) + 8) % 8];
    return isDark(palette) ? QColor::fromHsl(hue, 170, 165) : QColor::fromHsl(hue, 190, 95);
}

QColor good(const QPalette &palette)
{
    return isDark(palette) ? QColor(0x6c, 0xc6, 0x7a) : QColor(0x1e, 0x84, 0x3a);
}

QColor warning(const QPalette &palette)
{
    return isDark(palette) ? QColor(0xf0, 0xb4, 0x4a) : QColor(0xb3, 0x6b, 0x00);
}

QColor bad(const QPalette &palette)
{
    return isDark(palette) ? QColor(0xff, 0x7a, 0x70) : QColor(0xc6, 0x28, 0x28);
}

void useTimeAxis(QCPAxis *axis)
{
    QSharedPointer<QCPAxisTickerDateTime> ticker(new QCPAxisTickerDateTime);
    ticker->setDateTimeSpec(Qt::LocalTime);
    ticker->setDateTimeFormat(QStringLiteral("HH:mm:ss"));
    ticker->setTickCount(6);
    axis->setTicker(ticker);
    // Hours matter more than seconds once the window is wide.
    QObject::connect(axis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), axis, [ticker](const QCPRange &r) {
        ticker->setDateTimeFormat(r.size() > 6 * 3600 ? QStringLiteral("ddd HH:mm")
                                  : r.size() > 600   ? QStringLiteral("HH:mm")
                                                     : QStringLiteral("HH:mm:ss"));
    });
}

void label(QCPAxis *axis, const QString &text)
{
    axis->setLabel(text);
}

bool savePng(QCustomPlot *plot, const QString &file, QString *error)
{
    if (plot->savePng(file, plot->width(), plot->height()))
        return true;
    if (error)
        *error = QObject::tr("cannot write %1").arg(file);
    return false;
}

} // namespace chartstyle
