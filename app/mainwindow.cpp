// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"

#include "clusterrouter.h"
#include "sentinelresolver.h"

#include "navigationsidebar.h"
#include "panelaccess.h"
#include "panelregistry.h"
#include "quickswitcher.h"
#include "theme.h"

#include "cachespanel.h"
#include "clientspanel.h"
#include "consolepanel.h"
#include "demo.h"
#include "elidinglabel.h"
#include "format.h"
#include "geopanel.h"
#include "georeader.h"
#include "jobqueues.h"
#include "keybrowser.h"
#include "keyscanner.h"
#include "keyspacefollower.h"
#include "keytreemodel.h"
#include "leaderboardpanel.h"
#include "lockspanel.h"
#include "luaeditor.h"
#include "memorypanel.h"
#include "overviewpanel.h"
#include "patternindex.h"
#include "patternrules.h"
#include "profilerpanel.h"
#include "pubsubpanel.h"
#include "queuespanel.h"
#include "ratelimitspanel.h"
#include "redisclient.h"
#include "ruleseditor.h"
#include "scanpacingdialog.h"
#include "scriptlibrary.h"
#include "serverinfo.h"
#include "sessionspanel.h"
#include "settings.h"
#include "slowlogmodel.h"
#include "slowlogpanel.h"
#include "streamspanel.h"
#include "streamsreader.h"
#include "topologypanel.h"
#include "triagepanel.h"
#include "ttlpanel.h"
#include "valuereader.h"
#include "valueview.h"

#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>
#include <QWindow>

MainWindow::MainWindow(const ConnectionProfile &profile, Settings *settings, QWidget *parent)
    : QMainWindow(parent), m_profile(profile), m_settings(settings)
{
    m_client = new RedisClient(profile, this);
    m_scanClient = new RedisClient(profile.scanProfile(), this);
    // The desktop's look unless the user chose Fusion light or dark.
    if (settings->theme() != theme::Theme::System)
        theme::apply(settings->theme());
    connect(settings, &Settings::themeChanged, this, [](theme::Theme t) { theme::apply(t); });
    buildUi();
    buildMenus();
    connectKeyActions();
    updateEnvironmentBanner();
    updateTitle();
    if (!settings->windowGeometry().isEmpty())
        restoreGeometry(settings->windowGeometry());
    else
        resize(1400, 860);
    restoreState(settings->windowState());

    connect(m_client, &RedisClient::stateChanged, this, &MainWindow::onStateChanged);
    connect(m_scanClient, &RedisClient::stateChanged, this, &MainWindow::onStateChanged);
    connect(m_scanClient, &RedisClient::ready, this, &MainWindow::maybeStartFirstScan);
    connect(m_client, &RedisClient::ready, this, &MainWindow::maybeStartFirstScan); // the replica check needs both
    // Another server process behind the same address (a restart, a failover): what the window
    // shows came from the old one. The scan's connection starts the browser over; the other
    // refreshes the value and forgets the patterns read.
    connect(m_scanClient, &RedisClient::ready, this, [this](const ServerFacts &facts) {
        if (serverReplaced(m_scanRunId, facts.runId) && m_firstScanStarted)
            m_browser->startScan();
    });
    connect(m_client, &RedisClient::ready, this, [this](const ServerFacts &facts) {
        if (serverReplaced(m_runId, facts.runId)) {
            statusBar()->showMessage(tr("%1 is another server process now (restarted or failed over): "
                                        "what was shown is being read again")
                                         .arg(m_profile.displayName()),
                                     15000);
            m_patterns->clear();
            if (m_valueView->reader()->hasKey())
                m_valueView->refresh();
        }
        wireCluster();
        describeSentinels();
        m_access->refresh();
        updateTitle();
        updateWriteActions();
        onStateChanged(); // the facts (version, read-only) arrive with ready, after the state
        openPendingKey();
    });
    connect(m_client, &RedisClient::connectionError, this,
            [this](const RedisError &e) { onConnectionError(e.message, e.kind == RedisError::Kind::Auth); });
}

MainWindow::~MainWindow()
{
    // The browser's scan job lives on the scan connection's thread: end it first.
    delete m_browser;
    m_browser = nullptr;
}

QStringList MainWindow::panelNames()
{
    return panelregistry::names();
}

// Above the pages: the production banner, the --insecure warning and the connection's state.
void MainWindow::buildBanners(QWidget *central, QVBoxLayout *layout)
{
    QPalette warn = central->palette();
    warn.setColor(QPalette::Window, QColor(0xf5, 0xc2, 0x42));
    warn.setColor(QPalette::WindowText, Qt::black);
    // A production or read-only connection says so above everything, in its colour.
    m_environment = new QLabel(central);
    m_environment->setObjectName(QStringLiteral("environmentBanner"));
    m_environment->setAutoFillBackground(true);
    m_environment->setContentsMargins(8, 3, 8, 3);
    m_environment->hide();
    layout->addWidget(m_environment);
    // --insecure stays in sight for as long as the window is open.
    m_insecure = new QLabel(central);
    m_insecure->setObjectName(QStringLiteral("insecureBanner"));
    m_insecure->setWordWrap(true);
    m_insecure->setContentsMargins(8, 3, 8, 3);
    m_insecure->setText(tr("<b>TLS without verification</b>: the server's certificate is not checked (--insecure), "
                           "so anyone between here and %1 could read and change what passes.")
                            .arg(m_profile.displayName().toHtmlEscaped()));
    m_insecure->setAutoFillBackground(true);
    m_insecure->setPalette(warn);
    m_insecure->setVisible(m_profile.tls && m_profile.tlsInsecure);
    layout->addWidget(m_insecure);
    auto *bannerRow = new QHBoxLayout;
    m_banner = new QLabel(central);
    m_banner->setObjectName(QStringLiteral("connectionBanner"));
    m_banner->setWordWrap(true);
    m_banner->setAutoFillBackground(true);
    m_banner->setPalette(warn);
    m_banner->setContentsMargins(8, 4, 8, 4);
    m_banner->hide();
    m_bannerButton = new QPushButton(tr("Enter password…"), central);
    m_bannerButton->hide();
    connect(m_bannerButton, &QPushButton::clicked, this, &MainWindow::askPassword);
    bannerRow->addWidget(m_banner, 1);
    bannerRow->addWidget(m_bannerButton);
    layout->addLayout(bannerRow);
    buildSettingsNotice(central, layout, warn);
}

