// SPDX-License-Identifier: GPL-3.0-or-later
#include "theme.h"

#include <QApplication>
#include <QPainter>
#include <QStyle>
#include <QStyleFactory>
#include <QToolTip>

namespace theme {

namespace {
struct Desktop
{
    bool saved = false;
    QString style;
    QPalette palette;
};

Desktop &desktop()
{
    static Desktop d;
    if (!d.saved && QApplication::style()) {
        d.saved = true;
        d.style = QApplication::style()->name();
        d.palette = QApplication::palette();
    }
    return d;
}

void useStyle(const QString &name)
{
    if (QApplication::style() && QApplication::style()->name().compare(name, Qt::CaseInsensitive) == 0)
        return;
    if (QStyle *style = QStyleFactory::create(name))
        QApplication::setStyle(style);
}
} // namespace

QString name(Theme theme)
{
    switch (theme) {
    case Theme::Light: return QStringLiteral("light");
    case Theme::Dark: return QStringLiteral("dark");
    case Theme::System: break;
    }
    return QStringLiteral("system");
}

Theme fromName(const QString &name)
{
    if (name == QLatin1String("light"))
        return Theme::Light;
    if (name == QLatin1String("dark"))
        return Theme::Dark;
    return Theme::System;
}

QPalette darkPalette()
{
    const QColor window(0x2b, 0x2b, 0x2e);
    const QColor base(0x1f, 0x1f, 0x22);
    const QColor text(0xe2, 0xe2, 0xe5);
    const QColor dimText(0x80, 0x80, 0x86);
    const QColor button(0x36, 0x36, 0x3a);
    const QColor highlight(0x2f, 0x6f, 0xb3);
    QPalette p;
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x27, 0x27, 0x2b));
    p.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3a, 0x3f));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, dimText);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, button);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Light, QColor(0x48, 0x48, 0x4d));
    p.setColor(QPalette::Midlight, QColor(0x3d, 0x3d, 0x42));
    p.setColor(QPalette::Mid, QColor(0x30, 0x30, 0x34));
    p.setColor(QPalette::Dark, QColor(0x18, 0x18, 0x1b));
    p.setColor(QPalette::Shadow, Qt::black);
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xff));
    p.setColor(QPalette::LinkVisited, QColor(0xb8, 0x9c, 0xff));
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, dimText);
    p.setColor(QPalette::Disabled, QPalette::Base, window);
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x44, 0x44, 0x48));
    p.setColor(QPalette::Disabled, QPalette::HighlightedText, dimText);
    return p;
}

QPalette lightPalette()
{
    if (QStyle *fusion = QStyleFactory::create(QStringLiteral("Fusion"))) {
        const QPalette p = fusion->standardPalette();
        delete fusion;
        return p;
    }
    return QPalette(Qt::white);
}

void apply(Theme theme)
{
    const Desktop &d = desktop();
    switch (theme) {
    case Theme::System:
        useStyle(d.style);
        QApplication::setPalette(d.palette);
        break;
    case Theme::Light:
        useStyle(QStringLiteral("Fusion"));
        QApplication::setPalette(lightPalette());
        break;
    case Theme::Dark:
        useStyle(QStringLiteral("Fusion"));
        QApplication::setPalette(darkPalette());
        break;
    }
    QToolTip::setPalette(QApplication::palette());
}

QIcon swatch(const QColor &colour, int size)
{
    QPixmap pixmap(size, size);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(colour.isValid() ? colour : QColor(Qt::gray));
    const int margin = qMax(1, size / 16);
    painter.drawEllipse(margin, margin, size - 2 * margin, size - 2 * margin);
    painter.end();
    return QIcon(pixmap);
}

} // namespace theme
