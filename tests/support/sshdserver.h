// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <memory>

// A real OpenSSH sshd for one test class, as a bastion: a host key generated for it, listening
// on a free loopback port, letting in the keys added to its authorized_keys and forwarding only
// to 127.0.0.1. Everything lives in a temporary directory and stops with the object.
class SshdServer
{
public:
    SshdServer();
    ~SshdServer();

    bool start(QString *error);
    quint16 port() const { return m_port; }
    QString dir() const { return m_dir.path(); }
    QString user() const; // the user the test runs as: who logs in
    QString hostKeyFile() const { return m_dir.filePath(QStringLiteral("host_ed25519")); }
    QString log() const; // what sshd printed (-e): why it refused a login

    // A new key pair at dir()/name (and name.pub), with this passphrase (empty: none), and
    // whether it is let in.
    bool makeKey(const QString &name, const QString &passphrase, bool authorized, QString *error);
    QString keyFile(const QString &name) const { return m_dir.filePath(name); }
    // ssh-keygen's own word for a public key's fingerprint ("SHA256:…").
    static QString fingerprint(const QString &publicKeyFile);

    // Runs a helper program to its end; false and its stderr in 'error' when it fails.
    static bool run(const QString &program, const QStringList &args, QString *error);

private:
    QTemporaryDir m_dir;
    quint16 m_port = 0;
    std::unique_ptr<QProcess> m_sshd;
};
