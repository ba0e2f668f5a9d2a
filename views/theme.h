// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QIcon>
#include <QPalette>
#include <QString>

// The window's look: the desktop's own style and palette, or Fusion with a light or a dark
// palette. Charts and severity colours follow whichever palette is in force (chartstyle).
namespace theme {

enum class Theme { System, Light, Dark };

// "system", "light", "dark": how the setting is stored.
QString name(Theme theme);
Theme fromName(const QString &name);
// The dark Fusion palette: every role, the disabled group too, so no widget falls back to the
// light defaults (tool tips, links, placeholders).
QPalette darkPalette();
QPalette lightPalette();
// Applies to the whole application. The first call remembers the desktop's style and palette,
// which System brings back.
void apply(Theme theme);

// A round swatch of 'colour' (grey when invalid), 'size' pixels square: a saved connection's
// mark in the manager's list and as its window's icon.
QIcon swatch(const QColor &colour, int size);

} // namespace theme
