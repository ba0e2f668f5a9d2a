// SPDX-License-Identifier: GPL-3.0-or-later
#include "connectionprofile.h"

#include "clustertopology.h"

#include <QRegularExpression>
#include <QStringBuilder>
#include <QUrl>
#include <QUrlQuery>

QString ConnectionProfile::displayName() const
{
    QString where;
    if (usesSentinel()) {
        // The master's name first: the address is whichever primary the sentinels name now.
        // Before the sentinels have answered there is no address yet.
        where = host.isEmpty() ? QStringLiteral("%1 via Sentinel").arg(sentinelMaster)
                               : QStringLiteral("%1 via Sentinel (%2:%3)").arg(sentinelMaster, host).arg(port);
        if (db != 0)
            where += QLatin1Char('/') + QString::number(db);
    } else if (usesUnixSocket()) {
        where = socketPath;
        if (db != 0)
            where += QStringLiteral(" db %1").arg(db);
    } else {
        // An IPv6 literal needs brackets, or its port reads as one more group.
        where = (host.contains(QLatin1Char(':')) ? QLatin1Char('[') + host + QLatin1Char(']') : host) + QLatin1Char(':')
            + QString::number(port);
        if (db != 0)
            where += QLatin1Char('/') + QString::number(db);
    }
    if (ssh.enabled())
        where += QLatin1String(" via ") + ssh.displayName();
    if (!name.isEmpty())
        return name + QLatin1String(" (") + where + QLatin1Char(')');
    return where;
}

QString SshSettings::displayName() const
{
    QString text = user.isEmpty() ? QString() : user + QLatin1Char('@');
    text += host.contains(QLatin1Char(':')) ? QLatin1Char('[') + host + QLatin1Char(']') : host;
    if (port != 0)
        text += QLatin1Char(':') + QString::number(port);
    return text;
}

// host[:port], an IPv6 host in brackets; *port stays as it was when none is given. 'whole' is
// the text the messages quote, 'expected' what they say it should look like.
static bool parseHostPort(const QString &rest, const QString &whole, const char *expected, QString *host, quint16 *port,
                          QString *error)
{
    QString name = rest;
    QString portText;
    if (rest.startsWith(QLatin1Char('['))) {
        const qsizetype close = rest.indexOf(QLatin1Char(']'));
        if (close < 0) {
            *error = QStringLiteral("'%1': an IPv6 address needs its closing ']'").arg(whole);
            return false;
        }
        name = rest.mid(1, close - 1);
        const QString after = rest.mid(close + 1);
        if (!after.isEmpty() && !after.startsWith(QLatin1Char(':'))) {
            *error = QStringLiteral("'%1': expected ':port' after ']'").arg(whole);
            return false;
        }
        portText = after.mid(1);
        if (after == QLatin1String(":"))
            portText = QStringLiteral(":"); // fails the number check below
    } else if (rest.count(QLatin1Char(':')) == 1) {
        name = rest.section(QLatin1Char(':'), 0, 0);
        portText = rest.section(QLatin1Char(':'), 1);
        if (portText.isEmpty())
            portText = QStringLiteral(":");
    }
    if (name.isEmpty() || name.contains(QLatin1Char(' '))) {
        *error = QStringLiteral("'%1': expected %2").arg(whole, QLatin1String(expected));
        return false;
    }
    if (!portText.isEmpty()) {
        bool ok = false;
        const uint n = portText.toUInt(&ok);
        if (!ok || n == 0 || n > 65535) {
            *error = QStringLiteral("'%1': the port must be a number from 1 to 65535").arg(whole);
            return false;
        }
        *port = quint16(n);
    }
    *host = name;
    return true;
}

