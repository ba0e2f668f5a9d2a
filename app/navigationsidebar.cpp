// SPDX-License-Identifier: GPL-3.0-or-later
#include "navigationsidebar.h"

#include "chartstyle.h"
#include "panelregistry.h"

#include <QApplication>
#include <QFontMetrics>
#include <QHeaderView>
#include <QIcon>
#include <QPainter>
#include <QStyle>
#include <QStyledItemDelegate>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace {
constexpr int kSeverityRole = Qt::UserRole + 1;
constexpr int kNameRole = Qt::UserRole + 2;

// The badge: the count in a rounded pill of the severity's colour, readable in either palette.
class BadgeDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        const QString text = index.data(Qt::DisplayRole).toString();
        // The row's background and selection, without the count as text: the pill shows it.
        QStyleOptionViewItem background = option;
        initStyleOption(&background, index);
        background.text.clear();
        const QWidget *widget = option.widget;
        QStyle *style = widget ? widget->style() : QApplication::style();
        style->drawControl(QStyle::CE_ItemViewItem, &background, painter, widget);
        if (text.isEmpty())
            return;
        const QPalette &palette = option.palette;
        const auto severity = Severity(index.data(kSeverityRole).toInt());
        const QColor fill = severity == Severity::Bad ? chartstyle::bad(palette)
            : severity == Severity::Warning           ? chartstyle::warning(palette)
                                                      : palette.color(QPalette::Mid);
        const QColor ink = fill.lightness() > 150 ? QColor(Qt::black) : QColor(Qt::white);
        QFont font = option.font;
        font.setBold(true);
        const QFontMetrics fm(font);
        const int h = fm.height() + 2;
        const int w = qMin(option.rect.width() - 4, qMax(h, fm.horizontalAdvance(text) + 10));
        const QRect pill(option.rect.right() - w - 4, option.rect.center().y() - h / 2, w, h);
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing);
        painter->setPen(Qt::NoPen);
        painter->setBrush(fill);
        painter->drawRoundedRect(pill, h / 2.0, h / 2.0);
        painter->setFont(font);
        painter->setPen(ink);
        painter->drawText(pill, Qt::AlignCenter, text);
        painter->restore();
    }
};
} // namespace

