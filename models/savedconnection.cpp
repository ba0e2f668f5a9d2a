// SPDX-License-Identifier: GPL-3.0-or-later
#include "savedconnection.h"

#include "clustertopology.h"

#include <QJsonArray>
#include <QJsonValue>

QString SavedConnection::tagName(Tag tag)
{
    switch (tag) {
    case Tag::Local: return QStringLiteral("local");
    case Tag::Staging: return QStringLiteral("staging");
    case Tag::Production: return QStringLiteral("production");
    }
    return {};
}

std::optional<SavedConnection::Tag> SavedConnection::tagFromName(const QString &name)
{
    for (const Tag t : {Tag::Local, Tag::Staging, Tag::Production}) {
        if (name == tagName(t))
            return t;
    }
    return std::nullopt;
}

QJsonObject SavedConnection::toJson() const
{
    const ConnectionProfile &p = profile;
    QJsonObject o{{QStringLiteral("id"), id},
                  {QStringLiteral("name"), p.name},
                  {QStringLiteral("tag"), tagName(tag)},
                  {QStringLiteral("read_only"), p.readOnly}};
    if (colour.isValid())
        o.insert(QStringLiteral("colour"), colour.name());
    if (p.usesUnixSocket()) {
        o.insert(QStringLiteral("socket"), p.socketPath);
    } else {
        o.insert(QStringLiteral("host"), p.host);
        o.insert(QStringLiteral("port"), int(p.port));
    }
    if (p.db != 0)
        o.insert(QStringLiteral("db"), p.db);
    if (!p.scanReplica().isEmpty())
        o.insert(QStringLiteral("scan_replica"), p.scanReplica());
    if (p.cluster) {
        QJsonObject cluster;
        if (!p.clusterAddressMap.isEmpty())
            cluster.insert(QStringLiteral("address_map"), p.clusterAddressMap);
        if (p.clusterKeepSeedHost)
            cluster.insert(QStringLiteral("keep_seed_host"), true);
        if (!p.clusterSeeds.isEmpty())
            cluster.insert(QStringLiteral("seeds"), QJsonArray::fromStringList(p.clusterSeeds));
        if (p.clusterScanReplicas)
            cluster.insert(QStringLiteral("scan_replicas"), true);
        o.insert(QStringLiteral("cluster"), cluster);
    }
    if (p.usesSentinel()) {
        QJsonObject sentinel{{QStringLiteral("master"), p.sentinelMaster},
                             {QStringLiteral("addresses"), QJsonArray::fromStringList(p.sentinels)}};
        if (!p.sentinelUsername.isEmpty())
            sentinel.insert(QStringLiteral("user"), p.sentinelUsername);
        if (p.sentinelReplica)
            sentinel.insert(QStringLiteral("replica"), true);
        o.insert(QStringLiteral("sentinel"), sentinel);
    }
    if (!p.redlockPeers.isEmpty())
        o.insert(QStringLiteral("redlock"),
                 QJsonObject{{QStringLiteral("peers"), QJsonArray::fromStringList(p.redlockPeers)}});
    if (!p.username.isEmpty())
        o.insert(QStringLiteral("user"), p.username);
    if (p.tls) {
        QJsonObject tls;
        const std::pair<const char *, QString> files[] = {{"cacert", p.caCertFile},
                                                          {"cacertdir", p.caCertDir},
                                                          {"cert", p.clientCertFile},
                                                          {"key", p.clientKeyFile},
                                                          {"sni", p.sni}};
        for (const auto &[name, value] : files) {
            if (!value.isEmpty())
                tls.insert(QString::fromLatin1(name), value);
        }
        if (p.tlsInsecure)
            tls.insert(QStringLiteral("insecure"), true);
        o.insert(QStringLiteral("tls"), tls);
    }
    const SshSettings &ssh = p.ssh;
    if (ssh.enabled()) {
        QJsonObject s{{QStringLiteral("host"), ssh.host}};
        if (ssh.port != 0)
            s.insert(QStringLiteral("port"), int(ssh.port));
        if (!ssh.user.isEmpty())
            s.insert(QStringLiteral("user"), ssh.user);
        if (!ssh.keyFile.isEmpty())
            s.insert(QStringLiteral("key"), ssh.keyFile);
        if (ssh.usePassword)
            s.insert(QStringLiteral("password"), true); // that one is asked for: never its value
        o.insert(QStringLiteral("ssh"), s);
    }
    return o;
}

