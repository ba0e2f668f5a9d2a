// SPDX-License-Identifier: GPL-3.0-or-later
#include "cachespanel.h"

#include "format.h"
#include "panelparts.h"
#include "tableview.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace {

QString percent(double share)
{
    return QStringLiteral("%1 %").arg(share * 100.0, 0, 'f', 1);
}

QWidget *titled(const QString &title, QWidget *content, QWidget *parent)
{
    auto *box = new QWidget(parent);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    QLabel *label = panelparts::heading(title, box);
    label->setWordWrap(true);
    layout->addWidget(label);
    content->setParent(box);
    layout->addWidget(content, 1);
    return box;
}

} // namespace

CachesPanel::CachesPanel(RedisClient *client, QWidget *parent)
    : Panel(parent),
      m_reader(new CachesReader(client, this)),
      m_namespaces(new CacheNamespacesModel(this)),
      m_tags(new TagsModel(this)),
      m_dedupSets(new DedupSetsModel(this)),
      m_dedupFamilies(new DedupFamiliesModel(this)),
      m_counters(new CountersModel(this))
{
    setObjectName(QStringLiteral("caches"));
    auto *layout = new QVBoxLayout(this);
    m_status
        = panelparts::statusLabel(QStringLiteral("cachesStatus"), tr("Waiting for the scan to find caches…"), this);
    layout->addWidget(m_status);
    m_libraries = panelparts::librariesLabel(this);
    layout->addWidget(m_libraries);
    m_hitRatio = panelparts::statusLabel(QStringLiteral("cachesHitRatio"), {}, this);
    layout->addWidget(m_hitRatio);
    m_tabs = new QTabWidget(this);
    layout->addWidget(m_tabs, 1);

    const auto table = [this](QAbstractItemModel *model, const QString &name, int sortColumn) {
        auto *proxy = new SeverityProxyModel(this, this);
        proxy->setSourceModel(model);
        QTableView *view = tableview::make(proxy, this, name);
        view->setSortingEnabled(true);
        view->sortByColumn(sortColumn, Qt::DescendingOrder);
        return view;
    };

    m_namespacesView = table(m_namespaces, QStringLiteral("cachesNamespaces"), 1);
    m_namespacesView->setToolTip(tr("Double-click a namespace to show its keys in the key browser."));
    m_tabs->addTab(titled(tr("Cache namespaces (double-click one to filter the key browser). No jitter: many keys "
                             "expire in the same second, so their misses arrive together."),
                          m_namespacesView, m_tabs),
                   tr("Namespaces"));

    m_tagsView = table(m_tags, QStringLiteral("cachesTags"), 1);
    m_tabs->addTab(titled(tr("Tag sets: members whose key is gone (dangling), and tags that expire before their "
                             "members (invalidating the tag would miss them). At most %1 members per tag are read.")
                              .arg(CachesReader::kMaxMembersPerTag),
                          m_tagsView, m_tabs),
                   tr("Tag sets"));

    auto *dedup = new QSplitter(Qt::Vertical, m_tabs);
    m_dedupSetsView = table(m_dedupSets, QStringLiteral("cachesDedupSets"), 1);
    m_dedupFamiliesView = table(m_dedupFamilies, QStringLiteral("cachesDedupKeys"), 1);
    m_countersView = table(m_counters, QStringLiteral("cachesCounters"), 0);
    m_countersView->sortByColumn(0, Qt::AscendingOrder);
    dedup->addWidget(titled(tr("Dedup sets (a set without TTL grows for ever)"), m_dedupSetsView, dedup));
    dedup->addWidget(titled(tr("Per-event dedup keys (SET NX EX), by family"), m_dedupFamiliesView, dedup));
    dedup->addWidget(titled(tr("HyperLogLogs (PFCOUNT estimate) and counters"), m_countersView, dedup));
    dedup->setChildrenCollapsible(false);
    m_tabs->addTab(dedup, tr("Dedup && counters"));

    connect(m_reader, &CachesReader::cachesAvailable, this, &CachesPanel::onCaches);
    connect(m_reader, &CachesReader::failed, this,
            [this](const QString &message) { m_status->setText(tr("Cannot read caches: %1").arg(message)); });
    connect(m_namespacesView, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex &index) {
        const KeyFilter f
            = caches::filterFor(QString::fromUtf8(index.data(CacheNamespacesModel::KeyRole).toByteArray()));
        if (!f.isEmpty())
            Q_EMIT filterKeysRequested(f);
    });
    connect(m_dedupFamiliesView, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex &index) {
        const KeyFilter f = caches::filterFor(QString::fromUtf8(index.data(DedupFamiliesModel::KeyRole).toByteArray()));
        if (!f.isEmpty())
            Q_EMIT filterKeysRequested(f);
    });
    for (QTableView *view : {m_namespacesView, m_tagsView, m_dedupSetsView, m_dedupFamiliesView, m_countersView}) {
        connect(view->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this, view] {
            const QModelIndexList rows = view->selectionModel()->selectedRows();
            m_selected.insert(view,
                              rows.isEmpty() ? QByteArray() : rows.first().data(RowTableRoles::KeyRole).toByteArray());
        });
    }
    for (QTableView *view : {m_tagsView, m_dedupSetsView, m_countersView}) {
        connect(view, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex &index) {
            Q_EMIT openKeyRequested(index.data(RowTableRoles::KeyRole).toByteArray(),
                                    KeyType(index.data(RowTableRoles::TypeRole).toInt()));
        });
    }
}

