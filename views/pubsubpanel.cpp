// SPDX-License-Identifier: GPL-3.0-or-later
#include "pubsubpanel.h"

#include "bytesescape.h"
#include "chartstyle.h"
#include "format.h"
#include "keyspaceevents.h"
#include "masking.h"
#include "panelparts.h"
#include "pubsublistener.h"
#include "pubsubreader.h"
#include "qcp.h"
#include "redisclient.h"
#include "rowtablemodel.h"
#include "tableview.h"
#include "valuedecoding.h"

#include <QAbstractTableModel>
#include <QCheckBox>
#include <QClipboard>
#include <QDateTime>
#include <QEvent>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace {

constexpr int kPollMs = 3000;
// The table follows the tail at this pace, not per batch: a publisher at 100,000 messages a
// second costs the window a few row insertions a second.
constexpr int kViewMs = 200;
// Decoded in the detail pane on the GUI thread up to this size; past it shown as text.
constexpr qsizetype kDecodeInPane = 64 * 1024;
// Masked after decoding in the table's message column up to this size (one value per visible
// row, cached); past it only secret-named JSON keys are looked for.
constexpr qsizetype kDecodeInRow = 4 * 1024;
constexpr int kPreviewChars = 240;
constexpr int kPlotPoints = 600;

// "1 channel", "2,048 channels"
QString counted(qint64 n, const QString &one, const QString &many)
{
    return n == 1 ? one : many.arg(format::count(quint64(qMax<qint64>(0, n))));
}

// A message as one line of a table: text as it is when it is printable UTF-8 (quotes and all),
// escaped otherwise; cut at kPreviewChars.
QString previewText(const QByteArray &bytes)
{
    const QString text = QString::fromUtf8(bytes.left(kPreviewChars * 4));
    const bool printable = std::none_of(text.cbegin(), text.cend(), [](QChar c) {
        return c == QChar::ReplacementCharacter || (c.unicode() < 0x20 && c != QLatin1Char('\t'));
    });
    if (!printable)
        return bytesescape::escapeElided(bytes, kPreviewChars);
    return text.size() > kPreviewChars || bytes.size() > kPreviewChars * 4 ? text.left(kPreviewChars) + QChar(0x2026)
                                                                           : text;
}

QString timeOf(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("HH:mm:ss.zzz"));
}

} // namespace

// The tail's messages as a table: a filtered view of the buffer that follows it by sequence
// number (the oldest rows go as the buffer drops them, new ones are appended). Live, a row is a
// sequence number into the buffer (eight bytes, however large the message); paused, the rows on
// screen are held as they are while the buffer goes on.
class TailModel : public QAbstractTableModel
{
public:
    enum Column { Time, Channel, Pattern, Size, Message, ColumnCount };

    TailModel(const pubsub::TailBuffer *buffer, QObject *parent) : QAbstractTableModel(parent), m_buffer(buffer) { }

