// SPDX-License-Identifier: GPL-3.0-or-later
#include "backgroundrelease.h"
#include "keytreemodel.h"
#include "redisclient.h"
#include "scanfeed.h"

#include <QAbstractItemModelTester>
#include <QSet>
#include <QSignalSpy>
#include <QTest>

#include <mutex>
#include <thread>

namespace {

ScannedKey key(const QByteArray &name, KeyType type = KeyType::String, qint64 pttl = -1, qint64 memory = -1)
{
    ScannedKey k;
    k.name = name;
    k.type = type;
    k.pttlMs = pttl;
    k.memoryBytes = memory;
    return k;
}

ScanBatch batch(const QList<ScannedKey> &keys)
{
    ScanBatch b;
    b.keys = keys;
    b.capturedAtMs = 1'000'000;
    return b;
}

// Every key reachable through the model (expanding "load more" rows as needed).
void collectKeys(KeyTreeModel &model, const QModelIndex &parent, QList<QByteArray> *out)
{
    for (int row = 0; row < model.rowCount(parent); ++row) {
        const QModelIndex idx = model.index(row, 0, parent);
        switch (model.kindOf(idx)) {
        case KeyTreeModel::NodeKind::Key: out->append(model.keyAt(idx)); break;
        case KeyTreeModel::NodeKind::Folder: collectKeys(model, idx, out); break;
        case KeyTreeModel::NodeKind::LoadMore:
            model.loadMore(idx);
            // The load-more row moved down (or vanished): look at this row again.
            --row;
            break;
        }
    }
}

} // namespace

class TestKeyTreeModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void namespaces_data();
    void namespaces();
    void duplicatesKeptOnce();
    void loadMoreBoundsChildren();
    void binaryNames();
    void countsAndMemoryRollUp();
    void memoryOnlyWhereRead();
    void removeKey();
    void emptiedFoldersGo();
    void applyBatchNow();
    void updateExistingKey();
    void separatorChangeRebuilds();
    void slicedApplication();
    void appliedBatchesAreReleasedElsewhere();
    void deepNamesAreBounded();
    void manyKeysGrowInPlace();
    void unknownTtlIsNotNoTtl();
    void renameMovesTheEntry();
    void typeHints();
    void keysOfType();
    void patternColumnReadsTheIndex();
};

void TestKeyTreeModel::namespaces_data()
{
    QTest::addColumn<QList<QByteArray>>("names");
    QTest::addColumn<QByteArray>("separator");
    QTest::addColumn<int>("topRows");
    QTest::newRow("flat") << QList<QByteArray>{"a", "b", "c"} << QByteArray(":") << 3;
    QTest::newRow("one folder") << QList<QByteArray>{"app:1", "app:2", "app:3"} << QByteArray(":") << 1;
    QTest::newRow("mixed") << QList<QByteArray>{"app:user:1", "app:user:2", "app:cfg", "solo", "q:email"}
                           << QByteArray(":") << 3;
    QTest::newRow("other separator") << QList<QByteArray>{"a/b/c", "a/b/d", "a:b"} << QByteArray("/") << 2;
    QTest::newRow("no separator") << QList<QByteArray>{"a:b", "a:c"} << QByteArray() << 2;
    QTest::newRow("empty segments") << QList<QByteArray>{":x", "a::b", "trailing:"} << QByteArray(":") << 3;
}

void TestKeyTreeModel::namespaces()
{
    QFETCH(QList<QByteArray>, names);
    QFETCH(QByteArray, separator);
    QFETCH(int, topRows);
    KeyTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setSeparator(separator);
    QList<ScannedKey> keys;
    for (const QByteArray &n : names)
        keys.append(key(n));
    model.appendBatch(batch(keys));
    model.applyAllPending();
    QCOMPARE(model.rowCount(), topRows);
    QCOMPARE(model.keyCount(), quint64(names.size()));
    QList<QByteArray> seen;
    collectKeys(model, {}, &seen);
    QCOMPARE(QSet<QByteArray>(seen.begin(), seen.end()), QSet<QByteArray>(names.begin(), names.end()));
}

