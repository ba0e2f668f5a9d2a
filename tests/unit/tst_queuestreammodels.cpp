// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobqueues.h"
#include "queues.h"
#include "streams.h"

#include <QAbstractItemModelTester>
#include <QItemSelectionModel>
#include <QTest>

#include <cmath>
#include <functional>
#include <memory>

// The queue and stream models fed with rows, as the readers emit them, with no server and no
// reader (this test links the models library only): columns, display text, roles and
// severities, then a second setRows() with rows added, removed, changed and moved, which keeps
// the selection on the same ids and passes QAbstractItemModelTester.
namespace {

constexpr qint64 kNow = 1'750'000'000'000;

QueueInfo queue(const QByteArray &key, qint64 length, bool stale = false)
{
    QueueInfo q;
    q.key = key;
    q.reason = QStringLiteral("list named with segment 'q' (built-in rule)");
    q.length = length;
    q.head = "newest";
    q.tail = "oldest";
    if (stale) {
        ProcessingListInfo p;
        p.key = key + ":proc:worker-1";
        p.length = 3;
        p.oldestAgeMs = 40 * 60000;
        p.stale = true;
        q.processing.append(p);
    }
    return q;
}

DelayedInfo delayed(const QByteArray &key, qint64 total, qint64 overdue)
{
    DelayedInfo d;
    d.key = key;
    d.reason = QStringLiteral("scores are epoch milliseconds");
    d.total = total;
    d.overdue = overdue;
    d.readAtMs = kNow;
    return d;
}

StreamRow stream(const QByteArray &key, qint64 length)
{
    StreamRow r;
    r.key = key;
    r.loaded = true;
    r.info.length = length;
    r.info.groups = 1;
    r.info.firstEntry.id = "1-0";
    r.info.lastEntry.id = "9-0";
    return r;
}

ActiveJob activeJob(const QByteArray &id, qint64 runningMs, qint64 lockTtlMs)
{
    ActiveJob a;
    a.id = id;
    a.runningMs = runningMs;
    a.lockTtlMs = lockTtlMs;
    return a;
}

ProcessingListInfo processingList(const QByteArray &key, qint64 length, qint64 oldestAgeMs, bool stale = false)
{
    ProcessingListInfo p;
    p.key = key;
    p.length = length;
    p.tail = R"({"id":7})";
    p.oldestAgeMs = oldestAgeMs;
    p.ageSource = oldestAgeMs < 0 ? QString() : QStringLiteral("enqueued_at (ms)");
    p.stale = stale;
    return p;
}

PendingEntry pending(const QByteArray &id, qint64 deliveries)
{
    return {id, "alice", 1500, deliveries};
}

QString text(const QAbstractItemModel &m, int row, int column, int role = Qt::DisplayRole)
{
    return m.index(row, column).data(role).toString();
}

int severity(const QAbstractItemModel &m, int row)
{
    return m.index(row, 0).data(RowTableRoles::SeverityRole).toInt();
}

QByteArray key(const QAbstractItemModel &m, int row)
{
    return m.index(row, 0).data(RowTableRoles::KeyRole).toByteArray();
}

QByteArray selectedKey(const QItemSelectionModel &selection)
{
    const QModelIndexList rows = selection.selectedRows();
    return rows.size() == 1 ? rows.first().data(RowTableRoles::KeyRole).toByteArray() : QByteArray();
}

} // namespace

