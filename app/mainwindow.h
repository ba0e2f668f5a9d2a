// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "connectionprofile.h"
#include "keyscanner.h"
#include "savedconnection.h"

#include <QMainWindow>
#include <QPointer>

class CachesPanel;
class ClientsPanel;
class ProfilerPanel;
class PubSubPanel;
class ConsolePanel;
class Demo;
class LocksPanel;
class PatternIndex;
class PatternRulesFile;
class RateLimitsPanel;
class SessionsPanel;
class GeoDetectReader;
class GeoPanel;
class LeaderboardPanel;
class QueuesPanel;
class StreamsPanel;
class BulkDelete;
class BulkDeleteDialog;
class KeyActions;
class KeyBrowser;
class MemoryPanel;
class OverviewPanel;
class Panel;
class SlowlogPanel;
class TopologyPanel;
class TtlPanel;
class TriagePanel;
class NavigationSidebar;
class PanelAccess;
class QVBoxLayout;
class QAction;
class QActionGroup;
class QComboBox;
class QDockWidget;
class QLabel;
class QPalette;
class QStackedWidget;
class QuickSwitcher;
class QPushButton;
class RedisClient;
class Settings;
class ValueView;

// The main window: the navigation sidebar, the key browser in a dock beside it, the shown page
// (the value view or a panel), a banner for the connection's state. Two connections: one for the
// scan, one for everything interactive.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    MainWindow(const ConnectionProfile &profile, Settings *settings, QWidget *parent = nullptr);
    ~MainWindow() override;

    // Names accepted by --panel, in sidebar order.
    static QStringList panelNames();
    bool showPanel(const QString &name);
    QString currentPanel() const;

    // A saved connection's name, colour and environment tag: in the title, and a production
    // connection shows a banner in its colour.
    void setConnection(const SavedConnection &connection);
    QString environmentBannerText() const;
    // The permanent warning of a TLS connection that does not verify the server (--insecure).
    QString insecureBannerText() const;
    // In demo mode the scan waits for the seed to finish and the simulator starts after it.
    void attachDemo(Demo *demo);
    // Starts connecting; the first scan starts when the scan connection is ready.
    void start();
    // Renders the window once the first scan is done (and, for the value panel, the key is
    // open), writes the PNG and emits screenshotDone.
    void takeScreenshotWhenReady(const QString &file, const QString &panel);
    // Opens this escaped key name once connected.
    void openKeyWhenReady(const QByteArray &key);

    KeyBrowser *keyBrowser() const { return m_browser; }
    QDockWidget *keyBrowserDock() const { return m_browserDock; }
    NavigationSidebar *sidebar() const { return m_sidebar; }
    QuickSwitcher *quickSwitcher() const { return m_quickSwitcher; }
    ValueView *valueView() const { return m_valueView; }
    TriagePanel *triagePanel() const { return m_triage; }
    OverviewPanel *overviewPanel() const { return m_overview; }
    TtlPanel *ttlPanel() const { return m_ttl; }
    SlowlogPanel *slowlogPanel() const { return m_slowlog; }
    MemoryPanel *memoryPanel() const { return m_memory; }
    TopologyPanel *topologyPanel() const { return m_topology; }
    LeaderboardPanel *leaderboardPanel() const { return m_leaderboard; }
    GeoPanel *geoPanel() const { return m_geo; }
    QueuesPanel *queuesPanel() const { return m_queues; }
    StreamsPanel *streamsPanel() const { return m_streams; }
    GeoDetectReader *geoDetector() const { return m_geoDetector; }
    LocksPanel *locksPanel() const { return m_locks; }
    RateLimitsPanel *rateLimitsPanel() const { return m_rateLimits; }
    SessionsPanel *sessionsPanel() const { return m_sessions; }
    CachesPanel *cachesPanel() const { return m_caches; }
    ClientsPanel *clientsPanel() const { return m_clients; }
    PubSubPanel *pubSubPanel() const { return m_pubsub; }
    ProfilerPanel *profilerPanel() const { return m_profiler; }
    ConsolePanel *consolePanel() const { return m_console; }
    PatternIndex *patternIndex() const { return m_patterns; }
    PatternRulesFile *rulesFile() const { return m_rulesFile; }
    // The panel behind a --panel name; nullptr for "keys" and "value".
    Panel *panel(const QString &name) const;
    RedisClient *client() const { return m_client; }
    PanelAccess *panelAccess() const { return m_access; }
    QString bannerText() const;

    // Key operations on exact bytes. With 'confirm' a dialog says what will change first.
    void deleteKey(const QByteArray &key, bool confirm = true);
    void renameKey(const QByteArray &from, const QByteArray &to, bool confirm = true);
    // Keys → Delete keys matching…: the dialog, its pattern filled in (a dry run comes first).
    void openBulkDelete(const QByteArray &pattern = {});
    // Keys → Empty database…: asks for the connection's name to be typed, then FLUSHDB.
    void openEmptyDatabase();
    // What the user types to empty the database: the saved connection's name, or the address.
    QString nameToType() const;
    BulkDelete *bulkDelete() const { return m_bulkDelete; }

