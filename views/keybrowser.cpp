// SPDX-License-Identifier: GPL-3.0-or-later
#include "keybrowser.h"

#include "bytesescape.h"
#include "elidinglabel.h"
#include "format.h"
#include "glob.h"
#include "keyspaceevents.h"
#include "keyspacefollower.h"
#include "keytreemodel.h"
#include "patterngroupmodel.h"
#include "redisclient.h"
#include "scanfeed.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QEvent>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QStyle>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>
#include <functional>

namespace {

// A cluster walk, a line a node: its names so far against its DBSIZE, and whether it is done or
// waits; empty for one server.
QString perNodeText(const ScanProgress &p)
{
    QStringList lines;
    for (const NodeScanProgress &n : p.perNode) {
        QString state;
        if (n.done)
            state = n.problem.isEmpty() ? KeyBrowser::tr("done") : KeyBrowser::tr("stopped: %1").arg(n.problem);
        else if (n.waiting)
            state = KeyBrowser::tr("waiting: %1").arg(n.problem);
        else if (n.dbsize > 0)
            state = QStringLiteral("%1 %").arg(qMin<quint64>(100, n.returned * 100 / quint64(n.dbsize)));
        QString line = KeyBrowser::tr("%1: %2 of ~%3")
                           .arg(n.address, format::count(n.returned),
                                n.dbsize >= 0 ? format::count(quint64(n.dbsize)) : QStringLiteral("?"));
        if (!state.isEmpty())
            line += QStringLiteral(" · ") + state;
        lines << line;
    }
    if (p.sweeping)
        lines << KeyBrowser::tr("reading again the slots that moved during the walk");
    return lines.join(QLatin1Char('\n'));
}

} // namespace

// What following key events keeps between batches.
struct KeyBrowser::Following
{
    QPointer<KeyspaceFollower> follower;
    QByteArray scopeMatch; // the last scan's MATCH and TYPE: what the tree holds
    KeyType scopeType = KeyType::Unknown;
};

KeyBrowser::KeyBrowser(RedisClient *scanClient, QWidget *parent)
    : QWidget(parent), m_client(scanClient), m_following(std::make_unique<Following>())
{
    m_model = new KeyTreeModel(this);
    m_feed = new ScanFeed(scanClient, m_model, this);
    m_scanner = m_feed->scanner();
    m_filterModel = new KeyTreeModel(this);
    connect(m_scanner, &KeyScanner::batchAvailable, this, &KeyBrowser::onBatchForFilter);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    buildScanRows(layout);
    buildFilterRow(layout);
    buildTrees(layout);
    buildOpenRow(layout);

    connect(m_scanButton, &QPushButton::clicked, this, &KeyBrowser::startScan);
    connect(m_match, &QLineEdit::returnPressed, this, &KeyBrowser::startScan);
    connect(m_pauseButton, &QPushButton::clicked, this, &KeyBrowser::togglePause);
    connect(m_cancelButton, &QPushButton::clicked, this, &KeyBrowser::cancelScan);
    // A key opens when it becomes current (click or arrow keys): one signal per change, so a
    // double-click does not ask the server twice. Load-more rows act on click or Enter.
    showModel(m_model);
    connect(m_view, &QTreeView::clicked, this, &KeyBrowser::onLoadMore);
    connect(m_view, &QTreeView::activated, this, &KeyBrowser::onLoadMore);
    connect(m_view, &QWidget::customContextMenuRequested, this, &KeyBrowser::showContextMenu);
    connect(m_model, &KeyTreeModel::keysApplied, this, &KeyBrowser::fitCountColumns);
    connect(m_model, &KeyTreeModel::keysApplied, this, &KeyBrowser::showScanStatus);
    connect(m_model, &KeyTreeModel::keysApplied, this, &KeyBrowser::updateButtons); // "Scan" or "Rescan"
    connect(m_feed, &ScanFeed::progressChanged, this, &KeyBrowser::onProgress);
    connect(m_feed, &ScanFeed::completed, this, &KeyBrowser::onCompleted);

    // TTLs are stored as deadlines; repainting the column once a second is the countdown.
    m_ttlTimer = new QTimer(this);
    m_ttlTimer->setInterval(1000);
    connect(m_ttlTimer, &QTimer::timeout, this, [this] {
        // Only the TTL strip: every other cell of every visible row stays as painted.
        const QHeaderView *header = m_view->header();
        if (!header->isSectionHidden(KeyTreeModel::TtlColumn))
            m_view->viewport()->update(header->sectionViewportPosition(KeyTreeModel::TtlColumn), 0,
                                       header->sectionSize(KeyTreeModel::TtlColumn), m_view->viewport()->height());
    });
    m_ttlTimer->start();
    updateButtons();
}

KeyBrowser::~KeyBrowser() = default;

