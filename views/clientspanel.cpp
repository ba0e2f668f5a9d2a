// SPDX-License-Identifier: GPL-3.0-or-later
#include "clientspanel.h"

#include "bytesescape.h"
#include "format.h"
#include "panelparts.h"
#include "redisclient.h"
#include "tableview.h"

#include <QComboBox>
#include <QDateTime>
#include <QFont>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QStackedWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <QVersionNumber>

namespace {

const QString kConnectionsId = QStringLiteral("connections");
constexpr int kListedInQuestion = 12; // connections named one by one in the confirmation

// A row table whose rows can be RedisLens's own: OwnRole says so, and they are drawn in italics.
template <typename Row> class OwnMarkedModel : public RowTableModel<Row>
{
public:
    using Base = RowTableModel<Row>;
    OwnMarkedModel(QList<typename Base::Column> columns, typename Base::Meta meta, std::function<bool(const Row &)> own,
                   QObject *parent)
        : Base(std::move(columns), std::move(meta), parent), m_own(std::move(own))
    { }
    QVariant data(const QModelIndex &index, int role) const override
    {
        if ((role == ClientsPanel::OwnRole || role == Qt::FontRole) && this->isCell(index)) {
            const bool own = m_own(this->rows().at(index.row()));
            if (role == ClientsPanel::OwnRole)
                return own;
            if (!own)
                return {};
            QFont italic;
            italic.setItalic(true);
            return italic;
        }
        return Base::data(index, role);
    }

private:
    std::function<bool(const Row &)> m_own;
};

QString text(const QByteArray &bytes)
{
    return bytesescape::escape(bytes);
}

QString seconds(qint64 s)
{
    if (s < 0)
        return QStringLiteral("–");
    return s == 0 ? QStringLiteral("0 s") : format::duration(s * 1000); // CLIENT LIST counts whole seconds
}

// "3 s / 2m 10s / 1h 02m": the smallest, the median and the largest.
QString spread(qint64 min, qint64 median, qint64 max)
{
    if (median < 0)
        return QStringLiteral("–");
    if (min == max)
        return seconds(min);
    return QStringLiteral("%1 / %2 / %3").arg(seconds(min), seconds(median), seconds(max));
}

// "client|list" → "CLIENT LIST", as the user would type it.
QString commandName(const QByteArray &cmd)
{
    if (cmd.startsWith('('))
        return QString::fromLatin1(cmd);
    QByteArray upper = cmd.toUpper();
    upper.replace('|', ' ');
    return text(upper);
}

// The counts of a map, largest first, at most 'most' of them: "PING 6, GET 2, 1 more".
QString topCounts(const QMap<QByteArray, int> &counts, int most)
{
    QList<std::pair<QByteArray, int>> sorted;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
        sorted.append({it.key(), it.value()});
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
    QStringList parts;
    for (qsizetype i = 0; i < sorted.size() && i < most; ++i)
        parts << QStringLiteral("%1 %2").arg(commandName(sorted.at(i).first)).arg(sorted.at(i).second);
    if (sorted.size() > most)
        parts << ClientsPanel::tr("%n more", nullptr, int(sorted.size() - most));
    return parts.join(QStringLiteral(", "));
}

// "1 connection", "5 connections": the question says the count in plain words.
QString connectionCount(qsizetype n)
{
    return n == 1 ? ClientsPanel::tr("1 connection") : ClientsPanel::tr("%1 connections").arg(n);
}

QString ownMark()
{
    return ClientsPanel::tr("RedisLens");
}

QString nameOf(const ClientEntry &c)
{
    return c.name.isEmpty() ? ClientsPanel::tr("(no name)") : text(c.name);
}

// One connection as the confirmation lists it: "id 14 · 127.0.0.1:50124 · billing-pool".
QString describe(const ClientEntry &c)
{
    return QStringLiteral("id %1 · %2 · %3").arg(c.id).arg(text(c.addr), nameOf(c));
}

QVariant number(qint64 n, int role, const QString &shown)
{
    if (role == Qt::DisplayRole)
        return shown;
    if (role == RowTableRoles::SortRole)
        return n;
    if (role == Qt::TextAlignmentRole)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant bytesCell(qint64 n, int role)
{
    return number(n, role, n < 0 ? QStringLiteral("–") : format::bytes(n));
}

QVariant shown(int role, const QString &value, const QString &toolTip = {})
{
    if (role == Qt::DisplayRole)
        return value;
    if (role == Qt::ToolTipRole && !toolTip.isEmpty())
        return toolTip;
    return {};
}

// What a connection's flags say that matters here.
QString connectionNotes(const ClientEntry &c)
{
    QStringList notes;
    if (clients::isOwn(c))
        notes << ClientsPanel::tr("RedisLens's own");
    if (c.flags.contains('b'))
        notes << ClientsPanel::tr("blocked in %1").arg(commandName(c.cmd));
    if (c.isPubSub())
        notes << ClientsPanel::tr("pub/sub: %1 channel(s), %2 pattern(s)").arg(c.sub + c.ssub).arg(c.psub);
    if (c.flags.contains('M'))
        notes << ClientsPanel::tr("primary");
    if (c.flags.contains('S'))
        notes << ClientsPanel::tr("replica");
    if (c.flags.contains('x'))
        notes << ClientsPanel::tr("in MULTI");
    return notes.join(QStringLiteral(" · "));
}

} // namespace

ClientsPanel::ClientsPanel(RedisClient *client, QWidget *parent)
    : Panel(parent),
      m_client(client),
      m_reader(new ClientsReader(client, this)),
      m_actions(new ClientActions(client, this)),
      m_poll(new QTimer(this))
{
    setObjectName(QStringLiteral("clients"));
    auto *layout = new QVBoxLayout(this);
    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Group by:"), this));
    m_grouping = new QComboBox(this);
    m_grouping->setObjectName(QStringLiteral("clientsGrouping"));
    m_grouping->addItem(tr("Client name"), clients::groupById(clients::GroupBy::Name));
    m_grouping->addItem(tr("Library (lib-name, lib-ver)"), clients::groupById(clients::GroupBy::Library));
    m_grouping->addItem(tr("Address (host)"), clients::groupById(clients::GroupBy::Address));
    m_grouping->addItem(tr("User"), clients::groupById(clients::GroupBy::User));
    m_grouping->addItem(tr("Database"), clients::groupById(clients::GroupBy::Database));
    m_grouping->addItem(tr("Last command"), clients::groupById(clients::GroupBy::Command));
    m_grouping->addItem(tr("Individual connections"), kConnectionsId);
    top->addWidget(m_grouping);
    top->addStretch(1);
    m_kill = new QPushButton(tr("Cut…"), this);
    m_kill->setObjectName(QStringLiteral("clientsKill"));
    top->addWidget(m_kill);
    layout->addLayout(top);

    m_status = panelparts::statusLabel(QStringLiteral("clientsStatus"), tr("Reading the connections…"), this);
    layout->addWidget(m_status);
    m_churn = panelparts::statusLabel(QStringLiteral("clientsChurn"), {}, this);
    layout->addWidget(m_churn);
    m_hints = panelparts::statusLabel(QStringLiteral("clientsHints"), {}, this);
    m_hints->setFrameShape(QFrame::StyledPanel);
    m_hints->setMargin(6);
    m_hints->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_hints->hide();
    layout->addWidget(m_hints);
    m_note = panelparts::statusLabel(QStringLiteral("clientsNote"), {}, this);
    m_note->hide();
    layout->addWidget(m_note);
    layout->addWidget(makeTables(), 1);
    m_result = panelparts::statusLabel(QStringLiteral("clientsResult"), {}, this);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_result);