    int rowCount(const QModelIndex &parent = {}) const override
    {
        return parent.isValid() ? 0 : int(m_frozen ? m_held.size() : m_seqs.size());
    }
    int columnCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : ColumnCount; }

    QVariant headerData(int section, Qt::Orientation orientation, int role) const override
    {
        if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
            return QAbstractTableModel::headerData(section, orientation, role);
        switch (section) {
        case Time: return PubSubPanel::tr("Received");
        case Channel: return PubSubPanel::tr("Channel");
        case Pattern: return PubSubPanel::tr("Pattern");
        case Size: return PubSubPanel::tr("Size");
        case Message: return PubSubPanel::tr("Message");
        }
        return {};
    }

    QVariant data(const QModelIndex &index, int role) const override
    {
        const pubsub::TailMessage *m = index.isValid() ? message(index.row()) : nullptr;
        if (!m)
            return {};
        if (role == Qt::TextAlignmentRole && index.column() == Size)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
            return {};
        switch (index.column()) {
        case Time: return timeOf(m->receivedMs);
        case Channel:
            return m->shard ? PubSubPanel::tr("%1 (shard)").arg(bytesescape::escape(m->channel))
                            : bytesescape::escape(m->channel);
        case Pattern: return bytesescape::escape(m->pattern);
        case Size: return format::bytes(m->payload.size());
        case Message: return preview(*m);
        }
        return {};
    }

    const pubsub::TailMessage *message(int row) const
    {
        if (row < 0)
            return nullptr;
        if (m_frozen)
            return row < int(m_held.size()) ? &m_held.at(size_t(row)) : nullptr;
        if (row >= int(m_seqs.size()))
            return nullptr;
        const quint64 seq = m_seqs.at(size_t(row));
        const quint64 first = m_buffer->firstSeq();
        if (seq < first || seq - first >= m_buffer->messages().size())
            return nullptr;
        return &m_buffer->messages().at(size_t(seq - first));
    }

    void setReveal(bool reveal)
    {
        if (reveal == m_reveal)
            return;
        m_reveal = reveal;
        m_previews.clear();
        if (rowCount() > 0)
            Q_EMIT dataChanged(index(0, Message), index(rowCount() - 1, Message));
    }

    void setFilter(const QString &text) { m_filter = text.toUtf8().toLower(); }
    bool matches(const pubsub::TailMessage &m) const
    {
        if (m_filter.isEmpty())
            return true;
        return m.channel.toLower().contains(m_filter) || m.pattern.toLower().contains(m_filter)
            || m.payload.toLower().contains(m_filter);
    }

    // Paused: the rows shown are copied (their bytes shared) and stay while the buffer moves on.
    void freeze()
    {
        if (m_frozen)
            return;
        m_held.clear();
        for (int row = 0; row < int(m_seqs.size()); ++row)
            if (const pubsub::TailMessage *m = message(row))
                m_held.push_back(*m);
        if (m_held.size() != m_seqs.size()) { // cannot happen while the buffer holds every row
            beginResetModel();
            m_frozen = true;
            endResetModel();
            return;
        }
        m_frozen = true;
    }

    // Follows the buffer: rows older than what it holds go, what arrived since 'm_next' comes.
    void follow()
    {
        if (m_frozen)
            return;
        const quint64 first = m_buffer->firstSeq();
        size_t gone = 0;
        while (gone < m_seqs.size() && m_seqs.at(gone) < first)
            ++gone;
        if (gone > 0) {
            beginRemoveRows({}, 0, int(gone) - 1);
            for (size_t i = 0; i < gone; ++i) {
                m_previews.remove(m_seqs.front());
                m_seqs.pop_front();
            }
            endRemoveRows();
        }
        const auto &all = m_buffer->messages();
        std::vector<quint64> added;
        for (size_t at = m_next > first ? size_t(m_next - first) : 0; at < all.size(); ++at) {
            if (matches(all.at(at)))
                added.push_back(all.at(at).seq);
        }
        m_next = m_buffer->nextSeq();
        if (added.empty())
            return;
        const int row = int(m_seqs.size());
        beginInsertRows({}, row, row + int(added.size()) - 1);
        m_seqs.insert(m_seqs.end(), added.begin(), added.end());
        endInsertRows();
    }

    // Takes the buffer afresh (a new filter, the end of a pause, a cleared tail).
    void reset()
    {
        beginResetModel();
        m_frozen = false;
        m_held.clear();
        m_seqs.clear();
        m_previews.clear();
        m_next = m_buffer->firstSeq();
        endResetModel();
        follow();
    }

private:
    QString preview(const pubsub::TailMessage &m) const
    {
        if (const auto it = m_previews.constFind(m.seq); it != m_previews.constEnd())
            return *it;
        QString text;
        if (!m_reveal) {
            // Hidden like values are: secret-named JSON keys, and secrets inside what decodes.
            const QByteArray masked = masking::maskedValue(nullptr, m.payload, m.payload.size() <= kDecodeInRow);
            if (!masked.isNull())
                text = previewText(masked);
        }
        if (text.isNull())
            text = previewText(m.payload);
        if (m_previews.size() > 4096)
            m_previews.clear();
        m_previews.insert(m.seq, text);
        return text;
    }

    const pubsub::TailBuffer *m_buffer;
    std::deque<quint64> m_seqs; // live
    std::deque<pubsub::TailMessage> m_held; // paused
    bool m_frozen = false;
    quint64 m_next = 1;
    QByteArray m_filter;
    bool m_reveal = false;
    mutable QHash<quint64, QString> m_previews;
};

