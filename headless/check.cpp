// SPDX-License-Identifier: GPL-3.0-or-later
#include "check.h"

#include "accesscheck.h"
#include "connectionprofile.h"
#include "redisclient.h"
#include "sshtunnel.h"
#include "tlsconfig.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QHostAddress>
#include <QHostInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalSocket>
#include <QSslCipher>
#include <QSslSocket>
#include <QTextStream>
#include <QTimer>

#include <functional>
#include <memory>
#include <unistd.h>

namespace headless {

namespace {

struct Step
{
    enum class State { Ok, Warning, Failed, Skipped };
    QString name;
    State state = State::Ok;
    QString detail;
};

QString stateName(Step::State s)
{
    switch (s) {
    case Step::State::Ok: return QStringLiteral("ok");
    case Step::State::Warning: return QStringLiteral("warning");
    case Step::State::Failed: return QStringLiteral("failed");
    case Step::State::Skipped: return QStringLiteral("skipped");
    }
    return {};
}

QString ms(qint64 nsecs)
{
    return QStringLiteral("%1 ms").arg(double(nsecs) / 1e6, 0, 'f', 1);
}

// Runs the event loop until 'done' or the timeout; false on timeout.
template <typename Signal, typename Object> bool waitFor(Object *object, Signal signal, int timeoutMs)
{
    QEventLoop loop;
    QTimer::singleShot(timeoutMs, &loop, [&loop] { loop.exit(1); });
    QObject::connect(object, signal, &loop, [&loop] { loop.exit(0); });
    return loop.exec() == 0;
}

class Checker
{
public:
    explicit Checker(const ConnectionProfile &p) : m_p(p) { }

    int run();
    // The report: one document (json) or the lines a terminal shows.
    QByteArray render(bool json) const;

private:
    bool reach(); // resolve, TCP, TLS, certificate
    bool reachSocket();
    bool reachThroughBastion(); // SSH, the forward, TLS, certificate
    // 'start' connects the socket and starts the handshake.
    bool handshake(const std::function<void(QSslSocket &, const QString &peerName)> &start);
    bool talk(); // AUTH, PING, server, ACL WHOAMI, panels
    void describeServer(const RedisReply &info);
    void add(const QString &name, Step::State state, const QString &detail) { m_steps.append({name, state, detail}); }