namespace {

// Reads optional fields of one object, remembering the first that has the wrong type.
class Reader
{
public:
    Reader(const QJsonObject &o, QString where) : m_o(o), m_where(std::move(where)) { }

    QString text(const char *name, const QString &fallback = {})
    {
        const QJsonValue v = m_o.value(QLatin1String(name));
        if (v.isUndefined() || v.isNull())
            return fallback;
        if (!v.isString()) {
            wrong(name, "a string");
            return fallback;
        }
        return v.toString();
    }
    int integer(const char *name, int fallback, int min, int max)
    {
        const QJsonValue v = m_o.value(QLatin1String(name));
        if (v.isUndefined() || v.isNull())
            return fallback;
        const double d = v.toDouble(-1e300);
        if (!v.isDouble() || d != double(qint64(d)) || d < min || d > max) {
            fail(QStringLiteral("%1\"%2\" must be a whole number from %3 to %4")
                     .arg(m_where, QLatin1String(name))
                     .arg(min)
                     .arg(max));
            return fallback;
        }
        return int(d);
    }
    bool boolean(const char *name, bool fallback)
    {
        const QJsonValue v = m_o.value(QLatin1String(name));
        if (v.isUndefined() || v.isNull())
            return fallback;
        if (!v.isBool()) {
            wrong(name, "true or false");
            return fallback;
        }
        return v.toBool();
    }
    QJsonObject object(const char *name)
    {
        const QJsonValue v = m_o.value(QLatin1String(name));
        if (!v.isUndefined() && !v.isNull() && !v.isObject())
            wrong(name, "an object");
        return v.toObject();
    }
    const QString &error() const { return m_error; }
    void fail(const QString &why)
    {
        if (m_error.isEmpty())
            m_error = why;
    }

private:
    void wrong(const char *name, const char *expected)
    {
        fail(QStringLiteral("%1\"%2\" must be %3").arg(m_where, QLatin1String(name), QLatin1String(expected)));
    }

    QJsonObject m_o;
    QString m_where;
    QString m_error;
};

} // namespace