PubSubPanel::PubSubPanel(RedisClient *client, QWidget *parent)
    : Panel(parent),
      m_client(client),
      m_reader(new PubSubReader(client, this)),
      m_listener(new PubSubListener(client, this)),
      m_messages(new TailModel(&m_tail, this)),
      m_poll(new QTimer(this)),
      m_viewTimer(new QTimer(this))
{
    using Channel = pubsub::Channel;
    using Slow = pubsub::SlowSubscriber;
    using Rate = pubsub::ChannelRate;
    m_channels = new RowTableModel<Channel>(
        {{tr("Channel"),
          [](const Channel &c, int role) -> QVariant {
              if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
                  return {};
              return bytesescape::escape(c.name);
          }},
         {tr("Kind"),
          [](const Channel &c, int role) -> QVariant {
              if (role != Qt::DisplayRole)
                  return {};
              return c.shard ? tr("shard channel") : tr("channel");
          }},
         {tr("Subscribers"),
          [](const Channel &c, int role) -> QVariant {
              if (role == Qt::TextAlignmentRole)
                  return QVariant(Qt::AlignRight | Qt::AlignVCenter);
              if (role == RowTableRoles::SortRole)
                  return c.subscribers;
              if (role != Qt::DisplayRole)
                  return {};
              return c.subscribers < 0 ? tr("not counted") : format::count(quint64(c.subscribers));
          }}},
        {[](const Channel &c) -> QByteArray { return (c.shard ? QByteArray("s:") : QByteArray("c:")) + c.name; },
         {},
         {}},
        this);
    m_slow = new RowTableModel<Slow>(
        {{tr("Subscriber"),
          [](const Slow &s, int role) -> QVariant {
              if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
                  return {};
              const QString name = s.client.name.isEmpty() ? tr("(no name)") : bytesescape::escape(s.client.name);
              return tr("id %1 · %2 · %3").arg(s.client.id).arg(name, QString::fromUtf8(s.client.addr));
          }},
         {tr("Subscriptions"),
          [](const Slow &s, int role) -> QVariant {
              if (role != Qt::DisplayRole)
                  return {};
              return tr("%1 channels, %2 patterns, %3 shard").arg(s.client.sub).arg(s.client.psub).arg(s.client.ssub);
          }},
         {tr("Output buffer"),
          [](const Slow &s, int role) -> QVariant {
              if (role == Qt::TextAlignmentRole)
                  return QVariant(Qt::AlignRight | Qt::AlignVCenter);
              if (role == RowTableRoles::SortRole)
                  return s.client.omem;
              if (role != Qt::DisplayRole)
                  return {};
              return format::bytes(s.client.omem);
          }},
         {tr("Verdict"),
          [](const Slow &s, int role) -> QVariant {
              if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
                  return {};
              return s.verdict;
          }}},
        {[](const Slow &s) -> QByteArray { return QByteArray::number(s.client.id); },
         [](const Slow &s) { return s.critical ? Severity::Bad : Severity::Warning; },
         {}},
        this);
    m_rates = new RowTableModel<Rate>(
        {{tr("Channel"),
          [](const Rate &r, int role) -> QVariant {
              if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
                  return {};
              return r.channel.isEmpty() ? tr("(other channels)") : bytesescape::escape(r.channel);
          }},
         {tr("Messages/s"),
          [](const Rate &r, int role) -> QVariant {
              if (role == Qt::TextAlignmentRole)
                  return QVariant(Qt::AlignRight | Qt::AlignVCenter);
              if (role == RowTableRoles::SortRole)
                  return r.perSecond;
              if (role != Qt::DisplayRole)
                  return {};
              return QString::number(r.perSecond, 'f', r.perSecond < 10 ? 1 : 0);
          }},
         {tr("Received"),
          [](const Rate &r, int role) -> QVariant {
              if (role == Qt::TextAlignmentRole)
                  return QVariant(Qt::AlignRight | Qt::AlignVCenter);
              if (role == RowTableRoles::SortRole)
                  return r.total;
              if (role != Qt::DisplayRole)
                  return {};
              return format::count(quint64(r.total));
          }}},
        {[](const Rate &r) -> QByteArray {
             return r.channel.isEmpty() ? QByteArray("\x01other") : QByteArray("c:") + r.channel;
         },
         {},
         {}},
        this);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->setObjectName(QStringLiteral("pubsubSplit"));
    split->addWidget(makeServerSide(split));
    split->addWidget(makeTail(split));
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    layout->addWidget(split);

    m_poll->setInterval(kPollMs);
    connect(m_poll, &QTimer::timeout, m_reader, &PubSubReader::read);
    connect(m_reader, &PubSubReader::snapshotAvailable, this, &PubSubPanel::onSnapshot);
    connect(m_reader, &PubSubReader::failed, this,
            [this](const QString &message) { m_status->setText(tr("Pub/sub not read: %1").arg(message)); });
    connect(m_client, &RedisClient::ready, this, [this] {
        if (isActive())
            m_reader->read();
        updatePublishButton(); // the server's own read-only flag is known now
    });
    m_viewTimer->setInterval(kViewMs);
    connect(m_viewTimer, &QTimer::timeout, this, &PubSubPanel::syncView);
    connect(m_listener, &PubSubListener::messagesArrived, this, &PubSubPanel::onMessages);
    connect(m_listener, &PubSubListener::stateChanged, this, [this](const QString &text) {
        m_listenState = text;
        updateTailStatus();
    });
    updatePublishButton();
    styleChart();
    updateTailStatus();
}

void PubSubPanel::updatePublishButton()
{
    const bool readOnly = m_client->isReadOnly();
    m_publish->setEnabled(!readOnly);
    m_publish->setToolTip(readOnly ? tr("Read-only connection: PUBLISH is refused") : tr("Publish a test message"));
}

PubSubPanel::~PubSubPanel() = default;

