// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandline.h"

#include "clustertopology.h"

#include "bytesescape.h"
#include "decoders.h"
#include "findings.h"
#include "jobpage.h"
#include "keyscanner.h"
#include "panelregistry.h"
#include "tlsconfig.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QSslCertificate>
#include <limits>

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

// The options that say which server to talk to and how to scan it: the window and the headless
// commands take the same ones.
struct ConnectionOptions
{
    QCommandLineOption host{{QStringLiteral("h"), QStringLiteral("host")},
                            QStringLiteral("Server host (default 127.0.0.1)."),
                            QStringLiteral("hostname")};
    QCommandLineOption port{{QStringLiteral("p"), QStringLiteral("port")},
                            QStringLiteral("Server port (default 6379)."),
                            QStringLiteral("port")};
    QCommandLineOption socket{{QStringLiteral("s"), QStringLiteral("socket")},
                              QStringLiteral("Unix socket (overrides host and port)."),
                              QStringLiteral("path")};
    QCommandLineOption pass{{QStringLiteral("a"), QStringLiteral("pass")},
                            QStringLiteral("Password (prefer REDISCLI_AUTH or --askpass)."),
                            QStringLiteral("password")};
    QCommandLineOption user{QStringLiteral("user"), QStringLiteral("ACL user name."), QStringLiteral("username")};
    QCommandLineOption askPass{QStringLiteral("askpass"),
                               QStringLiteral("Ask for the password (the window: a dialog; show: the terminal).")};
    QCommandLineOption db{
        {QStringLiteral("n"), QStringLiteral("db")}, QStringLiteral("Database number."), QStringLiteral("db")};
    QCommandLineOption tls{QStringLiteral("tls"), QStringLiteral("Connect with TLS.")};
    QCommandLineOption caCert{QStringLiteral("cacert"), QStringLiteral("TLS: CA certificate file (PEM) to trust."),
                              QStringLiteral("file")};
    QCommandLineOption caCertDir{QStringLiteral("cacertdir"),
                                 QStringLiteral("TLS: directory of CA certificates (PEM) to trust."),
                                 QStringLiteral("dir")};
    QCommandLineOption cert{QStringLiteral("cert"),
                            QStringLiteral("TLS: client certificate (PEM), for servers that authenticate clients."),
                            QStringLiteral("file")};
    QCommandLineOption key{QStringLiteral("key"),
                           QStringLiteral("TLS: the client certificate's private key (PEM; asked for its "
                                          "passphrase when encrypted)."),
                           QStringLiteral("file")};
    QCommandLineOption sni{QStringLiteral("sni"),
                           QStringLiteral("TLS: server name to send and to verify the certificate against "
                                          "(default: the host)."),
                           QStringLiteral("host")};
    QCommandLineOption insecure{QStringLiteral("insecure"),
                                QStringLiteral("TLS: do not verify the server's certificate.")};
    QCommandLineOption ssh{QStringLiteral("ssh"),
                           QStringLiteral("Reach the server through this SSH bastion ([user@]host[:port] or a "
                                          "~/.ssh/config alias); the host and port are then as the bastion sees "
                                          "them."),
                           QStringLiteral("bastion")};
    QCommandLineOption sshKey{QStringLiteral("ssh-key"),
                              QStringLiteral("SSH: private key file (asked for its passphrase when encrypted; "
                                             "default: the agent, then ~/.ssh's keys)."),
                              QStringLiteral("file")};
    QCommandLineOption sshPassword{QStringLiteral("ssh-password"),
                                   QStringLiteral("SSH: log in with a password (asked for).")};
    QCommandLineOption sshAcceptNew{QStringLiteral("ssh-accept-new"),
                                    QStringLiteral("SSH: trust and remember a bastion's host key that known_hosts "
                                                   "does not have yet, without asking (a changed key is always "
                                                   "refused).")};
    QCommandLineOption cluster{{QStringLiteral("c"), QStringLiteral("cluster")},
                               QStringLiteral("Redis Cluster: the server is a seed node; keys are read from the node "
                                              "that owns them and scans walk every primary.")};
    QCommandLineOption clusterMap{QStringLiteral("cluster-map"),
                                  QStringLiteral("Cluster: reach nodes announced at one address at another "
                                                 "(NAT, containers): host:port=host:port or host=host, "
                                                 "comma-separated."),
                                  QStringLiteral("rules")};
    QCommandLineOption clusterSeeds{QStringLiteral("cluster-seeds"),
                                    QStringLiteral("Cluster: more seed nodes (host:port, comma-separated or "
                                                   "repeated), tried in turn when the first does not answer."),
                                    QStringLiteral("host:port")};
    QCommandLineOption clusterScanReplicas{QStringLiteral("cluster-scan-replicas"),
                                           QStringLiteral("Cluster: scan one replica of each primary (READONLY) "
                                                          "instead of the primaries.")};
    QCommandLineOption clusterKeepHost{QStringLiteral("cluster-keep-host"),
                                       QStringLiteral("Cluster: reach every node at the seed's host, on the port "
                                                      "it announces.")};
    QCommandLineOption sentinel{QStringLiteral("sentinel"),
                                QStringLiteral("Redis Sentinel: ask these sentinels (host:port, comma-separated or "
                                               "repeated) for the primary of --master, and follow its failovers."),
                                QStringLiteral("host:port")};
    QCommandLineOption master{QStringLiteral("master"), QStringLiteral("Sentinel: the name of the master to follow."),
                              QStringLiteral("name")};
    QCommandLineOption sentinelUser{QStringLiteral("sentinel-user"),
                                    QStringLiteral("Sentinel: the sentinels' ACL user, when they have one."),
                                    QStringLiteral("username")};
    QCommandLineOption sentinelAskPass{QStringLiteral("sentinel-askpass"),
                                       QStringLiteral("Sentinel: ask for the sentinels' password (or set "
                                                      "REDISLENS_SENTINEL_AUTH).")};
    QCommandLineOption sentinelReplica{QStringLiteral("sentinel-replica"),
                                       QStringLiteral("Sentinel: inspect through the master's freshest healthy "
                                                      "replica instead of its primary (read-only).")};
    QCommandLineOption redlock{QStringLiteral("redlock"),
                               QStringLiteral("Redlock: the other primaries of this server's Redlock set (host:port, "
                                              "comma-separated or repeated), with the same credentials; the locks "
                                              "panel reads each lock on all of them."),
                               QStringLiteral("host:port")};
    QCommandLineOption readOnly{QStringLiteral("read-only"),
                                QStringLiteral("Refuse every command the server flags as writing.")};
    QCommandLineOption connectTimeout{QStringLiteral("connect-timeout"),
                                      QStringLiteral("Connect timeout in ms (default 5000)."), QStringLiteral("ms")};
    QCommandLineOption timeout{QStringLiteral("timeout"), QStringLiteral("Command timeout in ms (default 10000)."),
                               QStringLiteral("ms")};
    QCommandLineOption demo{QStringLiteral("demo"),
                            QStringLiteral("Start a private redis-server full of pattern data and open on it.")};
    QCommandLineOption separator{QStringLiteral("separator"),
                                 QStringLiteral("Namespace separator for the key tree (default ':')."),
                                 QStringLiteral("sep")};
    QCommandLineOption scanRate{
        QStringLiteral("scan-rate"),
        QStringLiteral("Scan pacing: auto (the default) measures the server's load and backs off; "
                       "N is a fixed ceiling in commands per second; 0 is none."),
        QStringLiteral("auto|n")};

