// SPDX-License-Identifier: GPL-3.0-or-later
#include "scanfeed.h"

#include "keytreemodel.h"

ScanFeed::ScanFeed(RedisClient *client, KeyTreeModel *model, QObject *parent)
    : QObject(parent), m_scanner(new KeyScanner(client, this)), m_model(model)
{
    KeyScanner *scanner = m_scanner;
    connect(scanner, &KeyScanner::batchAvailable, model, &KeyTreeModel::appendBatch);
    connect(scanner, &KeyScanner::progressChanged, this, [this](const ScanProgress &p) {
        m_scanning = true;
        m_progress = p;
        Q_EMIT progressChanged(p);
    });
    connect(scanner, &KeyScanner::finished, this, [this](const ScanProgress &p) {
        m_progress = p;
        m_scanning = false;
        Q_EMIT progressChanged(p);
        maybeComplete();
    });
    connect(model, &KeyTreeModel::pendingDrained, this, &ScanFeed::maybeComplete);
}

void ScanFeed::maybeComplete()
{
    if (!m_scanning && m_progress.finished && !m_model->hasPendingWork()) {
        ScanProgress done = m_progress;
        m_progress.finished = false; // report each completion once
        Q_EMIT completed(done);
    }
}