bool SshSettings::parseTarget(const QString &text, SshSettings *out, QString *error)
{
    QString rest = text.trimmed();
    QString user;
    if (const qsizetype at = rest.lastIndexOf(QLatin1Char('@')); at >= 0) {
        user = rest.left(at);
        rest = rest.mid(at + 1);
        if (user.isEmpty()) {
            *error = QStringLiteral("'%1': no user name before '@'").arg(text);
            return false;
        }
    }
    QString host;
    quint16 port = 0;
    if (!parseHostPort(rest, text, "[user@]host[:port]", &host, &port, error))
        return false;
    out->user = user;
    out->host = host;
    out->port = port;
    return true;
}

bool ConnectionProfile::parseAddressList(const QString &text, QStringList *out, QString *error)
{
    static const QRegularExpression separators(QStringLiteral("[,\\s]+"));
    for (const QString &part : text.split(separators, Qt::SkipEmptyParts)) {
        cluster::Address a;
        if (!cluster::parseAddress(part, &a) || a.host.isEmpty() || a.port == 0) {
            if (error)
                *error = QStringLiteral("\"%1\" is not host:port").arg(part);
            return false;
        }
        out->append(a.toString());
    }
    return true;
}

ConnectionProfile ConnectionProfile::atAddress(const QString &atHost, quint16 atPort, const QString &atName) const
{
    ConnectionProfile p = *this;
    p.host = atHost;
    p.port = atPort;
    p.name = atName;
    p.socketPath.clear();
    p.scanReplicaHost.clear();
    p.scanReplicaPort = 0;
    p.cluster = false;
    p.clusterAddressMap.clear();
    p.clusterKeepSeedHost = false;
    p.clusterSeeds.clear();
    p.clusterScanReplicas = false;
    p.sentinels.clear();
    p.sentinelMaster.clear();
    p.sentinelReplica = false;
    p.redlockPeers.clear();
    return p;
}

bool ConnectionProfile::parseScanReplica(const QString &text, QString *error)
{
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty()) {
        scanReplicaHost.clear();
        scanReplicaPort = 0;
        return true;
    }
    QString replicaHost;
    quint16 replicaPort = 6379;
    if (!parseHostPort(trimmed, text, "host[:port]", &replicaHost, &replicaPort, error))
        return false;
    scanReplicaHost = replicaHost;
    scanReplicaPort = replicaPort;
    return true;
}

QString ConnectionProfile::scanReplica() const
{
    if (scanReplicaHost.isEmpty())
        return {};
    const QString host = scanReplicaHost.contains(QLatin1Char(':'))
        ? QLatin1Char('[') + scanReplicaHost + QLatin1Char(']')
        : scanReplicaHost;
    return host + QLatin1Char(':') + QString::number(scanReplicaPort);
}

ConnectionProfile ConnectionProfile::scanProfile() const
{
    ConnectionProfile scan = *this;
    scan.clientName = clientName + QStringLiteral("-scan");
    if (!scanReplicaHost.isEmpty()) {
        scan.socketPath.clear();
        scan.host = scanReplicaHost;
        scan.port = scanReplicaPort;
        scan.sni.clear(); // the replica's own name
    }
    return scan;
}

QList<QByteArray> ConnectionProfile::authCommand() const
{
    if (!username.isEmpty())
        return {QByteArrayLiteral("AUTH"), username.toUtf8(), password.toUtf8()};
    if (!password.isEmpty())
        return {QByteArrayLiteral("AUTH"), password.toUtf8()};
    return {};
}

QString ConnectionProfile::toUri() const
{
    QUrl url;
    if (usesUnixSocket()) {
        url.setScheme(QStringLiteral("unix"));
        url.setPath(socketPath);
        if (db != 0)
            url.setQuery(QStringLiteral("db=") + QString::number(db));
    } else {
        url.setScheme(tls ? QStringLiteral("rediss") : QStringLiteral("redis"));
        url.setHost(host);
        url.setPort(port);
        if (db != 0)
            url.setPath(QLatin1Char('/') + QString::number(db));
    }
    if (usesUnixSocket())
        url.setHost(QStringLiteral("")); // empty, not null: gives unix:///path, the documented form
    if (!username.isEmpty())
        url.setUserName(username);
    // Fully encoded: a user name with '@', ':' or a space must read back as the same name.
    return url.toString(QUrl::FullyEncoded);
}