CachesPanel::~CachesPanel() = default;

void CachesPanel::setMatches(const QList<PatternMatch> &matches)
{
    panelparts::showLibraries(m_libraries, matches);
    m_status->setText(matches.isEmpty()
                          ? tr("The scan found no caches, tags, dedup keys or counters.")
                          : tr("%n key(s) found by the scan; reading them…", nullptr, int(matches.size())));
    m_reader->setMatches(matches);
}

void CachesPanel::activeChanged(bool active)
{
    m_reader->setPolling(active);
}

void CachesPanel::onCaches(const CachesResults &results)
{
    m_namespaces->setRows(results.namespaces);
    m_tags->setRows(results.tags);
    m_dedupSets->setRows(results.dedupSets);
    m_dedupFamilies->setRows(results.dedupFamilies);
    m_counters->setRows(results.counters);
    const int namespaces = m_namespaces->rowCount();
    int noJitter = 0, noTtl = 0;
    for (const CacheNamespaceRow &r : m_namespaces->rows()) {
        noJitter += r.noJitter() ? 1 : 0;
        noTtl += r.noTtl > 0 ? 1 : 0;
    }
    int tagIssues = 0;
    for (const TagRow &r : m_tags->rows())
        tagIssues += r.severity() != Severity::None ? 1 : 0;
    QString text = tr("%n cache namespace(s)", nullptr, namespaces);
    if (noJitter)
        text += tr(", %n without jitter", nullptr, noJitter);
    if (noTtl)
        text += tr(", %n with keys without TTL", nullptr, noTtl);
    text += tr(" · %n tag set(s)", nullptr, m_tags->rowCount());
    if (tagIssues)
        text += tr(" (%n flagged)", nullptr, tagIssues);
    text += tr(" · %n dedup set(s), %1 per-event families, %2 counters", nullptr, m_dedupSets->rowCount())
                .arg(m_dedupFamilies->rowCount())
                .arg(m_counters->rowCount());
    m_status->setText(text);

    showHitRatio(results);

    for (QTableView *view : {m_namespacesView, m_tagsView, m_dedupSetsView, m_dedupFamiliesView, m_countersView}) {
        // A reset (keys came or went) clears the selection: put it back on the same key.
        const QByteArray selected = m_selected.value(view);
        if (!selected.isEmpty() && !view->selectionModel()->hasSelection()) {
            for (int r = 0; r < view->model()->rowCount(); ++r) {
                if (view->model()->index(r, 0).data(RowTableRoles::KeyRole).toByteArray() == selected) {
                    view->selectRow(r);
                    break;
                }
            }
        }
        // One row per namespace or key of a kind: small tables, sizing to contents is cheap.
        const int columns = view->model()->columnCount();
        for (int c = 0; c + 1 < columns; ++c) {
            view->resizeColumnToContents(c);
            view->setColumnWidth(c, qMin(view->columnWidth(c), 260));
        }
    }
    if (!m_hasContent) {
        m_hasContent = true;
        Q_EMIT contentReady();
    }
}

void CachesPanel::showHitRatio(const CachesResults &results)
{
    const HitRatio h = results.hitRatio;
    if (!results.infoError.isEmpty()) {
        m_hitRatio->setText(tr("Hit ratio unknown: %1").arg(results.infoError));
    } else if (h.hits < 0) {
        m_hitRatio->setText(tr("Hit ratio: not read yet."));
    } else {
        QString ratio = h.sinceStart < 0
            ? tr("Hit ratio: no lookups since the server started")
            : tr("Hit ratio %1 since the server started (%2 hits, %3 misses)")
                  .arg(percent(h.sinceStart), format::count(quint64(h.hits)), format::count(quint64(h.misses)));
        if (h.recent >= 0)
            ratio += tr(" · %1 over the last %2 (%n lookup(s))", nullptr, int(h.recentLookups))
                         .arg(percent(h.recent), format::duration(h.recentSpanMs));
        else if (h.recentSpanMs > 0)
            ratio += tr(" · no lookups in the last %1").arg(format::duration(h.recentSpanMs));
        ratio += tr(" — server-wide (INFO stats), not per namespace.");
        m_hitRatio->setText(ratio);
    }
}