    QList<QCommandLineOption> list() const
    {
        return {host,
                port,
                socket,
                pass,
                user,
                askPass,
                db,
                tls,
                caCert,
                caCertDir,
                cert,
                key,
                sni,
                insecure,
                ssh,
                sshKey,
                sshPassword,
                sshAcceptNew,
                readOnly,
                connectTimeout,
                timeout,
                demo,
                separator,
                scanRate,
                cluster,
                clusterMap,
                clusterSeeds,
                clusterKeepHost,
                sentinel,
                master,
                sentinelUser,
                sentinelAskPass,
                redlock,
                sentinelReplica,
                clusterScanReplicas};
    }
};

// The server: at most one URI, then -h, -p, -s, -n, --user, -a (which win over the URI).
QString applyServerOptions(const QCommandLineParser &parser, const ConnectionOptions &o, const QStringList &uris,
                           const QString &redisCliAuth, CommandLine &cl)
{
    if (uris.size() > 1) {
        QStringList shown;
        for (const QString &arg : uris)
            shown.append(ConnectionProfile::maskedUri(arg));
        return QStringLiteral("expected at most one URI, got %1 arguments: %2")
            .arg(uris.size())
            .arg(shown.join(QLatin1Char(' ')));
    }
    ConnectionProfile &p = cl.profile;
    if (!redisCliAuth.isEmpty())
        p.password = redisCliAuth;
    if (uris.size() == 1) {
        QString why;
        if (!ConnectionProfile::parseUri(uris.first(), &p, &why))
            return why;
        cl.connectGiven = true;
    }
    if (parser.isSet(o.host)) {
        p.host = parser.value(o.host);
        if (p.host.isEmpty())
            return QStringLiteral("-h needs a host name");
        cl.connectGiven = true;
    }
    if (parser.isSet(o.port)) {
        int v = 0;
        if (!parseInt(parser.value(o.port), 1, 65535, &v))
            return QStringLiteral("invalid port '%1': expected a number from 1 to 65535").arg(parser.value(o.port));
        p.port = quint16(v);
        cl.connectGiven = true;
    }
    if (parser.isSet(o.socket)) {
        p.socketPath = parser.value(o.socket);
        if (p.socketPath.isEmpty())
            return QStringLiteral("-s needs a socket path");
        // A rediss:// URI asked for TLS, which a Unix socket does not carry: say so, do not drop it.
        if (p.tls)
            return QStringLiteral("a rediss:// URI (TLS) cannot be used with -s: a Unix socket has no TLS");
        cl.connectGiven = true;
    }
    if (parser.isSet(o.db)) {
        int v = 0;
        if (!parseInt(parser.value(o.db), 0, 1 << 20, &v))
            return QStringLiteral("invalid database '%1': expected a number from 0").arg(parser.value(o.db));
        p.db = v;
    }
    if (parser.isSet(o.user))
        p.username = parser.value(o.user);
    if (parser.isSet(o.pass)) {
        p.password = parser.value(o.pass);
        cl.warnings << QStringLiteral("Warning: using a password with '-a' on the command line may not be safe; "
                                      "prefer REDISCLI_AUTH or --askpass.");
    }
    cl.askPass = parser.isSet(o.askPass);
    return {};
}

