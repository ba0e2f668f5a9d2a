// SPDX-License-Identifier: GPL-3.0-or-later
#include "showpatterns.h"

#include "caches.h"
#include "cachesreader.h"
#include "keyspacescan.h"
#include "locks.h"
#include "locksreader.h"
#include "patternindex.h"
#include "progressbar.h"
#include "ratelimits.h"
#include "ratelimitsreader.h"
#include "redisclient.h"
#include "redlock.h"
#include "redlockreader.h"
#include "sessions.h"
#include "sessionsreader.h"
#include "showrequest.h"

#include <QDateTime>
#include <QJsonArray>

PatternsShow::PatternsShow(const Context &context, QList<PatternKind> kinds, QObject *parent)
    : TablesShow(context, parent),
      m_scan(new KeyspaceScan(m_client, m_request, m_bar, {}, this)),
      m_kinds(std::move(kinds))
{
    connect(m_scan, &KeyspaceScan::failed, this, &PanelShow::failed);
    connect(m_scan, &KeyspaceScan::done, this, [this] {
        QList<PatternMatch> matches;
        for (PatternKind k : std::as_const(m_kinds))
            matches += m_scan->index().matchesOf(k);
        m_coverage.insert(QStringLiteral("keys_scanned"), qint64(m_scan->distinctKeys()));
        m_coverage.insert(QStringLiteral("matches"), matches.size());
        m_coverage.insert(QStringLiteral("match"),
                          m_request.match.isEmpty() ? QJsonValue() : QString::fromUtf8(m_request.match));
        if (m_bar)
            m_bar->status(QStringLiteral("reading %1 keys…").arg(matches.size()));
        read(matches);
    });
}

void PatternsShow::start()
{
    m_scan->start();
}

void PatternsShow::watch(PollingReader *reader)
{
    connect(reader, &PollingReader::failed, this, &PanelShow::failed);
    connect(reader, &PollingReader::refreshed, this, [this] { tablesReady(); });
}

ShowLocks::ShowLocks(const Context &context, QObject *parent)
    : PatternsShow(context, {PatternKind::Lock}, parent), m_reader(new LocksReader(m_client, this))
{
    auto *model = new LocksModel(this);
    addTable(QStringLiteral("locks"), model);
    connect(m_reader, &LocksReader::locksAvailable, model, [model](const QList<LockInfo> &locks) {
        model->setRows(locks);
        model->setNow(QDateTime::currentMSecsSinceEpoch());
    });
    connect(m_reader, &PollingReader::failed, this, &PanelShow::failed);
    connect(m_reader, &PollingReader::refreshed, this, &ShowLocks::oneRead);
    if (m_client->profile().redlockPeers.isEmpty())
        return;
    // A Redlock set: the second table, read from every node alongside the first.
    m_redlock = new RedlockReader(m_client, m_client->profile(), this);
    auto *set = new RedlockModel(this);
    set->setNodes(m_redlock->nodes());
    addTable(QStringLiteral("redlock"), set);
    connect(m_redlock, &RedlockReader::redlockAvailable, set, [set](const QList<RedlockLock> &locks) {
        set->setRows(locks);
        set->setNow(QDateTime::currentMSecsSinceEpoch());
    });
    connect(m_redlock, &PollingReader::failed, this, &PanelShow::failed);
    connect(m_redlock, &PollingReader::refreshed, this, [this] {
        QJsonObject unread;
        for (int i = 0; i < m_redlock->nodeErrors().size(); ++i) {
            if (!m_redlock->nodeErrors().at(i).isEmpty())
                unread.insert(m_redlock->nodes().value(i), m_redlock->nodeErrors().at(i));
        }
        m_coverage.insert(QStringLiteral("redlock_nodes"), QJsonArray::fromStringList(m_redlock->nodes()));
        m_coverage.insert(QStringLiteral("redlock_quorum"), m_redlock->quorum());
        m_coverage.insert(QStringLiteral("redlock_unread"), unread);
        m_coverage.insert(QStringLiteral("redlock_peer_only_keys"), m_redlock->peerOnlyKeys());
        m_coverage.insert(QStringLiteral("redlock_partial_peers"),
                          QJsonArray::fromStringList(m_redlock->partialPeers()));
        oneRead();
    });
}

