// SPDX-License-Identifier: GPL-3.0-or-later
#include "lockspanel.h"

#include "bytesescape.h"
#include "format.h"
#include "locks.h"
#include "locksreader.h"
#include "panelparts.h"
#include "redisclient.h"
#include "redlock.h"
#include "redlockreader.h"
#include "tableview.h"

#include <QDateTime>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHash>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

LocksPanel::LocksPanel(RedisClient *client, QWidget *parent)
    : Panel(parent),
      m_client(client),
      m_reader(new LocksReader(client, this)),
      m_model(new LocksModel(this)),
      m_actions(new LockActions(client, this)),
      m_tick(new QTimer(this))
{
    auto *layout = new QVBoxLayout(this);
    auto *top = new QHBoxLayout;
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true); // counts and libraries: a long line must not widen the window
    top->addWidget(m_summary, 1);
    m_explain = new QPushButton(tr("What does a lock guarantee?"), this);
    m_explain->setCheckable(true);
    top->addWidget(m_explain);
    layout->addLayout(top);

    m_explanation = new QLabel(explanation(), this);
    m_explanation->setWordWrap(true);
    m_explanation->setTextFormat(Qt::RichText);
    m_explanation->setFrameShape(QFrame::StyledPanel);
    m_explanation->setMargin(8);
    m_explanation->hide();
    layout->addWidget(m_explanation);

    m_status = new QLabel(tr("Waiting for the scan to find locks…"), this);
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    m_libraries = panelparts::librariesLabel(this);
    layout->addWidget(m_libraries);

    auto *proxy = new ColumnSeverityProxy({{LocksModel::FlagsColumn, LocksModel::SeverityRole},
                                           {LocksModel::RemainingColumn, LocksModel::TtlSeverityRole}},
                                          this);
    proxy->setSourceModel(m_model);
    m_view = tableview::make(proxy, this, QStringLiteral("locks"));
    m_view->setTextElideMode(Qt::ElideMiddle); // a token's ends tell holders apart
    m_view->horizontalHeader()->resizeSection(LocksModel::ResourceColumn, 190);
    m_view->horizontalHeader()->resizeSection(LocksModel::TokenColumn, 190);
    m_view->horizontalHeader()->resizeSection(LocksModel::RemainingColumn, 80);
    m_view->horizontalHeader()->resizeSection(LocksModel::FamilyColumn, 140);
    if (!client->profile().redlockPeers.isEmpty()) {
        auto *split = new QSplitter(Qt::Vertical, this);
        split->addWidget(makeRedlockBox(client->profile()));
        // The server's own locks, below the set's: release and extend act on these.
        auto *own = new QGroupBox(tr("Locks on this server (%1)").arg(client->profile().displayName()), split);
        own->setObjectName(QStringLiteral("ownLocksBox"));
        auto *ownLayout = new QVBoxLayout(own);
        ownLayout->addWidget(m_view);
        split->addWidget(own);
        split->setChildrenCollapsible(false);
        layout->addWidget(split, 1);
    } else {
        layout->addWidget(m_view, 1);
    }

    auto *actions = new QHBoxLayout;
    actions->addWidget(new QLabel(tr("Token:"), this));
    m_token = new QLineEdit(this);
    m_token->setPlaceholderText(tr("the holder's token, escaped as shown"));
    actions->addWidget(m_token, 1);
    m_release = new QPushButton(tr("Release"), this);
    m_release->setToolTip(tr("lock_release.lua: deletes the key only if its value equals this token"));
    actions->addWidget(m_release);
    actions->addSpacing(12);
    actions->addWidget(new QLabel(tr("New TTL:"), this));
    m_ttl = new QSpinBox(this);
    m_ttl->setRange(1, 7 * 24 * 3600);
    m_ttl->setValue(30);
    m_ttl->setSuffix(tr(" s"));
    actions->addWidget(m_ttl);
    m_extend = new QPushButton(tr("Extend"), this);
    m_extend->setToolTip(tr("lock_extend.lua: sets the TTL only if the value equals this token"));
    actions->addWidget(m_extend);
    layout->addLayout(actions);
    m_result = new QLabel(this);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_result);

    m_tick->setInterval(kTickMs);
    connect(m_tick, &QTimer::timeout, this, [this] {
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        m_model->setNow(now);
        if (m_redlockModel)
            m_redlockModel->setNow(now);
    });
    connect(m_explain, &QPushButton::toggled, this, &LocksPanel::showExplanation);
    connect(m_reader, &LocksReader::locksAvailable, this, &LocksPanel::onLocks);
    connect(m_reader, &LocksReader::failed, this,
            [this](const QString &message) { m_status->setText(tr("Cannot read locks: %1").arg(message)); });
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &LocksPanel::onSelectionChanged);
    connect(m_view, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex &index) {
        Q_EMIT openKeyRequested(index.data(LocksModel::KeyRole).toByteArray(),
                                KeyType(index.data(LocksModel::TypeRole).toInt()));
    });
    connect(m_release, &QPushButton::clicked, this, [this] { releaseSelected(m_token->text()); });
    connect(m_extend, &QPushButton::clicked, this,
            [this] { extendSelected(m_token->text(), qint64(m_ttl->value()) * 1000); });
    connect(m_actions, &LockActions::finished, this, &LocksPanel::onActionFinished);
    connect(m_client, &RedisClient::ready, this, &LocksPanel::updateButtons);
    updateButtons();
}

