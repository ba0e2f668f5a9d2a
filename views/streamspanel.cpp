// SPDX-License-Identifier: GPL-3.0-or-later
#include "streamspanel.h"

#include "bytesescape.h"
#include "chartstyle.h"
#include "format.h"
#include "panelparts.h"
#include "qcp.h"
#include "redisclient.h"
#include "streamactions.h"
#include "streamsreader.h"
#include "tableview.h"

#include <QDateTime>
#include <QEvent>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <utility>

namespace {

QString idList(const QList<QByteArray> &ids)
{
    QStringList s;
    for (int i = 0; i < ids.size() && i < 10; ++i)
        s << QString::fromLatin1(ids.at(i));
    if (ids.size() > 10)
        s << QObject::tr("and %n more", nullptr, int(ids.size() - 10));
    return s.join(QStringLiteral(", "));
}

QString fieldsText(const StreamEntry &entry)
{
    QString out;
    for (qsizetype i = 0; i + 1 < entry.fields.size(); i += 2)
        out += bytesescape::escape(entry.fields.at(i)) + QStringLiteral(": ")
            + bytesescape::escape(entry.fields.at(i + 1)) + QLatin1Char('\n');
    return out;
}

} // namespace

StreamsPanel::StreamsPanel(RedisClient *client, QWidget *parent)
    : Panel(parent),
      m_client(client),
      m_reader(new StreamsReader(client, this)),
      m_streamsModel(new StreamsModel(this)),
      m_groupsModel(new StreamGroupsModel(this)),
      m_consumersModel(new StreamConsumersModel(this)),
      m_pendingModel(new PendingModel(this)),
      m_entriesModel(new StreamEntriesModel(this)),
      m_actions(new StreamActions(client, this)),
      m_sampleTimer(new QTimer(this))
{
    buildUi();
    m_sampleTimer->setInterval(5000);
    connect(m_sampleTimer, &QTimer::timeout, m_reader, &StreamsReader::sampleLengths);
    connectReader();
    connect(m_actions, &StreamActions::finished, this, &StreamsPanel::onActionFinished);
    connect(m_client, &RedisClient::ready, this, &StreamsPanel::updateActionButtons);
    updateActionButtons();
}

// The reader's rows go to the panel's models (merged by id: selections survive a refresh).
void StreamsPanel::connectReader()
{
    connect(m_reader, &StreamsReader::streamsListed, m_streamsModel, &StreamsModel::setRows);
    connect(m_reader, &StreamsReader::streamsAvailable, this, [this](const QList<StreamRow> &rows) {
        m_streamsModel->setRows(rows);
        onStreamsAvailable();
    });
    connect(m_reader, &StreamsReader::lengthsSampled, this, [this](const QList<StreamRow> &rows) {
        m_streamsModel->setRows(rows);
        updateSparkline();
    });
    connect(m_reader, &StreamsReader::streamOpened, this, [this] {
        m_groupsModel->clear();
        m_consumersModel->clear();
        m_pendingModel->clear();
        m_entriesModel->clear();
    });
    connect(m_reader, &StreamsReader::groupOpened, this, [this] {
        m_consumersModel->clear();
        m_pendingModel->clear();
    });
    connect(m_reader, &StreamsReader::groupsAvailable, this,
            [this](const QByteArray &, const QList<StreamGroupInfo> &groups) { onGroupsAvailable(groups); });
    connect(m_reader, &StreamsReader::consumersAvailable, m_consumersModel, &StreamConsumersModel::setRows);
    connect(m_reader, &StreamsReader::pendingPageAvailable, this, &StreamsPanel::onPendingPage);
    connect(m_reader, &StreamsReader::deletedPendingAvailable, m_pendingModel, &PendingModel::setDeleted);
    connect(m_reader, &StreamsReader::summaryAvailable, this, &StreamsPanel::updatePendingStatus);
    connect(m_reader, &StreamsReader::pendingSampleAvailable, this, &StreamsPanel::updateHistogram);
    connect(m_reader, &StreamsReader::entriesAvailable, m_entriesModel, &StreamEntriesModel::setRows);
    connect(m_reader, &StreamsReader::entryLoaded, this, &StreamsPanel::onEntryLoaded);
    connect(m_reader, &StreamsReader::failed, this, [this](const QString &message) { m_status->setText(message); });
    connect(m_reader, &StreamsReader::oldestPendingFound, this, &StreamsPanel::onOldestPendingFound);
}

