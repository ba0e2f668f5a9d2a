// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "luaresult.h"
#include "panel.h"
#include "rediscommand.h"

#include <QByteArray>
#include <QList>
#include <QPointer>
#include <QVersionNumber>
#include <optional>

class LuaEditor;
class LuaResultModel;
class QCheckBox;
class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;
class QTabWidget;
class QTableWidget;
class QTextBrowser;
class QTreeView;
class RedisClient;
class ScriptRunner;
struct RedisReply;
struct ScriptInfo;

// The Lua console: an editor, KEYS and ARGV as tables (\xNN escapes for binary), the script
// library with its documentation, the typed result of a run, and the history of runs.
// Scripts run with EVALSHA (SCRIPT LOAD on NOSCRIPT); on a read-only connection with
// EVALSHA_RO / EVAL_RO, which needs Redis 7.0. A BUSY server gets a SCRIPT KILL offer.
class ConsolePanel : public Panel
{
    Q_OBJECT
public:
    explicit ConsolePanel(RedisClient *client, QWidget *parent = nullptr);
    ~ConsolePanel() override;

    bool hasContent() const override { return m_hasContent; }

    // Loads a library script (lua/<name>.lua) with its example KEYS and ARGV; runs it when
    // 'run' is set (once the connection is ready). False when there is no such script.
    bool loadScript(const QString &libraryName, bool run);
    // Runs what the editor and the tables hold. Does nothing while a run is waiting.
    void run();
    // Stops waiting: the answer is dropped. The script itself keeps running on the server.
    void cancel();
    // SCRIPT KILL on a connection of its own (ours may be the one waiting for the script).
    void killScript();

    bool saveTo(const QString &path, QString *error = nullptr);
    bool openFrom(const QString &path, QString *error = nullptr);

    void setKeys(const QList<QByteArray> &keys);
    void setArgs(const QList<QByteArray> &args);
    // The tables' values unescaped; nullopt and a one-line reason on a malformed escape.
    std::optional<QList<QByteArray>> keys(QString *error = nullptr) const;
    std::optional<QList<QByteArray>> args(QString *error = nullptr) const;

    // Why a read-only connection to a server of 'version' cannot run scripts (EVAL_RO and
    // EVALSHA_RO arrived in 7.0); empty when it can, or when the version is unknown.
    static QString readOnlyRefusal(const QVersionNumber &version);
    // Tests pretend to talk to an older server; a null version means "ask the connection".
    void setServerVersionForTesting(const QVersionNumber &version) { m_versionOverride = version; }
    // Whoever opens cluster connections sets this; then KEYS must share one hash slot.
    void setClusterMode(bool on) { m_clusterMode = on; }
    // A cluster's primaries ("host:port" as reached, and a label each) for "Run on"; the first
    // choice is always where the keys live (the seed for a script without keys).
    void setClusterNodes(const QList<QPair<QString, QString>> &nodes);
    // The node the script runs on ("" for where the keys live); false when it is not listed.
    bool chooseNode(const QString &address);
    QComboBox *nodePicker() const { return m_node; }

    LuaEditor *editor() const { return m_editor; }
    LuaResultModel *resultModel() const { return m_result; }
    QTreeView *resultView() const { return m_resultView; }
    QTableWidget *keysTable() const { return m_keysTable; }
    QTableWidget *argsTable() const { return m_argsTable; }
    QListWidget *libraryList() const { return m_library; }
    QListWidget *historyList() const { return m_historyList; }
    QPushButton *runButton() const { return m_runButton; }
    QPushButton *cancelButton() const { return m_cancelButton; }
    QPushButton *killButton() const { return m_killButton; }
    QCheckBox *hexToggle() const { return m_hex; }
    const LuaHistory &history() const { return m_history; }
    QString noticeText() const;
    QString elapsedText() const;
    bool isRunning() const;
    // Restores a run from the history into the editor and the tables.
    void restoreRun(int historyRow);
    void insertLibraryScript(const QString &name);
    // Whether the history keeps KEYS and ARGV (lock tokens, ids); the window keeps the choice.
    void setHistoryKeepsArguments(bool keep);
    QCheckBox *historyArgumentsToggle() const { return m_keepArguments; }

Q_SIGNALS:
    // A run finished (with a result or an error) and the panel shows it.
    void runFinished();
    // SCRIPT KILL answered; 'reply' is invalid when it could not be sent.
    void killFinished(const RedisValue &reply);
    void historyKeepsArgumentsChanged(bool keep);

private:
    void buildUi();
    QWidget *buildResultPage();
    QWidget *buildLibraryPage();
    QWidget *buildHistoryPage();
    QWidget *buildParamTable(const QString &title, const QString &prefix, QTableWidget **table);
    void setParams(QTableWidget *table, const QString &prefix, const QStringList &values, const QStringList &meanings);
    std::optional<QList<QByteArray>> params(QTableWidget *table, const QString &prefix, QString *error) const;
    void renumber(QTableWidget *table, const QString &prefix);
    void onReply(const RedisReply &reply);
    void onKillFinished(const RedisValue &reply, const RedisError &error);
    void setNotice(const QString &text, bool error, bool offerKill = false);
    void setRunning(bool running);
    void showLibraryDoc();
    void refreshHistory();
    void markContent();
    bool readOnly() const;
    QVersionNumber serverVersion() const;

    RedisClient *m_client;
    ScriptRunner *m_runner;
    LuaEditor *m_editor = nullptr;
    LuaResultModel *m_result;
    QTreeView *m_resultView = nullptr;
    QTableWidget *m_keysTable = nullptr;
    QTableWidget *m_argsTable = nullptr;
    QTabWidget *m_tabs = nullptr;
    QListWidget *m_library = nullptr;
    QTextBrowser *m_libraryDoc = nullptr;
    QListWidget *m_historyList = nullptr;
    QCheckBox *m_keepArguments = nullptr;
    QPushButton *m_runButton = nullptr;
    QPushButton *m_cancelButton = nullptr;
    QPushButton *m_killButton = nullptr;
    QCheckBox *m_hex = nullptr;
    QLabel *m_mode = nullptr;
    QLabel *m_nodeLabel = nullptr;
    QComboBox *m_node = nullptr; // cluster: where the script runs
    QLabel *m_notice = nullptr;
    QLabel *m_elapsed = nullptr;
    struct
    {
        QString script;
        QList<QByteArray> keys;
        QList<QByteArray> args;
    } m_pending; // what the awaited run sent, for its history entry
    LuaHistory m_history;
    QVersionNumber m_versionOverride;
    bool m_clusterMode = false;
    bool m_hasContent = false;
    bool m_runWhenReady = false;
};
