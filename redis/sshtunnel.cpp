// SPDX-License-Identifier: GPL-3.0-or-later
#include "sshtunnel.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QHash>

#include <libssh/libssh.h>

#include <cerrno>
#include <condition_variable>
#include <fcntl.h>
#include <future>
#include <mutex>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

std::mutex askerMutex;
SshTunnel::HostKeyAsker hostKeyAsker;

QString sshError(void *sessionOrNull)
{
    const char *text = sessionOrNull ? ssh_get_error(sessionOrNull) : nullptr;
    return text && *text ? QString::fromUtf8(text) : QStringLiteral("unknown error");
}

QString fingerprintOf(ssh_key key)
{
    unsigned char *hash = nullptr;
    size_t length = 0;
    if (!key || ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &length) != 0)
        return QStringLiteral("(no fingerprint)");
    char *text = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, length);
    const QString fingerprint = QString::fromLatin1(text);
    ssh_string_free_char(text);
    ssh_clean_pubkey_hash(&hash);
    return fingerprint;
}

QString typeOf(ssh_key key)
{
    const char *type = key ? ssh_key_type_to_char(ssh_key_type(key)) : nullptr;
    return type ? QString::fromLatin1(type) : QStringLiteral("unknown");
}

// Writes all of 'size' bytes to a non-blocking descriptor, waiting for room up to a few seconds
// (the reader is a socket that drains continuously).
bool writeFully(int fd, const char *data, qsizetype size)
{
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size_t(size));
        if (n > 0) {
            data += n;
            size -= n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            pollfd p{fd, POLLOUT, 0};
            if (::poll(&p, 1, 5000) <= 0)
                return false;
            continue;
        }
        return false;
    }
    return true;
}

int askPassphraseRecorder(const char *, char *, size_t, int, int, void *userdata)
{
    *static_cast<bool *>(userdata) = true;
    return -1; // no passphrase: only whether one is asked for matters
}

// The keys known_hosts holds for a host ("[host]:port" off port 22), hashed entries included, as
// "type SHA256:…": libssh reports a changed key without saying which key it had.
QStringList knownKeysOf(const QString &file, const QString &host)
{
    QStringList keys;
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return keys;
    const QByteArray name = host.toUtf8();
    while (!f.atEnd()) {
        const QByteArray line = f.readLine().trimmed();
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        ssh_knownhosts_entry *entry = nullptr;
        if (ssh_known_hosts_parse_line(name.constData(), line.constData(), &entry) == SSH_OK && entry
            && entry->publickey)
            keys << typeOf(entry->publickey) + u' ' + fingerprintOf(entry->publickey);
        ssh_knownhosts_entry_free(entry);
    }
    return keys;
}

} // namespace

class SshTunnel::Private
{
public:
    struct Request
    {
        int fd;
        QString host;
        quint16 port;
        Done done;
    };
    struct Forward
    {
        int fd;
        ssh_channel channel;
    };

    SshSettings settings;
    int connectTimeoutMs;

    std::mutex mutex;
    std::condition_variable connectNowDone;
    std::vector<Request> requests;
    int connectNowWanted = 0;
    quint64 connectNowRound = 0;
    QString connectNowResult;
    bool stopping = false;
    int wake[2] = {-1, -1};
    std::thread thread;

    // The tunnel thread's own.
    ssh_session session = nullptr;
    QString refused; // kept: the user has to act before another try can succeed
    std::vector<Forward> forwards;

    QString where() const { return QStringLiteral("SSH bastion %1").arg(settings.displayName()); }

    void wakeUp()
    {
        const char c = 1;
        [[maybe_unused]] const ssize_t n = ::write(wake[1], &c, 1);
    }

    void run();
    QString ensureSession();
    QString openSession();
    QString verifyHost(ssh_session s);
    QString authenticate(ssh_session s);
    void openForward(Request &r);
    void pump();
    void closeForward(size_t index);
    void dropSession();
};

