// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "jobqueues.h"
#include "rowtablemodel.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

// The jobs of one state of one queue, a page at a time, as the queues panel lists them: the
// job's id and name, when it was made, when it is due or when it ended, how many attempts it
// made and why it failed. A job comes either as a payload (the list or set member itself:
// Sidekiq, Celery, Resque, Laravel, unknown libraries) or as the fields of its hash (BullMQ,
// Bull, RQ), which the reader turns into one JSON object first; one parser reads both.

struct JobEntry
{
    QByteArray id;
    QString name; // the job's class, task or name
    qint64 createdMs = -1; // epoch ms; -1 unknown
    qint64 dueMs = -1; // delayed, scheduled, retrying: when it runs
    qint64 finishedMs = -1; // completed, failed, dead: when it ended
    int attempts = -1; // attempts made so far; -1 unknown
    QString reason; // why it failed, one line
    QString error; // the whole error text (a traceback, a stack) where the library keeps one
    QJsonObject body; // the payload or the hash's fields, for the detail view
    bool missing = false; // the state lists the id, but its job hash is gone
};

struct JobPage
{
    QByteArray queue; // JobQueueSpec::id()
    QString role; // the state paged ("failed")
    int page = 0;
    qint64 total = -1; // jobs in that state
    QList<JobEntry> jobs;
    QString error;

    int pageCount() const;
};

namespace jobpages {
constexpr int kPageSize = 100;

// The states of the queue whose jobs can be listed: the roles of its own state keys, in the
// order of jobqueues::stateRoles().
QStringList browsableRoles(const JobQueueSpec &spec);
// Whether the library keeps each job in a hash of its own (BullMQ, Bull, RQ) rather than in
// the payload its state keys hold.
bool keepsJobHashes(const QString &library);
// The hash a job of this queue lives in (BullMQ, Bull: "<prefix>:<id>"; RQ: "rq:job:<id>"), or
// empty where the library keeps the job in its payload.
QByteArray jobHashKey(const JobQueueSpec &queue, const QByteArray &id);
// Whether the library pushes new jobs on the left and takes the next from the right (BullMQ,
// Bull, Sidekiq, Celery), so the next job to run is the list's last element.
bool takesFromRight(const QString &library);
// Whether a sorted set of this state is listed newest first (ended jobs: completed, failed,
// dead) rather than soonest first (delayed, scheduled, retry, prioritized).
bool newestFirst(const QString &role);

// A job from a payload, or from a hash's fields made into an object: the id, name, times,
// attempts and failure of what BullMQ, Bull, RQ, Sidekiq, Celery, Resque and Laravel write.
JobEntry entryFrom(const QJsonObject &job);
// A payload's bytes: a JSON object, or (not JSON) kept as text under "payload".
JobEntry entryFromPayload(const QByteArray &payload);
// A hash's fields as a JSON object: values that are JSON objects or arrays are nested, text
// stays text, binary values are shown by size ("<pickled: 312 bytes>").
QJsonObject objectFromFields(const QList<QPair<QByteArray, QByteArray>> &fields);
// Epoch milliseconds from what libraries write: "1764400000000" (ms), "1764400000.25" (s),
// "2026-12-02T10:00:00.123456Z" (RQ's ISO form, UTC when it names no zone), "2026/12/02
// 10:00:00 UTC" (Resque). 0 when it is none of them.
qint64 epochMs(const QByteArray &text);
// The one line a failure is known by: a Python traceback's last line, another text's first.
QString reasonLine(const QString &text);
// Raw DEFLATE data with a zlib header (RQ's exc_info, and its results' exc_string after base64),
// inflated; empty when it is not zlib data or inflates beyond 'limit' bytes.
QByteArray inflate(const QByteArray &data, qsizetype limit = 1 << 20);

// What `redislens show queues --jobs STATE` prints of a job.
QJsonObject toJson(const JobEntry &job);
} // namespace jobpages

// One page of jobs as a table: job, name, created, due or ended, attempts, reason. KeyRole is the
// job id; SeverityRole Bad for a failed or dead job, Warning for one retrying or overdue.
class JobPageModel : public RowTableModel<JobEntry>
{
    Q_OBJECT
public:
    explicit JobPageModel(QObject *parent = nullptr);
    void setPage(const JobPage &page);
    const JobPage &page() const { return m_page; }

private:
    JobPage m_page;
};