QWidget *PubSubPanel::makeServerSide(QWidget *parent)
{
    auto *box = new QWidget(parent);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(panelparts::heading(tr("Channels"), box));
    m_status = panelparts::statusLabel(QStringLiteral("pubsubStatus"), tr("Reading pub/sub…"), box);
    layout->addWidget(m_status);
    m_keyspace = panelparts::statusLabel(QStringLiteral("keyspaceEvents"), QString(), box);
    m_keyspace->setTextFormat(Qt::RichText);
    auto *keyspaceRow = new QHBoxLayout;
    keyspaceRow->addWidget(m_keyspace, 1);
    m_keyEvents = new QPushButton(tr("Tail key events"), box);
    m_keyEvents->setObjectName(QStringLiteral("tailKeyEvents"));
    m_keyEvents->setToolTip(tr("Listen to the key events of this database (__keyspace@N__:*)"));
    connect(m_keyEvents, &QPushButton::clicked, this, [this] { tailKeyEvents(QStringLiteral("*")); });
    keyspaceRow->addWidget(m_keyEvents, 0, Qt::AlignTop);
    layout->addLayout(keyspaceRow);

    auto *row = new QSplitter(Qt::Horizontal, box);
    auto *channelsProxy = new SeverityProxyModel(this, this);
    channelsProxy->setSourceModel(m_channels);
    m_channelsView = tableview::make(channelsProxy, row, QStringLiteral("channels"));
    m_channelsView->setSortingEnabled(true);
    m_channelsView->sortByColumn(2, Qt::DescendingOrder);
    m_channelsView->setToolTip(tr("Double-click a channel to tail it"));
    connect(m_channelsView, &QTableView::doubleClicked, this, [this](const QModelIndex &index) {
        const QByteArray id = index.data(RowTableRoles::KeyRole).toByteArray();
        if (const pubsub::Channel *c = m_channels->find(id)) {
            m_shard->setChecked(c->shard);
            listen(QString::fromUtf8(c->name), c->shard);
        }
    });
    row->addWidget(m_channelsView);
    auto *right = new QWidget(row);
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    m_plot = chartstyle::narrowTimePlot(right, QStringLiteral("subscribersPlot"));
    m_plot->addGraph();
    m_plot->addGraph();
    m_plot->graph(0)->setName(tr("channel subscriptions"));
    m_plot->graph(1)->setName(tr("pattern subscriptions"));
    chartstyle::putLegendAbove(m_plot);
    chartstyle::label(m_plot->yAxis, tr("Subscriptions"));
    rightLayout->addWidget(m_plot, 1);
    m_slowLabel = panelparts::statusLabel(QStringLiteral("slowLabel"), QString(), right);
    rightLayout->addWidget(m_slowLabel);
    auto *slowProxy = new SeverityProxyModel(this, this);
    slowProxy->setSourceModel(m_slow);
    m_slowView = tableview::make(slowProxy, right, QStringLiteral("slowSubscribers"));
    m_slowView->setVisible(false);
    rightLayout->addWidget(m_slowView, 1);
    row->addWidget(right);
    row->setStretchFactor(0, 1);
    row->setStretchFactor(1, 1);
    layout->addWidget(row, 1);
    return box;
}