SshTunnel::SshTunnel(const SshSettings &settings, int connectTimeoutMs) : d(new Private)
{
    d->settings = settings;
    d->connectTimeoutMs = connectTimeoutMs;
    if (::pipe2(d->wake, O_CLOEXEC | O_NONBLOCK) != 0)
        d->wake[0] = d->wake[1] = -1;
    d->thread = std::thread([p = d.get()] { p->run(); });
}

SshTunnel::~SshTunnel()
{
    {
        std::lock_guard lock(d->mutex);
        d->stopping = true;
    }
    d->wakeUp();
    d->thread.join();
    for (Private::Request &r : d->requests) {
        ::close(r.fd);
        r.done(QStringLiteral("the SSH tunnel was closed"));
    }
    ::close(d->wake[0]);
    ::close(d->wake[1]);
}

std::shared_ptr<SshTunnel> SshTunnel::shared(const SshSettings &settings, int connectTimeoutMs)
{
    static std::mutex registryMutex;
    static QHash<QByteArray, std::weak_ptr<SshTunnel>> registry;
    // Keyed by a digest, so that the secrets in the settings are not kept in one more place.
    QCryptographicHash h(QCryptographicHash::Sha256);
    for (const QString &part :
         {settings.host, QString::number(settings.port), settings.user, settings.keyFile, settings.keyPassphrase,
          settings.password, QString::number(settings.usePassword), QString::number(settings.acceptNewHostKey)}) {
        h.addData(part.toUtf8());
        h.addData(QByteArrayView("\0", 1));
    }
    const QByteArray key = h.result();
    std::lock_guard lock(registryMutex);
    if (std::shared_ptr<SshTunnel> tunnel = registry.value(key).lock())
        return tunnel;
    std::shared_ptr<SshTunnel> tunnel(new SshTunnel(settings, connectTimeoutMs));
    registry.insert(key, tunnel);
    return tunnel;
}

void SshTunnel::setHostKeyAsker(HostKeyAsker asker)
{
    std::lock_guard lock(askerMutex);
    hostKeyAsker = std::move(asker);
}

QString SshTunnel::sshDirectory()
{
    return QDir::homePath() + QStringLiteral("/.ssh");
}

void SshTunnel::forward(int fd, const QString &host, quint16 port, Done done)
{
    {
        std::lock_guard lock(d->mutex);
        d->requests.push_back({fd, host, port, std::move(done)});
    }
    d->wakeUp();
}

QString SshTunnel::connectNow()
{
    std::unique_lock lock(d->mutex);
    const quint64 round = d->connectNowRound;
    ++d->connectNowWanted;
    lock.unlock();
    d->wakeUp();
    lock.lock();
    d->connectNowDone.wait(lock, [&] { return d->connectNowRound != round; });
    return d->connectNowResult;
}

int SshTunnel::forwardNow(const QString &host, quint16 port, QString *error)
{
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
        *error = QStringLiteral("no socket pair for SSH");
        return -1;
    }
    std::promise<QString> answer;
    std::future<QString> answered = answer.get_future();
    forward(fds[1], host, port, [&answer](const QString &e) { answer.set_value(e); });
    *error = answered.get();
    if (error->isEmpty())
        return fds[0];
    ::close(fds[0]);
    return -1;
}

void SshTunnel::Private::run()
{
    for (;;) {
        std::vector<Request> taken;
        int connects = 0;
        {
            std::lock_guard lock(mutex);
            if (stopping)
                break;
            taken.swap(requests);
            connects = connectNowWanted;
        }
        if (connects > 0) {
            const QString result = ensureSession();
            std::lock_guard lock(mutex);
            connectNowResult = result;
            connectNowWanted -= connects;
            ++connectNowRound;
            connectNowDone.notify_all();
        }
        for (Request &r : taken)
            openForward(r);
        pump();
    }
    while (!forwards.empty())
        closeForward(forwards.size() - 1);
    dropSession();
}

QString SshTunnel::Private::ensureSession()
{
    if (!refused.isEmpty())
        return refused;
    if (session && ssh_is_connected(session))
        return {};
    dropSession();
    return openSession();
}

