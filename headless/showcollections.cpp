// SPDX-License-Identifier: GPL-3.0-or-later
#include "showcollections.h"

#include "bytesescape.h"
#include "geo.h"
#include "georeader.h"
#include "jobpagereader.h"
#include "jobqueues.h"
#include "jobqueuesreader.h"
#include "keyspacescan.h"
#include "leaderboard.h"
#include "leaderboardreader.h"
#include "patternindex.h"
#include "patternrules.h"
#include "queues.h"
#include "queuesreader.h"
#include "showrequest.h"
#include "streams.h"
#include "streamsreader.h"

#include <QJsonArray>
#include <QJsonObject>

namespace {

// What the window hands the queues panel: the scan's lists, and its sorted sets up to the
// sorted-set detector's bound.
constexpr int kMaxZSets = 300;

} // namespace

ShowStreams::ShowStreams(const Context &context, QObject *parent)
    : TablesShow(context, parent), m_reader(new StreamsReader(m_client, this))
{
    connect(m_reader, &StreamsReader::failed, this, &PanelShow::failed);
    if (m_request.stream.isEmpty())
        listStreams();
    else
        openStream();
}

void ShowStreams::listStreams()
{
    m_scan = new KeyspaceScan(m_client, m_request, m_bar, {false, true, -1}, this);
    auto *streams = new StreamsModel(this);
    addTable(QStringLiteral("streams"), streams);
    connect(m_scan, &KeyspaceScan::failed, this, &PanelShow::failed);
    connect(m_scan, &KeyspaceScan::done, this, [this] {
        const QList<QByteArray> keys = m_scan->keysOfType(KeyType::Stream, StreamsReader::kMaxStreams);
        m_coverage.insert(QStringLiteral("streams_read"), keys.size());
        m_coverage.insert(QStringLiteral("max_streams"), StreamsReader::kMaxStreams);
        m_listed = true;
        m_reader->setStreams(keys);
    });
    connect(m_reader, &StreamsReader::streamsAvailable, this, [this, streams](const QList<StreamRow> &rows) {
        if (!m_listed)
            return;
        m_listed = false;
        streams->setRows(rows);
        tablesReady();
    });
}

void ShowStreams::openStream()
{
    auto *groups = new StreamGroupsModel(this);
    auto *consumers = new StreamConsumersModel(this);
    m_pending = new PendingModel(this);
    addTable(QStringLiteral("groups"), groups);
    addTable(QStringLiteral("consumers"), consumers);
    addTable(QStringLiteral("pending"), m_pending);
    m_coverage.insert(QStringLiteral("poison_above"), m_pending->poisonThreshold());
    const QString name = bytesescape::quoteIfNeeded(m_request.stream);
    connect(m_reader, &StreamsReader::streamsAvailable, this, [this, name](const QList<StreamRow> &rows) {
        if (!m_listed)
            return;
        m_listed = false;
        const StreamRow &row = rows.constFirst();
        if (!row.error.isEmpty()) {
            Q_EMIT failed(QStringLiteral("cannot read the stream %1: %2").arg(name, row.error));
            return;
        }
        m_subject = {{QStringLiteral("key"), m_request.streamText},
                     {QStringLiteral("length"), row.info.length},
                     {QStringLiteral("groups"), row.info.groups},
                     {QStringLiteral("last_id"), QString::fromLatin1(row.info.lastGeneratedId)}};
        m_reader->openStream(m_request.stream);
    });
    connect(m_reader, &StreamsReader::groupsAvailable, this,
            [this, groups, name](const QByteArray &, const QList<StreamGroupInfo> &rows) {
                groups->setRows(rows);
                if (m_request.group.isEmpty()) {
                    tablesReady();
                    return;
                }
                QStringList known;
                for (const StreamGroupInfo &g : rows) {
                    if (g.name == m_request.group) {
                        m_subject.insert(QStringLiteral("group"), m_request.groupText);
                        m_reader->openGroup(m_request.group);
                        return;
                    }
                    known.append(bytesescape::quoteIfNeeded(g.name));
                }
                Q_EMIT failed(QStringLiteral("the stream %1 has no group %2 (groups: %3)")
                                  .arg(name, bytesescape::quoteIfNeeded(m_request.group),
                                       known.isEmpty() ? QStringLiteral("none") : known.join(QLatin1String(", "))));
            });
    connect(m_reader, &StreamsReader::consumersAvailable, this,
            [this, consumers](const QList<StreamConsumerInfo> &rows) {
                consumers->setRows(rows);
                m_consumersRead = true;
                maybeGroupRead();
            });
    connect(m_reader, &StreamsReader::summaryAvailable, this, [this](const PendingSummary &s) {
        m_subject.insert(QStringLiteral("pending"), s.count);
        m_subject.insert(QStringLiteral("oldest_pending_id"), QString::fromLatin1(s.minId));
    });
    connect(m_reader, &StreamsReader::pendingPageAvailable, this, [this](const QList<PendingEntry> &rows) {
        m_pending->setRows(rows);
        m_pageRead = true;
        m_deletedOwed = !rows.isEmpty(); // then which of them the stream no longer holds
        m_coverage.insert(QStringLiteral("pending_page_size"), m_reader->pageSize());
        m_coverage.insert(QStringLiteral("more_pending"), m_reader->hasNextPage());
        maybeGroupRead();
    });
    connect(m_reader, &StreamsReader::deletedPendingAvailable, this, [this](const QSet<QByteArray> &ids) {
        m_pending->setDeleted(ids);
        m_deletedOwed = false;
        maybeGroupRead();
    });
}