// A settings file that was damaged (kept aside) or cannot be written: said until dismissed.
void MainWindow::buildSettingsNotice(QWidget *central, QVBoxLayout *layout, const QPalette &warn)
{
    auto *row = new QWidget(central);
    row->setObjectName(QStringLiteral("settingsNotice"));
    row->setAutoFillBackground(true);
    row->setPalette(warn);
    auto *rowLayout = new QHBoxLayout(row);
    rowLayout->setContentsMargins(8, 3, 4, 3);
    auto *text = new QLabel(row);
    text->setWordWrap(true);
    text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    rowLayout->addWidget(text, 1);
    auto *dismiss = new QPushButton(tr("Dismiss"), row);
    connect(dismiss, &QPushButton::clicked, row, &QWidget::hide);
    rowLayout->addWidget(dismiss);
    layout->addWidget(row);
    const auto show = [row, text](const QString &problem) {
        text->setText(problem);
        row->setVisible(!problem.isEmpty());
    };
    show(m_settings->problem());
    connect(m_settings, &Settings::problemFound, row, show);
}

void MainWindow::buildUi()
{
    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(6, 6, 6, 6);

    buildBanners(central, layout);

    m_browser = new KeyBrowser(m_scanClient, this);
    m_browser->setScanRate(m_settings->scanRate());
    m_browser->setShowMemory(m_settings->showMemory());
    m_browser->setSeparator(m_settings->separator());
    m_browser->model()->setChildLimit(m_settings->childLimit());
    renewFollower();
    m_pages = new QStackedWidget(central);
    m_pages->setObjectName(QStringLiteral("panels"));
    m_valueView = new ValueView(m_client, m_pages);
    m_valueView->setDecodeCap(qint64(m_settings->decodeCapMiB()) * 1024 * 1024);
    connect(m_settings, &Settings::decodeCapChanged, m_valueView,
            [this](int mib) { m_valueView->setDecodeCap(qint64(mib) * 1024 * 1024); });
    m_pages->addWidget(m_valueView);
    // The triage comes first: what is wrong, worst first, before any panel of its own.
    m_triage = new TriagePanel(m_client, m_pages);
    m_triage->setPanelTitles([](const QString &name) { return panelregistry::title(name); });
    if (TriageThresholds t; QFileInfo::exists(TriageThresholds::userFile())) {
        const QString why = t.load(TriageThresholds::userFile());
        if (why.isEmpty())
            m_triage->setThresholds(t);
        else
            QTimer::singleShot(0, this,
                               [this, why] { statusBar()->showMessage(tr("Triage thresholds: %1").arg(why), 15000); });
    }
    addPanel(m_triage, QStringLiteral("triage"));
    m_pages->setCurrentWidget(m_triage);
    addPanel(makeServerPanel(QStringLiteral("overview"), m_client), QStringLiteral("overview"));
    m_ttl = new TtlPanel(m_client, m_pages);
    m_ttl->setSeparator(m_settings->separator());
    addPanel(m_ttl, QStringLiteral("ttl"));
    addPanel(makeServerPanel(QStringLiteral("slowlog"), m_client), QStringLiteral("slowlog"));
    addPanel(makeServerPanel(QStringLiteral("memory"), m_scanClient), QStringLiteral("memory"));
    m_topology = new TopologyPanel(m_client, m_pages);
    addPanel(m_topology, QStringLiteral("topology"));
    addPanel(makeServerPanel(QStringLiteral("clients"), m_client), QStringLiteral("clients"));
    m_pubsub = new PubSubPanel(m_client, m_pages);
    addPanel(m_pubsub, QStringLiteral("pubsub"));
    m_leaderboard = new LeaderboardPanel(m_client, m_pages);
    addPanel(m_leaderboard, QStringLiteral("leaderboard"));
    m_geo = new GeoPanel(m_client, m_pages);
    addPanel(m_geo, QStringLiteral("geo"));
    m_geoDetector = new GeoDetectReader(m_client, this);
    m_streams = new StreamsPanel(m_client, m_pages);
    // The dead-letter action runs the same script as the patterns do (lua/).
    if (const auto script = ScriptLibrary::instance().find(QStringLiteral("stream_dead_letter")))
        m_streams->setDeadLetterScript(script->source, script->sha1);
    addPanel(m_streams, QStringLiteral("streams"));
    // The user's pattern rules live beside the settings, one file for every connection, and
    // are picked up live when edited.
    m_rulesFile = new PatternRulesFile(
        QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation) + QStringLiteral("/rules.json"), this);
    // Sampling for the classifier runs on the scan connection, paced like the scan.
    m_patterns = new PatternIndex(m_scanClient, this);
    m_patterns->setRules(m_rulesFile->rules());
    m_patterns->setMaxCommandsPerSecond(m_settings->scanRate());
    m_triage->setPatternIndex(m_patterns);
    addPanel(makeServerPanel(QStringLiteral("profiler"), m_client), QStringLiteral("profiler"));
    m_queues = new QueuesPanel(m_client, m_pages);
    m_queues->setRulesFile(m_rulesFile);
    addPanel(m_queues, QStringLiteral("queues"));
    m_locks = new LocksPanel(m_client, m_pages);
    addPanel(m_locks, QStringLiteral("locks"));
    m_rateLimits = new RateLimitsPanel(m_client, m_pages);
    addPanel(m_rateLimits, QStringLiteral("ratelimits"));
    m_sessions = new SessionsPanel(m_client, m_pages);
    addPanel(m_sessions, QStringLiteral("sessions"));
    m_caches = new CachesPanel(m_client, m_pages);
    addPanel(m_caches, QStringLiteral("caches"));
    m_console = new ConsolePanel(m_client, m_pages);
    m_console->setHistoryKeepsArguments(m_settings->luaHistoryArguments());
    connect(m_console, &ConsolePanel::historyKeepsArgumentsChanged, m_settings, &Settings::setLuaHistoryArguments);
    addPanel(m_console, QStringLiteral("console"));
    connect(m_pages, &QStackedWidget::currentChanged, this, [this] {
        m_sidebar->setCurrent(currentPanel());
        if (m_access)
            m_access->showFor(currentPanel());
        updateNodeBar();
        updateActivePanels();
    });
    // What the connection's user may not do on the page shown (PanelAccess).
    auto *accessLine = new QLabel(central);
    accessLine->setObjectName(QStringLiteral("accessLine"));
    accessLine->setWordWrap(true);
    accessLine->setContentsMargins(8, 2, 8, 2);
    layout->addWidget(accessLine);
    buildNodeBar(central);
    layout->addWidget(m_nodeBar);
    layout->addWidget(m_pages, 1);
    setCentralWidget(central);
    buildDocks();
    m_access = new PanelAccess(m_client, m_sidebar, accessLine, this);

    // What the key scan costs the server while it runs, and why it goes at that pace.
    m_scanLoadLabel = new ElidingLabel(this);
    m_scanLoadLabel->setObjectName(QStringLiteral("scanLoad"));
    m_scanLoadLabel->setContentsMargins(0, 0, 16, 0); // apart from the connection's state beside it
    m_scanLoadLabel->hide();
    statusBar()->addPermanentWidget(m_scanLoadLabel);
    m_stateLabel = new QLabel(this);
    m_stateLabel->setObjectName(QStringLiteral("connectionState"));
    statusBar()->addPermanentWidget(m_stateLabel);
    connectParts();
}