void SshTunnel::Private::dropSession()
{
    if (!session)
        return;
    for (size_t i = forwards.size(); i-- > 0;)
        closeForward(i);
    ssh_disconnect(session);
    ssh_free(session);
    session = nullptr;
}

QString SshTunnel::Private::openSession()
{
    ssh_session s = ssh_new();
    if (!s)
        return where() + QStringLiteral(": libssh could not start a session");
    const QByteArray host = settings.host.toUtf8();
    const QByteArray dir = QFile::encodeName(SshTunnel::sshDirectory());
    const QByteArray knownHosts = dir + "/known_hosts";
    ssh_options_set(s, SSH_OPTIONS_HOST, host.constData());
    ssh_options_set(s, SSH_OPTIONS_SSH_DIR, dir.constData());
    ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, knownHosts.constData());
    // ~/.ssh/config first (its aliases, HostName, Port, User, IdentityFile), then the system's,
    // as ssh reads them; what was given explicitly is set afterwards and wins.
    const QByteArray userConfig = dir + "/config";
    if (QFileInfo::exists(QFile::decodeName(userConfig)))
        ssh_options_parse_config(s, userConfig.constData());
    if (QFileInfo::exists(QStringLiteral("/etc/ssh/ssh_config")))
        ssh_options_parse_config(s, "/etc/ssh/ssh_config");
    // Not again at connect time, from the home directory of the password database: HOME's (which
    // the tests set) is the one read above.
    bool processConfig = false;
    ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &processConfig);
    if (settings.port != 0) {
        const unsigned int port = settings.port;
        ssh_options_set(s, SSH_OPTIONS_PORT, &port);
    }
    if (!settings.user.isEmpty())
        ssh_options_set(s, SSH_OPTIONS_USER, settings.user.toUtf8().constData());
    const long timeout = qMax(1, (connectTimeoutMs + 999) / 1000);
    ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &timeout);

    if (ssh_connect(s) != SSH_OK) {
        const QString reason = where() + QStringLiteral(": cannot connect: ") + sshError(s);
        ssh_free(s);
        return reason;
    }
    QString reason = verifyHost(s);
    if (reason.isEmpty())
        reason = authenticate(s);
    if (!reason.isEmpty()) {
        ssh_disconnect(s);
        ssh_free(s);
        return reason;
    }
    session = s;
    return {};
}