// The scan's MATCH, type and grouping, then its buttons, progress and status.
void KeyBrowser::buildScanRows(QVBoxLayout *layout)
{
    auto *filters = new QHBoxLayout;
    m_match = new QLineEdit(this);
    m_match->setObjectName(QStringLiteral("scanMatch"));
    m_match->setPlaceholderText(tr("MATCH pattern, e.g. session:*"));
    m_match->setClearButtonEnabled(true);
    m_match->setToolTip(tr("Glob pattern for SCAN MATCH. Escapes like \\x00 are allowed."));
    m_type = new QComboBox(this);
    m_type->setObjectName(QStringLiteral("scanType"));
    m_type->addItem(tr("all types"), int(KeyType::Unknown));
    for (KeyType t : {KeyType::String, KeyType::Hash, KeyType::List, KeyType::Set, KeyType::ZSet, KeyType::Stream})
        m_type->addItem(keyTypeName(t), int(t));
    m_scanButton = new QPushButton(tr("Scan"), this);
    m_scanButton->setObjectName(QStringLiteral("scanButton"));
    m_pauseButton = new QPushButton(tr("Pause"), this);
    m_cancelButton = new QPushButton(tr("Stop"), this);
    filters->addWidget(m_match, 1);
    filters->addWidget(m_type);
    m_grouping = new QComboBox(this);
    m_grouping->setObjectName(QStringLiteral("groupBy"));
    m_grouping->addItem(tr("by namespace"), int(Grouping::Namespace));
    m_grouping->addItem(tr("by pattern"), int(Grouping::Pattern));
    m_grouping->setToolTip(tr("Group the keys by name (namespace folders) or by the pattern RedisLens recognised"));
    // Two short rows rather than one long one: the dock shares the window with the sidebar and
    // the widest panels, and at 1400 px the window must not grow past the screen.
    filters->addWidget(m_grouping);
    layout->addLayout(filters);

    auto *progressRow = new QHBoxLayout;
    m_progress = new QProgressBar(this);
    m_progress->setMaximumHeight(14);
    m_progress->setTextVisible(false);
    m_status = new ElidingLabel(this);
    m_status->setText(tr("Not scanned yet"));
    m_status->setObjectName(QStringLiteral("scanStatus"));
    // The status may be cut short (with "…") in a narrow dock; its tooltip holds all of it.
    m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    progressRow->addWidget(m_scanButton);
    progressRow->addWidget(m_pauseButton);
    progressRow->addWidget(m_cancelButton);
    progressRow->addWidget(m_progress, 1);
    layout->addLayout(progressRow);
    // A line of its own: beside the buttons it had room for little more than the count. The
    // follow box shares it: it is about what the count is (a snapshot, or kept up to date).
    auto *statusRow = new QHBoxLayout;
    statusRow->addWidget(m_status, 1);
    m_follow = new QCheckBox(tr("Follow key events"), this);
    m_follow->setObjectName(QStringLiteral("followKeyEvents"));
    m_follow->hide(); // until setFollower()
    connect(m_follow, &QCheckBox::toggled, this, &KeyBrowser::setFollowing);
    statusRow->addWidget(m_follow);
    layout->addLayout(statusRow);
    m_followNote = new QLabel(this);
    m_followNote->setObjectName(QStringLiteral("followNote"));
    m_followNote->setWordWrap(true);
    m_followNote->hide();
    layout->addWidget(m_followNote);
}

// Shown while the trees hold only the keys of one family or pattern (set from another panel).
void KeyBrowser::buildFilterRow(QVBoxLayout *layout)
{
    m_filterRow = new QWidget(this);
    m_filterRow->setObjectName(QStringLiteral("filterRow"));
    auto *filterLayout = new QHBoxLayout(m_filterRow);
    filterLayout->setContentsMargins(0, 0, 0, 0);
    m_filterLabel = new QLabel(m_filterRow);
    m_filterLabel->setObjectName(QStringLiteral("filterLabel"));
    m_filterLabel->setWordWrap(true);
    auto *clearFilterButton = new QPushButton(tr("Show all keys"), m_filterRow);
    clearFilterButton->setObjectName(QStringLiteral("clearFilter"));
    connect(clearFilterButton, &QPushButton::clicked, this, &KeyBrowser::clearFilter);
    filterLayout->addWidget(m_filterLabel, 1);
    filterLayout->addWidget(clearFilterButton);
    m_filterRow->hide();
    layout->addWidget(m_filterRow);
    connect(m_filterModel, &KeyTreeModel::keysApplied, this, &KeyBrowser::updateFilterLine);
}