// Key events follow the scan's connection (a replica, when the scan reads one): a new one for
// every change of its profile.
void MainWindow::renewFollower()
{
    const bool following = m_browser->isFollowing();
    m_browser->setFollower(nullptr);
    if (auto *old = m_browser->findChild<KeyspaceFollower *>(QString(), Qt::FindDirectChildrenOnly))
        old->deleteLater();
    auto *follower = new KeyspaceFollower(m_scanClient->profile(), m_scanClient->profile().db, m_browser);
    m_browser->setFollower(follower);
    // Following goes on with the new connection once it has read the setting and may.
    if (following)
        connect(
            follower, &KeyspaceFollower::settingRead, m_browser,
            [browser = m_browser](const keyspaceevents::Setting &setting) {
                if (setting.followable)
                    browser->setFollowing(true);
            },
            Qt::SingleShotConnection);
}

void MainWindow::connectParts()
{
    connect(m_browser, &KeyBrowser::keyActivated, this, [this](const QByteArray &key, KeyType type) {
        m_valueView->openKey(key, type);
        showPanel(QStringLiteral("value"));
    });
    connect(m_browser, &KeyBrowser::scanCompleted, this, &MainWindow::onScanCompleted);
    connect(m_browser, &KeyBrowser::copyRequested, this, [this](const QString &text) {
        QGuiApplication::clipboard()->setText(text);
        statusBar()->showMessage(tr("Copied %1").arg(text.left(80)), 3000);
    });
    connect(m_browser, &KeyBrowser::deleteRequested, this, [this](const QByteArray &key) { deleteKey(key, true); });
    connect(m_browser, &KeyBrowser::renameRequested, this, &MainWindow::promptRename);
    connect(m_browser, &KeyBrowser::bulkDeleteRequested, this,
            [this](const QByteArray &pattern) { openBulkDelete(pattern); });
    connect(m_settings, &Settings::separatorChanged, m_browser, &KeyBrowser::setSeparator);
    connect(m_settings, &Settings::separatorChanged, m_ttl, &TtlPanel::setSeparator);
    // The TTL panel refines the server's own figures with what the key browser's scan reads.
    connect(m_browser, &KeyBrowser::scanStarted, m_ttl, &TtlPanel::scanStarted);
    connect(m_browser->scanner(), &KeyScanner::batchAvailable, m_ttl, &TtlPanel::addScanBatch);
    connect(m_browser->scanner(), &KeyScanner::progressChanged, m_ttl, &TtlPanel::setScanProgress);
    connect(m_browser->scanner(), &KeyScanner::progressChanged, m_patterns, &PatternIndex::followScanPace);
    connect(m_browser->scanner(), &KeyScanner::progressChanged, this, [this](const ScanProgress &p) {
        KeyspaceCoverage coverage;
        coverage.scanned = true;
        coverage.examined = m_patterns->size();
        coverage.total = p.dbsize;
        coverage.complete = p.finished && !p.error;
        m_triage->setCoverage(coverage);
        const QString text = tr("Scan: %1").arg(format::scanPace(p));
        // The reason can be long: in a narrow window the label ends with "…", the tooltip has it all.
        m_scanLoadLabel->setText(text);
        m_scanLoadLabel->setToolTip(text);
        m_scanLoadLabel->setVisible(!p.finished);
    });
    connect(m_browser->scanner(), &KeyScanner::finished, m_scanLoadLabel, &QLabel::hide);
    connect(m_browser->scanner(), &KeyScanner::finished, m_ttl, [this] { m_ttl->scanFinished(); });
    // Sorted sets are told apart (geo, leaderboard, delayed jobs) by sampling them after a scan.
    connect(m_browser, &KeyBrowser::scanStarted, m_geoDetector, &GeoDetectReader::restart);
    connect(m_browser, &KeyBrowser::scanCompleted, this, &MainWindow::classifySortedSets);
    // Every scanned key is classified as it arrives; the browser's pattern column fills in
    // batches, the panels and the by-pattern grouping get the settled verdicts.
    connect(m_browser, &KeyBrowser::scanStarted, m_patterns, &PatternIndex::clear);
    connect(m_browser, &KeyBrowser::scanStarted, m_triage, [this] { m_triage->setCoverage({}); });
    connect(m_browser->scanner(), &KeyScanner::batchAvailable, m_patterns,
            [this](const ScanBatch &batch) { m_patterns->addKeys(batch.keys); });
    m_browser->setPatternLookup([index = m_patterns](const QByteArray &key) { return index->match(key); });
    connect(m_patterns, &PatternIndex::classified, m_browser, &KeyBrowser::patternsChanged);
    connect(m_patterns, &PatternIndex::idle, this, &MainWindow::distributePatterns);
    connect(m_patterns, &PatternIndex::idle, m_triage, [this] {
        // An index cleared for a scan that has not reported yet has nothing to judge.
        KeyspaceCoverage coverage = m_triage->coverage();
        if (!coverage.scanned)
            return;
        coverage.examined = m_patterns->size();
        coverage.complete = !m_browser->scanner()->isRunning();
        m_triage->setCoverage(coverage);
        m_triage->keyspaceSettled();
    });
    connect(m_triage, &TriagePanel::openPanelRequested, this, &MainWindow::showPanel);
    const QString connection = ConnectionProfile::maskedUri(m_profile.toUri());
    m_triage->setDismissed(m_settings->dismissedFindings(connection));
    connect(m_triage, &TriagePanel::dismissedChanged, m_settings,
            [this, connection](const QStringList &ids) { m_settings->setDismissedFindings(connection, ids); });
    connect(m_browser, &KeyBrowser::patternGroupingShown, this, &MainWindow::deliverPatterns);
    connect(m_patterns, &PatternIndex::removed, this, [this](const QList<QByteArray> &keys) {
        for (const QByteArray &key : keys)
            m_browser->removeKey(key);
    });
    connect(m_rulesFile, &PatternRulesFile::rulesChanged, m_patterns, &PatternIndex::setRules);
    m_valueView->setDecodeRules(m_rulesFile->rules());
    connect(m_rulesFile, &PatternRulesFile::rulesChanged, m_valueView, &ValueView::setDecodeRules);
    connect(m_rulesFile, &PatternRulesFile::loadFailed, this, [this](const QString &message) {
        statusBar()->showMessage(tr("Pattern rules not reloaded: %1").arg(message), 15000);
    });
    connect(m_geoDetector, &GeoDetectReader::verdict, this, [this](const QByteArray &key, ZSetKind kind) {
        if (kind == ZSetKind::Geo)
            m_browser->setTypeHint(key, KeyTreeModel::TypeHint::Geo);
    });
    connect(m_geoDetector, &GeoDetectReader::idle, this, [this] {
        m_leaderboard->setCandidates(m_geoDetector->keysOfKind(ZSetKind::Leaderboard));
        m_geo->setCandidates(m_geoDetector->keysOfKind(ZSetKind::Geo));
    });
    connect(m_browser, &KeyBrowser::panelRequested, this, [this](const QByteArray &key, const QString &name) {
        if (name == QLatin1String("leaderboard"))
            m_leaderboard->openBoard(key);
        else if (name == QLatin1String("geo"))
            m_geo->openGeoSet(key);
        showPanel(name);
    });
    connect(m_settings, &Settings::showMemoryChanged, m_browser, &KeyBrowser::setShowMemory);
    connect(m_settings, &Settings::scanRateChanged, m_browser, &KeyBrowser::setScanRate);
    connect(m_settings, &Settings::scanRateChanged, m_patterns, &PatternIndex::setMaxCommandsPerSecond);
}

