// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "panel.h"
#include "pubsub.h"
#include "pubsubtail.h"

class PubSubListener;
class PubSubReader;
class QCheckBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableView;
class QTimer;
class RedisClient;
class TailModel;
template <typename Row> class RowTableModel;

// Pub/sub: the server's channels with their subscriber counts over time, the pattern
// subscriptions, subscribers whose output buffers grow towards their cut-off, the keyspace
// notifications setting explained, and a live tail of chosen channels and patterns on a
// connection of its own: bounded by a count and bytes, with each channel's rate, pause,
// a filter, each message decoded and masked like values, copy, and a confirmed test publish.
class PubSubPanel : public Panel
{
    Q_OBJECT
public:
    explicit PubSubPanel(RedisClient *client, QWidget *parent = nullptr);
    ~PubSubPanel() override;

    bool hasContent() const override { return m_hasContent; }

    // Starts the tail on these channels and patterns ("orders audit.*"), as the Listen button does.
    void listen(const QString &targets, bool shard = false);
    void stopListening();
    void setPaused(bool paused);
    bool isPaused() const { return m_paused; }
    void setFilter(const QString &text);
    void setBound(int count, qint64 bytes);
    // Publishes after asking; refused on a read-only connection. Returns false when refused or
    // declined.
    bool publishTestMessage(const QByteArray &channel, const QByteArray &message);
    // The selected messages as text, as Copy puts them on the clipboard.
    QString selectedMessagesText() const;
    // The key events of the connection's database for a glob, tailed ("__keyspace@0__:user:*").
    void tailKeyEvents(const QString &glob);

    const pubsub::TailBuffer &tail() const { return m_tail; }
    PubSubListener *listener() const { return m_listener; }
    PubSubReader *reader() const { return m_reader; }
    QTableView *messagesView() const { return m_messagesView; }
    QTableView *channelsView() const { return m_channelsView; }
    QTableView *slowView() const { return m_slowView; }
    QTableView *ratesView() const { return m_ratesView; }
    QPlainTextEdit *detail() const { return m_detail; }
    QLabel *statusLabel() const { return m_status; }
    QLabel *tailStatusLabel() const { return m_tailStatus; }
    QLabel *keyspaceLabel() const { return m_keyspace; }
    QPushButton *publishButton() const { return m_publish; }
    int shownMessages() const;

protected:
    void activeChanged(bool active) override;
    void changeEvent(QEvent *event) override;

private:
    QWidget *makeServerSide(QWidget *parent);
    QWidget *makeTail(QWidget *parent);
    void onSnapshot(const pubsub::Snapshot &snapshot);
    void onMessages(const QList<pubsub::TailMessage> &messages, qint64 dropped);
    void syncView();
    void showSelected();
    void updateTailStatus();
    void styleChart();
    void askPublish();
    void updatePublishButton();

    RedisClient *m_client;
    PubSubReader *m_reader;
    PubSubListener *m_listener;
    pubsub::TailBuffer m_tail;
    TailModel *m_messages;
    RowTableModel<pubsub::Channel> *m_channels;
    RowTableModel<pubsub::SlowSubscriber> *m_slow;
    RowTableModel<pubsub::ChannelRate> *m_rates;
    QTimer *m_poll;
    QTimer *m_viewTimer;
    QLabel *m_status = nullptr;
    QLabel *m_keyspace = nullptr;
    QLabel *m_tailStatus = nullptr;
    QLabel *m_slowLabel = nullptr;
    QTableView *m_channelsView = nullptr;
    QTableView *m_slowView = nullptr;
    QTableView *m_messagesView = nullptr;
    QTableView *m_ratesView = nullptr;
    QPlainTextEdit *m_detail = nullptr;
    QLineEdit *m_targets = nullptr;
    QLineEdit *m_filter = nullptr;
    QCheckBox *m_shard = nullptr;
    QCheckBox *m_reveal = nullptr;
    QPushButton *m_listen = nullptr;
    QPushButton *m_stop = nullptr;
    QPushButton *m_pause = nullptr;
    QPushButton *m_copy = nullptr;
    QPushButton *m_publish = nullptr;
    QPushButton *m_keyEvents = nullptr;
    QSpinBox *m_boundCount = nullptr;
    QSpinBox *m_boundMiB = nullptr;
    QCustomPlot *m_plot = nullptr;
    QString m_listenState;
    bool m_paused = false;
    bool m_hasContent = false;
    qint64 m_startMs = 0;
};
