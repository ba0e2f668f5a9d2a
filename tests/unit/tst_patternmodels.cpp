// SPDX-License-Identifier: GPL-3.0-or-later
// The models of the locks, rate limits, sessions and caches panels, fed plain rows as their
// readers emit them: the analysis functions, columns, display text, the shared roles and the
// severities, and a second read that adds, removes and changes rows while a row stays selected.
// The test links the models library alone: nothing here can send a command.
#include "caches.h"
#include "format.h"
#include "locks.h"
#include "ratelimits.h"
#include "redlock.h"
#include "sessions.h"

#include <QAbstractItemModelTester>
#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QTest>
#include <limits>

namespace {

constexpr qint64 kNow = 1'800'000'000'000; // a fixed clock: every row is read at it

LockInfo lock(const QByteArray &key, const QByteArray &value, qint64 pttlMs, const QString &family)
{
    LockInfo l;
    l.key = key;
    l.family = family;
    l.value = value;
    l.valueLength = value.size();
    l.pttlMs = pttlMs;
    l.readAtMs = kNow;
    return l;
}

QList<LockInfo> flaggedLocks(QList<LockInfo> locks)
{
    flagLocks(locks);
    sortLocks(locks);
    return locks;
}

CallerState counter(int caller, qint64 count, qint64 pttlMs)
{
    CallerState c;
    c.key = "rate:user:" + QByteArray::number(caller) + ":29000000";
    c.limiter = QStringLiteral("rate:user:{n}:{n}");
    c.kind = LimiterKind::FixedWindow;
    c.caller = rateLimitCaller(c.key, c.limiter, c.kind, &c.window);
    c.count = count;
    c.pttlMs = pttlMs;
    c.readAtMs = kNow;
    c.serverReadAtMs = kNow;
    return c;
}

RateLimitAnalysis analysis(const QList<CallerState> &keys)
{
    const QHash<QString, QVariantMap> rules{
        {QStringLiteral("rate:user:{n}:{n}"), {{QStringLiteral("limit"), 10}, {QStringLiteral("window_ms"), 60000}}}};
    return analyzeRateLimits(keys, rules, kNow);
}

SessionRow session(const QByteArray &key, qint64 expireAtMs, sessions::Lifetime lifetime, qint64 memoryBytes)
{
    SessionRow r;
    r.key = key;
    r.type = KeyType::Hash;
    r.family = QStringLiteral("session:{id}");
    r.expireAtMs = expireAtMs;
    r.readAtMs = kNow;
    r.lifetime = lifetime;
    r.memoryBytes = memoryBytes;
    r.elements = 4;
    return r;
}

CacheKeyState cacheKey(const QByteArray &key, qint64 expireAtMs, PatternKind kind = PatternKind::CacheEntry)
{
    CacheKeyState k;
    k.key = key;
    k.kind = kind;
    k.expireAtMs = expireAtMs;
    return k;
}

TagRow tag(const QByteArray &key, qint64 cardinality, QList<QByteArray> dangling)
{
    TagRow t;
    t.key = key;
    t.family = QStringLiteral("tag:category:{n}");
    t.cardinality = cardinality;
    t.pttlMs = 60000;
    t.scanned = cardinality;
    t.complete = true;
    t.dangling = std::move(dangling);
    return t;
}

QByteArrayList keysOf(const QAbstractItemModel &model)
{
    QByteArrayList out;
    for (int r = 0; r < model.rowCount(); ++r)
        out << model.index(r, 0).data(RowTableRoles::KeyRole).toByteArray();
    return out;
}

QStringList headers(const QAbstractItemModel &model)
{
    QStringList out;
    for (int c = 0; c < model.columnCount(); ++c)
        out << model.headerData(c, Qt::Horizontal).toString();
    return out;
}

int severityOf(const QAbstractItemModel &model, const QByteArray &key, int role = RowTableRoles::SeverityRole)
{
    const QModelIndexList hit = model.match(model.index(0, 0), RowTableRoles::KeyRole, key, 1, Qt::MatchExactly);
    return hit.isEmpty() ? -1 : hit.first().data(role).toInt();
}

QString textOf(const QAbstractItemModel &model, const QByteArray &key, int column)
{
    const QModelIndexList hit = model.match(model.index(0, 0), RowTableRoles::KeyRole, key, 1, Qt::MatchExactly);
    return hit.isEmpty() ? QString() : model.index(hit.first().row(), column).data().toString();
}

// Shows 'before', selects the row of 'selected', shows 'after' (a row added, one removed, the
// selected one changed): no reset, the selection and the current index stay on that row, and
// the model test sees nothing wrong. Returns the new text of the selected row in 'column'.
template <typename Model, typename Row>
QString mergeKeepsSelection(Model &model, const QList<Row> &before, const QList<Row> &after, const QByteArray &selected,
                            int column)
{
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRows(before);
    QItemSelectionModel selection(&model);
    const QModelIndexList hit = model.match(model.index(0, 0), RowTableRoles::KeyRole, selected, 1, Qt::MatchExactly);
    if (hit.isEmpty()) {
        QTest::qFail("the selected key is not in the first rows", __FILE__, __LINE__);
        return {};
    }
    selection.setCurrentIndex(hit.first(), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    model.setRows(after);
    if (resets.count() != 0 || inserted.count() == 0 || removed.count() == 0 || model.rowCount() != int(after.size())) {
        QTest::qFail("the second read was not merged row by row", __FILE__, __LINE__);
        return {};
    }
    const QModelIndexList rows = selection.selectedRows();
    if (rows.size() != 1 || rows.first().data(RowTableRoles::KeyRole).toByteArray() != selected
        || selection.currentIndex().data(RowTableRoles::KeyRole).toByteArray() != selected) {
        QTest::qFail("the selection left its row", __FILE__, __LINE__);
        return {};
    }
    return model.index(rows.first().row(), column).data().toString();
}

} // namespace

class TestPatternModels : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // ---- locks ----