void MainWindow::buildDocks()
{
    // The sidebar is always there: a dock without a title bar, so the key browser's dock can
    // sit beside it or on the other side of the pages.
    m_sidebar = new NavigationSidebar(this);
    m_navigationDock = new QDockWidget(tr("Navigation"), this);
    m_navigationDock->setObjectName(QStringLiteral("navigationDock"));
    m_navigationDock->setFeatures(QDockWidget::NoDockWidgetFeatures);
    m_navigationDock->setAllowedAreas(Qt::LeftDockWidgetArea);
    m_navigationDock->setTitleBarWidget(new QWidget(m_navigationDock));
    m_navigationDock->setWidget(m_sidebar);
    addDockWidget(Qt::LeftDockWidgetArea, m_navigationDock);
    connect(m_sidebar, &NavigationSidebar::entryActivated, this, [this](const QString &name) {
        showPanel(name);
        // "Keys" is the browser's dock, not a page: the page on show stays marked.
        m_sidebar->setCurrent(currentPanel());
    });
    m_sidebar->setCurrent(currentPanel());

    m_browserDock = new QDockWidget(tr("Key browser"), this);
    m_browserDock->setObjectName(QStringLiteral("keyBrowserDock"));
    m_browserDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetClosable);
    m_browserDock->setAllowedAreas(Qt::LeftDockWidgetArea | Qt::RightDockWidgetArea);
    m_browserDock->setWidget(m_browser);
    m_browserDock->setMinimumWidth(240); // a wide panel squeezes the docks: keep the tree usable
    addDockWidget(Qt::LeftDockWidgetArea, m_browserDock);
    splitDockWidget(m_navigationDock, m_browserDock, Qt::Horizontal);
    // Fifteen panels have wide size hints; without sizes the tree would get what is left.
    resizeDocks({m_navigationDock, m_browserDock}, {150, 540}, Qt::Horizontal);
}

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Connect…"), QKeySequence::New, this, &MainWindow::connectRequested);
    file->addAction(tr("&Rescan"), QKeySequence::Refresh, m_browser, &KeyBrowser::startScan);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    buildKeysMenu();

    QMenu *view = menuBar()->addMenu(tr("&View"));
    QAction *memory = view->addAction(tr("Measure &memory per key (MEMORY USAGE)"));
    memory->setCheckable(true);
    memory->setChecked(m_settings->showMemory());
    connect(memory, &QAction::toggled, m_settings, &Settings::setShowMemory);
    view->addAction(tr("Namespace &separator…"), this, [this] {
        bool ok = false;
        const QString sep
            = QInputDialog::getText(this, tr("Namespace separator"), tr("Split key names into folders at:"),
                                    QLineEdit::Normal, QString::fromUtf8(m_settings->separator()), &ok);
        if (ok)
            m_settings->setSeparator(sep.toUtf8());
    });
    QAction *pacing = view->addAction(tr("Scan &pacing…"), this, [this] {
        if (const std::optional<int> rate = askScanPacing(this, m_settings->scanRate()))
            m_settings->setScanRate(*rate);
    });
    pacing->setObjectName(QStringLiteral("scanPacingAction"));

    view->addAction(tr("Pattern &rules…"), this, &MainWindow::showRulesEditor);
    view->addSeparator();
    QAction *browser = m_browserDock->toggleViewAction();
    browser->setText(tr("&Key browser"));
    browser->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
    view->addAction(browser);
    QMenu *themes = view->addMenu(tr("&Theme"));
    m_themeGroup = new QActionGroup(themes);
    for (const auto &[t, label] :
         {std::pair{theme::Theme::System, tr("&System")}, std::pair{theme::Theme::Light, tr("&Light (Fusion)")},
          std::pair{theme::Theme::Dark, tr("&Dark (Fusion)")}}) {
        QAction *a = themes->addAction(label);
        a->setObjectName(QStringLiteral("theme-") + theme::name(t));
        a->setCheckable(true);
        a->setChecked(m_settings->theme() == t);
        m_themeGroup->addAction(a);
        connect(a, &QAction::triggered, m_settings, [this, t = t] { m_settings->setTheme(t); });
    }
    view->addAction(tr("&Overview refresh interval…"), this, [this] {
        bool ok = false;
        const int ms = QInputDialog::getInt(this, tr("Overview refresh interval"),
                                            tr("Ask the server for INFO every this many milliseconds:"),
                                            m_settings->pollIntervalMs(), 250, 60000, 250, &ok);
        if (ok)
            m_settings->setPollIntervalMs(ms);
    });

    view->addAction(tr("&Decoding cap…"), this, [this] {
        bool ok = false;
        const int mib = QInputDialog::getInt(this, tr("Decoding cap"),
                                             tr("Decode at most this many MiB of a value (a compressed value that "
                                                "expands further shows its first part):"),
                                             m_settings->decodeCapMiB(), 1, 1024, 1, &ok);
        if (ok)
            m_settings->setDecodeCapMiB(mib);
    });

    buildGoMenu();

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About RedisLens"), this, [this] {
        QMessageBox::about(
            this, tr("About RedisLens"),
            tr("<b>RedisLens %1</b><p>Shows the state of Redis patterns.</p>"
               "<p>%2</p>"
               "<p>Licensed under the GNU GPL, version 3 or later.</p>")
                .arg(QStringLiteral(REDISLENS_VERSION), LuaEditor::highlightingStatus().toHtmlEscaped()));
    });
}