void StreamsPanel::onStreamsAvailable()
{
    if (m_streamsView->selectionModel()->selectedRows().isEmpty() && m_streamsModel->rowCount() > 0
        && m_reader->stream().isEmpty())
        m_streamsView->selectRow(0);
    m_status->setText(tr("%n streams", nullptr, m_streamsModel->rowCount()));
    markContent();
}

void StreamsPanel::onGroupsAvailable(const QList<StreamGroupInfo> &groups)
{
    m_groupsModel->setRows(groups);
    // A refresh keeps the group selected; a stream just opened gets one selected.
    if (!std::exchange(m_selectGroupOnGroups, false))
        return;
    int row = groups.isEmpty() ? -1 : 0;
    for (int i = 0; i < groups.size(); ++i) {
        if (groups.at(i).name == m_pendingAfterOpen)
            row = i;
    }
    m_pendingAfterOpen.clear();
    if (row >= 0)
        m_groupsView->selectRow(row);
    markContent();
}

void StreamsPanel::onOldestPendingFound(const QByteArray &key, const QByteArray &group)
{
    const int row = m_streamsModel->rowOf(key);
    if (key == m_reader->stream()) {
        // The stream is open already: selecting its row again changes nothing, so go to
        // the group directly.
        const QList<StreamGroupInfo> &groups = m_groupsModel->rows();
        for (int i = 0; i < groups.size(); ++i) {
            if (groups.at(i).name == group)
                m_groupsView->selectRow(i);
        }
        return;
    }
    m_pendingAfterOpen = group;
    if (row >= 0)
        m_streamsView->selectRow(row);
}

void StreamsPanel::onPendingPage(const QList<PendingEntry> &rows)
{
    m_pendingModel->setDeleted({});
    m_pendingModel->setRows(rows);
    updatePendingStatus();
}

void StreamsPanel::buildUi()
{
    auto *root = new QVBoxLayout(this);
    m_status = new QLabel(tr("No streams yet: they appear once the key scan finds some."), this);
    m_status->setWordWrap(true);
    root->addWidget(m_status);

    auto *split = new QSplitter(Qt::Horizontal, this);
    root->addWidget(split, 1);
    buildStreamsSide(split);

    // Right: groups and pending; entries browser.
    m_tabs = new QTabWidget(split);
    m_tabs->addTab(buildGroupsTab(), tr("Groups and pending"));
    m_tabs->addTab(buildEntriesTab(), tr("Entries"));

    split->setSizes({420, 980});
    // Ids are the key column of three tables: wide enough for "1700000000000-123".
    const int idWidth = fontMetrics().horizontalAdvance(QStringLiteral("00000000000000-0000")) + 12;
    m_pendingView->setColumnWidth(PendingModel::IdColumn, idWidth);
    m_entriesView->setColumnWidth(StreamEntriesModel::IdColumn, idWidth);
    m_entriesView->setColumnWidth(StreamEntriesModel::TimeColumn, idWidth + 20);
    m_groupsView->setColumnWidth(StreamGroupsModel::LastDeliveredColumn, idWidth);
    m_streamsView->setColumnWidth(StreamsModel::KeyColumn, 140);
    // A narrow chart: two time labels, however the ticker would round its steps.
    m_sparkline->xAxis->ticker()->setTickCount(2);
    m_sparkline->xAxis->ticker()->setTickStepStrategy(QCPAxisTicker::tssMeetTickCount);

    connect(m_streamsView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &StreamsPanel::onStreamSelected);
    connect(m_groupsView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &StreamsPanel::onGroupSelected);
    connect(m_pendingView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &StreamsPanel::onPendingSelected);
    connect(m_entriesView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    m_entriesFields->setPlainText(fieldsText(m_entriesModel->rows().at(current.row())));
            });
    for (QSpinBox *s : {m_minIdle, m_minDeliveries})
        connect(s, &QSpinBox::editingFinished, this, &StreamsPanel::applyFilter);
    connect(m_consumerFilter, &QLineEdit::editingFinished, this, &StreamsPanel::applyFilter);
    connect(m_poison, &QSpinBox::valueChanged, this, [this](int v) {
        m_pendingModel->setPoisonThreshold(v);
        updateHistogram();
        updatePendingStatus();
    });
    applyStyle();
}

