// SPDX-License-Identifier: GPL-3.0-or-later
// Every parser of outside input over a deterministic mutation loop: the seeds, then inputs made
// from them by a fixed-seed mutator (the same inputs on every run and machine), each run
// through the target's invariants (see fuzztargets.cpp). A broken invariant aborts with the
// input printed. The asan preset runs this under AddressSanitizer and UBSan.
//
// REDISLENS_FUZZ_INPUTS sets the inputs per target (default 20,000); each target also stops
// after REDISLENS_FUZZ_SECONDS (default 30), so a slow machine bounds the test's time.
#include "connectionimport.h"
#include "fuzztargets.h"
#include "mutator.h"

#include <QElapsedTimer>
#include <QTest>

class TestFuzz : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void targets_data();
    void targets();
};

void TestFuzz::targets_data()
{
    QTest::addColumn<QString>("name");
    for (const fuzz::Target &t : fuzz::targets())
        QTest::newRow(qPrintable(t.name)) << t.name;
}

void TestFuzz::targets()
{
    QFETCH(QString, name);
    const fuzz::Target *target = fuzz::findTarget(name);
    QVERIFY(target);
    const QString sourceDir = qEnvironmentVariable("REDISLENS_SOURCE_DIR");
    QVERIFY2(!sourceDir.isEmpty(), "REDISLENS_SOURCE_DIR names the source directory (ctest sets it)");
    QList<QByteArray> corpus = fuzz::seeds(*target, sourceDir);
    QVERIFY2(!corpus.isEmpty(), qPrintable(QStringLiteral("no seeds for %1").arg(name)));
    if (name == QLatin1String("import")) {
        // RedisLens's own export, as it writes it.
        SavedConnection local;
        local.id = QStringLiteral("f3a1");
        local.profile.name = QStringLiteral("local");
        local.profile.host = QStringLiteral("127.0.0.1");
        local.profile.port = 6380;
        SavedConnection prod = local;
        prod.id = QStringLiteral("9c2e");
        prod.tag = SavedConnection::Tag::Production;
        prod.profile.readOnly = true;
        prod.profile.username = QStringLiteral("inspector");
        corpus.append(connectionimport::exportJson({local, prod}));
    }

    bool ok = false;
    const int inputs = qEnvironmentVariableIntValue("REDISLENS_FUZZ_INPUTS", &ok);
    const int wanted = ok && inputs > 0 ? inputs : 20000;
    const int seconds = qEnvironmentVariableIntValue("REDISLENS_FUZZ_SECONDS", &ok);
    const qint64 budgetMs = (ok && seconds > 0 ? seconds : 30) * 1000LL;

    QElapsedTimer clock;
    clock.start();
    for (const QByteArray &seed : std::as_const(corpus))
        target->run(seed);
    Mutator mutator(qHash(name, 0x5eed), corpus, target->dictionary);
    int ran = 0;
    for (; ran < wanted && clock.elapsed() < budgetMs; ++ran) {
        const QByteArray input = mutator.next();
        target->run(input);
        if (ran % 10 == 0)
            mutator.keep(input);
    }
    qInfo("fuzz %s: %lld seeds and %d mutated inputs in %lld ms", qPrintable(name),
          static_cast<long long>(corpus.size()), ran, static_cast<long long>(clock.elapsed()));
    QVERIFY(ran > 0);
}

QTEST_GUILESS_MAIN(TestFuzz)
#include "tst_fuzz.moc"
