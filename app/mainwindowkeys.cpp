// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow's key actions: what the key browser's menu asks for, confirmed and sent through
// KeyActions, and what the window shows when the server answers.
#include "mainwindow.h"

#include "bulkdelete.h"
#include "bulkdeletedialog.h"
#include "bytesescape.h"
#include "emptydatabasedialog.h"
#include "keyactions.h"
#include "keybrowser.h"
#include "keyscanner.h"
#include "panelparts.h"
#include "patternindex.h"
#include "redisclient.h"
#include "settings.h"
#include "valuereader.h"
#include "valueview.h"

#include <QInputDialog>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>

namespace {
// A bulk delete drops keys from the browser one by one up to this many; past it the browser
// scans again when the delete ends (one removal costs as much as the keys of its folder).
constexpr qint64 kBrowserRemovals = 2000;
} // namespace

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
    connect(m_keyActions, &KeyActions::databaseEmptied, this, [this] {
        statusBar()->showMessage(tr("Database %1 emptied").arg(m_profile.db), 8000);
        m_patterns->clear();
        m_valueView->clear();
        m_browser->startScan();
    });
    connect(m_keyActions, &KeyActions::emptyFailed, this, [this](const QString &why) {
        statusBar()->showMessage(tr("Empty database failed: %1").arg(why), 8000);
        Q_EMIT operationFailed(why);
    });

    m_bulkDelete = new BulkDelete(m_client, this);
    m_bulkDelete->setScanRate(m_settings->scanRate());
    connect(m_settings, &Settings::scanRateChanged, m_bulkDelete, &BulkDelete::setScanRate);
    connect(m_bulkDelete, &BulkDelete::keysRemoved, this, [this](const QList<QByteArray> &keys) {
        const bool one = !m_bulkRescan && m_bulkRemoved + keys.size() <= kBrowserRemovals;
        for (const QByteArray &key : keys) {
            m_patterns->removeKey(key);
            if (one)
                m_browser->removeKey(key);
            if (m_valueView->reader()->hasKey() && m_valueView->currentKey() == key)
                m_valueView->clear();
        }
        m_bulkRemoved += keys.size();
        m_bulkRescan = !one;
    });
    connect(m_bulkDelete, &BulkDelete::finished, this, [this](const BulkDeleteReport &report) {
        if (report.stage != BulkDeleteReport::Stage::Deleting)
            return;
        statusBar()->showMessage(report.summary(), 15000);
        if (m_bulkRescan)
            m_browser->startScan();
        m_bulkRemoved = 0;
        m_bulkRescan = false;
    });
    updateWriteActions();
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

void MainWindow::buildKeysMenu()
{
    QMenu *keys = menuBar()->addMenu(tr("&Keys"));
    keys->setToolTipsVisible(true); // a write action that is off says why
    QAction *bulk = keys->addAction(tr("&Delete keys matching…"), this, [this] { openBulkDelete(); });
    bulk->setObjectName(QStringLiteral("bulkDeleteAction"));
    m_emptyDatabase
        = keys->addAction(tr("&Empty database %1…").arg(m_profile.db), this, &MainWindow::openEmptyDatabase);
    m_emptyDatabase->setObjectName(QStringLiteral("emptyDatabaseAction"));
}

void MainWindow::updateWriteActions()
{
    const bool readOnly = m_client->isReadOnly();
    const QString why = tr("The connection is read-only");
    m_browser->setWritable(!readOnly, why);
    if (m_emptyDatabase) {
        m_emptyDatabase->setEnabled(!readOnly);
        m_emptyDatabase->setToolTip(readOnly ? why
                                             : tr("FLUSHDB of this database, after typing the connection's name"));
    }
}

QString MainWindow::nameToType() const
{
    return m_profile.name.isEmpty() ? m_profile.displayName() : m_profile.name;
}

void MainWindow::openBulkDelete(const QByteArray &pattern)
{
    // One dialog at a time, as there is one bulk delete: asked again, it comes to the front.
    if (m_bulkDialog) {
        if (!pattern.isEmpty())
            m_bulkDialog->setPattern(pattern);
        m_bulkDialog->raise();
        m_bulkDialog->activateWindow();
        return;
    }
    const QString where = tr("database %1 of %2").arg(m_profile.db).arg(nameToType());
    m_bulkDialog = new BulkDeleteDialog(m_bulkDelete, where, pattern, this);
    m_bulkDialog->setAttribute(Qt::WA_DeleteOnClose);
    m_bulkDialog->show();
}

void MainWindow::openEmptyDatabase()
{
    if (m_client->isReadOnly())
        return;
    EmptyDatabaseDialog dialog(nameToType(), m_profile.db, this);
    // The dialog is the context: an answer after it closed goes nowhere.
    connect(m_keyActions, &KeyActions::databaseSizeRead, &dialog, &EmptyDatabaseDialog::setKeyCount);
    m_keyActions->readDatabaseSize();
    const bool go = dialog.exec() == QDialog::Accepted && dialog.nameMatches();
    if (go)
        m_keyActions->emptyDatabase();
}
