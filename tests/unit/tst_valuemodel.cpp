// SPDX-License-Identifier: GPL-3.0-or-later
#include "masking.h"
#include "valuemodel.h"
#include "valuereader.h"

#include <QAbstractItemModelTester>
#include <QCborMap>
#include <QCborValue>
#include <QSignalSpy>
#include <QTest>

namespace {

using Mode = ValueModel::Mode;

ValueEntry hashEntry(const QByteArray &field, const QByteArray &value)
{
    ValueEntry e;
    e.name = field;
    e.value = value;
    return e;
}

ValueEntry listEntry(qint64 index, const QByteArray &value)
{
    ValueEntry e;
    e.value = value;
    e.position = index;
    return e;
}

ValueEntry setEntry(const QByteArray &member)
{
    ValueEntry e;
    e.name = member;
    return e;
}

ValueEntry zsetEntry(qint64 rank, const QByteArray &member, const QByteArray &score)
{
    ValueEntry e;
    e.name = member;
    e.value = score;
    e.position = rank;
    return e;
}

ValueEntry streamEntry(const QByteArray &id, const QList<QByteArray> &fields)
{
    ValueEntry e;
    e.name = id;
    e.fields = fields;
    return e;
}

ValuePage pageOf(const QList<ValueEntry> &entries, bool more = false, qint64 total = -1)
{
    ValuePage p;
    p.entries = entries;
    p.hasMore = more;
    p.total = total;
    return p;
}

} // namespace

class TestValueModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void columns_data();
    void columns();
    void cells_data();
    void cells();
    void appendPages();
    void loadMoreRow();
    void binaryEscaped_data();
    void binaryEscaped();
    void longValueElided();
    void modeChangeResets();
    void encodedSecretsMasked();
    void streamFieldsText();
    void previousStreamId_data();
    void previousStreamId();
};

void TestValueModel::columns_data()
{
    QTest::addColumn<Mode>("mode");
    QTest::addColumn<QStringList>("headers");
    QTest::newRow("none") << Mode::None << QStringList();
    QTest::newRow("hash") << Mode::Hash << QStringList{QStringLiteral("Field"), QStringLiteral("Value")};
    QTest::newRow("list") << Mode::List << QStringList{QStringLiteral("Index"), QStringLiteral("Value")};
    QTest::newRow("set") << Mode::Set << QStringList{QStringLiteral("Member")};
    QTest::newRow("zset") << Mode::ZSet
                          << QStringList{QStringLiteral("Rank"), QStringLiteral("Member"), QStringLiteral("Score")};
    QTest::newRow("stream") << Mode::Stream << QStringList{QStringLiteral("ID"), QStringLiteral("Fields")};
}

void TestValueModel::columns()
{
    QFETCH(Mode, mode);
    QFETCH(QStringList, headers);
    ValueModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setMode(mode);
    QCOMPARE(model.mode(), mode);
    QCOMPARE(model.columnCount(), headers.size());
    QCOMPARE(model.rowCount(), 0);
    for (int c = 0; c < headers.size(); ++c)
        QCOMPARE(model.headerData(c, Qt::Horizontal).toString(), headers.at(c));
}