// TLS, in the redis-cli style: every file option needs --tls or a rediss:// URI.
QString applyTlsOptions(const QCommandLineParser &parser, const ConnectionOptions &o, ConnectionProfile &p)
{
    if (parser.isSet(o.tls)) {
        if (p.usesUnixSocket())
            return QStringLiteral("--tls cannot be used with a Unix socket");
        p.tls = true;
    }
    if (parser.isSet(o.caCert)) {
        p.caCertFile = parser.value(o.caCert);
        if (!QFileInfo(p.caCertFile).isReadable())
            return QStringLiteral("cannot read --cacert file '%1'").arg(p.caCertFile);
    }
    if (parser.isSet(o.caCertDir))
        p.caCertDir = parser.value(o.caCertDir);
    if (parser.isSet(o.cert))
        p.clientCertFile = parser.value(o.cert);
    if (parser.isSet(o.key))
        p.clientKeyFile = parser.value(o.key);
    if (parser.isSet(o.sni)) {
        p.sni = parser.value(o.sni);
        if (p.sni.isEmpty())
            return QStringLiteral("--sni needs a host name");
    }
    p.tlsInsecure = parser.isSet(o.insecure);
    for (const QCommandLineOption *tlsOnly : {&o.caCert, &o.caCertDir, &o.cert, &o.key, &o.sni, &o.insecure}) {
        if (parser.isSet(*tlsOnly) && !p.tls)
            return QStringLiteral("--%1 needs --tls or a rediss:// URI").arg(tlsOnly->names().constLast());
    }
    return {};
}

// An SSH bastion the server is reached through (--ssh and the options that need it).
QString applySshOptions(const QCommandLineParser &parser, const ConnectionOptions &o, CommandLine &cl)
{
    ConnectionProfile &p = cl.profile;
    if (parser.isSet(o.ssh)) {
        if (p.usesUnixSocket())
            return QStringLiteral("--ssh cannot be used with a Unix socket");
        QString why;
        if (!SshSettings::parseTarget(parser.value(o.ssh), &p.ssh, &why))
            return QStringLiteral("--ssh: %1").arg(why);
        cl.connectGiven = true; // the server is 127.0.0.1:6379 as the bastion sees it, unless given
    }
    if (parser.isSet(o.sshKey)) {
        p.ssh.keyFile = parser.value(o.sshKey);
        if (!QFileInfo(p.ssh.keyFile).isReadable())
            return QStringLiteral("cannot read --ssh-key file '%1'").arg(p.ssh.keyFile);
    }
    p.ssh.usePassword = parser.isSet(o.sshPassword);
    p.ssh.acceptNewHostKey = parser.isSet(o.sshAcceptNew);
    for (const QCommandLineOption *sshOnly : {&o.sshKey, &o.sshPassword, &o.sshAcceptNew}) {
        if (parser.isSet(*sshOnly) && !p.ssh.enabled())
            return QStringLiteral("--%1 needs --ssh").arg(sshOnly->names().constLast());
    }
    if (parser.isSet(o.sshKey) && p.ssh.usePassword)
        return QStringLiteral("--ssh-key and --ssh-password are two ways to log in: give one");
    return {};
}

// Fills cl.profile (and the scan options) from a parsed line whose URI, if any, is 'uris'.
// Returns an empty string or why the line is wrong.
// --sentinel and --master (both or neither), with the sentinels' own credentials.
QString applySentinelOptions(const QCommandLineParser &parser, const ConnectionOptions &o, CommandLine &cl)
{
    ConnectionProfile &p = cl.profile;
    const bool anySentinel = parser.isSet(o.sentinel) || parser.isSet(o.sentinelUser) || parser.isSet(o.sentinelAskPass)
        || parser.isSet(o.sentinelReplica);
    if (!anySentinel && !parser.isSet(o.master))
        return {};
    if (!parser.isSet(o.sentinel) || !parser.isSet(o.master) || parser.value(o.master).isEmpty())
        return QStringLiteral("--sentinel and --master go together: the sentinels' addresses and the master's name");
    if (p.cluster)
        return QStringLiteral("--sentinel and --cluster cannot be used together");
    if (!p.socketPath.isEmpty())
        return QStringLiteral("--sentinel and -s cannot be used together: the sentinels say where the primary is");
    for (const QString &value : parser.values(o.sentinel)) {
        QString why;
        if (!ConnectionProfile::parseAddressList(value, &p.sentinels, &why))
            return QStringLiteral("invalid --sentinel: %1").arg(why);
    }
    p.sentinelMaster = parser.value(o.master);
    p.host.clear(); // the sentinels say where the primary is
    p.sentinelUsername = parser.value(o.sentinelUser);
    p.sentinelReplica = parser.isSet(o.sentinelReplica);
    p.readOnly = p.readOnly || p.sentinelReplica; // a replica is only read
    p.sentinelPassword = qEnvironmentVariable("REDISLENS_SENTINEL_AUTH");
    cl.askSentinelPassword = parser.isSet(o.sentinelAskPass);
    cl.connectGiven = true;
    return {};
}