class TestQueueStreamModels : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void queues()
    {
        QueuesModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QueueInfo growing = queue("jobs:video", 1234);
        growing.growthPerMin = 1.5;
        m.setRows({queue("q:email", 25, true), growing});
        QCOMPARE(m.columnCount(), int(QueuesModel::ColumnCount));
        QCOMPARE(m.rowCount(), 2);
        QCOMPARE(m.headerData(QueuesModel::KeyColumn, Qt::Horizontal).toString(), QStringLiteral("Queue"));
        QCOMPARE(m.headerData(QueuesModel::ReasonColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Classified because"));
        QCOMPARE(text(m, 0, QueuesModel::KeyColumn), QStringLiteral("q:email"));
        QCOMPARE(text(m, 1, QueuesModel::LengthColumn), QStringLiteral("1,234"));
        QCOMPARE(m.index(1, QueuesModel::LengthColumn).data(RowTableRoles::SortRole).toLongLong(), qint64(1234));
        QCOMPARE(text(m, 0, QueuesModel::GrowthColumn), QStringLiteral("—")); // one sample: no rate yet
        QCOMPARE(text(m, 1, QueuesModel::GrowthColumn), QStringLiteral("+1.5/min"));
        QCOMPARE(text(m, 0, QueuesModel::HeadColumn), QStringLiteral("newest"));
        QCOMPARE(text(m, 0, QueuesModel::TailColumn), QStringLiteral("oldest"));
        QCOMPARE(text(m, 0, QueuesModel::ProcessingColumn), QStringLiteral("1 (3 items)"));
        QCOMPARE(text(m, 1, QueuesModel::ProcessingColumn), QStringLiteral("—"));
        QCOMPARE(text(m, 0, QueuesModel::StaleColumn), QStringLiteral("stale"));
        QVERIFY(text(m, 0, QueuesModel::KeyColumn, Qt::ToolTipRole).startsWith(QStringLiteral("classified as queue")));
        QCOMPARE(key(m, 0), QByteArray("q:email"));
        QCOMPARE(m.index(0, 0).data(RowTableRoles::TypeRole).toInt(), int(KeyType::List));
        QCOMPARE(severity(m, 0), int(Severity::Bad));
        QCOMPARE(severity(m, 1), int(Severity::None));

        // A long item is cut for the cell.
        m.setRows({queue("q:email", 25, true), queue("big", 1)});
        QueueInfo big = queue("big", 1);
        big.head = QByteArray(QueuesModel::kPeekBytes + 50, 'x');
        m.setRows({big});
        QVERIFY(text(m, 0, QueuesModel::HeadColumn).endsWith(QStringLiteral("…")));
        QCOMPARE(int(text(m, 0, QueuesModel::HeadColumn).size()), QueuesModel::kPeekBytes + 1);
    }

    void delayedSets()
    {
        DelayedModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        DelayedInfo due = delayed("sched:due", 300, 40);
        due.oldestOverdueAgeMs = 90 * 60000;
        due.next = {{"job-1", double(kNow + 60000), kNow + 60000}};
        m.setRows({due, delayed("retry:payments", 5, 0)});
        QCOMPARE(m.columnCount(), int(DelayedModel::ColumnCount));
        QCOMPARE(m.headerData(DelayedModel::OverdueColumn, Qt::Horizontal).toString(), QStringLiteral("Due now"));
        QCOMPARE(text(m, 0, DelayedModel::TotalColumn), QStringLiteral("300"));
        QCOMPARE(text(m, 0, DelayedModel::OverdueColumn), QStringLiteral("40"));
        QCOMPARE(text(m, 1, DelayedModel::OldestColumn), QStringLiteral("—")); // nothing overdue
        QCOMPARE(text(m, 1, DelayedModel::NextColumn), QStringLiteral("—"));
        QCOMPARE(m.index(0, DelayedModel::NextColumn).data(RowTableRoles::SortRole).toLongLong(), kNow + 60000);
        QVERIFY(text(m, 0, 0, Qt::ToolTipRole).startsWith(QStringLiteral("classified as delayed jobs")));
        QCOMPARE(key(m, 1), QByteArray("retry:payments"));
        QCOMPARE(m.index(0, 0).data(RowTableRoles::TypeRole).toInt(), int(KeyType::ZSet));
        QCOMPARE(severity(m, 0), int(Severity::Warning));
        QCOMPARE(severity(m, 1), int(Severity::None));
    }

    void dueItems()
    {
        DueItemsModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setItems({{"late", 0, kNow - 120000}, {"soon", 0, kNow + 300000}}, kNow);
        QCOMPARE(m.columnCount(), int(DueItemsModel::ColumnCount));
        QCOMPARE(m.headerData(DueItemsModel::MemberColumn, Qt::Horizontal).toString(), QStringLiteral("Job"));
        QCOMPARE(text(m, 0, DueItemsModel::MemberColumn), QStringLiteral("late"));
        QVERIFY(text(m, 0, DueItemsModel::InColumn).endsWith(QStringLiteral(" ago")));
        QVERIFY(text(m, 1, DueItemsModel::InColumn).startsWith(QStringLiteral("in ")));
        QCOMPARE(key(m, 1), QByteArray("soon"));
        QCOMPARE(m.index(1, 0).data(RowTableRoles::SortRole).toLongLong(), kNow + 300000);
        QCOMPARE(severity(m, 0), int(Severity::Warning)); // already due
        QCOMPARE(severity(m, 1), int(Severity::None));
        // Time passes: the countdown follows now(), the rows stay.
        m.setNow(kNow + 600000);
        QVERIFY(text(m, 1, DueItemsModel::InColumn).endsWith(QStringLiteral(" ago")));
        QCOMPARE(m.items().size(), qsizetype(2));
    }

    void activeJobs()
    {
        ActiveJobsModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        ActiveJob stalled = activeJob("42", 10 * 60000, -2);
        stalled.stalled = true;
        stalled.why = QStringLiteral("no lock");
        ActiveJob longRunning = activeJob("43", 3 * 3600000 + 5 * 60000, 20000);
        longRunning.longRunning = true;
        longRunning.why = QStringLiteral("3h 05m with a 30 s lock");
        ActiveJob sidekiq = activeJob("jid\n9", -1, ttl::kUnknown); // no start time, no lock read
        sidekiq.worker = QStringLiteral("host-1:4242");
        m.setRows({activeJob("41", 90000, 25000), stalled, longRunning, sidekiq});
        QCOMPARE(m.columnCount(), int(ActiveJobsModel::ColumnCount));
        QCOMPARE(m.rowCount(), 4);
        QCOMPARE(m.headerData(ActiveJobsModel::JobColumn, Qt::Horizontal).toString(), QStringLiteral("Active job"));
        QCOMPARE(m.headerData(ActiveJobsModel::RunningColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Running for"));
        QCOMPARE(m.headerData(ActiveJobsModel::LockColumn, Qt::Horizontal).toString(), QStringLiteral("Lock / worker"));
        QCOMPARE(m.headerData(ActiveJobsModel::StateColumn, Qt::Horizontal).toString(), QStringLiteral("State"));

        // Running, with its lock.
        QCOMPARE(text(m, 0, ActiveJobsModel::JobColumn), QStringLiteral("41"));
        QCOMPARE(text(m, 0, ActiveJobsModel::RunningColumn), QStringLiteral("1m 30s"));
        QCOMPARE(text(m, 0, ActiveJobsModel::LockColumn), QStringLiteral("lock 25 s left"));
        QCOMPARE(text(m, 0, ActiveJobsModel::StateColumn), QStringLiteral("running"));
        // Stalled: no lock.
        QCOMPARE(text(m, 1, ActiveJobsModel::RunningColumn), QStringLiteral("10m 00s"));
        QCOMPARE(text(m, 1, ActiveJobsModel::LockColumn), QStringLiteral("no lock"));
        QCOMPARE(text(m, 1, ActiveJobsModel::StateColumn), QStringLiteral("stalled: no lock"));
        // Long running, its lock renewed.
        QCOMPARE(text(m, 2, ActiveJobsModel::RunningColumn), QStringLiteral("3h 05m"));
        QCOMPARE(text(m, 2, ActiveJobsModel::LockColumn), QStringLiteral("lock 20 s left"));
        QCOMPARE(text(m, 2, ActiveJobsModel::StateColumn), QStringLiteral("long running: 3h 05m with a 30 s lock"));
        // No start time and no lock read: the worker stands in the lock's column.
        QCOMPARE(text(m, 3, ActiveJobsModel::JobColumn), QStringLiteral("\"jid\\n9\""));
        QCOMPARE(text(m, 3, ActiveJobsModel::RunningColumn), QStringLiteral("—"));
        QCOMPARE(text(m, 3, ActiveJobsModel::LockColumn), QStringLiteral("host-1:4242"));
        QCOMPARE(text(m, 3, ActiveJobsModel::StateColumn), QStringLiteral("running"));

        QCOMPARE(m.index(0, ActiveJobsModel::RunningColumn).data(RowTableRoles::SortRole).toLongLong(), qint64(90000));
        QCOMPARE(m.index(3, ActiveJobsModel::RunningColumn).data(RowTableRoles::SortRole).toLongLong(), qint64(-1));
        QCOMPARE(m.index(0, ActiveJobsModel::LockColumn).data(RowTableRoles::SortRole).toLongLong(), qint64(25000));
        QCOMPARE(m.index(1, ActiveJobsModel::LockColumn).data(RowTableRoles::SortRole).toLongLong(), qint64(-1));
        QCOMPARE(m.index(1, ActiveJobsModel::StateColumn).data(RowTableRoles::SortRole).toInt(), int(Severity::Bad));
        QCOMPARE(key(m, 0), QByteArray("41"));
        QCOMPARE(key(m, 3), QByteArray("jid\n9"));
        QCOMPARE(severity(m, 0), int(Severity::None));
        QCOMPARE(severity(m, 1), int(Severity::Bad));
        QCOMPARE(severity(m, 2), int(Severity::Warning));
        QCOMPARE(severity(m, 3), int(Severity::None));
    }

    // A poll where one job has lost its lock and another has finished: the rows are merged by
    // id, so an index held on a third job follows it instead of being dropped by a reset.
    void activeJobsMerge()
    {
        ActiveJobsModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setRows({activeJob("41", 1000, 29000), activeJob("42", 2000, 28000), activeJob("43", 3000, 27000)});
        const QPersistentModelIndex held(m.index(2, ActiveJobsModel::StateColumn));
        ActiveJob lost = activeJob("42", 7000, -2);
        lost.stalled = true;
        lost.why = QStringLiteral("no lock");
        m.setRows({lost, activeJob("43", 8000, 22000)});
        QVERIFY(held.isValid());
        QCOMPARE(held.row(), 1);
        QCOMPARE(held.data(RowTableRoles::KeyRole).toByteArray(), QByteArray("43"));
        QCOMPARE(text(m, 1, ActiveJobsModel::RunningColumn), QStringLiteral("8 s"));
        QCOMPARE(text(m, 0, ActiveJobsModel::StateColumn), QStringLiteral("stalled: no lock"));
        QCOMPARE(severity(m, 0), int(Severity::Bad));
    }

    void processingLists()
    {
        ProcessingListsModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        ProcessingListInfo dead = processingList("q:email:proc:worker-1", 2, 47 * 60000, true);
        dead.tail = QByteArray(QueuesModel::kPeekBytes + 50, 'x');
        m.setRows({dead, processingList("q:email:proc:worker-2", 1234, 3000), processingList("jobs:proc\x01", 1, -1)});
        QCOMPARE(m.columnCount(), int(ProcessingListsModel::ColumnCount));
        QCOMPARE(m.rowCount(), 3);
        const QStringList titles{QStringLiteral("Processing list"), QStringLiteral("Items"),
                                 QStringLiteral("Oldest item age"), QStringLiteral("Read from"),
                                 QStringLiteral("Oldest item (tail)")};
        for (int c = 0; c < titles.size(); ++c)
            QCOMPARE(m.headerData(c, Qt::Horizontal).toString(), titles.at(c));

        // Stale: its age says so, its oldest item is cut for the cell.
        QCOMPARE(text(m, 0, ProcessingListsModel::KeyColumn), QStringLiteral("q:email:proc:worker-1"));
        QCOMPARE(text(m, 0, ProcessingListsModel::LengthColumn), QStringLiteral("2"));
        QCOMPARE(text(m, 0, ProcessingListsModel::AgeColumn), QStringLiteral("47m 00s — stale"));
        QCOMPARE(text(m, 0, ProcessingListsModel::SourceColumn), QStringLiteral("enqueued_at (ms)"));
        QVERIFY(text(m, 0, ProcessingListsModel::TailColumn).endsWith(QStringLiteral("…")));
        QCOMPARE(int(text(m, 0, ProcessingListsModel::TailColumn).size()), QueuesModel::kPeekBytes + 1);
        // Not stale.
        QCOMPARE(text(m, 1, ProcessingListsModel::LengthColumn), QStringLiteral("1,234"));
        QCOMPARE(text(m, 1, ProcessingListsModel::AgeColumn), QStringLiteral("3 s"));
        QCOMPARE(text(m, 1, ProcessingListsModel::TailColumn), QStringLiteral(R"({\"id\":7})"));
        // No timestamp in the item: nothing was read the age from.
        QCOMPARE(text(m, 2, ProcessingListsModel::KeyColumn), QStringLiteral("\"jobs:proc\\x01\""));
        QCOMPARE(text(m, 2, ProcessingListsModel::AgeColumn), QStringLiteral("no timestamp"));
        QCOMPARE(text(m, 2, ProcessingListsModel::SourceColumn), QStringLiteral("—"));

        QCOMPARE(m.index(1, ProcessingListsModel::LengthColumn).data(RowTableRoles::SortRole).toLongLong(),
                 qint64(1234));
        QCOMPARE(m.index(0, ProcessingListsModel::AgeColumn).data(RowTableRoles::SortRole).toLongLong(),
                 qint64(47 * 60000));
        QCOMPARE(m.index(2, ProcessingListsModel::AgeColumn).data(RowTableRoles::SortRole).toLongLong(), qint64(-1));
        QCOMPARE(key(m, 2), QByteArray("jobs:proc\x01")); // the exact bytes, to open the key
        QCOMPARE(m.index(0, 0).data(RowTableRoles::TypeRole).toInt(), int(KeyType::List));
        QCOMPARE(severity(m, 0), int(Severity::Bad));
        QCOMPARE(severity(m, 1), int(Severity::None));
        QCOMPARE(severity(m, 2), int(Severity::None));
    }

    // A poll where one list has gone stale: an index held on another list stays on it.
    void processingListsMerge()
    {
        ProcessingListsModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setRows({processingList("p:1", 1, 1000), processingList("p:2", 2, 2000)});
        const QPersistentModelIndex held(m.index(1, ProcessingListsModel::KeyColumn));
        m.setRows({processingList("p:1", 5, 40 * 60000, true), processingList("p:2", 2, 3000)});
        QVERIFY(held.isValid());
        QCOMPARE(held.row(), 1);
        QCOMPARE(held.data(RowTableRoles::KeyRole).toByteArray(), QByteArray("p:2"));
        QCOMPARE(text(m, 0, ProcessingListsModel::AgeColumn), QStringLiteral("40m 00s — stale"));
        QCOMPARE(text(m, 0, ProcessingListsModel::LengthColumn), QStringLiteral("5"));
        QCOMPARE(severity(m, 0), int(Severity::Bad));
        QCOMPARE(text(m, 1, ProcessingListsModel::AgeColumn), QStringLiteral("3 s"));
    }

    void streams()
    {
        StreamsModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        StreamRow grows = stream("events:audit", 300);
        grows.samples = {{kNow, 290}, {kNow + 5000, 300}};
        StreamRow failed;
        failed.key = "notastream";
        failed.error = QStringLiteral("WRONGTYPE Operation against a key holding the wrong kind of value");
        StreamRow unread;
        unread.key = "events:new";
        m.setRows({stream("events:orders", 1234), grows, failed, unread});
        QCOMPARE(m.columnCount(), int(StreamsModel::ColumnCount));
        QCOMPARE(m.headerData(StreamsModel::GrowsColumn, Qt::Horizontal).toString(), QStringLiteral("Trimming"));
        QCOMPARE(text(m, 0, StreamsModel::KeyColumn), QStringLiteral("events:orders"));
        QCOMPARE(text(m, 0, StreamsModel::LengthColumn), QStringLiteral("1,234"));
        QCOMPARE(text(m, 0, StreamsModel::FirstColumn), QStringLiteral("1-0"));
        QCOMPARE(text(m, 0, StreamsModel::AddedColumn), QStringLiteral("–")); // a 6.x server
        QCOMPARE(text(m, 1, StreamsModel::GrowsColumn), QStringLiteral("only grows"));
        QVERIFY(m.index(1, 0).data(StreamsModel::OnlyGrowsRole).toBool());
        QVERIFY(!m.index(0, 0).data(StreamsModel::OnlyGrowsRole).toBool());
        QVERIFY(text(m, 2, StreamsModel::LengthColumn).startsWith(QStringLiteral("WRONGTYPE")));
        QCOMPARE(text(m, 3, StreamsModel::LengthColumn), QStringLiteral("…"));
        QCOMPARE(key(m, 2), QByteArray("notastream"));
        QCOMPARE(m.index(0, 0).data(RowTableRoles::TypeRole).toInt(), int(KeyType::Stream));
        QCOMPARE(severity(m, 0), int(Severity::None));
        QCOMPARE(severity(m, 1), int(Severity::Warning));
        QCOMPARE(severity(m, 2), int(Severity::Bad));
        QCOMPARE(int(StreamsModel::OnlyGrowsRole), int(RowTableRoles::FirstExtraRole));
    }

    void groupsAndConsumers()
    {
        StreamGroupsModel groups;
        QAbstractItemModelTester t1(&groups, QAbstractItemModelTester::FailureReportingMode::QtTest);
        StreamGroupInfo billing{"billing", 2, 36, "9-0", 40, 0, true};
        StreamGroupInfo audit{"audit", 1, 0, "5-0", std::nullopt, std::nullopt, true};
        groups.setRows({billing, audit});
        QCOMPARE(groups.columnCount(), int(StreamGroupsModel::ColumnCount));
        QCOMPARE(groups.headerData(StreamGroupsModel::LagColumn, Qt::Horizontal).toString(), QStringLiteral("Lag"));
        QCOMPARE(text(groups, 0, StreamGroupsModel::NameColumn), QStringLiteral("billing"));
        QCOMPARE(text(groups, 0, StreamGroupsModel::PendingColumn), QStringLiteral("36"));
        QCOMPARE(text(groups, 0, StreamGroupsModel::LagColumn), QStringLiteral("0"));
        QCOMPARE(text(groups, 1, StreamGroupsModel::LagColumn), QStringLiteral("unknown"));
        QVERIFY(!text(groups, 1, StreamGroupsModel::LagColumn, Qt::ToolTipRole).isEmpty());
        QCOMPARE(key(groups, 1), QByteArray("audit"));
        QCOMPARE(severity(groups, 0), int(Severity::None));

        StreamConsumersModel consumers;
        QAbstractItemModelTester t2(&consumers, QAbstractItemModelTester::FailureReportingMode::QtTest);
        consumers.setRows({{"alice", 18, 850, std::nullopt}, {"bob", 18, 850, -1}});
        QCOMPARE(consumers.columnCount(), int(StreamConsumersModel::ColumnCount));
        QCOMPARE(text(consumers, 0, StreamConsumersModel::NameColumn), QStringLiteral("alice"));
        QCOMPARE(text(consumers, 0, StreamConsumersModel::PendingColumn), QStringLiteral("18"));
        QCOMPARE(text(consumers, 0, StreamConsumersModel::InactiveColumn), QStringLiteral("–"));
        QCOMPARE(text(consumers, 1, StreamConsumersModel::InactiveColumn), QStringLiteral("never read"));
        QCOMPARE(key(consumers, 1), QByteArray("bob"));
    }

    void pendingEntries()
    {
        PendingModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setRows({pending("1-0", 1), pending("2-0", 7), pending("3-0", 2)});
        m.setDeleted({"3-0"});
        QCOMPARE(m.columnCount(), int(PendingModel::ColumnCount));
        QCOMPARE(m.headerData(PendingModel::DeliveriesColumn, Qt::Horizontal).toString(), QStringLiteral("Deliveries"));
        QCOMPARE(text(m, 0, PendingModel::IdColumn), QStringLiteral("1-0"));
        QCOMPARE(text(m, 0, PendingModel::ConsumerColumn), QStringLiteral("alice"));
        QCOMPARE(text(m, 1, PendingModel::DeliveriesColumn), QStringLiteral("7"));
        QCOMPARE(text(m, 1, PendingModel::StateColumn), QStringLiteral("poison"));
        QCOMPARE(text(m, 2, PendingModel::StateColumn), QStringLiteral("deleted, still pending"));
        QCOMPARE(key(m, 1), QByteArray("2-0"));
        QVERIFY(m.index(1, 0).data(PendingModel::PoisonRole).toBool());
        QVERIFY(m.index(2, 0).data(PendingModel::DeletedRole).toBool());
        QCOMPARE(severity(m, 0), int(Severity::None));
        QCOMPARE(severity(m, 1), int(Severity::Bad));
        QCOMPARE(severity(m, 2), int(Severity::Warning));
        QCOMPARE(m.poisonCount(), 1);
        QVERIFY(m.isPoison(1) && m.isDeleted(2));
        // A lower threshold makes more entries poison without new rows.
        m.setPoisonThreshold(1);
        QCOMPARE(m.poisonCount(), 2);
        QCOMPARE(severity(m, 2), int(Severity::Bad));
    }

    void entries()
    {
        StreamEntriesModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setRows({{"1750000000000-0", {"order", "1003", "amount", "9"}}, {"1750000000000-1", {}}});
        QCOMPARE(m.columnCount(), int(StreamEntriesModel::ColumnCount));
        QCOMPARE(m.headerData(StreamEntriesModel::FieldsColumn, Qt::Horizontal).toString(), QStringLiteral("Fields"));
        QCOMPARE(text(m, 0, StreamEntriesModel::IdColumn), QStringLiteral("1750000000000-0"));
        QVERIFY(text(m, 0, StreamEntriesModel::TimeColumn).startsWith(QStringLiteral("20")));
        QCOMPARE(text(m, 0, StreamEntriesModel::FieldsColumn), QStringLiteral("order=1003  amount=9"));
        QCOMPARE(key(m, 1), QByteArray("1750000000000-1"));
    }

    // Each model, twice fed: the row selected before is selected after, whatever came and went.
    void mergeKeepsSelection_data()
    {
        QTest::addColumn<QString>("model");
        for (const char *name : {"queues", "delayed", "due", "active", "processing", "streams", "groups", "consumers",
                                 "pending", "entries"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }
    void mergeKeepsSelection()
    {
        QFETCH(QString, model);
        // Rows "a", "b", "c" first; then "d" new at the top, "a" gone, "c" before "b", "b" changed.
        std::unique_ptr<QAbstractItemModel> m;
        std::function<void(bool second)> feed;
        if (model == QLatin1String("queues")) {
            auto *q = new QueuesModel;
            feed = [q](bool second) {
                q->setRows(second ? QList<QueueInfo>{queue("d", 1), queue("c", 3), queue("b", 99, true)}
                                  : QList<QueueInfo>{queue("a", 1), queue("b", 2), queue("c", 3)});
            };
            m.reset(q);
        } else if (model == QLatin1String("delayed")) {
            auto *d = new DelayedModel;
            feed = [d](bool second) {
                d->setRows(second ? QList<DelayedInfo>{delayed("d", 1, 0), delayed("c", 3, 0), delayed("b", 99, 9)}
                                  : QList<DelayedInfo>{delayed("a", 1, 0), delayed("b", 2, 0), delayed("c", 3, 0)});
            };
            m.reset(d);
        } else if (model == QLatin1String("due")) {
            auto *d = new DueItemsModel;
            feed = [d](bool second) {
                d->setItems(second ? QList<DueItem>{{"d", 0, kNow}, {"c", 0, kNow}, {"b", 0, kNow + 99000}}
                                   : QList<DueItem>{{"a", 0, kNow}, {"b", 0, kNow}, {"c", 0, kNow}},
                            kNow);
            };
            m.reset(d);
        } else if (model == QLatin1String("active")) {
            auto *a = new ActiveJobsModel;
            feed = [a](bool second) {
                a->setRows(second
                               ? QList<ActiveJob>{activeJob("d", 1, 0), activeJob("c", 3, 0), activeJob("b", 99000, 0)}
                               : QList<ActiveJob>{activeJob("a", 1, 0), activeJob("b", 2, 0), activeJob("c", 3, 0)});
            };
            m.reset(a);
        } else if (model == QLatin1String("processing")) {
            auto *p = new ProcessingListsModel;
            feed = [p](bool second) {
                p->setRows(second ? QList<ProcessingListInfo>{processingList("d", 1, 0), processingList("c", 3, 0),
                                                              processingList("b", 99, 0)}
                                  : QList<ProcessingListInfo>{processingList("a", 1, 0), processingList("b", 2, 0),
                                                              processingList("c", 3, 0)});
            };
            m.reset(p);
        } else if (model == QLatin1String("streams")) {
            auto *s = new StreamsModel;
            feed = [s](bool second) {
                s->setRows(second ? QList<StreamRow>{stream("d", 1), stream("c", 3), stream("b", 99)}
                                  : QList<StreamRow>{stream("a", 1), stream("b", 2), stream("c", 3)});
            };
            m.reset(s);
        } else if (model == QLatin1String("groups")) {
            auto *g = new StreamGroupsModel;
            const auto group = [](const QByteArray &name, qint64 pending) {
                StreamGroupInfo info;
                info.name = name;
                info.consumers = pending;
                return info;
            };
            feed = [g, group](bool second) {
                g->setRows(second ? QList<StreamGroupInfo>{group("d", 1), group("c", 3), group("b", 99)}
                                  : QList<StreamGroupInfo>{group("a", 1), group("b", 2), group("c", 3)});
            };
            m.reset(g);
        } else if (model == QLatin1String("consumers")) {
            auto *c = new StreamConsumersModel;
            feed = [c](bool second) {
                c->setRows(second ? QList<StreamConsumerInfo>{{"d", 1, 0, {}}, {"c", 3, 0, {}}, {"b", 99, 0, {}}}
                                  : QList<StreamConsumerInfo>{{"a", 1, 0, {}}, {"b", 2, 0, {}}, {"c", 3, 0, {}}});
            };
            m.reset(c);
        } else if (model == QLatin1String("pending")) {
            auto *p = new PendingModel;
            feed = [p](bool second) {
                p->setRows(second ? QList<PendingEntry>{pending("d", 1), pending("c", 3), pending("b", 99)}
                                  : QList<PendingEntry>{pending("a", 1), pending("b", 2), pending("c", 3)});
            };
            m.reset(p);
        } else {
            auto *e = new StreamEntriesModel;
            feed = [e](bool second) {
                e->setRows(second ? QList<StreamEntry>{{"d", {}}, {"c", {}}, {"b", {"changed", "1"}}}
                                  : QList<StreamEntry>{{"a", {}}, {"b", {}}, {"c", {}}});
            };
            m.reset(e);
        }
        QAbstractItemModelTester tester(m.get(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QItemSelectionModel selection(m.get());
        feed(false);
        QCOMPARE(m->rowCount(), 3);
        selection.select(m->index(1, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        selection.setCurrentIndex(m->index(1, 0), QItemSelectionModel::NoUpdate);
        QCOMPARE(selectedKey(selection), QByteArray("b"));
        // A column that shows what changed in "b".
        const int changed = model == QLatin1String("pending") ? int(PendingModel::DeliveriesColumn)
            : model == QLatin1String("entries")               ? int(StreamEntriesModel::FieldsColumn)
                                                              : 1;
        const QString before = text(*m, 1, changed);

        feed(true);
        QCOMPARE(m->rowCount(), 3);
        QCOMPARE(key(*m, 0), QByteArray("d"));
        QCOMPARE(key(*m, 1), QByteArray("c"));
        QCOMPARE(key(*m, 2), QByteArray("b"));
        QCOMPARE(selectedKey(selection), QByteArray("b"));
        QCOMPARE(selection.currentIndex().row(), 2);
        // The kept row shows its new values.
        QVERIFY2(text(*m, 2, changed) != before, qPrintable(before));

        // And back: "b" is still the one selected.
        feed(false);
        QCOMPARE(key(*m, 1), QByteArray("b"));
        QCOMPARE(selectedKey(selection), QByteArray("b"));
    }
};

QTEST_GUILESS_MAIN(TestQueueStreamModels)
#include "tst_queuestreammodels.moc"