    m_poll->setInterval(kPollMs);
    connect(m_poll, &QTimer::timeout, this, &ClientsPanel::refresh);
    connect(m_reader, &ClientsReader::readingAvailable, this, &ClientsPanel::onReading);
    connect(m_reader, &ClientsReader::failed, this,
            [this](const QString &message) { m_status->setText(tr("Cannot read the connections: %1").arg(message)); });
    connect(m_client, &RedisClient::ready, this, [this] {
        updateKillButton();
        showNote();
        if (isActive())
            refresh();
    });
    connect(m_grouping, &QComboBox::currentIndexChanged, this, [this] {
        m_stack->setCurrentWidget(isGrouped() ? static_cast<QWidget *>(m_groupsView) : m_connectionsView);
        m_groupsView->clearSelection();
        showGroups();
        showNote();
        updateKillButton();
    });
    connect(m_kill, &QPushButton::clicked, this, &ClientsPanel::killSelected);
    connect(m_actions, &ClientActions::finished, this, &ClientsPanel::onKillFinished);
    for (QTableView *view : {m_groupsView, m_connectionsView})
        connect(view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &ClientsPanel::updateKillButton);
    updateKillButton();
}

ClientsPanel::~ClientsPanel() = default;

QWidget *ClientsPanel::makeTables()
{
    using Group = clients::Group;
    m_groups = new OwnMarkedModel<Group>(
        {
            {tr("Group"),
             [](const Group &g, int role) -> QVariant {
                 const QString key = text(g.key);
                 return shown(role, g.own ? QStringLiteral("%1 · %2").arg(key, ownMark()) : key);
             }},
            {tr("Connections"),
             [](const Group &g, int role) -> QVariant {
                 if (role == Qt::ToolTipRole && g.ownConnections > 0 && !g.own)
                     return tr("%n of them RedisLens's own", nullptr, g.ownConnections);
                 return number(g.connections, role, QString::number(g.connections));
             }},
            {tr("Age (min/med/max)"),
             [](const Group &g, int role) -> QVariant {
                 return number(g.medianAge, role, spread(g.minAge, g.medianAge, g.maxAge));
             }},
            {tr("Idle (min/med/max)"),
             [](const Group &g, int role) -> QVariant {
                 return number(g.medianIdle, role, spread(g.minIdle, g.medianIdle, g.maxIdle));
             }},
            {tr("Commands"),
             [](const Group &g, int role) -> QVariant {
                 return shown(role, topCounts(g.commands, 3), topCounts(g.commands, 20));
             }},
            {tr("Query buf"), [](const Group &g, int role) { return bytesCell(g.queryBuffers, role); }},
            {tr("Output buf"), [](const Group &g, int role) { return bytesCell(g.outputBuffers, role); }},
            {tr("Memory"), [](const Group &g, int role) { return bytesCell(g.memory, role); }},
            {tr("Notes"),
             [](const Group &g, int role) -> QVariant {
                 QStringList notes;
                 if (g.blocked > 0)
                     notes << tr("%n blocked: ", nullptr, g.blocked) + topCounts(g.blockedOn, 4);
                 if (g.ownConnections > 0 && !g.own)
                     notes << tr("%n RedisLens", nullptr, g.ownConnections);
                 if (g.unnamed > 0 && g.unnamed < g.connections)
                     notes << tr("%n without a name", nullptr, g.unnamed);
                 if (g.young > 0)
                     notes << tr("%n under %1 s old", nullptr, g.young).arg(clients::kYoungSeconds);
                 if (g.idleLong > 0)
                     notes << tr("%n idle %1 s or more", nullptr, g.idleLong).arg(clients::kLongIdleSeconds);
                 return shown(role, notes.join(QStringLiteral(" · ")));
             }},
        },
        {[](const Group &g) { return g.key; },
         [](const Group &g) { return g.blocked > 0 ? Severity::Warning : Severity::None; },
         {}},
        [](const Group &g) { return g.own; }, this);
    m_connections = new OwnMarkedModel<ClientEntry>(
        {
            {tr("Id"), [](const ClientEntry &c, int role) { return number(c.id, role, QString::number(c.id)); }},
            {tr("Name"),
             [](const ClientEntry &c, int role) -> QVariant {
                 return shown(role,
                              clients::isOwn(c) ? QStringLiteral("%1 · %2").arg(nameOf(c), ownMark()) : nameOf(c));
             }},
            {tr("Address"), [](const ClientEntry &c, int role) { return shown(role, text(c.addr)); }},
            {tr("Library"),
             [](const ClientEntry &c, int role) {
                 return shown(role,
                              c.libName.isEmpty() ? QStringLiteral("–")
                                                  : QStringLiteral("%1 %2").arg(text(c.libName), text(c.libVer)));
             }},
            {tr("User"), [](const ClientEntry &c, int role) { return shown(role, text(c.user)); }},
            {tr("DB"), [](const ClientEntry &c, int role) { return number(c.db, role, QString::number(c.db)); }},
            {tr("Age"), [](const ClientEntry &c, int role) { return number(c.age, role, seconds(c.age)); }},
            {tr("Idle"), [](const ClientEntry &c, int role) { return number(c.idle, role, seconds(c.idle)); }},
            {tr("Command"), [](const ClientEntry &c, int role) { return shown(role, commandName(c.cmd)); }},
            {tr("Query buf"), [](const ClientEntry &c, int role) { return bytesCell(c.qbuf, role); }},
            {tr("Output buf"), [](const ClientEntry &c, int role) { return bytesCell(c.omem, role); }},
            {tr("Memory"), [](const ClientEntry &c, int role) { return bytesCell(c.totMem, role); }},
            {tr("Notes"),
             [](const ClientEntry &c, int role) {
                 return shown(role, connectionNotes(c), tr("flags=%1").arg(text(c.flags)));
             }},
        },
        {[](const ClientEntry &c) { return QByteArray::number(c.id); },
         [](const ClientEntry &c) { return c.flags.contains('b') ? Severity::Warning : Severity::None; },
         {}},
        [](const ClientEntry &c) { return clients::isOwn(c); }, this);

    m_stack = new QStackedWidget(this);
    auto *groupsProxy = new SeverityProxyModel(this, this);
    groupsProxy->setSourceModel(m_groups);
    m_groupsView = tableview::make(groupsProxy, m_stack, QStringLiteral("clientGroups"));
    m_groupsView->setSortingEnabled(true);
    m_groupsView->sortByColumn(1, Qt::DescendingOrder); // the largest group first
    auto *connectionsProxy = new SeverityProxyModel(this, this);
    connectionsProxy->setSourceModel(m_connections);
    m_connectionsView = tableview::make(connectionsProxy, m_stack, QStringLiteral("clientConnections"));
    m_connectionsView->setSortingEnabled(true);
    m_connectionsView->sortByColumn(0, Qt::AscendingOrder); // oldest connection first
    const QFontMetrics fm = fontMetrics();
    const auto widths = [&fm](QTableView *view, const QList<std::pair<int, QString>> &samples) {
        for (const auto &[column, sample] : samples)
            view->horizontalHeader()->resizeSection(column, fm.horizontalAdvance(sample) + 16);
    };
    widths(m_groupsView,
           {{0, QStringLiteral("billing-pool · RedisLens")},
            {1, QStringLiteral("Connections")},
            {2, QStringLiteral("3 s / 10m 03s / 1h")},
            {3, QStringLiteral("3 s / 10m 03s / 1h")},
            {4, QStringLiteral("BLPOP 12, PING 8")},
            {5, QStringLiteral("1023.9 KiB")},
            {6, QStringLiteral("1023.9 KiB")},
            {7, QStringLiteral("1023.9 KiB")}});
    widths(m_connectionsView,
           {{0, QStringLiteral("123456")},
            {1, QStringLiteral("billing-pool · RedisLens")},
            {2, QStringLiteral("127.0.0.1:65535")},
            {3, QStringLiteral("redis-py 5.0.1")},
            {4, QStringLiteral("default")},
            {5, QStringLiteral("DB")},
            {6, QStringLiteral("1h 02m")},
            {7, QStringLiteral("1h 02m")},
            {8, QStringLiteral("XREADGROUP")},
            {9, QStringLiteral("1023.9 KiB")},
            {10, QStringLiteral("1023.9 KiB")},
            {11, QStringLiteral("1023.9 KiB")}});
    m_stack->addWidget(m_groupsView);
    m_stack->addWidget(m_connectionsView);
    return m_stack;
}

