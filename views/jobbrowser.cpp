// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobbrowser.h"

#include "bytesescape.h"
#include "format.h"
#include "jobpagereader.h"
#include "luaeditor.h"
#include "tableview.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace {

QString stateTitle(const QString &role, qint64 count)
{
    return count < 0 ? role : QStringLiteral("%1 (%2)").arg(role, format::count(quint64(count)));
}

} // namespace

JobBrowser::JobBrowser(RedisClient *client, QWidget *parent)
    : QWidget(parent), m_reader(new JobPageReader(client, this)), m_model(new JobPageModel(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("State"), this));
    m_state = new QComboBox(this);
    m_state->setObjectName(QStringLiteral("jobState"));
    // Sized for "completed (1,234,567)", not for the longest label it ever held: the bar must
    // not widen the window.
    m_state->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_state->setMinimumContentsLength(20);
    bar->addWidget(m_state);
    m_prev = new QPushButton(tr("‹ Previous"), this);
    m_next = new QPushButton(tr("Next ›"), this);
    m_pageLabel = new QLabel(this);
    m_pageLabel->setWordWrap(true); // "cannot read: …" may be long
    auto *refresh = new QPushButton(tr("Refresh"), this);
    bar->addWidget(m_prev);
    bar->addWidget(m_pageLabel);
    bar->addWidget(m_next);
    bar->addWidget(refresh);
    bar->addStretch(1);
    layout->addLayout(bar);

    auto *split = new QSplitter(Qt::Horizontal, this);
    m_view = tableview::make(m_model, split, QStringLiteral("jobPageView"));
    m_detail = new QPlainTextEdit(split);
    m_detail->setObjectName(QStringLiteral("jobDetail"));
    m_detail->setReadOnly(true);
    m_detail->setFont(LuaEditor::monospaceFont(font()));
    m_detail->setPlaceholderText(tr("Select a job to read its hash or payload."));
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);

    connect(m_state, &QComboBox::activated, this, [this] {
        m_page = 0;
        readPage();
    });
    connect(m_prev, &QPushButton::clicked, this, [this] { goToPage(m_page - 1); });
    connect(m_next, &QPushButton::clicked, this, [this] { goToPage(m_page + 1); });
    connect(refresh, &QPushButton::clicked, this, &JobBrowser::readPage);
    connect(m_reader, &JobPageReader::pageAvailable, this, &JobBrowser::onPage);
    connect(m_reader, &JobPageReader::failed, this,
            [this](const QString &message) { m_pageLabel->setText(tr("cannot read: %1").arg(message)); });
    connect(m_reader, &JobPageReader::jobAvailable, this,
            [this](const QByteArray &queue, const QByteArray &id, const QJsonObject &fields) {
                const QModelIndexList rows = m_view->selectionModel()->selectedRows();
                if (queue != m_queue.id() || rows.isEmpty() || rows.first().data(RowTableRoles::KeyRole) != id)
                    return;
                const JobEntry *job = m_model->find(id);
                QString text = QString::fromUtf8(QJsonDocument(fields).toJson(QJsonDocument::Indented));
                if (job && !job->error.isEmpty() && job->error != job->reason)
                    text += QLatin1Char('\n') + job->error;
                m_detail->setPlainText(text);
            });
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &JobBrowser::showSelected);
    connect(m_view, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex &index) {
        const QByteArray key = jobpages::jobHashKey(m_queue, index.data(RowTableRoles::KeyRole).toByteArray());
        if (!key.isEmpty())
            Q_EMIT openKeyRequested(key, KeyType::Hash);
    });
    setQueue(nullptr);
}

