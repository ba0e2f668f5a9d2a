// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "healthseries.h"
#include "serverinfo.h"
#include "tablesshow.h"
#include "ttlstats.h"

class KeyspaceReader;
class KeyspaceScan;
class MemoryReader;
class NamespaceMemoryModel;
class OverviewReader;
class TopKeysModel;

// `show overview`: two INFO samples a second apart into the overview's HealthSeries, so the
// rates (commands, network, hits, expiries, evictions per second) are the chart's latest
// points. Records: one per series (figures), or the header's facts (--table facts).
class ShowOverview final : public PanelShow
{
    Q_OBJECT
public:
    static constexpr int kSampleMs = 1000;
    explicit ShowOverview(const Context &context, QObject *parent = nullptr);

    void start() override;
    QList<Column> columns() const override;
    qsizetype recordCount() const override;
    void writeRecord(RecordWriter &writer, qsizetype row) const override;
    QJsonObject coverage() const override;

private:
    bool facts() const;

    OverviewReader *m_reader;
    HealthSeries *m_health;
    QList<HealthSeries::Fact> m_facts;
    int m_samples = 0;
};

// `show ttl`: the TTL panel's figures. INFO keyspace (the server's own counts) and the key
// browser's scan, summed by namespace (TtlStats), as the panel shows them.
class ShowTtl final : public TablesShow
{
    Q_OBJECT
public:
    explicit ShowTtl(const Context &context, QObject *parent = nullptr);
    void start() override;

private:
    KeyspaceReader *m_keyspace;
    KeyspaceScan *m_scan;
    TtlStats m_stats;
    TtlNamespaceModel *m_model;
    QList<KeyspaceDb> m_databases;
};

// `show memory`: the memory panel's analysis (MemoryReader: MEMORY USAGE and the length of every
// key) as its tables: bytes per namespace, and the biggest keys (--table top).
class ShowMemory final : public TablesShow
{
    Q_OBJECT
public:
    explicit ShowMemory(const Context &context, QObject *parent = nullptr);
    void start() override;

private:
    MemoryReader *m_reader;
    NamespaceMemoryModel *m_namespaces;
    TopKeysModel *m_top;
};
