// SPDX-License-Identifier: GPL-3.0-or-later
#include "leaderboardpanel.h"

#include "bytesescape.h"
#include "chartstyle.h"
#include "format.h"
#include "qcp.h"
#include "redisclient.h"
#include "tableview.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <cmath>

namespace {

constexpr int kCompareDefault = 7; // a week of daily boards
constexpr int kUnionTop = 50;
constexpr int kBoardRole = Qt::UserRole + 1;

QTableView *makeTable(QAbstractItemModel *model, QWidget *parent)
{
    QTableView *view = tableview::make(model, parent);
    view->horizontalHeader()->setStretchLastSection(false);
    view->horizontalHeader()->setSectionResizeMode(LeaderboardModel::MemberColumn, QHeaderView::Stretch);
    view->setColumnWidth(LeaderboardModel::RankColumn, 70);
    view->setColumnWidth(LeaderboardModel::TieColumn, 34);
    view->setColumnWidth(LeaderboardModel::ScoreColumn, 110);
    return view;
}

QString scoreLabel(double v)
{
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("+inf") : QStringLiteral("-inf");
    return QString::number(v, 'g', 4);
}

// "lb:daily:2024-05-01" → "lb:daily:": daily boards share everything up to the last separator.
QByteArray boardPrefix(const QByteArray &key)
{
    const qsizetype colon = key.lastIndexOf(':');
    return colon < 0 ? QByteArray() : key.left(colon + 1);
}

} // namespace

LeaderboardPanel::LeaderboardPanel(RedisClient *client, QWidget *parent)
    : Panel(parent),
      m_client(client),
      m_reader(new LeaderboardReader(client, this)),
      m_pageModel(new LeaderboardModel(this)),
      m_unionModel(new LeaderboardModel(this))
{
    setObjectName(QStringLiteral("leaderboardPanel"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);

    buildHeader(layout);
    buildControls(layout);

    auto *split = new QSplitter(Qt::Horizontal, this);
    m_table = makeTable(m_pageModel, split);
    m_table->setObjectName(QStringLiteral("leaderboardTable"));
    m_table->setToolTip(tr("Ranks are 1-based in the chosen direction; \"=\" marks members sharing a score"));

    auto *right = new QSplitter(Qt::Vertical, split);
    m_plot = new QCustomPlot(right);
    m_plot->setObjectName(QStringLiteral("histogramChart"));
    m_plot->setMinimumHeight(170);
    m_bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    m_bars->setWidth(0.85);
    chartstyle::label(m_plot->xAxis, tr("Score"));
    chartstyle::label(m_plot->yAxis, tr("Members"));
    m_plot->setToolTip(tr("Members per score range, counted on the server with ZCOUNT"));

    QWidget *compare = buildCompare(right);
    right->addWidget(m_plot);
    right->addWidget(compare);
    split->addWidget(m_table);
    split->addWidget(right);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setSizes({520, 480});
    layout->addWidget(split, 1);

    connectReader();

    styleChart();
    updatePageLabel();
}

void LeaderboardPanel::buildHeader(QVBoxLayout *layout)
{
    m_header = new QLabel(tr("Choose a sorted set to read it as a leaderboard."), this);
    m_header->setObjectName(QStringLiteral("leaderboardHeader"));
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_header);
    m_trim = new QLabel(this);
    m_trim->setObjectName(QStringLiteral("leaderboardTrim"));
    m_trim->setWordWrap(true);
    m_trim->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_trim->hide();
    layout->addWidget(m_trim);
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("leaderboardError"));
    m_error->setWordWrap(true);
    m_error->hide();
    layout->addWidget(m_error);
}

