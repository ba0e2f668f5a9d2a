// SPDX-License-Identifier: GPL-3.0-or-later
#include "quickswitcher.h"

#include "bytesescape.h"
#include "panelregistry.h"

#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QVBoxLayout>

namespace {
constexpr int kPanelRole = Qt::UserRole + 1; // the panel's name; empty on the "open key" row
}

QuickSwitcher::QuickSwitcher(QWidget *parent) : QFrame(parent, Qt::Popup)
{
    setObjectName(QStringLiteral("quickSwitcher"));
    setFrameShape(QFrame::StyledPanel);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    m_input = new QLineEdit(this);
    m_input->setObjectName(QStringLiteral("quickSwitcherInput"));
    m_input->setPlaceholderText(tr("Panel name, or a key to open (\\xNN escapes allowed)"));
    m_input->setClearButtonEnabled(true);
    m_input->installEventFilter(this);
    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("quickSwitcherList"));
    m_list->setUniformItemSizes(true);
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("quickSwitcherError"));
    m_error->setTextFormat(Qt::PlainText);
    m_error->setWordWrap(true);
    m_error->hide();
    layout->addWidget(m_input);
    layout->addWidget(m_list);
    layout->addWidget(m_error);
    connect(m_input, &QLineEdit::textChanged, this, &QuickSwitcher::refill);
    connect(m_list, &QListWidget::itemActivated, this, &QuickSwitcher::activateCurrent);
    resize(460, 340);
    refill({});
}

void QuickSwitcher::popUp(QWidget *window)
{
    m_input->clear();
    m_error->hide();
    refill({});
    if (window) {
        const QRect r = window->geometry();
        move(r.x() + (r.width() - width()) / 2, r.y() + qMin(120, r.height() / 6));
    }
    show();
    raise();
    activateWindow();
    m_input->setFocus();
}

QString QuickSwitcher::errorText() const
{
    return m_error->isHidden() ? QString() : m_error->text();
}

void QuickSwitcher::refill(const QString &text)
{
    m_error->hide();
    m_list->clear();
    const QString wanted = text.trimmed();
    for (const panelregistry::Entry &e : panelregistry::entries()) {
        const QString name = QLatin1String(e.name);
        const QString title = panelregistry::title(name);
        if (!wanted.isEmpty() && !title.contains(wanted, Qt::CaseInsensitive)
            && !name.contains(wanted, Qt::CaseInsensitive))
            continue;
        auto *item = new QListWidgetItem(tr("%1 — %2").arg(title, panelregistry::groupTitle(e.group)), m_list);
        item->setData(kPanelRole, name);
    }
    // A key name is matched as typed, never trimmed: spaces are bytes of the name.
    if (!text.isEmpty()) {
        auto *item = new QListWidgetItem(tr("Open key %1").arg(text), m_list);
        item->setData(kPanelRole, QString());
    }
    // The best panel is the one whose name or title starts with what was typed.
    int best = 0;
    for (int row = 0; row < m_list->count(); ++row) {
        const QString name = m_list->item(row)->data(kPanelRole).toString();
        if (!name.isEmpty()
            && (name.startsWith(wanted, Qt::CaseInsensitive)
                || panelregistry::title(name).startsWith(wanted, Qt::CaseInsensitive))) {
            best = row;
            break;
        }
    }
    m_list->setCurrentRow(m_list->count() > 0 ? best : -1);
}

void QuickSwitcher::activateCurrent()
{
    const QListWidgetItem *item = m_list->currentItem();
    if (!item)
        return;
    const QString name = item->data(kPanelRole).toString();
    if (!name.isEmpty()) {
        hide();
        Q_EMIT panelChosen(name);
        return;
    }
    QString error;
    const auto key = bytesescape::unescape(m_input->text(), &error);
    if (!key) {
        m_error->setText(tr("Cannot read that name: %1").arg(error));
        m_error->show();
        return;
    }
    hide();
    Q_EMIT keyChosen(*key);
}

bool QuickSwitcher::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_input && event->type() == QEvent::KeyPress) {
        auto *key = static_cast<QKeyEvent *>(event);
        switch (key->key()) {
        case Qt::Key_Down:
        case Qt::Key_Up: {
            const int step = key->key() == Qt::Key_Down ? 1 : -1;
            const int row = m_list->currentRow() + step;
            if (row >= 0 && row < m_list->count())
                m_list->setCurrentRow(row);
            return true;
        }
        case Qt::Key_Return:
        case Qt::Key_Enter: activateCurrent(); return true;
        case Qt::Key_Escape: hide(); return true;
        default: break;
        }
    }
    return QFrame::eventFilter(watched, event);
}
