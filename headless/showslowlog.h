// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "slowlog.h"
#include "tablesshow.h"

class LatencyEventsModel;
class LatencyReader;
struct LatencyLatest;
class SlowlogModel;
class SlowlogReader;

// `show slowlog`: one poll of the slow log panel's reader into its model, and one read of its
// latency monitor. Tables: entries (newest first, the default), commands (the per-command
// table under the plot), latency (the latency monitor's events). With --node all on a cluster:
// one poll of every primary's slow log into the one model, entries with a node column, and no
// latency monitor (it is one server's: --node HOST:PORT reads it).
class ShowSlowlog final : public TablesShow
{
    Q_OBJECT
public:
    explicit ShowSlowlog(const Context &context, QObject *parent = nullptr);

    void start() override;
    QList<Column> columns() const override;
    qsizetype recordCount() const override;
    void writeRecord(RecordWriter &writer, qsizetype row) const override;

private:
    bool entriesTable() const;
    void onLatency(const LatencyLatest &latest);
    void maybeReady();
    void addReader(RedisClient *client, int source);
    bool merged() const; // --node all: several primaries, entries with their node

    QList<SlowlogReader *> m_readers;
    int m_readersPolled = 0;
    SlowlogModel *m_model;
    LatencyReader *m_latency;
    LatencyEventsModel *m_events;
    bool m_polled = false;
    bool m_latencyRead = false;
};
