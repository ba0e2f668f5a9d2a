// SPDX-License-Identifier: GPL-3.0-or-later
#include "connectionimport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace connectionimport {

namespace {

QString nameFor(const ConnectionProfile &p)
{
    return p.usesUnixSocket() ? p.socketPath : QStringLiteral("%1:%2").arg(p.host).arg(p.port);
}

QString stringOf(const QJsonValue &v)
{
    if (v.isString())
        return v.toString();
    if (v.isDouble())
        return QString::number(qint64(v.toDouble()));
    return {};
}

// A port written as a number or, as ARDM's form writes it, a string.
std::optional<quint16> portOf(const QJsonValue &v, quint16 fallback)
{
    if (v.isUndefined() || v.isNull() || (v.isString() && v.toString().isEmpty()))
        return fallback;
    bool ok = false;
    const int port = v.isDouble() ? int(v.toDouble()) : v.toString().toInt(&ok);
    if ((v.isDouble() || ok) && port >= 1 && port <= 65535)
        return quint16(port);
    return std::nullopt;
}

// redis-cli's TLS options that name a file or a name: the profile field each fills.
QString ConnectionProfile::*tlsFileOption(const QString &option)
{
    static const std::pair<QLatin1String, QString ConnectionProfile::*> options[]
        = {{QLatin1String("--cacert"), &ConnectionProfile::caCertFile},
           {QLatin1String("--cacertdir"), &ConnectionProfile::caCertDir},
           {QLatin1String("--cert"), &ConnectionProfile::clientCertFile},
           {QLatin1String("--key"), &ConnectionProfile::clientKeyFile},
           {QLatin1String("--sni"), &ConnectionProfile::sni}};
    for (const auto &[name, field] : options) {
        if (option == name)
            return field;
    }
    return nullptr;
}

// An export entry's Redis port (6379 when missing) into 'port'; false and why, naming 'entry'.
bool readPort(const QJsonObject &o, quint16 *port, const QString &entry, QString *error)
{
    const auto value = portOf(o.value(QStringLiteral("port")), 6379);
    if (!value) {
        *error = QStringLiteral("%1: invalid port").arg(entry);
        return false;
    }
    *port = *value;
    return true;
}

bool isPem(const QString &text)
{
    return text.trimmed().startsWith(QLatin1String("-----BEGIN"));
}

} // namespace