void StreamsPanel::buildStreamsSide(QWidget *split)
{
    // Left: streams, the selected stream's length over time and facts.
    auto *left = new QWidget(split);
    left->setMinimumWidth(190); // the length chart's time labels need about this much
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    m_streamsView = tableview::make(m_streamsModel, left);
    leftLayout->addWidget(m_streamsView, 1);
    m_sparkline = new QCustomPlot(left);
    m_sparkline->setMinimumHeight(110);
    m_sparkGraph = m_sparkline->addGraph();
    chartstyle::useTimeAxis(m_sparkline->xAxis);
    chartstyle::label(m_sparkline->yAxis, tr("Length (entries)"));
    leftLayout->addWidget(m_sparkline);
    m_streamFacts = new QLabel(left);
    m_streamFacts->setWordWrap(true);
    m_streamFacts->setTextInteractionFlags(Qt::TextSelectableByMouse);
    leftLayout->addWidget(m_streamFacts);
}

QWidget *StreamsPanel::buildGroupsTab()
{
    auto *groupsTab = new QWidget(m_tabs);
    auto *g = new QVBoxLayout(groupsTab);
    auto *top = new QSplitter(Qt::Horizontal, groupsTab);
    m_groupsView = tableview::make(m_groupsModel, top);
    m_consumersView = tableview::make(m_consumersModel, top);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 2);
    top->setMaximumHeight(120);
    g->addWidget(top);

    // Two rows, like the actions below: one row of eight controls would leave the stream list
    // beside it too narrow for its own chart.
    auto *filters = new QGridLayout;
    m_minIdle = new QSpinBox(groupsTab);
    m_minIdle->setRange(0, 86400 * 30);
    m_minIdle->setSuffix(tr(" s"));
    m_consumerFilter = new QLineEdit(groupsTab);
    m_consumerFilter->setPlaceholderText(tr("any consumer"));
    m_minDeliveries = new QSpinBox(groupsTab);
    m_minDeliveries->setRange(0, 1000000);
    m_poison = new QSpinBox(groupsTab);
    m_poison->setRange(1, 1000000);
    m_poison->setValue(5);
    filters->addWidget(new QLabel(tr("Idle ≥"), groupsTab), 0, 0);
    filters->addWidget(m_minIdle, 0, 1);
    filters->addWidget(new QLabel(tr("Consumer"), groupsTab), 0, 2);
    filters->addWidget(m_consumerFilter, 0, 3);
    filters->addWidget(new QLabel(tr("Deliveries ≥"), groupsTab), 1, 0);
    filters->addWidget(m_minDeliveries, 1, 1);
    filters->addWidget(new QLabel(tr("Poison above"), groupsTab), 1, 2);
    filters->addWidget(m_poison, 1, 3);
    filters->setColumnStretch(3, 1);
    g->addLayout(filters);

    auto *middle = new QSplitter(Qt::Horizontal, groupsTab);
    m_pendingView = tableview::make(m_pendingModel, middle);
    m_pendingView->setSelectionMode(QAbstractItemView::ExtendedSelection);
    auto *side = new QWidget(middle);
    auto *sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    m_histogram = new QCustomPlot(side);
    m_histogram->setMinimumSize(260, 170);
    m_bars = new QCPBars(m_histogram->xAxis, m_histogram->yAxis);
    m_bars->setWidth(0.7);
    chartstyle::label(m_histogram->xAxis, tr("Idle time"));
    chartstyle::label(m_histogram->yAxis, tr("Pending entries"));
    sideLayout->addWidget(m_histogram, 1);
    m_entryView = new QPlainTextEdit(side);
    m_entryView->setReadOnly(true);
    m_entryView->setPlaceholderText(tr("Select a pending entry to see its fields"));
    sideLayout->addWidget(m_entryView, 1);
    middle->setStretchFactor(0, 3);
    middle->setStretchFactor(1, 2);
    g->addWidget(middle, 1);

    auto *paging = new QHBoxLayout;
    auto *first = new QPushButton(tr("First"), groupsTab);
    m_prevPage = new QPushButton(tr("Previous"), groupsTab);
    m_nextPage = new QPushButton(tr("Next"), groupsTab);
    m_pageLabel = new QLabel(groupsTab);
    m_pageLabel->setWordWrap(true);
    m_poisonLabel = new QLabel(groupsTab);
    m_poisonLabel->setWordWrap(true);
    paging->addWidget(first);
    paging->addWidget(m_prevPage);
    paging->addWidget(m_nextPage);
    paging->addWidget(m_pageLabel, 1);
    paging->addWidget(m_poisonLabel);
    g->addLayout(paging);
    connect(first, &QPushButton::clicked, m_reader, &StreamsReader::firstPendingPage);
    connect(m_prevPage, &QPushButton::clicked, m_reader, &StreamsReader::previousPendingPage);
    connect(m_nextPage, &QPushButton::clicked, m_reader, &StreamsReader::nextPendingPage);
    g->addWidget(buildActions(groupsTab));
    return groupsTab;
}