void TestKeyTreeModel::duplicatesKeptOnce()
{
    KeyTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.appendBatch(batch({key("a:1"), key("a:2"), key("a:1")}));
    model.appendBatch(batch({key("a:2"), key("a:3")}));
    model.applyAllPending();
    QCOMPARE(model.keyCount(), quint64(3));
    const QModelIndex a = model.index(0, 0);
    QCOMPARE(model.rowCount(a), 3);
    QCOMPARE(model.data(model.index(0, KeyTreeModel::KeysColumn)).toString(), QStringLiteral("3"));
}

void TestKeyTreeModel::loadMoreBoundsChildren()
{
    KeyTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setChildLimit(10);
    QList<ScannedKey> keys;
    for (int i = 0; i < 35; ++i)
        keys.append(key("big:" + QByteArray::number(i)));
    model.appendBatch(batch(keys));
    model.applyAllPending();
    const QModelIndex big = model.index(0, 0);
    QCOMPARE(model.rowCount(big), 11); // ten keys and the load-more row
    const QModelIndex more = model.index(10, 0, big);
    QCOMPARE(model.kindOf(more), KeyTreeModel::NodeKind::LoadMore);
    QVERIFY(model.data(more).toString().contains(QLatin1String("25")));
    model.loadMore(more);
    QCOMPARE(model.rowCount(big), 21);
    // More keys arriving while the folder is full only change the load-more row.
    model.appendBatch(batch({key("big:x"), key("big:y")}));
    model.applyAllPending();
    QCOMPARE(model.rowCount(big), 21);
    QList<QByteArray> all;
    collectKeys(model, {}, &all);
    QCOMPARE(all.size(), 37);
    QCOMPARE(model.rowCount(big), 37);
}

void TestKeyTreeModel::binaryNames()
{
    KeyTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    const QByteArray nul("bin:a\0b", 7);
    const QByteArray invalid("bin:\xff\xfe\n");
    const QByteArray empty("");
    const QByteArray huge = "long:" + QByteArray(64 * 1024, 'x');
    model.appendBatch(batch({key(nul), key(invalid), key(empty), key(huge)}));
    model.applyAllPending();
    QCOMPARE(model.keyCount(), quint64(4));
    QList<QByteArray> all;
    collectKeys(model, {}, &all);
    QVERIFY(all.contains(nul));
    QVERIFY(all.contains(invalid));
    QVERIFY(all.contains(empty));
    QVERIFY(all.contains(huge));
    const QModelIndex nulIndex = model.indexForKey(nul);
    QVERIFY(nulIndex.isValid());
    QCOMPARE(model.data(nulIndex).toString(), QStringLiteral("\"bin:a\\x00b\""));
    QCOMPARE(model.data(nulIndex, KeyTreeModel::KeyBytesRole).toByteArray(), nul);
    QCOMPARE(model.data(model.indexForKey(invalid)).toString(), QStringLiteral("\"bin:\\xff\\xfe\\n\""));
    QCOMPARE(model.data(model.indexForKey(empty)).toString(), QStringLiteral("\"\""));
    // The display of a 64 KB name is bounded; the bytes are exact.
    QVERIFY(model.data(model.indexForKey(huge)).toString().size() <= 1100);
    QCOMPARE(model.data(model.indexForKey(huge), KeyTreeModel::KeyBytesRole).toByteArray(), huge);
}