std::optional<SavedConnection> SavedConnection::fromJson(const QJsonObject &o, QString *error)
{
    SavedConnection c;
    Reader r(o, QString());
    ConnectionProfile &p = c.profile;
    c.id = r.text("id");
    p.name = r.text("name");
    const QString tag = r.text("tag", QStringLiteral("local"));
    if (const auto t = tagFromName(tag))
        c.tag = *t;
    else
        r.fail(QStringLiteral("\"tag\" must be local, staging or production, not '%1'").arg(tag));
    p.readOnly = r.boolean("read_only", readOnlyByDefault(c.tag));
    const QString colour = r.text("colour");
    if (!colour.isEmpty()) {
        c.colour = QColor::fromString(colour);
        if (!c.colour.isValid())
            r.fail(QStringLiteral("\"colour\" '%1' is not a colour").arg(colour));
    }
    p.socketPath = r.text("socket");
    p.host = r.text("host", p.host);
    p.port = quint16(r.integer("port", p.port, 1, 65535));
    p.db = r.integer("db", 0, 0, 1 << 20);
    p.username = r.text("user");
    if (QString why; !p.parseScanReplica(r.text("scan_replica"), &why))
        r.fail(QStringLiteral("scan_replica: ") + why);
    if (o.contains(QStringLiteral("sentinel")) && !o.value(QStringLiteral("sentinel")).isNull()) {
        const QJsonObject so = r.object("sentinel");
        p.sentinelMaster = so.value(QStringLiteral("master")).toString();
        p.sentinelUsername = so.value(QStringLiteral("user")).toString();
        p.sentinelReplica = so.value(QStringLiteral("replica")).toBool();
        for (const QJsonValue v : so.value(QStringLiteral("addresses")).toArray()) {
            QString why;
            if (!ConnectionProfile::parseAddressList(v.toString(), &p.sentinels, &why))
                r.fail(QStringLiteral("sentinel: ") + why);
        }
        if (p.sentinelMaster.isEmpty() || p.sentinels.isEmpty())
            r.fail(QStringLiteral("sentinel: needs \"master\" and \"addresses\""));
    }
    if (o.contains(QStringLiteral("cluster")) && !o.value(QStringLiteral("cluster")).isNull()) {
        Reader cr(r.object("cluster"), QStringLiteral("cluster: "));
        p.cluster = true;
        p.clusterKeepSeedHost = cr.boolean("keep_seed_host", false);
        p.clusterScanReplicas = cr.boolean("scan_replicas", false);
        cluster::AddressMap map;
        QString why;
        if (!map.parse(cr.text("address_map"), &why))
            r.fail(QStringLiteral("cluster: address_map: ") + why);
        p.clusterAddressMap = map.toString();
        const QJsonValue seeds = r.object("cluster").value(QStringLiteral("seeds"));
        if (!seeds.isUndefined() && !seeds.isNull() && !seeds.isArray())
            r.fail(QStringLiteral("cluster: seeds: expected a list of \"host:port\""));
        for (const QJsonValue v : seeds.toArray()) {
            if (!v.isString() || !ConnectionProfile::parseAddressList(v.toString(), &p.clusterSeeds, &why))
                r.fail(QStringLiteral("cluster: seeds: ")
                       + (v.isString() ? why : QStringLiteral("expected \"host:port\"")));
        }
        if (!cr.error().isEmpty())
            r.fail(cr.error());
    }
    if (o.contains(QStringLiteral("redlock")) && !o.value(QStringLiteral("redlock")).isNull()) {
        const QJsonValue peers = r.object("redlock").value(QStringLiteral("peers"));
        if (!peers.isArray())
            r.fail(QStringLiteral("redlock: peers: expected a list of \"host:port\""));
        for (const QJsonValue v : peers.toArray()) {
            QString why;
            if (!v.isString() || !ConnectionProfile::parseAddressList(v.toString(), &p.redlockPeers, &why))
                r.fail(QStringLiteral("redlock: peers: ")
                       + (v.isString() ? why : QStringLiteral("expected \"host:port\"")));
        }
    }
    const QJsonObject tls = r.object("tls");
    if (o.contains(QStringLiteral("tls")) && !o.value(QStringLiteral("tls")).isNull()) {
        Reader t(tls, QStringLiteral("tls: "));
        p.tls = true;
        p.caCertFile = t.text("cacert");
        p.caCertDir = t.text("cacertdir");
        p.clientCertFile = t.text("cert");
        p.clientKeyFile = t.text("key");
        p.sni = t.text("sni");
        p.tlsInsecure = t.boolean("insecure", false);
        if (!t.error().isEmpty())
            r.fail(t.error());
    }
    const QJsonObject ssh = r.object("ssh");
    if (!ssh.isEmpty()) {
        Reader s(ssh, QStringLiteral("ssh: "));
        p.ssh.host = s.text("host");
        p.ssh.port = quint16(s.integer("port", 0, 0, 65535));
        p.ssh.user = s.text("user");
        p.ssh.keyFile = s.text("key");
        p.ssh.usePassword = s.boolean("password", false);
        if (!s.error().isEmpty())
            r.fail(s.error());
    }
    if (p.tls && p.usesUnixSocket())
        r.fail(QStringLiteral("a Unix socket has no TLS"));
    if (!r.error().isEmpty()) {
        *error = r.error();
        return std::nullopt;
    }
    return c;
}
