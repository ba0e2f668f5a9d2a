// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandline.h"

#include "panelregistry.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QSslCertificate>

namespace {

bool parseInt(const QString &text, int min, int max, int *out)
{
    bool ok = false;
    const int v = text.toInt(&ok);
    if (!ok || v < min || v > max)
        return false;
    *out = v;
    return true;
}

} // namespace

ConnectionProfile CommandLine::applyOptionsTo(ConnectionProfile where) const
{
    where.readOnly = profile.readOnly;
    where.connectTimeoutMs = profile.connectTimeoutMs;
    where.commandTimeoutMs = profile.commandTimeoutMs;
    return where;
}

std::optional<CommandLine> CommandLine::parse(const QStringList &arguments, QString *error, const QString &redisCliAuth)
{
    auto fail = [error](const QString &why) -> std::optional<CommandLine> {
        *error = why;
        return std::nullopt;
    };
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("RedisLens shows the state of Redis patterns: locks, rate limits, sessions, caches, "
                       "leaderboards, geo sets, streams and queues."));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    // -h is the host, as in redis-cli; help is --help only.
    const QCommandLineOption help({QStringLiteral("help"), QStringLiteral("?")}, QStringLiteral("Show this help."));
    const QCommandLineOption version(QStringLiteral("version"), QStringLiteral("Show the version."));
    const QCommandLineOption host({QStringLiteral("h"), QStringLiteral("host")},
                                  QStringLiteral("Server host (default 127.0.0.1)."), QStringLiteral("hostname"));
    const QCommandLineOption port({QStringLiteral("p"), QStringLiteral("port")},
                                  QStringLiteral("Server port (default 6379)."), QStringLiteral("port"));
    const QCommandLineOption socket({QStringLiteral("s"), QStringLiteral("socket")},
                                    QStringLiteral("Unix socket (overrides host and port)."), QStringLiteral("path"));
    const QCommandLineOption pass({QStringLiteral("a"), QStringLiteral("pass")},
                                  QStringLiteral("Password (prefer REDISCLI_AUTH or --askpass)."),
                                  QStringLiteral("password"));
    const QCommandLineOption user(QStringLiteral("user"), QStringLiteral("ACL user name."), QStringLiteral("username"));
    const QCommandLineOption askPass(QStringLiteral("askpass"), QStringLiteral("Ask for the password in a dialog."));
    const QCommandLineOption db({QStringLiteral("n"), QStringLiteral("db")}, QStringLiteral("Database number."),
                                QStringLiteral("db"));
    const QCommandLineOption tls(QStringLiteral("tls"), QStringLiteral("Connect with TLS."));
    const QCommandLineOption caCert(QStringLiteral("cacert"),
                                    QStringLiteral("TLS: CA certificate file (PEM) to trust."), QStringLiteral("file"));
    const QCommandLineOption insecure(QStringLiteral("insecure"),
                                      QStringLiteral("TLS: do not verify the server's certificate."));
    const QCommandLineOption readOnly(QStringLiteral("read-only"),
                                      QStringLiteral("Refuse every command the server flags as writing."));
    const QCommandLineOption connectTimeout(QStringLiteral("connect-timeout"),
                                            QStringLiteral("Connect timeout in ms (default 5000)."),
                                            QStringLiteral("ms"));
    const QCommandLineOption timeout(QStringLiteral("timeout"),
                                     QStringLiteral("Command timeout in ms (default 10000)."), QStringLiteral("ms"));
    const QCommandLineOption demo(QStringLiteral("demo"),
                                  QStringLiteral("Start a private redis-server full of pattern data and open on it."));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Render the window offscreen once the first scan is done, "
                                                       "write a PNG and exit."),
                                        QStringLiteral("file"));
    const QCommandLineOption panel(
        QStringLiteral("panel"),
        QStringLiteral("Panel to show in front (%1).").arg(panelregistry::names().join(QLatin1String(", "))),
        QStringLiteral("name"));
    const QCommandLineOption open(QStringLiteral("open"), QStringLiteral("Open this key once connected."),
                                  QStringLiteral("key"));
    const QCommandLineOption separator(QStringLiteral("separator"),
                                       QStringLiteral("Namespace separator for the key tree (default ':')."),
                                       QStringLiteral("sep"));
    const QCommandLineOption scanRate(QStringLiteral("scan-rate"),
                                      QStringLiteral("SCAN pacing ceiling in commands per second (0: none)."),
                                      QStringLiteral("n"));
    parser.addOptions({help,    version, host,       port,   socket,   pass,      user,
                       askPass, db,      tls,        caCert, insecure, readOnly,  connectTimeout,
                       timeout, demo,    screenshot, panel,  open,     separator, scanRate});
    parser.addPositionalArgument(QStringLiteral("uri"),
                                 QStringLiteral("redis://[user[:password]@]host[:port][/db], rediss://… or "
                                                "unix:///path/to/socket[?db=N]"),
                                 QStringLiteral("[uri]"));

    if (!parser.parse(arguments))
        return fail(parser.errorText());

    CommandLine cl;
    cl.helpText = parser.helpText();
    if (parser.isSet(help)) {
        cl.action = Action::Help;
        return cl;
    }
    if (parser.isSet(version)) {
        cl.action = Action::Version;
        return cl;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) {
        QStringList shown;
        for (const QString &arg : positional)
            shown.append(ConnectionProfile::maskedUri(arg));
        return fail(QStringLiteral("expected at most one URI, got %1 arguments: %2")
                        .arg(positional.size())
                        .arg(shown.join(QLatin1Char(' '))));
    }
    ConnectionProfile &p = cl.profile;
    if (!redisCliAuth.isEmpty())
        p.password = redisCliAuth;
    if (positional.size() == 1) {
        QString why;
        if (!ConnectionProfile::parseUri(positional.first(), &p, &why))
            return fail(why);
        cl.connectGiven = true;
    }
    if (parser.isSet(host)) {
        p.host = parser.value(host);
        if (p.host.isEmpty())
            return fail(QStringLiteral("-h needs a host name"));
        cl.connectGiven = true;
    }
    if (parser.isSet(port)) {
        int v = 0;
        if (!parseInt(parser.value(port), 1, 65535, &v))
            return fail(QStringLiteral("invalid port '%1': expected a number from 1 to 65535").arg(parser.value(port)));
        p.port = quint16(v);
        cl.connectGiven = true;
    }
    if (parser.isSet(socket)) {
        p.socketPath = parser.value(socket);
        if (p.socketPath.isEmpty())
            return fail(QStringLiteral("-s needs a socket path"));
        // A rediss:// URI asked for TLS, which a Unix socket does not carry: say so, do not drop it.
        if (p.tls)
            return fail(QStringLiteral("a rediss:// URI (TLS) cannot be used with -s: a Unix socket has no TLS"));
        cl.connectGiven = true;
    }
    if (parser.isSet(db)) {
        int v = 0;
        if (!parseInt(parser.value(db), 0, 1 << 20, &v))
            return fail(QStringLiteral("invalid database '%1': expected a number from 0").arg(parser.value(db)));
        p.db = v;
    }
    if (parser.isSet(user))
        p.username = parser.value(user);
    if (parser.isSet(pass)) {
        p.password = parser.value(pass);
        cl.warnings << QStringLiteral("Warning: using a password with '-a' on the command line may not be safe; "
                                      "prefer REDISCLI_AUTH or --askpass.");
    }
    cl.askPass = parser.isSet(askPass);
    if (parser.isSet(tls)) {
        if (p.usesUnixSocket())
            return fail(QStringLiteral("--tls cannot be used with a Unix socket"));
        p.tls = true;
    }
    if (parser.isSet(caCert)) {
        p.caCertFile = parser.value(caCert);
        if (!QFileInfo(p.caCertFile).isReadable())
            return fail(QStringLiteral("cannot read --cacert file '%1'").arg(p.caCertFile));
        if (QSslCertificate::fromPath(p.caCertFile, QSsl::Pem).isEmpty())
            return fail(QStringLiteral("--cacert file '%1' holds no PEM certificate").arg(p.caCertFile));
    }
    p.tlsInsecure = parser.isSet(insecure);
    if ((parser.isSet(caCert) || p.tlsInsecure) && !p.tls)
        return fail(QStringLiteral("--cacert and --insecure need --tls or a rediss:// URI"));
    p.readOnly = parser.isSet(readOnly);
    if (parser.isSet(connectTimeout) && !parseInt(parser.value(connectTimeout), 1, 3600000, &p.connectTimeoutMs))
        return fail(
            QStringLiteral("invalid --connect-timeout '%1': expected milliseconds").arg(parser.value(connectTimeout)));
    if (parser.isSet(timeout) && !parseInt(parser.value(timeout), 1, 3600000, &p.commandTimeoutMs))
        return fail(QStringLiteral("invalid --timeout '%1': expected milliseconds").arg(parser.value(timeout)));
    cl.demo = parser.isSet(demo);
    if (cl.demo && cl.connectGiven)
        return fail(QStringLiteral("--demo starts its own server: leave out -h, -p, -s and the URI"));
    if (parser.isSet(screenshot)) {
        cl.screenshot = parser.value(screenshot);
        const QFileInfo target(cl.screenshot);
        if (cl.screenshot.isEmpty() || !target.absoluteDir().exists())
            return fail(
                QStringLiteral("cannot write screenshot '%1': its directory does not exist").arg(cl.screenshot));
    }
    if (parser.isSet(panel)) {
        cl.panel = parser.value(panel);
        if (!panelregistry::names().contains(cl.panel))
            return fail(QStringLiteral("unknown panel '%1' (known: %2)")
                            .arg(cl.panel, panelregistry::names().join(QLatin1String(", "))));
    }
    if (parser.isSet(open))
        cl.openKey = parser.value(open);
    if (parser.isSet(separator))
        cl.separator = parser.value(separator).toUtf8();
    if (parser.isSet(scanRate) && !parseInt(parser.value(scanRate), 0, 100000000, &cl.scanRate))
        return fail(
            QStringLiteral("invalid --scan-rate '%1': expected commands per second").arg(parser.value(scanRate)));
    return cl;
}
