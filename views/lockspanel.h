// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "lockactions.h"
#include "locks.h"
#include "panel.h"
#include "patterns.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QString>
#include <functional>

class LocksModel;
class LocksReader;
class RedlockModel;
class RedlockReader;
struct ConnectionProfile;
struct RedlockLock;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableView;
class QTimer;
class RedisClient;

// Every lock the classifier found: resource, holder token, a live countdown of its TTL, its
// family and flags (no TTL, TTL far above the family's, value not token-like), most severe
// first. Release and extend with the holder's token, and a short explanation of what a
// single-node lock guarantees.
class LocksPanel : public Panel
{
    Q_OBJECT
public:
    static constexpr int kTickMs = 250;

    explicit LocksPanel(RedisClient *client, QWidget *parent = nullptr);

    bool hasContent() const override { return m_hasContent; }

    // PatternKind::Lock matches from the main window, after every rescan.
    void setMatches(const QList<PatternMatch> &matches);
    // Off only for tests about something else and scripted screenshots; the dialogs (panelparts::confirm)
    // have tests of their own.
    void setConfirmations(bool on) { m_confirm = on; }

    // The buttons' work, callable from tests: act on the selected lock with this token
    // (escaped text as shown, e.g. "3f1c…" or "\x00…"); each confirms first.
    void releaseSelected(const QString &token);
    void extendSelected(const QString &token, qint64 ttlMs);
    void selectKey(const QByteArray &key);
    QByteArray selectedKey() const;
    void showExplanation(bool on);

    static QString explanation();

    LocksReader *reader() const { return m_reader; }
    // The Redlock set's reader and model; null unless the profile names Redlock peers.
    RedlockReader *redlockReader() const { return m_redlock; }
    RedlockModel *redlockModel() const { return m_redlockModel; }
    QString redlockStatusText() const;
    LocksModel *model() const { return m_model; }
    LockActions *actions() const { return m_actions; }
    QTableView *view() const { return m_view; }
    QString statusText() const;
    QString resultText() const;
    QString summaryText() const;
    bool isExplanationVisible() const;
    QPushButton *releaseButton() const { return m_release; }
    QPushButton *extendButton() const { return m_extend; }

protected:
    void activeChanged(bool active) override;

private:
    void onLocks(const QList<LockInfo> &locks);
    QWidget *makeRedlockBox(const ConnectionProfile &profile);
    void onRedlock(const QList<RedlockLock> &locks);
    void showNoTtlBadge(int noTtl);
    void onSelectionChanged();
    void onActionFinished(const LockActionResult &result);
    void updateButtons();
    bool confirm(const QString &title, const QString &text);
    // Parses the token, asks 'question' (unless the action will refuse anyway), then acts.
    void actOnSelected(const QString &tokenText, const QString &title,
                       const std::function<QString(const QByteArray &token)> &question,
                       const std::function<void(const QByteArray &token)> &act);

    RedisClient *m_client;
    LocksReader *m_reader;
    LocksModel *m_model;
    LockActions *m_actions;
    QTimer *m_tick;
    QLabel *m_status = nullptr;
    QLabel *m_libraries = nullptr; // the libraries the catalogue named among the matches
    QLabel *m_summary = nullptr;
    QPushButton *m_explain = nullptr;
    QLabel *m_explanation = nullptr;
    QTableView *m_view = nullptr;
    QLineEdit *m_token = nullptr;
    QSpinBox *m_ttl = nullptr;
    QPushButton *m_release = nullptr;
    QPushButton *m_extend = nullptr;
    QLabel *m_result = nullptr;
    RedlockReader *m_redlock = nullptr;
    RedlockModel *m_redlockModel = nullptr;
    QLabel *m_redlockStatus = nullptr;
    QTableView *m_redlockView = nullptr;
    QByteArray m_selected;
    bool m_confirm = true;
    bool m_hasContent = false;
};