// Opening a key by its exact name, which a scan may not have reached.
void KeyBrowser::buildOpenRow(QVBoxLayout *layout)
{
    auto *openRow = new QHBoxLayout;
    m_openKey = new QLineEdit(this);
    m_openKey->setObjectName(QStringLiteral("openKey"));
    m_openKey->setPlaceholderText(tr("Open key by exact name (\\xNN escapes allowed)"));
    auto *openButton = new QPushButton(tr("Open"), this);
    openRow->addWidget(m_openKey, 1);
    openRow->addWidget(openButton);
    layout->addLayout(openRow);
    m_openError = new QLabel(this);
    m_openError->setObjectName(QStringLiteral("openKeyError"));
    m_openError->setStyleSheet(QStringLiteral("color: palette(highlight);"));
    m_openError->hide();
    layout->addWidget(m_openError);

    connect(m_openKey, &QLineEdit::returnPressed, this, &KeyBrowser::openTypedKey);
    connect(openButton, &QPushButton::clicked, this, &KeyBrowser::openTypedKey);
}

// The two trees over the scan: by namespace (the key tree) and by pattern; one shows at a time.
void KeyBrowser::buildTrees(QVBoxLayout *layout)
{
    m_view = new QTreeView(this);
    m_view->setObjectName(QStringLiteral("keyTree"));
    m_view->setModel(m_model);
    m_view->setUniformRowHeights(true); // a million rows must not be measured one by one
    m_view->setAlternatingRowColors(true);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    m_view->header()->setStretchLastSection(false);
    m_view->header()->setSectionResizeMode(KeyTreeModel::NameColumn, QHeaderView::Stretch);
    // Narrow columns beside the name: the dock may be as narrow as its two button rows, and the
    // name, which stretches, is what the user reads.
    const int digit = m_view->fontMetrics().horizontalAdvance(QLatin1Char('0'));
    m_view->setColumnWidth(KeyTreeModel::TypeColumn, 7 * digit);
    m_view->setColumnWidth(KeyTreeModel::TtlColumn, 9 * digit);
    m_view->setColumnWidth(KeyTreeModel::MemoryColumn, 9 * digit);
    m_view->setColumnWidth(KeyTreeModel::KeysColumn, 8 * digit);
    m_view->setColumnWidth(KeyTreeModel::PatternColumn, 12 * digit);
    m_view->setIndentation(digit * 2);
    // Room for about fifteen characters of a name beside those columns.
    m_view->setMinimumWidth(52 * digit);
    m_view->setColumnHidden(KeyTreeModel::MemoryColumn, true);
    layout->addWidget(m_view, 1);

    m_patternModel = new PatternGroupModel(this);
    m_patternView = new QTreeView(this);
    m_patternView->setObjectName(QStringLiteral("patternTree"));
    m_patternView->setModel(m_patternModel);
    m_patternView->setUniformRowHeights(true);
    m_patternView->setAlternatingRowColors(true);
    m_patternView->header()->setStretchLastSection(true);
    m_patternView->setColumnWidth(PatternGroupModel::NameColumn, 230);
    m_patternView->setColumnWidth(PatternGroupModel::KeysColumn, 60);
    m_patternView->hide();
    layout->addWidget(m_patternView, 1);
    connect(m_patternView->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex &index) {
                const QByteArray key = index.data(PatternGroupModel::KeyBytesRole).toByteArray();
                if (!index.data(PatternGroupModel::KeyBytesRole).isNull())
                    Q_EMIT keyActivated(key, KeyType(index.data(PatternGroupModel::KeyTypeRole).toInt()));
            });
    connect(m_grouping, &QComboBox::currentIndexChanged, this,
            [this] { setGrouping(Grouping(m_grouping->currentData().toInt())); });
}

int KeyBrowser::countColumnWidth(const QTreeView *view, int column, quint64 widest)
{
    // The widest count's text with each digit drawn as the widest digit: a folder's count never
    // exceeds the bound, but in a font without tabular figures "1,099,999" can be wider than
    // "1,100,000".
    const QFontMetrics fm = view->fontMetrics();
    QChar wideDigit = QLatin1Char('0');
    for (char c = '1'; c <= '9'; ++c) {
        if (fm.horizontalAdvance(QLatin1Char(c)) > fm.horizontalAdvance(wideDigit))
            wideDigit = QLatin1Char(c);
    }
    QString text = format::count(widest);
    for (QChar &c : text) {
        if (c.isDigit())
            c = wideDigit;
    }
    // The item delegate's text margin on each side (QCommonStyle: PM_FocusFrameHMargin + 1),
    // plus a little air so that the figure does not touch the next column.
    const int margin = view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, view) + 1;
    const int cell = fm.horizontalAdvance(text) + 2 * margin + 6;
    return qMax(cell, view->header()->sectionSizeHint(column));
}