QWidget *StreamsPanel::buildActions(QWidget *parent)
{
    auto *actionsBox = new QGroupBox(tr("Actions"), parent);
    // Three rows: in fewer the panel would set the window's minimum width.
    auto *a = new QGridLayout(actionsBox);
    m_targetConsumer = new QLineEdit(actionsBox);
    m_targetConsumer->setPlaceholderText(tr("target consumer"));
    m_targetConsumer->setMinimumWidth(110);
    m_claimIdle = new QSpinBox(actionsBox);
    m_claimIdle->setRange(0, 86400 * 30);
    m_claimIdle->setValue(60);
    m_claimIdle->setSuffix(tr(" s idle"));
    m_deadKey = new QLineEdit(actionsBox);
    m_deadKey->setPlaceholderText(tr("<stream>:dead"));
    m_deadKey->setMinimumWidth(110);
    m_trimLen = new QSpinBox(actionsBox);
    m_trimLen->setRange(0, 2000000000);
    m_trimLen->setValue(10000);
    m_trimLen->setPrefix(tr("MAXLEN ~ "));
    auto *claim = new QPushButton(tr("Claim"), actionsBox);
    auto *autoClaim = new QPushButton(tr("Auto-claim idle"), actionsBox);
    auto *ack = new QPushButton(tr("Acknowledge"), actionsBox);
    auto *dead = new QPushButton(tr("Dead-letter"), actionsBox);
    auto *trim = new QPushButton(tr("Trim"), actionsBox);
    a->addWidget(m_targetConsumer, 0, 0);
    a->addWidget(claim, 0, 1);
    a->addWidget(ack, 0, 2);
    a->addWidget(m_claimIdle, 1, 0);
    a->addWidget(autoClaim, 1, 1);
    a->addWidget(m_deadKey, 2, 0);
    a->addWidget(dead, 2, 1);
    a->addWidget(m_trimLen, 2, 2);
    a->addWidget(trim, 2, 3);
    a->setColumnStretch(0, 1);
    m_actionButtons = {claim, autoClaim, ack, dead, trim};
    connect(claim, &QPushButton::clicked, this, [this] { claimSelected(m_targetConsumer->text().toUtf8()); });
    connect(autoClaim, &QPushButton::clicked, this,
            [this] { this->autoClaim(m_targetConsumer->text().toUtf8(), qint64(m_claimIdle->value()) * 1000); });
    connect(ack, &QPushButton::clicked, this, &StreamsPanel::ackSelected);
    connect(dead, &QPushButton::clicked, this, [this] { deadLetterSelected(m_deadKey->text().toUtf8()); });
    connect(trim, &QPushButton::clicked, this, [this] { trimStream(m_trimLen->value()); });
    return actionsBox;
}

