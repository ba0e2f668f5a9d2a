// SPDX-License-Identifier: GPL-3.0-or-later
#include "secretstore.h"

#include <QTimer>

#ifdef REDISLENS_HAVE_KEYCHAIN
#include <qt6keychain/keychain.h>
#endif

void MemorySecretStore::read(const QString &key, ReadDone done)
{
    const auto it = m_secrets.constFind(key);
    const std::optional<QString> secret = it == m_secrets.cend() ? std::nullopt : std::optional<QString>(*it);
    QTimer::singleShot(0, this, [done = std::move(done), secret] { done(secret, {}); });
}

void MemorySecretStore::write(const QString &key, const QString &secret, WriteDone done)
{
    m_secrets.insert(key, secret);
    QTimer::singleShot(0, this, [done = std::move(done)] { done(true, {}); });
}

#ifdef REDISLENS_HAVE_KEYCHAIN
namespace {

const QString kService = QStringLiteral("RedisLens");

// QtKeychain, with plaintext fallback off: a box without a keychain service stores nothing.
// The first failure that says the service is missing turns the store into memory for the
// rest of the session.
class KeychainSecretStore final : public SecretStore
{
public:
    using SecretStore::SecretStore;
    QString description() const override
    {
        return m_fallback ? m_fallback->description() : tr("the system keychain (Secret Service or KWallet)");
    }
    bool persistent() const override { return !m_fallback; }

    void read(const QString &key, ReadDone done) override
    {
        if (m_fallback)
            return m_fallback->read(key, std::move(done));
        auto *job = new QKeychain::ReadPasswordJob(kService, this);
        job->setInsecureFallback(false);
        job->setKey(key);
        connect(job, &QKeychain::Job::finished, this, [this, job, key, done = std::move(done)] {
            if (job->error() == QKeychain::NoError)
                return done(job->textData(), {});
            if (job->error() == QKeychain::EntryNotFound)
                return done(std::nullopt, {});
            if (fellBack(job))
                return m_fallback->read(key, done);
            done(std::nullopt, job->errorString());
        });
        job->start();
    }

    void write(const QString &key, const QString &secret, WriteDone done) override
    {
        if (m_fallback)
            return m_fallback->write(key, secret, std::move(done));
        auto *job = new QKeychain::WritePasswordJob(kService, this);
        job->setInsecureFallback(false);
        job->setKey(key);
        job->setTextData(secret);
        connect(job, &QKeychain::Job::finished, this, [this, job, key, secret, done = std::move(done)] {
            if (job->error() == QKeychain::NoError)
                return done(true, {});
            if (fellBack(job))
                return m_fallback->write(key, secret, done);
            done(false, job->errorString());
        });
        job->start();
    }

    void remove(const QString &key) override
    {
        if (m_fallback)
            return m_fallback->remove(key);
        auto *job = new QKeychain::DeletePasswordJob(kService, this);
        job->setInsecureFallback(false);
        job->setKey(key);
        job->start();
    }

private:
    bool fellBack(const QKeychain::Job *job)
    {
        const QKeychain::Error e = job->error();
        if (e != QKeychain::NoBackendAvailable && e != QKeychain::NotImplemented && e != QKeychain::OtherError)
            return false;
        m_fallback = std::make_unique<MemorySecretStore>();
        Q_EMIT unavailable(job->errorString());
        return true;
    }

    std::unique_ptr<MemorySecretStore> m_fallback;
};

} // namespace
#endif

std::unique_ptr<SecretStore> SecretStore::system(QObject *parent)
{
#ifdef REDISLENS_HAVE_KEYCHAIN
    if (qEnvironmentVariableIsEmpty("REDISLENS_NO_KEYCHAIN"))
        return std::make_unique<KeychainSecretStore>(parent);
#endif
    return std::make_unique<MemorySecretStore>(parent);
}