void LeaderboardPanel::buildControls(QVBoxLayout *layout)
{
    auto *controls = new QHBoxLayout;
    m_boards = new QComboBox(this);
    m_boards->setObjectName(QStringLiteral("boardCombo"));
    m_boards->setMinimumContentsLength(24);
    m_boards->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_boards->setToolTip(tr("Sorted sets found by the scan, largest first"));
    m_direction = new QComboBox(this);
    m_direction->setObjectName(QStringLiteral("directionCombo"));
    m_direction->addItem(tr("Highest first"), true);
    m_direction->addItem(tr("Lowest first"), false);
    m_prev = new QPushButton(tr("◀ Previous"), this);
    m_next = new QPushButton(tr("Next ▶"), this);
    m_pageLabel = new QLabel(this);
    m_pageLabel->setObjectName(QStringLiteral("pageLabel"));
    m_search = new QLineEdit(this);
    m_search->setObjectName(QStringLiteral("memberSearch"));
    m_search->setPlaceholderText(tr("Find member (\\xNN escapes)"));
    m_search->setClearButtonEnabled(true);
    auto *findButton = new QPushButton(tr("Find"), this);
    controls->addWidget(new QLabel(tr("Board:"), this));
    controls->addWidget(m_boards, 2);
    controls->addWidget(m_direction);
    controls->addWidget(m_prev);
    controls->addWidget(m_next);
    controls->addWidget(m_pageLabel);
    controls->addStretch(1);
    layout->addLayout(controls);
    // The search and what it found on a row of their own: beside the paging they set the
    // window's minimum width.
    auto *find = new QHBoxLayout;
    find->addWidget(m_search, 2);
    find->addWidget(findButton);
    m_searchStatus = new QLabel(this);
    m_searchStatus->setObjectName(QStringLiteral("searchStatus"));
    m_searchStatus->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_searchStatus->setWordWrap(true);
    find->addWidget(m_searchStatus, 3);
    layout->addLayout(find);

    connect(m_boards, &QComboBox::activated, this,
            [this](int index) { openBoard(m_boards->itemData(index, kBoardRole).toByteArray()); });
    connect(m_direction, &QComboBox::currentIndexChanged, this, [this] {
        m_searchStatus->clear();
        m_pageModel->setHighlightedMember(QByteArray());
        m_reader->setDescending(m_direction->currentData().toBool());
    });
    connect(m_prev, &QPushButton::clicked, m_reader, &LeaderboardReader::previousPage);
    connect(m_next, &QPushButton::clicked, m_reader, &LeaderboardReader::nextPage);
    const auto search = [this] {
        QString error;
        const auto member = bytesescape::unescape(m_search->text(), &error);
        if (!member) {
            m_searchStatus->setText(tr("Not a valid member: %1").arg(error));
            return;
        }
        findMember(*member);
    };
    connect(m_search, &QLineEdit::returnPressed, this, search);
    connect(findButton, &QPushButton::clicked, this, search);
}

QWidget *LeaderboardPanel::buildCompare(QWidget *parent)
{
    auto *compare = new QWidget(parent);
    auto *compareLayout = new QVBoxLayout(compare);
    compareLayout->setContentsMargins(0, 0, 0, 0);
    auto *compareBar = new QHBoxLayout;
    auto *compareTitle = new QLabel(tr("Combine boards (ZUNION, read-only):"), compare);
    compareTitle->setToolTip(tr("Scores are summed on the fly; no key is written"));
    m_compareButton = new QPushButton(tr("Combine"), compare);
    m_compareButton->setObjectName(QStringLiteral("compareButton"));
    compareBar->addWidget(compareTitle);
    compareBar->addStretch(1);
    compareBar->addWidget(m_compareButton);
    compareLayout->addLayout(compareBar);
    auto *compareSplit = new QSplitter(Qt::Horizontal, compare);
    m_compareList = new QListWidget(compareSplit);
    m_compareList->setObjectName(QStringLiteral("compareList"));
    m_unionTable = makeTable(m_unionModel, compareSplit);
    m_unionTable->setObjectName(QStringLiteral("unionTable"));
    compareSplit->setSizes({180, 320});
    compareLayout->addWidget(compareSplit, 1);
    m_compareStatus = new QLabel(compare);
    m_compareStatus->setObjectName(QStringLiteral("compareStatus"));
    m_compareStatus->setWordWrap(true);
    compareLayout->addWidget(m_compareStatus);
    connect(m_compareButton, &QPushButton::clicked, this, &LeaderboardPanel::compareChecked);
    return compare;
}

void LeaderboardPanel::connectReader()
{
    connect(m_reader, &LeaderboardReader::candidatesAvailable, this, &LeaderboardPanel::onCandidates);
    connect(m_reader, &LeaderboardReader::headerAvailable, this, &LeaderboardPanel::onHeader);
    connect(m_reader, &LeaderboardReader::pageAvailable, this, &LeaderboardPanel::onPage);
    connect(m_reader, &LeaderboardReader::memberSearched, this, &LeaderboardPanel::onSearched);
    connect(m_reader, &LeaderboardReader::histogramAvailable, this, &LeaderboardPanel::onHistogram);
    connect(m_reader, &LeaderboardReader::unionAvailable, this, &LeaderboardPanel::onUnion);
    connect(m_reader, &LeaderboardReader::pageFailed, this, [this](const QString &message) {
        m_error->setText(tr("The board cannot be read: %1").arg(message));
        m_error->show();
    });
}

LeaderboardPanel::~LeaderboardPanel() = default;

void LeaderboardPanel::setCandidates(const QList<QByteArray> &zsetKeys)
{
    m_reader->loadCandidates(zsetKeys);
}

