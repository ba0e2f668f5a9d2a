// SPDX-License-Identifier: GPL-3.0-or-later
#include "bytesescape.h"
#include "check.h"
#include "commandline.h"
#include "connectiondialog.h"
#include "demo.h"
#include "mainwindow.h"
#include "report.h"
#include "secretstore.h"
#include "settings.h"
#include "show.h"
#include "sshtunnel.h"
#include "tlsconfig.h"

#include <QApplication>
#include <QInputDialog>
#include <QMessageBox>
#include <QStandardPaths>
#include <QTextStream>
#include <QTimer>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <termios.h>
#include <unistd.h>

namespace {

void setIdentity()
{
    QCoreApplication::setOrganizationName(QStringLiteral("RedisLens"));
    QCoreApplication::setApplicationName(QStringLiteral("redislens"));
    QCoreApplication::setApplicationVersion(QStringLiteral(REDISLENS_VERSION));
}

int usageError(const QString &message)
{
    std::fprintf(stderr, "redislens: %s\n", qPrintable(message));
    std::fprintf(stderr, "Try 'redislens --help' for more information.\n");
    return 2;
}

// --askpass without a window: the terminal, with echo off.
std::optional<QString> passwordFromTerminal(const QString &prompt)
{
    if (::isatty(STDIN_FILENO) != 1)
        return std::nullopt;
    // Echo goes off before the prompt shows: what is typed as soon as it shows is not echoed.
    termios saved{};
    tcgetattr(STDIN_FILENO, &saved);
    termios quiet = saved;
    quiet.c_lflag &= ~tcflag_t(ECHO);
    tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
    std::fprintf(stderr, "%s", qPrintable(prompt));
    std::fflush(stderr);
    QByteArray line;
    for (char c = 0; ::read(STDIN_FILENO, &c, 1) == 1 && c != '\n';)
        line.append(c);
    tcsetattr(STDIN_FILENO, TCSANOW, &saved);
    std::fprintf(stderr, "\n");
    return QString::fromLocal8Bit(line);
}

QString hostKeyQuestion(const SshTunnel::HostKey &key)
{
    return QStringLiteral("The SSH bastion %1 is not in %2.\nIts %3 host key has the fingerprint\n  %4\n"
                          "Trust it and remember it there?")
        .arg(key.host, key.knownHostsFile, key.type, key.fingerprint);
}

// An unknown bastion host key, without a window: the terminal asks, as ssh does; without a
// terminal the key is not trusted (--ssh-accept-new trusts it).
bool hostKeyFromTerminal(const SshTunnel::HostKey &key)
{
    if (::isatty(STDIN_FILENO) != 1)
        return false;
    std::fprintf(stderr, "%s (yes/no) ", qPrintable(hostKeyQuestion(key)));
    std::fflush(stderr);
    QByteArray line;
    for (char c = 0; ::read(STDIN_FILENO, &c, 1) == 1 && c != '\n';)
        line.append(c);
    const QByteArray answer = line.trimmed().toLower();
    return answer == "yes" || answer == "y";
}

// The headless commands' profile: the line's, or the demo's (seeded, its simulator off, so one
// read sees one state), with the password and the key passphrase asked on the terminal. Exit
// status 2 and one line when that fails.
std::optional<ConnectionProfile> headlessProfile(const CommandLine &cl, std::unique_ptr<Demo> &demo, int *status)
{
    *status = 2;
    ConnectionProfile profile = cl.profile;
    if (cl.demo) {
        demo = std::make_unique<Demo>();
        QString error;
        if (!demo->seedBlocking(&error)) {
            headless::reportError(QStringLiteral("cannot start the demo: %1").arg(error));
            return std::nullopt;
        }
        profile = cl.applyOptionsTo(demo->profile());
        profile.name = QStringLiteral("demo");
    }
    // Each secret the connection needs and the line did not give is asked for on the terminal;
    // without one, the line says how else to give it.
    const auto ask = [](const QString &prompt, const QString &withoutTerminal, QString *into) {
        const auto typed = passwordFromTerminal(prompt);
        if (!typed)
            headless::reportError(withoutTerminal);
        else
            *into = *typed;
        return typed.has_value();
    };
    if (cl.askPass
        && !ask(QStringLiteral("Password for %1: ").arg(profile.displayName()),
                QStringLiteral("--askpass needs a terminal on stdin; use REDISCLI_AUTH"), &profile.password))
        return std::nullopt;
    if (cl.askSentinelPassword
        && !ask(QStringLiteral("Password for the sentinels of %1: ").arg(profile.sentinelMaster),
                QStringLiteral("--sentinel-askpass needs a terminal on stdin; use REDISLENS_SENTINEL_AUTH"),
                &profile.sentinelPassword))
        return std::nullopt;
    if (!profile.clientKeyFile.isEmpty() && tlsconfig::keyIsEncrypted(profile.clientKeyFile)
        && !ask(QStringLiteral("Passphrase for %1: ").arg(profile.clientKeyFile),
                QStringLiteral("the client key %1 is encrypted: its passphrase is asked for on a terminal, and "
                               "stdin is not one")
                    .arg(profile.clientKeyFile),
                &profile.keyPassphrase))
        return std::nullopt;
    SshSettings &ssh = profile.ssh;
    if (!ssh.keyFile.isEmpty() && ssh.keyPassphrase.isEmpty() && sshkeys::isEncrypted(ssh.keyFile)
        && !ask(QStringLiteral("Passphrase for the SSH key %1: ").arg(ssh.keyFile),
                QStringLiteral("the SSH key %1 is encrypted: its passphrase is asked for on a terminal, and stdin "
                               "is not one (or use ssh-agent)")
                    .arg(ssh.keyFile),
                &ssh.keyPassphrase))
        return std::nullopt;
    if (ssh.usePassword && ssh.password.isEmpty()
        && !ask(QStringLiteral("SSH password for %1: ").arg(ssh.displayName()),
                QStringLiteral("--ssh-password asks on a terminal, and stdin is not one"), &ssh.password))
        return std::nullopt;
    if (ssh.enabled())
        SshTunnel::setHostKeyAsker(hostKeyFromTerminal);
    return profile;
}

void printWarnings(const CommandLine &cl)
{
    for (const QString &w : std::as_const(cl.warnings))
        std::fprintf(stderr, "%s\n", qPrintable(w));
}

int runCheck(int argc, char **argv, const CommandLine &cl)
{
    QCoreApplication app(argc, argv);
    setIdentity();
    if (const QString why = cl.tlsFilesError(); !why.isEmpty()) {
        headless::reportError(why);
        return 2;
    }
    printWarnings(cl);
    std::unique_ptr<Demo> demo;
    int status = 0;
    const auto profile = headlessProfile(cl, demo, &status);
    if (!profile)
        return status;
    return headless::check(*profile, cl.checkJson);
}

// The window's prompts: the password (--askpass) and an encrypted client key's passphrase,
// each in a dialog. False when the user cancels one.
bool askWindowSecrets(ConnectionProfile &profile, bool askPass, QWidget *parent, bool askSentinel = false)
{
    if (askSentinel) {
        bool ok = false;
        profile.sentinelPassword
            = QInputDialog::getText(parent, QStringLiteral("RedisLens"),
                                    QStringLiteral("Password for the sentinels of %1:").arg(profile.sentinelMaster),
                                    QLineEdit::Password, QString(), &ok);
        if (!ok)
            return false;
    }
    if (askPass) {
        bool ok = false;
        const QString pw = QInputDialog::getText(parent, QStringLiteral("RedisLens"),
                                                 QStringLiteral("Password for %1:").arg(profile.displayName()),
                                                 QLineEdit::Password, QString(), &ok);
        if (!ok)
            return false;
        profile.password = pw;
    }
    if (!profile.clientKeyFile.isEmpty() && tlsconfig::keyIsEncrypted(profile.clientKeyFile)) {
        bool ok = false;
        profile.keyPassphrase
            = QInputDialog::getText(parent, QStringLiteral("RedisLens"),
                                    QStringLiteral("Passphrase for the client key %1:").arg(profile.clientKeyFile),
                                    QLineEdit::Password, QString(), &ok);
        if (!ok)
            return false;
    }
    SshSettings &ssh = profile.ssh;
    if (!ssh.keyFile.isEmpty() && ssh.keyPassphrase.isEmpty() && sshkeys::isEncrypted(ssh.keyFile)) {
        bool ok = false;
        ssh.keyPassphrase = QInputDialog::getText(parent, QStringLiteral("RedisLens"),
                                                  QStringLiteral("Passphrase for the SSH key %1:").arg(ssh.keyFile),
                                                  QLineEdit::Password, QString(), &ok);
        if (!ok)
            return false;
    }
    if (ssh.usePassword && ssh.password.isEmpty()) {
        bool ok = false;
        ssh.password = QInputDialog::getText(parent, QStringLiteral("RedisLens"),
                                             QStringLiteral("SSH password for %1:").arg(ssh.displayName()),
                                             QLineEdit::Password, QString(), &ok);
        if (!ok)
            return false;
    }
    return true;
}

// An unknown bastion host key, in a window: asked on the GUI thread while the tunnel's waits.
void askHostKeysInDialogs()
{
    SshTunnel::setHostKeyAsker([](const SshTunnel::HostKey &key) {
        bool trusted = false;
        QMetaObject::invokeMethod(
            qApp,
            [&] {
                trusted
                    = QMessageBox::question(nullptr, QStringLiteral("RedisLens: unknown SSH host key"),
                                            hostKeyQuestion(key), QMessageBox::Yes | QMessageBox::No, QMessageBox::No)
                    == QMessageBox::Yes;
            },
            Qt::BlockingQueuedConnection);
        return trusted;
    });
}

// `redislens show` and `redislens report`: a QCoreApplication, never a display.
int runHeadless(int argc, char **argv, const CommandLine &cl)
{
    QCoreApplication app(argc, argv);
    setIdentity();
    const bool isReport = cl.action == CommandLine::Action::Report;
    const QString command = isReport ? QStringLiteral("report: ") : QStringLiteral("show: ");
    if (const QString why = cl.tlsFilesError(); !why.isEmpty()) {
        headless::reportError(command + why);
        return 2;
    }
    printWarnings(cl);
    ReportRequest report = cl.report;
    if (!isReport)
        report.scan = cl.show;
    ShowRequest &request = report.scan; // what the scan shares with show
    // The window's settings, unless the line overrides them; a damaged file is read as far as it
    // goes and left for the window to keep aside.
    Settings settings(nullptr, Settings::Damaged::Leave);
    if (!settings.problem().isEmpty())
        std::fprintf(stderr, "redislens: %s\n", qPrintable(settings.problem()));
    if (!cl.separator.isEmpty())
        settings.overrideSeparator(cl.separator);
    if (cl.scanRate)
        settings.overrideScanRate(*cl.scanRate);
    request.separator = settings.separator();
    request.scanRate = settings.scanRate();
    request.rulesFile
        = QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation) + QStringLiteral("/rules.json");