void ShowStreams::maybeGroupRead()
{
    if (m_consumersRead && m_pageRead && !m_deletedOwed) {
        m_consumersRead = false;
        tablesReady();
    }
}

void ShowStreams::start()
{
    if (m_scan) {
        m_scan->start();
        return;
    }
    if (m_request.limit > 0)
        m_reader->setPageSize(int(qMin<qint64>(m_request.limit, 10000)));
    m_listed = true;
    m_reader->setStreams({m_request.stream});
}

ShowQueues::ShowQueues(const Context &context, QObject *parent)
    : TablesShow(context, parent),
      m_scan(new KeyspaceScan(m_client, m_request, m_bar, {true, true, -1}, this)),
      m_reader(new QueuesReader(m_client, this)),
      m_jobReader(new JobQueuesReader(m_client, this)),
      m_jobs(new JobQueuesModel(this)),
      m_pageReader(new JobPageReader(m_client, this))
{
    auto *queues = new QueuesModel(this);
    auto *delayed = new DelayedModel(this);
    addTable(QStringLiteral("jobs"), m_jobs);
    addTable(QStringLiteral("queues"), queues);
    addTable(QStringLiteral("delayed"), delayed);
    if (!m_request.rulesFile.isEmpty()) {
        PatternRulesFile rules(m_request.rulesFile);
        m_reader->rules().setUserRules(rules.rules());
    }
    connect(m_scan, &KeyspaceScan::failed, this, &PanelShow::failed);
    connect(m_scan, &KeyspaceScan::done, this, [this] {
        const QList<QByteArray> lists = m_scan->keysOfType(KeyType::List, QueuesReader::kMaxLists);
        const QList<QByteArray> zsets = m_scan->keysOfType(KeyType::ZSet, kMaxZSets);
        m_coverage.insert(QStringLiteral("lists_read"), lists.size());
        m_coverage.insert(QStringLiteral("sorted_sets_read"), zsets.size());
        const QList<JobQueueSpec> specs
            = jobqueues::group(m_scan->index().matchesOf(PatternKind::JobQueue, jobqueues::isQueueKey));
        m_coverage.insert(QStringLiteral("job_queues"), specs.size());
        m_coverage.insert(QStringLiteral("keys_scanned"), qint64(m_scan->distinctKeys()));
        m_jobReader->setQueues(specs);
        m_jobReader->refresh();
        m_reader->setKeys(lists, zsets);
    });
    connect(m_reader, &QueuesReader::failed, this, &PanelShow::failed);
    connect(m_jobReader, &JobQueuesReader::failed, this, &PanelShow::failed);
    connect(m_reader, &QueuesReader::queuesAvailable, this,
            [this, queues, delayed](const QList<QueueInfo> &q, const QList<DelayedInfo> &d) {
                queues->setRows(q);
                delayed->setRows(d);
                m_listsRead = true;
                maybeReady();
            });
    connect(m_jobReader, &JobQueuesReader::queuesAvailable, this, [this](const QList<JobQueueInfo> &q) {
        m_jobs->setRows(q);
        if (!m_request.jobsState.isEmpty()) {
            for (const JobQueueInfo &info : q) {
                if (jobpages::browsableRoles(info.spec).contains(m_request.jobsState))
                    m_pagesToRead.append(info.spec);
            }
        }
        readNextJobPage();
    });
    connect(m_pageReader, &JobPageReader::failed, this, &PanelShow::failed);
    connect(m_pageReader, &JobPageReader::pageAvailable, this, [this](const JobPage &page) {
        m_pages.insert(page.queue, page);
        m_pagesToRead.removeFirst();
        readNextJobPage();
    });
}