void KeyBrowser::fitCountColumns()
{
    // Every folder's and group's count is at most the number of keys scanned (the tree root's
    // total), so that one figure sizes the column: measuring the rows (ResizeToContents) would
    // cost a pass over every visible row of a million-key model on each update. The column only
    // grows, so it does not jump during a rescan and a width the user chose stays.
    const quint64 widest = qMax(m_model->keyCount(), m_patternModel->keyCount());
    const struct
    {
        QTreeView *view;
        int column;
    } columns[] = {{m_view, KeyTreeModel::KeysColumn}, {m_patternView, PatternGroupModel::KeysColumn}};
    for (const auto &c : columns) {
        const int needed = countColumnWidth(c.view, c.column, widest);
        if (needed > c.view->columnWidth(c.column))
            c.view->setColumnWidth(c.column, needed);
    }
}

void KeyBrowser::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange)
        fitCountColumns();
}

void KeyBrowser::setShowMemory(bool on)
{
    m_showMemory = on;
    m_view->setColumnHidden(KeyTreeModel::MemoryColumn, !on);
}

void KeyBrowser::setPatternLookup(const KeyTreeModel::PatternLookup &lookup)
{
    m_model->setPatternLookup(lookup);
    m_filterModel->setPatternLookup(lookup);
}

void KeyBrowser::patternsChanged(const QList<PatternMatch> &matches)
{
    m_model->patternsChanged(matches);
    if (!m_filter.isEmpty())
        m_filterModel->patternsChanged(matches);
}

void KeyBrowser::setGrouping(Grouping grouping)
{
    const int at = m_grouping->findData(int(grouping));
    if (m_grouping->currentIndex() != at) {
        m_grouping->setCurrentIndex(at); // comes back here through the signal
        return;
    }
    m_view->setVisible(grouping == Grouping::Namespace);
    m_patternView->setVisible(grouping == Grouping::Pattern);
    if (grouping == Grouping::Pattern)
        Q_EMIT patternGroupingShown();
}

KeyBrowser::Grouping KeyBrowser::grouping() const
{
    return Grouping(m_grouping->currentData().toInt());
}

void KeyBrowser::setPatternMatches(const QList<PatternMatch> &matches)
{
    m_patternModel->setMatches(matches);
    fitCountColumns();
    if (m_patternModel->rowCount() <= 8)
        m_patternView->expandToDepth(0);
}

void KeyBrowser::setSeparator(const QByteArray &separator)
{
    m_model->setSeparator(separator);
    m_filterModel->setSeparator(separator);
}

void KeyBrowser::showModel(KeyTreeModel *model)
{
    if (m_view->model() != model) {
        m_view->setModel(model); // a new selection model comes with it
        fitCountColumns();
    }
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &KeyBrowser::onCurrentChanged,
            Qt::UniqueConnection);
}

void KeyBrowser::setFilter(const KeyFilter &filter)
{
    if (filter.isEmpty()) {
        clearFilter();
        return;
    }
    m_filter = filter;
    m_model->applyAllPending(); // batches that arrived before the filter was set
    m_filterModel->clear();
    const ScanBatch matching = m_model->matching(filter, QDateTime::currentMSecsSinceEpoch());
    m_filterModel->appendBatch(matching);
    m_filterModel->applyAllPending();
    for (const ScannedKey &k : matching.keys) {
        const auto hint = m_model->typeHint(k.name);
        if (hint != KeyTreeModel::TypeHint::None)
            m_filterModel->setTypeHint(k.name, hint);
    }
    showModel(m_filterModel);
    // Few matches are easier to read opened up.
    if (m_filterModel->keyCount() <= 200)
        m_view->expandAll();
    m_filterRow->show();
    updateFilterLine();
}

void KeyBrowser::clearFilter()
{
    m_filter = {};
    m_filterRow->hide();
    showModel(m_model);
    m_filterModel->clear();
}

void KeyBrowser::onBatchForFilter(const ScanBatch &batch)
{
    if (m_filter.isEmpty())
        return;
    const ScanBatch matching = matchingFilter(batch);
    if (!matching.keys.isEmpty())
        m_filterModel->appendBatch(matching);
}

ScanBatch KeyBrowser::matchingFilter(const ScanBatch &batch) const
{
    ScanBatch matching;
    matching.generation = batch.generation;
    matching.capturedAtMs = batch.capturedAtMs;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (const ScannedKey &k : batch.keys) {
        if (m_filter.matches(k.name, ttl::expireAt(k.pttlMs, batch.capturedAtMs), now))
            matching.keys.append(k);
    }
    return matching;
}

void KeyBrowser::updateFilterLine()
{
    if (m_filter.isEmpty())
        return;
    m_filterLabel->setText(tr("Showing %1 of %2 scanned keys: %3")
                               .arg(format::count(m_filterModel->keyCount()), format::count(m_model->keyCount()),
                                    m_filter.label.isEmpty() ? tr("filtered") : m_filter.label));
}

void KeyBrowser::removeKey(const QByteArray &key)
{
    m_model->removeKey(key);
    m_filterModel->removeKey(key);
    updateFilterLine();
}

void KeyBrowser::setTypeHint(const QByteArray &key, KeyTreeModel::TypeHint hint)
{
    m_model->setTypeHint(key, hint);
    m_filterModel->setTypeHint(key, hint);
}