void ClientsPanel::setGrouping(const QString &id)
{
    const int at = m_grouping->findData(id);
    if (at >= 0)
        m_grouping->setCurrentIndex(at);
}

QString ClientsPanel::grouping() const
{
    return m_grouping->currentData().toString();
}

bool ClientsPanel::isGrouped() const
{
    return grouping() != kConnectionsId;
}

void ClientsPanel::setPollInterval(int ms)
{
    m_poll->setInterval(ms);
}

void ClientsPanel::refresh()
{
    m_reader->read(); // does nothing while a reading is on the wire
}

void ClientsPanel::activeChanged(bool active)
{
    if (active) {
        refresh();
        m_poll->start();
    } else {
        m_poll->stop();
    }
}

void ClientsPanel::onReading(const ClientsReading &reading)
{
    const bool listed = reading.error.isEmpty();
    if (listed) {
        m_reading = reading;
        m_connections->setRows(reading.clients);
        showGroups();
        m_hintList = clients::hints(reading.clients, reading.churn);
        showHints(m_hintList);
        m_status->setText(
            tr("%n connection(s), read %1; read again every %2 while shown.", nullptr, int(reading.clients.size()))
                .arg(QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss")),
                     format::duration(m_poll->interval())));
    } else {
        // INFO still tells the churn; the table keeps what it had.
        m_reading.churn = reading.churn;
        const QString user
            = m_client->profile().username.isEmpty() ? QStringLiteral("default") : m_client->profile().username;
        m_status->setText(
            reading.denied
                ? tr("The connections cannot be listed: user %1 needs +client|list (%2)").arg(user, reading.error)
                : tr("The connections cannot be listed: %1").arg(reading.error));
        m_hintList.clear();
        for (const clients::Hint &h : clients::hints({}, reading.churn))
            m_hintList.append(h); // the server's own: maxclients, rejected
        showHints(m_hintList);
    }
    showChurn(reading.churn);
    updateKillButton();
    if (!m_hasContent) { // a reading arrived, whatever it said
        m_hasContent = true;
        Q_EMIT contentReady();
    }
}