void ShowLocks::read(const QList<PatternMatch> &matches)
{
    m_coverage.insert(QStringLiteral("max_read"), LocksReader::kMaxLocks);
    m_waiting = m_redlock ? 2 : 1;
    m_reader->setMatches(matches);
    m_reader->refresh();
    if (m_redlock) {
        m_redlock->setMatches(matches);
        m_redlock->refresh();
    }
}

void ShowLocks::oneRead()
{
    if (--m_waiting == 0)
        tablesReady();
}

ShowRateLimits::ShowRateLimits(const Context &context, QObject *parent)
    : PatternsShow(context, {PatternKind::FixedWindow, PatternKind::SlidingWindow, PatternKind::TokenBucket}, parent),
      m_reader(new RateLimitsReader(m_client, this))
{
    auto *limiters = new LimitersModel(this);
    auto *callers = new CallersModel(this);
    addTable(QStringLiteral("limiters"), limiters);
    addTable(QStringLiteral("callers"), callers);
    connect(m_reader, &RateLimitsReader::rateLimitsAvailable, this, [=](const RateLimitAnalysis &analysis) {
        limiters->setRows(analysis.limiters);
        callers->setRows(analysis.callers);
        callers->setNow(QDateTime::currentMSecsSinceEpoch());
    });
    watch(m_reader);
}

void ShowRateLimits::read(const QList<PatternMatch> &matches)
{
    m_reader->setMatches(matches);
    m_reader->refresh();
}

ShowSessions::ShowSessions(const Context &context, QObject *parent)
    : PatternsShow(context, {PatternKind::Session, PatternKind::SessionIndex}, parent),
      m_reader(new SessionsReader(m_client, this))
{
    auto *sessions = new SessionsModel(this);
    auto *indexes = new SessionIndexesModel(this);
    addTable(QStringLiteral("sessions"), sessions);
    addTable(QStringLiteral("indexes"), indexes);
    connect(m_reader, &SessionsReader::sessionsAvailable, this, [=](const SessionsResults &results) {
        sessions->setNow(results.summary.nowMs);
        sessions->setRows(results.sessions);
        indexes->setRows(results.indexes);
    });
    watch(m_reader);
}

void ShowSessions::read(const QList<PatternMatch> &matches)
{
    m_reader->setMatches(matches);
    m_reader->refresh();
}

ShowCaches::ShowCaches(const Context &context, QObject *parent)
    : PatternsShow(context,
                   {PatternKind::CacheEntry, PatternKind::NegativeCache, PatternKind::CacheTagSet,
                    PatternKind::DedupSet, PatternKind::DedupKey, PatternKind::Counter, PatternKind::HyperLogLog},
                   parent),
      m_reader(new CachesReader(m_client, this))
{
    auto *namespaces = new CacheNamespacesModel(this);
    auto *tags = new TagsModel(this);
    auto *dedupSets = new DedupSetsModel(this);
    auto *dedupFamilies = new DedupFamiliesModel(this);
    auto *counters = new CountersModel(this);
    addTable(QStringLiteral("namespaces"), namespaces);
    addTable(QStringLiteral("tags"), tags);
    addTable(QStringLiteral("dedup_sets"), dedupSets);
    addTable(QStringLiteral("dedup_families"), dedupFamilies);
    addTable(QStringLiteral("counters"), counters);
    connect(m_reader, &CachesReader::cachesAvailable, this, [=](const CachesResults &results) {
        namespaces->setRows(results.namespaces);
        tags->setRows(results.tags);
        dedupSets->setRows(results.dedupSets);
        dedupFamilies->setRows(results.dedupFamilies);
        counters->setRows(results.counters);
    });
    watch(m_reader);
}

void ShowCaches::read(const QList<PatternMatch> &matches)
{
    m_reader->setMatches(matches);
    m_reader->refresh();
}
