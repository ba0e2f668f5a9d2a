// SPDX-License-Identifier: GPL-3.0-or-later
#include "chartstyle.h"

#include "qcp.h"

#include <QFontMetrics>
#include <QPalette>
#include <algorithm>
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
        ticker->setDateTimeFormat(r.size() > 6 * 3600  ? QStringLiteral("ddd HH:mm")
                                      : r.size() > 600 ? QStringLiteral("HH:mm")
                                                       : QStringLiteral("HH:mm:ss"));
    });
}

namespace {
// Ticks at round binary sizes ("0", "256 MiB", "512 MiB"), labelled in the unit of the step
// so every label on one axis reads in the same unit.
class ByteTicker : public QCPAxisTicker
{
public:
    explicit ByteTicker(const QString &suffix) : m_suffix(suffix) { setTickCount(4); }

protected:
    double getTickStep(const QCPRange &range) override
    {
        const double raw = range.size() / std::max(1, tickCount());
        double unit = 1;
        while (raw / unit >= 1024 && unit < std::pow(1024.0, 4))
            unit *= 1024;
        const double m = raw / unit;
        static const double nice[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
        double step = nice[0];
        for (double n : nice) {
            step = n;
            if (n >= m)
                break;
        }
        // Below one byte there is nothing to show (an idle server's network axis).
        m_unit = unit;
        return std::max(1.0, step * unit);
    }

    int getSubTickCount(double) override { return 1; }

    QString getTickLabel(double tick, const QLocale &, QChar, int) override
    {
        if (tick == 0)
            return QStringLiteral("0");
        static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
        int k = 0;
        for (double u = m_unit; u >= 1024 && k < 4; u /= 1024)
            ++k;
        const double v = tick / m_unit;
        const QString number
            = std::abs(v - std::round(v)) < 1e-9 ? QString::number(qint64(std::round(v))) : QString::number(v, 'f', 1);
        return number % QLatin1Char(' ') % QLatin1String(names[k]) % m_suffix;
    }

private:
    QString m_suffix;
    double m_unit = 1;
};
} // namespace

void useBytesAxis(QCPAxis *axis, const QString &suffix)
{
    axis->setTicker(QSharedPointer<QCPAxisTicker>(new ByteTicker(suffix)));
}

void label(QCPAxis *axis, const QString &text)
{
    axis->setLabel(text);
}

QCustomPlot *narrowTimePlot(QWidget *parent, const QString &objectName)
{
    auto *plot = new QCustomPlot(parent);
    plot->setObjectName(objectName);
    plot->setMinimumHeight(140);
    plot->setNoAntialiasingOnDrag(true);
    useTimeAxis(plot->xAxis);
    // As many ticks as labels fit with a label's width between them: a fixed count ran the
    // labels together once a splitter made the chart narrow.
    QObject::connect(plot, &QCustomPlot::beforeReplot, plot, [plot] {
        const int label = QFontMetrics(plot->xAxis->tickLabelFont()).horizontalAdvance(QStringLiteral("00:00:00"));
        plot->xAxis->ticker()->setTickCount(qBound(2, plot->axisRect()->width() / qMax(1, 2 * label), 4));
    });
    return plot;
}

void putLegendAbove(QCustomPlot *plot)
{
    plot->legend->setVisible(true);
    plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->setRowStretchFactor(0, 0.001);
    // The legend at its natural width on the left, an empty element taking the rest.
    auto *row = new QCPLayoutGrid;
    plot->plotLayout()->addElement(0, 0, row);
    row->addElement(0, 0, plot->legend);
    row->addElement(0, 1, new QCPLayoutElement(plot));
    row->setColumnStretchFactors({0.001, 1});
    row->setMargins(QMargins(plot->axisRect()->margins().left(), 0, 0, 0));
    plot->legend->setMargins(QMargins(4, 2, 4, 2));
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