QWidget *StreamsPanel::buildEntriesTab()
{
    auto *entriesTab = new QWidget(m_tabs);
    auto *e = new QVBoxLayout(entriesTab);
    auto *jumpRow = new QHBoxLayout;
    m_jump = new QLineEdit(entriesTab);
    m_jump->setPlaceholderText(tr("id (1700000000000-0) or time (2024-05-01 12:00:00)"));
    auto *go = new QPushButton(tr("Go"), entriesTab);
    auto *newest = new QPushButton(tr("Newest"), entriesTab);
    auto *older = new QPushButton(tr("Older"), entriesTab);
    jumpRow->addWidget(m_jump, 1);
    jumpRow->addWidget(go);
    jumpRow->addWidget(newest);
    jumpRow->addWidget(older);
    e->addLayout(jumpRow);
    auto *entriesSplit = new QSplitter(Qt::Vertical, entriesTab);
    m_entriesView = tableview::make(m_entriesModel, entriesSplit);
    m_entriesFields = new QPlainTextEdit(entriesSplit);
    m_entriesFields->setReadOnly(true);
    e->addWidget(entriesSplit, 1);
    connect(go, &QPushButton::clicked, this, &StreamsPanel::jumpEntries);
    connect(m_jump, &QLineEdit::returnPressed, this, &StreamsPanel::jumpEntries);
    connect(newest, &QPushButton::clicked, this, [this] { m_reader->browseEntries("+"); });
    connect(older, &QPushButton::clicked, this, [this] { m_reader->nextEntries(); });
    return entriesTab;
}

void StreamsPanel::applyStyle()
{
    const QPalette pal = palette();
    chartstyle::apply(m_sparkline, pal);
    chartstyle::apply(m_histogram, pal);
    QPen pen(chartstyle::series(0, pal));
    pen.setWidthF(1.5);
    m_sparkGraph->setPen(pen);
    QColor fill = chartstyle::series(0, pal);
    fill.setAlpha(50);
    m_sparkGraph->setBrush(fill);
    m_bars->setPen(QPen(chartstyle::series(1, pal)));
    m_bars->setBrush(chartstyle::series(1, pal));
    QPalette warn = m_poisonLabel->palette();
    warn.setColor(QPalette::WindowText, chartstyle::bad(pal));
    m_poisonLabel->setPalette(warn);
    m_sparkline->replot(QCustomPlot::rpQueuedReplot);
    m_histogram->replot(QCustomPlot::rpQueuedReplot);
}

void StreamsPanel::changeEvent(QEvent *event)
{
    Panel::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyStyle();
}

void StreamsPanel::activeChanged(bool active)
{
    if (active) {
        m_reader->sampleLengths();
        m_sampleTimer->start();
    } else {
        m_sampleTimer->stop();
    }
}

void StreamsPanel::setStreams(const QList<QByteArray> &keys)
{
    m_reader->setStreams(keys);
    if (isActive())
        m_reader->sampleLengths();
}

void StreamsPanel::openStream(const QByteArray &key)
{
    const int row = m_streamsModel->rowOf(key);
    if (row >= 0) {
        m_streamsView->selectRow(row);
        return;
    }
    QList<QByteArray> keys;
    for (const StreamRow &r : m_streamsModel->rows())
        keys << r.key;
    keys.prepend(key);
    m_reader->setStreams(keys);
    m_streamsView->selectRow(0);
}

void StreamsPanel::openOldestPending()
{
    m_reader->findOldestPending();
}