QString SshTunnel::Private::verifyHost(ssh_session s)
{
    ssh_key offered = nullptr;
    if (ssh_get_server_publickey(s, &offered) != SSH_OK)
        return where() + QStringLiteral(": no host key: ") + sshError(s);
    const QString fingerprint = fingerprintOf(offered);
    const QString type = typeOf(offered);
    ssh_key_free(offered);

    char *resolvedHost = nullptr;
    ssh_options_get(s, SSH_OPTIONS_HOST, &resolvedHost);
    unsigned int port = 22;
    ssh_options_get_port(s, &port);
    QString name = QString::fromUtf8(resolvedHost ? resolvedHost : "");
    ssh_string_free_char(resolvedHost);
    if (port != 22)
        name = QStringLiteral("[%1]:%2").arg(name).arg(port);
    const QString file = SshTunnel::sshDirectory() + QStringLiteral("/known_hosts");

    switch (ssh_session_is_known_server(s)) {
    case SSH_KNOWN_HOSTS_OK: return {};
    case SSH_KNOWN_HOSTS_CHANGED:
    case SSH_KNOWN_HOSTS_OTHER: {
        const QStringList keys = knownKeysOf(file, name);
        const QString known = keys.isEmpty() ? QStringLiteral("another key") : keys.join(QStringLiteral(", "));
        refused = where()
            + QStringLiteral(": the host key has CHANGED, refusing to connect (someone may be intercepting the "
                             "connection): known_hosts has %1, the server offers %2 %3. If the change is expected, "
                             "remove the old key with: ssh-keygen -R '%4'")
                  .arg(known, type, fingerprint, name);
        return refused;
    }
    case SSH_KNOWN_HOSTS_NOT_FOUND:
    case SSH_KNOWN_HOSTS_UNKNOWN: {
        bool trusted = settings.acceptNewHostKey;
        if (!trusted) {
            HostKeyAsker asker;
            {
                std::lock_guard lock(askerMutex);
                asker = hostKeyAsker;
            }
            trusted = asker && asker(HostKey{name, type, fingerprint, file});
        }
        if (!trusted) {
            refused = where()
                + QStringLiteral(": the host key %1 %2 is not in %3 and was not trusted (connect once with ssh, "
                                 "or accept it when asked)")
                      .arg(type, fingerprint, file);
            return refused;
        }
        QDir().mkpath(SshTunnel::sshDirectory());
        QFile::setPermissions(SshTunnel::sshDirectory(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        if (ssh_session_update_known_hosts(s) != SSH_OK)
            return where() + QStringLiteral(": could not remember the host key in %1: %2").arg(file, sshError(s));
        return {};
    }
    case SSH_KNOWN_HOSTS_ERROR: break;
    }
    return where() + QStringLiteral(": cannot check the host key against %1: %2").arg(file, sshError(s));
}

QString SshTunnel::Private::authenticate(ssh_session s)
{
    char *userName = nullptr;
    ssh_options_get(s, SSH_OPTIONS_USER, &userName);
    const QString user = QString::fromUtf8(userName ? userName : "");
    ssh_string_free_char(userName);

    if (ssh_userauth_none(s, nullptr) == SSH_AUTH_SUCCESS)
        return {};
    if (!settings.keyFile.isEmpty()) {
        const QByteArray file = QFile::encodeName(settings.keyFile);
        if (!QFileInfo(settings.keyFile).isReadable())
            return where() + QStringLiteral(": cannot read the key file %1").arg(settings.keyFile);
        const QByteArray passphrase = settings.keyPassphrase.toUtf8();
        ssh_key key = nullptr;
        if (ssh_pki_import_privkey_file(file.constData(), passphrase.isEmpty() ? nullptr : passphrase.constData(),
                                        nullptr, nullptr, &key)
            != SSH_OK) {
            if (!sshkeys::isEncrypted(settings.keyFile))
                return where() + QStringLiteral(": %1 is not a private key libssh can read").arg(settings.keyFile);
            refused = where()
                + (passphrase.isEmpty() ? QStringLiteral(": the key %1 needs its passphrase").arg(settings.keyFile)
                                        : QStringLiteral(": wrong passphrase for the key %1").arg(settings.keyFile));
            return refused;
        }
        const int rc = ssh_userauth_publickey(s, nullptr, key);
        const QString fingerprint = fingerprintOf(key);
        ssh_key_free(key);
        if (rc == SSH_AUTH_SUCCESS)
            return {};
        if (rc == SSH_AUTH_ERROR)
            return where() + QStringLiteral(": logging in failed: ") + sshError(s);
        refused = where()
            + QStringLiteral(": the bastion refused the key %1 (%2) for user %3")
                  .arg(settings.keyFile, fingerprint, user);
        return refused;
    }
    if (settings.usePassword || !settings.password.isEmpty()) {
        const int rc = ssh_userauth_password(s, nullptr, settings.password.toUtf8().constData());
        if (rc == SSH_AUTH_SUCCESS)
            return {};
        if (rc == SSH_AUTH_ERROR)
            return where() + QStringLiteral(": logging in failed: ") + sshError(s);
        refused = where() + QStringLiteral(": the bastion refused the password for user %1").arg(user);
        return refused;
    }
    if (qEnvironmentVariableIsSet("SSH_AUTH_SOCK") && ssh_userauth_agent(s, nullptr) == SSH_AUTH_SUCCESS)
        return {};
    // ~/.ssh's default keys and ~/.ssh/config's IdentityFile, those without a passphrase.
    if (ssh_userauth_publickey_auto(s, nullptr, nullptr) == SSH_AUTH_SUCCESS)
        return {};
    if (!ssh_is_connected(s))
        return where() + QStringLiteral(": logging in failed: ") + sshError(s);
    refused = where()
        + QStringLiteral(": the bastion accepted no key of the agent or of %1 for user %2 (give a key file or "
                         "log in with a password)")
              .arg(SshTunnel::sshDirectory(), user);
    return refused;
}

void SshTunnel::Private::openForward(Request &r)
{
    const QString failure = ensureSession();
    if (!failure.isEmpty()) {
        ::close(r.fd);
        r.done(failure);
        return;
    }
    ssh_channel channel = ssh_channel_new(session);
    const QByteArray host = r.host.toUtf8();
    if (!channel || ssh_channel_open_forward(channel, host.constData(), r.port, "127.0.0.1", 0) != SSH_OK) {
        const QString reason = where()
            + QStringLiteral(": the bastion could not reach %1:%2: %3").arg(r.host).arg(r.port).arg(sshError(session));
        if (channel)
            ssh_channel_free(channel);
        if (!ssh_is_connected(session))
            dropSession();
        ::close(r.fd);
        r.done(reason);
        return;
    }
    ::fcntl(r.fd, F_SETFL, ::fcntl(r.fd, F_GETFL) | O_NONBLOCK);
    forwards.push_back({r.fd, channel});
    r.done({});
}

void SshTunnel::Private::closeForward(size_t index)
{
    const Forward f = forwards[index];
    forwards.erase(forwards.begin() + qsizetype(index));
    if (ssh_channel_is_open(f.channel)) {
        ssh_channel_send_eof(f.channel);
        ssh_channel_close(f.channel);
    }
    ssh_channel_free(f.channel);
    ::shutdown(f.fd, SHUT_RDWR);
    ::close(f.fd);
}

void SshTunnel::Private::pump()
{
    static constexpr int kChunk = 64 * 1024;
    char buffer[kChunk];
    // What the bastion sent, to the sockets. libssh may hold data it has already read from its
    // socket, so every channel is drained before waiting.
    for (size_t i = forwards.size(); i-- > 0;) {
        const Forward &f = forwards[i];
        int n = 0;
        bool ok = true;
        while ((n = ssh_channel_read_nonblocking(f.channel, buffer, kChunk, 0)) > 0) {
            if (!writeFully(f.fd, buffer, n)) {
                ok = false;
                break;
            }
        }
        if (!ok || n == SSH_ERROR || ssh_channel_is_eof(f.channel) || ssh_channel_is_closed(f.channel))
            closeForward(i);
    }
    if (session && !ssh_is_connected(session))
        dropSession();

    std::vector<pollfd> fds;
    fds.reserve(forwards.size() + 2);
    fds.push_back({wake[0], POLLIN, 0});
    if (session)
        fds.push_back({ssh_get_fd(session), POLLIN, 0});
    const size_t first = fds.size();
    for (const Forward &f : forwards)
        fds.push_back({f.fd, POLLIN, 0});
    if (::poll(fds.data(), nfds_t(fds.size()), session ? 200 : -1) <= 0)
        return;
    if (fds[0].revents) {
        char drain[64];
        while (::read(wake[0], drain, sizeof drain) > 0) { }
    }
    // What the sockets sent, to the bastion.
    for (size_t i = fds.size(); i-- > first;) {
        if (!fds[i].revents)
            continue;
        const size_t index = i - first;
        const Forward f = forwards[index];
        const ssize_t n = ::read(f.fd, buffer, kChunk);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        bool ok = n > 0;
        for (ssize_t sent = 0; ok && sent < n;) {
            const int w = ssh_channel_write(f.channel, buffer + sent, uint32_t(n - sent));
            ok = w > 0;
            sent += qMax(w, 0);
        }
        if (!ok)
            closeForward(index);
    }
}

bool sshkeys::isEncrypted(const QString &keyFile)
{
    bool asked = false;
    ssh_key key = nullptr;
    const QByteArray file = QFile::encodeName(keyFile);
    if (ssh_pki_import_privkey_file(file.constData(), nullptr, askPassphraseRecorder, &asked, &key) == SSH_OK)
        ssh_key_free(key);
    return asked;
}