void ClientsPanel::showGroups()
{
    if (!isGrouped())
        return;
    const auto by = clients::groupByFromId(grouping());
    m_groups->setRows(by ? clients::group(m_reading.clients, *by) : QList<clients::Group>());
}

void ClientsPanel::showChurn(const clients::Churn &churn)
{
    QStringList parts;
    if (churn.acceptedPerSecond >= 0)
        parts << tr("%1 new connections/s").arg(churn.acceptedPerSecond, 0, 'f', 1);
    else
        parts << tr("new connections/s after the next reading");
    int young = 0;
    for (const ClientEntry &c : std::as_const(m_reading.clients))
        young += c.age >= 0 && c.age < clients::kYoungSeconds ? 1 : 0;
    parts << tr("%n connected less than %1 s ago", nullptr, young).arg(clients::kYoungSeconds);
    if (churn.rejected >= 0)
        parts << tr("%n rejected since the server started", nullptr, int(qMin<qint64>(churn.rejected, INT_MAX)));
    if (churn.maxClients > 0 && churn.connected >= 0)
        parts << tr("%1 of maxclients %2 in use (%3 free)")
                     .arg(churn.connected)
                     .arg(churn.maxClients)
                     .arg(qMax<qint64>(0, churn.maxClients - churn.connected));
    else if (churn.connected >= 0)
        parts << tr("%1 connected (maxclients unknown: needs +config|get)").arg(churn.connected);
    m_churn->setText(parts.join(QStringLiteral(" · ")));
}

