// SPDX-License-Identifier: GPL-3.0-or-later
// The decoders on values their real writers produced (tests/fixtures/decoders/: Python's gzip,
// zlib, base64, json and pickle, python3-lz4, -snappy, -zstandard, -brotli, -msgpack, -cbor2 and
// -protobuf; Ruby's Marshal; PHP's serialize(); a JVM's ObjectOutputStream): detection finds the
// writer's chain, the tree (as decode::toJson writes it) equals what the writer says it wrote;
// rules decode what has no magic; bombs stop at the cap; cut and damaged values say where they
// broke.
#include "bytesescape.h"
#include "decodercases.h"
#include "decoders.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sys/resource.h>

using decode::Format;
using decode::Node;

namespace {

QStringList names(const QList<decode::Step> &steps)
{
    QStringList out;
    for (const decode::Step &s : steps)
        out << decode::name(s.format);
    return out;
}

qint64 peakRssKiB()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

} // namespace

class TstDecoders : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void writersValues_data();
    void writersValues();
    void bombsStopAtTheCap_data();
    void bombsStopAtTheCap();
    void cutAndDamagedValues();
    void rulesAndNames();
    void treeText();
    void pickleIsNeverRun();

private:
    QByteArray caseValue(const QString &name) const
    {
        for (const QJsonValue c : m_cases)
            if (c[QStringLiteral("name")].toString() == name)
                return QByteArray::fromBase64(c[QStringLiteral("value")].toString().toLatin1());
        qFatal("no case %s", qPrintable(name));
    }

    QTemporaryDir m_dir;
    QJsonArray m_cases;
};

void TstDecoders::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QString error;
    m_cases = writeDecoderCases(m_dir.path(), m_dir.path(), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(m_cases.size() >= 20);
}

void TstDecoders::writersValues_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QStringList>("chain");
    QTest::addColumn<QStringList>("rule");
    QTest::addColumn<QJsonValue>("truth");
    for (const QJsonValue c : std::as_const(m_cases)) {
        QStringList chain, rule;
        for (const QJsonValue s : c[QStringLiteral("chain")].toArray())
            chain << s.toString();
        for (const QJsonValue s : c[QStringLiteral("rule")].toArray())
            rule << s.toString();
        QTest::newRow(qPrintable(c[QStringLiteral("name")].toString()))
            << QByteArray::fromBase64(c[QStringLiteral("value")].toString().toLatin1()) << chain << rule
            << c[QStringLiteral("truth")];
    }
}

void TstDecoders::writersValues()
{
    QFETCH(QByteArray, value);
    QFETCH(QStringList, chain);
    QFETCH(QStringList, rule);
    QFETCH(QJsonValue, truth);

    const decode::Result detected = decode::detect(value);
    QVERIFY2(detected.ok(), qPrintable(detected.error));
    QCOMPARE(names(detected.steps), chain);
    decode::Result result = detected;
    if (!rule.isEmpty()) {
        QList<Format> steps;
        QString why;
        QVERIFY2(decode::parseChain(rule.join(QLatin1Char(',')), &steps, &why), qPrintable(why));
        result = decode::decodeWith(steps, value);
        QVERIFY2(result.ok(), qPrintable(result.error));
        QCOMPARE(names(result.steps), rule);
    }
    if (truth.isNull()) {
        QVERIFY(!result.tree);
        return;
    }
    QVERIFY(result.tree.has_value());
    const QJsonValue got = decode::toJson(*result.tree);
    QVERIFY2(got == truth, QJsonDocument(QJsonArray{got, truth}).toJson().constData());
    QVERIFY(!result.truncated());
    QCOMPARE(result.valueBytes(), value.size());
    QVERIFY(result.decodedBytes() > 0);
}

void TstDecoders::bombsStopAtTheCap_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("steps");
    QTest::newRow("gzip, 1 GB") << QStringLiteral("bomb.gz") << QStringList{QStringLiteral("gzip")};
    QTest::newRow("zstd, 1 GB") << QStringLiteral("bomb.zst") << QStringList{QStringLiteral("zstd")};
    QTest::newRow("lz4, 256 MB") << QStringLiteral("bomb.lz4") << QStringList{QStringLiteral("lz4")};
    QTest::newRow("brotli, 256 MB") << QStringLiteral("bomb.br") << QStringList{QStringLiteral("brotli")};
}