QWidget *PubSubPanel::makeTail(QWidget *parent)
{
    auto *box = new QWidget(parent);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(panelparts::heading(tr("Live tail"), box));

    auto *listenRow = new QHBoxLayout;
    m_targets = new QLineEdit(box);
    m_targets->setObjectName(QStringLiteral("tailTargets"));
    m_targets->setPlaceholderText(tr("Channels and patterns, e.g. orders audit.*"));
    m_targets->setClearButtonEnabled(true);
    listenRow->addWidget(m_targets, 1);
    m_shard = new QCheckBox(tr("Shard channels"), box);
    m_shard->setToolTip(tr("SSUBSCRIBE (Redis 7.0+): the names are shard channels"));
    listenRow->addWidget(m_shard);
    m_listen = new QPushButton(tr("Listen"), box);
    m_listen->setObjectName(QStringLiteral("listen"));
    listenRow->addWidget(m_listen);
    m_stop = new QPushButton(tr("Stop"), box);
    m_stop->setObjectName(QStringLiteral("stopListening"));
    listenRow->addWidget(m_stop);
    layout->addLayout(listenRow);
    connect(m_listen, &QPushButton::clicked, this, [this] { listen(m_targets->text(), m_shard->isChecked()); });
    connect(m_targets, &QLineEdit::returnPressed, m_listen, &QPushButton::click);
    connect(m_stop, &QPushButton::clicked, this, &PubSubPanel::stopListening);

    auto *controls = new QHBoxLayout;
    m_pause = new QPushButton(tr("Pause"), box);
    m_pause->setObjectName(QStringLiteral("pause"));
    m_pause->setCheckable(true);
    connect(m_pause, &QPushButton::toggled, this, &PubSubPanel::setPaused);
    controls->addWidget(m_pause);
    m_filter = new QLineEdit(box);
    m_filter->setObjectName(QStringLiteral("tailFilter"));
    m_filter->setPlaceholderText(tr("Filter channel or message"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, this, &PubSubPanel::setFilter);
    controls->addWidget(m_filter, 1);
    controls->addWidget(new QLabel(tr("Keep"), box));
    m_boundCount = new QSpinBox(box);
    m_boundCount->setObjectName(QStringLiteral("boundCount"));
    m_boundCount->setRange(100, 1000000);
    m_boundCount->setSingleStep(1000);
    m_boundCount->setValue(pubsub::TailBuffer::kDefaultCount);
    m_boundCount->setSuffix(tr(" messages"));
    controls->addWidget(m_boundCount);
    m_boundMiB = new QSpinBox(box);
    m_boundMiB->setObjectName(QStringLiteral("boundMiB"));
    m_boundMiB->setRange(1, 1024);
    m_boundMiB->setValue(int(pubsub::TailBuffer::kDefaultBytes >> 20));
    m_boundMiB->setSuffix(tr(" MiB"));
    controls->addWidget(m_boundMiB);
    const auto bound = [this] { setBound(m_boundCount->value(), qint64(m_boundMiB->value()) << 20); };
    connect(m_boundCount, &QSpinBox::editingFinished, this, bound);
    connect(m_boundMiB, &QSpinBox::editingFinished, this, bound);
    m_copy = new QPushButton(tr("Copy"), box);
    m_copy->setObjectName(QStringLiteral("copyMessages"));
    connect(m_copy, &QPushButton::clicked, this, [this] {
        const QString text = selectedMessagesText();
        if (!text.isEmpty())
            QGuiApplication::clipboard()->setText(text);
    });
    controls->addWidget(m_copy);
    auto *clear = new QPushButton(tr("Clear"), box);
    connect(clear, &QPushButton::clicked, this, [this] {
        m_tail.clear();
        m_messages->reset();
        if (m_paused)
            m_messages->freeze();
        m_rates->clear();
        updateTailStatus();
    });
    controls->addWidget(clear);
    m_publish = new QPushButton(tr("Publish…"), box);
    m_publish->setObjectName(QStringLiteral("publish"));
    connect(m_publish, &QPushButton::clicked, this, &PubSubPanel::askPublish);
    controls->addWidget(m_publish);
    layout->addLayout(controls);

    m_tailStatus = panelparts::statusLabel(QStringLiteral("tailStatus"), QString(), box);
    layout->addWidget(m_tailStatus);

    auto *split = new QSplitter(Qt::Horizontal, box);
    auto *left = new QSplitter(Qt::Vertical, split);
    m_messagesView = tableview::make(m_messages, left, QStringLiteral("messages"));
    m_messagesView->setSelectionMode(QAbstractItemView::ExtendedSelection);
    connect(m_messagesView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &PubSubPanel::showSelected);
    // A reset (Clear, a filter, Resume, a new Listen) moves no current row: the detail follows.
    connect(m_messages, &QAbstractItemModel::modelReset, this, &PubSubPanel::showSelected);
    left->addWidget(m_messagesView);
    auto *detailBox = new QWidget(left);
    auto *detailLayout = new QVBoxLayout(detailBox);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    m_reveal = new QCheckBox(tr("Show secrets"), detailBox);
    m_reveal->setObjectName(QStringLiteral("revealMessages"));
    connect(m_reveal, &QCheckBox::toggled, this, [this](bool on) {
        m_messages->setReveal(on);
        showSelected();
    });
    detailLayout->addWidget(m_reveal);
    m_detail = new QPlainTextEdit(detailBox);
    m_detail->setObjectName(QStringLiteral("messageDetail"));
    m_detail->setReadOnly(true);
    m_detail->setPlaceholderText(tr("Select a message to see it decoded"));
    detailLayout->addWidget(m_detail, 1);
    left->addWidget(detailBox);
    left->setStretchFactor(0, 3);
    left->setStretchFactor(1, 1);
    split->addWidget(left);
    auto *ratesProxy = new SeverityProxyModel(this, this);
    ratesProxy->setSourceModel(m_rates);
    m_ratesView = tableview::make(ratesProxy, split, QStringLiteral("rates"));
    m_ratesView->setSortingEnabled(true);
    m_ratesView->sortByColumn(1, Qt::DescendingOrder);
    split->addWidget(m_ratesView);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);
    return box;
}

void PubSubPanel::activeChanged(bool active)
{
    // The server side is read only while shown; a tail, once started, goes on until stopped
    // (the user asked for it), and its table catches up when shown again.
    if (active) {
        m_reader->read();
        m_poll->start();
        if (m_listener->isListening())
            m_viewTimer->start();
        syncView();
    } else {
        m_poll->stop();
        m_viewTimer->stop();
    }
}

void PubSubPanel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange)
        styleChart();
    Panel::changeEvent(event);
}