std::optional<QStringList> splitShellWords(const QString &line, QString *error)
{
    QStringList words;
    QString word;
    bool inWord = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line.at(i);
        if (c == QLatin1Char('\'')) {
            const qsizetype end = line.indexOf(QLatin1Char('\''), i + 1);
            if (end < 0) {
                *error = QStringLiteral("a single quote is not closed");
                return std::nullopt;
            }
            word += line.mid(i + 1, end - i - 1);
            inWord = true;
            i = end;
        } else if (c == QLatin1Char('"')) {
            qsizetype j = i + 1;
            for (; j < line.size() && line.at(j) != QLatin1Char('"'); ++j) {
                if (line.at(j) == QLatin1Char('\\') && j + 1 < line.size()
                    && QStringLiteral("\"\\$`").contains(line.at(j + 1)))
                    ++j;
                word += line.at(j);
            }
            if (j >= line.size()) {
                *error = QStringLiteral("a double quote is not closed");
                return std::nullopt;
            }
            inWord = true;
            i = j;
        } else if (c == QLatin1Char('\\') && i + 1 < line.size()) {
            word += line.at(++i);
            inWord = true;
        } else if (c.isSpace()) {
            if (inWord)
                words.append(word);
            word.clear();
            inWord = false;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (inWord)
        words.append(word);
    return words;
}

std::optional<Imported> fromUri(const QString &uri, QString *error)
{
    Imported out;
    ConnectionProfile &p = out.connection.profile;
    if (!ConnectionProfile::parseUri(uri.trimmed(), &p, error))
        return std::nullopt;
    out.password = p.password;
    p.password.clear();
    p.name = nameFor(p);
    return out;
}

std::optional<Imported> fromRedisCli(const QString &line, QString *error)
{
    const auto split = splitShellWords(line, error);
    if (!split)
        return std::nullopt;
    QStringList words = *split;
    if (!words.isEmpty()
        && (words.first() == QLatin1String("redis-cli") || words.first().endsWith(QLatin1String("/redis-cli"))))
        words.removeFirst();
    Imported out;
    ConnectionProfile &p = out.connection.profile;
    QStringList rest;
    for (qsizetype i = 0; i < words.size(); ++i) {
        const QString &w = words.at(i);
        const auto value = [&](QString *into) {
            if (i + 1 >= words.size()) {
                *error = QStringLiteral("%1 needs a value").arg(w);
                return false;
            }
            *into = words.at(++i);
            return true;
        };
        QString v;
        static const QStringList withValue{QStringLiteral("-h"), QStringLiteral("-p"),     QStringLiteral("-s"),
                                           QStringLiteral("-a"), QStringLiteral("--pass"), QStringLiteral("--user"),
                                           QStringLiteral("-n"), QStringLiteral("-u")};
        if (withValue.contains(w) || tlsFileOption(w)) {
            if (!value(&v))
                return std::nullopt;
        }
        if (w == QLatin1String("-h")) {
            p.host = v;
        } else if (w == QLatin1String("-p")) {
            bool ok = false;
            const int port = v.toInt(&ok);
            if (!ok || port < 1 || port > 65535) {
                *error = QStringLiteral("invalid port '%1'").arg(v);
                return std::nullopt;
            }
            p.port = quint16(port);
        } else if (w == QLatin1String("-s")) {
            p.socketPath = v;
        } else if (w == QLatin1String("-a") || w == QLatin1String("--pass")) {
            out.password = v;
        } else if (w == QLatin1String("--user")) {
            p.username = v;
        } else if (w == QLatin1String("-n")) {
            bool ok = false;
            p.db = v.toInt(&ok);
            if (!ok || p.db < 0) {
                *error = QStringLiteral("invalid database '%1'").arg(v);
                return std::nullopt;
            }
        } else if (w == QLatin1String("-u")) {
            ConnectionProfile fromUri;
            if (!ConnectionProfile::parseUri(v, &fromUri, error))
                return std::nullopt;
            if (!fromUri.password.isEmpty())
                out.password = fromUri.password;
            fromUri.password.clear();
            p = fromUri;
        } else if (w == QLatin1String("--tls")) {
            p.tls = true;
        } else if (QString ConnectionProfile::*field = tlsFileOption(w)) {
            p.*field = v;
        } else if (w == QLatin1String("--insecure")) {
            p.tlsInsecure = true;
        } else if (w == QLatin1String("-c")) {
            out.notes << QStringLiteral("-c (cluster mode): connects to this node only for now");
        } else if (w == QLatin1String("--askpass")) {
            out.notes << QStringLiteral("--askpass: the password is asked for when connecting");
        } else if (w == QLatin1String("--no-auth-warning") || w == QLatin1String("--raw")
                   || w == QLatin1String("--no-raw") || w == QLatin1String("-e")) {
            // output options of redis-cli: nothing to take over
        } else if (w.startsWith(QLatin1Char('-'))) {
            out.notes << QStringLiteral("%1: a redis-cli option RedisLens does not take over").arg(w);
        } else {
            rest = words.mid(i);
            break;
        }
    }
    if (!rest.isEmpty())
        out.notes << QStringLiteral("the command \"%1\" is left out").arg(rest.join(QLatin1Char(' ')));
    if (p.tls && p.usesUnixSocket()) {
        *error = QStringLiteral("--tls cannot be used with a Unix socket");
        return std::nullopt;
    }
    p.password.clear();
    p.name = nameFor(p);
    return out;
}

std::optional<QList<Imported>> fromRedisInsight(const QByteArray &json, QString *error)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (!doc.isArray()) {
        *error = parseError.error != QJsonParseError::NoError
            ? QStringLiteral("not JSON: %1").arg(parseError.errorString())
            : QStringLiteral("a RedisInsight export is a JSON array of databases");
        return std::nullopt;
    }
    QList<Imported> out;
    int index = 0;
    for (const QJsonValue v : doc.array()) {
        ++index;
        const QJsonObject o = v.toObject();
        Imported in;
        ConnectionProfile &p = in.connection.profile;
        p.host = stringOf(o.value(QStringLiteral("host")));
        if (p.host.isEmpty()) {
            *error = QStringLiteral("database %1 has no host").arg(index);
            return std::nullopt;
        }
        if (!readPort(o, &p.port, QStringLiteral("database %1").arg(index), error))
            return std::nullopt;
        p.name = stringOf(o.value(QStringLiteral("name")));
        if (p.name.isEmpty())
            p.name = stringOf(o.value(QStringLiteral("connectionName")));
        if (p.name.isEmpty())
            p.name = nameFor(p);
        p.db = o.value(QStringLiteral("db")).toInt(0);
        p.username = stringOf(o.value(QStringLiteral("username")));
        in.password = stringOf(o.value(QStringLiteral("password")));
        if (in.password.isEmpty())
            in.password = stringOf(o.value(QStringLiteral("auth")));
        const QJsonObject ca = o.value(QStringLiteral("caCert")).toObject();
        const QJsonObject client = o.value(QStringLiteral("clientCert")).toObject();
        p.tls = o.value(QStringLiteral("tls")).toBool() || o.value(QStringLiteral("ssl")).toBool() || !ca.isEmpty()
            || !client.isEmpty();
        p.sni = stringOf(o.value(QStringLiteral("tlsServername")));
        // RedisInsight verifies the chain only when told to; RedisLens verifies by default, so
        // an export that said not to keeps saying so.
        if (p.tls && o.contains(QStringLiteral("verifyServerCert"))
            && !o.value(QStringLiteral("verifyServerCert")).toBool())
            p.tlsInsecure = true;
        const auto pemOrFile = [](const QString &value, QByteArray *pem, QString *file) {
            if (isPem(value))
                *pem = value.toUtf8();
            else
                *file = value;
        };
        pemOrFile(stringOf(ca.value(QStringLiteral("certificate"))), &in.caPem, &p.caCertFile);
        pemOrFile(stringOf(client.value(QStringLiteral("certificate"))), &in.certPem, &p.clientCertFile);
        pemOrFile(stringOf(client.value(QStringLiteral("key"))), &in.keyPem, &p.clientKeyFile);
        if (!client.isEmpty() && !client.contains(QStringLiteral("key")))
            in.notes << QStringLiteral("the client key was exported without secrets: choose its file");
        const QString type = stringOf(o.value(QStringLiteral("connectionType")));
        if (type == QLatin1String("CLUSTER"))
            in.notes << QStringLiteral("a cluster: connects to this node only for now");
        else if (type == QLatin1String("SENTINEL"))
            in.notes << QStringLiteral("a Sentinel (master %1): connects to the sentinel's address only for now")
                            .arg(o.value(QStringLiteral("sentinelMaster"))
                                     .toObject()
                                     .value(QStringLiteral("name"))
                                     .toString());
        const QJsonObject ssh = o.value(QStringLiteral("sshOptions")).toObject();
        if (o.value(QStringLiteral("ssh")).toBool() && !ssh.isEmpty()) {
            SshSettings &s = in.connection.profile.ssh;
            s.host = stringOf(ssh.value(QStringLiteral("host")));
            s.port = portOf(ssh.value(QStringLiteral("port")), 22).value_or(22);
            s.user = stringOf(ssh.value(QStringLiteral("username")));
            in.sshPassword = stringOf(ssh.value(QStringLiteral("password")));
            in.sshPassphrase = stringOf(ssh.value(QStringLiteral("passphrase")));
            QString keyFile;
            pemOrFile(stringOf(ssh.value(QStringLiteral("privateKey"))), &in.sshKeyPem, &keyFile);
            s.keyFile = keyFile;
            s.usePassword = !in.sshPassword.isEmpty();
        }
        const QString compressor = stringOf(o.value(QStringLiteral("compressor")));
        if (!compressor.isEmpty() && compressor != QLatin1String("NONE"))
            in.notes << QStringLiteral("values compressed with %1: not decoded yet").arg(compressor);
        out.append(in);
    }
    return out;
}