QString applyConnectionOptions(const QCommandLineParser &parser, const ConnectionOptions &o, const QStringList &uris,
                               const QString &redisCliAuth, CommandLine &cl)
{
    if (QString why = applyServerOptions(parser, o, uris, redisCliAuth, cl); !why.isEmpty())
        return why;
    if (QString why = applyTlsOptions(parser, o, cl.profile); !why.isEmpty())
        return why;
    if (QString why = applySshOptions(parser, o, cl); !why.isEmpty())
        return why;
    ConnectionProfile &p = cl.profile;
    p.readOnly = parser.isSet(o.readOnly);
    p.cluster = parser.isSet(o.cluster);
    p.clusterKeepSeedHost = parser.isSet(o.clusterKeepHost);
    p.clusterScanReplicas = parser.isSet(o.clusterScanReplicas);
    if (parser.isSet(o.clusterMap)) {
        cluster::AddressMap map;
        QString why;
        if (!map.parse(parser.value(o.clusterMap), &why))
            return QStringLiteral("invalid --cluster-map: %1").arg(why);
        p.clusterAddressMap = map.toString();
    }
    for (const QString &value : parser.values(o.clusterSeeds)) {
        QString why;
        if (!ConnectionProfile::parseAddressList(value, &p.clusterSeeds, &why))
            return QStringLiteral("invalid --cluster-seeds: %1").arg(why);
    }
    if ((p.clusterKeepSeedHost || !p.clusterAddressMap.isEmpty() || !p.clusterSeeds.isEmpty() || p.clusterScanReplicas)
        && !p.cluster)
        return QStringLiteral(
            "--cluster-map, --cluster-seeds, --cluster-keep-host and --cluster-scan-replicas need --cluster");
    if (!p.clusterSeeds.isEmpty() && p.usesUnixSocket())
        return QStringLiteral("--cluster-seeds and -s cannot be used together: seeds are host:port");
    if (QString why = applySentinelOptions(parser, o, cl); !why.isEmpty())
        return why;
    for (const QString &value : parser.values(o.redlock)) {
        QString why;
        if (!ConnectionProfile::parseAddressList(value, &p.redlockPeers, &why))
            return QStringLiteral("invalid --redlock: %1").arg(why);
    }
    if (!p.redlockPeers.isEmpty() && (p.cluster || p.usesSentinel()))
        return QStringLiteral("--redlock is for independent primaries: it cannot be used with --cluster or "
                              "--sentinel");
    if (parser.isSet(o.connectTimeout) && !parseInt(parser.value(o.connectTimeout), 1, 3600000, &p.connectTimeoutMs))
        return QStringLiteral("invalid --connect-timeout '%1': expected milliseconds")
            .arg(parser.value(o.connectTimeout));
    if (parser.isSet(o.timeout) && !parseInt(parser.value(o.timeout), 1, 3600000, &p.commandTimeoutMs))
        return QStringLiteral("invalid --timeout '%1': expected milliseconds").arg(parser.value(o.timeout));
    cl.demo = parser.isSet(o.demo);
    if (cl.demo && cl.connectGiven)
        return QStringLiteral("--demo starts its own server: leave out -h, -p, -s, --ssh and the URI");
    if (parser.isSet(o.separator))
        cl.separator = parser.value(o.separator).toUtf8();
    if (parser.isSet(o.scanRate)) {
        const QString rate = parser.value(o.scanRate);
        int n = 0;
        if (rate == QLatin1String("auto"))
            cl.scanRate = kAdaptivePacing;
        else if (parseInt(rate, 0, 100000000, &n))
            cl.scanRate = n;
        else
            return QStringLiteral("invalid --scan-rate '%1': expected auto or commands per second").arg(rate);
    }
    return {};
}

const QString kUriSyntax = QStringLiteral("redis://[user[:password]@]host[:port][/db], rediss://… or "
                                          "unix:///path/to/socket[?db=N]");

// QCommandLineParser names the program from the application object, which does not exist yet.
QString withUsage(QString help, const QString &program)
{
    const qsizetype at = help.indexOf(QLatin1String("Usage: "));
    const qsizetype options = help.indexOf(QLatin1String(" [options]"), at);
    if (at >= 0 && options > at)
        help.replace(at + 7, options - at - 7, program);
    return help;
}

std::optional<CommandLine> parseCheck(const QStringList &arguments, QString *error, const QString &redisCliAuth)
{
    auto fail = [error](const QString &why) -> std::optional<CommandLine> {
        *error = QStringLiteral("check: ") + why;
        return std::nullopt;
    };
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Connects step by step and says where it fails: name resolution, TCP, the TLS handshake, "
                       "the certificate's chain and host name, AUTH, PING, the server's version and mode, "
                       "ACL WHOAMI, and which panels this user may use (ACL DRYRUN on 7.0+, trials of the "
                       "panels' reads otherwise).\n"
                       "Exit status: 0 everything works, 1 a panel is unavailable, 2 no connection or bad "
                       "arguments."));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption help({QStringLiteral("help"), QStringLiteral("?")}, QStringLiteral("Show this help."));
    const ConnectionOptions c;
    const QCommandLineOption format(QStringLiteral("format"), QStringLiteral("Output format: text, json."),
                                    QStringLiteral("format"), QStringLiteral("text"));
    parser.addOptions({help});
    parser.addOptions(c.list());
    parser.addOptions({format});
    parser.addPositionalArgument(QStringLiteral("uri"), kUriSyntax, QStringLiteral("[uri]"));
    QStringList line = arguments;
    line.removeAt(1); // "check"
    if (!parser.parse(line))
        return fail(parser.errorText());
    CommandLine cl;
    cl.helpText = withUsage(parser.helpText(), QStringLiteral("redislens check"));
    if (parser.isSet(help)) {
        cl.action = CommandLine::Action::Help;
        return cl;
    }
    cl.action = CommandLine::Action::Check;
    if (const QString why = applyConnectionOptions(parser, c, parser.positionalArguments(), redisCliAuth, cl);
        !why.isEmpty())
        return fail(why);
    const QString f = parser.value(format);
    if (f != QLatin1String("text") && f != QLatin1String("json"))
        return fail(QStringLiteral("unknown --format '%1' (known: text, json)").arg(f));
    cl.checkJson = f == QLatin1String("json");
    return cl;
}

