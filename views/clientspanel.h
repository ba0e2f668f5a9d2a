// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clientactions.h"
#include "clientsreader.h"
#include "panel.h"

#include <QList>
#include <QString>

class QComboBox;
class QLabel;
class QPushButton;
class QStackedWidget;
class QTableView;
class QTimer;
class RedisClient;

// Connections and connection pools: CLIENT LIST read every couple of seconds while shown,
// grouped by name, library, address, user, database or command (or one row a connection),
// merged into the table so the selection stays; the churn of connections, the practice guides'
// hints, RedisLens's own connections marked, and cutting a connection or a group with
// CLIENT KILL ID after a confirmation that lists them.
class ClientsPanel : public Panel
{
    Q_OBJECT
public:
    static constexpr int kPollMs = 2000;
    // Model roles beside the row tables' own: true on RedisLens's own connections (and groups
    // made only of them).
    enum Role { OwnRole = RowTableRoles::FirstExtraRole };

    explicit ClientsPanel(RedisClient *client, QWidget *parent = nullptr);
    ~ClientsPanel() override;

    bool hasContent() const override { return m_hasContent; }

    // "connections" for one row a connection, or a clients::groupById() id ("name", "addr"…).
    void setGrouping(const QString &id);
    QString grouping() const;
    void setPollInterval(int ms);
    // Reads now (when no reading is on the wire).
    void refresh();

    void selectGroup(const QByteArray &key);
    void selectConnection(qint64 id);
    // The Cut button's work: asks (panelparts::confirm) what exactly will be cut, then cuts it.
    void killSelected();

    ClientsReader *reader() const { return m_reader; }
    ClientActions *actions() const { return m_actions; }
    const ClientsReading &reading() const { return m_reading; }
    QTableView *groupsView() const { return m_groupsView; }
    QTableView *connectionsView() const { return m_connectionsView; }
    QComboBox *groupingBox() const { return m_grouping; }
    QPushButton *killButton() const { return m_kill; }
    QString statusText() const;
    QString churnText() const;
    QString hintsText() const;
    QString noteText() const;
    QString resultText() const;

protected:
    void activeChanged(bool active) override;

private:
    QWidget *makeTables();
    void onReading(const ClientsReading &reading);
    void showChurn(const clients::Churn &churn);
    void showHints(const QList<clients::Hint> &hints);
    void showGroups();
    void showNote();
    void onKillFinished(const ClientKillResult &result);
    void updateKillButton();
    // What the selection would cut (RedisLens's own left out of a group), what it names, and
    // how many of RedisLens's own were left out.
    struct KillPlan
    {
        QList<ClientEntry> cut;
        int ownSpared = 0;
        QString what; // "the group billing-pool (by name)", "connection 12"
    };
    KillPlan killPlan() const;
    bool isGrouped() const;

    RedisClient *m_client;
    ClientsReader *m_reader;
    ClientActions *m_actions;
    QTimer *m_poll;
    RowTableModel<clients::Group> *m_groups = nullptr;
    RowTableModel<ClientEntry> *m_connections = nullptr;
    QComboBox *m_grouping = nullptr;
    QPushButton *m_kill = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_churn = nullptr;
    QLabel *m_hints = nullptr;
    QLabel *m_note = nullptr;
    QLabel *m_result = nullptr;
    QStackedWidget *m_stack = nullptr;
    QTableView *m_groupsView = nullptr;
    QTableView *m_connectionsView = nullptr;
    ClientsReading m_reading;
    QList<clients::Hint> m_hintList;
    bool m_hasContent = false;
};
