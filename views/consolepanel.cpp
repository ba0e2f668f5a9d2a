// SPDX-License-Identifier: GPL-3.0-or-later
#include "consolepanel.h"

#include "bytesescape.h"
#include "clusterkeys.h"
#include "clusterrouter.h"
#include "format.h"
#include "luaeditor.h"
#include "redisclient.h"
#include "scriptlibrary.h"
#include "scriptrunner.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextBrowser>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace {

// A script may run for minutes on purpose; the user cancels the wait, not a timer.
constexpr int kRunTimeoutMs = 60 * 60 * 1000;

QString elapsedString(qint64 us)
{
    if (us < 0)
        return {};
    if (us < 1000)
        return QStringLiteral("%1 µs").arg(us);
    return format::duration(us / 1000);
}

QStringList escaped(const QList<QByteArray> &values)
{
    QStringList out;
    for (const QByteArray &v : values)
        out.append(bytesescape::escape(v));
    return out;
}

} // namespace

ConsolePanel::ConsolePanel(RedisClient *client, QWidget *parent)
    : Panel(parent), m_client(client), m_runner(new ScriptRunner(client, this)), m_result(new LuaResultModel(this))
{
    connect(m_runner, &ScriptRunner::finished, this, [this](const RedisReply &r) { onReply(r); });
    connect(m_runner, &ScriptRunner::killFinished, this, &ConsolePanel::onKillFinished);
    buildUi();
    QString historyError;
    if (!m_history.load(&historyError))
        setNotice(tr("The run history could not be read: %1").arg(historyError), true);
    refreshHistory();
    connect(m_client, &RedisClient::ready, this, [this] {
        setRunning(false); // refreshes the mode line for this server
        if (m_runWhenReady) {
            m_runWhenReady = false;
            run();
        }
    });
    setRunning(false);
}

ConsolePanel::~ConsolePanel() = default;

void ConsolePanel::buildUi()
{
    auto *outer = new QVBoxLayout(this);

    auto *bar = new QHBoxLayout;
    m_runButton = new QPushButton(tr("Run"), this);
    m_runButton->setToolTip(tr("Run the script (Ctrl+Enter)"));
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_cancelButton->setToolTip(tr("Stop waiting for the answer. The script keeps running on the server."));
    auto *open = new QPushButton(tr("Open…"), this);
    auto *save = new QPushButton(tr("Save…"), this);
    m_mode = new QLabel(this);
    bar->addWidget(m_runButton);
    bar->addWidget(m_cancelButton);
    bar->addSpacing(12);
    bar->addWidget(open);
    bar->addWidget(save);
    bar->addSpacing(12);
    m_nodeLabel = new QLabel(tr("Run on"), this);
    m_node = new QComboBox(this);
    m_node->setObjectName(QStringLiteral("consoleNode"));
    m_node->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_node->setToolTip(tr("A cluster runs a script where its KEYS live; a script without keys runs on the seed "
                          "unless you pick a node here"));
    m_nodeLabel->setBuddy(m_node);
    m_nodeLabel->hide();
    m_node->hide();
    bar->addWidget(m_nodeLabel);
    bar->addWidget(m_node);
    bar->addSpacing(12);
    bar->addWidget(m_mode, 1);
    outer->addLayout(bar);
    connect(m_node, &QComboBox::currentIndexChanged, this,
            [this] { m_runner->setNode(m_node->currentData().toString()); });

    auto *split = new QSplitter(Qt::Horizontal, this);
    auto *left = new QSplitter(Qt::Vertical, split);
    m_editor = new LuaEditor(left);
    auto *params = new QWidget(left);
    auto *paramsLayout = new QHBoxLayout(params);
    paramsLayout->setContentsMargins(0, 0, 0, 0);
    paramsLayout->addWidget(buildParamTable(tr("KEYS"), QStringLiteral("KEYS"), &m_keysTable));
    paramsLayout->addWidget(buildParamTable(tr("ARGV"), QStringLiteral("ARGV"), &m_argsTable));
    left->addWidget(m_editor);
    left->addWidget(params);
    left->setStretchFactor(0, 3);
    left->setStretchFactor(1, 1);

    m_tabs = new QTabWidget(split);
    m_tabs->setMinimumWidth(370); // room for a readable value column next to element and type
    m_tabs->addTab(buildResultPage(), tr("Result"));

    m_tabs->addTab(buildLibraryPage(), tr("Library"));

    m_tabs->addTab(buildHistoryPage(), tr("History"));

    split->addWidget(left);
    split->addWidget(m_tabs);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    outer->addWidget(split, 1);

    connect(m_runButton, &QPushButton::clicked, this, &ConsolePanel::run);
    connect(m_cancelButton, &QPushButton::clicked, this, &ConsolePanel::cancel);
    connect(m_editor, &LuaEditor::runRequested, this, &ConsolePanel::run);
    // Ctrl+Enter from the tables too, not only from the editor.
    auto *runAction = new QAction(tr("Run"), this);
    runAction->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)});
    runAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(runAction, &QAction::triggered, this, &ConsolePanel::run);
    addAction(runAction);
    connect(open, &QPushButton::clicked, this, [this] {
        const QString path
            = QFileDialog::getOpenFileName(this, tr("Open Lua script"), {}, tr("Lua scripts (*.lua);;All files (*)"));
        QString error;
        if (!path.isEmpty() && !openFrom(path, &error))
            setNotice(error, true);
    });
    connect(save, &QPushButton::clicked, this, [this] {
        QString path = QFileDialog::getSaveFileName(this, tr("Save Lua script"), {}, tr("Lua scripts (*.lua)"));
        if (path.isEmpty())
            return;
        if (!path.endsWith(QLatin1String(".lua")))
            path += QLatin1String(".lua");
        QString error;
        if (!saveTo(path, &error))
            setNotice(error, true);
    });
}

