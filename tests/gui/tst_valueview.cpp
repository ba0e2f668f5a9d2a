// SPDX-License-Identifier: GPL-3.0-or-later
#include "decodercases.h"
#include "masking.h"
#include "patternrules.h"
#include "processrun.h"
#include "redisclient.h"
#include "testdata.h"
#include "testserver.h"
#include "theme.h"
#include "valueview.h"

#include <QCheckBox>

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPalette>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStackedWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <zlib.h>

namespace {
constexpr int kWaitMs = 20000;
}

class TestValueView : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();

    void hashTableAndLoadMore();
    void loadMoreRowSpansTable();
    void collections_data();
    void collections();
    void plainString();
    void jsonString();
    void binaryString();
    void longLineNotWrapped();
    void hugeString();
    void hyperLogLog();
    void ttlCountdown();
    void errorBanner();
    void refreshRereads();
    void secretsMaskedInHash();
    void secretsMaskedInJsonString();
    void secretsMaskedInStream();
    void decodedValues();
    void largeValueDecodedOffThread();
    void rulesAndTypedStepsDecode();
    void collectionElementsDecoded();

private:
    template <typename T> T *child(const char *name) const { return requireChild<T>(m_view.get(), name); }
    QTableView *table() const { return child<QTableView>("valueTable"); }
    QString status() const { return child<QLabel>("valueStatus")->text(); }
    QString stringText() const { return child<QPlainTextEdit>("valueStringText")->toPlainText(); }
    QString stringInfo() const { return child<QLabel>("valueStringInfo")->text(); }
    QString elementText() const { return m_view->elementText(); }
    QString elementInfo() const { return m_view->elementInfo(); }
    bool waitIdle() const
    {
        return QTest::qWaitFor([this] { return !m_view->reader()->isLoading(); }, kWaitMs);
    }
    // Saves a screenshot into the test's temporary directory (and $REDISLENS_SCREENSHOT_DIR).
    QString screenshot(const QString &name);

    TestServer m_server;
    std::unique_ptr<RedisClient> m_client;
    std::unique_ptr<ValueView> m_view;
    QTemporaryDir m_dir;
};

void TestValueView::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QString error;
    QVERIFY2(m_server.start(&error), qPrintable(error));
    m_client = connectedClient(m_server.profile());
    QVERIFY(m_client);
    m_view = std::make_unique<ValueView>(m_client.get());
    m_view->resize(900, 600);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
}

void TestValueView::cleanupTestCase()
{
    m_view.reset();
    m_client.reset();
}

void TestValueView::init()
{
    m_view->clear();
    m_server.command({"FLUSHALL"});
}

QString TestValueView::screenshot(const QString &name)
{
    const QImage image = m_view->grab().toImage();
    const QString path = m_dir.filePath(name);
    if (!image.save(path))
        return {};
    const QString keep = qEnvironmentVariable("REDISLENS_SCREENSHOT_DIR");
    if (!keep.isEmpty())
        image.save(QDir(keep).filePath(name));
    return path;
}

void TestValueView::hashTableAndLoadMore()
{
    QList<QByteArray> cmd{"HSET", "user:7"};
    // More than hash-max-listpack-entries (512), so HSCAN really pages.
    for (int i = 0; i < 600; ++i)
        cmd << "field-" + QByteArray::number(1000 + i) << "value " + QByteArray::number(i);
    cmd << QByteArray("bin\0\xff", 5) << QByteArray("line\nbreak");
    m_server.command(cmd);

    m_view->reader()->setPageSize(50);
    m_view->openKey("user:7", KeyType::Hash);
    QVERIFY(waitIdle());
    QCOMPARE(child<QLineEdit>("valueKeyName")->text(), QStringLiteral("user:7"));
    QVERIFY(child<QLabel>("valueMeta")->text().startsWith(QStringLiteral("hash · 601 fields")));
    QVERIFY(child<QStackedWidget>("valueStack")->currentWidget()->isAncestorOf(table()));
    QAbstractItemModel *model = table()->model();
    QCOMPARE(model->columnCount(), 2);
    QCOMPARE(model->headerData(0, Qt::Horizontal).toString(), QStringLiteral("Field"));
    const int firstRows = model->rowCount();
    QVERIFY2(firstRows > 1 && firstRows < 601, qPrintable(QString::number(firstRows)));
    QVERIFY(model->index(firstRows - 1, 0).data(ValueModel::LoadMoreRole).toBool());
    QCOMPARE(status(), QStringLiteral("showing %1 of 601").arg(firstRows - 1));
    QCOMPARE(table()->verticalHeader()->sectionResizeMode(0), QHeaderView::Fixed);

    const QString shot = screenshot(QStringLiteral("valueview-hash.png"));
    QVERIFY(!shot.isEmpty());
    QVERIFY(QFileInfo(shot).size() > 0);
    QVERIFY(!QImage(shot).isNull());

    // Click "load more" until everything is there, as a user would.
    int guard = 50;
    while (m_view->model()->hasMore() && --guard > 0) {
        const QModelIndex more = model->index(model->rowCount() - 1, 0);
        table()->scrollTo(more);
        QTest::mouseClick(table()->viewport(), Qt::LeftButton, {}, table()->visualRect(more).center());
        QVERIFY(waitIdle());
    }
    QCOMPARE(model->rowCount(), 601);
    QCOMPARE(status(), QStringLiteral("showing 601 of 601"));

    bool sawBinary = false;
    for (int r = 0; r < model->rowCount(); ++r) {
        if (model->index(r, 0).data(ValueModel::RawBytesRole).toByteArray() == QByteArray("bin\0\xff", 5)) {
            QCOMPARE(model->index(r, 0).data().toString(), QStringLiteral("bin\\x00\\xff"));
            QCOMPARE(model->index(r, 1).data().toString(), QStringLiteral("line\\nbreak"));
            sawBinary = true;
        }
    }
    QVERIFY(sawBinary);
    QVERIFY(m_view->errorText().isEmpty());
    m_view->reader()->setPageSize(ValueReader::kDefaultPageSize);
}