void TestValueModel::cells_data()
{
    QTest::addColumn<Mode>("mode");
    QTest::addColumn<ValueEntry>("entry");
    QTest::addColumn<QStringList>("display");
    QTest::addColumn<QList<QByteArray>>("raw");

    QTest::newRow("hash") << Mode::Hash << hashEntry("name", "Ada Lovelace")
                          << QStringList{QStringLiteral("name"), QStringLiteral("Ada Lovelace")}
                          << QList<QByteArray>{"name", "Ada Lovelace"};
    QTest::newRow("hash empty value") << Mode::Hash << hashEntry("empty", "")
                                      << QStringList{QStringLiteral("empty"), QString()}
                                      << QList<QByteArray>{"empty", ""};
    QTest::newRow("list") << Mode::List << listEntry(41, "job:17")
                          << QStringList{QStringLiteral("41"), QStringLiteral("job:17")}
                          << QList<QByteArray>{"41", "job:17"};
    QTest::newRow("set") << Mode::Set << setEntry("member") << QStringList{QStringLiteral("member")}
                         << QList<QByteArray>{"member"};
    QTest::newRow("set utf8") << Mode::Set << setEntry("gr\xc3\xbc\xc3\x9f") << QStringList{QStringLiteral("grüß")}
                              << QList<QByteArray>{"gr\xc3\xbc\xc3\x9f"};
    QTest::newRow("zset") << Mode::ZSet << zsetEntry(0, "alice", "1.5")
                          << QStringList{QStringLiteral("0"), QStringLiteral("alice"), QStringLiteral("1.5")}
                          << QList<QByteArray>{"0", "alice", "1.5"};
    QTest::newRow("zset inf") << Mode::ZSet << zsetEntry(3, "bob", "-inf")
                              << QStringList{QStringLiteral("3"), QStringLiteral("bob"), QStringLiteral("-inf")}
                              << QList<QByteArray>{"3", "bob", "-inf"};
    QTest::newRow("stream") << Mode::Stream << streamEntry("1700000000000-0", {"event", "login", "user", "7"})
                            << QStringList{QStringLiteral("1700000000000-0"), QStringLiteral("event=login user=7")}
                            << QList<QByteArray>{"1700000000000-0", QByteArray()};
}

void TestValueModel::cells()
{
    QFETCH(Mode, mode);
    QFETCH(ValueEntry, entry);
    QFETCH(QStringList, display);
    QFETCH(QList<QByteArray>, raw);

    ValueModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setMode(mode);
    model.appendPage(pageOf({entry}));
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.columnCount(), display.size());
    for (int c = 0; c < display.size(); ++c) {
        const QModelIndex idx = model.index(0, c);
        QCOMPARE(idx.data().toString(), display.at(c));
        if (raw.at(c).isNull()) {
            QVERIFY(!idx.data(ValueModel::RawBytesRole).isValid());
        } else {
            QCOMPARE(idx.data(ValueModel::RawBytesRole).toByteArray(), raw.at(c));
        }
        QCOMPARE(idx.data(ValueModel::LoadMoreRole).toBool(), false);
        QVERIFY(!idx.data(Qt::DecorationRole).isValid()); // roles nobody asked for stay empty
    }
    if (mode == Mode::Stream)
        QCOMPARE(model.index(0, 1).data(ValueModel::StreamFieldsRole).value<QList<QByteArray>>(), entry.fields);
    if (mode == Mode::List || mode == Mode::ZSet)
        QCOMPARE(model.index(0, 0).data(ValueModel::PositionRole).toLongLong(), entry.position);
}

void TestValueModel::appendPages()
{
    ValueModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setMode(Mode::List);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);

    QList<ValueEntry> first;
    for (int i = 0; i < 100; ++i)
        first << listEntry(i, QByteArray::number(i));
    model.appendPage(pageOf(first, true, 250));
    // One insert for the page, one for the "load more" row that appears.
    QCOMPARE(inserted.size(), 2);
    QCOMPARE(inserted.at(0).at(1).toInt(), 0);
    QCOMPARE(inserted.at(0).at(2).toInt(), 99);
    QCOMPARE(model.rowCount(), 101);

    inserted.clear();
    QList<ValueEntry> second;
    for (int i = 100; i < 200; ++i)
        second << listEntry(i, QByteArray::number(i));
    model.appendPage(pageOf(second, true, 250));
    QCOMPARE(inserted.size(), 1); // one beginInsertRows per page, before the load-more row
    QCOMPARE(inserted.at(0).at(1).toInt(), 100);
    QCOMPARE(inserted.at(0).at(2).toInt(), 199);
    QCOMPARE(model.rowCount(), 201);
    QVERIFY(model.isLoadMoreRow(200));
    QCOMPARE(model.index(150, 1).data(ValueModel::RawBytesRole).toByteArray(), QByteArray("150"));

    QList<ValueEntry> last;
    for (int i = 200; i < 250; ++i)
        last << listEntry(i, QByteArray::number(i));
    model.appendPage(pageOf(last, false, 250));
    QCOMPARE(model.rowCount(), 250);
    QCOMPARE(model.entryCount(), 250);
    QVERIFY(!model.isLoadMoreRow(249));
    QCOMPARE(model.index(249, 0).data().toString(), QStringLiteral("249"));

    model.clear();
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.mode(), Mode::List);
}