// The result: a notice with SCRIPT KILL, the typed result tree, the time taken and the hex switch.
QWidget *ConsolePanel::buildResultPage()
{
    auto *resultPage = new QWidget(m_tabs);
    auto *rl = new QVBoxLayout(resultPage);
    auto *noticeRow = new QHBoxLayout;
    m_notice = new QLabel(resultPage);
    m_notice->setWordWrap(true);
    m_notice->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_killButton = new QPushButton(tr("SCRIPT KILL"), resultPage);
    m_killButton->setToolTip(tr("Stop the running script (only possible while it has not written)"));
    noticeRow->addWidget(m_notice, 1);
    noticeRow->addWidget(m_killButton, 0, Qt::AlignTop);
    rl->addLayout(noticeRow);
    m_resultView = new QTreeView(resultPage);
    m_resultView->setModel(m_result);
    m_resultView->setAlternatingRowColors(true);
    m_resultView->setUniformRowHeights(true);
    m_resultView->header()->setStretchLastSection(false);
    m_resultView->header()->setSectionResizeMode(LuaResultModel::ValueColumn, QHeaderView::Stretch);
    m_resultView->header()->setSectionResizeMode(LuaResultModel::TypeColumn, QHeaderView::Interactive);
    m_resultView->header()->resizeSection(LuaResultModel::TypeColumn, 120);
    m_resultView->header()->setSectionResizeMode(LuaResultModel::ElementColumn, QHeaderView::Interactive);
    m_resultView->header()->resizeSection(LuaResultModel::ElementColumn, 80);
    rl->addWidget(m_resultView, 1);
    auto *resultBar = new QHBoxLayout;
    m_elapsed = new QLabel(resultPage);
    m_hex = new QCheckBox(tr("Bulk strings as hex"), resultPage);
    resultBar->addWidget(m_elapsed, 1);
    resultBar->addWidget(m_hex);
    rl->addLayout(resultBar);
    connect(m_killButton, &QPushButton::clicked, this, &ConsolePanel::killScript);
    connect(m_hex, &QCheckBox::toggled, this, [this](bool on) {
        m_result->setHexMode(on);
        m_resultView->expandAll();
    });
    return resultPage;
}