// --jobs: one queue's page after the other, then the document is ready.
void ShowQueues::readNextJobPage()
{
    if (m_pagesToRead.isEmpty()) {
        m_jobsRead = true;
        maybeReady();
        return;
    }
    m_pageReader->read(m_pagesToRead.first(), m_request.jobsState, m_request.jobsPage);
}

void ShowQueues::maybeReady()
{
    if (m_listsRead && m_jobsRead)
        tablesReady();
}

QJsonObject ShowQueues::details() const
{
    QJsonArray queues;
    for (const JobQueueInfo &q : m_jobs->rows()) {
        QJsonObject o = jobqueues::toJson(q);
        if (const auto page = m_pages.constFind(q.spec.id()); page != m_pages.cend()) {
            QJsonArray items;
            for (const JobEntry &job : page->jobs)
                items.append(jobpages::toJson(job));
            o.insert(QStringLiteral("jobs"),
                     QJsonObject{{QStringLiteral("state"), page->role},
                                 {QStringLiteral("total"), page->total},
                                 {QStringLiteral("page"), page->page + 1},
                                 {QStringLiteral("pages"), page->pageCount()},
                                 {QStringLiteral("items"), items}});
        }
        queues.append(o);
    }
    return {{QStringLiteral("queues"), queues}};
}

void ShowQueues::start()
{
    m_scan->start();
}

ShowLeaderboard::ShowLeaderboard(const Context &context, QObject *parent)
    : TablesShow(context, parent), m_reader(new LeaderboardReader(m_client, this)), m_page(new LeaderboardModel(this))
{
    addTable(QStringLiteral("page"), m_page);
    connect(m_reader, &LeaderboardReader::headerAvailable, this, [this](const BoardHeader &h) {
        if (!h.error.isEmpty()) {
            Q_EMIT failed(QStringLiteral("cannot read the leaderboard: %1").arg(h.error));
            return;
        }
        m_subject = {{QStringLiteral("key"), m_request.keyText},
                     {QStringLiteral("cardinality"), h.cardinality},
                     {QStringLiteral("memory_bytes"), h.memory},
                     {QStringLiteral("ttl_ms"), h.pttlMs}};
        m_header = true;
        maybeDone();
    });
    connect(m_reader, &LeaderboardReader::pageAvailable, this, [this](const LeaderboardPage &page) {
        m_page->setPage(page);
        m_paged = true;
        maybeDone();
    });
    connect(m_reader, &LeaderboardReader::pageFailed, this, &PanelShow::failed);
}

void ShowLeaderboard::start()
{
    if (m_request.limit > 0)
        m_reader->setPageSize(int(qMin<qint64>(m_request.limit, 1000)));
    m_reader->setKey(m_request.key);
}

void ShowLeaderboard::maybeDone()
{
    if (m_header && m_paged) {
        m_header = false;
        tablesReady();
    }
}

ShowGeo::ShowGeo(const Context &context, QObject *parent)
    : TablesShow(context, parent), m_reader(new GeoSampleReader(m_client, this)), m_points(new GeoPointsModel(this))
{
    addTable(QStringLiteral("points"), m_points);
    connect(m_reader, &GeoSampleReader::failed, this, &PanelShow::failed);
    connect(m_reader, &GeoSampleReader::sampleAvailable, this, [this](const GeoSample &sample) {
        m_points->setResults(sample.points, GeoUnit::M);
        m_subject = {{QStringLiteral("key"), m_request.keyText},
                     {QStringLiteral("cardinality"), sample.zcard},
                     {QStringLiteral("sampled"), sample.sampled},
                     {QStringLiteral("description"), sample.description()}};
        tablesReady();
    });
}

void ShowGeo::start()
{
    m_reader->load(m_request.key);
}