void StreamsPanel::setDeadLetterScript(const QByteArray &source, const QByteArray &sha1)
{
    m_actions->setDeadLetterScript(source, sha1);
    updateActionButtons();
}

QString StreamsPanel::statusText() const
{
    return m_status->text();
}

void StreamsPanel::markContent()
{
    if (m_hasContent || m_reader->stream().isEmpty())
        return;
    m_hasContent = true;
    Q_EMIT contentReady();
}

void StreamsPanel::onStreamSelected()
{
    const QModelIndexList rows = m_streamsView->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return;
    const StreamRow &r = m_streamsModel->rows().at(rows.first().row());
    if (r.key == m_reader->stream())
        return;
    m_entryView->clear();
    m_entriesFields->clear();
    m_selectGroupOnGroups = true;
    m_reader->openStream(r.key);
    m_reader->browseEntries("+");
    QString facts = tr("%1: %n entries", nullptr, int(r.info.length)).arg(bytesescape::quoteIfNeeded(r.key));
    if (r.info.entriesAdded)
        facts += tr(", %1 ever added").arg(format::count(quint64(*r.info.entriesAdded)));
    if (!r.info.lastGeneratedId.isEmpty())
        facts += tr(", last id %1").arg(QString::fromLatin1(r.info.lastGeneratedId));
    if (r.onlyGrows())
        facts += tr(". Only grows: no trimming seen; consider MAXLEN ~ on XADD or a periodic XTRIM");
    m_streamFacts->setText(facts);
    m_trimLen->setValue(int(qBound(qint64(0), r.info.length / 2, qint64(2000000000))));
    updateSparkline();
    markContent();
}

void StreamsPanel::onGroupSelected()
{
    const QModelIndexList rows = m_groupsView->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return;
    m_entryView->clear();
    m_reader->openGroup(m_groupsModel->rows().at(rows.first().row()).name);
}

void StreamsPanel::onPendingSelected()
{
    const QList<QByteArray> ids = selectedPendingIds();
    if (ids.size() == 1)
        m_reader->loadEntry(ids.first());
    else if (ids.size() > 1)
        m_entryView->setPlainText(tr("%n entries selected", nullptr, int(ids.size())));
}

void StreamsPanel::onEntryLoaded(const QByteArray &id, const StreamEntry &entry)
{
    if (entry.isNull()) {
        m_entryView->setPlainText(tr("%1 was deleted from the stream (trimmed or XDEL) but is still pending in "
                                     "the group: acknowledge it, there is nothing left to process.")
                                      .arg(QString::fromLatin1(id)));
        return;
    }
    m_entryView->setPlainText(QString::fromLatin1(id) + QLatin1Char('\n') + fieldsText(entry));
}

QList<QByteArray> StreamsPanel::selectedPendingIds() const
{
    QList<QByteArray> ids;
    for (const QModelIndex &i : m_pendingView->selectionModel()->selectedRows())
        ids << m_pendingModel->rows().at(i.row()).id;
    return ids;
}

void StreamsPanel::applyFilter()
{
    PendingFilter f;
    f.minIdleMs = qint64(m_minIdle->value()) * 1000;
    f.consumer = m_consumerFilter->text().toUtf8();
    f.minDeliveries = m_minDeliveries->value();
    if (f == m_reader->filter())
        return;
    m_reader->setPendingFilter(f);
}

void StreamsPanel::updatePendingStatus()
{
    const PendingSummary &s = m_reader->summary();
    const int rows = m_pendingModel->rowCount();
    m_pageLabel->setText(tr("Page %1: %n rows shown; %2 pending in the group", nullptr, rows)
                             .arg(qMax(1, m_reader->pageNumber()))
                             .arg(format::count(quint64(s.count))));
    m_prevPage->setEnabled(m_reader->pageNumber() > 1);
    m_nextPage->setEnabled(m_reader->hasNextPage());
    const int poison = m_pendingModel->poisonCount();
    m_poisonLabel->setText(poison > 0 ? tr("%n poison entries on this page", nullptr, poison) : QString());
    setBadge(poison, Severity::Bad,
             tr("%n poison entries in the open group's pending page: delivered more than %1 times", nullptr, poison)
                 .arg(m_pendingModel->poisonThreshold()));
}

