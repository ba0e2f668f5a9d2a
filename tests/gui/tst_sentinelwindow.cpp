// SPDX-License-Identifier: GPL-3.0-or-later
// The window through Redis Sentinel (a primary, a replica, three sentinels on loopback ports):
// the status line names the primary, its replica and the sentinels, the key browser shows the
// primary's keys; pictured in both palettes.
#include "keybrowser.h"
#include "keytreemodel.h"
#include "mainwindow.h"
#include "redisclient.h"
#include "screenshots.h"
#include "settings.h"
#include "testsentinel.h"
#include "theme.h"

#include <QLabel>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTest>

class TstSentinelWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void showsThePrimaryAndItsSentinels();

private:
    TestSentinel m_setup;
    Settings *m_settings = nullptr;
};

void TstSentinelWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QString error;
    QVERIFY2(m_setup.start(&error), qPrintable(error));
    QList<QList<QByteArray>> writes;
    for (int i = 0; i < 300; ++i)
        writes.append({"SET", "payments:txn:" + QByteArray::number(i), "settled", "EX", "3600"});
    m_setup.primary().pipeline(writes);
    m_settings = new Settings(this);
}

void TstSentinelWindow::showsThePrimaryAndItsSentinels()
{
    ConnectionProfile p;
    p.name = QStringLiteral("payments");
    p.host.clear();
    p.sentinels = m_setup.sentinelAddresses();
    p.sentinelMaster = QStringLiteral("mymaster");
    MainWindow w(p, m_settings);
    w.resize(1400, 860);
    w.show();
    w.start();
    QTRY_COMPARE_WITH_TIMEOUT(w.keyBrowser()->model()->keyCount(), quint64(300), 30000);
    const auto status = [&w] {
        QString all;
        for (const QLabel *l : w.statusBar()->findChildren<QLabel *>())
            all += l->text() + QLatin1Char('\n');
        return all;
    };
    const QString expected
        = QStringLiteral("Sentinel: primary 127.0.0.1:%1, 1 replica, 3 sentinels").arg(m_setup.primary().port());
    QTRY_VERIFY2_WITH_TIMEOUT(status().contains(expected), qPrintable(status()), 15000);
    QVERIFY(w.windowTitle().contains(QStringLiteral("mymaster via Sentinel")));
    screenshots::save(w.grab().toImage(), QStringLiteral("sentinel-window.png"));
    theme::apply(theme::Theme::Dark);
    QCoreApplication::processEvents();
    screenshots::save(w.grab().toImage(), QStringLiteral("sentinel-window-dark.png"));
    theme::apply(theme::Theme::Light);
}

QTEST_MAIN(TstSentinelWindow)
#include "tst_sentinelwindow.moc"
