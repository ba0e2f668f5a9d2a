// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "savedconnection.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

// Connections from elsewhere: a redis:// URI, a pasted redis-cli command line, and the
// connection exports of RedisInsight (a JSON array) and Another Redis Desktop Manager (base64 of
// a JSON array, or of {"connections": [...], "groups": [...]} since its 1.7.2). Secrets come
// back beside the connection, for the caller to put in the keychain; a certificate or key that
// an export holds as PEM text (RedisInsight) comes back as text, for the caller to save.
namespace connectionimport {

struct Imported
{
    SavedConnection connection;
    QString password;
    QString sshPassword;
    QString sshPassphrase;
    QByteArray caPem; // RedisInsight: the CA certificate's PEM text (no file yet)
    QByteArray certPem; // RedisInsight: the client certificate's PEM text
    QByteArray keyPem; // RedisInsight: the client key's PEM text (a secret)
    QByteArray sshKeyPem; // RedisInsight: the SSH private key's PEM text (a secret)
    QStringList notes; // what was not taken over, and why ("cluster mode: …")
};

// Whatever 'text' is: a URI, a redis-cli line, a RedisInsight or an ARDM export. An error
// names what it looked like and what is wrong.
std::optional<QList<Imported>> fromText(const QByteArray &text, QString *error);

std::optional<Imported> fromUri(const QString &uri, QString *error);
// "redis-cli -h cache -p 6380 --user ops -a secret --tls --cacert ca.pem -n 2" (quotes as a shell
// takes them; a trailing command such as "get foo" is noted and left out).
std::optional<Imported> fromRedisCli(const QString &line, QString *error);
std::optional<QList<Imported>> fromRedisInsight(const QByteArray &json, QString *error);
std::optional<QList<Imported>> fromArdm(const QByteArray &base64, QString *error);

// RedisLens's own export: {"redislens_connections": 1, "connections": [...]}, no secret in it.
QByteArray exportJson(const QList<SavedConnection> &connections);
std::optional<QList<SavedConnection>> fromExport(const QByteArray &json, QString *error);

// Splits a command line as a POSIX shell would (single and double quotes, backslashes).
std::optional<QStringList> splitShellWords(const QString &line, QString *error);

} // namespace connectionimport