// The library of scripts, with the selected one's documentation.
QWidget *ConsolePanel::buildLibraryPage()
{
    auto *libraryPage = new QWidget(m_tabs);
    auto *ll = new QVBoxLayout(libraryPage);
    m_library = new QListWidget(libraryPage);
    for (const ScriptInfo &s : ScriptLibrary::instance().scripts()) {
        auto *item = new QListWidgetItem(s.name, m_library);
        item->setToolTip(s.purpose);
    }
    m_libraryDoc = new QTextBrowser(libraryPage);
    auto *insert = new QPushButton(tr("Insert as template"), libraryPage);
    ll->addWidget(m_library, 1);
    ll->addWidget(m_libraryDoc, 2);
    ll->addWidget(insert, 0, Qt::AlignRight);
    connect(m_library, &QListWidget::currentRowChanged, this, &ConsolePanel::showLibraryDoc);
    connect(m_library, &QListWidget::itemActivated, this,
            [this](QListWidgetItem *item) { insertLibraryScript(item->text()); });
    connect(insert, &QPushButton::clicked, this, [this] {
        if (QListWidgetItem *item = m_library->currentItem())
            insertLibraryScript(item->text());
    });
    return libraryPage;
}

// The runs so far, to restore into the editor.
QWidget *ConsolePanel::buildHistoryPage()
{
    auto *historyPage = new QWidget(m_tabs);
    auto *hl = new QVBoxLayout(historyPage);
    m_historyList = new QListWidget(historyPage);
    auto *restore = new QPushButton(tr("Restore into editor"), historyPage);
    m_keepArguments = new QCheckBox(tr("Keep KEYS and ARGV"), historyPage);
    m_keepArguments->setChecked(true);
    m_keepArguments->setToolTip(tr("Arguments can be lock tokens or ids. Off: runs keep their script and result "
                                   "summary only, and the arguments of earlier runs are removed from the file."));
    auto *historyButtons = new QHBoxLayout;
    historyButtons->addWidget(m_keepArguments);
    historyButtons->addStretch(1);
    historyButtons->addWidget(restore);
    hl->addWidget(m_historyList, 1);
    hl->addLayout(historyButtons);
    connect(m_keepArguments, &QCheckBox::toggled, this, [this](bool keep) {
        m_history.setKeepArguments(keep);
        refreshHistory();
        Q_EMIT historyKeepsArgumentsChanged(keep);
    });
    connect(m_historyList, &QListWidget::itemActivated, this, [this] { restoreRun(m_historyList->currentRow()); });
    connect(restore, &QPushButton::clicked, this, [this] { restoreRun(m_historyList->currentRow()); });
    return historyPage;
}