void StreamsPanel::updateSparkline()
{
    const QModelIndexList rows = m_streamsView->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return;
    const StreamRow &r = m_streamsModel->rows().at(rows.first().row());
    QVector<double> x, y;
    for (const auto &s : r.samples) {
        x << double(s.first) / 1000.0;
        y << double(s.second);
    }
    m_sparkGraph->setData(x, y, true);
    if (!x.isEmpty()) {
        const double span = qMax(60.0, x.last() - x.first());
        m_sparkline->xAxis->setRange(x.last(), span, Qt::AlignRight);
        bool found = false;
        QCPRange yr = m_sparkGraph->getValueRange(found);
        if (found) {
            const double pad = qMax(1.0, yr.size() * 0.15);
            m_sparkline->yAxis->setRange(qMax(0.0, yr.lower - pad), yr.upper + pad);
        }
    }
    m_sparkline->replot(QCustomPlot::rpQueuedReplot);
}

void StreamsPanel::updateHistogram()
{
    const IdleHistogram h = IdleHistogram::of(m_reader->pendingSample(), m_pendingModel->poisonThreshold());
    QVector<double> keys, values;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    int top = 0;
    for (int i = 0; i < h.counts.size(); ++i) {
        keys << i;
        values << h.counts.at(i);
        ticker->addTick(i, h.labels.at(i));
        top = qMax(top, h.counts.at(i));
    }
    m_bars->setData(keys, values, true);
    m_histogram->xAxis->setTicker(ticker);
    // Seven buckets in a narrow chart: their labels slant rather than overlap.
    m_histogram->xAxis->setTickLabelRotation(m_histogram->axisRect()->width() < 70 * h.counts.size() ? 40 : 0);
    m_histogram->xAxis->setRange(-0.6, h.counts.size() - 0.4);
    m_histogram->yAxis->setRange(0, qMax(1.0, top * 1.15));
    QString title = tr("Idle time");
    if (h.total >= StreamsReader::kSampleLimit)
        title += tr(" (first %1 pending)").arg(h.total);
    chartstyle::label(m_histogram->xAxis, title);
    m_histogram->replot(QCustomPlot::rpQueuedReplot);
    if (h.poison > 0)
        m_poisonLabel->setToolTip(tr("%n entries delivered more than %1 times in the group", nullptr, h.poison)
                                      .arg(m_pendingModel->poisonThreshold()));
}

void StreamsPanel::updateActionButtons()
{
    const bool ro = m_actions->isReadOnly();
    for (QPushButton *b : std::as_const(m_actionButtons)) {
        b->setEnabled(!ro);
        b->setToolTip(ro ? tr("The connection is read-only") : QString());
    }
    if (!ro && !m_actions->hasDeadLetterScript()) {
        m_actionButtons.at(3)->setEnabled(false);
        m_actionButtons.at(3)->setToolTip(tr("The dead-letter script is not available"));
    }
}

bool StreamsPanel::confirm(const QString &title, const QString &text)
{
    return !m_confirm || panelparts::confirm(this, title, text);
}

void StreamsPanel::claimSelected(const QByteArray &consumer)
{
    const QList<QByteArray> ids = selectedPendingIds();
    if (ids.isEmpty() || consumer.isEmpty()) {
        m_status->setText(tr("Claim: select pending entries and name the consumer to give them to"));
        return;
    }
    if (!confirm(tr("Claim entries"),
                 tr("XCLAIM %n entries of group %1 in stream %2 for consumer %3:\n%4", nullptr, int(ids.size()))
                     .arg(bytesescape::quoteIfNeeded(m_reader->group()), bytesescape::quoteIfNeeded(m_reader->stream()),
                          bytesescape::quoteIfNeeded(consumer), idList(ids))))
        return;
    m_actions->claim(m_reader->stream(), m_reader->group(), ids, consumer);
}