void LeaderboardPanel::openBusiest()
{
    if (m_candidates.isEmpty()) {
        m_openBusiestPending = true;
        return;
    }
    openBoard(m_candidates.first().key);
}

void LeaderboardPanel::openBoard(const QByteArray &key)
{
    m_openBusiestPending = false;
    m_error->hide();
    m_trim->hide();
    m_searchStatus->clear();
    m_compareStatus->clear();
    m_header->setText(tr("%1 · loading…").arg(bytesescape::quoteIfNeeded(key)));
    m_bars->data()->clear();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    m_pageModel->clear();
    m_unionModel->clear();
    m_reader->setKey(key);
    const int index = m_boards->findData(key, kBoardRole);
    if (index >= 0)
        m_boards->setCurrentIndex(index);
    fillCompareList();
    // A rolling total is the point of daily boards: combine a week of them right away (cheap:
    // the reader refuses boards too big for ZUNION before reading anything).
    int checked = 0;
    for (int i = 0; i < m_compareList->count(); ++i)
        checked += m_compareList->item(i)->checkState() == Qt::Checked;
    if (checked >= 2)
        compareChecked();
}

void LeaderboardPanel::findMember(const QByteArray &member)
{
    if (m_reader->key().isNull())
        return;
    m_searchStatus->setText(tr("Looking for %1…").arg(bytesescape::quoteIfNeeded(member)));
    m_reader->findMember(member);
}

void LeaderboardPanel::compareChecked()
{
    QList<QByteArray> keys;
    for (int i = 0; i < m_compareList->count(); ++i) {
        if (m_compareList->item(i)->checkState() == Qt::Checked)
            keys.append(m_compareList->item(i)->data(kBoardRole).toByteArray());
    }
    m_compareStatus->setText(tr("Combining %n board(s)…", nullptr, int(keys.size())));
    m_reader->compare(keys, kUnionTop);
}

void LeaderboardPanel::onCandidates(const QList<BoardSize> &boards)
{
    m_candidates = boards;
    const QSignalBlocker block(m_boards);
    m_boards->clear();
    for (const BoardSize &b : boards) {
        m_boards->addItem(tr("%1 (%2)").arg(bytesescape::escape(b.key), format::count(quint64(b.cardinality))));
        m_boards->setItemData(m_boards->count() - 1, b.key, kBoardRole);
    }
    const int index = m_boards->findData(m_reader->key(), kBoardRole);
    m_boards->setCurrentIndex(index);
    if (m_openBusiestPending && !boards.isEmpty()) {
        openBoard(boards.first().key);
    } else if (!m_reader->key().isNull()) {
        fillCompareList();
    }
}

void LeaderboardPanel::fillCompareList()
{
    const QByteArray key = m_reader->key();
    const QByteArray prefix = boardPrefix(key);
    QList<QByteArray> siblings;
    for (const BoardSize &b : std::as_const(m_candidates)) {
        if (!prefix.isEmpty() && b.key.startsWith(prefix))
            siblings.append(b.key);
    }
    if (!siblings.contains(key))
        siblings.append(key);
    // Newest first: daily boards carry their date in the name.
    std::sort(siblings.begin(), siblings.end(), std::greater<QByteArray>());
    const int own = int(siblings.indexOf(key));
    m_compareList->clear();
    for (int i = 0; i < siblings.size(); ++i) {
        auto *item = new QListWidgetItem(bytesescape::escape(siblings.at(i)), m_compareList);
        item->setData(kBoardRole, siblings.at(i));
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        // The opened board and the ones just before it (by name).
        const bool on = i >= own && i < own + kCompareDefault;
        item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
    }
    m_compareButton->setEnabled(siblings.size() > 1);
    if (siblings.size() <= 1)
        m_compareStatus->setText(
            tr("No other boards named %1* to combine with.").arg(bytesescape::escape(prefix.isEmpty() ? key : prefix)));
}

void LeaderboardPanel::onHeader(const BoardHeader &h)
{
    if (!h.error.isEmpty()) {
        m_header->setText(bytesescape::quoteIfNeeded(h.key));
        m_error->setText(h.error);
        m_error->show();
        return;
    }
    QString memory = tr("memory unknown");
    if (h.memory >= 0)
        memory = tr("%1 in memory").arg(format::bytes(h.memory));
    else if (h.memoryDenied)
        memory = tr("memory unknown (MEMORY USAGE not allowed)");
    QString ttl;
    if (h.pttlMs == -1)
        ttl = tr("no TTL");
    else if (h.pttlMs >= 0)
        ttl = tr("expires in %1").arg(format::duration(h.pttlMs));
    else
        ttl = tr("gone");
    m_header->setText(tr("<b>%1</b> · %2 members · %3 · %4")
                          .arg(bytesescape::quoteIfNeeded(h.key).toHtmlEscaped(),
                               format::count(quint64(qMax<qint64>(0, h.cardinality))), memory, ttl));
    const QString trim = h.trimSuggestion();
    m_trim->setText(trim);
    m_trim->setVisible(!trim.isEmpty());
    updatePageLabel();
}