NavigationSidebar::NavigationSidebar(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("navigation"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_tree = new QTreeWidget(this);
    m_tree->setObjectName(QStringLiteral("navigationTree"));
    m_tree->setColumnCount(2);
    m_tree->setHeaderHidden(true);
    m_tree->setRootIsDecorated(false);
    m_tree->setItemsExpandable(false);
    m_tree->setIndentation(10);
    m_tree->setUniformRowHeights(true);
    m_tree->setFrameShape(QFrame::NoFrame);
    m_tree->setItemDelegateForColumn(BadgeColumn, new BadgeDelegate(m_tree));
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(TitleColumn, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(BadgeColumn, QHeaderView::Fixed);
    layout->addWidget(m_tree);

    QFont headerFont = font();
    headerFont.setBold(true);
    headerFont.setPointSizeF(headerFont.pointSizeF() * 0.9);
    for (panelregistry::Group group : panelregistry::groups()) {
        auto *header = new QTreeWidgetItem(m_tree, {panelregistry::groupTitle(group).toUpper()});
        header->setFlags(Qt::ItemIsEnabled); // not selectable: a heading, not a page
        header->setFont(TitleColumn, headerFont);
        header->setFirstColumnSpanned(true);
        const QList<panelregistry::Entry> entries = panelregistry::entriesOf(group);
        for (const panelregistry::Entry &e : entries) {
            const QString name = QLatin1String(e.name);
            auto *item = new QTreeWidgetItem(header, {panelregistry::title(name)});
            item->setData(TitleColumn, kNameRole, name);
            item->setIcon(TitleColumn, QIcon::fromTheme(QLatin1String(e.icon)));
            item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
            m_items.insert(name, item);
            m_order.append(name);
        }
        // The group mechanism stays ready for entries to come (Triage): an empty one is hidden.
        header->setHidden(entries.isEmpty());
    }
    m_tree->expandAll();
    m_tree->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Expanding);
    // Wide enough for the longest title beside the widest badge: a wide panel squeezes the
    // docks, and a clipped entry name or a badge over its title helps nobody.
    QFont bold = font();
    bold.setBold(true);
    const int badgeWidth = QFontMetrics(bold).horizontalAdvance(QStringLiteral("999+")) + 16;
    m_tree->header()->resizeSection(BadgeColumn, badgeWidth);
    int widest = QFontMetrics(headerFont).horizontalAdvance(panelregistry::groupTitle(panelregistry::Group::Patterns));
    for (const QTreeWidgetItem *item : std::as_const(m_items))
        widest = qMax(widest,
                      fontMetrics().horizontalAdvance(item->text(TitleColumn)) + m_tree->indentation()
                          + style()->pixelMetric(QStyle::PM_SmallIconSize) + 8);
    setMinimumWidth(widest + badgeWidth + 2 * m_tree->frameWidth() + 12);
    connect(m_tree, &QTreeWidget::currentItemChanged, this, &NavigationSidebar::onCurrentItemChanged);
}

void NavigationSidebar::onCurrentItemChanged(QTreeWidgetItem *current, QTreeWidgetItem *previous)
{
    if (m_settingCurrent || !current)
        return;
    const QString name = current->data(TitleColumn, kNameRole).toString();
    if (!name.isEmpty()) {
        Q_EMIT entryActivated(name);
        return;
    }
    // A group header is not a page: the shown page stays marked.
    if (previous) {
        m_settingCurrent = true;
        m_tree->setCurrentItem(previous);
        m_settingCurrent = false;
    }
}

void NavigationSidebar::setCurrent(const QString &name)
{
    QTreeWidgetItem *item = m_items.value(name);
    if (!item || m_tree->currentItem() == item)
        return;
    m_settingCurrent = true;
    m_tree->setCurrentItem(item);
    m_settingCurrent = false;
}

QString NavigationSidebar::current() const
{
    const QTreeWidgetItem *item = m_tree->currentItem();
    return item ? item->data(TitleColumn, kNameRole).toString() : QString();
}

void NavigationSidebar::setBadge(const QString &name, int count, Severity severity, const QString &toolTip)
{
    QTreeWidgetItem *item = m_items.value(name);
    if (!item)
        return;
    item->setText(BadgeColumn, count > 0 ? (count > 999 ? QStringLiteral("999+") : QString::number(count)) : QString());
    item->setData(BadgeColumn, kSeverityRole, int(severity));
    const QString tip = count > 0 ? toolTip : QString();
    item->setToolTip(BadgeColumn, tip);
    updateToolTip(item, name);
}

void NavigationSidebar::setAccess(const QString &name, bool usable, const QString &note)
{
    QTreeWidgetItem *item = m_items.value(name);
    if (!item)
        return;
    if (note.isEmpty())
        m_notes.remove(name);
    else
        m_notes.insert(name, note);
    if (usable)
        m_unusable.remove(name);
    else
        m_unusable.insert(name);
    // Greyed, still selectable: the page says why it shows nothing.
    if (usable)
        item->setData(TitleColumn, Qt::ForegroundRole, QVariant());
    else
        item->setForeground(TitleColumn, palette().brush(QPalette::Disabled, QPalette::Text));
    updateToolTip(item, name);
}

void NavigationSidebar::updateToolTip(QTreeWidgetItem *item, const QString &name)
{
    QStringList parts;
    if (m_notes.contains(name))
        parts << m_notes.value(name);
    if (!item->toolTip(BadgeColumn).isEmpty())
        parts << item->toolTip(BadgeColumn);
    item->setToolTip(TitleColumn, parts.join(QLatin1Char('\n')));
}

QString NavigationSidebar::badgeText(const QString &name) const
{
    const QTreeWidgetItem *item = m_items.value(name);
    return item ? item->text(BadgeColumn) : QString();
}

QString NavigationSidebar::badgeToolTip(const QString &name) const
{
    const QTreeWidgetItem *item = m_items.value(name);
    return item ? item->toolTip(BadgeColumn) : QString();
}

bool NavigationSidebar::isGroupShown(const QString &groupTitle) const
{
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        const QTreeWidgetItem *header = m_tree->topLevelItem(i);
        if (header->text(TitleColumn).compare(groupTitle, Qt::CaseInsensitive) == 0)
            return !header->isHidden();
    }
    return false;
}