Q_SIGNALS:
    // File → Connect… (Ctrl+N): the connection manager, for another window.
    void connectRequested();
    void screenshotDone(bool ok, const QString &message);
    void keyDeleted(const QByteArray &key);
    void keyRenamed(const QByteArray &from, const QByteArray &to);
    void operationFailed(const QString &message);

protected:
    void closeEvent(QCloseEvent *event) override;
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void buildUi();
    void buildBanners(QWidget *central, QVBoxLayout *layout);
    void buildSettingsNotice(QWidget *central, QVBoxLayout *layout, const QPalette &warn);
    void connectParts();
    void renewFollower();
    void buildDocks();
    void buildMenus();
    void buildGoMenu();
    void onStateChanged();
    void onConnectionError(const QString &message, bool authProblem);
    void askPassword();
    void maybeStartFirstScan();
    // With a scan replica set: whether it is a replica of this server (INFO replication on
    // both); if not, the scan reads the server itself and the status bar says why.
    void checkScanReplica();
    void openPendingKey();
    void onScanCompleted(const ScanProgress &progress);
    void finishScreenshot();
    void connectKeyActions();
    void promptRename(const QByteArray &key);
    void buildKeysMenu();
    void updateWriteActions();
    void updateTitle();
    void updateEnvironmentBanner();
    // A cluster connection's notices and replacement reach the status bar and the panels.
    void wireCluster();
    // The status line's words on a Sentinel connection: the primary, its replicas, the sentinels.
    void describeSentinels();
    // The status line's words on a cluster (or on one node of it read as one server).
    QString clusterNote() const;
    // True when 'now' names another server process than 'known' (which takes 'now').
    static bool serverReplaced(QByteArray &known, const QByteArray &now);
    void addPanel(Panel *panel, const QString &name);
    // The window's own wiring of a panel (badges, keys it opens, filters it asks for).
    void connectPanel(Panel *panel, const QString &name);
    // Puts 'fresh' where the panel 'name' is, and deletes the old one.
    void replacePanel(const QString &name, Panel *fresh);
    // On a cluster, the overview, the slow log, the memory analysis, the clients and the
    // profiler each read the node the node bar names for them (the seed, or for memory every
    // primary, by default).
    void buildNodeBar(QWidget *parent);
    void updateNodeBar();
    void chooseNode(const QString &panel, const QString &address);
    Panel *makeServerPanel(const QString &name, RedisClient *client);
    // Only the panel on the current page of a visible, unminimised window polls.
    void updateActivePanels();
    void openKeyFromPanel(const QByteArray &key, KeyType type);
    void grabPanelWhenReady();
    // After a scan: which sorted sets are geo sets, which leaderboards (queues are neither).
    void classifySortedSets();
    void distributePatterns();
    void deliverPatterns();
    void showRulesEditor();

    ConnectionProfile m_profile;
    SavedConnection m_connection; // name, colour and tag when opened from the manager
    QLabel *m_environment = nullptr; // the production or read-only banner
    QLabel *m_insecure = nullptr; // TLS without verification
    Settings *m_settings;
    RedisClient *m_client = nullptr; // values and actions
    RedisClient *m_scanClient = nullptr; // the scan only
    KeyActions *m_keyActions = nullptr; // delete and rename, after the window asked
    BulkDelete *m_bulkDelete = nullptr; // Keys → Delete keys matching…
    QPointer<BulkDeleteDialog> m_bulkDialog; // one at a time: they share m_bulkDelete
    QAction *m_emptyDatabase = nullptr;
    QActionGroup *m_themeGroup = nullptr; // View → Theme, one checked; owned by its menu
    qint64 m_bulkRemoved = 0; // keys of this bulk delete dropped from the browser one by one
    bool m_bulkRescan = false; // too many for that: the browser scans again at the end
    KeyBrowser *m_browser = nullptr;
    ValueView *m_valueView = nullptr;
    OverviewPanel *m_overview = nullptr;
    TtlPanel *m_ttl = nullptr;
    SlowlogPanel *m_slowlog = nullptr;
    MemoryPanel *m_memory = nullptr;
    TopologyPanel *m_topology = nullptr;
    LeaderboardPanel *m_leaderboard = nullptr;
    GeoPanel *m_geo = nullptr;
    GeoDetectReader *m_geoDetector = nullptr;
    QueuesPanel *m_queues = nullptr;
    StreamsPanel *m_streams = nullptr;
    LocksPanel *m_locks = nullptr;
    RateLimitsPanel *m_rateLimits = nullptr;
    SessionsPanel *m_sessions = nullptr;
    CachesPanel *m_caches = nullptr;
    ClientsPanel *m_clients = nullptr;
    PubSubPanel *m_pubsub = nullptr;
    ProfilerPanel *m_profiler = nullptr;
    TriagePanel *m_triage = nullptr;
    ConsolePanel *m_console = nullptr;
    PatternIndex *m_patterns = nullptr;
    PatternRulesFile *m_rulesFile = nullptr;
    QList<QObject *> m_patternsStale; // pattern panels (and the browser's grouping) not told the latest verdicts
    QList<QPair<QString, Panel *>> m_panels; // --panel name → panel
    QWidget *m_nodeBar = nullptr;
    QComboBox *m_nodePicker = nullptr;
    QHash<QString, QString> m_panelNodes; // panel → "host:port" it reads; empty: the default
    QStackedWidget *m_pages = nullptr; // the value view and the panels, one shown at a time
    NavigationSidebar *m_sidebar = nullptr;
    QDockWidget *m_navigationDock = nullptr;
    QDockWidget *m_browserDock = nullptr;
    QuickSwitcher *m_quickSwitcher = nullptr;
    QLabel *m_banner = nullptr;
    PanelAccess *m_access = nullptr; // which panels the user may use
    QPushButton *m_bannerButton = nullptr;
    QLabel *m_stateLabel = nullptr;
    QLabel *m_scanLoadLabel = nullptr;
    QPointer<Demo> m_demo;
    bool m_demoSeeded = true;
    bool m_firstScanStarted = false;
    bool m_clusterWired = false;
    QString m_sentinelNote;
    enum class ReplicaCheck { None, Running, Done };
    ReplicaCheck m_replicaCheck = ReplicaCheck::None;
    QString m_scanReplicaNote; // the status bar's word on the scan's replica
    QByteArray m_runId; // the server process each connection last met (INFO's run_id)
    QByteArray m_scanRunId;
    bool m_firstScanDone = false;
    QString m_screenshotFile;
    QString m_screenshotPanel;
    QByteArray m_openKey; // may be the empty key name: m_hasOpenKey says whether there is one
    bool m_hasOpenKey = false;
};
