// SPDX-License-Identifier: GPL-3.0-or-later
// A deterministic mutation loop over every decoder: 100,000 damaged inputs each, grown from
// values the real writers produced (tests/fixtures/decoders/). Each ends with a
// result or a clear error, within the output cap, and without a crash (CI runs this under the
// asan preset too, where a read past a buffer ends the run).
#include "decodercases.h"
#include "decoders.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <array>

using decode::Format;

namespace {

// xorshift64*: the same inputs on every run and machine.
class Random
{
public:
    explicit Random(quint64 seed) : m_state(seed ? seed : 1) { }
    quint64 next()
    {
        m_state ^= m_state >> 12;
        m_state ^= m_state << 25;
        m_state ^= m_state >> 27;
        return m_state * 0x2545F4914F6CDD1DULL;
    }
    qsizetype below(qsizetype n) { return n <= 0 ? 0 : qsizetype(next() % quint64(n)); }

private:
    quint64 m_state;
};

QByteArray mutate(QByteArray v, Random &r)
{
    const int edits = 1 + int(r.below(4));
    for (int e = 0; e < edits; ++e) {
        const qsizetype at = r.below(v.size() + 1);
        switch (r.below(6)) {
        case 0: // flip a bit
            if (at < v.size())
                v[at] = char(v.at(at) ^ (1 << r.below(8)));
            break;
        case 1: // a random byte
            if (at < v.size())
                v[at] = char(r.next());
            break;
        case 2: v.insert(at, char(r.next())); break;
        case 3:
            if (at < v.size())
                v.remove(at, 1 + r.below(8));
            break;
        case 4: v.truncate(at); break;
        case 5: // a run repeated, as a length field gone wrong would
            if (at < v.size())
                v.insert(at, v.mid(at, 1 + r.below(32)));
            break;
        }
    }
    return v;
}

} // namespace

class TstDecodeFuzz : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void mutations_data();
    void mutations();

private:
    QList<QByteArray> m_seeds; // every writer's value, and each step's input along its chain
    std::array<QList<QByteArray>, decode::kFormatCount> m_own; // per format: the inputs written in it
};

void TstDecodeFuzz::initTestCase()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString error;
    const QJsonArray cases = writeDecoderCases(dir.path(), {}, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    for (const QJsonValue c : cases) {
        const QByteArray value = QByteArray::fromBase64(c[QStringLiteral("value")].toString().toLatin1());
        m_seeds.append(value);
        // Each step's input along the writer's chain (or rule) is a seed of that step's own
        // format, so that every decoder mostly gets inputs that go deep into its grammar.
        QStringList names;
        for (const QJsonValue n : c[QStringLiteral("rule")].isArray() ? c[QStringLiteral("rule")].toArray()
                                                                      : c[QStringLiteral("chain")].toArray())
            names << n.toString();
        QByteArray input = value;
        for (const QString &n : std::as_const(names)) {
            const Format f = *decode::formatNamed(n);
            m_own[int(f)].append(input);
            const decode::StepOutput o = decode::apply(f, input);
            if (!o.ok() || decode::isStructure(f))
                break;
            input = o.bytes;
            m_seeds.append(input);
        }
    }
    for (int f = 0; f < decode::kFormatCount; ++f)
        QVERIFY2(!m_own[f].isEmpty(), qPrintable(decode::name(Format(f))));
    QVERIFY2(m_seeds.size() >= 30, qPrintable(QString::number(m_seeds.size())));
}

void TstDecodeFuzz::mutations_data()
{
    QTest::addColumn<int>("format");
    for (int i = 0; i < decode::kFormatCount; ++i)
        QTest::newRow(qPrintable(decode::name(Format(i)))) << i;
}

void TstDecodeFuzz::mutations()
{
    QFETCH(int, format);
    const auto f = Format(format);
    decode::Limits limits;
    limits.maxOutput = 1024 * 1024;
    limits.maxNodes = 100'000;
    Random random(0x5eed0000ULL + quint64(format));
    constexpr int kInputs = 100'000;
    int worked = 0, failed = 0;
    for (int i = 0; i < kInputs; ++i) {
        // Nine in ten from the decoder's own format, the rest from anything.
        const QList<QByteArray> &pool = random.below(10) < 9 ? m_own[format] : m_seeds;
        const QByteArray input = mutate(pool.at(random.below(pool.size())), random);
        const decode::StepOutput out = decode::apply(f, input, limits);
        if (out.ok()) {
            ++worked;
            QVERIFY(out.bytes.size() <= limits.maxOutput);
            QVERIFY(out.consumed <= input.size());
        } else {
            ++failed;
            if (out.error.isEmpty() || out.errorOffset < 0 || out.errorOffset > input.size())
                QFAIL(qPrintable(QStringLiteral("input %1: error '%2' at %3 of %4 bytes")
                                     .arg(i)
                                     .arg(out.error)
                                     .arg(out.errorOffset)
                                     .arg(input.size())));
        }
    }
    QCOMPARE(worked + failed, kInputs);
    qInfo("%s: %d decoded, %d refused with a reason", qPrintable(decode::name(f)), worked, failed);
}

QTEST_GUILESS_MAIN(TstDecodeFuzz)
#include "tst_decodefuzz.moc"