void TestKeyTreeModel::countsAndMemoryRollUp()
{
    KeyTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.appendBatch(batch({key("a:b:1", KeyType::String, -1, 100), key("a:b:2", KeyType::Hash, 5000, 50),
                             key("a:c", KeyType::List, -1, 7)}));
    model.applyAllPending();
    const QModelIndex a = model.index(0, 0);
    QCOMPARE(model.data(a, KeyTreeModel::KeyCountRole).toULongLong(), quint64(3));
    QCOMPARE(model.data(a, KeyTreeModel::MemoryRole).toLongLong(), qint64(157));
    QCOMPARE(model.totalMemory(), qint64(157));
    const QModelIndex b = model.indexForPrefix("a:b:");
    QVERIFY(b.isValid());
    QCOMPARE(model.data(b, KeyTreeModel::KeyCountRole).toULongLong(), quint64(2));
    const QModelIndex hash = model.indexForKey("a:b:2");
    QCOMPARE(model.data(hash.siblingAtColumn(KeyTreeModel::TypeColumn)).toString(), QStringLiteral("hash"));
    QCOMPARE(model.data(hash, KeyTreeModel::ExpireAtRole).toLongLong(), qint64(1'005'000));
    QCOMPARE(model.data(model.indexForKey("a:c"), KeyTreeModel::ExpireAtRole).toLongLong(), qint64(-1));
}

// Memory readings are kept beside the keys, as far as the last key read: keys without one
// say unknown, a key freed and its entry reused does not inherit the old figure, and a
// rename carries it.
void TestKeyTreeModel::memoryOnlyWhereRead()
{
    KeyTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.appendBatch(batch({key("m:1"), key("m:2"), key("m:3", KeyType::Hash, -1, 300)}));
    model.applyAllPending();
    QCOMPARE(model.data(model.indexForKey("m:1"), KeyTreeModel::MemoryRole).toLongLong(), qint64(-1));
    QCOMPARE(model.data(model.indexForKey("m:3"), KeyTreeModel::MemoryRole).toLongLong(), qint64(300));
    QCOMPARE(model.totalMemory(), qint64(300));
    // A later reading of a key that had none.
    model.appendBatch(batch({key("m:1", KeyType::String, -1, 40)}));
    model.applyAllPending();
    QCOMPARE(model.data(model.indexForKey("m:1"), KeyTreeModel::MemoryRole).toLongLong(), qint64(40));
    QCOMPARE(model.totalMemory(), qint64(340));
    model.removeKey("m:3");
    QCOMPARE(model.totalMemory(), qint64(40));
    model.appendBatch(batch({key("m:4")})); // takes m:3's free entry
    model.applyAllPending();
    QCOMPARE(model.data(model.indexForKey("m:4"), KeyTreeModel::MemoryRole).toLongLong(), qint64(-1));
    QCOMPARE(model.data(model.indexForKey("m:4").siblingAtColumn(KeyTreeModel::MemoryColumn)).toString(), QString());
    QVERIFY(model.renameKey("m:1", "n:1"));
    QCOMPARE(model.data(model.indexForKey("n:1"), KeyTreeModel::MemoryRole).toLongLong(), qint64(40));
    QCOMPARE(model.totalMemory(), qint64(40));
    model.appendBatch(batch({key("m:5")}));
    model.applyAllPending();
    QCOMPARE(model.data(model.indexForKey("m:5"), KeyTreeModel::MemoryRole).toLongLong(), qint64(-1));
}

void TestKeyTreeModel::removeKey()
{
    KeyTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setChildLimit(2);
    model.appendBatch(batch({key("f:1", KeyType::String, -1, 10), key("f:2"), key("f:3"), key("top")}));
    model.applyAllPending();
    const QModelIndex f = model.indexForPrefix("f:");
    QCOMPARE(model.rowCount(f), 3);
    model.removeKey("f:1");
    QCOMPARE(model.keyCount(), quint64(3));
    QVERIFY(!model.contains("f:1"));
    QCOMPARE(model.data(model.indexForPrefix("f:"), KeyTreeModel::KeyCountRole).toULongLong(), quint64(2));
    QCOMPARE(model.totalMemory(), qint64(0));
    model.removeKey("nope");
    model.removeKey("top");
    QCOMPARE(model.keyCount(), quint64(2));
    QList<QByteArray> all;
    collectKeys(model, {}, &all);
    QCOMPARE(QSet<QByteArray>(all.begin(), all.end()), (QSet<QByteArray>{"f:2", "f:3"}));
}

