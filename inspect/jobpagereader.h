// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "jobpage.h"

#include <QObject>
#include <QPointer>
#include <memory>

class RedisClient;

// Reads the jobs of one state of one job queue, a page (jobpages::kPageSize) at a time, the
// next job to run first (waiting lists, delayed and retry sets by due time) or the newest first
// (completed, failed, dead): the state keys' lengths, then the page's members, then, for the
// libraries that keep a job in a hash of its own (BullMQ, Bull, RQ), a few fields of each
// job's hash (and RQ's latest result, where a failure's traceback lives). A state with several
// keys (Celery's priority sub-queues) is paged across them in order. One job's whole hash is
// read on request, for the detail view. Every read is bounded and read-only.
class JobPageReader : public QObject
{
    Q_OBJECT
public:
    explicit JobPageReader(RedisClient *client, QObject *parent = nullptr);
    ~JobPageReader() override;

    // Reads page 'page' (from 0) of 'role'. A read in flight for another page is dropped.
    void read(const JobQueueSpec &queue, const QString &role, int page);
    // Reads the whole hash of a job whose library keeps one (at most kMaxFields fields).
    void readJob(const JobQueueSpec &queue, const QByteArray &id);
    static constexpr int kMaxFields = 200;
    void setNowForTesting(qint64 ms) { m_nowOverride = ms; }

Q_SIGNALS:
    void pageAvailable(const JobPage &page);
    void jobAvailable(const QByteArray &queue, const QByteArray &id, const QJsonObject &fields);
    void failed(const QString &message);

private:
    struct Read;
    void readMembers(const std::shared_ptr<Read> &read);
    void readHashes(const std::shared_ptr<Read> &read);
    qint64 now() const;

    RedisClient *m_client;
    QPointer<QObject> m_context; // replaced on each read: older replies are dropped
    QPointer<QObject> m_jobContext;
    qint64 m_nowOverride = 0;
};
