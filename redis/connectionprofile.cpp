// SPDX-License-Identifier: GPL-3.0-or-later
#include "connectionprofile.h"

#include <QStringBuilder>
#include <QUrl>
#include <QUrlQuery>

QString ConnectionProfile::displayName() const
{
    QString where = usesUnixSocket() ? socketPath : host + QLatin1Char(':') + QString::number(port);
    if (db != 0)
        where += QLatin1Char('/') + QString::number(db);
    if (!name.isEmpty())
        return name + QLatin1String(" (") + where + QLatin1Char(')');
    return where;
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
    if (!username.isEmpty())
        url.setUserName(username);
    return url.toString();
}

bool ConnectionProfile::parseUri(const QString &uri, ConnectionProfile *out, QString *error)
{
    auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    const QUrl url(uri, QUrl::StrictMode);
    if (!url.isValid())
        return fail(QStringLiteral("malformed URI '%1': %2").arg(uri, url.errorString()));
    const QString scheme = url.scheme().toLower();
    ConnectionProfile p = *out;
    if (scheme == QLatin1String("redis") || scheme == QLatin1String("rediss")) {
        p.tls = scheme == QLatin1String("rediss");
        if (url.host().isEmpty())
            return fail(QStringLiteral("URI '%1' has no host").arg(uri));
        p.host = url.host();
        p.socketPath.clear();
        const int port = url.port(6379);
        if (port < 1 || port > 65535)
            return fail(QStringLiteral("URI '%1' has an invalid port").arg(uri));
        p.port = quint16(port);
        const QString path = url.path();
        if (!path.isEmpty() && path != QLatin1String("/")) {
            bool ok = false;
            const int db = path.mid(1).toInt(&ok);
            if (!ok || db < 0)
                return fail(QStringLiteral("URI '%1': database must be a number, not '%2'").arg(uri, path.mid(1)));
            p.db = db;
        }
    } else if (scheme == QLatin1String("unix")) {
        if (url.path().isEmpty())
            return fail(QStringLiteral("URI '%1' has no socket path").arg(uri));
        p.socketPath = url.path();
        p.tls = false;
    } else if (scheme.isEmpty()) {
        return fail(QStringLiteral("'%1' is not a URI: expected redis://, rediss:// or unix://").arg(uri));
    } else {
        return fail(QStringLiteral("unsupported scheme '%1': expected redis, rediss or unix").arg(scheme));
    }
    const QUrlQuery query(url);
    if (query.hasQueryItem(QStringLiteral("db"))) {
        bool ok = false;
        const int db = query.queryItemValue(QStringLiteral("db")).toInt(&ok);
        if (!ok || db < 0)
            return fail(QStringLiteral("URI '%1': db must be a number").arg(uri));
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