// A key deleted or expired on the server takes its folder with it when it was the last one,
// and the parents that held only that folder; a hidden sibling takes the freed place.
void TestKeyTreeModel::emptiedFoldersGo()
{
    KeyTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.appendBatch(batch({key("a:b:1"), key("a:b:2"), key("a:c"), key("z")}));
    model.applyAllPending();
    QCOMPARE(model.folderCount(), quint64(2));
    model.removeKey("a:b:1");
    QVERIFY(model.indexForPrefix("a:b:").isValid());
    model.removeKey("a:b:2");
    QVERIFY(!model.indexForPrefix("a:b:").isValid());
    QCOMPARE(model.data(model.indexForPrefix("a:"), KeyTreeModel::KeyCountRole).toULongLong(), quint64(1));
    QCOMPARE(model.folderCount(), quint64(1));
    model.removeKey("a:c");
    QVERIFY(!model.indexForPrefix("a:").isValid());
    QCOMPARE(model.rowCount(), 1); // "z"
    QCOMPARE(model.folderCount(), quint64(0));
    // The same prefix again: a new folder.
    model.upsertKey(key("a:b:3"), 0);
    QVERIFY(model.indexForPrefix("a:b:").isValid());
    QCOMPARE(model.keyAt(model.index(0, 0, model.indexForPrefix("a:b:"))), QByteArray("a:b:3"));

    KeyTreeModel limited;
    QAbstractItemModelTester limitedTester(&limited, QAbstractItemModelTester::FailureReportingMode::Fatal);
    limited.setChildLimit(2);
    limited.appendBatch(batch({key("n:p1:x"), key("n:p2:x"), key("n:p3:x")}));
    limited.applyAllPending();
    const QModelIndex n = limited.indexForPrefix("n:");
    QCOMPARE(limited.rowCount(n), 3); // p1:, p2: and "load more"
    QVERIFY(!limited.indexForPrefix("n:p3:").isValid());
    limited.removeKey("n:p1:x");
    QCOMPARE(limited.rowCount(n), 2); // p2: and p3:, no "load more"
    QVERIFY(limited.indexForPrefix("n:p3:").isValid());
    QCOMPARE(limited.kindOf(limited.index(1, 0, n)), KeyTreeModel::NodeKind::Folder);
    // A hidden folder emptied: nothing shown changes but the count behind "load more".
    limited.appendBatch(batch({key("n:p4:x"), key("n:p5:x")}));
    limited.applyAllPending();
    QVERIFY(!limited.indexForPrefix("n:p5:").isValid());
    QCOMPARE(limited.rowCount(n), 3);
    limited.removeKey("n:p5:x");
    limited.removeKey("n:p4:x");
    QCOMPARE(limited.rowCount(n), 2);
    QCOMPARE(limited.keyCount(), quint64(2));
}

// A follower's small batch is applied at once, before queued scan batches, and a removal right
// after finds the key.
void TestKeyTreeModel::applyBatchNow()
{
    KeyTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.appendBatch(batch({key("queued:1")}));
    QSignalSpy applied(&model, &KeyTreeModel::keysApplied);
    model.applyBatch(batch({key("now:1", KeyType::Hash, 5000), key("now:2")}));
    QCOMPARE(applied.size(), 1);
    QVERIFY(model.contains("now:1"));
    QVERIFY(!model.contains("queued:1"));
    QVERIFY(model.hasPendingWork());
    QCOMPARE(model.data(model.indexForKey("now:1"), KeyTreeModel::ExpireAtRole).toLongLong(), qint64(1'005'000));
    // Changed on the server: the type and TTL are read again.
    model.applyBatch(batch({key("now:1", KeyType::String, -1)}));
    QCOMPARE(model.data(model.indexForKey("now:1"), KeyTreeModel::KeyTypeRole).toInt(), int(KeyType::String));
    QCOMPARE(model.data(model.indexForKey("now:1"), KeyTreeModel::ExpireAtRole).toLongLong(), qint64(-1));
    model.removeKey("now:2");
    QVERIFY(!model.contains("now:2"));
    model.applyAllPending();
    QCOMPARE(model.keyCount(), quint64(2));
}

