// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "leaderboardreader.h"
#include "panel.h"

class QCPBars;
class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QTableView;
class QVBoxLayout;
class RedisClient;

// Leaderboards: one sorted set read in pages (ZRANGE windows), a member's rank with its
// neighbours, ties made visible, a ZCOUNT score histogram, and a rolling total of several
// daily boards with ZUNION (read-only). Nothing here reads a board whole.
class LeaderboardPanel : public Panel
{
    Q_OBJECT
public:
    explicit LeaderboardPanel(RedisClient *client, QWidget *parent = nullptr);
    ~LeaderboardPanel() override;

    bool hasContent() const override { return m_hasContent; }

    // Sorted sets found by the scan (geo sets and queues already left out). At most
    // LeaderboardReader::kMaxCandidates are measured with ZCARD and offered, largest first.
    void setCandidates(const QList<QByteArray> &zsetKeys);
    void openBoard(const QByteArray &key);
    // Opens the largest candidate (now, or as soon as the candidates are measured).
    void openBusiest();
    void findMember(const QByteArray &member);
    // Combines the checked boards of the compare list.
    void compareChecked();

    QByteArray currentBoard() const { return m_reader->key(); }
    LeaderboardReader *reader() const { return m_reader; }
    LeaderboardModel *pageModel() const { return m_pageModel; }
    LeaderboardModel *unionModel() const { return m_unionModel; }
    QTableView *pageView() const { return m_table; }
    QTableView *unionView() const { return m_unionTable; }
    QListWidget *compareList() const { return m_compareList; }
    QComboBox *boardCombo() const { return m_boards; }
    QCustomPlot *plot() const { return m_plot; }

protected:
    void changeEvent(QEvent *event) override;

private:
    void buildHeader(QVBoxLayout *layout);
    void buildControls(QVBoxLayout *layout);
    QWidget *buildCompare(QWidget *parent);
    void connectReader();
    void onCandidates(const QList<BoardSize> &boards);
    void onHeader(const BoardHeader &header);
    void onPage(const LeaderboardPage &page);
    void onSearched(const MemberSearch &result);
    void onHistogram(const ScoreHistogram &histogram);
    void onUnion(const BoardUnion &result);
    void fillCompareList();
    void updatePageLabel();
    void styleChart();

    RedisClient *m_client;
    LeaderboardReader *m_reader;
    LeaderboardModel *m_pageModel;
    LeaderboardModel *m_unionModel;
    QList<BoardSize> m_candidates;
    QLabel *m_header = nullptr;
    QLabel *m_trim = nullptr;
    QLabel *m_error = nullptr;
    QComboBox *m_boards = nullptr;
    QComboBox *m_direction = nullptr;
    QPushButton *m_prev = nullptr;
    QPushButton *m_next = nullptr;
    QLabel *m_pageLabel = nullptr;
    QLineEdit *m_search = nullptr;
    QLabel *m_searchStatus = nullptr;
    QTableView *m_table = nullptr;
    QCustomPlot *m_plot = nullptr;
    QCPBars *m_bars = nullptr;
    QListWidget *m_compareList = nullptr;
    QPushButton *m_compareButton = nullptr;
    QLabel *m_compareStatus = nullptr;
    QTableView *m_unionTable = nullptr;
    bool m_openBusiestPending = false;
    bool m_hasContent = false;
};