// The options only show takes (the connection's are ConnectionOptions).
struct ShowOptions
{
    const QCommandLineOption format{
        QStringLiteral("format"),
        QStringLiteral("Output format: %1 (default json).").arg(showpanels::formatNames().join(QLatin1String(", "))),
        QStringLiteral("format"), QStringLiteral("json")};
    const QCommandLineOption match{QStringLiteral("match"),
                                   QStringLiteral("Only keys matching this glob (SCAN MATCH; redis-cli escapes "
                                                  "allowed). Panels that scan the keyspace only."),
                                   QStringLiteral("glob")};
    const QCommandLineOption limit{QStringLiteral("limit"),
                                   QStringLiteral("At most this many records (keys: the scan stops once it "
                                                  "has found them)."),
                                   QStringLiteral("n")};
    const QCommandLineOption table{
        QStringLiteral("table"),
        QStringLiteral("Panels with several tables: which one (overview: figures, facts; "
                       "memory: namespaces, top; ratelimits: limiters, callers; sessions: "
                       "sessions, indexes; caches: namespaces, tags, dedup_sets, "
                       "dedup_families, counters; queues: jobs, queues, delayed; "
                       "slowlog: entries, commands, latency; pubsub: channels, subscribers; streams --stream: groups, "
                       "consumers, pending). Default: the first."),
        QStringLiteral("name")};
    const QCommandLineOption jobs{QStringLiteral("jobs"),
                                  QStringLiteral("queues: also list each job queue's jobs in this state (waiting, "
                                                 "active, delayed, failed, retry, dead…), a page of %1, the next "
                                                 "to run or the newest first.")
                                      .arg(jobpages::kPageSize),
                                  QStringLiteral("state")};
    const QCommandLineOption page{QStringLiteral("page"),
                                  QStringLiteral("queues --jobs: which page of the jobs (from 1; default 1)."),
                                  QStringLiteral("n")};
    const QCommandLineOption stream{QStringLiteral("stream"),
                                    QStringLiteral("streams: open this stream (redis-cli escapes allowed): its "
                                                   "groups, and with --group that group's consumers and first page "
                                                   "of pending entries."),
                                    QStringLiteral("key")};
    const QCommandLineOption group{QStringLiteral("group"),
                                   QStringLiteral("streams --stream: the consumer group to open."),
                                   QStringLiteral("name")};
    const QCommandLineOption progress{QStringLiteral("progress"),
                                      QStringLiteral("Draw the progress bar on stderr even when it is not a "
                                                     "terminal.")};
    const QCommandLineOption node{QStringLiteral("node"),
                                  QStringLiteral("Redis Cluster: read this node alone, as one server (its INFO, "
                                                 "slow log, memory, keys), host:port as the cluster announces it "
                                                 "or as it is reached; or 'all': every primary, the overview and "
                                                 "the slow log merged."),
                                  QStringLiteral("host:port|all")};

    const QCommandLineOption decode{QStringLiteral("decode"),
                                    QStringLiteral("value: how to decode it: auto (a rule's decode steps for the "
                                                   "key, else what detection finds; the default), none, or steps "
                                                   "in order (base64,gzip,json)."),
                                    QStringLiteral("auto|none|steps")};

    const QCommandLineOption groupBy{QStringLiteral("group-by"),
                                     QStringLiteral("clients: group the connections by name (the default), lib, "
                                                    "addr, user, db or cmd."),
                                     QStringLiteral("key")};

    QList<QCommandLineOption> list() const
    {
        return {format, match, limit, table, jobs, page, stream, group, progress, node, decode, groupBy};
    }
};