void MainWindow::buildGoMenu()
{
    // Every entry of the sidebar, in its order; the first nine on Ctrl+1…9.
    QMenu *go = menuBar()->addMenu(tr("&Go"));
    m_quickSwitcher = new QuickSwitcher(this);
    connect(m_quickSwitcher, &QuickSwitcher::panelChosen, this, &MainWindow::showPanel);
    connect(m_quickSwitcher, &QuickSwitcher::keyChosen, this, [this](const QByteArray &key) {
        m_browser->selectKey(key);
        openKeyWhenReady(key);
    });
    QAction *quick = go->addAction(tr("&Quick switch…"), this, [this] { m_quickSwitcher->popUp(this); });
    quick->setObjectName(QStringLiteral("quickSwitch"));
    quick->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
    go->addSeparator();
    const QStringList names = m_sidebar->entryNames();
    for (int i = 0; i < names.size(); ++i) {
        const QString &name = names.at(i);
        QAction *a = go->addAction(panelregistry::title(name), this, [this, name] { showPanel(name); });
        a->setObjectName(QStringLiteral("go-") + name);
        if (i < 9)
            a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
    }
}

void MainWindow::setConnection(const SavedConnection &connection)
{
    m_connection = connection;
    // The connection's colour where the title bar and the task switcher show it: the icon.
    if (connection.colour.isValid())
        setWindowIcon(theme::swatch(connection.colour, 32));
    updateEnvironmentBanner();
    updateTitle();
}

void MainWindow::updateEnvironmentBanner()
{
    // Production says so above everything, and so does a read-only connection of any tag: a
    // user looking for a delete that is not there sees why first.
    const bool saved = !m_connection.id.isEmpty();
    const bool production = saved && m_connection.tag == SavedConnection::Tag::Production;
    m_environment->setVisible(production || m_profile.readOnly);
    if (m_environment->isHidden())
        return;
    QColor colour = m_connection.colour;
    if (!colour.isValid())
        colour = production                                              ? QColor(0xc0, 0x39, 0x2b)
            : saved && m_connection.tag == SavedConnection::Tag::Staging ? QColor(0xd3, 0x84, 0x1c)
                                                                         : QColor(0x2c, 0x6e, 0x91);
    QPalette pal = m_environment->palette();
    pal.setColor(QPalette::Window, colour);
    pal.setColor(QPalette::WindowText, colour.lightnessF() > 0.6 ? Qt::black : Qt::white);
    m_environment->setPalette(pal);
    const QString tag = saved ? SavedConnection::tagName(m_connection.tag).toUpper() : tr("READ-ONLY");
    const QString mode = m_profile.readOnly ? tr("read-only: every write action is off") : tr("writes allowed");
    m_environment->setText(
        tr("<b>%1</b> · %2 · %3").arg(tag.toHtmlEscaped(), m_profile.displayName().toHtmlEscaped(), mode));
}

