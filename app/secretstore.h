// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QHash>
#include <QObject>
#include <QString>
#include <functional>
#include <memory>
#include <optional>

// Where saved connections keep their secrets (passwords, key passphrases): the OS keychain
// through QtKeychain (Secret Service, KWallet), never a file. Where no keychain service runs,
// nothing is stored: the window asks each time and says so once. Calls answer asynchronously
// (a keychain may ask the user to unlock it), on the calling thread.
class SecretStore : public QObject
{
    Q_OBJECT
public:
    using ReadDone = std::function<void(const std::optional<QString> &secret, const QString &error)>;
    using WriteDone = std::function<void(bool ok, const QString &error)>;

    using QObject::QObject;

    // "Secret Service or KWallet", "memory only (no keychain service)"…
    virtual QString description() const = 0;
    // Whether what is written outlives the process.
    virtual bool persistent() const = 0;
    virtual void read(const QString &key, ReadDone done) = 0;
    virtual void write(const QString &key, const QString &secret, WriteDone done) = 0;
    virtual void remove(const QString &key) = 0;

    // The keychain when RedisLens was built with QtKeychain, else the memory store.
    static std::unique_ptr<SecretStore> system(QObject *parent = nullptr);
    // The key of one secret of a saved connection: "<id>/password", "<id>/key-passphrase".
    static QString keyOf(const QString &connectionId, const char *what)
    {
        return connectionId + QLatin1Char('/') + QLatin1String(what);
    }

Q_SIGNALS:
    // The keychain cannot be used (no service runs, access denied): secrets are now kept in
    // memory for this session only. Emitted once.
    void unavailable(const QString &reason);
};

// Secrets for this session only: the fallback, and the store of tests.
class MemorySecretStore final : public SecretStore
{
    Q_OBJECT
public:
    using SecretStore::SecretStore;
    QString description() const override { return tr("this session only (no keychain)"); }
    bool persistent() const override { return false; }
    void read(const QString &key, ReadDone done) override;
    void write(const QString &key, const QString &secret, WriteDone done) override;
    void remove(const QString &key) override { m_secrets.remove(key); }

private:
    QHash<QString, QString> m_secrets;
};