QWidget *ConsolePanel::buildParamTable(const QString &title, const QString &prefix, QTableWidget **table)
{
    auto *box = new QWidget(this);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *head = new QHBoxLayout;
    auto *label = new QLabel(QStringLiteral("<b>%1</b>").arg(title), box);
    label->setToolTip(tr("Values are bytes: write \\xNN for any byte, \\n, \\t, \\\\ and \\\" as in redis-cli"));
    head->addWidget(label, 1);
    auto *t = new QTableWidget(0, 2, box);
    *table = t;
    t->setHorizontalHeaderLabels({tr("Value"), tr("Meaning")});
    t->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    t->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
    auto button = [&](const QString &text, const QString &tip, auto slot) {
        auto *b = new QToolButton(box);
        b->setText(text);
        b->setToolTip(tip);
        head->addWidget(b);
        connect(b, &QToolButton::clicked, this, slot);
    };
    button(QStringLiteral("+"), tr("Add a row"), [this, t, prefix] {
        const int row = t->currentRow() >= 0 ? t->currentRow() + 1 : t->rowCount();
        t->insertRow(row);
        auto *meaning = new QTableWidgetItem;
        meaning->setFlags(meaning->flags() & ~Qt::ItemIsEditable);
        t->setItem(row, 0, new QTableWidgetItem);
        t->setItem(row, 1, meaning);
        renumber(t, prefix);
        t->setCurrentCell(row, 0);
        t->editItem(t->item(row, 0));
    });
    button(QStringLiteral("−"), tr("Remove the selected row"), [this, t, prefix] {
        if (t->currentRow() >= 0) {
            t->removeRow(t->currentRow());
            renumber(t, prefix);
        }
    });
    auto move = [this, t, prefix](int delta) {
        const int row = t->currentRow();
        const int to = row + delta;
        if (row < 0 || to < 0 || to >= t->rowCount())
            return;
        for (int c = 0; c < t->columnCount(); ++c) {
            QTableWidgetItem *a = t->takeItem(row, c);
            QTableWidgetItem *b = t->takeItem(to, c);
            t->setItem(row, c, b);
            t->setItem(to, c, a);
        }
        t->setCurrentCell(to, t->currentColumn());
        renumber(t, prefix);
    };
    button(QStringLiteral("↑"), tr("Move up"), [move] { move(-1); });
    button(QStringLiteral("↓"), tr("Move down"), [move] { move(1); });
    layout->addLayout(head);
    layout->addWidget(t, 1);
    return box;
}

void ConsolePanel::renumber(QTableWidget *table, const QString &prefix)
{
    QStringList labels;
    for (int i = 0; i < table->rowCount(); ++i)
        labels.append(QStringLiteral("%1[%2]").arg(prefix).arg(i + 1));
    table->setVerticalHeaderLabels(labels);
}

void ConsolePanel::setParams(QTableWidget *table, const QString &prefix, const QStringList &values,
                             const QStringList &meanings)
{
    table->setRowCount(0);
    table->setRowCount(int(values.size()));
    for (int i = 0; i < values.size(); ++i) {
        table->setItem(i, 0, new QTableWidgetItem(values.at(i)));
        auto *meaning = new QTableWidgetItem(meanings.value(i));
        meaning->setFlags(meaning->flags() & ~Qt::ItemIsEditable);
        meaning->setToolTip(meanings.value(i));
        table->setItem(i, 1, meaning);
    }
    renumber(table, prefix);
}

void ConsolePanel::setKeys(const QList<QByteArray> &keys)
{
    setParams(m_keysTable, QStringLiteral("KEYS"), escaped(keys), {});
}

void ConsolePanel::setArgs(const QList<QByteArray> &args)
{
    setParams(m_argsTable, QStringLiteral("ARGV"), escaped(args), {});
}

std::optional<QList<QByteArray>> ConsolePanel::params(QTableWidget *table, const QString &prefix, QString *error) const
{
    QList<QByteArray> out;
    for (int i = 0; i < table->rowCount(); ++i) {
        const QTableWidgetItem *item = table->item(i, 0);
        const QString text = item ? item->text() : QString();
        QString why;
        const std::optional<QByteArray> bytes = bytesescape::unescape(text, &why);
        if (!bytes) {
            if (error)
                *error = tr("%1[%2]: %3").arg(prefix).arg(i + 1).arg(why);
            return std::nullopt;
        }
        out.append(*bytes);
    }
    return out;
}

std::optional<QList<QByteArray>> ConsolePanel::keys(QString *error) const
{
    return params(m_keysTable, QStringLiteral("KEYS"), error);
}

std::optional<QList<QByteArray>> ConsolePanel::args(QString *error) const
{
    return params(m_argsTable, QStringLiteral("ARGV"), error);
}

bool ConsolePanel::readOnly() const
{
    return m_client->isReadOnly();
}

QVersionNumber ConsolePanel::serverVersion() const
{
    return m_versionOverride.isNull() ? m_client->facts().version : m_versionOverride;
}