QString MainWindow::insecureBannerText() const
{
    return m_insecure->isHidden() ? QString() : m_insecure->text();
}

QString MainWindow::environmentBannerText() const
{
    return m_environment->isHidden() ? QString() : m_environment->text();
}

void MainWindow::updateTitle()
{
    // displayName() holds the saved connection's name: "orders (10.0.0.5:6379/2)".
    QString title = QStringLiteral("RedisLens — ") + m_profile.displayName();
    if (!m_connection.id.isEmpty())
        title += QStringLiteral(" [%1]").arg(SavedConnection::tagName(m_connection.tag));
    if (m_demo)
        title += tr(" (demo)");
    if (m_profile.readOnly)
        title += tr(" [read-only]");
    if (!m_profile.scanReplica().isEmpty())
        title += tr(" · scan via %1").arg(m_profile.scanReplica());
    if (m_profile.cluster)
        title += tr(" · cluster");
    setWindowTitle(title);
}

void MainWindow::attachDemo(Demo *demo)
{
    m_demo = demo;
    m_demoSeeded = false;
    connect(demo, &Demo::seeded, this, [this] {
        m_demoSeeded = true;
        maybeStartFirstScan();
        openPendingKey();
        if (m_demo)
            m_demo->startSimulation();
    });
    connect(demo, &Demo::failed, this,
            [this](const QString &why) { onConnectionError(tr("Demo: %1").arg(why), false); });
    updateTitle();
}

void MainWindow::wireCluster()
{
    ClusterRouter *router = m_client->cluster();
    if (!router || m_clusterWired)
        return;
    m_clusterWired = true;
    // The console checks that a script's keys share one slot before it sends it.
    m_console->setClusterMode(true);
    connect(router, &ClusterRouter::notice, this,
            [this](const QString &text) { statusBar()->showMessage(text, 8000); });
    connect(router, &ClusterRouter::topologyChanged, this, &MainWindow::onStateChanged);
    // The node bar lists the nodes of the map as it is now, and so does the console's "Run on".
    connect(router, &ClusterRouter::topologyChanged, this, &MainWindow::updateNodeBar);
    updateNodeBar();
    const auto consoleNodes = [this, router] {
        QList<cluster::Node> primaries = router->topology().primaries();
        std::sort(primaries.begin(), primaries.end(),
                  [](const cluster::Node &a, const cluster::Node &b) { return a.firstSlot() < b.firstSlot(); });
        QList<QPair<QString, QString>> nodes;
        for (const cluster::Node &p : std::as_const(primaries))
            nodes.append({p.address.toString(), tr("%1 · slots %2").arg(p.address.toString(), p.slotsText())});
        m_console->setClusterNodes(nodes);
    };
    connect(router, &ClusterRouter::topologyChanged, this, consoleNodes);
    consoleNodes();
    // Two clusters behind one address (a redeploy, a tunnel to the wrong place) must never be
    // mixed: what was shown goes, and the browser walks the new one.
    connect(router, &ClusterRouter::clusterReplaced, this, [this](const QString &detail) {
        statusBar()->showMessage(tr("%1: what was shown is cleared and read again").arg(detail), 15000);
        // The old cluster's process ids mean nothing now: the ready that follows records the
        // new one without also calling it "another server process" and reading everything twice.
        m_runId.clear();
        m_patterns->clear();
        if (m_firstScanStarted)
            m_browser->startScan();
        if (m_valueView->reader()->hasKey())
            m_valueView->refresh();
    });
}

bool MainWindow::serverReplaced(QByteArray &known, const QByteArray &now)
{
    // An unknown run id (no INFO permission) is no evidence either way.
    const bool replaced = !known.isEmpty() && !now.isEmpty() && known != now;
    if (!now.isEmpty())
        known = now;
    return replaced;
}

void MainWindow::start()
{
    m_client->connectToServer();
    m_scanClient->connectToServer();
}

void MainWindow::maybeStartFirstScan()
{
    if (m_firstScanStarted || !m_demoSeeded || !m_scanClient->isReady())
        return;
    if (!m_profile.scanReplica().isEmpty() && m_replicaCheck != ReplicaCheck::Done) {
        checkScanReplica();
        return;
    }
    m_firstScanStarted = true;
    m_browser->startScan();
}

void MainWindow::checkScanReplica()
{
    if (m_replicaCheck != ReplicaCheck::None || !m_client->isReady() || !m_scanClient->isReady())
        return;
    m_replicaCheck = ReplicaCheck::Running;
    const RedisCommand info{"INFO", "replication"};
    m_client->send(info, this, [this, info](const RedisReply &server) {
        m_scanClient->send(info, this, [this, server](const RedisReply &replica) {
            const ServerInfo s = ServerInfo::parse(server.value().bytes());
            const ServerInfo r = ServerInfo::parse(replica.value().bytes());
            const QString where = m_profile.scanReplica();
            QString why;
            if (replica.firstError().isError() || r.isEmpty())
                why = tr("INFO replication failed on it: %1").arg(replica.firstError().message);
            else if (r.value("role") != "slave")
                why = tr("it is not a replica (role %1)").arg(r.text("role"));
            else if (s.has("master_replid") && r.value("master_replid") != s.value("master_replid"))
                why = tr("it replicates another server");
            m_replicaCheck = ReplicaCheck::Done;
            if (why.isEmpty()) {
                // A user without INFO on the server: the replica's role is all there is to check.
                m_scanReplicaNote = s.has("master_replid")
                    ? tr("scanning through replica %1").arg(where)
                    : tr("scanning through replica %1 (not checked against the server: %2)")
                          .arg(where,
                               server.firstError().isError() ? server.firstError().message : tr("no replication id"));
                onStateChanged();
                maybeStartFirstScan();
                return;
            }
            // Its keys are not this server's: read the server itself.
            m_scanReplicaNote = tr("scanning the server, not %1: %2").arg(where, why);
            ConnectionProfile own = m_profile;
            own.scanReplicaHost.clear();
            m_scanClient->reconnectWith(own.scanProfile());
            renewFollower();
            onStateChanged();
        });
    });
}

