// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow's --screenshot: wait until the asked-for page has something worth showing, then
// render the window to a PNG.
#include "mainwindow.h"

#include "consolepanel.h"
#include "geopanel.h"
#include "georeader.h"
#include "keybrowser.h"
#include "keytreemodel.h"
#include "leaderboardpanel.h"
#include "memorypanel.h"
#include "overviewpanel.h"
#include "patternindex.h"
#include "queuespanel.h"
#include "slowlogmodel.h"
#include "slowlogpanel.h"
#include "streamspanel.h"
#include "streamsreader.h"
#include "valueview.h"

#include <QElapsedTimer>
#include <QPixmap>
#include <QTimer>
#include <QTreeView>
#include <functional>

void MainWindow::takeScreenshotWhenReady(const QString &file, const QString &panel)
{
    m_screenshotFile = file;
    m_screenshotPanel = panel;
    if (m_firstScanDone)
        onScanCompleted({});
}

void MainWindow::onScanCompleted(const ScanProgress &)
{
    m_firstScanDone = true;
    if (m_screenshotFile.isEmpty())
        return;
    showPanel(m_screenshotPanel);
    // Expand the first folders so the picture shows the tree, not only its top level.
    QTreeView *tree = m_browser->view();
    const QAbstractItemModel *model = tree->model();
    for (int row = 0; row < qMin(model->rowCount(), 3); ++row)
        tree->expand(model->index(row, 0));
    if (m_screenshotPanel == QLatin1String("value") && !m_valueView->reader()->hasKey()) {
        // Show a key that has something to see: a session hash when there is one, else the
        // first hash in the tree.
        QByteArray pick;
        QByteArray fallback;
        const auto *keys = m_browser->model();
        std::function<void(const QModelIndex &)> find = [&](const QModelIndex &parent) {
            for (int r = 0; r < keys->rowCount(parent) && pick.isEmpty(); ++r) {
                const QModelIndex idx = keys->index(r, 0, parent);
                if (keys->kindOf(idx) == KeyTreeModel::NodeKind::Folder)
                    find(idx);
                else if (keys->kindOf(idx) == KeyTreeModel::NodeKind::Key
                         && KeyType(keys->data(idx, KeyTreeModel::KeyTypeRole).toInt()) == KeyType::Hash) {
                    const QByteArray key = keys->keyAt(idx);
                    if (key.startsWith("session:"))
                        pick = key;
                    else if (fallback.isEmpty())
                        fallback = key;
                }
            }
        };
        find({});
        if (pick.isEmpty())
            pick = fallback;
        if (!pick.isEmpty()) {
            m_browser->selectKey(pick);
            connect(m_valueView, &ValueView::keyOpened, this, &MainWindow::finishScreenshot, Qt::SingleShotConnection);
            m_valueView->openKey(pick, KeyType::Hash);
            return;
        }
    }
    if (m_screenshotPanel == QLatin1String("keys")) {
        // The key browser's picture shows what RedisLens adds to a tree of names: the keys
        // grouped by the pattern they were recognised as, once the classifier has settled.
        const auto show = [this] {
            m_browser->setGrouping(KeyBrowser::Grouping::Pattern);
            QTreeView *byPattern = m_browser->patternView();
            for (int row = 0; row < byPattern->model()->rowCount(); ++row)
                byPattern->expand(byPattern->model()->index(row, 0));
            QTimer::singleShot(300, this, &MainWindow::finishScreenshot);
        };
        if (m_patterns->isIdle() && m_patterns->size() > 0)
            show();
        else
            connect(m_patterns, &PatternIndex::idle, this, show, Qt::SingleShotConnection);
        return;
    }
    if (panel(m_screenshotPanel)) {
        grabPanelWhenReady();
        return;
    }
    // Let the views lay out and paint what the last slice delivered.
    QTimer::singleShot(200, this, &MainWindow::finishScreenshot);
}

void MainWindow::grabPanelWhenReady()
{
    Panel *p = panel(m_screenshotPanel);
    // The memory panel measures only when asked; a screenshot of it asks.
    if (p == m_memory && !m_memory->hasContent() && !m_memory->isRunning())
        m_memory->startAnalysis();
    // The demo's pictures show its biggest board and its biggest geo set.
    if (p == m_leaderboard && !m_leaderboard->hasContent())
        m_leaderboard->openBusiest();
    // The stream list arrives after the scan (XINFO STREAM of each): look for the oldest
    // pending entry once it is there.
    if (p == m_streams && !m_streams->hasContent())
        connect(m_streams->reader(), &StreamsReader::streamsAvailable, m_streams, &StreamsPanel::openOldestPending,
                Qt::SingleShotConnection);
    else if (p == m_streams)
        m_streams->openOldestPending(); // the list came before the picture was asked for
    if (p == m_queues && !m_queues->hasContent())
        connect(m_queues, &Panel::contentReady, m_queues, &QueuesPanel::openLongest, Qt::SingleShotConnection);
    else if (p == m_queues)
        m_queues->openLongest();
    // On the demo the console opens with a library script loaded and run.
    if (p == m_console && !m_console->hasContent())
        m_console->loadScript(QStringLiteral("fixed_window_limit"), true);
    if (p == m_geo && !m_geo->hasContent()) {
        // The geo sets are known once the detector has sampled the scan's sorted sets.
        if (m_geoDetector->isIdle() && !m_geoDetector->keysOfKind(ZSetKind::Geo).isEmpty())
            m_geo->openLargest();
        else
            connect(m_geoDetector, &GeoDetectReader::idle, m_geo, &GeoPanel::openLargest, Qt::SingleShotConnection);
    }
    // What makes each panel worth a picture: charts over time need a few samples, and the
    // slowlog needs a few entries (the demo's bad habits log some within seconds).
    const auto worthIt = [this, p] {
        if (!p->hasContent())
            return false;
        if (p == m_slowlog)
            return m_slowlog->model()->rowCount() >= 3;
        return true;
    };
    const int settleMs = p == m_overview ? 6000 : 400;
    auto *poll = new QTimer(this);
    poll->setInterval(200);
    auto *waited = new QElapsedTimer;
    waited->start();
    connect(poll, &QTimer::timeout, this, [this, poll, waited, worthIt, settleMs] {
        // A panel that never gets there (no permission, say) is still worth its picture: it
        // shows why.
        if (!worthIt() && waited->elapsed() < 20000)
            return;
        poll->deleteLater();
        delete waited;
        QTimer::singleShot(settleMs, this, &MainWindow::finishScreenshot);
    });
    poll->start();
}

void MainWindow::finishScreenshot()
{
    if (m_screenshotFile.isEmpty())
        return;
    const QString file = m_screenshotFile;
    m_screenshotFile.clear();
    QTimer::singleShot(150, this, [this, file] {
        const QPixmap shot = grab();
        const bool ok = !shot.isNull() && shot.save(file, "PNG");
        Q_EMIT screenshotDone(ok, ok ? file : tr("cannot write %1").arg(file));
    });
}