QString ConsolePanel::readOnlyRefusal(const QVersionNumber &version)
{
    if (version.isNull() || version >= QVersionNumber(7, 0))
        return {};
    return tr("Read-only connection: Redis %1 has no EVAL_RO/EVALSHA_RO (they came in 7.0), and a plain EVAL "
              "could write, so scripts do not run here.")
        .arg(version.toString());
}

void ConsolePanel::run()
{
    if (isRunning())
        return;
    QString error;
    const std::optional<QList<QByteArray>> k = keys(&error);
    const std::optional<QList<QByteArray>> a = k ? args(&error) : std::nullopt;
    if (!k || !a) {
        setNotice(tr("Not sent: %1").arg(error), true);
        return;
    }
    const QString script = m_editor->toPlainText();
    if (script.trimmed().isEmpty()) {
        setNotice(tr("Nothing to run: the editor is empty."), true);
        return;
    }
    const bool ro = readOnly();
    if (ro) {
        const QString why = readOnlyRefusal(serverVersion());
        if (!why.isEmpty()) {
            setNotice(why, true);
            return;
        }
    }
    // Applies to cluster connections, which set m_clusterMode: a script's keys must live in
    // one slot, or the node answers CROSSSLOT after the round trip.
    QList<QByteArray> offending;
    if (m_clusterMode && !luaresult::keysInOneSlot(*k, &offending)) {
        setNotice(tr("Not sent: in a cluster all KEYS must hash to one slot; %1 %2 not in the slot of %3 (use a "
                     "{hash tag}).")
                      .arg(escaped(offending).join(QLatin1String(", ")), offending.size() == 1 ? tr("is") : tr("are"),
                           bytesescape::quoteIfNeeded(k->first())),
                  true);
        return;
    }
    // A chosen node must own the keys' slot: elsewhere the script would only be answered MOVED.
    if (m_clusterMode && !k->isEmpty() && !m_runner->node().isEmpty()) {
        const ClusterRouter *router = m_client->cluster();
        const int slot = int(cluster::keySlot(k->first()));
        const cluster::Node *owner = router ? router->ownerOf(slot) : nullptr;
        if (owner && owner->address.toString() != m_runner->node()) {
            setNotice(tr("Not sent: the KEYS live in slot %1, on %2, not on %3. Run it on %2, or where the keys "
                         "live.")
                          .arg(slot)
                          .arg(owner->address.toString(), m_runner->node()),
                      true);
            return;
        }
    }
    m_editor->clearErrorLine();
    m_pending = {script, *k, *a};
    m_runner->run(script.toUtf8(), *k, *a, ro, kRunTimeoutMs);
    setRunning(true);
    setNotice(ro ? tr("Running read-only… SCRIPT KILL stops it on the server (it cannot have written); Cancel only "
                      "stops waiting.")
                 : tr("Running… Cancel stops waiting; the script itself runs on the server until it ends."),
              false, true);
}

void ConsolePanel::cancel()
{
    if (!isRunning())
        return;
    m_runner->cancel();
    setRunning(false);
    // Once the console no longer waits for its script, it cannot tell that script from another
    // client's: a read-only connection does not offer to kill it (see CommandPolicy::Purpose).
    setNotice(readOnly() ? tr("Cancelled: the answer will be dropped. The script is still running on the server "
                              "until it ends, and this connection waits behind it.")
                         : tr("Cancelled: the answer will be dropped. The script is still running on the server "
                              "until it ends or SCRIPT KILL stops it, and this connection waits behind it."),
              false, !readOnly());
}