void TestValueModel::loadMoreRow()
{
    ValueModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setMode(Mode::Set);
    model.appendPage(pageOf({setEntry("a"), setEntry("b")}, true, 1000));
    QCOMPARE(model.rowCount(), 3);
    QVERIFY(!model.isLoadMoreRow(1));
    QVERIFY(model.isLoadMoreRow(2));
    const QModelIndex more = model.index(2, 0);
    QCOMPARE(more.data(ValueModel::LoadMoreRole).toBool(), true);
    QVERIFY(!more.data(ValueModel::RawBytesRole).isValid());
    QCOMPARE(more.data().toString(), QStringLiteral("Load more… (1000 in all)"));

    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setLoading(true);
    QCOMPARE(changed.size(), 1);
    QVERIFY(more.data().toString().startsWith(QLatin1String("Loading")));
    model.setLoading(false);

    // Total unknown.
    model.setHasMore(true, -1);
    QCOMPARE(model.index(2, 0).data().toString(), QStringLiteral("Load more…"));

    model.setHasMore(false, 2);
    QCOMPARE(model.rowCount(), 2);
    model.setHasMore(true, 5);
    QCOMPARE(model.rowCount(), 3);
    model.appendPage(pageOf({setEntry("c")}, false, 3));
    QCOMPARE(model.rowCount(), 3);
    QVERIFY(!model.isLoadMoreRow(2));
    QCOMPARE(model.index(2, 0).data(ValueModel::RawBytesRole).toByteArray(), QByteArray("c"));
}

void TestValueModel::binaryEscaped_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("shown");
    QTest::newRow("nul") << QByteArray("a\0b", 3) << QStringLiteral("a\\x00b");
    QTest::newRow("invalid utf8") << QByteArray("\xff\xfe") << QStringLiteral("\\xff\\xfe");
    QTest::newRow("controls") << QByteArray("line\nnext\ttab\"q\\") << QStringLiteral("line\\nnext\\ttab\\\"q\\\\");
    QTest::newRow("empty") << QByteArray("") << QString();
    QTest::newRow("html stays text") << QByteArray("<b>x</b>") << QStringLiteral("<b>x</b>");
}

void TestValueModel::binaryEscaped()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, shown);
    for (const Mode mode : {Mode::Hash, Mode::Set, Mode::ZSet}) {
        ValueModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
        model.setMode(mode);
        ValueEntry e;
        e.name = bytes;
        e.value = mode == Mode::ZSet ? QByteArray("1") : bytes;
        e.position = 0;
        model.appendPage(pageOf({e}));
        const int column = mode == Mode::ZSet ? 1 : 0;
        QCOMPARE(model.index(0, column).data().toString(), shown);
        const QByteArray raw = model.index(0, column).data(ValueModel::RawBytesRole).toByteArray();
        QCOMPARE(raw, bytes);
        QCOMPARE(raw.size(), bytes.size());
    }
}

void TestValueModel::longValueElided()
{
    ValueModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setMode(Mode::Hash);
    const QByteArray big(1 << 20, 'x');
    model.appendPage(pageOf({hashEntry("big", big)}));
    const QString shown = model.index(0, 1).data().toString();
    QVERIFY2(shown.size() < ValueModel::kDisplayChars + 40, qPrintable(QString::number(shown.size())));
    QVERIFY(shown.contains(QLatin1String("bytes")));
    QVERIFY(model.index(0, 1).data(Qt::ToolTipRole).toString().size() < ValueModel::kToolTipChars + 40);
    QCOMPARE(model.index(0, 1).data(ValueModel::RawBytesRole).toByteArray(), big);
}

void TestValueModel::modeChangeResets()
{
    ValueModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setMode(Mode::ZSet);
    model.appendPage(pageOf({zsetEntry(0, "a", "1"), zsetEntry(1, "b", "2")}, true, 10));
    QCOMPARE(model.rowCount(), 3);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.setMode(Mode::Stream);
    QCOMPARE(reset.size(), 1);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.columnCount(), 2);
    QVERIFY(!model.hasMore());
    QCOMPARE(model.total(), qint64(-1));
}