void TestKeyTreeModel::updateExistingKey()
{
    KeyTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.appendBatch(batch({key("k", KeyType::String, 1000)}));
    model.applyAllPending();
    model.upsertKey(key("k", KeyType::Hash, -1, 64), 2'000'000);
    const QModelIndex k = model.indexForKey("k");
    QCOMPARE(model.data(k, KeyTreeModel::KeyTypeRole).toInt(), int(KeyType::Hash));
    QCOMPARE(model.data(k, KeyTreeModel::ExpireAtRole).toLongLong(), qint64(-1));
    QCOMPARE(model.totalMemory(), qint64(64));
    // A names-only rescan does not erase what is known.
    ScannedKey namesOnly;
    namesOnly.name = "k";
    model.upsertKey(namesOnly, 3'000'000);
    QCOMPARE(model.data(k, KeyTreeModel::KeyTypeRole).toInt(), int(KeyType::Hash));
    QCOMPARE(model.keyCount(), quint64(1));
}

void TestKeyTreeModel::separatorChangeRebuilds()
{
    KeyTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.appendBatch(batch({key("a:b/c"), key("a:b/d"), key("x/y")}));
    model.applyAllPending();
    QCOMPARE(model.rowCount(), 2); // a:, x/y
    model.setSeparator("/");
    QCOMPARE(model.rowCount(), 2); // a:b/, x/
    QCOMPARE(model.keyCount(), quint64(3));
    QVERIFY(model.indexForPrefix("a:b/").isValid());
    QVERIFY(model.indexForKey("x/y").isValid());
}

void TestKeyTreeModel::slicedApplication()
{
    KeyTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    // Every 32 keys the event loop gets a turn; the model tester checks the tree after each
    // slice, which under ASan made 5,000 keys (156 slices) take over a minute.
    model.setSliceBudgetMs(0);
    QList<ScannedKey> keys;
    for (int i = 0; i < 1000; ++i)
        keys.append(key("ns" + QByteArray::number(i % 7) + ":" + QByteArray::number(i)));
    model.appendBatch(batch(keys));
    QVERIFY(model.hasPendingWork());
    QSignalSpy drained(&model, &KeyTreeModel::pendingDrained);
    QSignalSpy applied(&model, &KeyTreeModel::keysApplied);
    // A ceiling, not a duration: sanitizer builds with the model tester attached are slow.
    QVERIFY(drained.wait(60000));
    QVERIFY(applied.count() > 5); // it really was cut into slices
    QCOMPARE(model.keyCount(), quint64(1000));
    QCOMPARE(model.rowCount(), 7);
}

void TestKeyTreeModel::appliedBatchesAreReleasedElsewhere()
{
    // The release thread destroys what it is given in order, off the calling thread.
    struct Witness
    {
        std::shared_ptr<std::mutex> lock;
        std::shared_ptr<std::vector<std::pair<int, std::thread::id>>> log;
        int id = 0;
        Witness(std::shared_ptr<std::mutex> l, std::shared_ptr<std::vector<std::pair<int, std::thread::id>>> g, int i)
            : lock(std::move(l)), log(std::move(g)), id(i)
        { }
        Witness(const Witness &) = default;
        Witness(Witness &&other) noexcept : lock(std::move(other.lock)), log(std::move(other.log)), id(other.id) { }
        ~Witness()
        {
            if (log) { // a moved-from witness has nothing to report
                const std::lock_guard guard(*lock);
                log->emplace_back(id, std::this_thread::get_id());
            }
        }
    };
    auto lock = std::make_shared<std::mutex>();
    auto log = std::make_shared<std::vector<std::pair<int, std::thread::id>>>();
    for (int i = 1; i <= 3; ++i)
        BackgroundRelease::release(Witness(lock, log, i));
    BackgroundRelease::drain();
    {
        const std::lock_guard guard(*lock);
        QCOMPARE(int(log->size()), 3);
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(log->at(size_t(i)).first, i + 1);
            QVERIFY(log->at(size_t(i)).second != std::this_thread::get_id());
        }
    }

    // The tree lets an applied batch go: the only reference to a name left is the test's own,
    // and the tree still answers with its own copy.
    KeyTreeModel model;
    QByteArray name = QByteArray("held:") + QByteArray::number(1); // on the heap: a literal is never detached
    {
        ScanBatch b = batch({key(name)});
        model.appendBatch(b);
    }
    QVERIFY(!name.isDetached()); // the queued batch shares it
    model.applyAllPending();
    BackgroundRelease::drain();
    QVERIFY(name.isDetached());
    QVERIFY(model.contains(QByteArrayLiteral("held:1")));
    QCOMPARE(model.keyCount(), quint64(1));
}