void TestValueView::loadMoreRowSpansTable()
{
    QList<QByteArray> cmd{"RPUSH", "jobs"};
    for (int i = 0; i < 12; ++i)
        cmd << "job:" + QByteArray::number(i);
    m_server.command(cmd);
    m_view->reader()->setPageSize(5);
    m_view->openKey("jobs", KeyType::List);
    QVERIFY(waitIdle());
    QAbstractItemModel *model = table()->model();
    QCOMPARE(model->rowCount(), 6);
    QCOMPARE(table()->columnSpan(5, 0), 2);
    QCOMPARE(model->index(5, 0).data().toString(), QStringLiteral("Load more… (12 in all)"));
    QCOMPARE(status(), QStringLiteral("showing 5 of 12"));
    screenshot(QStringLiteral("valueview-list-more.png"));

    // Enter on the row loads the next page, too.
    table()->setFocus();
    table()->setCurrentIndex(model->index(5, 0));
    QTest::keyClick(table(), Qt::Key_Return);
    QVERIFY(waitIdle());
    QCOMPARE(model->rowCount(), 11);
    QCOMPARE(table()->columnSpan(5, 0), 1);
    QCOMPARE(table()->columnSpan(10, 0), 2);
    m_view->reader()->setPageSize(ValueReader::kDefaultPageSize);
}

void TestValueView::collections_data()
{
    QTest::addColumn<QList<QList<QByteArray>>>("setup");
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<int>("rows");
    QTest::addColumn<QStringList>("headers");
    QTest::addColumn<QStringList>("firstRow");

    QTest::newRow("list") << QList<QList<QByteArray>>{{"RPUSH", "queue", "job:1", "job:2", QByteArray("\0", 1)}}
                          << QByteArray("queue") << 3 << QStringList{QStringLiteral("Index"), QStringLiteral("Value")}
                          << QStringList{QStringLiteral("0"), QStringLiteral("job:1")};
    QTest::newRow("set") << QList<QList<QByteArray>>{{"SADD", "tags", "only"}} << QByteArray("tags") << 1
                         << QStringList{QStringLiteral("Member")} << QStringList{QStringLiteral("only")};
    QTest::newRow("zset") << QList<QList<QByteArray>>{{"ZADD", "board", "10", "ann", "2.5", "bob", "7", "cy"}}
                          << QByteArray("board") << 3
                          << QStringList{QStringLiteral("Rank"), QStringLiteral("Member"), QStringLiteral("Score")}
                          << QStringList{QStringLiteral("0"), QStringLiteral("bob"), QStringLiteral("2.5")};
    QTest::newRow("stream") << QList<QList<QByteArray>>{{"XADD", "events", "1-1", "type", "login"},
                                                        {"XADD", "events", "2-0", "type", "logout", "user", "7"}}
                            << QByteArray("events") << 2 << QStringList{QStringLiteral("ID"), QStringLiteral("Fields")}
                            << QStringList{QStringLiteral("2-0"), QStringLiteral("type=logout user=7")};
}

void TestValueView::collections()
{
    QFETCH(QList<QList<QByteArray>>, setup);
    QFETCH(QByteArray, key);
    QFETCH(int, rows);
    QFETCH(QStringList, headers);
    QFETCH(QStringList, firstRow);
    m_server.pipeline(setup);

    m_view->openKey(key, KeyType::Unknown);
    QVERIFY(waitIdle());
    QAbstractItemModel *model = table()->model();
    QCOMPARE(model->rowCount(), rows);
    QCOMPARE(model->columnCount(), headers.size());
    for (int c = 0; c < headers.size(); ++c) {
        QCOMPARE(model->headerData(c, Qt::Horizontal).toString(), headers.at(c));
        QCOMPARE(model->index(0, c).data().toString(), firstRow.at(c));
    }
    QCOMPARE(status(), QStringLiteral("showing %1 of %1").arg(rows));
    QVERIFY(table()->isVisible());
    QVERIFY(!screenshot(QStringLiteral("valueview-%1.png").arg(QLatin1String(QTest::currentDataTag()))).isEmpty());
}