void JobBrowser::setQueue(const JobQueueInfo *queue)
{
    const QByteArray before = m_queue.id();
    const QString chosen = m_state->currentData().toString();
    m_queue = queue ? queue->spec : JobQueueSpec();
    m_counts = queue ? queue->states : QMap<QString, qint64>();
    const QStringList roles = queue ? jobpages::browsableRoles(m_queue) : QStringList();
    // Each poll brings the same queue again: its counts change, not its states. Relabel in place
    // (the choice, and an open drop-down, stay as they are).
    QStringList shown;
    for (int i = 0; i < m_state->count(); ++i)
        shown.append(m_state->itemData(i).toString());
    if (queue && m_queue.id() == before && shown == roles) {
        for (int i = 0; i < roles.size(); ++i)
            m_state->setItemText(i, stateTitle(roles.at(i), m_counts.value(roles.at(i), -1)));
        return;
    }
    m_state->clear();
    for (const QString &role : roles)
        m_state->addItem(stateTitle(role, m_counts.value(role, -1)), role);
    const bool same = queue && m_queue.id() == before;
    int at = same ? m_state->findData(chosen) : -1;
    if (at < 0) {
        // A new queue opens on its failures where it has any: what someone looking is after.
        at = 0;
        for (const char *role : {"failed", "dead", "retry"}) {
            if (const int i = m_state->findData(QLatin1String(role));
                i >= 0 && m_counts.value(QLatin1String(role)) > 0) {
                at = i;
                break;
            }
        }
    }
    m_state->setCurrentIndex(roles.isEmpty() ? -1 : at);
    m_state->setEnabled(!roles.isEmpty());
    if (!same) {
        m_page = 0;
        m_model->setPage({});
        m_detail->clear();
        m_stale = true;
        m_pageLabel->setText(queue ? QString() : tr("no queue selected"));
        m_prev->setEnabled(false);
        m_next->setEnabled(false);
        if (m_active)
            readPage();
    }
}

void JobBrowser::setActive(bool active)
{
    m_active = active;
    if (active && m_stale)
        readPage();
}

void JobBrowser::goToPage(int page)
{
    m_page = qMax(0, page);
    readPage();
}

void JobBrowser::readPage()
{
    const QString role = m_state->currentData().toString();
    if (role.isEmpty() || !m_active) {
        m_stale = true;
        return;
    }
    m_stale = false;
    m_pageLabel->setText(tr("reading…"));
    m_reader->read(m_queue, role, m_page);
}

void JobBrowser::onPage(const JobPage &page)
{
    m_page = page.page;
    m_model->setNow(QDateTime::currentMSecsSinceEpoch());
    m_model->setPage(page);
    m_view->resizeColumnsToContents();
    m_view->setColumnWidth(0, qMin(m_view->columnWidth(0), 280));
    m_view->setColumnWidth(1, qMin(m_view->columnWidth(1), 240));
    QString label = tr("page %1 of %2").arg(page.page + 1).arg(page.pageCount());
    if (!page.error.isEmpty())
        label += QStringLiteral(" · ") + page.error;
    m_pageLabel->setText(label);
    m_prev->setEnabled(page.page > 0);
    m_next->setEnabled(page.page + 1 < page.pageCount());
    if (const int at = m_state->findData(page.role); at >= 0)
        m_state->setItemText(at, stateTitle(page.role, page.total));
    showSelected();
}

void JobBrowser::showSelected()
{
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    const JobEntry *job
        = rows.isEmpty() ? nullptr : m_model->find(rows.first().data(RowTableRoles::KeyRole).toByteArray());
    if (!job) {
        m_detail->clear();
        return;
    }
    if (!jobpages::jobHashKey(m_queue, job->id).isEmpty() && !job->missing) {
        m_detail->setPlainText(
            tr("Reading %1…").arg(bytesescape::quoteIfNeeded(jobpages::jobHashKey(m_queue, job->id))));
        m_reader->readJob(m_queue, job->id);
        return;
    }
    QString text = QString::fromUtf8(QJsonDocument(job->body).toJson(QJsonDocument::Indented));
    if (!job->error.isEmpty() && job->error != job->reason)
        text += QLatin1Char('\n') + job->error;
    m_detail->setPlainText(text);
}