void PubSubPanel::styleChart()
{
    chartstyle::apply(m_plot, palette());
    for (int i = 0; i < m_plot->graphCount(); ++i) {
        m_plot->graph(i)->setPen(QPen(chartstyle::series(i, palette()), 2));
        // A point per reading: the first is seen before there is a line.
        m_plot->graph(i)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 5));
    }
    m_plot->replot();
}

void PubSubPanel::onSnapshot(const pubsub::Snapshot &s)
{
    m_channels->setRows(s.channels);
    m_slow->setRows(s.slow);
    qint64 subscriptions = 0;
    int plain = 0;
    int shard = 0;
    for (const pubsub::Channel &c : s.channels) {
        subscriptions += qMax<qint64>(0, c.subscribers);
        (c.shard ? shard : plain) += 1;
    }
    QStringList parts;
    parts.append(counted(plain, tr("1 channel"), tr("%1 channels")));
    if (s.shardNote.isEmpty())
        parts.append(counted(shard, tr("1 shard channel"), tr("%1 shard channels")));
    parts.append(s.patterns < 0 ? tr("pattern subscriptions unknown")
                                : counted(s.patterns, tr("1 pattern subscription"), tr("%1 pattern subscriptions")));
    parts.append(counted(s.subscribers.size(), tr("1 subscriber connection"), tr("%1 subscriber connections")));
    QString status = parts.join(QStringLiteral(" · "));
    if (s.channelsTruncated)
        status += tr(" · subscribers counted for the first %1 channels").arg(PubSubReader::kMaxChannels);
    if (!s.shardNote.isEmpty())
        status += QStringLiteral(" · ") + s.shardNote;
    if (!s.clientsError.isEmpty())
        status += QStringLiteral(" · ") + s.clientsError;
    m_status->setText(status);

    // Slow subscribers, against the server's limit for pub/sub clients.
    QString limit;
    if (s.limit.known && (s.limit.hardBytes > 0 || s.limit.softBytes > 0))
        limit = tr("client-output-buffer-limit pubsub: hard %1, soft %2 for %3 s")
                    .arg(s.limit.hardBytes > 0 ? format::bytes(s.limit.hardBytes) : tr("none"),
                         s.limit.softBytes > 0 ? format::bytes(s.limit.softBytes) : tr("none"))
                    .arg(s.limit.softSeconds);
    else if (s.limit.known)
        limit = tr("client-output-buffer-limit pubsub: none (a subscriber that stops reading grows without bound)");
    m_slowLabel->setText(s.slow.isEmpty()
                             ? tr("No subscriber is falling behind. %1").arg(limit)
                             : tr("%1 falling behind, worst first. %2")
                                   .arg(counted(s.slow.size(), tr("1 subscriber"), tr("%1 subscribers")), limit));
    m_slowView->setVisible(!s.slow.isEmpty());
    int critical = 0;
    for (const pubsub::SlowSubscriber &slow : s.slow)
        critical += slow.critical ? 1 : 0;
    if (s.slow.isEmpty())
        clearBadge();
    else
        setBadge(int(s.slow.size()), critical > 0 ? Severity::Bad : Severity::Warning,
                 tr("%1 with a growing output buffer")
                     .arg(counted(s.slow.size(), tr("1 subscriber"), tr("%1 subscribers"))));

    // Keyspace notifications: what the setting makes the server publish.
    if (!s.keyspaceEventsError.isEmpty()) {
        m_keyspace->setText(s.keyspaceEventsError.toHtmlEscaped());
    } else if (s.keyspaceEventsKnown) {
        // What the setting makes the server publish, each letter explained in the tool tip.
        const keyspaceevents::Setting setting = keyspaceevents::explain(s.keyspaceEvents);
        // (The summary quotes the value.)
        QString summary = setting.summary;
        if (!summary.endsWith(QLatin1Char('.')))
            summary += QLatin1Char('.');
        QString text = tr("<b>Keyspace notifications</b>: %1").arg(summary.toHtmlEscaped());
        if (!setting.publishes)
            text += tr(" <i>CONFIG SET notify-keyspace-events %1</i> would turn them on; RedisLens never changes it.")
                        .arg(QString::fromUtf8(setting.suggested).toHtmlEscaped());
        m_keyspace->setText(text);
        QStringList lines;
        for (const keyspaceevents::Flag &f : setting.flags)
            lines << QStringLiteral("%1 %2 — %3")
                         .arg(QString(QLatin1Char(f.letter)), f.on ? tr("on") : tr("off"), f.text);
        m_keyspace->setToolTip(lines.join(QLatin1Char('\n')));
        m_keyEvents->setEnabled(setting.publishes && setting.has(keyspaceevents::Keyspace));
        m_keyEvents->setToolTip(setting.has(keyspaceevents::Keyspace)
                                    ? tr("Listen to the key events of this database (__keyspace@N__:*)")
                                    : tr("Tailing key events needs K (keyspace channels) in notify-keyspace-events"));
    }

    // Subscriptions over time, a point per reading.
    const double t = QDateTime::currentMSecsSinceEpoch() / 1000.0;
    m_plot->graph(0)->addData(t, double(subscriptions));
    m_plot->graph(1)->addData(t, double(qMax<qint64>(0, s.patterns)));
    for (int i = 0; i < m_plot->graphCount(); ++i) {
        QCPGraphDataContainer &data = *m_plot->graph(i)->data();
        if (data.size() > kPlotPoints)
            data.removeBefore((data.constBegin() + (data.size() - kPlotPoints))->key);
    }
    if (m_startMs == 0)
        m_startMs = QDateTime::currentMSecsSinceEpoch();
    const double start = qMin(m_startMs / 1000.0, t - chartstyle::kMinTimeSpanSecs);
    m_plot->xAxis->setRange(start, t);
    bool found = false;
    const QCPRange y = m_plot->graph(0)->getValueRange(found);
    bool found1 = false;
    const QCPRange y1 = m_plot->graph(1)->getValueRange(found1);
    m_plot->yAxis->setRange(0, qMax(4.0, qMax(found ? y.upper : 0, found1 ? y1.upper : 0) * 1.2));
    m_plot->replot();

    if (!m_hasContent) {
        m_hasContent = true;
        Q_EMIT contentReady();
    }
}

