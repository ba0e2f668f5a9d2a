// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "connectionprofile.h"

#include <QString>
#include <functional>
#include <memory>

// One SSH session to a bastion, shared by every connection that goes through it, and the
// channels it forwards (direct-tcpip, as `ssh -W`). It runs on a thread of its own with libssh:
// each forward pumps one end of a socket pair, whose other end a Transport reads and writes as
// it would a TCP socket, so TLS and every panel work through it unchanged.
//
// The session is opened by the first forward and opened again, if it was lost, by the next one.
// A refusal the user has to act on (a changed or untrusted host key, a key or password the
// bastion refused) is kept: later forwards fail with the same reason at once instead of trying
// the same credentials again.
class SshTunnel
{
public:
    // The bastion's host key, when known_hosts does not know it.
    struct HostKey
    {
        QString host; // as known_hosts files it: "name" or "[name]:port"
        QString type; // "ssh-ed25519", …
        QString fingerprint; // "SHA256:…"
        QString knownHostsFile; // where it is remembered if trusted
    };
    // Asked on the tunnel's thread (it may block there); true trusts the key and remembers it.
    using HostKeyAsker = std::function<bool(const HostKey &)>;

    // What a finished forward request says: empty when the channel is open.
    using Done = std::function<void(const QString &error)>;

    ~SshTunnel();
    SshTunnel(const SshTunnel &) = delete;
    SshTunnel &operator=(const SshTunnel &) = delete;

    // The tunnel for these settings (one per bastion, user, key and secrets), started on first use;
    // it stops when the last holder lets go.
    static std::shared_ptr<SshTunnel> shared(const SshSettings &settings, int connectTimeoutMs);

    // Who is asked about an unknown host key (the window's dialog, the terminal). Without one,
    // an unknown host key is refused unless the settings accept new keys.
    static void setHostKeyAsker(HostKeyAsker asker);

    // Takes 'fd' (one end of a connected stream socket pair) and, on the tunnel's thread, opens a
    // channel to host:port as seen from the bastion and pumps 'fd' through it. 'done' is called
    // there once: with an empty error when the channel is open, else with a one-line reason (and
    // 'fd' closed). When the channel or the session ends later, 'fd' is shut down.
    void forward(int fd, const QString &host, quint16 port, Done done);

    // Opens (or checks) the session alone, blocking the caller: empty when it is up, else the
    // one-line reason. For `redislens check`, which reports the SSH step by itself.
    QString connectNow();
    // A forward, blocking the caller: our end of its socket pair (the caller's to close), or -1
    // with the reason in 'error'. For `redislens check`, which times each step.
    int forwardNow(const QString &host, quint16 port, QString *error);

    // The ~/.ssh paths, under QDir::homePath() (HOME), which is where tests put theirs.
    static QString sshDirectory();

private:
    class Private;
    explicit SshTunnel(const SshSettings &settings, int connectTimeoutMs);
    std::unique_ptr<Private> d;
};

namespace sshkeys {
// Whether the private key file asks for a passphrase (false when it cannot be read either: the
// login reports that).
bool isEncrypted(const QString &keyFile);
} // namespace sshkeys
