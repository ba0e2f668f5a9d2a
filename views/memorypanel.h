// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keyscanner.h"
#include "memoryreader.h"
#include "panel.h"

class NamespaceMemoryModel;
class QCPBars;
class QComboBox;
class QCustomPlot;
class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QTimer;
class QVBoxLayout;
class RedisClient;
class TopKeysModel;

// Memory by namespace: a paced scan with MEMORY USAGE (default samples) and each key's length
// command, summed per namespace and ranked. It runs only when asked: on a big production
// keyspace it is four commands per key, and the panel says how long that will take first.
class MemoryPanel : public Panel
{
    Q_OBJECT
public:
    // 'scanClient' is the connection the scan runs on (not the one serving values).
    explicit MemoryPanel(RedisClient *scanClient, QWidget *parent = nullptr);
    ~MemoryPanel() override;

    bool hasContent() const override { return m_finishedOnce; }
    bool isRunning() const;
    const MemoryStats &stats() const { return m_reader->stats(); }
    MemoryReader *reader() const { return m_reader; }
    NamespaceMemoryModel *namespaceModel() const { return m_namespaceModel; }
    TopKeysModel *topKeysModel() const { return m_topModel; }
    QCustomPlot *plot() const { return m_plot; }
    QTableView *namespaceView() const { return m_namespaceView; }
    QTableView *topKeysView() const { return m_topView; }

    void setScanRate(int commandsPerSecond) { m_scanRate = commandsPerSecond; }
    void setSeparator(const QByteArray &separator);
    void setDepth(int depth);
    // KeyType::Unknown: every type. byElements ranks by length instead of memory.
    void setTopKeysView(KeyType type, bool byElements);

public Q_SLOTS:
    void startAnalysis();
    void cancelAnalysis();

Q_SIGNALS:
    void analysisFinished(const ScanProgress &progress);

protected:
    void activeChanged(bool active) override;
    void changeEvent(QEvent *event) override;

private:
    void buildControls(QVBoxLayout *layout);
    QWidget *buildNamespaces(QWidget *parent);
    QWidget *buildTopKeys(QWidget *parent);
    void connectControls();
    void onKeyCount(qint64 keys);
    void onProgress(const ScanProgress &progress);
    void onFinished(const ScanProgress &progress);
    void refresh();
    void updateChart();
    void updateHint();
    void emitNamespaceFilter(const QByteArray &prefix);

    RedisClient *m_client;
    MemoryReader *m_reader;
    NamespaceMemoryModel *m_namespaceModel;
    TopKeysModel *m_topModel;
    QSortFilterProxyModel *m_namespaceProxy = nullptr;
    QSortFilterProxyModel *m_topProxy = nullptr;
    QPushButton *m_runButton = nullptr;
    QPushButton *m_pauseButton = nullptr;
    QPushButton *m_cancelButton = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_error = nullptr;
    QComboBox *m_depth = nullptr;
    QComboBox *m_topType = nullptr;
    QComboBox *m_topRank = nullptr;
    QCustomPlot *m_plot = nullptr;
    QCPBars *m_bars = nullptr;
    QTableView *m_namespaceView = nullptr;
    QTableView *m_topView = nullptr;
    QTimer *m_refreshTimer = nullptr;
    QList<QByteArray> m_barPrefixes; // bar i (from the top) is this namespace
    ScanProgress m_lastProgress;
    int m_scanRate = 0;
    qint64 m_dbsize = -1;
    bool m_dirty = false;
    bool m_finishedOnce = false;
    bool m_namespaceSized = false;
};
