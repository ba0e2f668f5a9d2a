// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "panel.h"
#include "streams.h"

#include <QByteArray>
#include <QList>

class QCPBars;
class QCPGraph;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableView;
class QTabWidget;
class QTimer;
class RedisClient;
class StreamActions;
class StreamsReader;
struct StreamActionResult;

// Streams found by the scan: their XINFO facts and sampled length, consumer groups and
// consumers, the pending entries list with filters, an idle-time histogram and poison entries,
// actions on pending entries, and a newest-first entries browser.
class StreamsPanel : public Panel
{
    Q_OBJECT
public:
    explicit StreamsPanel(RedisClient *client, QWidget *parent = nullptr);

    bool hasContent() const override { return m_hasContent; }

    void setStreams(const QList<QByteArray> &keys);
    void openStream(const QByteArray &key);
    // Opens the stream and group holding the pending entry added longest ago.
    void openOldestPending();
    // Off only for tests about something else and scripted screenshots; the dialogs (panelparts::confirm)
    // have tests of their own.
    void setConfirmations(bool on) { m_confirm = on; }
    // The dead-letter script (lua/stream_dead_letter.lua), from whoever links the script library.
    void setDeadLetterScript(const QByteArray &source, const QByteArray &sha1);

    StreamsReader *reader() const { return m_reader; }
    StreamsModel *streamsModel() const { return m_streamsModel; }
    StreamGroupsModel *groupsModel() const { return m_groupsModel; }
    StreamConsumersModel *consumersModel() const { return m_consumersModel; }
    PendingModel *pendingModel() const { return m_pendingModel; }
    StreamEntriesModel *entriesModel() const { return m_entriesModel; }
    StreamActions *actions() const { return m_actions; }
    QCustomPlot *histogramPlot() const { return m_histogram; }
    QCustomPlot *sparklinePlot() const { return m_sparkline; }
    QTableView *pendingView() const { return m_pendingView; }
    QString statusText() const;

    // The buttons' work, callable from tests; each confirms first unless confirmations are off.
    void claimSelected(const QByteArray &consumer);
    void autoClaim(const QByteArray &consumer, qint64 minIdleMs);
    void ackSelected();
    void deadLetterSelected(const QByteArray &deadKey);
    void trimStream(qint64 maxLen);

protected:
    void activeChanged(bool active) override;
    void changeEvent(QEvent *event) override;

private:
    void buildUi();
    void buildStreamsSide(QWidget *split);
    QWidget *buildGroupsTab();
    QWidget *buildActions(QWidget *parent);
    QWidget *buildEntriesTab();
    void connectReader();
    void onStreamsAvailable();
    void onGroupsAvailable(const QList<StreamGroupInfo> &groups);
    void onOldestPendingFound(const QByteArray &key, const QByteArray &group);
    void onPendingPage(const QList<PendingEntry> &rows);
    void applyStyle();
    void onStreamSelected();
    void onGroupSelected();
    void onPendingSelected();
    void onEntryLoaded(const QByteArray &id, const StreamEntry &entry);
    void onActionFinished(const StreamActionResult &result);
    void applyFilter();
    void updateSparkline();
    void updateHistogram();
    void updatePendingStatus();
    void updateActionButtons();
    void jumpEntries();
    void markContent();
    bool confirm(const QString &title, const QString &text);
    QList<QByteArray> selectedPendingIds() const;

    RedisClient *m_client;
    StreamsReader *m_reader;
    StreamsModel *m_streamsModel;
    StreamGroupsModel *m_groupsModel;
    StreamConsumersModel *m_consumersModel;
    PendingModel *m_pendingModel;
    StreamEntriesModel *m_entriesModel;
    StreamActions *m_actions;
    QTimer *m_sampleTimer;
    QLabel *m_status = nullptr;
    QLabel *m_streamFacts = nullptr;
    QTableView *m_streamsView = nullptr;
    QCustomPlot *m_sparkline = nullptr;
    QCPGraph *m_sparkGraph = nullptr;
    QTabWidget *m_tabs = nullptr;
    QTableView *m_groupsView = nullptr;
    QTableView *m_consumersView = nullptr;
    QTableView *m_pendingView = nullptr;
    QSpinBox *m_minIdle = nullptr;
    QLineEdit *m_consumerFilter = nullptr;
    QSpinBox *m_minDeliveries = nullptr;
    QSpinBox *m_poison = nullptr;
    QLabel *m_pageLabel = nullptr;
    QLabel *m_poisonLabel = nullptr;
    QPushButton *m_prevPage = nullptr;
    QPushButton *m_nextPage = nullptr;
    QCustomPlot *m_histogram = nullptr;
    QCPBars *m_bars = nullptr;
    QPlainTextEdit *m_entryView = nullptr;
    QLineEdit *m_targetConsumer = nullptr;
    QSpinBox *m_claimIdle = nullptr;
    QLineEdit *m_deadKey = nullptr;
    QSpinBox *m_trimLen = nullptr;
    QList<QPushButton *> m_actionButtons;
    QLineEdit *m_jump = nullptr;
    QTableView *m_entriesView = nullptr;
    QPlainTextEdit *m_entriesFields = nullptr;
    QByteArray m_pendingAfterOpen; // group to open once the groups of a stream arrive
    bool m_selectGroupOnGroups = false; // the stream was opened: select a group when its groups arrive
    bool m_confirm = true;
    bool m_hasContent = false;
};