void TestKeyTreeModel::deepNamesAreBounded()
{
    KeyTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setMaxDepth(4);
    QByteArray deep;
    for (int i = 0; i < 1000; ++i)
        deep += "s:";
    model.appendBatch(batch({key(deep)}));
    model.applyAllPending();
    QCOMPARE(model.folderCount(), quint64(4));
    QList<QByteArray> all;
    collectKeys(model, {}, &all);
    QCOMPARE(all, QList<QByteArray>{deep});
}

// A folder of 150,000 keys spans three segments of the folder's key list, and the names lie in
// several arena chunks (one of their own for names over 64 KiB). Removing keys shifts rows
// across segment boundaries; every key keeps its exact bytes through growth, removal, reuse
// of a removed key's entry, renaming and a separator change.
void TestKeyTreeModel::manyKeysGrowInPlace()
{
    KeyTreeModel model;
    model.setChildLimit(200000);
    auto nameOf = [](int i) {
        QByteArray name = "big:" + QByteArray::number(i);
        if (i % 1000 == 7)
            name += QByteArray(3, '\0') + QByteArray(i % 5000, char(0xff));
        return name;
    };
    const QByteArray huge = "big:huge" + QByteArray(100 * 1024, 'h');
    constexpr int kKeys = 150000;
    ScanBatch all;
    for (int i = 0; i < kKeys; ++i)
        all.keys.append(key(nameOf(i), KeyType::Hash, -1, i));
    all.keys.append(key(huge, KeyType::String));
    all.keys.append(key(QByteArray(""), KeyType::Set));
    model.appendBatch(all);
    model.applyAllPending();
    QCOMPARE(model.keyCount(), quint64(kKeys + 2));
    QVERIFY(model.contains(huge));
    QVERIFY(model.contains(QByteArray("")));
    QVERIFY(!model.contains("big:" + QByteArray::number(kKeys)));
    QVERIFY(!model.contains(nameOf(7).left(nameOf(7).size() - 1))); // a prefix of a held name

    // Remove every fiftieth key of the first 100,000: rows after each shift down.
    for (int i = 0; i < 100000; i += 50)
        model.removeKey(nameOf(i));
    const quint64 left = quint64(kKeys + 2 - 2000);
    QCOMPARE(model.keyCount(), left);
    QVERIFY(!model.contains(nameOf(0)));
    QVERIFY(!model.indexForKey(nameOf(99950)).isValid());
    const QModelIndex folder = model.indexForPrefix("big:");
    QVERIFY(folder.isValid());
    QCOMPARE(model.data(folder, KeyTreeModel::KeyCountRole).toULongLong(), left - 1); // "" is at the root
    for (int i : {1, 2, 49, 51, 70007, 99999, 100000, 149999}) {
        const QModelIndex row = model.indexForKey(nameOf(i));
        QVERIFY2(row.isValid(), qPrintable(QString::number(i)));
        QCOMPARE(model.keyAt(row), nameOf(i));
        QCOMPARE(model.data(row, KeyTreeModel::MemoryRole).toLongLong(), qint64(i));
    }
    // Rows are contiguous after the removals: the key at each row is the one that says so.
    for (int row = 0; row < model.rowCount(folder); row += 997) {
        const QByteArray name = model.keyAt(model.index(row, 0, folder));
        if (name.isNull())
            continue; // a folder row
        QCOMPARE(model.indexForKey(name).row(), row);
    }

    // Freed entries are reused; the names they held are not seen again.
    model.upsertKey(key("big:new", KeyType::List), 0);
    QVERIFY(model.contains("big:new"));
    QVERIFY(model.renameKey(nameOf(7), "moved:" + nameOf(7)));
    QVERIFY(!model.contains(nameOf(7)));
    QVERIFY(model.contains("moved:" + nameOf(7)));
    QCOMPARE(model.keyAt(model.indexForKey("moved:" + nameOf(7))), "moved:" + nameOf(7));
    QCOMPARE(model.keysOfType(KeyType::List), QList<QByteArray>{"big:new"});
    QCOMPARE(model.keysOfType(KeyType::String), QList<QByteArray>{huge});

    // A separator change rebuilds the folders from the names held.
    model.setSeparator("#");
    QCOMPARE(model.keyCount(), left + 1);
    QVERIFY(model.contains(huge));
    QVERIFY(model.contains("moved:" + nameOf(7)));
    QCOMPARE(model.keyAt(model.indexForKey(nameOf(149999))), nameOf(149999));
    QCOMPARE(model.matching(KeyFilter(), 0).keys.size(), qsizetype(left + 1));
}