void TestValueView::plainString()
{
    const QByteArray text = "hello, gr\xc3\xbc\xc3\x9f\nsecond line";
    m_server.command({"SET", "greeting", text});
    m_view->openKey("greeting", KeyType::String);
    QTRY_VERIFY_WITH_TIMEOUT(
        child<QPlainTextEdit>("valueStringText")->isVisible() && stringText() == QString::fromUtf8(text), kWaitMs);
    QCOMPARE(m_view->stringMode(), ValueView::StringMode::Text);
    QVERIFY(child<QLabel>("valueMeta")->text().startsWith(QStringLiteral("string · ")));

    const QString shot = screenshot(QStringLiteral("valueview-string.png"));
    QVERIFY(!shot.isEmpty());
    QVERIFY(QFileInfo(shot).size() > 0);

    m_view->setStringMode(ValueView::StringMode::Hex);
    QVERIFY(stringText().startsWith(QLatin1String("00000000  68 65 6c 6c 6f")));
}

void TestValueView::jsonString()
{
    m_server.command({"SET", "config", R"({"feature":{"enabled":true,"ratio":0.25},"tags":["a","b"]})"});
    m_view->openKey("config", KeyType::Unknown);
    QTRY_COMPARE_WITH_TIMEOUT(m_view->stringMode(), ValueView::StringMode::Json, kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(stringText().contains(QLatin1String("\n    \"feature\": {")), kWaitMs);
    QVERIFY(stringInfo().contains(QLatin1String("JSON")));
    screenshot(QStringLiteral("valueview-json.png"));
}

void TestValueView::binaryString()
{
    m_server.command({"SET", "blob", QByteArray("\x00\x01\xff payload", 11)});
    m_view->openKey("blob", KeyType::String);
    QTRY_COMPARE_WITH_TIMEOUT(m_view->stringMode(), ValueView::StringMode::Hex, kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(stringText().startsWith(QLatin1String("00000000  00 01 ff 20 70")), kWaitMs);
    QVERIFY(stringText().contains(QLatin1String("|... payload|")));
    m_view->setStringMode(ValueView::StringMode::Text);
    QCOMPARE(stringText(), QStringLiteral("\\x00\\x01\\xff payload"));

    // Escaped text keeps its line breaks visible and real.
    m_server.command({"SET", "lines", QByteArray("a\0\nb", 4)});
    m_view->openKey("lines", KeyType::String);
    QTRY_VERIFY_WITH_TIMEOUT(stringText().startsWith(QLatin1String("00000000  61 00 0a 62")), kWaitMs);
    m_view->setStringMode(ValueView::StringMode::Text);
    QCOMPARE(stringText(), QStringLiteral("a\\x00\\n\nb"));
}

void TestValueView::longLineNotWrapped()
{
    // One 300 KB line: wrapping it would freeze the window for seconds.
    m_server.command({"SET", "minified", QByteArray(300 * 1024, 'a')});
    m_view->openKey("minified", KeyType::String);
    QTRY_VERIFY_WITH_TIMEOUT(stringInfo().contains(QLatin1String("showing first 256 KiB of 300 KiB")), kWaitMs);
    QCOMPARE(m_view->stringMode(), ValueView::StringMode::Text);
    QCOMPARE(child<QPlainTextEdit>("valueStringText")->lineWrapMode(), QPlainTextEdit::NoWrap);
    QVERIFY(stringText().startsWith(QString(1000, QLatin1Char('a'))));
}

void TestValueView::hugeString()
{
    m_server.command({"SETRANGE", "huge", "104857599", "x"});
    m_view->openKey("huge", KeyType::Unknown);
    QTRY_VERIFY_WITH_TIMEOUT(stringInfo().contains(QLatin1String("showing first 256 KiB of 100 MiB")), kWaitMs);
    QCOMPARE(m_view->stringMode(), ValueView::StringMode::Hex);
    QVERIFY(child<QLabel>("valueMeta")->text().contains(QLatin1String("100 MiB")));
    m_server.command({"UNLINK", "huge"});
}

void TestValueView::hyperLogLog()
{
    QList<QByteArray> cmd{"PFADD", "uniques"};
    for (int i = 0; i < 1000; ++i)
        cmd << QByteArray::number(i);
    m_server.command(cmd);
    const qint64 count = m_server.command({"PFCOUNT", "uniques"}).toInteger();
    m_view->openKey("uniques", KeyType::String);
    const QString expected = QStringLiteral("HyperLogLog, estimated cardinality %1 (±0.81 %)").arg(count);
    QTRY_VERIFY_WITH_TIMEOUT(stringInfo().contains(expected), kWaitMs);
    QCOMPARE(stringText(), expected);
    screenshot(QStringLiteral("valueview-hll.png"));
}

void TestValueView::ttlCountdown()
{
    auto *ttl = child<QLabel>("valueTtl");
    m_server.pipeline({{"SET", "long", "v", "PX", "3600000"}, {"SET", "none", "v"}});

    m_view->openKey("none", KeyType::String);
    QTRY_COMPARE_WITH_TIMEOUT(ttl->text(), QStringLiteral("no TTL"), kWaitMs);

    m_view->openKey("long", KeyType::String);
    QTRY_VERIFY_WITH_TIMEOUT(ttl->text().startsWith(QLatin1String("TTL 59m")), kWaitMs);

    // The countdown runs on its own and ends in "expired" without another request.
    m_server.command({"SET", "short", "v", "PX", "1500"});
    m_view->openKey("short", KeyType::String);
    QTRY_VERIFY_WITH_TIMEOUT(ttl->text().startsWith(QLatin1String("TTL ")), kWaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(ttl->text(), QStringLiteral("expired"), 5000);
}

void TestValueView::errorBanner()
{
    m_view->openKey("missing", KeyType::Hash);
    QTRY_COMPARE_WITH_TIMEOUT(m_view->errorText(), QStringLiteral("key no longer exists"), kWaitMs);
    QVERIFY(child<QLabel>("valueBanner")->isVisible());
    screenshot(QStringLiteral("valueview-error.png"));

    // The next key clears the banner and shows normally.
    m_server.command({"SADD", "present", "m"});
    m_view->openKey("present", KeyType::Set);
    QVERIFY(m_view->errorText().isEmpty());
    QVERIFY(waitIdle());
    QCOMPARE(table()->model()->rowCount(), 1);
    QVERIFY(m_view->errorText().isEmpty());
}

void TestValueView::refreshRereads()
{
    m_server.command({"RPUSH", "grows", "a"});
    m_view->openKey("grows", KeyType::List);
    QVERIFY(waitIdle());
    QCOMPARE(table()->model()->rowCount(), 1);
    m_server.command({"RPUSH", "grows", "b", "c"});
    QTest::mouseClick(child<QPushButton>("valueRefresh"), Qt::LeftButton);
    QVERIFY(waitIdle());
    QCOMPARE(table()->model()->rowCount(), 3);
    QCOMPARE(status(), QStringLiteral("showing 3 of 3"));
}

// The value viewer hides what the sessions panel hides, by the same rules: a session hash
// opened from the key browser shows its token masked until Reveal secrets is checked.
void TestValueView::secretsMaskedInHash()
{
    const QByteArray token = "fixture-not-a-secret-7f3a91c2";
    m_server.command({"HSET", "sess:abc", "user_id", "42", "csrf_token", token, "prefs",
                      R"({"theme":"dark","api_key":")" + token + R"("})"});
    m_view->openKey("sess:abc", KeyType::Hash);
    QVERIFY(waitIdle());
    QAbstractItemModel *model = table()->model();
    QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 3, kWaitMs);
    auto *reveal = child<QCheckBox>("valueReveal");
    QVERIFY(reveal->isVisible());
    QVERIFY(!reveal->isChecked());
    int masked = 0;
    for (int r = 0; r < model->rowCount(); ++r) {
        const QByteArray field = model->index(r, 0).data(ValueModel::RawBytesRole).toByteArray();
        const QString shown = model->index(r, 1).data().toString();
        QVERIFY2(!shown.contains(QString::fromLatin1(token)), qPrintable(shown));
        QVERIFY2(!model->index(r, 1).data(Qt::ToolTipRole).toString().contains(QString::fromLatin1(token)),
                 qPrintable(field));
        if (field == "csrf_token") {
            QCOMPARE(shown, masking::maskText());
            ++masked;
        } else if (field == "prefs") {
            QVERIFY2(shown.contains(QLatin1String("dark")) && shown.contains(masking::maskText()), qPrintable(shown));
            ++masked;
        } else {
            QCOMPARE(shown, QStringLiteral("42"));
            QVERIFY(!model->index(r, 1).data(ValueModel::MaskedRole).toBool());
        }
        // The exact bytes stay available for actions.
        if (field == "csrf_token")
            QCOMPARE(model->index(r, 1).data(ValueModel::RawBytesRole).toByteArray(), token);
    }
    QCOMPARE(masked, 2);
    screenshot(QStringLiteral("valueview-masked.png"));
    {
        // The same in a dark palette: the mask and the toggle stay legible.
        const QPalette light = m_view->palette();
        const QPalette dark = theme::darkPalette();
        m_view->setPalette(dark);
        screenshot(QStringLiteral("valueview-masked-dark.png"));
        m_view->setPalette(light);
    }

    reveal->setChecked(true);
    bool seen = false;
    for (int r = 0; r < model->rowCount(); ++r)
        seen = seen || model->index(r, 1).data().toString() == QString::fromLatin1(token);
    QVERIFY(seen);

    // Another key starts hidden again.
    m_view->openKey("sess:abc", KeyType::Hash);
    QVERIFY(waitIdle());
    QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 3, kWaitMs);
    QVERIFY(!reveal->isChecked());
    for (int r = 0; r < model->rowCount(); ++r)
        QVERIFY(!model->index(r, 1).data().toString().contains(QString::fromLatin1(token)));
}

void TestValueView::secretsMaskedInJsonString()
{
    const QByteArray token = "fixture-not-a-secret-0b1d";
    m_server.command({"SET", "session:json", R"({"user":"ada","auth":{"refresh_token":")" + token + R"("}})"});
    m_view->openKey("session:json", KeyType::Unknown);
    QTRY_COMPARE_WITH_TIMEOUT(m_view->stringMode(), ValueView::StringMode::Json, kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(stringText().contains(QLatin1String("ada")), kWaitMs);
    QVERIFY2(!stringText().contains(QString::fromLatin1(token)), qPrintable(stringText()));
    QVERIFY(stringText().contains(masking::maskText()));
    for (auto mode : {ValueView::StringMode::Text, ValueView::StringMode::Hex}) {
        m_view->setStringMode(mode);
        QVERIFY2(!stringText().contains(QString::fromLatin1(token)), qPrintable(stringText()));
    }
    auto *reveal = child<QCheckBox>("valueReveal");
    QVERIFY(reveal->isVisible());
    m_view->setStringMode(ValueView::StringMode::Text);
    reveal->setChecked(true);
    QVERIFY(stringText().contains(QString::fromLatin1(token)));

    // A plain string has nothing to hide: no toggle.
    m_server.command({"SET", "plain", "hello"});
    m_view->openKey("plain", KeyType::Unknown);
    QTRY_VERIFY_WITH_TIMEOUT(stringText() == QLatin1String("hello"), kWaitMs);
    QVERIFY(!reveal->isVisible());
}

void TestValueView::secretsMaskedInStream()
{
    const QByteArray token = "fixture-not-a-secret-55aa";
    m_server.command({"XADD", "events", "*", "kind", "login", "password", token});
    m_view->openKey("events", KeyType::Stream);
    QVERIFY(waitIdle());
    QAbstractItemModel *model = table()->model();
    QTRY_VERIFY_WITH_TIMEOUT(model->rowCount() >= 1, kWaitMs);
    const QString shown = model->index(0, 1).data().toString();
    QVERIFY2(shown.contains(QLatin1String("login")) && !shown.contains(QString::fromLatin1(token)), qPrintable(shown));
    QVERIFY(model->index(0, 1).data(ValueModel::MaskedRole).toBool());
    child<QCheckBox>("valueReveal")->setChecked(true);
    QVERIFY(model->index(0, 1).data().toString().contains(QString::fromLatin1(token)));
}

// Values their writers wrote (tests/fixtures/decoders/write_values.py): each opens decoded, says
// its chain, shows what the writer wrote; the raw text is one choice away; a MessagePack
// session's csrf_token is masked in the decoded tree and the raw bytes stay hidden until revealed.
void TestValueView::decodedValues()
{
    QString error;
    const QHash<QString, QByteArray> values = valuesByName(writePythonCases(m_dir.path(), &error));
    QVERIFY2(error.isEmpty(), qPrintable(error));

    struct Case
    {
        const char *name;
        const char *chain;
        const char *shows;
    };
    const Case cases[] = {
        {"base64+gzip+json", "base64 → gzip → JSON", "name: \"Zoë Ångström\""},
        {"zstd+json", "Zstandard → JSON", "rpm: 600"},
        {"snappy+json", "Snappy → JSON", "roles: [2]"},
        {"lz4+json", "LZ4 frame → JSON", "score: 3.25"},
        {"cbor", "CBOR", "sku: \"A-100\""},
    };
    for (const Case &c : cases) {
        const QByteArray key = QByteArray("decoded:") + c.name;
        m_server.command({"SET", key, values.value(QString::fromLatin1(c.name))});
        m_view->openKey(key, KeyType::Unknown);
        QTRY_VERIFY2_WITH_TIMEOUT(m_view->decodedSummary().startsWith(QString::fromUtf8(c.chain)),
                                  qPrintable(c.name + QStringLiteral(": ") + m_view->decodedSummary()), kWaitMs);
        QCOMPARE(m_view->stringMode(), ValueView::StringMode::Decoded);
        QVERIFY2(stringText().contains(QString::fromUtf8(c.shows)), qPrintable(stringText()));
        QVERIFY2(stringInfo().contains(QStringLiteral("decoded: ")), qPrintable(stringInfo()));
    }
    screenshot(QStringLiteral("value-decoded.png"));
    theme::apply(theme::Theme::Dark);
    QCoreApplication::processEvents();
    screenshot(QStringLiteral("value-decoded-dark.png"));
    theme::apply(theme::Theme::Light);
    // The raw text, one choice away.
    m_view->setStringMode(ValueView::StringMode::Text);
    QVERIFY(!stringText().contains(QLatin1String("sku: ")));

    // A session written with MessagePack: its csrf_token masked once decoded, and hidden raw.
    m_server.command({"SET", "session:mp", values.value(QStringLiteral("msgpack"))});
    m_view->openKey("session:mp", KeyType::Unknown);
    QTRY_VERIFY_WITH_TIMEOUT(m_view->stringMode() == ValueView::StringMode::Decoded, kWaitMs);
    QVERIFY2(stringText().contains(QLatin1String("user_id: 7")), qPrintable(stringText()));
    const QString token = QStringLiteral("b7c1e0f2a9d34c58");
    QVERIFY2(!stringText().contains(token), qPrintable(stringText()));
    QVERIFY(stringText().contains(masking::maskText()));
    auto *reveal = child<QCheckBox>("valueReveal");
    QVERIFY(reveal->isVisible());
    for (auto mode : {ValueView::StringMode::Text, ValueView::StringMode::Hex}) {
        m_view->setStringMode(mode);
        QVERIFY2(stringText().contains(QLatin1String("masked in the Decoded view")), qPrintable(stringText()));
    }
    reveal->setChecked(true);
    QVERIFY2(stringText().contains(QLatin1String("00000000  ")), qPrintable(stringText())); // the hex dump
    m_view->setStringMode(ValueView::StringMode::Text);
    QVERIFY2(stringText().contains(token), qPrintable(stringText()));
    m_view->setStringMode(ValueView::StringMode::Decoded);
    QVERIFY(stringText().contains(token));
    screenshot(QStringLiteral("value-decoded-msgpack.png"));

    // A pickled session object (as Flask-Session stores one): read, never run; its token masked.
    m_server.command({"SET", "session:pickled", values.value(QStringLiteral("pickled object 4"))});
    m_view->openKey("session:pickled", KeyType::Unknown);
    QTRY_VERIFY_WITH_TIMEOUT(m_view->decodedSummary() == QLatin1String("pickle"), kWaitMs);
    QVERIFY2(stringText().contains(QLatin1String("(__main__.Session)")) && stringText().contains(masking::maskText())
                 && !stringText().contains(QLatin1String("4f1c9a7e2b")),
             qPrintable(stringText()));
    screenshot(QStringLiteral("value-decoded-pickle.png"));

    // Plain text and plain JSON keep their own modes; "Decoded" is not offered for them.
    m_server.command({"SET", "plain", "Password1234"});
    m_view->openKey("plain", KeyType::Unknown);
    QTRY_VERIFY_WITH_TIMEOUT(stringText() == QLatin1String("Password1234"), kWaitMs);
    QCOMPARE(m_view->stringMode(), ValueView::StringMode::Text);
    QVERIFY(m_view->decodedSummary().isEmpty());
    m_server.command({"SET", "doc", values.value(QStringLiteral("json"))});
    m_view->openKey("doc", KeyType::Unknown);
    QTRY_COMPARE_WITH_TIMEOUT(m_view->stringMode(), ValueView::StringMode::Json, kWaitMs);
    QVERIFY(m_view->decodedSummary().isEmpty());
}

// Values without a magic decode by a rule's steps or by steps typed for the value; steps that do
// not fit say where they stopped and show the bytes as hex.
void TestValueView::rulesAndTypedStepsDecode()
{
    QString error;
    const QHash<QString, QByteArray> values = valuesByName(writePythonCases(m_dir.path(), &error));
    QVERIFY2(error.isEmpty(), qPrintable(error));
    m_server.command({"SET", "br:1", values.value(QStringLiteral("brotli+json"))});
    m_server.command({"SET", "raw:deflate", values.value(QStringLiteral("deflate+json"))});
    m_server.command({"SET", "gz:wrong", values.value(QStringLiteral("zlib+json"))});

    // Brotli has no magic: nothing recognised without a rule.
    m_view->openKey("br:1", KeyType::Unknown);
    QTRY_COMPARE_WITH_TIMEOUT(m_view->decodingsInFlight(), 0, kWaitMs);
    QCoreApplication::processEvents();
    QVERIFY(m_view->decodedSummary().isEmpty());

    PatternRules rules;
    QList<PatternRule> list;
    QVERIFY2(PatternRules::parse(R"({"rules": [{"glob": "gz:*", "decode": ["gzip", "json"]},
                                              {"glob": "br:*", "type": "string", "decode": ["brotli", "json"]}]})",
                                 &list, &error),
             qPrintable(error));
    rules.setRules(list);
    m_view->setDecodeRules(rules);
    m_view->openKey("br:1", KeyType::Unknown);
    QTRY_VERIFY2_WITH_TIMEOUT(m_view->decodedSummary().startsWith(QStringLiteral("Brotli → JSON")),
                              qPrintable(stringInfo()), kWaitMs);
    QVERIFY2(stringInfo().contains(QStringLiteral("decoded by rule 2: Brotli → JSON")), qPrintable(stringInfo()));
    QVERIFY2(stringText().contains(QLatin1String("rpm: 600")), qPrintable(stringText()));

    // Steps typed for one value: raw deflate, which only steps can name.
    m_view->openKey("raw:deflate", KeyType::Unknown);
    QTRY_VERIFY_WITH_TIMEOUT(!m_view->reader()->isLoading(), kWaitMs);
    QString why;
    QVERIFY(!m_view->setDecodeSteps(QStringLiteral("deflate, jsn"), &why));
    QVERIFY2(why.contains(QLatin1String("unknown step 'jsn'")), qPrintable(why));
    QVERIFY(m_view->setDecodeSteps(QStringLiteral("deflate, json")));
    QTRY_VERIFY2_WITH_TIMEOUT(m_view->decodedSummary().startsWith(QStringLiteral("raw deflate → JSON")),
                              qPrintable(stringInfo()), kWaitMs);
    QVERIFY2(stringInfo().contains(QStringLiteral("decoded by your steps")), qPrintable(stringInfo()));
    QCOMPARE(m_view->stringMode(), ValueView::StringMode::Decoded);
    screenshot(QStringLiteral("value-decode-steps.png"));
    theme::apply(theme::Theme::Dark);
    QCoreApplication::processEvents();
    screenshot(QStringLiteral("value-decode-steps-dark.png"));
    theme::apply(theme::Theme::Light);

    // A rule whose steps do not fit the value: where it stopped and why, and the bytes as hex.
    m_view->openKey("gz:wrong", KeyType::Unknown);
    QCOMPARE(m_view->decodeStepsEdit()->text(), QString()); // typed steps were the other value's
    QTRY_VERIFY2_WITH_TIMEOUT(stringInfo().contains(QStringLiteral(
                                  "decoding by rule 1 stopped: gzip stopped at byte 2: incorrect header check")),
                              qPrintable(stringInfo()), kWaitMs);
    QCOMPARE(m_view->stringMode(), ValueView::StringMode::Decoded);
    QVERIFY2(stringText().contains(QLatin1String("00000000  ")), qPrintable(stringText()));
    screenshot(QStringLiteral("value-decode-stopped.png"));
    m_view->setDecodeRules(PatternRules());
}