void PubSubPanel::listen(const QString &targets, bool shard)
{
    m_targets->setText(targets);
    const PubSubListener::Targets t = PubSubListener::parse(targets, shard);
    if (t.isEmpty()) {
        m_listenState = tr("Name a channel or a pattern to listen to");
        updateTailStatus();
        return;
    }
    m_tail.clear();
    m_messages->reset();
    m_rates->clear();
    m_listener->setBound(m_tail.boundCount(), m_tail.boundBytes());
    m_listenState = tr("Connecting…");
    m_listener->listen(t);
    if (isActive())
        m_viewTimer->start();
    updateTailStatus();
}

void PubSubPanel::stopListening()
{
    m_listener->stop();
    m_viewTimer->stop();
    syncView();
    m_listenState = tr("Stopped");
    updateTailStatus();
}

void PubSubPanel::tailKeyEvents(const QString &glob)
{
    listen(QStringLiteral("__keyspace@%1__:%2").arg(m_client->profile().db).arg(glob));
}

void PubSubPanel::setPaused(bool paused)
{
    if (paused == m_paused)
        return;
    m_paused = paused;
    const QSignalBlocker block(m_pause);
    m_pause->setChecked(paused);
    m_pause->setText(paused ? tr("Resume") : tr("Pause"));
    if (paused)
        m_messages->freeze();
    else
        m_messages->reset(); // what came meanwhile, within the bound
    updateTailStatus();
}

void PubSubPanel::setFilter(const QString &text)
{
    if (m_filter->text() != text) {
        const QSignalBlocker block(m_filter);
        m_filter->setText(text);
    }
    m_messages->setFilter(text);
    if (!m_paused)
        m_messages->reset();
    updateTailStatus();
}

void PubSubPanel::setBound(int count, qint64 bytes)
{
    m_boundCount->setValue(count);
    m_boundMiB->setValue(int(qMax<qint64>(1, bytes >> 20)));
    m_tail.setBound(count, bytes);
    m_listener->setBound(count, bytes);
    if (!m_paused)
        m_messages->follow();
    updateTailStatus();
}

void PubSubPanel::onMessages(const QList<pubsub::TailMessage> &messages, qint64 dropped)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    m_tail.noteDropped(dropped);
    for (const pubsub::TailMessage &m : messages)
        m_tail.append(m, now);
    if (!m_viewTimer->isActive() && isActive())
        m_viewTimer->start();
}

void PubSubPanel::syncView()
{
    if (!m_paused)
        m_messages->follow();
    m_rates->setRows(m_tail.rates(QDateTime::currentMSecsSinceEpoch()));
    updateTailStatus();
    if (!m_listener->isListening())
        m_viewTimer->stop();
}

int PubSubPanel::shownMessages() const
{
    return m_messages->rowCount();
}

void PubSubPanel::updateTailStatus()
{
    QStringList parts;
    if (!m_listenState.isEmpty())
        parts.append(m_listenState);
    if (m_tail.received() > 0 || m_listener->isListening()) {
        parts.append(tr("%1 received, %2 kept (%3 of %4, %5 at most)")
                         .arg(format::count(quint64(m_tail.received())),
                              format::count(quint64(m_tail.messages().size())), format::bytes(m_tail.bytes()),
                              format::bytes(m_tail.boundBytes()), format::count(quint64(m_tail.boundCount()))));
        if (m_tail.dropped() > 0)
            parts.append(
                tr("%1 dropped, oldest first, to stay within the bound").arg(format::count(quint64(m_tail.dropped()))));
    }
    if (const int lost = m_listener->interruptions(); lost > 0)
        parts.append(tr("the connection was lost %1: what was published meanwhile was missed")
                         .arg(counted(lost, tr("once"), tr("%1 times"))));
    if (m_paused)
        parts.append(tr("paused: the table stands still, messages are still received"));
    if (!m_filter->text().isEmpty())
        parts.append(tr("%1 shown by the filter").arg(format::count(quint64(m_messages->rowCount()))));
    m_tailStatus->setText(parts.isEmpty() ? tr("Not listening") : parts.join(QStringLiteral(" · ")));
    m_stop->setEnabled(m_listener->isListening());
}