QWidget *LocksPanel::makeRedlockBox(const ConnectionProfile &profile)
{
    m_redlock = new RedlockReader(m_client, profile, this);
    m_redlockModel = new RedlockModel(this);
    m_redlockModel->setNodes(m_redlock->nodes());
    auto *box = new QGroupBox(
        tr("Redlock set: %n primaries, a lock needs the same token on %1", nullptr, int(m_redlock->nodes().size()))
            .arg(m_redlock->quorum()),
        this);
    box->setObjectName(QStringLiteral("redlockBox"));
    auto *v = new QVBoxLayout(box);
    m_redlockStatus = new QLabel(tr("Reading %1…").arg(m_redlock->nodes().join(QStringLiteral(", "))), box);
    m_redlockStatus->setWordWrap(true);
    v->addWidget(m_redlockStatus);
    auto *proxy = new ColumnSeverityProxy({{RedlockModel::FlagsColumn, RedlockModel::SeverityRole},
                                           {RedlockModel::HeldColumn, RedlockModel::HeldSeverityRole}},
                                          this);
    proxy->setSourceModel(m_redlockModel);
    m_redlockView = tableview::make(proxy, box, QStringLiteral("redlock"));
    m_redlockView->setTextElideMode(Qt::ElideMiddle);
    m_redlockView->horizontalHeader()->resizeSection(RedlockModel::ResourceColumn, 190);
    m_redlockView->horizontalHeader()->resizeSection(RedlockModel::HeldColumn, 80);
    m_redlockView->horizontalHeader()->resizeSection(RedlockModel::TokenColumn, 190);
    m_redlockView->horizontalHeader()->resizeSection(RedlockModel::RemainingColumn, 90);
    v->addWidget(m_redlockView, 1);
    connect(m_redlock, &RedlockReader::redlockAvailable, this, &LocksPanel::onRedlock);
    connect(m_redlock, &RedlockReader::failed, this, [this](const QString &message) {
        m_redlockStatus->setText(tr("Cannot read the Redlock set: %1").arg(message));
    });
    connect(m_redlockView, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex &index) {
        Q_EMIT openKeyRequested(index.data(RedlockModel::KeyRole).toByteArray(), KeyType::String);
    });
    return box;
}

void LocksPanel::onRedlock(const QList<RedlockLock> &locks)
{
    m_redlockModel->setRows(locks);
    m_redlockModel->setNow(QDateTime::currentMSecsSinceEpoch());
    int valid = 0, noMajority = 0, split = 0;
    for (const RedlockLock &l : locks) {
        valid += l.valid() ? 1 : 0;
        noMajority += (l.flags & RedlockLock::NoMajority) ? 1 : 0;
        split += (l.flags & RedlockLock::SplitTokens) ? 1 : 0;
    }
    QStringList parts{valid == 1 ? tr("1 lock held on a majority") : tr("%1 locks held on a majority").arg(valid)};
    if (noMajority)
        parts << tr("%n held on fewer than a majority", nullptr, noMajority);
    if (split)
        parts << tr("%n with different tokens on different nodes", nullptr, split);
    QStringList down;
    for (int i = 0; i < m_redlock->nodeErrors().size(); ++i) {
        if (!m_redlock->nodeErrors().at(i).isEmpty())
            down << tr("%1 did not answer (%2)").arg(m_redlock->nodes().value(i), m_redlock->nodeErrors().at(i));
    }
    if (!down.isEmpty())
        parts << down;
    if (m_redlock->peerOnlyKeys())
        parts << tr("%n found only on the other primaries", nullptr, m_redlock->peerOnlyKeys());
    if (!m_redlock->partialPeers().isEmpty())
        parts << tr("only the first %1 string keys of %2 searched for locks")
                     .arg(RedlockReader::kDiscoverKeys)
                     .arg(m_redlock->partialPeers().join(QStringLiteral(", ")));
    m_redlockStatus->setText(parts.join(QStringLiteral(" · ")));
}

