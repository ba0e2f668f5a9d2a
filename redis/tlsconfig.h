// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QSslConfiguration>
#include <QSslError>
#include <QString>
#include <optional>

struct ConnectionProfile;

// What a profile's TLS settings mean to QSslSocket, and what a failed handshake means to a user:
// the transport, `redislens check` and the command line read them here.
namespace tlsconfig {

// The configuration the profile asks for: the system's CAs plus --cacert and --cacertdir, the
// client certificate and key, verification off for --insecure. A file that cannot be used gives
// nullopt and one line that names it.
std::optional<QSslConfiguration> forProfile(const ConnectionProfile &profile, QString *error);

// Whether the PEM private key in 'file' is encrypted: it needs a passphrase.
bool keyIsEncrypted(const QString &file);

// One line for the errors of a handshake: the one that tells the user most (an expired
// certificate before the chain it then fails, the host name before an unknown CA).
QString describe(const QList<QSslError> &errors, const QString &peerName);

// One line for a TLS connection the server closed: a server that wants a client certificate
// says so in an alert, which reaches the client as a read error.
QString describeClosed(const QString &socketError, bool haveClientCertificate);

} // namespace tlsconfig