QString ConnectionProfile::maskedUri(const QString &text)
{
    // On the text, not on QUrl's parse: it must also mask what QUrl refuses.
    const qsizetype authority = text.indexOf(QLatin1String("://"));
    if (authority < 0)
        return text;
    const qsizetype at = text.lastIndexOf(QLatin1Char('@'));
    const qsizetype colon = text.indexOf(QLatin1Char(':'), authority + 3);
    if (at < 0 || colon < 0 || colon > at)
        return text;
    return text.left(colon + 1) + QLatin1String("****") + text.mid(at);
}

bool ConnectionProfile::parseUri(const QString &uri, ConnectionProfile *out, QString *error)
{
    auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    // Never repeat the password in a message.
    const QString shown = maskedUri(uri);
    const QString trimmed = uri.trimmed();
    if (trimmed.isEmpty()
        || (!trimmed.contains(QLatin1String("://"))
            && !trimmed.startsWith(QLatin1String("unix:"), Qt::CaseInsensitive)))
        return fail(QStringLiteral("'%1' is not a URI: expected redis://, rediss:// or unix://").arg(shown));
    const QUrl url(uri, QUrl::StrictMode);
    if (!url.isValid()) {
        // QUrl appends "; source was …": the user has just typed the source.
        QString why = url.errorString().section(QLatin1Char(';'), 0, 0);
        if (!why.isEmpty())
            why[0] = why[0].toLower();
        return fail(QStringLiteral("malformed URI '%1': %2").arg(shown, why));
    }
    const QString scheme = url.scheme().toLower();
    ConnectionProfile p = *out;
    if (scheme == QLatin1String("redis") || scheme == QLatin1String("rediss")) {
        p.tls = scheme == QLatin1String("rediss");
        if (url.host().isEmpty())
            return fail(QStringLiteral("URI '%1' has no host").arg(shown));
        p.host = url.host();
        p.socketPath.clear();
        const int port = url.port(6379);
        if (port < 1 || port > 65535)
            return fail(QStringLiteral("URI '%1' has an invalid port").arg(shown));
        p.port = quint16(port);
        const QString path = url.path();
        if (!path.isEmpty() && path != QLatin1String("/")) {
            bool ok = false;
            const int db = path.mid(1).toInt(&ok);
            if (!ok || db < 0)
                return fail(QStringLiteral("URI '%1': database must be a number, not '%2'").arg(shown, path.mid(1)));
            p.db = db;
        }
    } else if (scheme == QLatin1String("unix")) {
        if (url.path().isEmpty())
            return fail(QStringLiteral("URI '%1' has no socket path").arg(shown));
        p.socketPath = url.path();
        p.tls = false;
    } else if (scheme.isEmpty()) {
        return fail(QStringLiteral("'%1' is not a URI: expected redis://, rediss:// or unix://").arg(shown));
    } else {
        return fail(QStringLiteral("unsupported scheme '%1': expected redis, rediss or unix").arg(scheme));
    }
    const QUrlQuery query(url);
    if (query.hasQueryItem(QStringLiteral("db"))) {
        bool ok = false;
        const int db = query.queryItemValue(QStringLiteral("db")).toInt(&ok);
        if (!ok || db < 0)
            return fail(QStringLiteral("URI '%1': db must be a number").arg(shown));
        p.db = db;
    }
    // userinfo follows redis-py: "user@" names a user (the password then comes from a prompt or
    // REDISCLI_AUTH), ":secret@" is a password for the default user, "user:secret@" both.
    const QString user = url.userName(QUrl::FullyDecoded);
    const QString pass = url.password(QUrl::FullyDecoded);
    if (!user.isEmpty())
        p.username = user;
    if (!pass.isEmpty())
        p.password = pass;
    *out = p;
    return true;
}