void MainWindow::onStateChanged()
{
    const auto describe = [](RedisClient *c) { return c->stateDetail(); };
    if (m_client->isReady() && m_scanClient->isReady()) {
        m_banner->hide();
        m_bannerButton->hide();
        QString text = tr("Connected to %1").arg(m_profile.displayName());
        if (!m_client->facts().version.isNull())
            text += tr(" · Redis %1").arg(m_client->facts().version.toString());
        if (m_client->facts().readOnly)
            text += tr(" · read-only");
        if (!m_scanReplicaNote.isEmpty())
            text += QStringLiteral(" · ") + m_scanReplicaNote;
        text += clusterNote() + m_sentinelNote;
        m_stateLabel->setText(text);
        return;
    }
    RedisClient *down = m_client->isReady() ? m_scanClient : m_client;
    m_stateLabel->setText(describe(down));
    if (down->state() == RedisClient::State::Backoff || down->state() == RedisClient::State::Disconnected) {
        m_banner->setText(describe(down));
        m_banner->show();
    }
}

void MainWindow::describeSentinels()
{
    SentinelResolver *sentinel = m_client->sentinel();
    if (!sentinel)
        return;
    sentinel->describe([self = QPointer<MainWindow>(this), sentinel](const SentinelReport &r) {
        if (!self)
            return;
        if (!r.error.isEmpty()) {
            self->m_sentinelNote = tr(" · Sentinel: %1").arg(r.error);
        } else {
            int down = 0;
            for (const auto &s : r.sentinels)
                down += s.flags.contains("s_down") || s.flags.contains("o_down") ? 1 : 0;
            int replicasDown = 0;
            for (const auto &rep : r.replicas)
                replicasDown += rep.flags.contains("s_down") || rep.linkDownMs > 0 ? 1 : 0;
            const qsizetype replicas = r.replicas.size();
            self->m_sentinelNote = replicas == 1
                ? tr(" · Sentinel: primary %1, 1 replica").arg(r.master)
                : tr(" · Sentinel: primary %1, %2 replicas").arg(r.master).arg(replicas);
            if (replicasDown > 0)
                self->m_sentinelNote += tr(" (%1 down)").arg(replicasDown);
            self->m_sentinelNote
                += r.sentinels.size() == 1 ? tr(", 1 sentinel") : tr(", %1 sentinels").arg(r.sentinels.size());
            if (down > 0)
                self->m_sentinelNote += tr(" (%1 down)").arg(down);
            if (!sentinel->note().isEmpty())
                self->m_sentinelNote += QStringLiteral(" · ") + sentinel->note();
        }
        self->onStateChanged();
    });
}

QString MainWindow::clusterNote() const
{
    if (const ClusterRouter *router = m_client->cluster()) {
        const cluster::Topology &t = router->topology();
        // The seed's node id names the cluster, so two clusters are never confused.
        return tr(" · Redis Cluster: %1 primaries, %2 nodes, %3 of 16384 slots · seed node %4")
            .arg(t.primaries().size())
            .arg(t.nodes().size())
            .arg(t.coveredSlots())
            .arg(QString::fromLatin1(router->seedNodeId().left(8)));
    }
    if (!m_client->clusterProblem().isEmpty())
        return tr(" · not a cluster (%1): read as one server").arg(m_client->clusterProblem());
    if (m_client->facts().mode == "cluster")
        return tr(" · one node of a Redis Cluster: only its own slots' keys are shown (connect with "
                  "Redis Cluster on to read every node)");
    return {};
}

void MainWindow::onConnectionError(const QString &message, bool authProblem)
{
    m_banner->setText(message);
    m_banner->show();
    m_bannerButton->setVisible(authProblem);
    // A headless screenshot run has nobody to wait for a reconnect: fail at once.
    if (!m_screenshotFile.isEmpty()) {
        m_screenshotFile.clear();
        Q_EMIT screenshotDone(false, message);
    }
}

QString MainWindow::bannerText() const
{
    return m_banner->isVisible() || !m_banner->isHidden() ? m_banner->text() : QString();
}

void MainWindow::askPassword()
{
    bool ok = false;
    const QString password = QInputDialog::getText(
        this, tr("Password"),
        m_profile.username.isEmpty()
            ? tr("Password for %1:").arg(m_profile.displayName())
            : tr("Password for user %1 on %2:").arg(m_profile.username, m_profile.displayName()),
        QLineEdit::Password, QString(), &ok);
    if (!ok)
        return;
    m_profile.password = password;
    ConnectionProfile scan = m_scanClient->profile();
    scan.password = password;
    m_client->reconnectWith(m_profile);
    m_scanClient->reconnectWith(scan);
    renewFollower();
    m_bannerButton->hide();
    m_banner->setText(tr("Connecting…"));
}

void MainWindow::addPanel(Panel *panel, const QString &name)
{
    Q_ASSERT_X(panelregistry::names().contains(name), Q_FUNC_INFO, "a panel missing from the registry");
    panel->setObjectName(name + QStringLiteral("Panel"));
    m_pages->addWidget(panel);
    m_panels.append({name, panel});
    connectPanel(panel, name);
}