void ConsolePanel::onReply(const RedisReply &r)
{
    setRunning(false);
    LuaRun entry;
    entry.script = m_pending.script;
    entry.keys = m_pending.keys;
    entry.args = m_pending.args;
    entry.elapsedUs = r.elapsedUs;
    entry.server = m_client->profile().displayName();
    entry.at = QDateTime::currentDateTimeUtc();
    if (!r.ok()) {
        m_result->clear();
        m_elapsed->clear();
        setNotice(r.error.message, true);
        entry.summary = tr("failed: %1").arg(r.error.message);
    } else {
        const RedisValue &value = r.value(0);
        // RedisLens speaks RESP2 (it never sends HELLO 3): Lua false and nil both arrive as nil.
        m_result->setResult(value, true);
        m_resultView->expandAll();
        m_elapsed->setText(tr("took %1").arg(elapsedString(r.elapsedUs)));
        m_elapsed->setToolTip(tr("Measured by RedisLens from sending to the answer: the round trip, including the "
                                 "script's time on the server"));
        entry.summary = luaresult::summary(value);
        const RedisError err = RedisError::fromReply(value);
        if (err.kind == RedisError::Kind::Busy && readOnly()) {
            setNotice(tr("The server is BUSY running another client's script; every command waits for it. A "
                         "read-only connection does not stop it: the script belongs to an application, whose "
                         "request SCRIPT KILL would fail. From a writable connection, SCRIPT KILL stops it if it "
                         "has not written yet."),
                      true, false);
        } else if (err.kind == RedisError::Kind::Busy) {
            setNotice(tr("The server is BUSY running another client's script; every command waits for it. "
                         "SCRIPT KILL stops it if it has not written yet. Once it has written, SCRIPT KILL fails "
                         "with UNKILLABLE and only SHUTDOWN NOSAVE ends it, losing every write since the last save "
                         "(RedisLens never sends SHUTDOWN)."),
                      true, true);
        } else if (value.isError()) {
            QString message;
            const int line = luaresult::errorLine(value.bytes(), &message);
            m_editor->markErrorLine(line, message);
            setNotice(line > 0 ? tr("Line %1: %2").arg(line).arg(message) : QString::fromUtf8(value.bytes()), true);
        } else {
            setNotice(value.isNil() ? tr("nil: over RESP2 a Lua false arrives as nil too, so it may have been "
                                         "false.")
                                    : QString(),
                      false);
        }
        markContent();
    }
    QString historyError;
    if (!m_history.add(entry, &historyError)) {
        const QString shown = m_notice->isHidden() ? QString() : m_notice->text() + QLatin1Char('\n');
        setNotice(shown + tr("The run history was not saved: %1").arg(historyError), true, !m_killButton->isHidden());
    }
    refreshHistory();
    m_tabs->setCurrentIndex(0);
    Q_EMIT runFinished();
}

void ConsolePanel::killScript()
{
    if (m_runner->isKilling())
        return;
    // On a read-only connection only the script this console still waits for may be stopped:
    // it ran with EVAL_RO / EVALSHA_RO, so it cannot have written.
    const auto purpose
        = readOnly() && isRunning() ? CommandPolicy::Purpose::StopOwnReadOnlyScript : CommandPolicy::Purpose::Normal;
    setNotice(tr("Sending SCRIPT KILL on a separate connection…"), false);
    m_runner->kill(purpose);
}

void ConsolePanel::onKillFinished(const RedisValue &reply, const RedisError &error)
{
    if (error.kind == RedisError::Kind::ReadOnlyRefused) {
        setNotice(tr("SCRIPT KILL not sent: %1. On a read-only connection RedisLens stops only the script it "
                     "is still waiting for.")
                      .arg(error.message),
                  true, false);
    } else if (error) {
        setNotice(tr("SCRIPT KILL could not be sent: %1").arg(error.message), true, true);
    } else if (reply.isError() && reply.errorCode() == "UNKILLABLE") {
        setNotice(tr("UNKILLABLE: the script has already written, so SCRIPT KILL cannot stop it. Wait for "
                     "it to end; the only other way is SHUTDOWN NOSAVE, which stops the server and loses every "
                     "write since the last save. RedisLens never sends SHUTDOWN."),
                  true, true);
    } else if (reply.isError() && reply.errorCode() == "NOTBUSY") {
        setNotice(tr("SCRIPT KILL: no script is running any more."), false);
    } else if (reply.isError()) {
        setNotice(tr("SCRIPT KILL failed: %1").arg(QString::fromUtf8(reply.bytes())), true, true);
    } else {
        setNotice(isRunning() ? tr("SCRIPT KILL: the script was stopped; its answer follows.")
                              : tr("SCRIPT KILL: the script was stopped."),
                  false);
    }
    Q_EMIT killFinished(reply);
}

