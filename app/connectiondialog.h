// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "savedconnection.h"

#include <QDialog>
#include <QList>

class QCheckBox;
class QComboBox;
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
    // A password read for the selected connection reached the form.
    void passwordLoaded();
    void testFinished(int status);

private:
    void buildForm(QWidget *form);
    void refillList(int select);
    void load(int row);
    void connectChosen();
    void newConnection();
    void deleteSelected();
    void importFromUser(bool fromFile);
    void exportToFile();
    QString keepPem(const QString &id, const char *what, const QByteArray &pem);

    Settings *m_settings;
    SecretStore *m_secrets;
    QList<SavedConnection> m_connections;
    SavedConnection m_chosen;
    QString m_chosenPassword;
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
    QCheckBox *m_readOnly;
    QLabel *m_ssh;
    QPushButton *m_test = nullptr;
    class QPlainTextEdit *m_report = nullptr;
};
