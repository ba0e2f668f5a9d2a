// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "panel.h"
#include "panelparts.h"
#include "patterns.h"
#include "sessions.h"
#include "sessionsreader.h"

class QCPBars;
class QCheckBox;
class QCustomPlot;
class QLabel;
class QPushButton;
class QTableView;
class RedisClient;

// Sessions: count, TTL distribution, sliding vs fixed lifetime (observed across polls), size
// outliers, sessions without TTL, reverse indexes with dangling ids, and one session's
// contents on demand with secrets masked until revealed.
class SessionsPanel : public Panel
{
    Q_OBJECT
public:
    explicit SessionsPanel(RedisClient *client, QWidget *parent = nullptr);
    ~SessionsPanel() override;

    bool hasContent() const override { return m_hasContent; }
    // Session and SessionIndex matches (others are ignored); call again after every rescan.
    void setMatches(const QList<PatternMatch> &matches);

    // Reads the selected session's contents (the "Show contents" button).
    void showSelectedContents();

    SessionsReader *reader() const { return m_reader; }
    SessionsModel *sessionsModel() const { return m_sessions; }
    SessionIndexesModel *indexesModel() const { return m_indexes; }
    SessionContentsModel *contentsModel() const { return m_contentsModel; }
    QTableView *sessionsView() const { return m_sessionsView; }
    QTableView *indexesView() const { return m_indexesView; }
    QTableView *contentsView() const { return m_contentsView; }
    QCheckBox *revealBox() const { return m_reveal; }
    QCustomPlot *plot() const { return m_plot; }
    QLabel *summaryLabel() const { return m_summary; }
    QLabel *statusLabel() const { return m_status; }

protected:
    void activeChanged(bool active) override;
    void changeEvent(QEvent *event) override;

private:
    void onSessions(const SessionsResults &results);
    void onContents(const sessions::Contents &contents);
    // The parts of the panel, built once by the constructor.
    QWidget *makeChart(QWidget *parent);
    QWidget *makeIndexes(QWidget *parent);
    QWidget *makeSessionsTable();
    QWidget *makeContents();
    void connectSignals();
    void styleChart();
    QByteArray selectedKey(KeyType *type = nullptr) const;

    SessionsReader *m_reader;
    SessionsModel *m_sessions;
    SessionIndexesModel *m_indexes;
    SessionContentsModel *m_contentsModel;
    QLabel *m_status = nullptr;
    QLabel *m_libraries = nullptr; // the libraries the catalogue named among the matches
    QLabel *m_summary = nullptr;
    QCustomPlot *m_plot = nullptr;
    QCPBars *m_bars = nullptr;
    QCPBars *m_noTtlBars = nullptr;
    QTableView *m_sessionsView = nullptr;
    QTableView *m_indexesView = nullptr;
    QTableView *m_contentsView = nullptr;
    QLabel *m_contentsLabel = nullptr;
    QPushButton *m_showContents = nullptr;
    QPushButton *m_filterFamily = nullptr;
    QCheckBox *m_reveal = nullptr;
    QByteArray m_selected;
    bool m_hasContent = false;
};