void ConsolePanel::setNotice(const QString &text, bool error, bool offerKill)
{
    m_notice->setText(text);
    m_notice->setVisible(!text.isEmpty());
    m_notice->setStyleSheet(error ? QStringLiteral("QLabel { color: #c0392b; }") : QString());
    m_killButton->setVisible(offerKill);
}

bool ConsolePanel::isRunning() const
{
    return m_runner->isRunning();
}

QString ConsolePanel::noticeText() const
{
    return m_notice->text();
}

QString ConsolePanel::elapsedText() const
{
    return m_elapsed->text();
}

void ConsolePanel::setRunning(bool running)
{
    m_runButton->setEnabled(!running);
    m_cancelButton->setEnabled(running);
    QString mode;
    if (readOnly()) {
        const QString why = readOnlyRefusal(serverVersion());
        mode = why.isEmpty()
            ? tr("read-only connection: scripts run with EVALSHA_RO / EVAL_RO and cannot write")
            : tr("read-only connection to Redis %1: scripts cannot run").arg(serverVersion().toString());
    } else {
        mode = tr("scripts run with EVALSHA (SCRIPT LOAD on NOSCRIPT)");
    }
    if (running)
        mode = tr("running…  ") + mode;
    m_mode->setText(mode);
}

void ConsolePanel::setHistoryKeepsArguments(bool keep)
{
    m_keepArguments->setChecked(keep); // toggled() applies it; the history starts keeping them
}

void ConsolePanel::insertLibraryScript(const QString &name)
{
    const ScriptInfo *s = ScriptLibrary::instance().find(name);
    if (!s)
        return;
    m_editor->setPlainText(QString::fromUtf8(s->source));
    auto fill = [this](QTableWidget *table, const QString &prefix, const QList<ScriptParam> &params) {
        QStringList values;
        QStringList meanings;
        for (const ScriptParam &p : params) {
            values.append(p.example);
            meanings.append(p.variadic ? tr("%1… %2 (more rows allowed)").arg(p.name, p.meaning)
                                       : tr("%1: %2").arg(p.name, p.meaning));
        }
        setParams(table, prefix, values, meanings);
    };
    fill(m_keysTable, QStringLiteral("KEYS"), s->keys);
    fill(m_argsTable, QStringLiteral("ARGV"), s->argv);
    const QList<QListWidgetItem *> items = m_library->findItems(name, Qt::MatchExactly);
    if (!items.isEmpty())
        m_library->setCurrentItem(items.first());
    setNotice(tr("Inserted %1 with its example KEYS and ARGV.").arg(name), false);
}

bool ConsolePanel::loadScript(const QString &libraryName, bool run)
{
    if (!ScriptLibrary::instance().find(libraryName))
        return false;
    insertLibraryScript(libraryName);
    if (run) {
        if (m_client->isReady())
            this->run();
        else
            m_runWhenReady = true;
    }
    return true;
}

