// SPDX-License-Identifier: GPL-3.0-or-later
#include "tlsconfig.h"

#include "connectionprofile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSslCertificate>
#include <QSslKey>

namespace tlsconfig {

namespace {

std::optional<QByteArray> readFile(const QString &file, const QString &what, QString *error)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read the %1 '%2': %3").arg(what, file, f.errorString());
        return std::nullopt;
    }
    return f.readAll();
}

// The server's certificate failed one of these checks; the earlier in the list, the more it
// says about what to fix.
int rank(QSslError::SslError e)
{
    switch (e) {
    case QSslError::CertificateExpired: return 0;
    case QSslError::CertificateNotYetValid: return 1;
    case QSslError::CertificateRevoked: return 2;
    case QSslError::HostNameMismatch: return 3;
    case QSslError::SelfSignedCertificate:
    case QSslError::SelfSignedCertificateInChain: return 4;
    case QSslError::UnableToGetLocalIssuerCertificate:
    case QSslError::UnableToGetIssuerCertificate:
    case QSslError::UnableToVerifyFirstCertificate: return 5;
    default: return 6;
    }
}

} // namespace

std::optional<QSslConfiguration> forProfile(const ConnectionProfile &p, QString *error)
{
    QSslConfiguration conf = QSslConfiguration::defaultConfiguration();
    QList<QSslCertificate> cas = conf.caCertificates();
    if (!p.caCertFile.isEmpty()) {
        const auto pem = readFile(p.caCertFile, QStringLiteral("CA certificate file"), error);
        if (!pem)
            return std::nullopt;
        const QList<QSslCertificate> more = QSslCertificate::fromData(*pem, QSsl::Pem);
        if (more.isEmpty()) {
            *error = QStringLiteral("no PEM certificate in the CA certificate file '%1'").arg(p.caCertFile);
            return std::nullopt;
        }
        cas += more;
    }
    if (!p.caCertDir.isEmpty()) {
        const QDir dir(p.caCertDir);
        if (!dir.exists() || !QFileInfo(p.caCertDir).isReadable()) {
            *error = QStringLiteral("cannot read the CA certificate directory '%1'").arg(p.caCertDir);
            return std::nullopt;
        }
        // Every PEM file of the directory, as OpenSSL's hashed directories hold them; other
        // files are skipped.
        qsizetype found = 0;
        for (const QFileInfo &f : dir.entryInfoList(QDir::Files | QDir::Readable, QDir::Name)) {
            const QList<QSslCertificate> more = QSslCertificate::fromPath(f.filePath(), QSsl::Pem);
            found += more.size();
            cas += more;
        }
        if (found == 0) {
            *error = QStringLiteral("no PEM certificate in the CA certificate directory '%1'").arg(p.caCertDir);
            return std::nullopt;
        }
    }
    conf.setCaCertificates(cas);
    if (p.clientCertFile.isEmpty() != p.clientKeyFile.isEmpty()) {
        *error = p.clientCertFile.isEmpty() ? QStringLiteral("a client key needs its certificate (--cert)")
                                            : QStringLiteral("a client certificate needs its key (--key)");
        return std::nullopt;
    }
    if (!p.clientCertFile.isEmpty()) {
        const auto certPem = readFile(p.clientCertFile, QStringLiteral("client certificate"), error);
        if (!certPem)
            return std::nullopt;
        const QList<QSslCertificate> chain = QSslCertificate::fromData(*certPem, QSsl::Pem);
        if (chain.isEmpty()) {
            *error = QStringLiteral("no PEM certificate in the client certificate '%1'").arg(p.clientCertFile);
            return std::nullopt;
        }
        const auto keyPem = readFile(p.clientKeyFile, QStringLiteral("client key"), error);
        if (!keyPem)
            return std::nullopt;
        QSslKey key;
        for (const QSsl::KeyAlgorithm algorithm : {QSsl::Ec, QSsl::Rsa, QSsl::Dsa}) {
            key = QSslKey(*keyPem, algorithm, QSsl::Pem, QSsl::PrivateKey, p.keyPassphrase.toUtf8());
            if (!key.isNull())
                break;
        }
        if (key.isNull()) {
            const bool encrypted = keyIsEncrypted(p.clientKeyFile);
            *error = encrypted && p.keyPassphrase.isEmpty()
                ? QStringLiteral("the client key '%1' is encrypted: its passphrase is needed").arg(p.clientKeyFile)
                : encrypted ? QStringLiteral("wrong passphrase for the client key '%1'").arg(p.clientKeyFile)
                            : QStringLiteral("no PEM private key (RSA, EC or DSA) in '%1'").arg(p.clientKeyFile);
            return std::nullopt;
        }
        conf.setLocalCertificateChain(chain);
        conf.setPrivateKey(key);
    }
    if (p.tlsInsecure)
        conf.setPeerVerifyMode(QSslSocket::VerifyNone);
    return conf;
}