// A bomb decodes up to the cap, says so, and the process does not grow past the cap and change.
void TstDecoders::bombsStopAtTheCap()
{
    QFETCH(QString, file);
    QFETCH(QStringList, steps);
    QFile f(m_dir.filePath(file));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bomb = f.readAll();
    QVERIFY(bomb.size() < 2 * 1024 * 1024);
    const qint64 before = peakRssKiB();
    QList<Format> chain;
    QString why;
    QVERIFY(decode::parseChain(steps.join(QLatin1Char(',')), &chain, &why));
    decode::Result r = decode::decodeWith(chain, bomb);
    QVERIFY2(r.ok(), qPrintable(r.error));
    QVERIFY(r.truncated());
    QCOMPARE(r.bytes.size(), decode::Limits::kDefaultMaxOutput);
    QVERIFY(r.bytes.count('\0') == r.bytes.size());
    // Detection gets there too where the format has a magic.
    if (file != QLatin1String("bomb.br")) {
        const decode::Result d = decode::detect(bomb);
        QCOMPARE(names(d.steps), steps);
        QVERIFY(d.truncated());
    }
    // A smaller cap is a smaller output.
    decode::Limits small;
    small.maxOutput = 1000;
    r = decode::decodeWith(chain, bomb, small);
    QCOMPARE(r.bytes.size(), 1000);
    const qint64 grownMiB = (peakRssKiB() - before) / 1024;
#if defined(__SANITIZE_ADDRESS__)
    // AddressSanitizer keeps freed blocks in its quarantine (256 MiB by default) before reuse.
    constexpr qint64 kBoundMiB = 64 + 256;
#else
    constexpr qint64 kBoundMiB = 64;
#endif
    QVERIFY2(grownMiB < kBoundMiB, qPrintable(QStringLiteral("peak RSS grew by %1 MiB").arg(grownMiB)));
}

// Cut short or damaged, every writer's value ends with where and why, never a crash.
void TstDecoders::cutAndDamagedValues()
{
    int failures = 0;
    for (const QJsonValue c : std::as_const(m_cases)) {
        const QByteArray value = QByteArray::fromBase64(c[QStringLiteral("value")].toString().toLatin1());
        QStringList chain;
        for (const QJsonValue s : c[QStringLiteral("chain")].toArray())
            chain << s.toString();
        if (chain.isEmpty())
            continue;
        QList<Format> steps;
        QString why;
        QVERIFY(decode::parseChain(chain.join(QLatin1Char(',')), &steps, &why));
        const decode::Result cut = decode::decodeWith(steps, value.left(value.size() / 2));
        if (!cut.ok()) {
            ++failures;
            QVERIFY2(cut.errorOffset >= 0, qPrintable(cut.error));
            QVERIFY(cut.failedFormat.has_value());
        }
        QByteArray damaged = value;
        damaged[damaged.size() / 2] = char(damaged.at(damaged.size() / 2) ^ 0x5a);
        const decode::Result bad = decode::decodeWith(steps, damaged);
        if (!bad.ok())
            QVERIFY2(!bad.error.isEmpty() && bad.errorOffset >= 0, qPrintable(bad.error));
    }
    QVERIFY(failures >= 15); // every cut compressed or structured value fails
    // The messages say what went wrong.
    const QByteArray gz = caseValue(QStringLiteral("gzip+json"));
    const decode::Result cut = decode::decodeWith({Format::Gzip}, gz.left(gz.size() - 9));
    QVERIFY2(cut.error.contains(QLatin1String("truncated")), qPrintable(cut.error));
    const decode::Result trailing = decode::decodeWith({Format::Json}, "{\"a\": 1} x");
    QVERIFY(!trailing.ok());
    QVERIFY2(trailing.errorOffset >= 8, qPrintable(QString::number(trailing.errorOffset)));
}

void TstDecoders::rulesAndNames()
{
    QList<Format> steps;
    QString why;
    QVERIFY(decode::parseChain(QStringLiteral("base64, GZIP ,json"), &steps, &why));
    QCOMPARE(steps, (QList<Format>{Format::Base64, Format::Gzip, Format::Json}));
    QVERIFY(!decode::parseChain(QStringLiteral("base64,rot13"), &steps, &why));
    QVERIFY2(why.contains(QLatin1String("unknown step 'rot13'")) && why.contains(QLatin1String("zstd")),
             qPrintable(why));
    QVERIFY(!decode::parseChain(QStringLiteral("json,gzip"), &steps, &why));
    QVERIFY2(why.contains(QLatin1String("nothing can follow")), qPrintable(why));
    QVERIFY(!decode::parseChain(QString(), &steps, &why));
    for (int i = 0; i < decode::kFormatCount; ++i)
        QCOMPARE(decode::formatNamed(decode::name(Format(i))), std::optional<Format>(Format(i)));
    QCOMPARE(decode::formatNamed(QStringLiteral("gz")), std::optional<Format>(Format::Gzip));

    // The chain as a person reads it.
    const decode::Result r = decode::detect(caseValue(QStringLiteral("base64+gzip+json")));
    QCOMPARE(r.chainText(), QStringLiteral("base64 → gzip → JSON"));
    QVERIFY(r.decodedBytes() > r.valueBytes() / 2);
    // Nothing recognised: no steps, the bytes as they were.
    const decode::Result none = decode::detect("hello");
    QVERIFY(none.ok() && !none.decodedAnything());
    QCOMPARE(none.bytes, QByteArray("hello"));
    QCOMPARE(none.chainText(), QString());
}