void PubSubPanel::showSelected()
{
    const QModelIndex current = m_messagesView->currentIndex();
    const pubsub::TailMessage *m = m_messages->message(current.isValid() ? current.row() : -1);
    if (!m) {
        m_detail->clear();
        return;
    }
    QString head = tr("%1 on %2").arg(timeOf(m->receivedMs), bytesescape::quoteIfNeeded(m->channel));
    if (!m->pattern.isEmpty())
        head += tr(" (pattern %1)").arg(bytesescape::quoteIfNeeded(m->pattern));
    head += tr(", %1").arg(format::bytes(m->payload.size()));
    QString body;
    if (m->payload.size() <= kDecodeInPane) {
        decode::Limits limits;
        const valuedecoding::Decoded d = valuedecoding::decodeValue(m->payload, {}, limits);
        if (d.useful()) {
            head += QStringLiteral("\n") + tr("Decoded: %1").arg(d.summary());
            if (d.secrets > 0 && !m_reveal->isChecked())
                head += tr(" · %1 masked").arg(counted(d.secrets, tr("1 secret"), tr("%1 secrets")));
            body = m_reveal->isChecked() ? d.text : d.maskedText;
        }
    } else {
        head += QStringLiteral("\n") + tr("Not decoded here: larger than %1").arg(format::bytes(kDecodeInPane));
    }
    if (body.isNull()) {
        const QByteArray masked
            = m_reveal->isChecked() ? QByteArray() : masking::maskedValue(nullptr, m->payload, false);
        body = bytesescape::escape(masked.isNull() ? m->payload : masked);
    }
    m_detail->setPlainText(head + QStringLiteral("\n\n") + body);
}

QString PubSubPanel::selectedMessagesText() const
{
    QList<int> rows;
    for (const QModelIndex &i : m_messagesView->selectionModel()->selectedRows())
        rows.append(i.row());
    if (rows.isEmpty() && m_messagesView->currentIndex().isValid())
        rows.append(m_messagesView->currentIndex().row());
    std::sort(rows.begin(), rows.end());
    QStringList lines;
    for (const int row : std::as_const(rows)) {
        const pubsub::TailMessage *m = m_messages->message(row);
        if (!m)
            continue;
        // What the table shows (masked unless revealed): a copy carries no more than the screen.
        const QString message = m_messages->index(row, TailModel::Message).data().toString();
        lines.append(QStringLiteral("%1\t%2\t%3").arg(timeOf(m->receivedMs), bytesescape::escape(m->channel), message));
    }
    return lines.join(QLatin1Char('\n'));
}

void PubSubPanel::askPublish()
{
    bool ok = false;
    const QString channel = QInputDialog::getText(this, tr("Publish a test message"), tr("Channel:"), QLineEdit::Normal,
                                                  m_targets->text().section(QLatin1Char(' '), 0, 0), &ok);
    if (!ok || channel.isEmpty())
        return;
    const QString message = QInputDialog::getText(this, tr("Publish a test message"), tr("Message:"), QLineEdit::Normal,
                                                  QStringLiteral("{\"test\":true}"), &ok);
    if (!ok)
        return;
    publishTestMessage(channel.toUtf8(), message.toUtf8());
}

bool PubSubPanel::publishTestMessage(const QByteArray &channel, const QByteArray &message)
{
    if (m_client->isReadOnly()) {
        m_listenState = tr("Not published: the connection is read-only");
        updateTailStatus();
        return false;
    }
    const QString what = tr("Publish %1 (%2) to channel %3 on %4? Every subscriber of the channel receives it.")
                             .arg(bytesescape::quoteIfNeeded(message.left(200)), format::bytes(message.size()),
                                  bytesescape::quoteIfNeeded(channel), m_client->profile().displayName());
    if (!panelparts::confirm(this, tr("Publish a test message"), what))
        return false;
    m_client->send({"PUBLISH", channel, message}, this, [this, channel](const RedisReply &r) {
        const RedisError e = r.firstError();
        m_listenState = e ? tr("Not published: %1").arg(e.message)
                          : tr("Published to %1: received by %2")
                                .arg(bytesescape::quoteIfNeeded(channel),
                                     counted(r.value().toInteger(), tr("1 subscriber"), tr("%1 subscribers")));
        updateTailStatus();
    });
    return true;
}
