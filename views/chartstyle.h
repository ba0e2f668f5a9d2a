// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QString>

class QCPAxis;
class QCustomPlot;
class QPalette;
class QWidget;

// One look for every chart: colours from the widget palette (so dark mode works), the same
// fonts, grid and time axis everywhere. Panels call apply() once after building a plot and
// again on QEvent::PaletteChange.
namespace chartstyle {

bool isDark(const QPalette &palette);
// Background, axes, tick labels, grid and legend from the palette.
void apply(QCustomPlot *plot, const QPalette &palette);
// A series colour that reads on the palette's base; index cycles through eight hues.
QColor series(int index, const QPalette &palette);
// Status colours that stay readable in light and dark themes.
QColor good(const QPalette &palette);
QColor warning(const QPalette &palette);
QColor bad(const QPalette &palette);
// Wall-clock ticks (seconds since epoch on the axis), local time, format chosen by range.
void useTimeAxis(QCPAxis *axis);
// Byte ticks at round power-of-two steps, every label in the step's unit ("0", "256 MiB",
// "512 MiB"); 'suffix' follows the unit, e.g. "/s" for a rate.
void useBytesAxis(QCPAxis *axis, const QString &suffix = {});
// Axis label with a unit, the same way on every chart: "Memory (bytes)".
void label(QCPAxis *axis, const QString &text);
// A chart that shares its width with a table: a time axis with fewer, wider-spaced labels.
QCustomPlot *narrowTimePlot(QWidget *parent, const QString &objectName);
// A one-line legend above the axis rect (inside, it would hide points wherever it sat).
void putLegendAbove(QCustomPlot *plot);
// The narrowest time range such a chart shows, so whole-second points do not get a tick
// label each.
constexpr double kMinTimeSpanSecs = 120;
// Writes the plot as PNG at its on-screen size; false with 'error' set on failure.
bool savePng(QCustomPlot *plot, const QString &file, QString *error = nullptr);

} // namespace chartstyle