void ClientsPanel::showHints(const QList<clients::Hint> &hints)
{
    QStringList lines;
    int attention = 0;
    Severity severity = Severity::None;
    QStringList worth;
    for (const clients::Hint &h : hints) {
        lines << (h.group.isEmpty() ? tr("⚠ server: %1").arg(h.text) : tr("⚠ %1: %2").arg(text(h.group), h.text));
        // A missing client name is worth knowing, not a reason to look now.
        if (h.id == QLatin1String("no-client-name"))
            continue;
        ++attention;
        worth << h.text;
        const bool bad = h.id == QLatin1String("maxclients") || h.id == QLatin1String("rejected");
        severity = bad ? Severity::Bad : (severity == Severity::Bad ? Severity::Bad : Severity::Warning);
    }
    m_hints->setText(lines.join(QLatin1Char('\n')));
    m_hints->setVisible(!lines.isEmpty());
    setBadge(attention, severity, worth.join(QLatin1Char('\n')));
}

void ClientsPanel::showNote()
{
    QString note;
    const QVersionNumber version = m_client->facts().version;
    // Before 7.2 no connection has a library: the column would be empty.
    m_connectionsView->setColumnHidden(3, !version.isNull() && version < QVersionNumber(7, 2));
    if (grouping() == clients::groupById(clients::GroupBy::Library) && !version.isNull()
        && version < QVersionNumber(7, 2))
        note = tr("lib-name and lib-ver are sent by clients from Redis 7.2 on; this server is %1, so the field is "
                  "missing and every connection shows as (not said).")
                   .arg(version.toString());
    m_note->setText(note);
    m_note->setVisible(!note.isEmpty());
}

void ClientsPanel::selectGroup(const QByteArray &key)
{
    const QAbstractItemModel *model = m_groupsView->model();
    for (int r = 0; r < model->rowCount(); ++r)
        if (model->index(r, 0).data(RowTableRoles::KeyRole).toByteArray() == key) {
            m_groupsView->selectRow(r);
            return;
        }
}

void ClientsPanel::selectConnection(qint64 id)
{
    const QAbstractItemModel *model = m_connectionsView->model();
    const QByteArray key = QByteArray::number(id);
    for (int r = 0; r < model->rowCount(); ++r)
        if (model->index(r, 0).data(RowTableRoles::KeyRole).toByteArray() == key) {
            m_connectionsView->selectRow(r);
            return;
        }
}

