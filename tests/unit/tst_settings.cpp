// SPDX-License-Identifier: GPL-3.0-or-later
#include "keyscanner.h"
#include "settings.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

class TestSettings : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("RedisLensTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_settings"));
        QSettings().clear();
    }

    void commandLineOverridesAreNotSaved()
    {
        {
            Settings s;
            const int saved = s.scanRate();
            s.overrideScanRate(0);
            s.overrideSeparator("/");
            QCOMPARE(s.scanRate(), 0);
            QCOMPARE(s.separator(), QByteArray("/"));
            QCOMPARE(Settings().scanRate(), saved); // another run sees the saved value
            QCOMPARE(Settings().separator(), QByteArray(":"));
        }
        QCOMPARE(Settings().scanRate(), kAdaptivePacing); // the default: the scan paces itself
    }

    // Stored as the word "auto" (readable in the file), a number, or nothing: anything else
    // falls back to the default rather than to 0 (no ceiling at all).
    void scanPacingIsStoredReadably()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("redislens.conf"));
        {
            Settings s(path);
            s.setScanRate(5000);
            s.setScanRate(kAdaptivePacing);
        }
        QVERIFY2(readFile(path).contains("scanRate=auto"), readFile(path).constData());
        QCOMPARE(Settings(path).scanRate(), kAdaptivePacing);
        writeFile(path, "[browser]\nscanRate=fast\n");
        QCOMPARE(Settings(path).scanRate(), kAdaptivePacing);
        writeFile(path, "[browser]\nscanRate=0\n");
        QCOMPARE(Settings(path).scanRate(), 0);
        // The same through the default file.
        {
            Settings s;
            s.setScanRate(12000);
            s.setScanRate(kAdaptivePacing);
        }
        QCOMPARE(Settings().scanRate(), kAdaptivePacing);
    }

    void changesInTheWindowAreSaved()
    {
        Settings s;
        s.overrideScanRate(0);
        QSignalSpy changed(&s, &Settings::scanRateChanged);
        s.setScanRate(1234); // replaces the override and persists
        QCOMPARE(s.scanRate(), 1234);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(Settings().scanRate(), 1234);
        s.setSeparator("::");
        QCOMPARE(Settings().separator(), QByteArray("::"));
    }

    void pollIntervalIsBoundedAndSaved()
    {
        Settings s;
        QCOMPARE(s.pollIntervalMs(), 1000);
        QSignalSpy changed(&s, &Settings::pollIntervalChanged);
        s.setPollIntervalMs(10); // faster than a quarter second would cost the server for nothing
        QCOMPARE(s.pollIntervalMs(), 250);
        s.setPollIntervalMs(5000);
        QCOMPARE(Settings().pollIntervalMs(), 5000);
        s.setPollIntervalMs(5000);
        QCOMPARE(changed.count(), 2);
        s.setPollIntervalMs(1000);
    }

    // A damaged file (a crash mid-write on an old version, a disk, a hand edit): the window
    // starts from the defaults, says where the file was kept, and loses none of its bytes.
    void damagedFileIsKeptAsideAndDefaultsUsed()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("redislens.conf"));
        const QByteArray damaged = QByteArray("[browser]\nscanRate=77\n") + QByteArray("\xff\xfe\x00[[[\n=\n", 9);
        writeFile(path, damaged);
        Settings s(path);
        QVERIFY2(s.problem().contains(QLatin1String("was kept as")), qPrintable(s.problem()));
        QCOMPARE(s.scanRate(), kAdaptivePacing);
        const QStringList aside = QDir(dir.path()).entryList({QStringLiteral("redislens.conf.corrupt-*")});
        QCOMPARE(aside.size(), 1);
        QVERIFY(s.problem().contains(aside.first()));
        QCOMPARE(readFile(dir.filePath(aside.first())), damaged);
        // The new file is whole and written as usual.
        s.setScanRate(9000);
        Settings again(path);
        QCOMPARE(again.problem(), QString());
        QCOMPARE(again.scanRate(), 9000);
        // A second damaged file on the same second gets a name of its own.
        writeFile(path, damaged);
        Settings third(path);
        QCOMPARE(QDir(dir.path()).entryList({QStringLiteral("redislens.conf.corrupt-*")}).size(), 2);
        // A whole INI file whose saved connections are not a list: the next connection saved
        // would replace them, so the file is kept aside as well.
        QFile::remove(path);
        {
            QSettings raw(path, QSettings::IniFormat);
            raw.setValue(QStringLiteral("connections/saved"), QByteArray("[{\"name\":\"prod\",\"host\":"));
        }
        Settings fourth(path);
        QVERIFY2(fourth.problem().contains(QLatin1String("was kept as")), qPrintable(fourth.problem()));
        QCOMPARE(fourth.connections().size(), 0);
        QCOMPARE(QDir(dir.path()).entryList({QStringLiteral("redislens.conf.corrupt-*")}).size(), 3);
    }

    // show and check read the settings but must not move or rewrite the user's file.
    void headlessLeavesADamagedFileAlone()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("redislens.conf"));
        const QByteArray damaged = QByteArray("[browser]\nseparator=/\n") + QByteArray("\x00\x01[[[\n", 6);
        writeFile(path, damaged);
        {
            Settings s(path, nullptr, Settings::Damaged::Leave);
            QVERIFY2(s.problem().contains(QLatin1String("damaged")), qPrintable(s.problem()));
            s.setScanRate(5); // lasts for the run
            QCOMPARE(s.scanRate(), 5);
        }
        QCOMPARE(readFile(path), damaged);
        QCOMPARE(QDir(dir.path()).entryList({QStringLiteral("*.corrupt-*")}), QStringList());
    }

    // The config directory cannot be made (a file stands where it should be; root cannot get
    // past that either): a warning, and choices last for the run.
    // The first run on a machine: the configuration directory is not there yet. That is no
    // problem, and choices are saved.
    void aDirectoryNotMadeYetIsNoProblem()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("not/made/yet/redislens.conf"));
        {
            Settings s(path);
            QCOMPARE(s.problem(), QString());
            s.setScanRate(4321);
            s.setScanRate(8765);
            QCOMPARE(s.problem(), QString());
        }
        QCOMPARE(Settings(path).scanRate(), 8765);
        // The same through the default file, its directory gone too.
        const QString file = QSettings().fileName();
        QVERIFY(QDir(QFileInfo(file).absolutePath()).removeRecursively());
        {
            Settings s;
            QCOMPARE(s.problem(), QString());
            s.setScanRate(4321);
            s.setScanRate(8765);
            QCOMPARE(s.problem(), QString());
        }
        QCOMPARE(Settings().scanRate(), 8765);
        QSettings().remove(QStringLiteral("browser/scanRate")); // the default again, for what follows
    }

    void unwritableDirectoryKeepsChoicesForTheRun()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath(QStringLiteral("config")), "not a directory");
        const QString path = dir.filePath(QStringLiteral("config/redislens.conf"));
        Settings s(path);
        QVERIFY2(s.problem().contains(QLatin1String("cannot be saved")), qPrintable(s.problem()));
        QSignalSpy changed(&s, &Settings::scanRateChanged);
        s.setScanRate(1234);
        QCOMPARE(s.scanRate(), 1234);
        QCOMPARE(changed.count(), 1);
        QVERIFY(!QFileInfo::exists(path));
    }

    // The directory goes away under a running window: the first write that fails says so once,
    // and what the user chose still holds.
    void writeFailingLaterIsSaidOnce()
    {
        QTemporaryDir dir;
        const QString sub = dir.filePath(QStringLiteral("config"));
        QVERIFY(QDir().mkpath(sub));
        const QString path = sub + QStringLiteral("/redislens.conf");
        Settings s(path);
        QCOMPARE(s.problem(), QString());
        s.setSeparator("/");
        QVERIFY(QDir(sub).removeRecursively());
        writeFile(sub, "now a file");
        QSignalSpy problem(&s, &Settings::problemFound);
        s.setScanRate(321);
        s.setPollIntervalMs(2000);
        QCOMPARE(problem.count(), 1);
        QVERIFY2(problem.first().first().toString().contains(QLatin1String("cannot be saved")),
                 qPrintable(problem.first().first().toString()));
        QCOMPARE(s.scanRate(), 321);
        QCOMPARE(s.pollIntervalMs(), 2000);
        QCOMPARE(s.separator(), QByteArray("/"));
    }

private:
    static void writeFile(const QString &path, const QByteArray &bytes)
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QCOMPARE(f.write(bytes), bytes.size());
    }
    static QByteArray readFile(const QString &path)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>");
    }
};

QTEST_GUILESS_MAIN(TestSettings)
#include "tst_settings.moc"
