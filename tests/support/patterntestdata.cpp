// SPDX-License-Identifier: GPL-3.0-or-later
#include "patterntestdata.h"

#include "testserver.h"

PatternMatch patternMatch(const QByteArray &key, PatternKind kind, KeyType type, const QString &family, qint64 pttlMs,
                          const QVariantMap &params)
{
    PatternMatch m;
    m.key = key;
    m.kind = kind;
    m.type = type;
    m.family = family;
    m.pttlMs = pttlMs;
    m.confidence = 90;
    m.params = params;
    m.fromRule = !params.isEmpty();
    return m;
}

std::unique_ptr<RedisClient> clientWithout(TestServer &server, const QByteArray &user, const QList<QByteArray> &denied)
{
    QList<QByteArray> acl{"ACL", "SETUSER", user, "on", ">pw", "~*", "+@all"};
    for (const QByteArray &command : denied)
        acl << "-" + command;
    server.command(acl);
    ConnectionProfile profile = server.profile();
    profile.username = QString::fromUtf8(user);
    profile.password = QStringLiteral("pw");
    return connectedClient(profile);
}

bool isOneLinePermissionError(const QString &message)
{
    return (message.contains(QLatin1String("NOPERM")) || message.contains(QLatin1String("permission")))
        && !message.contains(QLatin1Char('\n'));
}