void MainWindow::connectPanel(Panel *panel, const QString &name)
{
    connect(panel, &Panel::badgeChanged, this, [this, panel, name] {
        if (m_sidebar)
            m_sidebar->setBadge(name, panel->badgeCount(), panel->badgeSeverity(), panel->badgeToolTip());
    });
    connect(panel, &Panel::openKeyRequested, this, &MainWindow::openKeyFromPanel);
    connect(panel, &Panel::filterKeysRequested, this, [this](const KeyFilter &filter) {
        // An empty filter is a panel's "show everything again".
        m_browser->setFilter(filter);
        statusBar()->showMessage(
            filter.isEmpty() ? tr("Key browser: every key") : tr("Key browser: %1").arg(filter.label), 4000);
    });
}

Panel *MainWindow::panel(const QString &name) const
{
    for (const auto &[n, p] : m_panels)
        if (n == name)
            return p;
    return nullptr;
}

void MainWindow::classifySortedSets()
{
    const QList<QByteArray> zsets = m_browser->model()->keysOfType(KeyType::ZSet, GeoDetectReader::kMaxKeys);
    m_geoDetector->addKeys(zsets);
    m_queues->setKeys(m_browser->model()->keysOfType(KeyType::List, 1000), zsets);
    m_streams->setStreams(m_browser->model()->keysOfType(KeyType::Stream, 200));
}

void MainWindow::distributePatterns()
{
    // Building the lists costs time on a big keyspace: each consumer gets them when it is shown.
    m_patternsStale = {m_locks, m_rateLimits, m_sessions, m_caches, m_queues, m_browser};
    deliverPatterns();
}

void MainWindow::deliverPatterns()
{
    if (m_patternsStale.isEmpty())
        return;
    const auto of = [this](std::initializer_list<PatternKind> kinds) {
        QList<PatternMatch> out;
        for (PatternKind k : kinds)
            out += m_patterns->matchesOf(k);
        return out;
    };
    const auto due = [this](QObject *consumer) {
        // The panel on the current tab, told before it is activated so its first read has them.
        const bool shown = consumer == m_browser
            ? m_browser->grouping() == KeyBrowser::Grouping::Pattern
            : isVisible() && !isMinimized() && m_pages->currentWidget() == consumer;
        return shown && m_patternsStale.removeOne(consumer);
    };
    // The locks panel takes its matches even while hidden: its sidebar badge (locks without a
    // TTL) comes from the TTLs the scan read, and it reads nothing until it is shown.
    if (m_patternsStale.removeOne(m_locks))
        m_locks->setMatches(of({PatternKind::Lock}));
    if (due(m_rateLimits))
        m_rateLimits->setMatches(of({PatternKind::FixedWindow, PatternKind::SlidingWindow, PatternKind::TokenBucket}));
    if (due(m_sessions))
        m_sessions->setMatches(of({PatternKind::Session, PatternKind::SessionIndex}));
    if (due(m_caches))
        m_caches->setMatches(
            of({PatternKind::CacheEntry, PatternKind::NegativeCache, PatternKind::CacheTagSet, PatternKind::DedupSet,
                PatternKind::DedupKey, PatternKind::Counter, PatternKind::HyperLogLog}));
    if (due(m_queues))
        m_queues->setJobQueues(jobqueues::group(m_patterns->matchesOf(PatternKind::JobQueue, jobqueues::isQueueKey)));
    if (due(m_browser))
        m_browser->setPatternMatches(m_patterns->matches());
}

void MainWindow::showRulesEditor()
{
    auto *dialog = new QDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Pattern rules"));
    auto *layout = new QVBoxLayout(dialog);
    auto *editor = new RulesEditor(dialog);
    editor->setFile(m_rulesFile);
    layout->addWidget(editor);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    layout->addWidget(buttons);
    dialog->resize(900, 520);
    dialog->show();
}

void MainWindow::updateActivePanels()
{
    const bool visible = isVisible() && !isMinimized();
    deliverPatterns();
    for (const auto &entry : std::as_const(m_panels))
        entry.second->setActive(visible && m_pages->currentWidget() == entry.second);
}

void MainWindow::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::WindowStateChange)
        updateActivePanels();
    QMainWindow::changeEvent(event);
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    updateActivePanels();
}

void MainWindow::hideEvent(QHideEvent *event)
{
    QMainWindow::hideEvent(event);
    updateActivePanels();
}

void MainWindow::openKeyFromPanel(const QByteArray &key, KeyType type)
{
    m_browser->selectKey(key);
    m_valueView->openKey(key, type);
    showPanel(QStringLiteral("value"));
}

bool MainWindow::showPanel(const QString &name)
{
    if (Panel *p = panel(name)) {
        m_pages->setCurrentWidget(p);
        return true;
    }
    if (name == QLatin1String("keys")) {
        m_browserDock->show();
        m_browserDock->raise();
        m_browser->view()->setFocus();
        return true;
    }
    if (name == QLatin1String("value")) {
        m_pages->setCurrentWidget(m_valueView);
        return true;
    }
    return false;
}

QString MainWindow::currentPanel() const
{
    for (const auto &[n, p] : m_panels)
        if (m_pages->currentWidget() == p)
            return n;
    return m_pages->currentWidget() == m_valueView ? QStringLiteral("value") : QStringLiteral("keys");
}

void MainWindow::openKeyWhenReady(const QByteArray &key)
{
    m_openKey = key;
    m_hasOpenKey = true;
    openPendingKey();
}

void MainWindow::openPendingKey()
{
    // In demo mode the key may not exist before the seed is written.
    if (!m_hasOpenKey || !m_client->isReady() || !m_demoSeeded)
        return;
    m_hasOpenKey = false;
    m_valueView->openKey(m_openKey, KeyType::Unknown);
    showPanel(QStringLiteral("value"));
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    m_settings->setWindowGeometry(saveGeometry(), saveState());
    QMainWindow::closeEvent(event);
}
