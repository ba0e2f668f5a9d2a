// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

// The SSH bastion a connection goes through (ssh -J style): the server's host and port are then
// reached from the bastion. Secrets are held in memory only, like the Redis password.
struct SshSettings
{
    QString host; // empty: no tunnel; may be a ~/.ssh/config alias
    quint16 port = 0; // 0: ~/.ssh/config's Port, else 22
    QString user; // empty: ~/.ssh/config's User, else the local user name
    QString keyFile; // empty: the agent, then ~/.ssh's default keys (or a password)
    QString keyPassphrase; // secret: memory only
    QString password; // secret: memory only; used when set or when usePassword
    bool usePassword = false; // log in with a password (asked for when not given)
    bool acceptNewHostKey = false; // trust and remember a host key not in known_hosts without asking

    bool enabled() const { return !host.isEmpty(); }
    // "user@host:port" as given (no secrets), for titles and messages.
    QString displayName() const;
    // Parses [user@]host[:port] (an IPv6 host in brackets); false and a one-line reason when it
    // is not one.
    static bool parseTarget(const QString &text, SshSettings *out, QString *error);
    bool operator==(const SshSettings &o) const
    {
        return host == o.host && port == o.port && user == o.user && keyFile == o.keyFile
            && keyPassphrase == o.keyPassphrase && password == o.password && usePassword == o.usePassword
            && acceptNewHostKey == o.acceptNewHostKey;
    }
};

// Where and how to connect. The password is held in memory only: it comes from a prompt, the
// REDISCLI_AUTH variable, a URI or the OS keychain, and is never written to settings or logs.
struct ConnectionProfile
{
    QString name; // shown to the user; never contains the password
    QString host = QStringLiteral("127.0.0.1");
    quint16 port = 6379;
    quint16 scanReplicaPort = 0; // see scanReplicaHost (here, it fills the padding after port)
    QString socketPath; // Unix socket; wins over host/port when set
    int db = 0;
    QString username; // empty: the default user
    QString password;
    bool tls = false;
    QString caCertFile; // TLS: trust these CA certificates (PEM) besides the system's
    QString caCertDir; // TLS: and the PEM certificates of this directory
    QString clientCertFile; // TLS: our certificate (PEM), for servers with tls-auth-clients
    QString clientKeyFile; // TLS: its private key (PEM, RSA or EC, possibly encrypted)
    QString keyPassphrase; // secret, like the password: memory only
    QString sni; // TLS: the server name sent and verified; empty: the host
    bool tlsInsecure = false; // TLS: do not verify the server's certificate (redis-cli --insecure)
    SshSettings ssh; // the bastion in front of the server, if any
    bool readOnly = false;
    // Redis Cluster: the host is a seed node; commands go to the node that owns their keys, and
    // scans walk every primary (ClusterRouter).
    bool cluster = false;
    bool clusterKeepSeedHost = false; // reach every node at the seed's host, on its announced port
    // The window's scan walks one replica of each primary (READONLY) instead of the primaries.
    bool clusterScanReplicas = false;
    // Sentinel (below): inspect through a healthy replica of the master (the freshest the
    // sentinels list) instead of its primary; such a connection is read-only. Without one that is
    // healthy: the primary.
    bool sentinelReplica = false;
    // More seed nodes ("host:port"), tried in turn when host:port does not answer: a cluster
    // whose first node is down is still reached. After a failure the connection moves on to the
    // next; a round over all of them without a connection is one failure.
    QStringList clusterSeeds;
    int connectTimeoutMs = 5000;
    int commandTimeoutMs = 10000;
    QString clientName = QStringLiteral("redislens");
    // The window's scan (key browser, pattern index, memory analysis) reads through this replica
    // of the server instead of the server itself; everything else, writes included, goes to the
    // server. Empty: the server; the port is scanReplicaPort. Same credentials, TLS and tunnel.
    QString scanReplicaHost;
    // Announced addresses mapped to reachable ones: "host:port=host:port" or "host=host", separated
    // by commas (cluster::AddressMap).
    QString clusterAddressMap;
    // Redis Sentinel: the primary of 'sentinelMaster' is found by asking these sentinels
    // ("host:port"), and found again after a failover. Their credentials are their own.
    QStringList sentinels;
    QString sentinelMaster;
    QString sentinelUsername;
    QString sentinelPassword; // secret: memory only, like the password
    bool usesSentinel() const { return !sentinelMaster.isEmpty(); }
    // Redlock: the other independent primaries ("host:port") of the Redlock set this server is one
    // of, reached with the same credentials, TLS and tunnel. The locks panel reads every lock on
    // each of them: on how many it is held, by which token, and the smallest TTL left.
    QStringList redlockPeers;

    bool usesUnixSocket() const { return !socketPath.isEmpty(); }
    // The AUTH command a connection starts with; empty when none is needed. A user name
    // without a password still authenticates as that user (an ACL user with `nopass` accepts
    // any password, one without it answers WRONGPASS), never silently as `default`.
    QList<QByteArray> authCommand() const;
    // host[:port] (port 6379 by default; an IPv6 host in brackets), or empty for none; false and
    // a one-line reason when it is not one.
    bool parseScanReplica(const QString &text, QString *error);
    // "host:port", or empty.
    QString scanReplica() const;
    // "host:port" addresses separated by commas or spaces (an IPv6 host in brackets) into
    // 'out' ("host:port" each); false and a one-line reason at the first that is not one.
    static bool parseAddressList(const QString &text, QStringList *out, QString *error);
    // The same credentials, TLS, tunnel, read-only setting and timeouts at another server, as one
    // server (not a cluster, Sentinel or scan replica): a cluster's node, a sentinel.
    ConnectionProfile atAddress(const QString &host, quint16 port, const QString &name) const;
    // The profile the window's scan connects with: named "<client name>-scan", at the replica
    // when one is set.
    ConnectionProfile scanProfile() const;
    // "host:port/db" or the socket path, for titles and logs (no secrets).
    QString displayName() const;
    // redis:// or rediss:// URI without the password, for settings.
    QString toUri() const;

    // 'text' with the password of a URI in it masked (redis://user:****@host), for anything shown
    // or printed; text that is not a URI comes back unchanged.
    static QString maskedUri(const QString &text);

    // Parses redis://[user[:password]@]host[:port][/db], rediss://… (TLS) and
    // unix://[user[:password]@]/path[?db=N]. On failure returns false and a one-line reason.
    static bool parseUri(const QString &uri, ConnectionProfile *out, QString *error);
};

Q_DECLARE_METATYPE(ConnectionProfile)