QString LocksPanel::explanation()
{
    return tr(
        "<b>What a single-node Redis lock does and does not guarantee</b><ul>"
        "<li><tt>SET lock:&lt;resource&gt; &lt;random token&gt; NX PX &lt;ttl&gt;</tt> lets one caller in at a "
        "time: while the key exists, everyone else is refused.</li>"
        "<li>The TTL is a lease, not a promise about the work. If the work, a GC pause, swapping or a stalled VM "
        "outlasts it, the lock expires and a second holder starts while the first still believes it holds "
        "it.</li>"
        "<li>Release must compare the token and delete in one step (<tt>lock_release</tt>); a plain DEL can delete "
        "a lock that has passed to someone else. A value such as <tt>1</tt> makes that comparison "
        "meaningless.</li>"
        "<li>Extend the same way (<tt>lock_extend</tt>), well before the TTL runs out; only the token's holder "
        "can.</li>"
        "<li>Clocks: Redis expires the key by its own clock. A holder timing its lease on a drifting or jumping "
        "clock can overstay it.</li>"
        "<li>Failover: replication is asynchronous. A primary can grant the lock and die before its replica has "
        "it; the promoted replica lets a second holder in.</li>"
        "<li>So the lock cannot protect the data by itself. Hand out a <i>fencing token</i> with each "
        "acquisition (an increasing number, e.g. from INCR) and let the data store reject writes that carry "
        "an older token than the last it accepted.</li>"
        "<li>Redlock (the lock on a majority of independent primaries) survives a node failing, but still "
        "assumes bounded pauses and clock drift, and still needs fencing for correctness.</li>"
        "<li>Rule of thumb: a Redis lock saves doing work twice (efficiency); it does not guarantee one writer "
        "(correctness) unless the store checks fencing tokens.</li></ul>");
}

void LocksPanel::setMatches(const QList<PatternMatch> &matches)
{
    panelparts::showLibraries(m_libraries, matches);
    m_reader->setMatches(matches);
    if (m_redlock)
        m_redlock->setMatches(matches);
    if (m_reader->matchCount() == 0)
        m_status->setText(tr("No locks found by the scan."));
    // The scan read every key's TTL: the badge needs no read of its own until the panel polls.
    int noTtl = 0;
    for (const PatternMatch &m : matches)
        noTtl += (m.kind == PatternKind::Lock && m.pttlMs == -1) ? 1 : 0;
    showNoTtlBadge(noTtl);
}

void LocksPanel::showNoTtlBadge(int noTtl)
{
    setBadge(noTtl, Severity::Bad, tr("%n lock(s) without a TTL: a holder that dies never lets go", nullptr, noTtl));
}

void LocksPanel::activeChanged(bool active)
{
    m_reader->setPolling(active);
    if (m_redlock)
        m_redlock->setPolling(active);
    if (active)
        m_tick->start();
    else
        m_tick->stop();
}