bool KeyBrowser::renameKey(const QByteArray &from, const ScannedKey &now, qint64 capturedAtMs)
{
    const QByteArray &to = now.name;
    const bool known = m_model->renameKey(from, to);
    // Renamed before the scan listed it: the key is real under its new name all the same.
    const bool exists = now.type != KeyType::None && now.type != KeyType::Unknown;
    if (!known && exists)
        m_model->upsertKey(now, capturedAtMs);
    if (!m_filter.isEmpty()) {
        const bool matches
            = m_filter.matches(to, ttl::expireAt(now.pttlMs, capturedAtMs), QDateTime::currentMSecsSinceEpoch());
        if (m_filterModel->renameKey(from, to)) {
            if (!matches)
                m_filterModel->removeKey(to); // renamed out of what the filter shows
        } else if (matches && exists) {
            m_filterModel->upsertKey(now, capturedAtMs);
        }
    }
    return known;
}

void KeyBrowser::startScan()
{
    QString error;
    const auto match = bytesescape::unescape(m_match->text(), &error); // spaces are bytes too
    if (!match) {
        m_lastProgress.reset();
        m_status->setText(tr("Bad MATCH pattern: %1").arg(error));
        return;
    }
    ScanOptions options;
    options.match = *match;
    options.type = KeyType(m_type->currentData().toInt());
    options.memory = m_showMemory;
    options.maxCommandsPerSecond = m_scanRate;
    if (options.type != KeyType::Unknown && !m_client->facts().version.isNull()
        && m_client->facts().version < QVersionNumber(6)) {
        m_lastProgress.reset();
        m_status->setText(
            tr("SCAN TYPE needs Redis 6.0 or newer; this server is %1").arg(m_client->facts().version.toString()));
        return;
    }
    m_model->clear();
    m_filterModel->clear();
    Following &f = *m_following;
    f.scopeMatch = options.match;
    f.scopeType = options.type;
    showFollowNote({});
    if (f.follower) {
        f.follower->cancelReads(); // the new scan reads those keys as they are
        f.follower->setPattern(options.match);
        f.follower->checkSetting(); // a rescan is when a changed setting is looked for
    }
    m_progress->setRange(0, 0);
    m_lastProgress.reset();
    m_status->setText(tr("Scanning…"));
    const quint64 generation = m_scanner->start(options);
    updateButtons();
    Q_EMIT scanStarted(generation);
}

void KeyBrowser::togglePause()
{
    if (!m_scanner->isRunning())
        return;
    if (m_scanner->isPaused())
        m_scanner->resume();
    else
        m_scanner->pause();
    updateButtons();
}

void KeyBrowser::cancelScan()
{
    m_scanner->cancel();
    updateButtons();
}

void KeyBrowser::updateButtons()
{
    const bool running = m_scanner->isRunning();
    m_pauseButton->setEnabled(running);
    m_cancelButton->setEnabled(running);
    m_pauseButton->setText(m_scanner->isPaused() ? tr("Resume") : tr("Pause"));
    m_scanButton->setText(m_model->keyCount() > 0 || running ? tr("Rescan") : tr("Scan"));
}

void KeyBrowser::onProgress(const ScanProgress &p)
{
    if (p.dbsize > 0) {
        m_progress->setRange(0, 1000);
        // Names returned can exceed DBSIZE (duplicates, keys added meanwhile): clamp.
        m_progress->setValue(int(qMin<double>(1000, 1000.0 * double(p.returned) / double(p.dbsize))));
    } else if (p.finished) {
        m_progress->setRange(0, 1);
        m_progress->setValue(1);
    }
    m_lastProgress = p;
    showScanStatus();
    updateButtons();
}

void KeyBrowser::showScanStatus()
{
    if (!m_lastProgress)
        return;
    const ScanProgress &p = *m_lastProgress;
    if (p.finished && !p.error) {
        QString text = tr("%1 keys in %2 s").arg(format::count(m_model->keyCount())).arg(p.elapsedSeconds, 0, 'f', 1);
        if (p.vanished > 0)
            text += tr(" · %1 vanished during the scan").arg(format::count(p.vanished));
        if (isFollowing())
            text += tr(" · kept up to date");
        if (p.nodes > 0)
            text += p.nodes == 1 ? tr(" · from 1 node") : tr(" · from %1 nodes").arg(p.nodes);
        setScanStatus(text, p);
        return;
    }
    QString text = tr("%1 keys · %2 scanned of ~%3 · %4 keys/s")
                       .arg(format::count(m_model->keyCount()), format::count(p.returned),
                            p.dbsize >= 0 ? format::count(quint64(p.dbsize)) : QStringLiteral("?"),
                            format::count(quint64(p.keysPerSecond)));
    if (!p.finished)
        text += QStringLiteral(" · ") + format::scanPace(p);
    if (p.nodes > 0 && !p.finished)
        text += p.sweeping ? tr(" · %1 nodes walked, slots that moved read again").arg(p.nodes)
                           : tr(" · %1 of %2 nodes done").arg(p.nodesDone).arg(p.nodes);
    if (p.paused)
        text += tr(" · paused");
    if (p.waitingForConnection)
        text = tr("Scan waiting for the connection (%1); it resumes by itself").arg(p.error.message);
    else if (p.finished && p.error)
        text = tr("Scan stopped: %1 (%2 keys kept)").arg(p.error.message, format::count(m_model->keyCount()));
    setScanStatus(text, p);
}

