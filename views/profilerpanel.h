// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "monitorcapture.h"
#include "panel.h"
#include "profiler.h"
#include "rediserror.h"

#include <QList>

class HotKeysReader;
class PatternIndex;
class ProfilerReader;
class QCPGraph;
class QCPItemText;
class QCustomPlot;
class QLabel;
class QPushButton;
class QRadioButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTabWidget;
class QTableView;
class RedisClient;

// The commands themselves: rates and latencies per command from INFO commandstats deltas (read
// every second while the panel is shown, charted for the top five), an optional bounded MONITOR
// capture on a connection of its own (asked for with a warning; summarised as top commands, key
// families with their pattern kind, and clients), and hot keys (HOTKEYS on 8.6+, else OBJECT
// FREQ under an LFU policy, else why not). Everything it sends reads.
class ProfilerPanel : public Panel
{
    Q_OBJECT
public:
    enum Tab { CommandsTab, CaptureTab, HotKeysTab };
    static constexpr int kChartedCommands = 5;
    static constexpr int kTopRows = 50; // rows of a capture's tables

    explicit ProfilerPanel(RedisClient *client, QWidget *parent = nullptr);
    ~ProfilerPanel() override;

    bool hasContent() const override { return m_hasContent; }

    // The index the window keeps: a key it has classified shows its verdict without a read.
    void setPatternIndex(const PatternIndex *index);
    void setPollInterval(int ms);
    void showTab(Tab tab);
    // Rank (and chart) the commands by calls per second, or by server time.
    void setRankByTime(bool byTime);

    ProfilerReader *reader() const { return m_reader; }
    MonitorCapture *capture() const { return m_capture; }
    HotKeysReader *hotKeys() const { return m_hotKeys; }
    QCustomPlot *plot() const { return m_plot; }
    QTableView *commandsView() const { return m_commandsView; }
    // The commands on the chart, in legend order.
    QList<QByteArray> chartedCommands() const { return m_charted; }

    // "14 commands · 4,210 calls/s · server busy 8.1 % of one core · session 2m 05s".
    QString statusText() const;
    // Why the rates cannot be read; empty when they can.
    QString errorText() const;
    QString captureStatusText() const;
    QString hotKeysText() const;

public Q_SLOTS:
    // Asks first (MONITOR costs the server), then captures within the limits the spin boxes set.
    void startCapture();
    void stopCapture();
    void findHotKeys();
    // Forgets the session: the next reading is a new base.
    void resetSession();

protected:
    void activeChanged(bool active) override;
    void changeEvent(QEvent *event) override;

private:
    QWidget *buildCommandsTab();
    QWidget *buildCaptureTab();
    QWidget *buildHotKeysTab();
    void applyStyle();
    void onStats();
    void onReaderError(const RedisError &error);
    void rebuildChart();
    void updateStatus();
    void updateCaptureStatus();
    void showCaptureSummary();
    void onCaptureState(MonitorCapture::State state);
    void showHotKeys();
    QString userName() const;

    RedisClient *m_client;
    ProfilerReader *m_reader;
    MonitorCapture *m_capture;
    HotKeysReader *m_hotKeys;
    bool m_hasContent = false;
    bool m_rankByTime = false;
    QString m_errorText;
    QList<QByteArray> m_charted;

    QLabel *m_status = nullptr;
    QLabel *m_error = nullptr;
    QTabWidget *m_tabs = nullptr;

    QCustomPlot *m_plot = nullptr;
    QList<QCPGraph *> m_graphs;
    QCPItemText *m_plotEmpty = nullptr;
    QRadioButton *m_byCalls = nullptr;
    QRadioButton *m_byTime = nullptr;
    RowTableModel<profiler::CommandRate> *m_commands = nullptr;
    QSortFilterProxyModel *m_commandsProxy = nullptr;
    QTableView *m_commandsView = nullptr;

    QLabel *m_captureWarning = nullptr;
    QSpinBox *m_maxLines = nullptr;
    QSpinBox *m_maxSeconds = nullptr;
    QPushButton *m_startCapture = nullptr;
    QPushButton *m_stopCapture = nullptr;
    QLabel *m_captureStatus = nullptr;
    RowTableModel<profiler::MonitorSummary::Count> *m_captureCommands = nullptr;
    RowTableModel<profiler::MonitorSummary::Family> *m_captureFamilies = nullptr;
    RowTableModel<profiler::MonitorSummary::Client> *m_captureClients = nullptr;

    QPushButton *m_findHotKeys = nullptr;
    QLabel *m_hotKeysStatus = nullptr;
    RowTableModel<profiler::HotKey> *m_hotKeyRows = nullptr;
    QSortFilterProxyModel *m_hotKeysProxy = nullptr;
    QTableView *m_hotKeysView = nullptr;
};