void TstDecoders::treeText()
{
    const decode::Result r = decode::detect(R"({"b": [1, 2.5, "x y"], "a": null})");
    QVERIFY(r.tree);
    QCOMPARE(decode::treeText(*r.tree), QStringLiteral("{2}\n  a: null\n  b: [3]\n    1\n    2.5\n    \"x y\""));
    QCOMPARE(decode::treeText(*r.tree, 2), QStringLiteral("{2}\n  a: null\n  … (more)"));

    // A MessagePack timestamp past the year 9999 stays bytes (its milliseconds would overflow).
    const decode::StepOutput far
        = decode::apply(Format::MsgPack, QByteArray("\xc7\x0c\xff", 3) + QByteArray(12, char(0x7f)));
    QVERIFY2(far.ok(), qPrintable(far.error));
    QCOMPARE(far.tree->kind, Node::Kind::Bytes);
    QCOMPARE(far.tree->type, QStringLiteral("ext -1"));
}

// A pickle is read, never run: a REDUCE of os.system stays a node naming it; a list that holds
// itself (bytes as Python 3.11's pickle.dumps wrote them) is named, not followed; malformed
// opcodes end with their offset.
void TstDecoders::pickleIsNeverRun()
{
    const QByteArray evil = caseValue(QStringLiteral("pickle os.system"));
    const decode::Result r = decode::detect(evil);
    QVERIFY2(r.ok() && r.tree, qPrintable(r.error));
    QCOMPARE(r.tree->type, QStringLiteral("posix.system"));
    QVERIFY2(decode::treeText(*r.tree).contains(QLatin1String("touch /tmp/redislens-pwned")),
             qPrintable(decode::treeText(*r.tree)));
    QVERIFY(!QFile::exists(QStringLiteral("/tmp/redislens-pwned")));

    const QByteArray itself("\x80\x04\x95\x06\x00\x00\x00\x00\x00\x00\x00]\x94h\x00"
                            "a.",
                            17);
    const decode::StepOutput loop = decode::apply(Format::Pickle, itself);
    QVERIFY2(loop.ok(), qPrintable(loop.error));
    QCOMPARE(decode::treeText(*loop.tree), QStringLiteral("[1]\n  <itself>  (reference)"));

    const decode::StepOutput bad = decode::apply(Format::Pickle, QByteArray("\x80\x04\xff.", 4));
    QVERIFY(!bad.ok());
    QCOMPARE(bad.errorOffset, 2);
    QVERIFY2(bad.error.contains(QLatin1String("unknown opcode 0xff")), qPrintable(bad.error));
    const decode::StepOutput noStop = decode::apply(Format::Pickle, QByteArray("\x80\x04N", 3));
    QVERIFY2(noStop.error.contains(QLatin1String("truncated")), qPrintable(noStop.error));

    // Shared values shown wherever they are used stop at the node cap: pickle's own writer put
    // 2^40 elements in a few hundred bytes (write_values.py --bombs).
    QFile f(m_dir.filePath(QStringLiteral("bomb.pickle")));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray shared = f.readAll();
    QVERIFY(shared.size() < 1024);
    const qint64 before = peakRssKiB();
    const decode::StepOutput bomb = decode::apply(Format::Pickle, shared);
    QVERIFY(!bomb.ok());
    QVERIFY2(bomb.error.contains(QLatin1String("more than 1000000 nodes")), qPrintable(bomb.error));
    QVERIFY(!decode::detect(shared).tree); // detection, which tries it, finds nothing
    QVERIFY2(peakRssKiB() - before < 64 * 1024, qPrintable(QString::number(peakRssKiB() - before)));
}

QTEST_GUILESS_MAIN(TstDecoders)
#include "tst_decoders.moc"