void LocksPanel::onLocks(const QList<LockInfo> &locks)
{
    m_model->setRows(locks);
    m_model->setNow(QDateTime::currentMSecsSinceEpoch());
    int noTtl = 0, longTtl = 0, notToken = 0, held = 0;
    for (const LockInfo &l : locks) {
        if (l.released)
            continue;
        ++held;
        noTtl += (l.flags & LockInfo::NoTtl) ? 1 : 0;
        longTtl += (l.flags & LockInfo::LongTtl) ? 1 : 0;
        notToken += (l.flags & LockInfo::NotTokenLike) ? 1 : 0;
    }
    QStringList parts{(held == 1 ? tr("1 lock held") : tr("%1 locks held").arg(held))};
    showNoTtlBadge(noTtl);
    if (noTtl)
        parts << tr("%n without TTL", nullptr, noTtl);
    if (longTtl)
        parts << tr("%n with a TTL far above its family's", nullptr, longTtl);
    if (notToken)
        parts << tr("%n with a value that is not a token", nullptr, notToken);
    m_summary->setText(parts.join(QStringLiteral(" · ")));
    m_status->setText(locks.isEmpty() ? tr("No locks held right now.")
                                      : tr("Read %1; TTLs count down live, re-read every %2 s while shown.")
                                            .arg(QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss")))
                                            .arg(LocksReader::kRefreshMs / 1000));
    if (!m_selected.isEmpty() && selectedKey() != m_selected)
        selectKey(m_selected);
    updateButtons();
    if (!m_hasContent) {
        m_hasContent = true;
        Q_EMIT contentReady();
    }
}

void LocksPanel::selectKey(const QByteArray &key)
{
    const int row = m_model->rowOf(key);
    if (row >= 0)
        m_view->selectRow(row);
}

QByteArray LocksPanel::selectedKey() const
{
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    return rows.isEmpty() ? QByteArray() : rows.first().data(LocksModel::KeyRole).toByteArray();
}

void LocksPanel::onSelectionChanged()
{
    const QByteArray key = selectedKey();
    if (key.isEmpty())
        return; // a reset cleared it; onRefreshed selects the key again
    if (key != m_selected) {
        m_selected = key;
        if (const LockInfo *l = m_model->find(key))
            m_token->setText(bytesescape::escape(l->value, false));
    }
    updateButtons();
}

void LocksPanel::updateButtons()
{
    const LockInfo *l = m_selected.isEmpty() ? nullptr : m_model->find(m_selected);
    const bool readOnly = m_actions->isReadOnly();
    const bool can = !readOnly && l && l->canRelease();
    m_release->setEnabled(can);
    m_extend->setEnabled(can);
    const QString why = readOnly ? tr("Read-only connection: release and extend are off") : QString();
    m_release->setToolTip(why.isEmpty() ? tr("lock_release.lua: deletes the key only if its value equals this token")
                                        : why);
    m_extend->setToolTip(why.isEmpty() ? tr("lock_extend.lua: sets the TTL only if the value equals this token") : why);
    if (readOnly && m_result->text().isEmpty())
        m_result->setText(why);
}

bool LocksPanel::confirm(const QString &title, const QString &text)
{
    return !m_confirm || panelparts::confirm(this, title, text);
}

void LocksPanel::actOnSelected(const QString &tokenText, const QString &title,
                               const std::function<QString(const QByteArray &)> &question,
                               const std::function<void(const QByteArray &)> &act)
{
    QString error;
    const std::optional<QByteArray> token = bytesescape::unescape(tokenText, &error);
    if (!token) {
        m_result->setText(tr("Token: %1").arg(error));
        return;
    }
    // Read-only or nothing selected: the action refuses with the reason and sends nothing.
    if (!m_actions->isReadOnly() && !m_selected.isEmpty() && !confirm(title, question(*token)))
        return;
    act(*token);
}

void LocksPanel::releaseSelected(const QString &tokenText)
{
    actOnSelected(
        tokenText, tr("Release lock"),
        [this](const QByteArray &token) {
            return tr("Release the lock %1 held with token %2?\n\nlock_release deletes the key only if its value "
                      "still equals this token.")
                .arg(bytesescape::quoteIfNeeded(m_selected), bytesescape::quoteIfNeeded(token));
        },
        [this](const QByteArray &token) { m_actions->release(m_selected, token); });
}

void LocksPanel::extendSelected(const QString &tokenText, qint64 ttlMs)
{
    actOnSelected(
        tokenText, tr("Extend lock"),
        [this, ttlMs](const QByteArray &token) {
            return tr("Give the lock %1 held with token %2 a new TTL of %3?\n\nlock_extend sets it only if the value "
                      "still equals this token.")
                .arg(bytesescape::quoteIfNeeded(m_selected), bytesescape::quoteIfNeeded(token),
                     format::duration(ttlMs));
        },
        [this, ttlMs](const QByteArray &token) { m_actions->extend(m_selected, token, ttlMs); });
}

void LocksPanel::onActionFinished(const LockActionResult &result)
{
    m_result->setText(result.message);
    if (!result.refused)
        m_reader->refresh();
}

void LocksPanel::showExplanation(bool on)
{
    m_explanation->setVisible(on);
    if (m_explain->isChecked() != on)
        m_explain->setChecked(on);
}

bool LocksPanel::isExplanationVisible() const
{
    return !m_explanation->isHidden();
}

QString LocksPanel::statusText() const
{
    return m_status->text();
}

QString LocksPanel::redlockStatusText() const
{
    return m_redlockStatus ? m_redlockStatus->text() : QString();
}

QString LocksPanel::resultText() const
{
    return m_result->text();
}

QString LocksPanel::summaryText() const
{
    return m_summary->text();
}
