// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keyscanner.h"

#include <QObject>

class KeyTreeModel;

// Wires a KeyScanner to a KeyTreeModel: batches go to the model, the model reserves room once
// DBSIZE is known, and completed() fires when the scan is over *and* the model has applied
// every batch. The key browser and the benchmark use the same wiring.
class ScanFeed : public QObject
{
    Q_OBJECT
public:
    ScanFeed(KeyScanner *scanner, KeyTreeModel *model, QObject *parent = nullptr);

Q_SIGNALS:
    void progressChanged(const ScanProgress &progress);
    void completed(const ScanProgress &progress);

private:
    void maybeComplete();

    KeyScanner *m_scanner;
    KeyTreeModel *m_model;
    ScanProgress m_progress;
    bool m_scanning = false;
    bool m_reserved = false;
};