bool keyIsEncrypted(const QString &file)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return false;
    const QByteArray pem = f.read(1 << 20);
    return pem.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") || pem.contains("Proc-Type: 4,ENCRYPTED");
}

QString describe(const QList<QSslError> &errors, const QString &peerName)
{
    if (errors.isEmpty())
        return QStringLiteral("TLS handshake failed");
    const QSslError *best = &errors.first();
    for (const QSslError &e : errors) {
        if (rank(e.error()) < rank(best->error()))
            best = &e;
    }
    const QSslCertificate cert = best->certificate();
    switch (best->error()) {
    case QSslError::CertificateExpired:
        return QStringLiteral("the server's certificate expired on %1")
            .arg(cert.expiryDate().toUTC().toString(Qt::ISODate));
    case QSslError::CertificateNotYetValid:
        return QStringLiteral("the server's certificate is not valid before %1")
            .arg(cert.effectiveDate().toUTC().toString(Qt::ISODate));
    case QSslError::HostNameMismatch: {
        QStringList names = cert.subjectAlternativeNames().values();
        if (names.isEmpty())
            names = cert.subjectInfo(QSslCertificate::CommonName);
        return QStringLiteral("the server's certificate is for %1, not %2 (--sni names the host to verify)")
            .arg(names.isEmpty() ? QStringLiteral("no host name") : names.join(QLatin1String(", ")), peerName);
    }
    case QSslError::SelfSignedCertificate:
    case QSslError::SelfSignedCertificateInChain:
    case QSslError::UnableToGetLocalIssuerCertificate:
    case QSslError::UnableToGetIssuerCertificate:
    case QSslError::UnableToVerifyFirstCertificate: {
        const QStringList issuer = cert.issuerInfo(QSslCertificate::CommonName);
        return QStringLiteral("the server's certificate is signed by an unknown CA%1 (--cacert or --cacertdir "
                              "trusts it)")
            .arg(issuer.isEmpty() ? QString() : QStringLiteral(" \"%1\"").arg(issuer.join(QLatin1String(", "))));
    }
    default: return QStringLiteral("TLS: %1").arg(best->errorString());
    }
}

QString describeClosed(const QString &socketError, bool haveClientCertificate)
{
    const bool wantsCertificate = socketError.contains(QLatin1String("certificate required"), Qt::CaseInsensitive)
        || (!haveClientCertificate && socketError.contains(QLatin1String("handshake failure"), Qt::CaseInsensitive));
    if (wantsCertificate && !haveClientCertificate)
        return QStringLiteral("the server requires a client certificate (--cert and --key)");
    if (socketError.contains(QLatin1String("unknown ca"), Qt::CaseInsensitive)
        || socketError.contains(QLatin1String("bad certificate"), Qt::CaseInsensitive)
        || socketError.contains(QLatin1String("certificate unknown"), Qt::CaseInsensitive))
        return QStringLiteral("the server refused our client certificate: %1").arg(socketError);
    return socketError;
}

} // namespace tlsconfig