void KeyBrowser::setScanStatus(const QString &text, const ScanProgress &p)
{
    m_status->setText(text);
    const QString nodes = perNodeText(p);
    m_status->setToolTip(nodes.isEmpty() ? text : text + QLatin1Char('\n') + nodes);
    m_progress->setToolTip(nodes);
}

void KeyBrowser::onCompleted(const ScanProgress &p)
{
    m_progress->setRange(0, 1);
    m_progress->setValue(1);
    if (!p.error) {
        m_lastProgress = p;
        m_lastProgress->finished = true;
        showScanStatus();
    }
    updateButtons();
    Q_EMIT scanCompleted(p);
}

void KeyBrowser::onCurrentChanged(const QModelIndex &index)
{
    if (m_selecting || !index.isValid() || shownModel()->kindOf(index) != KeyTreeModel::NodeKind::Key)
        return;
    Q_EMIT keyActivated(shownModel()->keyAt(index),
                        KeyType(shownModel()->data(index, KeyTreeModel::KeyTypeRole).toInt()));
}

void KeyBrowser::onLoadMore(const QModelIndex &index)
{
    if (index.isValid() && shownModel()->kindOf(index) == KeyTreeModel::NodeKind::LoadMore)
        shownModel()->loadMore(index);
}

void KeyBrowser::openTypedKey()
{
    QString error;
    const auto key = bytesescape::unescape(m_openKey->text(), &error);
    if (!key) {
        m_openError->setText(tr("Cannot read that name: %1").arg(error));
        m_openError->show();
        return;
    }
    m_openError->hide();
    // When the scan has seen the key, its type saves the loader a round trip.
    const QModelIndex known = m_model->indexForKey(*key);
    const auto type
        = known.isValid() ? KeyType(m_model->data(known, KeyTreeModel::KeyTypeRole).toInt()) : KeyType::Unknown;
    selectKey(*key);
    Q_EMIT keyActivated(*key, type);
}

QByteArray KeyBrowser::selectedKey() const
{
    const QModelIndex current = m_view->currentIndex();
    return current.isValid() ? shownModel()->keyAt(current) : QByteArray();
}

bool KeyBrowser::selectKey(const QByteArray &key)
{
    const QModelIndex index = shownModel()->indexForKey(key);
    if (!index.isValid())
        return false;
    // Selecting to show a key the caller is opening anyway: do not open it a second time.
    m_selecting = true;
    m_view->setCurrentIndex(index);
    m_selecting = false;
    m_view->scrollTo(index);
    return true;
}

void KeyBrowser::setWritable(bool writable, const QString &why)
{
    m_writable = writable;
    m_readOnlyReason = why;
}

QByteArray KeyBrowser::prefixPattern(const QByteArray &prefix)
{
    QByteArray glob;
    glob.reserve(prefix.size() + 1);
    for (const char c : prefix) {
        if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\')
            glob += '\\';
        glob += c;
    }
    return glob + '*';
}

void KeyBrowser::showContextMenu(const QPoint &pos)
{
    const QModelIndex index = m_view->indexAt(pos);
    if (!index.isValid())
        return;
    QMenu menu(this);
    fillContextMenu(&menu, index);
    menu.exec(m_view->viewport()->mapToGlobal(pos));
}

