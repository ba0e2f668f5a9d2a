// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "caches.h"
#include "cachesreader.h"
#include "panel.h"
#include "patterns.h"

#include <QHash>

class QLabel;
class QTabWidget;
class QTableView;
class RedisClient;

// Caches: per namespace key count, TTL share and spread, synchronized expiry ("no jitter"),
// negative markers, the server's hit ratio; tag sets with dangling members and TTLs shorter
// than their members'; a "Dedup & counters" tab with dedup sets, per-event keys, HyperLogLogs
// and plain counters.
class CachesPanel : public Panel
{
    Q_OBJECT
public:
    explicit CachesPanel(RedisClient *client, QWidget *parent = nullptr);
    ~CachesPanel() override;

    bool hasContent() const override { return m_hasContent; }
    // CacheEntry, NegativeCache, CacheTagSet, DedupSet, DedupKey, Counter and HyperLogLog
    // matches (others are ignored); call again after every rescan.
    void setMatches(const QList<PatternMatch> &matches);

    CachesReader *reader() const { return m_reader; }
    CacheNamespacesModel *namespacesModel() const { return m_namespaces; }
    TagsModel *tagsModel() const { return m_tags; }
    DedupSetsModel *dedupSetsModel() const { return m_dedupSets; }
    DedupFamiliesModel *dedupFamiliesModel() const { return m_dedupFamilies; }
    CountersModel *countersModel() const { return m_counters; }
    QTabWidget *tabs() const { return m_tabs; }
    QTableView *namespacesView() const { return m_namespacesView; }
    QTableView *tagsView() const { return m_tagsView; }
    QTableView *dedupSetsView() const { return m_dedupSetsView; }
    QTableView *dedupFamiliesView() const { return m_dedupFamiliesView; }
    QTableView *countersView() const { return m_countersView; }
    QLabel *hitRatioLabel() const { return m_hitRatio; }
    QLabel *statusLabel() const { return m_status; }

protected:
    void activeChanged(bool active) override;

private:
    void onCaches(const CachesResults &results);
    void showHitRatio(const CachesResults &results);

    CachesReader *m_reader;
    CacheNamespacesModel *m_namespaces;
    TagsModel *m_tags;
    DedupSetsModel *m_dedupSets;
    DedupFamiliesModel *m_dedupFamilies;
    CountersModel *m_counters;
    QLabel *m_status = nullptr;
    QLabel *m_libraries = nullptr; // the libraries the catalogue named among the matches
    QLabel *m_hitRatio = nullptr;
    QTabWidget *m_tabs = nullptr;
    QTableView *m_namespacesView = nullptr;
    QTableView *m_tagsView = nullptr;
    QTableView *m_dedupSetsView = nullptr;
    QTableView *m_dedupFamiliesView = nullptr;
    QTableView *m_countersView = nullptr;
    QHash<QTableView *, QByteArray> m_selected; // per table, kept across model resets
    bool m_hasContent = false;
};
