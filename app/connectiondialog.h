// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "savedconnection.h"

#include <QDialog>
#include <QHash>
#include <QList>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;
class SecretStore;
class Settings;

// The connection manager: the saved connections (name, colour, environment tag, where and how
// to connect), a form to edit them, import from a URI, a redis-cli line or another GUI's
// export, export without secrets, and Connect. Passwords go to the SecretStore, never to the
// settings; without a keychain the dialog says once that it asks each time.
class ConnectionDialog : public QDialog
{
    Q_OBJECT
public:
    ConnectionDialog(Settings *settings, SecretStore *secrets, QWidget *parent = nullptr);

    // After Connect: the connection, with the password typed or read from the keychain.
    const SavedConnection &chosen() const { return m_chosen; }
    ConnectionProfile chosenProfile() const;

    // For tests and the Import menu: what fromText() imports, saved and selected. Returns the
    // notes (what was not taken over), or an error in 'error'.
    QStringList importText(const QByteArray &text, QString *error);
    QListWidget *list() const { return m_list; }
    // The form's connection as it stands.
    SavedConnection edited() const;
    void setPassword(const QString &password);
    // Saves the form into the selected connection (a new one when none is).
    void save();
    QString keychainNote() const;

    // Runs `redislens check`'s steps on the form's connection, off the GUI thread; the report
    // shows under the form.
    void testConnection();
    QString testReport() const;

Q_SIGNALS:
    // The keychain answered for every secret of the selected connection (the form is filled).
    void passwordLoaded();
    void testFinished(int status);

private:
    void buildForm(QWidget *form);
    void addServerRows(QWidget *form, QFormLayout *f);
    void addTlsRows(QWidget *form, QFormLayout *f);
    void addSshRows(QWidget *form, QFormLayout *f);
    void refillList(int select);
    void load(int row);
    void connectChosen();
    void newConnection();
    void deleteSelected();
    void importFromUser(bool fromFile);
    void exportToFile();
    QString keepPem(const QString &id, const char *what, const QByteArray &pem);
    // The form's secret fields, each filed in the keychain under the connection's id and its name.
    struct SecretField
    {
        const char *what;
        QLineEdit *edit;
    };
    QList<SecretField> secretFields() const;
    void addSentinelRows(QWidget *form, QFormLayout *f);
    // The secrets typed or read into the form, put into 'p'.
    void fillSecrets(ConnectionProfile &p, const QHash<QString, QString> &secrets) const;
    QHash<QString, QString> typedSecrets() const;
    // False (and a message box) when the SSH bastion field is not [user@]host[:port].
    // The SSH bastion and the scan replica parse; a warning names the one that does not.
    bool fieldsAreValid();

    Settings *m_settings;
    SecretStore *m_secrets;
    QList<SavedConnection> m_connections;
    SavedConnection m_chosen;
    QHash<QString, QString> m_chosenSecrets; // by keychain name: "password", "ssh-passphrase", …
    int m_current = -1;
    QString m_loadedId;

    QListWidget *m_list;
    QLineEdit *m_name;
    QPushButton *m_colour;
    QColor m_colourValue;
    QComboBox *m_tag;
    QLineEdit *m_host;
    QSpinBox *m_port;
    QLineEdit *m_socket;
    QSpinBox *m_db;
    QLineEdit *m_user;
    QLineEdit *m_password;
    QCheckBox *m_remember;
    QLabel *m_keychain;
    QCheckBox *m_tls;
    QLineEdit *m_caCert;
    QLineEdit *m_caDir;
    QLineEdit *m_cert;
    QLineEdit *m_key;
    QLineEdit *m_sni;
    QCheckBox *m_insecure;
    QLineEdit *m_keyPassphrase;
    QCheckBox *m_readOnly;
    QLineEdit *m_scanReplica;
    QCheckBox *m_cluster = nullptr;
    QLineEdit *m_sentinels = nullptr;
    QLineEdit *m_sentinelMaster = nullptr;
    QLineEdit *m_sentinelUser = nullptr;
    QLineEdit *m_sentinelPassword = nullptr;
    QLineEdit *m_clusterMap = nullptr;
    QLineEdit *m_clusterSeeds = nullptr;
    QLineEdit *m_redlockPeers = nullptr;
    QCheckBox *m_sentinelReplica = nullptr;
    QCheckBox *m_clusterScanReplicas = nullptr;
    QCheckBox *m_clusterKeepHost = nullptr;
    QLineEdit *m_sshHost;
    QLineEdit *m_sshKey;
    QLineEdit *m_sshPassphrase;
    QCheckBox *m_sshUsePassword;
    QLineEdit *m_sshPassword;
    QLabel *m_sshNote;
    QPushButton *m_test = nullptr;
    class QPlainTextEdit *m_report = nullptr;
};