void LeaderboardPanel::onPage(const LeaderboardPage &page)
{
    m_pageModel->setPage(page);
    m_error->hide();
    updatePageLabel();
    const int highlight = m_pageModel->highlightedRow();
    if (highlight >= 0)
        m_table->scrollTo(m_pageModel->index(highlight, 0), QAbstractItemView::PositionAtCenter);
    else
        m_table->scrollToTop();
    if (!m_hasContent) {
        m_hasContent = true;
        Q_EMIT contentReady();
    }
}

void LeaderboardPanel::updatePageLabel()
{
    const LeaderboardModel *m = m_pageModel;
    const qint64 card = m_reader->header().cardinality;
    if (m->rowCount() == 0) {
        m_pageLabel->clear();
    } else {
        const qint64 first = m->at(0).rank + 1, last = m->at(m->rowCount() - 1).rank + 1;
        m_pageLabel->setText(card >= 0 ? tr("%1–%2 of %3")
                                             .arg(format::count(quint64(first)), format::count(quint64(last)),
                                                  format::count(quint64(card)))
                                       : tr("%1–%2").arg(format::count(quint64(first)), format::count(quint64(last))));
    }
    m_prev->setEnabled(m_reader->pageStart() > 0);
    m_next->setEnabled(m->rowCount() > 0 && (card < 0 || m_reader->pageStart() + m_reader->pageSize() < card));
}

void LeaderboardPanel::onSearched(const MemberSearch &s)
{
    const QString name = bytesescape::quoteIfNeeded(s.member);
    if (!s.error.isEmpty())
        m_searchStatus->setText(tr("Cannot look up %1: %2").arg(name, s.error));
    else if (!s.found)
        m_searchStatus->setText(tr("%1 is not on this board.").arg(name));
    else
        m_searchStatus->setText(tr("%1 is #%2 with score %3; five above and five below are shown.")
                                    .arg(name, format::count(quint64(s.rank + 1)), QString::fromLatin1(s.scoreText)));
}

void LeaderboardPanel::onHistogram(const ScoreHistogram &h)
{
    if (!h.error.isEmpty()) {
        m_bars->data()->clear();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    QVector<double> keys, values;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const int n = int(h.buckets.size());
    const int step = qMax(1, n / 5); // about five labels fit under the bars
    double max = 0;
    for (int i = 0; i < n; ++i) {
        const ScoreHistogram::Bucket &b = h.buckets.at(i);
        keys.append(i);
        values.append(double(b.count));
        max = qMax(max, double(b.count));
        const bool infinity = std::isinf(b.low);
        if (infinity || i % step == 0 || i == n - 1)
            ticker->addTick(i,
                            infinity || b.low == b.high ? scoreLabel(b.low) : QStringLiteral("≥") + scoreLabel(b.low));
    }
    m_bars->setData(keys, values, true);
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setRange(-0.6, qMax(1, n) - 0.4);
    m_plot->yAxis->setRange(0, max > 0 ? max * 1.1 : 1);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void LeaderboardPanel::onUnion(const BoardUnion &u)
{
    m_unionModel->setRows(u.top, true); // empty when the boards were not combined
    if (!u.error.isEmpty()) {
        m_compareStatus->setText(u.error);
        return;
    }
    m_compareStatus->setText(
        tr("Rolling total of %n board(s): %1 members, top %2 shown. Nothing was written.", nullptr, int(u.keys.size()))
            .arg(format::count(quint64(u.unionSize)), QString::number(u.top.size())));
}

void LeaderboardPanel::styleChart()
{
    chartstyle::apply(m_plot, palette());
    m_bars->setPen(QPen(chartstyle::series(0, palette())));
    m_bars->setBrush(chartstyle::series(0, palette()));
    QPalette warn = m_trim->palette();
    warn.setColor(QPalette::WindowText, chartstyle::warning(palette()));
    m_trim->setPalette(warn);
    QPalette bad = m_error->palette();
    bad.setColor(QPalette::WindowText, chartstyle::bad(palette()));
    m_error->setPalette(bad);
}

void LeaderboardPanel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange) {
        styleChart();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
    Panel::changeEvent(event);
}