// A value whose encoding hides secrets (CBOR as Qt writes it) is masked whole, naming the
// format; past the page's decoding budget, values that may be encoded are masked as not checked
// rather than decoded on the GUI thread.
void TestValueModel::encodedSecretsMasked()
{
    ValueModel model;
    model.setMode(ValueModel::Mode::Hash);
    const QByteArray session
        = QCborValue(QCborMap{{QStringLiteral("user_id"), 5}, {QStringLiteral("csrf_token"), QStringLiteral("tok-9")}})
              .toCbor();
    ValuePage page;
    page.entries.append(ValueEntry{"session", session, {}, -1});
    page.entries.append(ValueEntry{"plain", "just words", {}, -1});
    // Heavy values: base64 of zlib of 256 KiB of JSON (qCompress is zlib behind a length).
    QByteArray json = "[";
    for (int i = 0; json.size() < 256 * 1024; ++i)
        json += "{\"n\":" + QByteArray::number(i % 1000) + ",\"word\":\"lorem\"},";
    json.chop(1);
    json += "]";
    const QByteArray heavy = qCompress(json).mid(4).toBase64();
    QVERIFY(heavy.size() < masking::kDecodedCheckBytes);
    for (int i = 0; i < 400; ++i)
        page.entries.append(ValueEntry{"job:" + QByteArray::number(i), heavy, {}, -1});
    model.appendPage(page);
    const QString cell = model.index(0, 1).data().toString();
    QVERIFY2(cell.contains(masking::maskText()) && cell.contains(QStringLiteral("(CBOR with secrets)")),
             qPrintable(cell));
    QVERIFY(!cell.contains(QLatin1String("tok-9")));
    QCOMPARE(model.index(1, 1).data().toString(), QStringLiteral("just words"));
    const QString last = model.index(model.entryCount() - 1, 1).data().toString();
    QVERIFY2(last.contains(QStringLiteral("not checked for secrets")), qPrintable(last));
    model.setRevealed(true);
    QVERIFY(model.index(0, 1).data().toString().contains(QLatin1String("tok-9")));
}

void TestValueModel::streamFieldsText()
{
    QCOMPARE(ValueModel::streamFieldsText({"a", "1", "b", QByteArray("\0", 1)}, 200), QStringLiteral("a=1 b=\\x00"));
    QCOMPARE(ValueModel::streamFieldsText({}, 200), QString());
    QList<QByteArray> many;
    for (int i = 0; i < 1000; ++i)
        many << "field" + QByteArray::number(i) << QByteArray(50, 'v');
    const QString text = ValueModel::streamFieldsText(many, 200);
    QVERIFY2(text.size() < 400, qPrintable(QString::number(text.size())));
    QVERIFY(text.contains(QLatin1String("more fields")));
}

void TestValueModel::previousStreamId_data()
{
    QTest::addColumn<QByteArray>("id");
    QTest::addColumn<QByteArray>("previous");
    QTest::newRow("seq") << QByteArray("1700000000000-5") << QByteArray("1700000000000-4");
    QTest::newRow("seq 1") << QByteArray("5-1") << QByteArray("5-0");
    QTest::newRow("ms boundary") << QByteArray("5-0") << QByteArray("4-18446744073709551615");
    QTest::newRow("zero ms") << QByteArray("0-1") << QByteArray("0-0");
    QTest::newRow("first possible") << QByteArray("0-0") << QByteArray();
    QTest::newRow("max") << QByteArray("18446744073709551615-18446744073709551615")
                         << QByteArray("18446744073709551615-18446744073709551614");
    QTest::newRow("malformed") << QByteArray("abc") << QByteArray();
    QTest::newRow("no seq") << QByteArray("12-") << QByteArray();
}

void TestValueModel::previousStreamId()
{
    QFETCH(QByteArray, id);
    QFETCH(QByteArray, previous);
    QCOMPARE(ValueReader::previousStreamId(id), previous);
}

QTEST_MAIN(TestValueModel)
#include "tst_valuemodel.moc"