ClientsPanel::KillPlan ClientsPanel::killPlan() const
{
    KillPlan plan;
    QTableView *view = isGrouped() ? m_groupsView : m_connectionsView;
    const QModelIndexList rows = view->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return plan;
    const QByteArray key = rows.first().data(RowTableRoles::KeyRole).toByteArray();
    if (!isGrouped()) {
        const qint64 id = key.toLongLong();
        for (const ClientEntry &c : m_reading.clients)
            if (c.id == id)
                plan.cut.append(c);
        plan.what = tr("connection %1").arg(id);
        return plan;
    }
    const clients::Group *g = m_groups->find(key);
    if (!g)
        return plan;
    const QSet<qint64> ids(g->ids.cbegin(), g->ids.cend());
    for (const ClientEntry &c : m_reading.clients) {
        if (!ids.contains(c.id))
            continue;
        if (clients::isOwn(c))
            ++plan.ownSpared; // cutting RedisLens's own would only make it connect again
        else
            plan.cut.append(c);
    }
    plan.what = tr("the group %1 (by %2)").arg(text(g->key), m_grouping->currentText().toLower());
    return plan;
}

void ClientsPanel::updateKillButton()
{
    const QString why = m_actions->refusal();
    const KillPlan plan = killPlan();
    m_kill->setText(isGrouped() ? tr("Cut group…") : tr("Cut connection…"));
    m_kill->setEnabled(why.isEmpty() && !plan.cut.isEmpty() && !m_actions->isBusy());
    if (!why.isEmpty())
        m_kill->setToolTip(why);
    else if (plan.cut.isEmpty() && plan.ownSpared > 0)
        m_kill->setToolTip(tr("Only RedisLens's own connections here: nothing to cut"));
    else
        m_kill->setToolTip(tr("Closes the selected connections with CLIENT KILL ID, after asking"));
    if (!why.isEmpty() && m_result->text().isEmpty())
        m_result->setText(why);
}

void ClientsPanel::killSelected()
{
    const KillPlan plan = killPlan();
    QList<qint64> ids;
    for (const ClientEntry &c : plan.cut)
        ids.append(c.id);
    // Refused (read-only, busy) or nothing to cut: the action says why and sends nothing.
    if (!m_actions->refusal().isEmpty() || m_actions->isBusy() || ids.isEmpty()) {
        if (ids.isEmpty() && plan.ownSpared > 0 && m_actions->refusal().isEmpty())
            m_result->setText(tr("Only RedisLens's own connections in %1: nothing cut").arg(plan.what));
        else
            m_actions->kill(ids);
        return;
    }
    QStringList lines;
    for (qsizetype i = 0; i < plan.cut.size() && i < kListedInQuestion; ++i)
        lines << describe(plan.cut.at(i));
    if (plan.cut.size() > kListedInQuestion)
        lines << tr("… and %n more", nullptr, int(plan.cut.size() - kListedInQuestion));
    QString question = tr("Cut %1 of %2?").arg(connectionCount(plan.cut.size()), plan.what);
    question += QStringLiteral("\n\n") + lines.join(QLatin1Char('\n')) + QStringLiteral("\n\n");
    question += tr("Each is closed at once with CLIENT KILL ID: commands in flight on it fail, a blocked call "
                   "returns an error, and its application has to connect again (a pool does so by itself).");
    int own = 0;
    for (const ClientEntry &c : plan.cut)
        own += clients::isOwn(c) ? 1 : 0;
    if (own > 0)
        question += QStringLiteral("\n\n")
            + tr("Warning: this is one of RedisLens's own connections. RedisLens connects again by itself, and "
                 "what it was reading on it fails.");
    if (plan.ownSpared > 0)
        question += QStringLiteral("\n\n")
            + tr("%n of RedisLens's own connection(s) in this group stay open.", nullptr, plan.ownSpared);
    if (!panelparts::confirm(this, tr("Cut connections"), question))
        return;
    // Each by id and address: the server the reading came from, the client it listed.
    QList<QByteArray> addrs;
    for (const ClientEntry &c : plan.cut)
        addrs.append(c.addr);
    m_actions->kill(ids, addrs);
    updateKillButton();
}

void ClientsPanel::onKillFinished(const ClientKillResult &result)
{
    m_result->setText(result.message);
    updateKillButton();
    if (!result.refused)
        refresh();
}

QString ClientsPanel::statusText() const
{
    return m_status->text();
}

QString ClientsPanel::churnText() const
{
    return m_churn->text();
}

QString ClientsPanel::hintsText() const
{
    return m_hints->text();
}

QString ClientsPanel::noteText() const
{
    return m_note->text();
}

QString ClientsPanel::resultText() const
{
    return m_result->text();
}