    void lockFlagsAndOrder()
    {
        const QString invoice = QStringLiteral("lock:invoice:{n}");
        const QList<LockInfo> locks = flaggedLocks({
            lock("lock:invoice:1", "3f1c9a0e7b2d4c55", 30000, invoice),
            lock("lock:invoice:2", "8a2b4c6d8e0f1a3b", 25000, invoice),
            lock("lock:invoice:3", "c0ffee0123456789", 3'600'000, invoice),
            lock("lock:invoice:4", "5d4c3b2a19f8e7d6", 28000, invoice),
            lock("lock:report:daily", "0a1b2c3d4e5f6a7b", -1, QStringLiteral("lock:report:daily")),
            lock("lock:cron:cleanup", "1", 20000, QStringLiteral("lock:cron:cleanup")),
        });
        QCOMPARE(locks.size(), 6);
        // No TTL, then the TTL far above its family's, then the value every holder shares.
        QCOMPARE(locks.at(0).key, QByteArray("lock:report:daily"));
        QCOMPARE(locks.at(0).flags, quint8(LockInfo::NoTtl));
        QCOMPARE(locks.at(1).key, QByteArray("lock:invoice:3"));
        QCOMPARE(locks.at(1).flags, quint8(LockInfo::LongTtl));
        QCOMPARE(locks.at(1).familyMedianMs, 28000);
        QCOMPARE(locks.at(2).key, QByteArray("lock:cron:cleanup"));
        QCOMPARE(locks.at(2).flags, quint8(LockInfo::NotTokenLike));
        for (int i = 3; i < locks.size(); ++i)
            QCOMPARE(locks.at(i).flags, quint8(0));
        QCOMPARE(locks.at(3).key, QByteArray("lock:invoice:1")); // then by key
        QVERIFY(lockValueLooksLikeToken("3f1c9a0e7b2d4c55"));
        QVERIFY(!lockValueLooksLikeToken("locked"));
    }

    void locksModelColumnsAndRoles()
    {
        LocksModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        LockInfo hash = lock("lock:hash", {}, 20000, QStringLiteral("lock:hash"));
        hash.type = KeyType::Hash;
        model.setRows(
            flaggedLocks({lock("lock:report:daily", "0a1b2c3d4e5f6a7b", -1, QStringLiteral("lock:report")),
                          lock("lock:cron:cleanup", "1", 20000, QStringLiteral("lock:cron")),
                          lock("lock:job:7", "3f1c9a0e7b2d4c55", 30000, QStringLiteral("lock:job:{n}")), hash}));
        model.setNow(kNow);
        QCOMPARE(model.columnCount(), int(LocksModel::ColumnCount));
        QCOMPARE(headers(model),
                 (QStringList{QStringLiteral("Resource (key)"), QStringLiteral("Holder token"),
                              QStringLiteral("Remaining"), QStringLiteral("Family"), QStringLiteral("Flags")}));
        QCOMPARE(keysOf(model), (QByteArrayList{"lock:report:daily", "lock:cron:cleanup", "lock:hash", "lock:job:7"}));
        QCOMPARE(textOf(model, "lock:report:daily", LocksModel::RemainingColumn), QStringLiteral("no TTL"));
        QCOMPARE(textOf(model, "lock:report:daily", LocksModel::FlagsColumn), QStringLiteral("no TTL"));
        QCOMPARE(textOf(model, "lock:cron:cleanup", LocksModel::TokenColumn), QStringLiteral("1"));
        QCOMPARE(textOf(model, "lock:cron:cleanup", LocksModel::FlagsColumn), QStringLiteral("value not token-like"));
        QCOMPARE(textOf(model, "lock:job:7", LocksModel::FamilyColumn), QStringLiteral("lock:job:{n}"));
        QCOMPARE(textOf(model, "lock:job:7", LocksModel::RemainingColumn), format::ttl(kNow + 30000, kNow));
        QCOMPARE(textOf(model, "lock:hash", LocksModel::TokenColumn), QStringLiteral("(hash: holder not shown)"));

        QCOMPARE(severityOf(model, "lock:report:daily"), int(Severity::Bad));
        QCOMPARE(severityOf(model, "lock:cron:cleanup"), int(Severity::Warning));
        QCOMPARE(severityOf(model, "lock:job:7"), int(Severity::None));
        QCOMPARE(severityOf(model, "lock:report:daily", LocksModel::TtlSeverityRole), int(Severity::Bad));
        QCOMPARE(severityOf(model, "lock:cron:cleanup", LocksModel::TtlSeverityRole), int(Severity::None));
        const QModelIndex job = model.index(model.rowOf("lock:job:7"), 0);
        QCOMPARE(job.data(LocksModel::TokenRole).toByteArray(), QByteArray("3f1c9a0e7b2d4c55"));
        QCOMPARE(job.data(LocksModel::TypeRole).toInt(), int(KeyType::String));
        QCOMPARE(model.index(model.rowOf("lock:hash"), 0).data(LocksModel::TypeRole).toInt(), int(KeyType::Hash));

        // The countdown moves with setNow alone.
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setNow(kNow + 10000);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(textOf(model, "lock:job:7", LocksModel::RemainingColumn), format::ttl(kNow + 30000, kNow + 10000));
    }