void KeyBrowser::fillContextMenu(QMenu *menu, const QModelIndex &index)
{
    menu->setToolTipsVisible(true); // a write that is off says why
    const auto writeAction = [this, menu](const QString &text, const std::function<void()> &run) {
        QAction *a = menu->addAction(text, this, run);
        a->setEnabled(m_writable);
        if (!m_writable)
            a->setToolTip(m_readOnlyReason);
        return a;
    };
    if (shownModel()->kindOf(index) == KeyTreeModel::NodeKind::Key) {
        const QByteArray key = shownModel()->keyAt(index);
        const auto type = KeyType(shownModel()->data(index, KeyTreeModel::KeyTypeRole).toInt());
        menu->addAction(tr("Open"), this, [this, key, type] { Q_EMIT keyActivated(key, type); });
        if (type == KeyType::ZSet) {
            menu->addAction(tr("Open in Leaderboard"), this,
                            [this, key] { Q_EMIT panelRequested(key, QStringLiteral("leaderboard")); });
            if (shownModel()->typeHint(key) == KeyTreeModel::TypeHint::Geo)
                menu->addAction(tr("Show on map"), this,
                                [this, key] { Q_EMIT panelRequested(key, QStringLiteral("geo")); });
        }
        menu->addAction(tr("Copy name"), this, [this, key] { Q_EMIT copyRequested(bytesescape::quoteIfNeeded(key)); });
        menu->addAction(tr("Copy name as hex"), this,
                        [this, key] { Q_EMIT copyRequested(QString::fromLatin1(key.toHex())); });
        menu->addSeparator();
        writeAction(tr("Rename…"), [this, key] {
            Q_EMIT renameRequested(key);
        })->setObjectName(QStringLiteral("rename"));
        writeAction(tr("Delete…"), [this, key] {
            Q_EMIT deleteRequested(key);
        })->setObjectName(QStringLiteral("delete"));
    } else if (shownModel()->kindOf(index) == KeyTreeModel::NodeKind::Folder) {
        const QByteArray prefix = shownModel()->data(index, KeyTreeModel::PrefixBytesRole).toByteArray();
        menu->addAction(tr("Copy prefix"), this, [this, prefix] { Q_EMIT copyRequested(bytesescape::escape(prefix)); });
        menu->addAction(tr("Scan only this prefix"), this, [this, prefix] {
            m_match->setText(bytesescape::escape(prefixPattern(prefix), false));
            startScan();
        });
        menu->addSeparator();
        // Counting is a read: the dialog opens on a read-only connection too, its Delete off.
        QAction *bulk = menu->addAction(tr("Delete keys under this prefix…"), this,
                                        [this, prefix] { Q_EMIT bulkDeleteRequested(prefixPattern(prefix)); });
        bulk->setObjectName(QStringLiteral("bulkDelete"));
        if (!m_writable)
            bulk->setToolTip(tr("%1: the keys can be counted, not deleted").arg(m_readOnlyReason));
    } else {
        menu->addAction(tr("Load more"), this, [this, index] { shownModel()->loadMore(index); });
    }
}

void KeyBrowser::setFollower(KeyspaceFollower *follower)
{
    Following &f = *m_following;
    if (f.follower == follower)
        return;
    if (f.follower) {
        setFollowing(false);
        f.follower->disconnect(this);
        disconnect(m_client, &RedisClient::ready, f.follower, nullptr);
    }
    f.follower = follower;
    m_follow->setVisible(follower != nullptr);
    if (!follower)
        return;
    offerFollowing(false, {}, tr("Reading the server's notify-keyspace-events…"));
    follower->setSettingsClient(m_client);
    follower->setPattern(f.scopeMatch);
    connect(follower, &KeyspaceFollower::settingRead, this, &KeyBrowser::onFollowSetting);
    connect(follower, &KeyspaceFollower::settingUnknown, this, &KeyBrowser::onFollowSettingUnknown);
    connect(follower, &KeyspaceFollower::changesAvailable, this, &KeyBrowser::applyKeyChanges);
    connect(follower, &KeyspaceFollower::keysRead, this, &KeyBrowser::applyReadKeys);
    connect(follower, &KeyspaceFollower::eventsMissed, this, [this](const QString &why) {
        showFollowNote(tr("Some key events were missed (%1): rescan to be sure").arg(why));
    });
    connect(follower, &KeyspaceFollower::followingChanged, this, [this](bool following, const QString &detail) {
        if (!m_follow->isChecked())
            return;
        if (following) {
            if (m_followNote->property("paused").toBool())
                showFollowNote({});
        } else {
            showFollowNote(tr("Following paused: %1").arg(detail));
            m_followNote->setProperty("paused", true);
        }
        showScanStatus();
    });
    // The setting is read again whenever the browser's connection is (re)made.
    connect(m_client, &RedisClient::ready, follower, [follower] { follower->checkSetting(); });
    if (!follower->unsupportedReason().isEmpty()) {
        offerFollowing(false, tr("not on a cluster"), follower->unsupportedReason());
        return;
    }
    follower->checkSetting();
}

KeyspaceFollower *KeyBrowser::follower() const
{
    return m_following->follower;
}

bool KeyBrowser::isFollowing() const
{
    return m_following->follower && m_following->follower->isStarted();
}

QString KeyBrowser::followNote() const
{
    return m_followNote->isHidden() ? QString() : m_followNote->text();
}