// A collection's selected row decodes below the table: a MessagePack hash field, a base64 +
// zlib list element, a CBOR sorted-set member, a pickled stream field (tests/fixtures/
// decoders/seed_values.py wrote them with those libraries); secrets stay masked until revealed.
void TestValueView::collectionElementsDecoded()
{
    const ProcessRun seed = runPythonFixture(QStringLiteral("decoders/seed_values.py"),
                                             {QStringLiteral("--port"), QString::number(m_server.port())});
    QVERIFY2(seed.code == 0, seed.err.constData());
    const auto select = [this](int row) {
        table()->setCurrentIndex(m_view->model()->index(row, 0));
        return QTest::qWaitFor([this] { return !elementInfo().contains(QStringLiteral("decoding…")); }, kWaitMs);
    };
    const auto rowOf = [this](const QByteArray &name) {
        for (int r = 0; r < m_view->model()->entryCount(); ++r)
            if (m_view->model()->index(r, 0).data(ValueModel::RawBytesRole).toByteArray() == name)
                return r;
        return -1;
    };

    m_view->openKey("user:1", KeyType::Unknown);
    QVERIFY(waitIdle());
    QTRY_COMPARE_WITH_TIMEOUT(m_view->model()->entryCount(), 3, kWaitMs);
    QVERIFY(select(rowOf("profile")));
    QCOMPARE(elementInfo(), QStringLiteral("field profile · decoded: MessagePack"));
    QVERIFY2(elementText().contains(QLatin1String("plan: \"pro\""))
                 && elementText().contains(QLatin1String("seats: 3")),
             qPrintable(elementText()));
    QVERIFY(select(rowOf("password")));
    QCOMPARE(elementText(), masking::maskText());
    screenshot(QStringLiteral("value-element-hash.png"));

    m_view->openKey("jobs:encoded", KeyType::Unknown);
    QVERIFY(waitIdle());
    QTRY_COMPARE_WITH_TIMEOUT(m_view->model()->entryCount(), 4, kWaitMs);
    QVERIFY(select(1));
    QVERIFY2(elementInfo().startsWith(QStringLiteral("element 1 · decoded: base64 → zlib → JSON, ")),
             qPrintable(elementInfo()));
    QVERIFY2(elementText().contains(QLatin1String("job: 1")), qPrintable(elementText()));
    QVERIFY(select(3));
    QCOMPARE(elementInfo(), QStringLiteral("element 3"));
    QCOMPARE(elementText(), QStringLiteral("not encoded"));

    m_view->openKey("z:cbor", KeyType::Unknown);
    QVERIFY(waitIdle());
    QTRY_COMPARE_WITH_TIMEOUT(m_view->model()->entryCount(), 2, kWaitMs);
    QVERIFY(select(1));
    QCOMPARE(elementInfo(), QStringLiteral("member at rank 1 · decoded: CBOR"));
    QVERIFY2(elementText().contains(QLatin1String("m: 1")), qPrintable(elementText()));

    // A pickled session in a stream field: its token masked, then revealed.
    m_view->openKey("st:logins", KeyType::Unknown);
    QVERIFY(waitIdle());
    QTRY_COMPARE_WITH_TIMEOUT(m_view->model()->entryCount(), 1, kWaitMs);
    // The table's cell hides the pickle too: its raw bytes hold the token as it is.
    const QString cell = m_view->model()->index(0, 1).data().toString();
    QVERIFY2(!cell.contains(QLatin1String("f00dfeed5eed")) && cell.contains(QStringLiteral("(pickle with secrets)")),
             qPrintable(cell));
    QVERIFY(child<QCheckBox>("valueReveal")->isVisible());
    QVERIFY(select(0));
    QVERIFY2(elementInfo().endsWith(QStringLiteral(" · decoded: pickle")), qPrintable(elementInfo()));
    QVERIFY2(elementText().startsWith(QLatin1String("session:\n{2}  (__main__.Session)")), qPrintable(elementText()));
    QVERIFY2(!elementText().contains(QLatin1String("f00dfeed5eed")) && elementText().contains(masking::maskText()),
             qPrintable(elementText()));
    QVERIFY2(elementText().endsWith(QLatin1String("n:\n1")), qPrintable(elementText()));
    screenshot(QStringLiteral("value-element-stream.png"));
    theme::apply(theme::Theme::Dark);
    QCoreApplication::processEvents();
    screenshot(QStringLiteral("value-element-stream-dark.png"));
    theme::apply(theme::Theme::Light);
    child<QCheckBox>("valueReveal")->setChecked(true);
    QVERIFY2(elementText().contains(QLatin1String("f00dfeed5eed")), qPrintable(elementText()));
    child<QCheckBox>("valueReveal")->setChecked(false);

    // Brotli in a string has no magic; a rule for the key's type names its steps.
    m_server.command({"HSET", "br:h", "doc", m_server.command({"GET", "br:board"}).bytes()});
    PatternRules rules;
    rules.setRules({{"br:*",
                     KeyType::Hash,
                     PatternKind::Unknown,
                     {},
                     {},
                     0,
                     {decode::Format::Brotli, decode::Format::Json},
                     false}});
    m_view->setDecodeRules(rules);
    m_view->openKey("br:h", KeyType::Unknown);
    QVERIFY(waitIdle());
    QTRY_COMPARE_WITH_TIMEOUT(m_view->model()->entryCount(), 1, kWaitMs);
    QVERIFY(select(0));
    QVERIFY2(elementInfo().startsWith(QStringLiteral("field doc · decoded by rule 1: Brotli → JSON")),
             qPrintable(elementInfo()));
    m_view->setDecodeRules(PatternRules());
}