// Reads show's own options into r; returns why one is wrong, or nothing.
QString applyShowOptions(const QCommandLineParser &parser, const ShowOptions &o, ShowRequest &r)
{
    const auto f = showpanels::formatFromName(parser.value(o.format));
    if (!f)
        return QStringLiteral("unknown --format '%1' (known: %2)")
            .arg(parser.value(o.format), showpanels::formatNames().join(QLatin1String(", ")));
    r.format = *f;
    if (parser.isSet(o.match)) {
        if (!showpanels::scans(r.panel))
            return QStringLiteral("--match narrows a scan of the keyspace, which %1 does not make").arg(r.panel);
        QString why;
        const auto glob = bytesescape::unescape(parser.value(o.match), &why);
        if (!glob)
            return QStringLiteral("--match: %1").arg(why);
        r.match = *glob;
    }
    if (parser.isSet(o.limit)) {
        int n = 0;
        if (!parseInt(parser.value(o.limit), 0, std::numeric_limits<int>::max(), &n))
            return QStringLiteral("invalid --limit '%1': expected a number of records").arg(parser.value(o.limit));
        r.limit = n;
    }
    if (parser.isSet(o.table))
        r.table = parser.value(o.table);
    if ((parser.isSet(o.jobs) || parser.isSet(o.page)) && r.panel != QLatin1String("queues"))
        return QStringLiteral("--jobs and --page list a job queue's jobs: redislens show queues --jobs STATE");
    if (parser.isSet(o.page) && !parser.isSet(o.jobs))
        return QStringLiteral("--page pages the jobs of --jobs STATE");
    if (parser.isSet(o.jobs)) {
        r.jobsState = parser.value(o.jobs);
        if (!jobqueues::stateRoles().contains(r.jobsState))
            return QStringLiteral("unknown --jobs state '%1' (known: %2)")
                .arg(r.jobsState, jobqueues::stateRoles().join(QLatin1String(", ")));
    }
    if (parser.isSet(o.page)) {
        int n = 0;
        if (!parseInt(parser.value(o.page), 1, std::numeric_limits<int>::max(), &n))
            return QStringLiteral("invalid --page '%1': expected a page number from 1").arg(parser.value(o.page));
        r.jobsPage = n - 1;
    }
    if (parser.isSet(o.decode)) {
        if (r.panel != QLatin1String("value"))
            return QStringLiteral("--decode decodes one key's value: redislens show value KEY --decode STEPS");
        r.decode = parser.value(o.decode).trimmed();
        QList<decode::Format> steps;
        QString why;
        if (r.decode != QLatin1String("auto") && r.decode != QLatin1String("none")
            && !decode::parseChain(r.decode, &steps, &why))
            return QStringLiteral("--decode: %1").arg(why);
    }
    if (parser.isSet(o.groupBy)) {
        if (r.panel != QLatin1String("clients"))
            return QStringLiteral("--group-by groups connections: redislens show clients --group-by KEY");
        r.groupBy = parser.value(o.groupBy);
    }
    if ((parser.isSet(o.stream) || parser.isSet(o.group)) && r.panel != QLatin1String("streams"))
        return QStringLiteral("--stream and --group open a stream: redislens show streams --stream KEY");
    if (parser.isSet(o.group) && !parser.isSet(o.stream))
        return QStringLiteral("--group opens a group of the stream --stream KEY names");
    // One group's tables: without the group there is nothing to list, and an empty table
    // would read as "no consumers".
    if (parser.isSet(o.stream) && !parser.isSet(o.group)
        && (r.table == QLatin1String("consumers") || r.table == QLatin1String("pending")))
        return QStringLiteral("--table %1 lists one group's: add --group NAME").arg(r.table);
    if (parser.isSet(o.stream)) {
        if (parser.isSet(o.match))
            return QStringLiteral("--match narrows the scan for streams, which --stream does not make");
        QString why;
        r.streamText = parser.value(o.stream);
        const auto key = bytesescape::unescape(r.streamText, &why);
        if (!key || key->isEmpty())
            return QStringLiteral("--stream: %1").arg(key ? QStringLiteral("the key is empty") : why);
        r.stream = *key;
    }
    if (parser.isSet(o.group)) {
        QString why;
        r.groupText = parser.value(o.group);
        const auto group = bytesescape::unescape(r.groupText, &why);
        if (!group || group->isEmpty())
            return QStringLiteral("--group: %1").arg(group ? QStringLiteral("the name is empty") : why);
        r.group = *group;
    }
    if (parser.isSet(o.progress))
        r.progress = ShowRequest::Progress::Always;
    if (parser.isSet(o.node) && parser.value(o.node) == QLatin1String(ShowRequest::kEveryNode)) {
        r.node = QLatin1String(ShowRequest::kEveryNode);
    } else if (parser.isSet(o.node)) {
        QStringList one;
        QString why;
        if (!ConnectionProfile::parseAddressList(parser.value(o.node), &one, &why) || one.size() != 1)
            return QStringLiteral("invalid --node '%1': expected one host:port").arg(parser.value(o.node));
        r.node = one.first();
    }
    return {};
}

std::optional<CommandLine> parseShow(const QStringList &arguments, QString *error, const QString &redisCliAuth)
{
    auto fail = [error](const QString &why) -> std::optional<CommandLine> {
        *error = QStringLiteral("show: ") + why;
        return std::nullopt;
    };
    const QString panels = showpanels::names().join(QLatin1String(", "));
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral(
            "Reads what a panel of the window reads, once, and prints what the panel shows: one record per row.\n"
            "Panels: %1. leaderboard, geo and value show the KEY named after them (redis-cli escapes allowed).\n"
            "value: the key's value, decoded as the value viewer decodes it (--decode), one record per string, "
            "field, element, member or stream field.\n"
            "keys: one record per key (key, type, ttl_ms, pattern, family, confidence, reason).\n"
            "json is one document (panel, masked URI, time, coverage, records); jsonl one record per line; "
            "tsv a header line and one line per record; markdown a table.\n"
            "While it reads, a progress bar (keys scanned of DBSIZE, keys per second) is drawn on stderr when "
            "stderr is a terminal; otherwise only errors are written there.\n"
            "Exit status: 0 done, 1 reading failed, 2 bad arguments or no connection.")
            .arg(panels));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption help({QStringLiteral("help"), QStringLiteral("?")}, QStringLiteral("Show this help."));
    const ConnectionOptions c;
    const ShowOptions so;
    parser.addOptions({help});
    parser.addOptions(c.list());
    parser.addOptions(so.list());
    parser.addPositionalArgument(QStringLiteral("panel"), panels, QStringLiteral("PANEL"));
    parser.addPositionalArgument(QStringLiteral("key"), QStringLiteral("leaderboard, geo, value: the key to show."),
                                 QStringLiteral("[KEY]"));
    parser.addPositionalArgument(QStringLiteral("uri"), kUriSyntax, QStringLiteral("[uri]"));

    QStringList line = arguments;
    line.removeAt(1); // "show"
    if (!parser.parse(line))
        return fail(parser.errorText());
    CommandLine cl;
    cl.helpText = withUsage(parser.helpText(), QStringLiteral("redislens show"));
    if (parser.isSet(help)) {
        cl.action = CommandLine::Action::Help;
        return cl;
    }
    cl.action = CommandLine::Action::Show;
    QStringList positional = parser.positionalArguments();
    if (positional.isEmpty())
        return fail(QStringLiteral("which panel? (%1)").arg(panels));
    ShowRequest &r = cl.show;
    r.panel = positional.takeFirst();
    if (!showpanels::names().contains(r.panel))
        return fail(QStringLiteral("unknown panel '%1' (known: %2)").arg(r.panel, panels));
    if (showpanels::needsKey(r.panel)) {
        if (positional.isEmpty())
            return fail(QStringLiteral("%1 needs the KEY to show: redislens show %1 KEY").arg(r.panel));
        r.keyText = positional.takeFirst();
        QString why;
        const auto key = bytesescape::unescape(r.keyText, &why);
        if (!key)
            return fail(QStringLiteral("KEY: %1").arg(why));
        r.key = *key;
    }
    if (const QString why = applyConnectionOptions(parser, c, positional, redisCliAuth, cl); !why.isEmpty())
        return fail(why);
    if (const QString why = applyShowOptions(parser, so, r); !why.isEmpty())
        return fail(why);
    if (!r.node.isEmpty() && !cl.profile.cluster)
        return fail(QStringLiteral("--node picks one node of a Redis Cluster: add --cluster (-c)"));
    r.demo = cl.demo;
    return cl;
}