    std::unique_ptr<Demo> demo;
    int status = 0;
    const auto found = headlessProfile(cl, demo, &status);
    if (!found)
        return status;
    const ConnectionProfile &profile = *found;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    // Sanitizer builds free everything: a leak or a race in the teardown is found there.
    return isReport ? headless::report(report, profile) : headless::show(request, profile);
#else
    const int code = isReport ? headless::report(report, profile, headless::Teardown::LeaveToExit)
                              : headless::show(request, profile, headless::Teardown::LeaveToExit);
    demo.reset(); // its server stops; the rest is the kernel's to free
    std::fflush(nullptr);
    std::_Exit(code);
#endif
}

// The window: the connection manager first when the line names no server, then one window per
// connection.
int runWindow(int argc, char **argv, const CommandLine &cl)
{
    QString error;
    QByteArray openKey;
    if (!cl.openKey.isEmpty()) {
        const auto key = bytesescape::unescape(cl.openKey, &error);
        if (!key)
            return usageError(QStringLiteral("--open: %1").arg(error));
        openKey = *key;
    }
    printWarnings(cl);

    // A screenshot is rendered offscreen unless the caller chose a platform (xvfb-run, say).
    if (!cl.screenshot.isEmpty() && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");

    QApplication app(argc, argv);
    setIdentity();
    if (const QString why = cl.tlsFilesError(); !why.isEmpty())
        return usageError(why);
    QApplication::setApplicationDisplayName(QStringLiteral("RedisLens"));
    askHostKeysInDialogs();
    Settings settings; // the window says what went wrong with the file, if anything did
    if (!settings.problem().isEmpty())
        std::fprintf(stderr, "redislens: %s\n", qPrintable(settings.problem()));
    if (!cl.separator.isEmpty())
        settings.overrideSeparator(cl.separator);
    if (cl.scanRate)
        settings.overrideScanRate(*cl.scanRate);

    std::unique_ptr<Demo> demo;
    ConnectionProfile profile = cl.profile;
    if (cl.demo) {
        demo = std::make_unique<Demo>();
        if (!demo->start(&error)) {
            std::fprintf(stderr, "redislens: cannot start the demo: %s\n", qPrintable(error));
            return 1;
        }
        profile = cl.applyOptionsTo(demo->profile());
        profile.name = QStringLiteral("demo");
    }
    if (!askWindowSecrets(profile, cl.askPass, nullptr, cl.askSentinelPassword))
        return 1;
    const std::unique_ptr<SecretStore> secrets = SecretStore::system();
    SavedConnection chosen;
    // Started without saying where to connect: the connection manager first.
    if (!cl.connectGiven && !cl.demo && cl.screenshot.isEmpty()) {
        ConnectionDialog dialog(&settings, secrets.get());
        if (dialog.exec() != QDialog::Accepted)
            return 0;
        chosen = dialog.chosen();
        profile = cl.applyOptionsTo(dialog.chosenProfile());
        profile.readOnly = profile.readOnly || dialog.chosenProfile().readOnly;
        if (!askWindowSecrets(profile, false, nullptr))
            return 1;
    }
    // File → Connect… in any window opens the manager and, for its choice, one more window.
    std::function<void(QWidget *)> openAnother = [&](QWidget *parent) {
        ConnectionDialog dialog(&settings, secrets.get(), parent);
        if (dialog.exec() != QDialog::Accepted)
            return;
        ConnectionProfile p = dialog.chosenProfile();
        if (!askWindowSecrets(p, false, parent))
            return;
        auto *w = new MainWindow(p, &settings);
        w->setAttribute(Qt::WA_DeleteOnClose);
        w->setConnection(dialog.chosen());
        QObject::connect(w, &MainWindow::connectRequested, w, [&openAnother, w] { openAnother(w); });
        w->show();
        w->start();
    };

    MainWindow window(profile, &settings);
    if (!chosen.id.isEmpty())
        window.setConnection(chosen);
    QObject::connect(&window, &MainWindow::connectRequested, &window, [&] { openAnother(&window); });
    if (demo)
        window.attachDemo(demo.get());
    if (!cl.openKey.isEmpty()) // an empty name is a key too: '--open ""'
        window.openKeyWhenReady(openKey);
    int exitCode = 0;
    if (!cl.screenshot.isEmpty()) {
        window.resize(1400, 860);
        QObject::connect(&window, &MainWindow::screenshotDone, &app, [&](bool ok, const QString &message) {
            if (!ok) {
                std::fprintf(stderr, "redislens: screenshot failed: %s\n", qPrintable(message));
                exitCode = 1;
            }
            app.exit(exitCode);
        });
        window.takeScreenshotWhenReady(cl.screenshot, cl.panel);
        // A server that never answers must not leave a headless run hanging.
        QTimer::singleShot(60000, &app, [&] {
            std::fprintf(stderr, "redislens: screenshot timed out waiting for the first scan\n");
            app.exit(1);
        });
    } else {
        window.showPanel(cl.panel);
    }
    window.show();
    window.start();
    const int code = app.exec();
    return cl.screenshot.isEmpty() ? code : exitCode == 0 ? code : exitCode;
}

} // namespace

int main(int argc, char **argv)
{
    // Parse before any application object exists: --help, --version, show and bad arguments
    // never need a display.
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    QString error;
    const auto parsed = CommandLine::parse(arguments, &error, qEnvironmentVariable("REDISCLI_AUTH"));
    const QString first = arguments.value(1);
    if (!parsed
        && (first == QLatin1String("show") || first == QLatin1String("check") || first == QLatin1String("report"))) {
        headless::reportError(error); // one line: scripts read it
        return 2;
    }
    if (!parsed)
        return usageError(error);
    CommandLine cl = *parsed;
    if (cl.action == CommandLine::Action::Help) {
        QCoreApplication app(argc, argv);
        setIdentity();
        QTextStream(stdout) << cl.helpText;
        return 0;
    }
    if (cl.action == CommandLine::Action::Version) {
        QTextStream(stdout) << "redislens " << REDISLENS_VERSION << '\n';
        return 0;
    }
    if (cl.action == CommandLine::Action::Show || cl.action == CommandLine::Action::Report)
        return runHeadless(argc, argv, cl);
    if (cl.action == CommandLine::Action::Check)
        return runCheck(argc, argv, cl);
    return runWindow(argc, argv, cl);
}