void StreamsPanel::autoClaim(const QByteArray &consumer, qint64 minIdleMs)
{
    if (consumer.isEmpty() || m_reader->group().isEmpty()) {
        m_status->setText(tr("Auto-claim: select a group and name the consumer to give the entries to"));
        return;
    }
    if (!confirm(tr("Auto-claim"),
                 tr("XAUTOCLAIM every entry of group %1 in stream %2 idle longer than %3 for consumer %4 "
                    "(looping until the whole pending list was scanned)")
                     .arg(bytesescape::quoteIfNeeded(m_reader->group()), bytesescape::quoteIfNeeded(m_reader->stream()),
                          format::duration(minIdleMs), bytesescape::quoteIfNeeded(consumer))))
        return;
    m_actions->autoClaim(m_reader->stream(), m_reader->group(), consumer, minIdleMs);
}

void StreamsPanel::ackSelected()
{
    const QList<QByteArray> ids = selectedPendingIds();
    if (ids.isEmpty())
        return;
    if (!confirm(
            tr("Acknowledge"),
            tr("XACK %n entries in group %1 of stream %2; they leave the pending list:\n%3", nullptr, int(ids.size()))
                .arg(bytesescape::quoteIfNeeded(m_reader->group()), bytesescape::quoteIfNeeded(m_reader->stream()),
                     idList(ids))))
        return;
    m_actions->ack(m_reader->stream(), m_reader->group(), ids);
}

void StreamsPanel::deadLetterSelected(const QByteArray &deadKey)
{
    const QList<QByteArray> ids = selectedPendingIds();
    if (ids.isEmpty())
        return;
    const QByteArray dead = deadKey.isEmpty() ? StreamActions::defaultDeadKey(m_reader->stream()) : deadKey;
    if (!confirm(tr("Dead-letter"),
                 tr("Copy %n entries to stream %1 and acknowledge them in group %2 of stream %3 "
                    "(each one atomically):\n%4",
                    nullptr, int(ids.size()))
                     .arg(bytesescape::quoteIfNeeded(dead), bytesescape::quoteIfNeeded(m_reader->group()),
                          bytesescape::quoteIfNeeded(m_reader->stream()), idList(ids))))
        return;
    m_actions->deadLetter(m_reader->stream(), m_reader->group(), ids, dead, "moved by RedisLens");
}

void StreamsPanel::trimStream(qint64 maxLen)
{
    if (m_reader->stream().isEmpty())
        return;
    if (!confirm(tr("Trim"),
                 tr("XTRIM %1 MAXLEN ~ %2: removes the oldest entries of the stream (whole nodes, so "
                    "a little more may stay). Pending entries that are removed stay pending.")
                     .arg(bytesescape::quoteIfNeeded(m_reader->stream()))
                     .arg(maxLen)))
        return;
    m_actions->trim(m_reader->stream(), maxLen);
}

void StreamsPanel::onActionFinished(const StreamActionResult &result)
{
    m_status->setText(result.message);
    if (!result.ok && result.count == 0 && result.message.contains(QLatin1String("read-only")))
        return;
    m_reader->refreshGroup();
    m_reader->refreshStreams();
}

void StreamsPanel::jumpEntries()
{
    const QString text = m_jump->text().trimmed();
    if (text.isEmpty()) {
        m_reader->browseEntries("+");
        return;
    }
    if (streamid::milliseconds(text.toLatin1()) >= 0) {
        m_reader->browseEntries(text.toLatin1());
        return;
    }
    QDateTime t = QDateTime::fromString(text, QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    if (!t.isValid())
        t = QDateTime::fromString(text, Qt::ISODate);
    if (!t.isValid()) {
        m_status->setText(tr("Not an id or a time: %1").arg(text));
        return;
    }
    m_reader->browseFromTime(t.toMSecsSinceEpoch());
}