std::optional<CommandLine> parseReport(const QStringList &arguments, QString *error, const QString &redisCliAuth)
{
    auto fail = [error](const QString &why) -> std::optional<CommandLine> {
        *error = QStringLiteral("report: ") + why;
        return std::nullopt;
    };
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Scans the keyspace as the window does (paced by --scan-rate), reads what every pattern panel reads, "
        "and prints the triage's findings, worst first, with a summary of the keyspace and the server.\n"
        "json: {\"findings\": [{\"id\", \"severity\", \"title\", \"evidence\", \"coverage\", \"hint\"…}], "
        "\"summary\": {…}} (docs/schemas/report.schema.json); markdown and text are for people.\n"
        "Rules and their thresholds: docs/triage.md. Thresholds come from the file --thresholds names, else "
        "from the user's thresholds.json when it exists.\n"
        "Exit status: 0 nothing at or above --fail-on found, 1 something was, 2 bad arguments or no connection."));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption help({QStringLiteral("help"), QStringLiteral("?")}, QStringLiteral("Show this help."));
    const ConnectionOptions c;
    const QCommandLineOption format(QStringLiteral("format"), QStringLiteral("Output format: json, markdown, text."),
                                    QStringLiteral("format"), QStringLiteral("json"));
    const QCommandLineOption sample(QStringLiteral("sample"),
                                    QStringLiteral("Examine only the first N keys the scan returns; counts become "
                                                   "estimates and every finding says so."),
                                    QStringLiteral("N"));
    const QCommandLineOption failOn(QStringLiteral("fail-on"),
                                    QStringLiteral("Exit with status 1 when a finding is at least this severe: "
                                                   "critical (default), warning, info."),
                                    QStringLiteral("severity"), QStringLiteral("critical"));
    const QCommandLineOption only(
        QStringLiteral("only"),
        QStringLiteral("Check only these rules or areas (comma-separated: lock.no-ttl,memory)."),
        QStringLiteral("ids"));
    const QCommandLineOption exclude(QStringLiteral("exclude"),
                                     QStringLiteral("Skip these rules or areas (comma-separated)."),
                                     QStringLiteral("ids"));
    const QCommandLineOption thresholds(QStringLiteral("thresholds"),
                                        QStringLiteral("A JSON file of thresholds to use instead of the defaults."),
                                        QStringLiteral("file"));
    const QCommandLineOption match(
        QStringLiteral("match"),
        QStringLiteral("Only keys matching this glob (SCAN MATCH; redis-cli escapes allowed)."),
        QStringLiteral("glob"));
    const QCommandLineOption progress(
        QStringLiteral("progress"), QStringLiteral("Draw the progress bar on stderr even when it is not a terminal."));
    parser.addOptions({help});
    parser.addOptions(c.list());
    parser.addOptions({format, sample, failOn, only, exclude, thresholds, match, progress});
    parser.addPositionalArgument(QStringLiteral("uri"), kUriSyntax, QStringLiteral("[uri]"));
    QStringList line = arguments;
    line.removeAt(1); // "report"
    if (!parser.parse(line))
        return fail(parser.errorText());
    CommandLine cl;
    cl.helpText = withUsage(parser.helpText(), QStringLiteral("redislens report"));
    if (parser.isSet(help)) {
        cl.action = CommandLine::Action::Help;
        return cl;
    }
    cl.action = CommandLine::Action::Report;
    if (const QString why = applyConnectionOptions(parser, c, parser.positionalArguments(), redisCliAuth, cl);
        !why.isEmpty())
        return fail(why);
    ReportRequest &r = cl.report;
    const QString f = parser.value(format);
    if (f == QLatin1String("json"))
        r.format = ReportRequest::Format::Json;
    else if (f == QLatin1String("markdown"))
        r.format = ReportRequest::Format::Markdown;
    else if (f == QLatin1String("text"))
        r.format = ReportRequest::Format::Text;
    else
        return fail(QStringLiteral("unknown --format '%1' (known: json, markdown, text)").arg(f));
    if (parser.isSet(sample)) {
        int n = 0;
        if (!parseInt(parser.value(sample), 1, std::numeric_limits<int>::max(), &n))
            return fail(QStringLiteral("invalid --sample '%1': expected a number of keys").arg(parser.value(sample)));
        r.sample = n;
    }
    const QStringList severities{QStringLiteral("info"), QStringLiteral("warning"), QStringLiteral("critical")};
    r.failOn = int(severities.indexOf(parser.value(failOn)));
    if (r.failOn < 0)
        return fail(
            QStringLiteral("unknown --fail-on '%1' (known: critical, warning, info)").arg(parser.value(failOn)));
    const auto ids = [&](const QCommandLineOption &o, QStringList *out) -> QString {
        for (const QString &id : parser.values(o).join(QLatin1Char(',')).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            if (!findings::isKnownRuleOrArea(id.trimmed()))
                return QStringLiteral("--%1: unknown rule or area '%2' (see docs/triage.md)")
                    .arg(o.names().constFirst(), id);
            out->append(id.trimmed());
        }
        return {};
    };
    if (const QString why = ids(only, &r.only); !why.isEmpty())
        return fail(why);
    if (const QString why = ids(exclude, &r.exclude); !why.isEmpty())
        return fail(why);
    r.thresholdsFile = parser.value(thresholds);
    if (parser.isSet(match)) {
        QString why;
        const auto glob = bytesescape::unescape(parser.value(match), &why);
        if (!glob)
            return fail(QStringLiteral("--match: %1").arg(why));
        r.scan.match = *glob;
    }
    if (parser.isSet(progress))
        r.scan.progress = ShowRequest::Progress::Always;
    r.scan.demo = cl.demo;
    return cl;
}

} // namespace