void ConsolePanel::showLibraryDoc()
{
    const QListWidgetItem *item = m_library->currentItem();
    const ScriptInfo *s = item ? ScriptLibrary::instance().find(item->text()) : nullptr;
    if (!s) {
        m_libraryDoc->clear();
        return;
    }
    auto params = [](const QString &prefix, const QList<ScriptParam> &list) -> QString {
        if (list.isEmpty())
            return tr("<p><b>%1</b>: none</p>").arg(prefix);
        QString html = QStringLiteral("<p><b>%1</b></p><ul>").arg(prefix);
        for (int i = 0; i < list.size(); ++i) {
            const ScriptParam &p = list.at(i);
            html += QStringLiteral("<li>%1[%2] <code>%3%4</code>: %5 <i>(e.g. %6)</i></li>")
                        .arg(prefix)
                        .arg(i + 1)
                        .arg(p.name.toHtmlEscaped(), p.variadic ? QStringLiteral("…") : QString(),
                             p.meaning.toHtmlEscaped(), p.example.toHtmlEscaped());
        }
        return html + QStringLiteral("</ul>");
    };
    QString html = QStringLiteral("<h3>%1</h3><p>%2</p>").arg(s->name.toHtmlEscaped(), s->purpose.toHtmlEscaped());
    html += params(QStringLiteral("KEYS"), s->keys);
    html += params(QStringLiteral("ARGV"), s->argv);
    html += tr("<p><b>Writes:</b> %1 &nbsp; <b>Single slot:</b> %2</p>")
                .arg(s->writes ? tr("yes (refused on a read-only connection)") : tr("no"),
                     s->singleSlot ? tr("yes") : tr("no"));
    html += tr("<p><b>Returns:</b> %1</p>").arg(s->returns.toHtmlEscaped());
    m_libraryDoc->setHtml(html);
}

void ConsolePanel::refreshHistory()
{
    m_historyList->clear();
    for (const LuaRun &r : m_history.runs()) {
        QString first = r.script.section(QLatin1Char('\n'), 0, 0).trimmed();
        // Library scripts start with the SPDX line; their name line says more.
        if (first.startsWith(QLatin1String("-- SPDX")))
            first = r.script.section(QLatin1Char('\n'), 1, 1).trimmed();
        auto *item = new QListWidgetItem(QStringLiteral("%1  %2  —  %3")
                                             .arg(r.at.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")),
                                                  first.left(60), r.summary.left(80)),
                                         m_historyList);
        item->setToolTip(tr("%1\nserver %2, took %3").arg(r.summary, r.server, elapsedString(r.elapsedUs)));
    }
}

void ConsolePanel::restoreRun(int historyRow)
{
    if (historyRow < 0 || historyRow >= m_history.runs().size())
        return;
    const LuaRun &r = m_history.runs().at(historyRow);
    m_editor->setPlainText(r.script);
    setKeys(r.keys);
    setArgs(r.args);
    setNotice(tr("Restored the run of %1 (%2).").arg(r.at.toLocalTime().toString(Qt::ISODate), r.summary), false);
}

bool ConsolePanel::saveTo(const QString &path, QString *error)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(m_editor->toPlainText().toUtf8()) < 0) {
        if (error)
            *error = tr("Cannot save %1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

bool ConsolePanel::openFrom(const QString &path, QString *error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error)
            *error = tr("Cannot open %1: %2").arg(path, f.errorString());
        return false;
    }
    m_editor->setPlainText(QString::fromUtf8(f.readAll()));
    return true;
}

void ConsolePanel::markContent()
{
    if (m_hasContent)
        return;
    m_hasContent = true;
    Q_EMIT contentReady();
}

void ConsolePanel::setClusterNodes(const QList<QPair<QString, QString>> &nodes)
{
    const QString chosen = m_runner->node();
    const QSignalBlocker quiet(m_node);
    m_node->clear();
    m_node->addItem(tr("where the keys live (the seed without keys)"), QString());
    for (const auto &[address, label] : nodes)
        m_node->addItem(label, address);
    int at = m_node->findData(chosen);
    if (at < 0 && !chosen.isEmpty()) {
        // A node that left the map stays chosen, and named, until the user picks another.
        m_node->addItem(tr("%1 · not in the slot map").arg(chosen), chosen);
        at = m_node->count() - 1;
    }
    m_node->setCurrentIndex(qMax(0, at));
    m_nodeLabel->setVisible(m_clusterMode);
    m_node->setVisible(m_clusterMode);
}

bool ConsolePanel::chooseNode(const QString &address)
{
    const int at = m_node->findData(address);
    if (at < 0)
        return false;
    m_node->setCurrentIndex(at);
    m_runner->setNode(address);
    return true;
}
