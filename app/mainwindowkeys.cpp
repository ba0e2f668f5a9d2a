// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow's key actions: what the key browser's menu asks for, confirmed and sent through
// KeyActions, and what the window shows when the server answers.
#include "mainwindow.h"

#include "bytesescape.h"
#include "keyactions.h"
#include "keybrowser.h"
#include "panelparts.h"
#include "patternindex.h"
#include "valuereader.h"
#include "valueview.h"

#include <QInputDialog>
#include <QMessageBox>
#include <QStatusBar>

void MainWindow::deleteKey(const QByteArray &key, bool confirm)
{
    if (confirm
        && !panelparts::confirm(this, tr("Delete key"),
                                tr("Delete the key %1 (%2 bytes) from %3?\nThis cannot be undone.")
                                    .arg(bytesescape::quoteIfNeeded(key.left(512)))
                                    .arg(key.size())
                                    .arg(m_profile.displayName())))
        return;
    m_keyActions->deleteKey(key);
}

void MainWindow::connectKeyActions()
{
    m_keyActions = new KeyActions(m_client, this);
    connect(m_keyActions, &KeyActions::deleteFailed, this, [this](const QByteArray &, const QString &message) {
        statusBar()->showMessage(tr("Delete failed: %1").arg(message), 8000);
        Q_EMIT operationFailed(message);
    });
    connect(m_keyActions, &KeyActions::keyDeleted, this, [this](const QByteArray &key, bool existed) {
        m_browser->removeKey(key);
        m_patterns->removeKey(key);
        if (m_valueView->reader()->hasKey() && m_valueView->currentKey() == key)
            m_valueView->clear();
        statusBar()->showMessage(existed ? tr("Deleted %1").arg(bytesescape::quoteIfNeeded(key.left(80)))
                                         : tr("%1 was already gone").arg(bytesescape::quoteIfNeeded(key.left(80))),
                                 5000);
        Q_EMIT keyDeleted(key);
    });
    connect(m_keyActions, &KeyActions::renameFailed, this,
            [this](const QByteArray &, const QByteArray &, const QString &why) {
                statusBar()->showMessage(tr("Rename failed: %1").arg(why), 8000);
                Q_EMIT operationFailed(why);
            });
    connect(m_keyActions, &KeyActions::keyRenamed, this,
            [this](const QByteArray &from, const ScannedKey &now, qint64 capturedAtMs) {
                // RENAMENX keeps the value and its TTL: the tree entry moves as it is, or appears under
                // its new name when the scan had not listed it yet.
                const QByteArray &to = now.name;
                m_browser->renameKey(from, now, capturedAtMs);
                if (m_valueView->reader()->hasKey() && m_valueView->currentKey() == from)
                    m_valueView->openKey(to, m_valueView->reader()->currentType());
                Q_EMIT keyRenamed(from, to);
            });
}

void MainWindow::promptRename(const QByteArray &key)
{
    bool ok = false;
    const QString text = QInputDialog::getText(
        this, tr("Rename key"), tr("New name (\\xNN escapes allowed). The rename fails if the name is taken."),
        QLineEdit::Normal, bytesescape::escape(key), &ok);
    if (!ok)
        return;
    QString error;
    const auto to = bytesescape::unescape(text, &error);
    if (!to) {
        QMessageBox::warning(this, tr("Rename key"), tr("Cannot read that name: %1").arg(error));
        return;
    }
    renameKey(key, *to, false);
}

void MainWindow::renameKey(const QByteArray &from, const QByteArray &to, bool confirm)
{
    if (confirm
        && !panelparts::confirm(this, tr("Rename key"),
                                tr("Rename %1 to %2 on %3? Nothing is overwritten: the rename fails if %2 exists.")
                                    .arg(bytesescape::quoteIfNeeded(from.left(256)),
                                         bytesescape::quoteIfNeeded(to.left(256)), m_profile.displayName())))
        return;
    m_keyActions->renameKey(from, to);
}