QString CommandLine::tlsFilesError() const
{
    const ConnectionProfile &p = profile;
    if (!p.tls)
        return {};
    if (!p.caCertFile.isEmpty() && QSslCertificate::fromPath(p.caCertFile, QSsl::Pem).isEmpty())
        return QStringLiteral("--cacert file '%1' holds no PEM certificate").arg(p.caCertFile);
    // An encrypted key passes: its passphrase is asked for next.
    QString why;
    ConnectionProfile probe = p;
    probe.keyPassphrase = QStringLiteral("?");
    if (!tlsconfig::forProfile(probe, &why) && !why.contains(QLatin1String("passphrase")))
        return why;
    return {};
}

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
    if (arguments.size() > 1 && arguments.at(1) == QLatin1String("show"))
        return parseShow(arguments, error, redisCliAuth);
    if (arguments.size() > 1 && arguments.at(1) == QLatin1String("check"))
        return parseCheck(arguments, error, redisCliAuth);
    if (arguments.size() > 1 && arguments.at(1) == QLatin1String("report"))
        return parseReport(arguments, error, redisCliAuth);
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("RedisLens shows the state of Redis patterns: locks, rate limits, sessions, caches, "
                       "leaderboards, geo sets, streams and queues.\n"
                       "redislens show PANEL [options] [uri] prints what a panel shows, without a window "
                       "(json, jsonl, tsv or markdown): see redislens show --help.\n"
                       "redislens report [options] [uri] prints the triage's findings for CI and cron: see "
                       "redislens report --help.\n"
                       "redislens check [options] [uri] says step by step where connecting fails."));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    // -h is the host, as in redis-cli; help is --help only.
    const QCommandLineOption help({QStringLiteral("help"), QStringLiteral("?")}, QStringLiteral("Show this help."));
    const QCommandLineOption version(QStringLiteral("version"), QStringLiteral("Show the version."));
    const ConnectionOptions c;
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
    const QCommandLineOption scanReplica(
        QStringLiteral("scan-replica"),
        QStringLiteral("Scan the keyspace (key browser, pattern index, memory analysis) through this replica "
                       "of the server, with the same credentials; everything else goes to the server. "
                       "(show reads only: point it at the replica itself.)"),
        QStringLiteral("host[:port]"));
    parser.addOptions({help, version});
    parser.addOptions(c.list());
    parser.addOptions({screenshot, panel, open, scanReplica});
    parser.addPositionalArgument(QStringLiteral("uri"), kUriSyntax, QStringLiteral("[uri]"));

    if (!parser.parse(arguments))
        return fail(parser.errorText());

    CommandLine cl;
    cl.helpText = withUsage(parser.helpText(), QStringLiteral("redislens"));
    if (parser.isSet(help)) {
        cl.action = Action::Help;
        return cl;
    }
    if (parser.isSet(version)) {
        cl.action = Action::Version;
        return cl;
    }
    if (const QString why = applyConnectionOptions(parser, c, parser.positionalArguments(), redisCliAuth, cl);
        !why.isEmpty())
        return fail(why);
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
    if (parser.isSet(scanReplica)) {
        QString why;
        if (parser.value(scanReplica).trimmed().isEmpty())
            return fail(QStringLiteral("--scan-replica needs host[:port]"));
        if (!cl.profile.parseScanReplica(parser.value(scanReplica), &why))
            return fail(QStringLiteral("invalid --scan-replica %1").arg(why));
    }
    return cl;
}
