// SPDX-License-Identifier: GPL-3.0-or-later
#include "settings.h"

#include <QCoreApplication>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
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
        QCOMPARE(Settings().scanRate(), 50000);
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
};

QTEST_GUILESS_MAIN(TestSettings)
#include "tst_settings.moc"