void TestKeyTreeModel::unknownTtlIsNotNoTtl()
{
    KeyTreeModel model;
    model.appendBatch(batch(
        {key("a", KeyType::String, ttl::kUnknown), key("b", KeyType::String, -1), key("c", KeyType::String, 5000)}));
    model.applyAllPending();
    const auto ttlText = [&](const QByteArray &k) {
        return model.data(model.indexForKey(k).siblingAtColumn(KeyTreeModel::TtlColumn)).toString();
    };
    QCOMPARE(model.data(model.indexForKey("a"), KeyTreeModel::ExpireAtRole).toLongLong(), ttl::kUnknown);
    QCOMPARE(ttlText("a"), QString());
    QCOMPARE(ttlText("b"), QStringLiteral("no TTL"));
    QCOMPARE(model.data(model.indexForKey("c"), KeyTreeModel::ExpireAtRole).toLongLong(), qint64(1'005'000));
}

void TestKeyTreeModel::renameMovesTheEntry()
{
    KeyTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.appendBatch(batch({key("old:1", KeyType::Hash, 5000, 300), key("old:2")}));
    model.applyAllPending();
    const QByteArray to("new:\x00x", 6);
    QVERIFY(model.renameKey("old:1", to));
    QVERIFY(!model.contains("old:1"));
    const QModelIndex moved = model.indexForKey(to);
    QVERIFY(moved.isValid());
    QCOMPARE(model.data(moved, KeyTreeModel::KeyTypeRole).toInt(), int(KeyType::Hash));
    QCOMPARE(model.data(moved, KeyTreeModel::ExpireAtRole).toLongLong(), qint64(1'005'000));
    QCOMPARE(model.data(moved, KeyTreeModel::MemoryRole).toLongLong(), qint64(300));
    QCOMPARE(model.totalMemory(), qint64(300));
    QCOMPARE(model.data(model.indexForPrefix("new:"), KeyTreeModel::KeyCountRole).toULongLong(), quint64(1));
    QCOMPARE(model.data(model.indexForPrefix("old:"), KeyTreeModel::KeyCountRole).toULongLong(), quint64(1));
    QVERIFY(!model.renameKey("absent", "x"));
    QCOMPARE(model.keyCount(), quint64(2));
}

