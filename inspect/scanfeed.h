// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keyscanner.h"

#include <QObject>

class KeyTreeModel;

// Scans with a KeyScanner of its own and feeds a KeyTreeModel: batches go to the model, the
// model reserves room once DBSIZE is known, and completed() fires when the scan is over *and*
// the model has applied every batch. The key browser and the benchmark use the same wiring.
class ScanFeed : public QObject
{
    Q_OBJECT
public:
    ScanFeed(RedisClient *client, KeyTreeModel *model, QObject *parent = nullptr);
    // Started, paused and cancelled by the key browser; other panels take its batches.
    KeyScanner *scanner() const { return m_scanner; }

Q_SIGNALS:
    void progressChanged(const ScanProgress &progress);
    void completed(const ScanProgress &progress);

private:
    void maybeComplete();

    KeyScanner *m_scanner;
    KeyTreeModel *m_model;
    ScanProgress m_progress;
    bool m_scanning = false;
};