std::optional<QList<Imported>> fromArdm(const QByteArray &base64, QString *error)
{
    const auto decoded = QByteArray::fromBase64Encoding(base64.trimmed(), QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded) {
        *error = QStringLiteral("an Another Redis Desktop Manager export is base64, and this is not");
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(*decoded, &parseError);
    QJsonArray list;
    QHash<QString, QString> groups;
    if (doc.isArray()) {
        list = doc.array(); // before 1.7.2
    } else if (doc.isObject() && doc.object().value(QStringLiteral("connections")).isArray()) {
        list = doc.object().value(QStringLiteral("connections")).toArray();
        for (const QJsonValue g : doc.object().value(QStringLiteral("groups")).toArray())
            groups.insert(g.toObject().value(QStringLiteral("id")).toString(),
                          g.toObject().value(QStringLiteral("name")).toString());
    } else {
        *error = QStringLiteral("the decoded export holds no list of connections");
        return std::nullopt;
    }
    QList<Imported> out;
    int index = 0;
    for (const QJsonValue v : list) {
        ++index;
        const QJsonObject o = v.toObject();
        Imported in;
        ConnectionProfile &p = in.connection.profile;
        p.host = stringOf(o.value(QStringLiteral("host")));
        if (p.host.isEmpty())
            p.host = QStringLiteral("127.0.0.1"); // ARDM's own default
        if (!readPort(o, &p.port, QStringLiteral("connection %1").arg(index), error))
            return std::nullopt;
        p.name = stringOf(o.value(QStringLiteral("name")));
        if (p.name.isEmpty())
            p.name = QStringLiteral("%1@%2").arg(p.host).arg(p.port); // as ARDM shows it
        const QString group = groups.value(stringOf(o.value(QStringLiteral("groupId"))));
        if (!group.isEmpty())
            p.name = QStringLiteral("%1 / %2").arg(group, p.name);
        p.username = stringOf(o.value(QStringLiteral("username")));
        in.password = stringOf(o.value(QStringLiteral("auth")));
        p.readOnly = o.value(QStringLiteral("connectionReadOnly")).toBool();
        const QString colour = stringOf(o.value(QStringLiteral("color")));
        if (!colour.isEmpty())
            in.connection.colour = QColor::fromString(colour);
        const QJsonObject ssl = o.value(QStringLiteral("sslOptions")).toObject();
        if (o.contains(QStringLiteral("sslOptions"))) {
            p.tls = true;
            p.caCertFile = stringOf(ssl.value(QStringLiteral("ca")));
            p.clientCertFile = stringOf(ssl.value(QStringLiteral("cert")));
            p.clientKeyFile = stringOf(ssl.value(QStringLiteral("key")));
            p.sni = stringOf(ssl.value(QStringLiteral("servername")));
            in.notes << QStringLiteral("TLS: Another Redis Desktop Manager does not verify certificates; RedisLens "
                                       "does (--cacert names the CA)");
        }
        const QJsonObject ssh = o.value(QStringLiteral("sshOptions")).toObject();
        if (!ssh.isEmpty() && !stringOf(ssh.value(QStringLiteral("host"))).isEmpty()) {
            SshSettings &s = in.connection.profile.ssh;
            s.host = stringOf(ssh.value(QStringLiteral("host")));
            s.port = portOf(ssh.value(QStringLiteral("port")), 22).value_or(22);
            s.user = stringOf(ssh.value(QStringLiteral("username")));
            s.keyFile = stringOf(ssh.value(QStringLiteral("privatekey")));
            in.sshPassword = stringOf(ssh.value(QStringLiteral("password")));
            in.sshPassphrase = stringOf(ssh.value(QStringLiteral("passphrase")));
            s.usePassword = !in.sshPassword.isEmpty();
        }
        if (o.value(QStringLiteral("cluster")).toBool())
            in.notes << QStringLiteral("a cluster: connects to this node only for now");
        if (o.contains(QStringLiteral("sentinelOptions")))
            in.notes << QStringLiteral("a Sentinel (master %1): connects to the sentinel's address only for now")
                            .arg(o.value(QStringLiteral("sentinelOptions"))
                                     .toObject()
                                     .value(QStringLiteral("masterName"))
                                     .toString());
        const QString separator = stringOf(o.value(QStringLiteral("separator")));
        if (!separator.isEmpty() && separator != QLatin1String(":"))
            in.notes << QStringLiteral("key separator '%1': set it in the key browser").arg(separator);
        out.append(in);
    }
    return out;
}

QByteArray exportJson(const QList<SavedConnection> &connections)
{
    QJsonArray list;
    for (const SavedConnection &c : connections)
        list.append(c.toJson());
    return QJsonDocument(
               QJsonObject{{QStringLiteral("redislens_connections"), 1}, {QStringLiteral("connections"), list}})
        .toJson(QJsonDocument::Indented);
}

std::optional<QList<SavedConnection>> fromExport(const QByteArray &json, QString *error)
{
    const QJsonObject doc = QJsonDocument::fromJson(json).object();
    if (doc.value(QStringLiteral("redislens_connections")).toInt() != 1) {
        *error = QStringLiteral("not a RedisLens connections export (version 1)");
        return std::nullopt;
    }
    QList<SavedConnection> out;
    int index = 0;
    for (const QJsonValue v : doc.value(QStringLiteral("connections")).toArray()) {
        ++index;
        QString why;
        const auto c = SavedConnection::fromJson(v.toObject(), &why);
        if (!c) {
            *error = QStringLiteral("connection %1: %2").arg(index).arg(why);
            return std::nullopt;
        }
        out.append(*c);
    }
    return out;
}

std::optional<QList<Imported>> fromText(const QByteArray &text, QString *error)
{
    const QByteArray t = text.trimmed();
    if (t.isEmpty()) {
        *error = QStringLiteral("nothing to import");
        return std::nullopt;
    }
    const auto one = [](std::optional<Imported> i) -> std::optional<QList<Imported>> {
        if (!i)
            return std::nullopt;
        return QList<Imported>{*i};
    };
    const QString line = QString::fromUtf8(t);
    if (t.startsWith("redis://") || t.startsWith("rediss://") || t.startsWith("unix://"))
        return one(fromUri(line, error));
    if (t.startsWith('[')) {
        QString why;
        if (auto r = fromRedisInsight(t, &why))
            return r;
        *error = QStringLiteral("RedisInsight export: %1").arg(why);
        return std::nullopt;
    }
    if (t.startsWith('{')) {
        QString why;
        if (auto r = fromExport(t, &why)) {
            QList<Imported> out;
            for (const SavedConnection &c : *r)
                out.append(Imported{c, {}, {}, {}, {}, {}, {}, {}, {}});
            return out;
        }
        *error = why;
        return std::nullopt;
    }
    if (t.startsWith("redis-cli") || t.startsWith('-') || t.contains("/redis-cli "))
        return one(fromRedisCli(line, error));
    if (!t.contains(' ') && !t.contains('\n')) {
        QString why;
        if (auto r = fromArdm(t, &why))
            return r;
        *error = QStringLiteral("Another Redis Desktop Manager export: %1").arg(why);
        return std::nullopt;
    }
    *error = QStringLiteral("expected a redis:// URI, a redis-cli command line, or a RedisInsight, Another Redis "
                            "Desktop Manager or RedisLens export");
    return std::nullopt;
}

} // namespace connectionimport