void TestKeyTreeModel::typeHints()
{
    KeyTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.appendBatch(batch({key("geo:cities", KeyType::ZSet), key("lb:daily", KeyType::ZSet)}));
    model.applyAllPending();
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QVERIFY(model.setTypeHint("geo:cities", KeyTreeModel::TypeHint::Geo));
    QVERIFY(!model.setTypeHint("missing", KeyTreeModel::TypeHint::Geo));
    const auto typeText = [&](const QByteArray &k) {
        return model.data(model.indexForKey(k).siblingAtColumn(KeyTreeModel::TypeColumn)).toString();
    };
    QCOMPARE(typeText("geo:cities"), QStringLiteral("geo"));
    QCOMPARE(typeText("lb:daily"), QStringLiteral("zset"));
    QCOMPARE(changed.size(), 1);
    // Still a sorted set underneath.
    QCOMPARE(model.data(model.indexForKey("geo:cities"), KeyTreeModel::KeyTypeRole).toInt(), int(KeyType::ZSet));
    // A rename keeps what the key is; a rescan that finds the same type keeps it too.
    QVERIFY(model.renameKey("geo:cities", "geo:places"));
    QCOMPARE(model.typeHint("geo:places"), KeyTreeModel::TypeHint::Geo);
    model.upsertKey(key("geo:places", KeyType::ZSet), 2'000'000);
    QCOMPARE(typeText("geo:places"), QStringLiteral("geo"));
    // Replaced by a key of another type: the hint goes.
    model.upsertKey(key("geo:places", KeyType::String), 3'000'000);
    QCOMPARE(model.typeHint("geo:places"), KeyTreeModel::TypeHint::None);
    QCOMPARE(typeText("geo:places"), QStringLiteral("string"));
}

void TestKeyTreeModel::keysOfType()
{
    KeyTreeModel model;
    model.appendBatch(
        batch({key("a", KeyType::ZSet), key("b", KeyType::String), key("c", KeyType::ZSet), key("d", KeyType::ZSet)}));
    model.applyAllPending();
    model.removeKey("c");
    QList<QByteArray> zsets = model.keysOfType(KeyType::ZSet);
    std::sort(zsets.begin(), zsets.end());
    QCOMPARE(zsets, (QList<QByteArray>{"a", "d"}));
    QCOMPARE(model.keysOfType(KeyType::ZSet, 1).size(), 1);
    QVERIFY(model.keysOfType(KeyType::Stream).isEmpty());
}

void TestKeyTreeModel::patternColumnReadsTheIndex()
{
    KeyTreeModel model;
    QAbstractItemModelTester tester(&model);
    QHash<QByteArray, PatternMatch> verdicts;
    model.setPatternLookup([&verdicts](const QByteArray &k) -> std::optional<PatternMatch> {
        const auto it = verdicts.constFind(k);
        return it == verdicts.constEnd() ? std::nullopt : std::optional<PatternMatch>(it.value());
    });
    model.appendBatch(batch({key("lock:a"), key("lock:b"), key("plain")}));
    model.applyAllPending();
    const auto cell = [&](const QByteArray &k, int role) {
        return model.data(model.indexForKey(k).siblingAtColumn(KeyTreeModel::PatternColumn), role);
    };
    QCOMPARE(cell("lock:a", Qt::DisplayRole).toString(), QString());
    QCOMPARE(cell("lock:a", Qt::ToolTipRole).toString(), QStringLiteral("Not classified yet"));

    PatternMatch m;
    m.key = "lock:a";
    m.kind = PatternKind::Lock;
    m.confidence = 90;
    m.reason = QStringLiteral("token value, lock segment");
    verdicts.insert(m.key, m);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.patternsChanged({m});
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.at(0).at(0).value<QModelIndex>().column(), int(KeyTreeModel::PatternColumn));
    QCOMPARE(cell("lock:a", Qt::DisplayRole).toString(), patternKindName(PatternKind::Lock));
    QVERIFY(cell("lock:a", Qt::ToolTipRole).toString().contains(m.reason));
    QCOMPARE(cell("lock:a", KeyTreeModel::PatternRole).toInt(), int(PatternKind::Lock));
    QCOMPARE(cell("lock:b", KeyTreeModel::PatternRole).toInt(), int(PatternKind::Unknown));
    // A verdict for a key the tree does not hold changes nothing.
    m.key = "elsewhere";
    model.patternsChanged({m});
    QCOMPARE(changed.size(), 1);
}

QTEST_GUILESS_MAIN(TestKeyTreeModel)
#include "tst_keytreemodel.moc"