    ConnectionProfile m_p;
    QList<Step> m_steps;
    QList<AccessCheck::Panel> m_panels;
    QString m_user;
    std::shared_ptr<SshTunnel> m_tunnel; // kept, so that the steps after share its session
};

bool Checker::reachSocket()
{
    const QFileInfo socket(m_p.socketPath);
    if (!socket.exists()) {
        add(QStringLiteral("socket"), Step::State::Failed, QStringLiteral("%1 does not exist").arg(m_p.socketPath));
        return false;
    }
    QLocalSocket local;
    QElapsedTimer clock;
    clock.start();
    local.connectToServer(m_p.socketPath);
    if (!local.waitForConnected(m_p.connectTimeoutMs)) {
        add(QStringLiteral("socket"), Step::State::Failed, local.errorString());
        return false;
    }
    add(QStringLiteral("socket"), Step::State::Ok,
        QStringLiteral("%1, connected in %2").arg(m_p.socketPath, ms(clock.nsecsElapsed())));
    return true;
}

bool Checker::reachThroughBastion()
{
    QElapsedTimer clock;
    clock.start();
    m_tunnel = SshTunnel::shared(m_p.ssh, m_p.connectTimeoutMs);
    const QString refused = m_tunnel->connectNow();
    if (!refused.isEmpty()) {
        add(QStringLiteral("ssh"), Step::State::Failed, refused);
        return false;
    }
    add(QStringLiteral("ssh"), Step::State::Ok,
        QStringLiteral("%1: host key known, logged in, in %2").arg(m_p.ssh.displayName(), ms(clock.nsecsElapsed())));
    // One forward, as each connection opens: the bastion resolves and connects to the server.
    clock.restart();
    QString error;
    const int fd = m_tunnel->forwardNow(m_p.host, m_p.port, &error);
    if (fd < 0) {
        add(QStringLiteral("forward"), Step::State::Failed, error);
        return false;
    }
    ::close(fd);
    add(QStringLiteral("forward"), Step::State::Ok,
        QStringLiteral("the bastion reached %1 port %2 in %3")
            .arg(m_p.host)
            .arg(m_p.port)
            .arg(ms(clock.nsecsElapsed())));
    if (!m_p.tls)
        return true;
    return handshake([&](QSslSocket &ssl, const QString &peerName) {
        const int tlsFd = m_tunnel->forwardNow(m_p.host, m_p.port, &error);
        if (tlsFd < 0)
            return;
        ssl.setSocketDescriptor(tlsFd);
        ssl.setPeerVerifyName(peerName);
        ssl.startClientEncryption();
    });
}

bool Checker::reach()
{
    if (m_p.usesUnixSocket())
        return reachSocket();
    if (m_p.ssh.enabled())
        return reachThroughBastion();
    QElapsedTimer clock;
    clock.start();
    const QHostInfo info = QHostInfo::fromName(m_p.host);
    if (info.error() != QHostInfo::NoError || info.addresses().isEmpty()) {
        add(QStringLiteral("resolve"), Step::State::Failed,
            QStringLiteral("cannot resolve %1: %2").arg(m_p.host, info.errorString()));
        return false;
    }
    QStringList shown;
    for (const QHostAddress &a : info.addresses())
        shown.append(a.toString());
    add(QStringLiteral("resolve"), Step::State::Ok,
        QStringLiteral("%1 → %2 (%3)").arg(m_p.host, shown.join(QLatin1String(", ")), ms(clock.nsecsElapsed())));
    // The first address that accepts, as the connection itself tries them.
    QString lastError;
    for (const QHostAddress &address : info.addresses()) {
        QTcpSocket tcp;
        clock.restart();
        tcp.connectToHost(address, m_p.port);
        if (tcp.waitForConnected(m_p.connectTimeoutMs)) {
            add(QStringLiteral("tcp"), Step::State::Ok,
                QStringLiteral("%1 port %2, connected in %3")
                    .arg(address.toString())
                    .arg(m_p.port)
                    .arg(ms(clock.nsecsElapsed())));
            tcp.abort();
            if (!m_p.tls)
                return true;
            return handshake([&address, this](QSslSocket &ssl, const QString &peerName) {
                ssl.connectToHostEncrypted(address.toString(), m_p.port, peerName);
            });
        }
        lastError = QStringLiteral("%1 port %2: %3").arg(address.toString()).arg(m_p.port).arg(tcp.errorString());
    }
    add(QStringLiteral("tcp"), Step::State::Failed, lastError);
    return false;
}

bool Checker::handshake(const std::function<void(QSslSocket &, const QString &peerName)> &start)
{
    QString error;
    const auto conf = tlsconfig::forProfile(m_p, &error);
    if (!conf) {
        add(QStringLiteral("tls"), Step::State::Failed, error);
        return false;
    }
    QSslSocket ssl;
    ssl.setSslConfiguration(*conf);
    QString certificateProblem;
    const QString peerName = m_p.sni.isEmpty() ? m_p.host : m_p.sni;
    // The handshake goes on past a certificate problem, so the two steps are told apart.
    QObject::connect(&ssl, &QSslSocket::sslErrors, &ssl, [&](const QList<QSslError> &errors) {
        certificateProblem = tlsconfig::describe(errors, peerName);
        ssl.ignoreSslErrors();
    });
    QElapsedTimer clock;
    clock.start();
    start(ssl, peerName);
    if (!ssl.waitForEncrypted(m_p.connectTimeoutMs)) {
        add(QStringLiteral("tls"), Step::State::Failed,
            tlsconfig::describeClosed(ssl.errorString(), !m_p.clientCertFile.isEmpty()));
        return false;
    }
    add(QStringLiteral("tls"), Step::State::Ok,
        QStringLiteral("%1, %2, in %3")
            .arg(ssl.sessionProtocol() == QSsl::TlsV1_3 ? QStringLiteral("TLS 1.3") : QStringLiteral("TLS 1.2"),
                 ssl.sessionCipher().name(), ms(clock.nsecsElapsed())));
    const QSslCertificate peer = ssl.peerCertificate();
    const QString subject = peer.subjectInfo(QSslCertificate::CommonName).join(QLatin1String(", "));
    ssl.abort();
    if (m_p.tlsInsecure) {
        add(QStringLiteral("certificate"), Step::State::Warning,
            QStringLiteral("not verified (--insecure)%1")
                .arg(certificateProblem.isEmpty() ? QString() : QStringLiteral(": ") + certificateProblem));
        return true;
    }
    if (!certificateProblem.isEmpty()) {
        add(QStringLiteral("certificate"), Step::State::Failed, certificateProblem);
        return false;
    }
    add(QStringLiteral("certificate"), Step::State::Ok,
        QStringLiteral("chain and host name verified (%1, until %2)")
            .arg(subject, peer.expiryDate().toUTC().toString(Qt::ISODate)));
    return true;
}

// The "server" step: the product, version and mode INFO reports.
void Checker::describeServer(const RedisReply &info)
{
    const RedisError infoError = info.ok() ? RedisError::fromReply(info.value()) : info.error;
    if (infoError) {
        add(QStringLiteral("server"), Step::State::Warning,
            QStringLiteral("INFO not allowed: %1").arg(infoError.message));
    } else {
        QHash<QByteArray, QByteArray> fields;
        for (const QByteArray &line : info.value().bytes().split('\n')) {
            const qsizetype colon = line.indexOf(':');
            if (colon > 0)
                fields.insert(line.left(colon), line.mid(colon + 1).trimmed());
        }
        const QByteArray product = fields.contains("valkey_version") ? "Valkey" : "Redis";
        add(QStringLiteral("server"), Step::State::Ok,
            QStringLiteral("%1 %2, %3")
                .arg(QString::fromLatin1(product),
                     QString::fromLatin1(fields.value(product == "Valkey" ? "valkey_version" : "redis_version")),
                     QString::fromLatin1(fields.value("redis_mode", "standalone"))));
    }
}

bool Checker::talk()
{
    RedisClient client(m_p);
    QEventLoop loop;
    RedisError failure;
    QObject::connect(&client, &RedisClient::ready, &loop, [&loop] { loop.exit(0); });
    QObject::connect(&client, &RedisClient::connectionError, &loop, [&](const RedisError &e) {
        failure = e;
        loop.exit(1);
    });
    QTimer::singleShot(m_p.connectTimeoutMs + m_p.commandTimeoutMs, &loop, [&loop] { loop.exit(2); });
    client.connectToServer();
    const int how = loop.exec();
    const bool authenticates = !m_p.authCommand().isEmpty();
    if (how != 0) {
        const QString why = how == 2 ? QStringLiteral("no answer in time") : failure.message;
        const bool authFailed = failure.kind == RedisError::Kind::Auth || why.contains(QLatin1String("WRONGPASS"))
            || why.contains(QLatin1String("NOAUTH"));
        if (authFailed || !authenticates) {
            add(QStringLiteral("auth"), authFailed ? Step::State::Failed : Step::State::Skipped,
                authFailed ? why : QStringLiteral("no password given"));
            if (!authFailed)
                add(QStringLiteral("ping"), Step::State::Failed, why);
        } else {
            add(QStringLiteral("auth"), Step::State::Ok, QStringLiteral("accepted"));
            add(QStringLiteral("ping"), Step::State::Failed, why);
        }
        return false;
    }
    add(QStringLiteral("auth"), authenticates ? Step::State::Ok : Step::State::Skipped,
        authenticates
            ? QStringLiteral("accepted as %1").arg(m_p.username.isEmpty() ? QStringLiteral("default") : m_p.username)
            : QStringLiteral("no password given"));

    const auto ask = [&](const RedisCommand &command) {
        RedisReply out;
        QEventLoop wait;
        client.send(command, &wait, [&](const RedisReply &r) {
            out = r;
            wait.exit(0);
        });
        wait.exec();
        return out;
    };
    QElapsedTimer clock;
    clock.start();
    const RedisReply ping = ask({"PING"});
    const qint64 pingNs = clock.nsecsElapsed();
    const RedisError pingError = ping.ok() ? RedisError::fromReply(ping.value()) : ping.error;
    if (pingError.kind == RedisError::Kind::NoPerm)
        add(QStringLiteral("ping"), Step::State::Warning, QStringLiteral("not allowed (+ping); the server answered"));
    else if (pingError)
        add(QStringLiteral("ping"), Step::State::Failed, pingError.message);
    else
        add(QStringLiteral("ping"), Step::State::Ok,
            QStringLiteral("%1 in %2").arg(QString::fromUtf8(ping.value().bytes()), ms(pingNs)));

    describeServer(ask({"INFO", "server"}));

    AccessCheck access(&client);
    access.start();
    if (!waitFor(&access, &AccessCheck::finished, m_p.commandTimeoutMs * 2) || !access.result().error.isEmpty()) {
        add(QStringLiteral("acl"), Step::State::Failed,
            access.result().error.isEmpty() ? QStringLiteral("no answer in time") : access.result().error);
        return true;
    }
    const AccessCheck::Result &r = access.result();
    m_user = r.user;
    switch (r.method) {
    case AccessCheck::Method::NoAcl:
        add(QStringLiteral("acl"), Step::State::Ok, QStringLiteral("no ACLs on this server: every command allowed"));
        break;
    case AccessCheck::Method::DryRun:
        add(QStringLiteral("acl"), Step::State::Ok,
            QStringLiteral("user %1; panels checked with ACL DRYRUN").arg(r.user));
        break;
    case AccessCheck::Method::Trial:
        add(QStringLiteral("acl"), Step::State::Ok,
            QStringLiteral("user %1; ACL DRYRUN not allowed: the panels' reads were tried, their actions not")
                .arg(r.user.isEmpty() ? QStringLiteral("unknown (ACL WHOAMI not allowed)") : r.user));
        break;
    }
    m_panels = r.panels;
    return true;
}

int Checker::run()
{
    if (!reach() || !talk())
        return 2;
    for (const AccessCheck::Panel &p : std::as_const(m_panels)) {
        if (p.status == AccessCheck::Status::Unavailable)
            return 1;
    }
    return 0;
}

QByteArray Checker::render(bool json) const
{
    QString text;
    QTextStream out(&text);
    if (json) {
        QJsonArray steps;
        for (const Step &s : m_steps)
            steps.append(QJsonObject{{QStringLiteral("step"), s.name},
                                     {QStringLiteral("state"), stateName(s.state)},
                                     {QStringLiteral("detail"), s.detail}});
        QJsonArray panels;
        for (const AccessCheck::Panel &p : m_panels) {
            const QString status = p.status == AccessCheck::Status::Unavailable ? QStringLiteral("unavailable")
                : p.status == AccessCheck::Status::Partial                      ? QStringLiteral("partial")
                                                                                : QStringLiteral("available");
            panels.append(QJsonObject{{QStringLiteral("panel"), p.name},
                                      {QStringLiteral("status"), status},
                                      {QStringLiteral("needs"), QJsonArray::fromStringList(p.missing)},
                                      {QStringLiteral("without"), QJsonArray::fromStringList(p.lost)},
                                      {QStringLiteral("keys_restricted"), p.keysRestricted},
                                      {QStringLiteral("actions_unchecked"), QJsonArray::fromStringList(p.unchecked)},
                                      {QStringLiteral("summary"), p.summary()}});
        }
        QJsonObject doc{{QStringLiteral("uri"), ConnectionProfile::maskedUri(m_p.toUri())},
                        {QStringLiteral("steps"), steps},
                        {QStringLiteral("panels"), panels}};
        return QJsonDocument(doc).toJson(QJsonDocument::Indented);
    }
    out << "redislens check " << ConnectionProfile::maskedUri(m_p.toUri()) << '\n';
    for (const Step &s : m_steps)
        out << QStringLiteral("  %1 %2 %3\n")
                   .arg(stateName(s.state).leftJustified(8), s.name.leftJustified(12), s.detail);
    if (m_panels.isEmpty()) {
        out.flush();
        return text.toUtf8();
    }
    out << "panels:\n";
    for (const AccessCheck::Panel &p : m_panels) {
        const QString mark = p.status == AccessCheck::Status::Unavailable ? QStringLiteral("no")
            : p.status == AccessCheck::Status::Partial                    ? QStringLiteral("partly")
                                                                          : QStringLiteral("yes");
        out << QStringLiteral("  %1 %2 %3\n").arg(mark.leftJustified(8), p.name.leftJustified(12), p.summary());
    }
    out.flush();
    return text.toUtf8();
}

} // namespace

int check(const ConnectionProfile &profile, bool json)
{
    const CheckResult r = runCheck(profile, json);
    QTextStream(stdout) << QString::fromUtf8(r.report);
    return r.status;
}

CheckResult runCheck(const ConnectionProfile &profile, bool json)
{
    Checker c(profile);
    CheckResult r;
    r.status = c.run();
    r.report = c.render(json);
    return r;
}

} // namespace headless
