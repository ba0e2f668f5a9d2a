// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "jobpage.h"
#include "tablesshow.h"

#include <QHash>

class GeoPointsModel;
class GeoSampleReader;
class KeyspaceScan;
class LeaderboardModel;
class LeaderboardReader;
class PendingModel;
class JobQueuesModel;
class JobPageReader;
class JobQueuesReader;
class QueuesReader;
class StreamsReader;

// `show streams`: the scan's streams (at most StreamsReader::kMaxStreams), as MainWindow hands
// them over after its scan, read once by the panel's reader into the panel's model. With
// --stream KEY it opens that stream as the panel does when one is picked: its groups, and with
// --group NAME the group's consumers and first page of pending entries (--limit sets the page).
class ShowStreams final : public TablesShow
{
    Q_OBJECT
public:
    explicit ShowStreams(const Context &context, QObject *parent = nullptr);
    void start() override;
    QJsonObject subject() const override { return m_subject; }

private:
    void listStreams();
    void openStream();
    void maybeGroupRead();

    KeyspaceScan *m_scan = nullptr;
    StreamsReader *m_reader;
    PendingModel *m_pending = nullptr;
    QJsonObject m_subject;
    bool m_listed = false;
    bool m_consumersRead = false;
    bool m_pageRead = false;
    bool m_deletedOwed = false;
};

// `show queues`: the job queues of libraries (the first table, and a "queues" array beside
// the records in json), then list queues and delayed-job sets.
class ShowQueues final : public TablesShow
{
    Q_OBJECT
public:
    explicit ShowQueues(const Context &context, QObject *parent = nullptr);
    void start() override;
    QJsonObject details() const override;

private:
    void maybeReady();

    void readNextJobPage();

    KeyspaceScan *m_scan;
    QueuesReader *m_reader;
    JobQueuesReader *m_jobReader;
    JobQueuesModel *m_jobs;
    JobPageReader *m_pageReader;
    QList<JobQueueSpec> m_pagesToRead; // --jobs: the queues whose page is still to read
    QHash<QByteArray, JobPage> m_pages; // queue id → its page of --jobs
    bool m_listsRead = false;
    bool m_jobsRead = false;
};

// `show leaderboard KEY`: the board's header and its first page, top rank first.
class ShowLeaderboard final : public TablesShow
{
    Q_OBJECT
public:
    explicit ShowLeaderboard(const Context &context, QObject *parent = nullptr);
    void start() override;
    QJsonObject subject() const override { return m_subject; }

private:
    void maybeDone();

    LeaderboardReader *m_reader;
    LeaderboardModel *m_page;
    QJsonObject m_subject;
    bool m_header = false;
    bool m_paged = false;
};

// `show geo KEY`: the points the geo panel's map shows (all members of a small set, a sample of
// a big one).
class ShowGeo final : public TablesShow
{
    Q_OBJECT
public:
    explicit ShowGeo(const Context &context, QObject *parent = nullptr);
    void start() override;
    QJsonObject subject() const override { return m_subject; }

private:
    GeoSampleReader *m_reader;
    GeoPointsModel *m_points;
    QJsonObject m_subject;
};
