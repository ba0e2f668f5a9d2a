// SPDX-License-Identifier: GPL-3.0-or-later
#include "chartstyle.h"

#include <QPalette>
#include "format.h"
#include "qcp.h"

#include <cmath>

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
    // Every legend, not only plot->legend: a plot with several axis rects has one per rect,
    // and plot->legend is null once the default rect is gone.
    QColor border = palette.color(QPalette::Text);
    border.setAlpha(60);
    const QList<QCPLayoutElement *> elements = plot->plotLayout()->elements(true);
    for (QCPLayoutElement *element : elements) {
        auto *legend = qobject_cast<QCPLegend *>(element);
        if (!legend)
            continue;
        legend->setBrush(palette.color(QPalette::Base));
        legend->setTextColor(palette.color(QPalette::Text));
        legend->setBorderPen(QPen(border));
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

namespace {
// Steps of 1, 2 or 5 times a power of 1024 read as round numbers in KiB, MiB or GiB.
class BytesTicker : public QCPAxisTicker
{
protected:
    double getTickStep(const QCPRange &range) override
    {
        const double raw = range.size() / double(tickCount() + 1e-10);
        double unit = 1;
        while (raw / unit >= 1024)
            unit *= 1024;
        const double scaled = raw / unit;
        const double magnitude = std::pow(10.0, std::floor(std::log10(qMax(scaled, 1e-9))));
        const double mantissa = scaled / magnitude;
        const double nice = mantissa < 1.5 ? 1 : mantissa < 3.5 ? 2 : mantissa < 7.5 ? 5 : 10;
        return nice * magnitude * unit;
    }
    QString getTickLabel(double tick, const QLocale &, QChar, int) override
    {
        return format::bytes(qint64(std::llround(tick)));
    }
};
} // namespace

void useBytesAxis(QCPAxis *axis)
{
    axis->setTicker(QSharedPointer<QCPAxisTicker>(new BytesTicker));
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