    void locksMergeKeepsSelection()
    {
        const QList<LockInfo> before = flaggedLocks({lock("lock:a", "3f1c9a0e7b2d4c55", 30000, QStringLiteral("a")),
                                                     lock("lock:b", "8a2b4c6d8e0f1a3b", 30000, QStringLiteral("b")),
                                                     lock("lock:c", "c0ffee0123456789", 30000, QStringLiteral("c"))});
        LockInfo released = before.at(1);
        released.released = true;
        const QList<LockInfo> after = flaggedLocks({lock("lock:a", "3f1c9a0e7b2d4c55", 30000, QStringLiteral("a")),
                                                    released, // lock:b, changed
                                                    lock("lock:d", "5d4c3b2a19f8e7d6", 30000, QStringLiteral("d"))});
        LocksModel model;
        QCOMPARE(mergeKeepsSelection(model, before, after, "lock:b", LocksModel::RemainingColumn),
                 QStringLiteral("released"));
        QCOMPARE(keysOf(model), (QByteArrayList{"lock:a", "lock:d", "lock:b"})); // released last
    }

    // ---- Redlock ----

    void redlockCombine()
    {
        // Three nodes, their answers as RedlockReader gives them.
        const auto hold = [](const QByteArray &token, qint64 pttl, qint64 at = kNow) {
            RedlockHold h;
            h.read = true;
            h.exists = true;
            h.token = token;
            h.pttlMs = pttl;
            h.readAtMs = at;
            return h;
        };
        RedlockHold absent;
        absent.read = true;
        absent.pttlMs = -2;
        QList<RedlockNodeRead> reads(3);
        const QByteArray a = "6f1c9a0e7b2d4c55aa01", b = "0d9f6ab3e21c7e48bb02";
        // Held everywhere by one token: the smallest TTL wins, read on the earliest clock.
        reads[0].holds.insert("lock:all", hold(a, 30000));
        reads[1].holds.insert("lock:all", hold(a, 25000, kNow + 100));
        reads[2].holds.insert("lock:all", hold(a, 29000));
        // A majority without the first node.
        reads[0].holds.insert("lock:two", absent);
        reads[1].holds.insert("lock:two", hold(b, 40000));
        reads[2].holds.insert("lock:two", hold(b, 41000));
        // One node only.
        reads[0].holds.insert("lock:one", absent);
        reads[1].holds.insert("lock:one", absent);
        reads[2].holds.insert("lock:one", hold(a, 50000));
        // Split: a on one node, b on two (b holds it), and a node without TTL.
        reads[0].holds.insert("lock:split", hold(a, 60000));
        reads[1].holds.insert("lock:split", hold(b, -1));
        reads[2].holds.insert("lock:split", hold(b, 20000));
        // Three tokens, one each: nobody holds it.
        reads[0].holds.insert("lock:three", hold("t1t1t1t1t1t1t1t1", 9000));
        reads[1].holds.insert("lock:three", hold("t2t2t2t2t2t2t2t2", 9000));
        reads[2].holds.insert("lock:three", hold("t3t3t3t3t3t3t3t3", 9000));
        // Gone everywhere: left out.
        for (RedlockNodeRead &r : reads)
            r.holds.insert("lock:gone", absent);
        const QList<QByteArray> keys{"lock:all", "lock:two", "lock:one", "lock:split", "lock:three", "lock:gone"};
        const QList<RedlockLock> locks = combineRedlock(keys, {{"lock:all", QStringLiteral("lock:{…}")}}, reads);
        QHash<QByteArray, RedlockLock> by;
        for (const RedlockLock &l : locks)
            by.insert(l.key, l);
        QCOMPARE(by.size(), 5);
        QVERIFY(!by.contains("lock:gone"));

        const RedlockLock all = by.value("lock:all");
        QCOMPARE(all.held, 3);
        QCOMPARE(all.quorum, 2);
        QVERIFY(all.valid());
        QCOMPARE(all.flags, quint8(0));
        QCOMPARE(all.token, a);
        QCOMPARE(all.readAtMs, kNow);
        QCOMPARE(all.expireAtMs(), kNow + 100 + 25000); // node 2's lease ends first
        QCOMPARE(all.family, QStringLiteral("lock:{…}"));
        QCOMPARE(all.heldText(), QStringLiteral("3 of 3"));

        const RedlockLock two = by.value("lock:two");
        QCOMPARE(two.held, 2);
        QVERIFY(two.valid());
        QCOMPARE(two.flags, quint8(0));
        QCOMPARE(two.minPttlMs, 40000);

        const RedlockLock one = by.value("lock:one");
        QCOMPARE(one.held, 1);
        QVERIFY(!one.valid());
        QCOMPARE(one.flags, quint8(RedlockLock::NoMajority));
        QVERIFY(one.flagsText().contains(QLatin1String("no majority: 2 of 3 needed")));

        const RedlockLock split = by.value("lock:split");
        QCOMPARE(split.tokens, 2);
        QCOMPARE(split.token, b);
        QCOMPARE(split.majorityHolders, 2);
        QVERIFY(split.valid());
        QCOMPARE(split.flags, quint8(RedlockLock::SplitTokens | RedlockLock::NoTtl));
        QCOMPARE(split.minPttlMs, 20000); // b's node without TTL does not lengthen or shorten it

        const RedlockLock three = by.value("lock:three");
        QCOMPARE(three.tokens, 3);
        QVERIFY(!three.valid());
        QCOMPARE(three.flags, quint8(RedlockLock::SplitTokens | RedlockLock::NoMajority));

        // Most severe first: split tokens, then no majority / no TTL, then the sound ones.
        QCOMPARE(locks.at(0).key, QByteArray("lock:split"));
        QCOMPARE(locks.at(1).key, QByteArray("lock:three"));
        QCOMPARE(locks.at(2).key, QByteArray("lock:one"));
        QCOMPARE(locks.last().key, QByteArray("lock:two"));

        // A node that did not answer: counted as not read, and said.
        reads[2].error = QStringLiteral("connection refused");
        const QList<RedlockLock> partial = combineRedlock({"lock:all", "lock:one"}, {}, reads);
        QCOMPARE(partial.size(), 1); // lock:one was only on the unread node
        QCOMPARE(partial.first().held, 2);
        QCOMPARE(partial.first().heldText(), QStringLiteral("2 of 3 (1 unread)"));
        QCOMPARE(partial.first().flags, quint8(RedlockLock::SomeUnread));
        QCOMPARE(partial.first().severity(), 1);
    }