// A compressed value over 64 KiB decodes (on a thread, as every value does) and a result that
// comes after another key was opened is dropped.
void TestValueView::largeValueDecodedOffThread()
{
    // Random bytes in the JSON keep zlib (the writer here) from shrinking it under 64 KiB.
    QByteArray noise;
    quint32 x = 2463534242u;
    for (int i = 0; i < 150 * 1024; ++i) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        noise.append(char(x));
    }
    const QByteArray json = "{\"blob\": \"" + noise.toBase64() + "\", \"id\": 99}";
    uLongf size = compressBound(uLong(json.size()));
    QByteArray compressed(qsizetype(size), Qt::Uninitialized);
    QCOMPARE(compress2(reinterpret_cast<Bytef *>(compressed.data()), &size,
                       reinterpret_cast<const Bytef *>(json.constData()), uLong(json.size()), 6),
             Z_OK);
    compressed.resize(qsizetype(size));
    QVERIFY(compressed.size() > 64 * 1024);
    m_server.command({"SET", "big:zlib", compressed});
    m_view->openKey("big:zlib", KeyType::Unknown);
    QTRY_VERIFY2_WITH_TIMEOUT(m_view->decodedSummary().startsWith(QStringLiteral("zlib → JSON")),
                              qPrintable(stringInfo()), kWaitMs);
    QVERIFY2(stringText().contains(QLatin1String("id: 99")), qPrintable(stringText().left(300)));
    // Another key opened while one decodes: the first one's result does not land on it.
    m_view->openKey("big:zlib", KeyType::Unknown);
    m_server.command({"SET", "after", "just text"});
    m_view->openKey("after", KeyType::Unknown);
    QTRY_VERIFY_WITH_TIMEOUT(stringText() == QLatin1String("just text"), kWaitMs);
    // Every decoding finished and its queued result delivered: none of them changed the view.
    QTRY_COMPARE_WITH_TIMEOUT(m_view->decodingsInFlight(), 0, kWaitMs);
    QCoreApplication::processEvents();
    QCOMPARE(stringText(), QStringLiteral("just text"));
    QVERIFY(m_view->decodedSummary().isEmpty());
}

QTEST_MAIN(TestValueView)
#include "tst_valueview.moc"