void KeyBrowser::onFollowSetting(const keyspaceevents::Setting &setting)
{
    QStringList tip{setting.summary};
    if (setting.followable) {
        if (!setting.complete)
            tip << tr("Missed: %1").arg(setting.missing.join(QStringLiteral("; ")));
        tip << tr("Following keeps one more connection subscribed to this database's key events, and reads "
                  "the TYPE and TTL of keys as they appear or change.");
    } else {
        tip << tr("To follow key events, turn them on on the server, e.g. CONFIG SET notify-keyspace-events %1 "
                  "(RedisLens reads this setting, it never changes it).")
                   .arg(QString::fromLatin1(setting.suggested));
        if (m_follow->isChecked()) {
            m_follow->setChecked(false); // stops following
            showFollowNote(tr("Following stopped: %1").arg(setting.summary));
        }
    }
    if (!setting.complete && setting.followable)
        tip << tr("Suggested setting: %1").arg(QString::fromLatin1(setting.suggested));
    const QString why = setting.followable ? QString()
        : setting.publishes                ? tr("nothing to follow")
                                           : tr("off on the server");
    offerFollowing(setting.followable, why, tip.join(QLatin1Char('\n')));
}

void KeyBrowser::onFollowSettingUnknown(const QString &why)
{
    Following &f = *m_following;
    if (f.follower && !f.follower->unsupportedReason().isEmpty()) {
        offerFollowing(false, tr("not on a cluster"), f.follower->unsupportedReason());
        return;
    }
    // CONFIG may be refused (an ACL, a managed service that renames it): following is offered
    // all the same and shows what the server publishes, if anything.
    offerFollowing(true, {},
                   tr("Could not read notify-keyspace-events (%1): following shows the key events the server "
                      "publishes, if it publishes any")
                       .arg(why));
}

void KeyBrowser::offerFollowing(bool enabled, const QString &why, const QString &tip)
{
    // Why it is off is on the box itself, not only in its tooltip: most servers have key events
    // off, and a greyed box that does not say why looks broken.
    m_follow->setText(why.isEmpty() ? tr("Follow key events") : tr("Follow key events: %1").arg(why));
    m_follow->setEnabled(enabled);
    m_follow->setToolTip(tip);
}

void KeyBrowser::setFollowing(bool on)
{
    Following &f = *m_following;
    if (on && !m_follow->isEnabled())
        return;
    if (m_follow->isChecked() != on) {
        m_follow->setChecked(on); // comes back here through toggled()
        return;
    }
    if (!f.follower)
        return;
    if (on == f.follower->isStarted())
        return;
    if (on) {
        showFollowNote({});
        f.follower->setPattern(f.scopeMatch);
        f.follower->start();
    } else {
        f.follower->stop();
        if (m_followNote->property("paused").toBool())
            showFollowNote({});
    }
    showScanStatus();
    Q_EMIT followingChanged(on);
}

void KeyBrowser::showFollowNote(const QString &text)
{
    m_followNote->setProperty("paused", false);
    m_followNote->setText(text);
    m_followNote->setToolTip(text);
    m_followNote->setVisible(!text.isEmpty());
}

void KeyBrowser::applyKeyChanges(const keyspaceevents::ChangeBatch &batch)
{
    using keyspaceevents::Effect;
    Following &f = *m_following;
    if (!isFollowing())
        return;
    for (const keyspaceevents::KeyChange &c : batch.removed) {
        f.follower->forgetKey(c.key);
        removeKey(c.key); // the path a delete from the browser takes
    }
    QList<QByteArray> toRead;
    for (const keyspaceevents::KeyChange &c : batch.changed) {
        if (!f.scopeMatch.isEmpty() && !globMatch(f.scopeMatch, c.key))
            continue; // outside what the scan listed
        // A value edited within its type and TTL changes nothing the tree shows.
        if (c.effect == Effect::Modified && m_model->contains(c.key))
            continue;
        toRead.append(c.key);
    }
    if (!toRead.isEmpty())
        f.follower->readKeys(toRead); // TYPE and PTTL, on this browser's connection
}

void KeyBrowser::applyReadKeys(const ScanBatch &read)
{
    const Following &f = *m_following;
    if (!isFollowing())
        return;
    ScanBatch batch;
    batch.generation = m_scanner->generation();
    batch.capturedAtMs = read.capturedAtMs;
    for (const ScannedKey &k : read.keys) {
        // Gone again, or now of a type the scan did not list (a SET over a hash).
        if (k.type == KeyType::None
            || (f.scopeType != KeyType::Unknown && k.type != KeyType::Unknown && k.type != f.scopeType)) {
            removeKey(k.name);
            continue;
        }
        // A key whose new TTL takes it out of the filter's bucket leaves the filtered tree.
        if (!m_filter.isEmpty()
            && !m_filter.matches(k.name, ttl::expireAt(k.pttlMs, read.capturedAtMs), read.capturedAtMs))
            m_filterModel->removeKey(k.name);
        batch.keys.append(k);
    }
    if (batch.keys.isEmpty())
        return;
    // Applied now, not in slices as a scan's are: a removal that follows must find the key.
    m_model->applyBatch(batch);
    if (!m_filter.isEmpty())
        m_filterModel->applyBatch(matchingFilter(batch));
}