    void redlockModelColumnsAndRoles()
    {
        QList<RedlockNodeRead> reads(3);
        RedlockHold h;
        h.read = true;
        h.exists = true;
        h.token = "6f1c9a0e7b2d4c55aa01";
        h.pttlMs = 30000;
        h.readAtMs = kNow;
        reads[0].holds.insert("lock:one", h);
        reads[1].holds.insert("lock:one", RedlockHold{true, false, {}, -2, kNow, {}});
        reads[2].holds.insert("lock:one", RedlockHold{true, false, {}, -2, kNow, {}});
        RedlockModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setNodes(
            {QStringLiteral("127.0.0.1:7001"), QStringLiteral("127.0.0.1:7002"), QStringLiteral("127.0.0.1:7003")});
        model.setRows(combineRedlock({"lock:one"}, {}, reads));
        model.setNow(kNow + 5000);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.columnCount(), int(RedlockModel::ColumnCount));
        const auto cell = [&](int column, int role = Qt::DisplayRole) { return model.index(0, column).data(role); };
        QCOMPARE(cell(RedlockModel::ResourceColumn).toString(), QStringLiteral("lock:one"));
        QCOMPARE(cell(RedlockModel::HeldColumn).toString(), QStringLiteral("1 of 3"));
        QCOMPARE(cell(RedlockModel::HeldColumn, RedlockModel::SortRole).toInt(), 1);
        QCOMPARE(cell(RedlockModel::RemainingColumn).toString(), format::ttl(kNow + 30000, kNow + 5000));
        QCOMPARE(cell(RedlockModel::RemainingColumn, RedlockModel::SortRole).toLongLong(), 25000);
        QCOMPARE(cell(RedlockModel::FlagsColumn, RedlockModel::SeverityRole).toInt(), int(Severity::Bad));
        const QString perNode = cell(RedlockModel::HeldColumn, Qt::ToolTipRole).toString();
        QVERIFY2(perNode.contains(QLatin1String("127.0.0.1:7001: 6f1c9a0e7b2d4c55aa01, 30 s"))
                     && perNode.contains(QLatin1String("127.0.0.1:7002: not held")),
                 qPrintable(perNode));
        QCOMPARE(model.headerData(RedlockModel::HeldColumn, Qt::Horizontal).toString(), QStringLiteral("Held on"));
    }

    // ---- rate limits ----

    void rateLimitAnalysis()
    {
        const RateLimitAnalysis a = analysis({counter(1, 12, 30000), counter(2, 10, 30000), counter(3, 3, -1)});
        QCOMPARE(a.limiters.size(), 1);
        const LimiterInfo &l = a.limiters.first();
        QCOMPARE(l.callers, 3);
        QCOMPARE(l.limit, 10);
        QCOMPARE(l.limitSource, QStringLiteral("10 (rule)"));
        QCOMPARE(l.windowMs, 60000);
        QCOMPARE(l.atLimit, 2);
        QCOMPARE(l.overLimit, 1);
        QCOMPARE(l.noTtl, 1);
        // Highest pressure first.
        QCOMPARE(a.callers.size(), 3);
        QCOMPARE(a.callers.at(0).caller, QByteArray("1"));
        QCOMPARE(a.callers.at(0).flags, quint8(CallerState::AtLimit | CallerState::OverLimit));
        QCOMPARE(a.callers.at(1).caller, QByteArray("2"));
        QCOMPARE(a.callers.at(2).flags, quint8(CallerState::NoTtl));
        QCOMPARE(a.callers.at(0).window, QByteArray("29000000"));
        QCOMPARE(inferCeiling({100, 100, 100, 100, 3, 9, 17}).value_or(-1), qint64(100));
    }

    void rateLimitModels()
    {
        const RateLimitAnalysis a = analysis({counter(1, 12, 30000), counter(2, 10, 30000), counter(3, 3, -1)});
        LimitersModel limiters;
        CallersModel callers;
        QAbstractItemModelTester t1(&limiters, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&callers, QAbstractItemModelTester::FailureReportingMode::QtTest);
        limiters.setRows(a.limiters);
        callers.setRows(a.callers);
        callers.setNow(kNow);

        QCOMPARE(limiters.columnCount(), int(LimitersModel::ColumnCount));
        QCOMPARE(headers(limiters).first(), QStringLiteral("Limiter"));
        const QModelIndex l = limiters.index(0, LimitersModel::NameColumn);
        QCOMPARE(l.data().toString(), QStringLiteral("rate:user:{n}:{n}"));
        QCOMPARE(l.data(LimitersModel::NameRole).toString(), QStringLiteral("rate:user:{n}:{n}"));
        QCOMPARE(l.data(LimitersModel::KeyRole).toByteArray(), QByteArray("rate:user:{n}:{n}"));
        QCOMPARE(l.data(LimitersModel::SeverityRole).toInt(), int(Severity::Bad)); // a counter without TTL
        QCOMPARE(limiters.index(0, LimitersModel::KindColumn).data().toString(), QStringLiteral("fixed window"));
        QCOMPARE(limiters.index(0, LimitersModel::LimitColumn).data().toString(), QStringLiteral("10 (rule)"));
        QCOMPARE(limiters.index(0, LimitersModel::WindowColumn).data().toString(), format::duration(60000));
        QCOMPARE(limiters.index(0, LimitersModel::AtLimitColumn).data().toString(),
                 QStringLiteral("2 at or over (1 over)"));

        QCOMPARE(callers.columnCount(), int(CallersModel::ColumnCount));
        QCOMPARE(headers(callers).at(CallersModel::PressureColumn), QStringLiteral("Pressure"));
        const QByteArray over = "rate:user:1:29000000", at = "rate:user:2:29000000", forever = "rate:user:3:29000000";
        QCOMPARE(keysOf(callers), (QByteArrayList{over, at, forever}));
        QCOMPARE(textOf(callers, over, CallersModel::CallerColumn), QStringLiteral("1"));
        QCOMPARE(textOf(callers, over, CallersModel::UsedColumn), QStringLiteral("12"));
        QCOMPARE(textOf(callers, over, CallersModel::LimitColumn), QStringLiteral("10"));
        QCOMPARE(textOf(callers, over, CallersModel::PressureColumn), QStringLiteral("120 %"));
        QCOMPARE(textOf(callers, over, CallersModel::DetailColumn), QStringLiteral("window 29000000"));
        QCOMPARE(textOf(callers, over, CallersModel::FlagsColumn), QStringLiteral("over limit"));
        QCOMPARE(textOf(callers, forever, CallersModel::RemainingColumn), QStringLiteral("no TTL"));
        QCOMPARE(textOf(callers, over, CallersModel::RemainingColumn), format::ttl(kNow + 30000, kNow));
        QCOMPARE(severityOf(callers, over), int(Severity::Bad));
        QCOMPARE(severityOf(callers, at), int(Severity::Warning));
        QCOMPARE(severityOf(callers, forever), int(Severity::Bad));
        QCOMPARE(severityOf(callers, over, CallersModel::PressureSeverityRole), int(Severity::Bad));
        QCOMPARE(severityOf(callers, at, CallersModel::PressureSeverityRole), int(Severity::Warning));
        QCOMPARE(severityOf(callers, forever, CallersModel::PressureSeverityRole), int(Severity::None));
        const QModelIndex first = callers.index(0, 0);
        QCOMPARE(first.data(CallersModel::LimiterRole).toString(), QStringLiteral("rate:user:{n}:{n}"));
        QCOMPARE(first.data(CallersModel::TypeRole).toInt(), int(KeyType::String));
    }

    void rateLimitMergeKeepsSelection()
    {
        const RateLimitAnalysis before = analysis({counter(1, 12, 30000), counter(2, 10, 30000), counter(3, 3, 30000)});
        const RateLimitAnalysis after = analysis({counter(1, 12, 30000), counter(3, 9, 30000), counter(4, 1, 30000)});
        CallersModel callers;
        QCOMPARE(mergeKeepsSelection(callers, before.callers, after.callers, "rate:user:3:29000000",
                                     CallersModel::UsedColumn),
                 QStringLiteral("9"));
        QCOMPARE(keysOf(callers),
                 (QByteArrayList{"rate:user:1:29000000", "rate:user:3:29000000", "rate:user:4:29000000"}));
    }

    // ---- sessions ----

    void sessionsAnalysis()
    {
        QList<SessionRow> rows;
        for (int i = 0; i < 4; ++i)
            rows << session("session:" + QByteArray::number(i), kNow + 600000, sessions::Lifetime::Fixed, 100);
        rows << session("session:big", kNow + 600000, sessions::Lifetime::Sliding, 1000);
        rows << session("session:forever", -1, sessions::Lifetime::NoTtl, 100);
        rows.last().nameIssue = sessions::keyNameIssue("session:alice@example.com");
        QVERIFY(!rows.last().nameIssue.isEmpty());
        SessionIndexRow index;
        index.key = "user:7:sessions";
        index.dangling = {"s-1", "s-2"};
        const SessionsSummary s = sessions::analyze(rows, {index}, kNow);
        QCOMPARE(s.sessions, 6);
        QCOMPARE(s.fixed, 4);
        QCOMPARE(s.sliding, 1);
        QCOMPARE(s.noTtl, 1);
        QCOMPARE(s.outliers, 1);
        QCOMPARE(s.nameIssues, 1);
        QCOMPARE(s.indexes, 1);
        QCOMPARE(s.dangling, 2);
        QCOMPARE(s.nowMs, kNow);
        QCOMPARE(s.buckets[ttlbucket::NoTtl], quint64(1));
        quint64 bucketed = 0;
        for (quint64 n : s.buckets)
            bucketed += n;
        QCOMPARE(bucketed, quint64(6));
        QVERIFY(rows.at(4).outlier);
        QCOMPARE(rows.at(4).sizeFactor, 10.0);
        QVERIFY(!rows.at(0).outlier);
        QCOMPARE(rows.at(4).severity(), Severity::Warning);
        QCOMPARE(rows.at(5).severity(), Severity::Bad);
    }

    void sessionsModelColumnsAndRoles()
    {
        SessionRow noTtl = session("session:forever", -1, sessions::Lifetime::NoTtl, 512);
        SessionRow big = session("session:big", kNow + 600000, sessions::Lifetime::Fixed, 40960);
        big.outlier = true;
        big.sizeFactor = 8.0;
        SessionRow plain = session("session:plain", kNow + 900000, sessions::Lifetime::Sliding, 2048);
        SessionsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setNow(kNow);
        model.setRows({noTtl, big, plain});
        QCOMPARE(model.columnCount(), int(SessionsModel::ColumnCount));
        QCOMPARE(headers(model),
                 (QStringList{QStringLiteral("Session"), QStringLiteral("TTL left"), QStringLiteral("Lifetime"),
                              QStringLiteral("Size"), QStringLiteral("Flags")}));
        QCOMPARE(textOf(model, "session:plain", SessionsModel::KeyColumn), QStringLiteral("session:plain"));
        QCOMPARE(textOf(model, "session:plain", SessionsModel::TtlColumn), format::ttl(kNow + 900000, kNow));
        QCOMPARE(textOf(model, "session:plain", SessionsModel::LifetimeColumn), QStringLiteral("sliding"));
        QCOMPARE(textOf(model, "session:plain", SessionsModel::SizeColumn), format::bytes(2048));
        QCOMPARE(textOf(model, "session:plain", SessionsModel::FlagsColumn), QString());
        QCOMPARE(textOf(model, "session:forever", SessionsModel::LifetimeColumn), QStringLiteral("no TTL"));
        QCOMPARE(textOf(model, "session:forever", SessionsModel::FlagsColumn), QStringLiteral("no TTL: never expires"));
        QVERIFY(textOf(model, "session:big", SessionsModel::FlagsColumn).contains(QLatin1String("median size")));
        QCOMPARE(severityOf(model, "session:forever"), int(Severity::Bad));
        QCOMPARE(severityOf(model, "session:big"), int(Severity::Warning));
        QCOMPARE(severityOf(model, "session:plain"), int(Severity::None));
        const QModelIndex ttl = model.index(model.rowOf("session:forever"), SessionsModel::TtlColumn);
        QCOMPARE(ttl.data(SessionsModel::SortRole).toLongLong(), std::numeric_limits<qint64>::max());
        QCOMPARE(ttl.data(SessionsModel::TypeRole).toInt(), int(KeyType::Hash));
        QCOMPARE(model.index(model.rowOf("session:big"), SessionsModel::SizeColumn).data(SessionsModel::SortRole),
                 QVariant(qint64(40960)));
    }

    void sessionIndexesModel()
    {
        SessionIndexRow index;
        index.key = "user:7:sessions";
        index.family = QStringLiteral("user:{n}:sessions");
        index.cardinality = 3;
        index.pttlMs = -1;
        index.scanned = 3;
        index.complete = true;
        index.sessionPrefix = "session:";
        index.dangling = {"s-1", "s-2"};
        SessionIndexRow clean = index;
        clean.key = "user:8:sessions";
        clean.dangling.clear();
        SessionIndexesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRows({index, clean});
        QCOMPARE(model.columnCount(), int(SessionIndexesModel::ColumnCount));
        QCOMPARE(textOf(model, "user:7:sessions", SessionIndexesModel::SizeColumn), QStringLiteral("3"));
        QCOMPARE(textOf(model, "user:7:sessions", SessionIndexesModel::TtlColumn), QStringLiteral("no TTL"));
        QCOMPARE(textOf(model, "user:7:sessions", SessionIndexesModel::DanglingColumn), QStringLiteral("2"));
        QCOMPARE(textOf(model, "user:7:sessions", SessionIndexesModel::ExamplesColumn), QStringLiteral("s-1, s-2"));
        QCOMPARE(severityOf(model, "user:7:sessions"), int(Severity::Warning));
        QCOMPARE(severityOf(model, "user:8:sessions"), int(Severity::None));
        QCOMPARE(model.index(0, 0).data(SessionIndexesModel::TypeRole).toInt(), int(KeyType::Set));
    }

    void sessionsMergeKeepsSelection()
    {
        const QList<SessionRow> before{session("session:a", kNow + 60000, sessions::Lifetime::Unknown, 100),
                                       session("session:b", kNow + 60000, sessions::Lifetime::Unknown, 100),
                                       session("session:c", kNow + 60000, sessions::Lifetime::Unknown, 100)};
        const QList<SessionRow> after{session("session:a", kNow + 60000, sessions::Lifetime::Fixed, 100),
                                      session("session:c", kNow + 90000, sessions::Lifetime::Sliding, 100),
                                      session("session:d", kNow + 60000, sessions::Lifetime::Unknown, 100)};
        SessionsModel model;
        QCOMPARE(mergeKeepsSelection(model, before, after, "session:c", SessionsModel::LifetimeColumn),
                 QStringLiteral("sliding"));
    }

    void sessionContentsMergeKeepsSelection()
    {
        const sessions::Contents first = sessions::Contents::fromHash(
            "session:x", {{"user_id", "7"}, {"csrf_token", "abc123"}, {"theme", "dark"}}, false);
        const sessions::Contents second = sessions::Contents::fromHash(
            "session:x", {{"user_id", "8"}, {"csrf_token", "abc123"}, {"locale", "de"}}, false);
        SessionContentsModel model;
        QCOMPARE(mergeKeepsSelection(model, first.fields, second.fields, "user_id", SessionContentsModel::ValueColumn),
                 QStringLiteral("8"));
        const QModelIndex csrf = model.index(model.rowOf("csrf_token"), SessionContentsModel::ValueColumn);
        QVERIFY(csrf.data(SessionContentsModel::MaskedRole).toBool());
        QVERIFY(csrf.data().toString() != QLatin1String("abc123"));
        model.setRevealed(true);
        QCOMPARE(csrf.data().toString(), QStringLiteral("abc123"));
    }

    // ---- caches ----

    void cacheNamespaceRows()
    {
        const CacheNamespaceRow product
            = caches::namespaceRow(QStringLiteral("app:product:{n}"),
                                   {cacheKey("app:product:1", kNow + 60000), cacheKey("app:product:2", kNow + 120000),
                                    cacheKey("app:product:3", kNow + 180000), cacheKey("app:product:4", -1)},
                                   kNow);
        QCOMPARE(product.prefix, QByteArray("app:product:"));
        QCOMPARE(product.keys, quint64(4));
        QCOMPARE(product.withTtl, quint64(3));
        QCOMPARE(product.noTtl, quint64(1));
        QCOMPARE(product.minMs, 60000);
        QCOMPARE(product.medianMs, 120000);
        QCOMPARE(product.maxMs, 180000);
        QCOMPARE(product.severity(), Severity::Warning);
        const CacheNamespaceRow user = caches::namespaceRow(
            QStringLiteral("app:user:{n}"),
            {cacheKey("app:user:1", kNow + 60000), cacheKey("app:user:nope", -1, PatternKind::NegativeCache)}, kNow);
        QCOMPARE(user.negatives, quint64(1));
        QCOMPARE(user.negativesNoTtl, quint64(1));
        QCOMPARE(user.severity(), Severity::Bad);

        CacheNamespacesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRows({product, user});
        QCOMPARE(headers(model).first(), QStringLiteral("Namespace"));
        QCOMPARE(textOf(model, "app:product:{n}", 0), QStringLiteral("app:product:{n}"));
        QCOMPARE(textOf(model, "app:product:{n}", 1), QStringLiteral("4"));
        QCOMPARE(textOf(model, "app:product:{n}", 2), QStringLiteral("75.0 %"));
        QCOMPARE(textOf(model, "app:product:{n}", 3), format::duration(60000));
        QCOMPARE(severityOf(model, "app:product:{n}"), int(Severity::Warning));
        QCOMPARE(severityOf(model, "app:user:{n}"), int(Severity::Bad));
        QCOMPARE(model.index(0, 1).data(CacheNamespacesModel::SortRole), QVariant(qint64(4)));
        QCOMPARE(caches::filterFor(QStringLiteral("app:product:{n}")).prefix, QByteArray("app:product:"));
    }

    void cacheKeysGrouped()
    {
        const caches::Grouped g = caches::group(
            {cacheKey("app:b:1", kNow + 60000), cacheKey("seen:e1", kNow + 86'400'000, PatternKind::DedupKey),
             cacheKey("app:a:1", kNow + 60000), cacheKey("app:a:nope", kNow + 20000, PatternKind::NegativeCache),
             cacheKey("seen:e2", -1, PatternKind::DedupKey)},
            {QStringLiteral("app:b:{n}"), QStringLiteral("seen:{id}"), QStringLiteral("app:a:{n}"),
             QStringLiteral("app:a:{n}"), QStringLiteral("seen:{id}")},
            kNow);
        QCOMPARE(g.namespaces.size(), 2);
        QCOMPARE(g.namespaces.at(0).family, QStringLiteral("app:a:{n}")); // sorted by family
        QCOMPARE(g.namespaces.at(0).keys, quint64(2));
        QCOMPARE(g.namespaces.at(0).negatives, quint64(1));
        QCOMPARE(g.namespaces.at(1).family, QStringLiteral("app:b:{n}"));
        QCOMPARE(g.dedupFamilies.size(), 1);
        QCOMPARE(g.dedupFamilies.first().family, QStringLiteral("seen:{id}"));
        QCOMPARE(g.dedupFamilies.first().keys, quint64(2));
        QCOMPARE(g.dedupFamilies.first().noTtl, quint64(1));
        QCOMPARE(g.dedupFamilies.first().minMs, 86'400'000);
    }

    void cacheTagsDedupAndCounters()
    {
        TagRow outliving = tag("tag:category:2", 5, {});
        outliving.outlivingMembers = 2;
        outliving.maxMemberTtlMs = 120000;
        TagsModel tags;
        QAbstractItemModelTester t1(&tags, QAbstractItemModelTester::FailureReportingMode::QtTest);
        tags.setRows(
            {tag("tag:category:1", 13, {"app:product:gone-1"}), outliving, tag("tag:huge", caches::kHugeTag, {})});
        QCOMPARE(textOf(tags, "tag:category:1", 1), QStringLiteral("13"));
        QCOMPARE(textOf(tags, "tag:category:1", 4), QStringLiteral("1"));
        QCOMPARE(textOf(tags, "tag:category:1", 5), QStringLiteral("1 dangling"));
        QCOMPARE(severityOf(tags, "tag:category:1"), int(Severity::Warning));
        QCOMPARE(severityOf(tags, "tag:category:2"), int(Severity::Bad));
        QCOMPARE(severityOf(tags, "tag:huge"), int(Severity::Warning));
        QCOMPARE(textOf(tags, "tag:huge", 5), QStringLiteral("huge tag"));
        QCOMPARE(tags.index(0, 0).data(TagsModel::TypeRole).toInt(), int(KeyType::Set));

        DedupSetRow set;
        set.key = "dedup:events";
        set.family = QStringLiteral("dedup:events");
        set.cardinality = 100;
        set.pttlMs = -1;
        set.growth = 12;
        set.growthSpanMs = 60000;
        set.growthPerMin = 12;
        DedupSetsModel sets;
        QAbstractItemModelTester t2(&sets, QAbstractItemModelTester::FailureReportingMode::QtTest);
        sets.setRows({set});
        QCOMPARE(textOf(sets, "dedup:events", 2), QStringLiteral("+12 in %1").arg(format::duration(60000)));
        QCOMPARE(textOf(sets, "dedup:events", 3), QStringLiteral("no TTL"));
        QCOMPARE(textOf(sets, "dedup:events", 4), QStringLiteral("grows without TTL: unbounded"));
        QCOMPARE(severityOf(sets, "dedup:events"), int(Severity::Bad));

        DedupFamilyRow family;
        family.family = QStringLiteral("seen:{id}");
        family.keys = 30;
        family.noTtl = 2;
        DedupFamiliesModel families;
        QAbstractItemModelTester t3(&families, QAbstractItemModelTester::FailureReportingMode::QtTest);
        families.setRows({family});
        QCOMPARE(textOf(families, "seen:{id}", 1), QStringLiteral("30"));
        QCOMPARE(textOf(families, "seen:{id}", 2), QStringLiteral("2"));
        QCOMPARE(severityOf(families, "seen:{id}"), int(Severity::Bad));

        CounterRow signups;
        signups.key = "counter:signups";
        signups.value = 1234;
        signups.known = true;
        signups.pttlMs = -1;
        CounterRow raw = signups;
        raw.key = "counter:odd";
        raw.known = false;
        raw.raw = "abc";
        CountersModel counters;
        QAbstractItemModelTester t4(&counters, QAbstractItemModelTester::FailureReportingMode::QtTest);
        counters.setRows({signups, raw});
        QCOMPARE(textOf(counters, "counter:signups", 1), QStringLiteral("counter"));
        QCOMPARE(textOf(counters, "counter:signups", 2), QStringLiteral("1234"));
        QCOMPARE(textOf(counters, "counter:odd", 2), QStringLiteral("abc"));
        QCOMPARE(textOf(counters, "counter:signups", 3), QStringLiteral("no TTL"));
        QCOMPARE(severityOf(counters, "counter:signups"), int(Severity::None));
    }

    void cachesMergeKeepsSelection()
    {
        TagRow changed = tag("tag:b", 7, {"gone-1", "gone-2"});
        TagsModel tags;
        QCOMPARE(mergeKeepsSelection(tags, QList<TagRow>{tag("tag:a", 3, {}), tag("tag:b", 5, {}), tag("tag:c", 2, {})},
                                     QList<TagRow>{tag("tag:a", 3, {}), changed, tag("tag:d", 9, {})}, "tag:b", 1),
                 QStringLiteral("7"));
    }
};

QTEST_GUILESS_MAIN(TestPatternModels)
#include "tst_patternmodels.moc"
