// SPDX-License-Identifier: GPL-3.0-or-later
#include "connectiondialog.h"

#include "clustertopology.h"

#include "check.h"
#include "connectionimport.h"
#include "secretstore.h"
#include "settings.h"
#include "theme.h"

#include <QCheckBox>
#include <QColorDialog>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QThread>
#include <QUuid>
#include <QVBoxLayout>

namespace {

QString newId()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

} // namespace

ConnectionDialog::ConnectionDialog(Settings *settings, SecretStore *secrets, QWidget *parent)
    : QDialog(parent), m_settings(settings), m_secrets(secrets), m_connections(settings->connections())
{
    setWindowTitle(tr("Connect to Redis"));
    auto *layout = new QHBoxLayout(this);
    auto *left = new QVBoxLayout;
    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("connections"));
    m_list->setMinimumWidth(220);
    left->addWidget(m_list, 1);
    auto *buttons = new QHBoxLayout;
    auto *add = new QPushButton(tr("New"), this);
    auto *remove = new QPushButton(tr("Delete"), this);
    auto *import = new QPushButton(tr("Import"), this);
    auto *importMenu = new QMenu(import);
    importMenu->addAction(tr("Paste a URI, a redis-cli line or an export…"), this, [this] { importFromUser(false); });
    importMenu->addAction(tr("From a file…"), this, [this] { importFromUser(true); });
    import->setMenu(importMenu);
    auto *exportButton = new QPushButton(tr("Export…"), this);
    for (QPushButton *b : {add, remove, import, exportButton})
        buttons->addWidget(b);
    left->addLayout(buttons);
    layout->addLayout(left);

    auto *right = new QVBoxLayout;
    auto *form = new QWidget(this);
    buildForm(form);
    right->addWidget(form, 1);
    auto *box = new QDialogButtonBox(this);
    m_report = new QPlainTextEdit(this);
    m_report->setObjectName(QStringLiteral("testReport"));
    m_report->setReadOnly(true);
    m_report->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_report->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_report->hide();
    right->addWidget(m_report, 1);
    m_test = box->addButton(tr("Test"), QDialogButtonBox::ActionRole);
    connect(m_test, &QPushButton::clicked, this, &ConnectionDialog::testConnection);
    QPushButton *saveButton = box->addButton(tr("Save"), QDialogButtonBox::ApplyRole);
    QPushButton *connectButton = box->addButton(tr("Connect"), QDialogButtonBox::AcceptRole);
    box->addButton(QDialogButtonBox::Cancel);
    connectButton->setDefault(true);
    right->addWidget(box);
    layout->addLayout(right, 1);

    connect(add, &QPushButton::clicked, this, &ConnectionDialog::newConnection);
    connect(remove, &QPushButton::clicked, this, &ConnectionDialog::deleteSelected);
    connect(exportButton, &QPushButton::clicked, this, &ConnectionDialog::exportToFile);
    connect(saveButton, &QPushButton::clicked, this, &ConnectionDialog::save);
    connect(box, &QDialogButtonBox::accepted, this, &ConnectionDialog::connectChosen);
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_list, &QListWidget::currentRowChanged, this, &ConnectionDialog::load);
    connect(m_list, &QListWidget::itemDoubleClicked, this, &ConnectionDialog::connectChosen);
    refillList(m_connections.isEmpty() ? -1 : 0);
    if (m_connections.isEmpty())
        newConnection();
}

void ConnectionDialog::buildForm(QWidget *form)
{
    // Three tabs keep the form short: TLS and SSH are rare, and their tab says when they are on.
    auto *tabs = new QTabWidget(form);
    tabs->setObjectName(QStringLiteral("formTabs"));
    auto *outer = new QVBoxLayout(form);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(tabs);
    auto *serverPage = new QWidget(tabs);
    auto *tlsPage = new QWidget(tabs);
    auto *sshPage = new QWidget(tabs);
    auto *f = new QFormLayout(serverPage);
    addServerRows(serverPage, f);
    addTlsRows(tlsPage, new QFormLayout(tlsPage));
    addSshRows(sshPage, new QFormLayout(sshPage));
    m_readOnly = new QCheckBox(tr("Read-only: refuse every command the server flags as writing"), serverPage);
    m_readOnly->setObjectName(QStringLiteral("readOnly"));
    connect(m_tag, &QComboBox::currentIndexChanged, this, [this] {
        // Production opens read-only unless the user unticks it.
        if (SavedConnection::readOnlyByDefault(SavedConnection::Tag(m_tag->currentData().toInt())))
            m_readOnly->setChecked(true);
    });
    f->addRow(QString(), m_readOnly);
    m_scanReplica = new QLineEdit(serverPage);
    m_scanReplica->setObjectName(QStringLiteral("scanReplica"));
    m_scanReplica->setPlaceholderText(tr("host:port (empty: the server itself)"));
    m_scanReplica->setToolTip(tr("The key browser, the pattern index and the memory analysis scan the keyspace "
                                 "through this replica, with the same credentials, TLS and tunnel; everything "
                                 "else, writes included, goes to the server."));
    f->addRow(tr("Scan through replica"), m_scanReplica);
    m_cluster = new QCheckBox(tr("Redis Cluster: this server is a seed; read every node"), serverPage);
    m_cluster->setObjectName(QStringLiteral("cluster"));
    m_cluster->setToolTip(tr("Commands go to the node that owns their keys (MOVED and ASK are followed) and the "
                             "key browser walks every primary in parallel."));
    f->addRow(QString(), m_cluster);
    m_clusterSeeds = new QLineEdit(serverPage);
    m_clusterSeeds->setObjectName(QStringLiteral("clusterSeeds"));
    m_clusterSeeds->setPlaceholderText(tr("host:port, host:port (optional)"));
    m_clusterSeeds->setToolTip(tr("Tried in turn when the host above does not answer, so that the cluster is "
                                  "reached while one node is down."));
    f->addRow(tr("More seed nodes"), m_clusterSeeds);
    m_clusterMap = new QLineEdit(serverPage);
    m_clusterMap->setObjectName(QStringLiteral("clusterMap"));
    m_clusterMap->setPlaceholderText(tr("announced=reachable, e.g. 172.18.0.2:6379=127.0.0.1:7001"));
    m_clusterMap->setToolTip(tr("Nodes that announce addresses this machine cannot reach (NAT, containers) are "
                                "reached here instead: host:port=host:port for one node, host=host for every "
                                "port of a host, separated by commas."));
    f->addRow(tr("Node address map"), m_clusterMap);
    m_clusterKeepHost = new QCheckBox(tr("Reach every node at this host, on the port it announces"), serverPage);
    m_clusterKeepHost->setObjectName(QStringLiteral("clusterKeepHost"));
    f->addRow(QString(), m_clusterKeepHost);
    m_clusterScanReplicas = new QCheckBox(tr("Scan the replicas (READONLY), sparing the primaries"), serverPage);
    m_clusterScanReplicas->setObjectName(QStringLiteral("clusterScanReplicas"));
    m_clusterScanReplicas->setToolTip(tr("The key browser, the pattern index and the memory analysis walk one replica "
                                         "of each primary; a primary without a healthy replica is walked itself. "
                                         "What a replica holds may trail its primary by the replication lag."));
    f->addRow(QString(), m_clusterScanReplicas);
    const auto clusterRows = [this, f] {
        const bool on = m_cluster->isChecked();
        f->setRowVisible(m_clusterSeeds, on);
        f->setRowVisible(m_clusterMap, on);
        f->setRowVisible(m_clusterKeepHost, on);
        f->setRowVisible(m_clusterScanReplicas, on);
    };
    connect(m_cluster, &QCheckBox::toggled, this, clusterRows);
    clusterRows();
    m_redlockPeers = new QLineEdit(serverPage);
    m_redlockPeers->setObjectName(QStringLiteral("redlockPeers"));
    m_redlockPeers->setPlaceholderText(tr("host:port, host:port (the other primaries, optional)"));
    m_redlockPeers->setToolTip(tr("Independent primaries that, with this server, make one Redlock set. They are "
                                  "reached with the same credentials, TLS and tunnel; the locks panel shows on "
                                  "how many of them each lock is held, by which token, and flags a lock held on "
                                  "fewer than a majority or by different tokens."));
    f->addRow(tr("Redlock set"), m_redlockPeers);
    auto *sentinelPage = new QWidget(tabs);
    addSentinelRows(sentinelPage, new QFormLayout(sentinelPage));
    tabs->addTab(serverPage, tr("Server"));
    const int tlsTab = tabs->addTab(tlsPage, QString());
    const int sshTab = tabs->addTab(sshPage, QString());
    const int sentinelTab = tabs->addTab(sentinelPage, QString());
    const auto retitle = [this, tabs, tlsTab, sshTab, sentinelTab] {
        tabs->setTabText(tlsTab, m_tls->isChecked() ? tr("TLS (on)") : tr("TLS"));
        tabs->setTabText(sshTab, m_sshHost->text().trimmed().isEmpty() ? tr("SSH tunnel") : tr("SSH tunnel (on)"));
        tabs->setTabText(sentinelTab,
                         m_sentinelMaster->text().trimmed().isEmpty() ? tr("Sentinel") : tr("Sentinel (on)"));
    };
    connect(m_tls, &QCheckBox::toggled, this, retitle);
    connect(m_sshHost, &QLineEdit::textChanged, this, retitle);
    connect(m_sentinelMaster, &QLineEdit::textChanged, this, retitle);
    retitle();
}

// Redis Sentinel: the sentinels to ask, the master's name, and the sentinels' own credentials.
void ConnectionDialog::addSentinelRows(QWidget *form, QFormLayout *f)
{
    auto *about = new QLabel(tr("With a master name, the host and port above are not used: the sentinels are asked "
                                "where the primary is, and asked again after a failover."),
                             form);
    about->setWordWrap(true);
    f->addRow(about);
    m_sentinels = new QLineEdit(form);
    m_sentinels->setObjectName(QStringLiteral("sentinels"));
    m_sentinels->setPlaceholderText(tr("host:port, host:port, …"));
    f->addRow(tr("Sentinels"), m_sentinels);
    m_sentinelMaster = new QLineEdit(form);
    m_sentinelMaster->setObjectName(QStringLiteral("sentinelMaster"));
    m_sentinelMaster->setPlaceholderText(tr("e.g. mymaster"));
    f->addRow(tr("Master name"), m_sentinelMaster);
    m_sentinelUser = new QLineEdit(form);
    m_sentinelUser->setObjectName(QStringLiteral("sentinelUser"));
    m_sentinelUser->setPlaceholderText(tr("empty: the default user"));
    f->addRow(tr("Sentinel user"), m_sentinelUser);
    m_sentinelPassword = new QLineEdit(form);
    m_sentinelPassword->setObjectName(QStringLiteral("sentinelPassword"));
    m_sentinelPassword->setEchoMode(QLineEdit::Password);
    f->addRow(tr("Sentinel password"), m_sentinelPassword);
    m_sentinelReplica = new QCheckBox(tr("Inspect through a replica (read-only)"), form);
    m_sentinelReplica->setObjectName(QStringLiteral("sentinelReplica"));
    m_sentinelReplica->setToolTip(tr("Connect to the master's freshest healthy replica that the sentinels list, "
                                     "so that inspecting never loads the primary; the primary when no replica "
                                     "is healthy."));
    f->addRow(QString(), m_sentinelReplica);
}

// Name, colour, environment, where the server is, who logs in, and whether the keychain keeps it.
void ConnectionDialog::addServerRows(QWidget *form, QFormLayout *f)
{
    m_name = new QLineEdit(form);
    m_name->setObjectName(QStringLiteral("name"));
    m_colour = new QPushButton(form);
    connect(m_colour, &QPushButton::clicked, this, [this] {
        const QColor c = QColorDialog::getColor(m_colourValue.isValid() ? m_colourValue : QColor(Qt::gray), this,
                                                tr("Colour of the connection"));
        if (c.isValid()) {
            m_colourValue = c;
            m_colour->setIcon(theme::swatch(c, 14));
        }
    });
    m_tag = new QComboBox(form);
    m_tag->setObjectName(QStringLiteral("tag"));
    for (const auto t : {SavedConnection::Tag::Local, SavedConnection::Tag::Staging, SavedConnection::Tag::Production})
        m_tag->addItem(SavedConnection::tagName(t), int(t));
    m_host = new QLineEdit(form);
    m_host->setObjectName(QStringLiteral("host"));
    m_port = new QSpinBox(form);
    m_port->setObjectName(QStringLiteral("port"));
    m_port->setRange(1, 65535);
    m_socket = new QLineEdit(form);
    m_socket->setPlaceholderText(tr("a Unix socket instead of host and port"));
    m_db = new QSpinBox(form);
    m_db->setRange(0, 1 << 20);
    m_user = new QLineEdit(form);
    m_user->setObjectName(QStringLiteral("user"));
    m_user->setPlaceholderText(tr("default"));
    m_password = new QLineEdit(form);
    m_password->setObjectName(QStringLiteral("password"));
    m_password->setEchoMode(QLineEdit::Password);
    m_remember = new QCheckBox(tr("Remember in %1").arg(m_secrets->description()), form);
    m_remember->setObjectName(QStringLiteral("remember"));
    m_keychain = new QLabel(form);
    m_keychain->setWordWrap(true);
    m_keychain->setObjectName(QStringLiteral("keychainNote"));
    const auto noKeychain = [this](const QString &reason) {
        m_remember->setChecked(false);
        m_remember->setEnabled(false);
        const QString note = tr("No keychain service: passwords are asked for each time and stored nowhere.");
        m_keychain->setText(reason.isEmpty() ? note : QStringLiteral("%1 (%2)").arg(note, reason));
        m_keychain->show();
    };
    if (!m_secrets->persistent())
        noKeychain(QString());
    else
        m_keychain->hide();
    connect(m_secrets, &SecretStore::unavailable, this, noKeychain);
    m_colour->setMaximumWidth(80);
    f->addRow(tr("Name"), m_name);
    f->addRow(tr("Colour"), m_colour);
    f->addRow(tr("Environment"), m_tag);
    f->addRow(tr("Host"), m_host);
    f->addRow(tr("Port"), m_port);
    f->addRow(tr("Socket"), m_socket);
    f->addRow(tr("Database"), m_db);
    f->addRow(tr("User"), m_user);
    f->addRow(tr("Password"), m_password);
    f->addRow(QString(), m_remember);
    f->addRow(QString(), m_keychain);
}

void ConnectionDialog::addTlsRows(QWidget *form, QFormLayout *f)
{
    m_tls = new QCheckBox(tr("TLS"), form);
    m_caCert = new QLineEdit(form);
    m_caDir = new QLineEdit(form);
    m_cert = new QLineEdit(form);
    m_key = new QLineEdit(form);
    m_sni = new QLineEdit(form);
    m_insecure = new QCheckBox(tr("Do not verify the server's certificate"), form);
    m_keyPassphrase = new QLineEdit(form);
    m_keyPassphrase->setObjectName(QStringLiteral("keyPassphrase"));
    m_keyPassphrase->setEchoMode(QLineEdit::Password);
    m_keyPassphrase->setPlaceholderText(tr("if the client key is encrypted; else asked for"));
    // The TLS files mean nothing without TLS.
    const auto tlsFields = [this](bool on) {
        for (QWidget *w :
             std::initializer_list<QWidget *>{m_caCert, m_caDir, m_cert, m_key, m_keyPassphrase, m_sni, m_insecure})
            w->setEnabled(on);
    };
    connect(m_tls, &QCheckBox::toggled, this, tlsFields);
    tlsFields(false);
    f->addRow(QString(), m_tls);
    f->addRow(tr("CA certificate"), m_caCert);
    f->addRow(tr("CA directory"), m_caDir);
    f->addRow(tr("Client certificate"), m_cert);
    f->addRow(tr("Client key"), m_key);
    f->addRow(tr("Client key passphrase"), m_keyPassphrase);
    f->addRow(tr("Server name (SNI)"), m_sni);
    f->addRow(QString(), m_insecure);
}

void ConnectionDialog::addSshRows(QWidget *form, QFormLayout *f)
{
    m_sshHost = new QLineEdit(form);
    m_sshHost->setObjectName(QStringLiteral("sshHost"));
    m_sshHost->setPlaceholderText(tr("[user@]host[:port] or a ~/.ssh/config alias; empty: none"));
    m_sshKey = new QLineEdit(form);
    m_sshKey->setObjectName(QStringLiteral("sshKey"));
    m_sshKey->setPlaceholderText(tr("empty: the agent, then ~/.ssh's keys"));
    m_sshPassphrase = new QLineEdit(form);
    m_sshPassphrase->setObjectName(QStringLiteral("sshPassphrase"));
    m_sshPassphrase->setEchoMode(QLineEdit::Password);
    m_sshPassphrase->setPlaceholderText(tr("if the key is encrypted; else asked for"));
    m_sshUsePassword = new QCheckBox(tr("Log in to the bastion with a password"), form);
    m_sshUsePassword->setObjectName(QStringLiteral("sshUsePassword"));
    m_sshPassword = new QLineEdit(form);
    m_sshPassword->setObjectName(QStringLiteral("sshPassword"));
    m_sshPassword->setEchoMode(QLineEdit::Password);
    m_sshPassword->setPlaceholderText(tr("empty: asked for"));
    m_sshNote = new QLabel(tr("The Server tab's host and port are then as the bastion sees them (127.0.0.1 is the "
                              "bastion itself). An unknown host key is asked about and kept in ~/.ssh/known_hosts; "
                              "a changed one is refused."),
                           form);
    m_sshNote->setWordWrap(true);
    const auto sshFields = [this] {
        const bool on = !m_sshHost->text().trimmed().isEmpty();
        for (QWidget *w : std::initializer_list<QWidget *>{m_sshKey, m_sshPassphrase, m_sshUsePassword})
            w->setEnabled(on);
        m_sshPassword->setEnabled(on && m_sshUsePassword->isChecked());
    };
    connect(m_sshHost, &QLineEdit::textChanged, this, sshFields);
    connect(m_sshUsePassword, &QCheckBox::toggled, this, sshFields);
    sshFields();
    f->addRow(tr("SSH bastion"), m_sshHost);
    f->addRow(tr("SSH key"), m_sshKey);
    f->addRow(tr("SSH key passphrase"), m_sshPassphrase);
    f->addRow(QString(), m_sshUsePassword);
    f->addRow(tr("SSH password"), m_sshPassword);
    f->addRow(QString(), m_sshNote);
}

QString ConnectionDialog::keychainNote() const
{
    return m_keychain->isHidden() ? QString() : m_keychain->text();
}

void ConnectionDialog::refillList(int select)
{
    const QSignalBlocker block(m_list);
    m_list->clear();
    for (const SavedConnection &c : std::as_const(m_connections)) {
        auto *item
            = new QListWidgetItem(theme::swatch(c.colour, 14),
                                  QStringLiteral("%1  (%2)").arg(c.profile.name, SavedConnection::tagName(c.tag)));
        item->setToolTip(c.profile.displayName());
        m_list->addItem(item);
    }
    m_list->setCurrentRow(select);
    load(select);
}

void ConnectionDialog::load(int row)
{
    m_current = row;
    const SavedConnection c = row >= 0 && row < m_connections.size() ? m_connections.at(row) : SavedConnection();
    const ConnectionProfile &p = c.profile;
    m_name->setText(p.name);
    m_colourValue = c.colour;
    m_colour->setIcon(theme::swatch(c.colour, 14));
    m_tag->setCurrentIndex(m_tag->findData(int(c.tag)));
    m_host->setText(p.host);
    m_port->setValue(p.port);
    m_socket->setText(p.socketPath);
    m_db->setValue(p.db);
    m_user->setText(p.username);
    for (const SecretField &field : secretFields())
        field.edit->clear();
    m_tls->setChecked(p.tls);
    m_caCert->setText(p.caCertFile);
    m_caDir->setText(p.caCertDir);
    m_cert->setText(p.clientCertFile);
    m_key->setText(p.clientKeyFile);
    m_sni->setText(p.sni);
    m_insecure->setChecked(p.tlsInsecure);
    m_readOnly->setChecked(p.readOnly);
    m_scanReplica->setText(p.scanReplica());
    m_cluster->setChecked(p.cluster);
    m_clusterMap->setText(p.clusterAddressMap);
    m_clusterSeeds->setText(p.clusterSeeds.join(QStringLiteral(", ")));
    m_clusterKeepHost->setChecked(p.clusterKeepSeedHost);
    m_clusterScanReplicas->setChecked(p.clusterScanReplicas);
    m_redlockPeers->setText(p.redlockPeers.join(QStringLiteral(", ")));
    m_sentinels->setText(p.sentinels.join(QStringLiteral(", ")));
    m_sentinelMaster->setText(p.sentinelMaster);
    m_sentinelUser->setText(p.sentinelUsername);
    m_sentinelReplica->setChecked(p.sentinelReplica);
    m_sshHost->setText(p.ssh.enabled() ? p.ssh.displayName() : QString());
    m_sshKey->setText(p.ssh.keyFile);
    m_sshUsePassword->setChecked(p.ssh.usePassword);
    m_loadedId = c.id;
    if (c.id.isEmpty())
        return;
    // The remembered secrets, if any, fill their fields (masked).
    const QString id = c.id;
    auto left = std::make_shared<int>(int(secretFields().size()));
    for (const SecretField &field : secretFields()) {
        QLineEdit *edit = field.edit;
        m_secrets->read(SecretStore::keyOf(id, field.what),
                        [self = QPointer<ConnectionDialog>(this), id, edit, left](const std::optional<QString> &secret,
                                                                                  const QString &) {
                            // The dialog may have closed before the keychain answered.
                            if (!self || self->m_loadedId != id)
                                return; // another connection was selected meanwhile
                            if (secret) {
                                edit->setText(*secret);
                                self->m_remember->setChecked(true);
                            }
                            if (--*left == 0)
                                Q_EMIT self->passwordLoaded();
                        });
    }
}

QList<ConnectionDialog::SecretField> ConnectionDialog::secretFields() const
{
    return {{"password", m_password},
            {"key-passphrase", m_keyPassphrase},
            {"ssh-passphrase", m_sshPassphrase},
            {"ssh-password", m_sshPassword},
            {"sentinel-password", m_sentinelPassword}};
}

QHash<QString, QString> ConnectionDialog::typedSecrets() const
{
    QHash<QString, QString> secrets;
    for (const SecretField &field : secretFields())
        secrets.insert(QString::fromLatin1(field.what), field.edit->text());
    return secrets;
}

void ConnectionDialog::fillSecrets(ConnectionProfile &p, const QHash<QString, QString> &secrets) const
{
    p.password = secrets.value(QStringLiteral("password"));
    p.keyPassphrase = secrets.value(QStringLiteral("key-passphrase"));
    p.ssh.keyPassphrase = secrets.value(QStringLiteral("ssh-passphrase"));
    p.sentinelPassword = secrets.value(QStringLiteral("sentinel-password"));
    p.ssh.password = p.ssh.usePassword ? secrets.value(QStringLiteral("ssh-password")) : QString();
}

bool ConnectionDialog::fieldsAreValid()
{
    const QString text = m_sshHost->text().trimmed();
    SshSettings parsed;
    QString why;
    if (!text.isEmpty() && !SshSettings::parseTarget(text, &parsed, &why)) {
        QMessageBox::warning(this, tr("SSH bastion"), why);
        return false;
    }
    ConnectionProfile replica;
    if (!replica.parseScanReplica(m_scanReplica->text(), &why)) {
        QMessageBox::warning(this, tr("Scan through replica"), why);
        return false;
    }
    cluster::AddressMap map;
    if (m_cluster->isChecked() && !map.parse(m_clusterMap->text(), &why)) {
        QMessageBox::warning(this, tr("Node address map"), why);
        return false;
    }
    QStringList seeds;
    if (m_cluster->isChecked() && !ConnectionProfile::parseAddressList(m_clusterSeeds->text(), &seeds, &why)) {
        QMessageBox::warning(this, tr("More seed nodes"), why);
        return false;
    }
    QStringList sentinels;
    if (!ConnectionProfile::parseAddressList(m_sentinels->text(), &sentinels, &why)) {
        QMessageBox::warning(this, tr("Sentinels"), why);
        return false;
    }
    if (sentinels.isEmpty() != m_sentinelMaster->text().trimmed().isEmpty()) {
        QMessageBox::warning(this, tr("Sentinel"), tr("Give both the sentinels and the master's name, or neither."));
        return false;
    }
    if (!sentinels.isEmpty() && m_cluster->isChecked()) {
        QMessageBox::warning(this, tr("Sentinel"), tr("A connection is either through Sentinel or to a cluster."));
        return false;
    }
    QStringList peers;
    if (!ConnectionProfile::parseAddressList(m_redlockPeers->text(), &peers, &why)) {
        QMessageBox::warning(this, tr("Redlock set"), why);
        return false;
    }
    if (!peers.isEmpty() && (m_cluster->isChecked() || !sentinels.isEmpty())) {
        QMessageBox::warning(this, tr("Redlock set"),
                             tr("A Redlock set is made of independent primaries, not of a cluster or a "
                                "Sentinel-managed master."));
        return false;
    }
    return true;
}

SavedConnection ConnectionDialog::edited() const
{
    SavedConnection c
        = m_current >= 0 && m_current < m_connections.size() ? m_connections.at(m_current) : SavedConnection();
    if (c.id.isEmpty())
        c.id = newId();
    ConnectionProfile &p = c.profile;
    p.name = m_name->text().trimmed();
    p.host = m_host->text().trimmed();
    p.port = quint16(m_port->value());
    p.socketPath = m_socket->text().trimmed();
    p.db = m_db->value();
    p.username = m_user->text();
    p.tls = m_tls->isChecked();
    p.caCertFile = m_caCert->text().trimmed();
    p.caCertDir = m_caDir->text().trimmed();
    p.clientCertFile = m_cert->text().trimmed();
    p.clientKeyFile = m_key->text().trimmed();
    p.sni = m_sni->text().trimmed();
    p.tlsInsecure = m_insecure->isChecked();
    p.readOnly = m_readOnly->isChecked();
    QString replicaWhy; // an unparsable replica is refused by save() and Connect, as the bastion is
    if (!p.parseScanReplica(m_scanReplica->text(), &replicaWhy))
        p.parseScanReplica(QString(), &replicaWhy);
    p.cluster = m_cluster->isChecked();
    p.clusterKeepSeedHost = p.cluster && m_clusterKeepHost->isChecked();
    p.clusterScanReplicas = p.cluster && m_clusterScanReplicas->isChecked();
    p.clusterAddressMap = p.cluster ? m_clusterMap->text().trimmed() : QString();
    p.clusterSeeds.clear();
    if (p.cluster) {
        QString seedWhy; // checked on accept
        ConnectionProfile::parseAddressList(m_clusterSeeds->text(), &p.clusterSeeds, &seedWhy);
    }
    QString sentinelWhy; // refused by save() and Connect with its reason, as the bastion is
    p.sentinels.clear();
    ConnectionProfile::parseAddressList(m_sentinels->text(), &p.sentinels, &sentinelWhy);
    p.sentinelMaster = m_sentinelMaster->text().trimmed();
    p.sentinelUsername = m_sentinelUser->text();
    p.sentinelReplica = !p.sentinelMaster.isEmpty() && m_sentinelReplica->isChecked();
    QString peersWhy; // checked on accept
    p.redlockPeers.clear();
    ConnectionProfile::parseAddressList(m_redlockPeers->text(), &p.redlockPeers, &peersWhy);
    p.password.clear();
    p.keyPassphrase.clear();
    // An unparsable bastion is refused by save() and Connect; here it stays as typed.
    const SshSettings before = p.ssh;
    p.ssh = SshSettings();
    if (!m_sshHost->text().trimmed().isEmpty()) {
        QString why;
        if (!SshSettings::parseTarget(m_sshHost->text(), &p.ssh, &why))
            p.ssh.host = m_sshHost->text().trimmed();
        p.ssh.keyFile = m_sshKey->text().trimmed();
        p.ssh.usePassword = m_sshUsePassword->isChecked();
        p.ssh.acceptNewHostKey = before.acceptNewHostKey;
    }
    if (p.name.isEmpty())
        p.name = p.displayName();
    c.colour = m_colourValue;
    c.tag = SavedConnection::Tag(m_tag->currentData().toInt());
    return c;
}

void ConnectionDialog::setPassword(const QString &password)
{
    m_password->setText(password);
}

void ConnectionDialog::save()
{
    if (!fieldsAreValid())
        return;
    const SavedConnection c = edited();
    if (m_current >= 0 && m_current < m_connections.size())
        m_connections[m_current] = c;
    else
        m_connections.append(c);
    const int row = m_current >= 0 ? m_current : int(m_connections.size() - 1);
    m_settings->setConnections(m_connections);
    const QHash<QString, QString> typed = typedSecrets();
    for (const SecretField &field : secretFields()) {
        const QString key = SecretStore::keyOf(c.id, field.what);
        const QString secret = typed.value(QString::fromLatin1(field.what));
        if (m_remember->isChecked() && !secret.isEmpty())
            m_secrets->write(key, secret, [](bool, const QString &) {});
        else
            m_secrets->remove(key);
    }
    const bool remember = m_remember->isChecked();
    refillList(row);
    // load() clears the fields before the keychain answers: keep what was typed on screen.
    for (const SecretField &field : secretFields())
        field.edit->setText(typed.value(QString::fromLatin1(field.what)));
    m_remember->setChecked(remember);
}

void ConnectionDialog::testConnection()
{
    if (!fieldsAreValid())
        return;
    ConnectionProfile p = edited().profile;
    fillSecrets(p, typedSecrets());
    m_test->setEnabled(false);
    m_report->show();
    m_report->setPlainText(tr("Testing %1…").arg(p.displayName()));
    // check's steps block (name resolution, connect timeouts) and spin their own loops: a
    // thread of their own keeps the dialog responsive.
    auto result = std::make_shared<headless::CheckResult>();
    QThread *thread = QThread::create([p, result] { *result = headless::runCheck(p); });
    connect(thread, &QThread::finished, thread, &QObject::deleteLater); // the dialog may be gone
    connect(thread, &QThread::finished, this, [this, result] {
        m_report->setPlainText(QString::fromUtf8(result->report));
        m_test->setEnabled(true);
        Q_EMIT testFinished(result->status);
    });
    thread->start();
}

QString ConnectionDialog::testReport() const
{
    return m_report->isHidden() ? QString() : m_report->toPlainText();
}

ConnectionProfile ConnectionDialog::chosenProfile() const
{
    ConnectionProfile p = m_chosen.profile;
    fillSecrets(p, m_chosenSecrets);
    return p;
}

void ConnectionDialog::connectChosen()
{
    if (!fieldsAreValid())
        return;
    save();
    m_chosen = m_connections.value(m_current);
    m_chosenSecrets = typedSecrets();
    accept();
}

void ConnectionDialog::newConnection()
{
    m_list->clearSelection();
    m_current = -1;
    load(-1);
    m_name->setFocus();
}

void ConnectionDialog::deleteSelected()
{
    if (m_current < 0 || m_current >= m_connections.size())
        return;
    const SavedConnection c = m_connections.takeAt(m_current);
    for (const char *what : {"password", "key-passphrase", "ssh-password", "ssh-passphrase"})
        m_secrets->remove(SecretStore::keyOf(c.id, what));
    m_settings->setConnections(m_connections);
    refillList(m_connections.isEmpty() ? -1 : 0);
}

QString ConnectionDialog::keepPem(const QString &id, const char *what, const QByteArray &pem)
{
    // An export's PEM text becomes a file beside the settings, readable by this user only:
    // TLS reads files, and a private key must not sit in the settings.
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/tls");
    QDir().mkpath(dir);
    const QString path = QStringLiteral("%1/%2-%3.pem").arg(dir, id, QLatin1String(what));
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    f.write(pem);
    return f.commit() ? path : QString();
}

QStringList ConnectionDialog::importText(const QByteArray &text, QString *error)
{
    const auto imported = connectionimport::fromText(text, error);
    if (!imported)
        return {};
    QStringList notes;
    for (connectionimport::Imported in : *imported) {
        SavedConnection &c = in.connection;
        if (c.id.isEmpty())
            c.id = newId();
        if (!in.caPem.isEmpty())
            c.profile.caCertFile = keepPem(c.id, "ca", in.caPem);
        if (!in.certPem.isEmpty())
            c.profile.clientCertFile = keepPem(c.id, "cert", in.certPem);
        if (!in.keyPem.isEmpty())
            c.profile.clientKeyFile = keepPem(c.id, "key", in.keyPem);
        const std::pair<const char *, QString> secrets[]
            = {{"password", in.password}, {"ssh-password", in.sshPassword}, {"ssh-passphrase", in.sshPassphrase}};
        for (const auto &[what, secret] : secrets) {
            if (!secret.isEmpty())
                m_secrets->write(SecretStore::keyOf(c.id, what), secret, [](bool, const QString &) {});
        }
        if (!in.sshKeyPem.isEmpty())
            c.profile.ssh.keyFile = keepPem(c.id, "ssh-key", in.sshKeyPem);
        for (const QString &n : std::as_const(in.notes))
            notes << QStringLiteral("%1: %2").arg(c.profile.name, n);
        m_connections.append(c);
    }
    m_settings->setConnections(m_connections);
    refillList(int(m_connections.size() - 1));
    return notes;
}

void ConnectionDialog::importFromUser(bool fromFile)
{
    QByteArray text;
    if (fromFile) {
        const QString file = QFileDialog::getOpenFileName(this, tr("Import connections"));
        if (file.isEmpty())
            return;
        QFile f(file);
        if (!f.open(QIODevice::ReadOnly)) {
            QMessageBox::warning(this, tr("Import"), tr("Cannot read %1: %2").arg(file, f.errorString()));
            return;
        }
        text = f.readAll();
    } else {
        bool ok = false;
        text = QInputDialog::getMultiLineText(this, tr("Import connections"),
                                              tr("A redis:// URI, a redis-cli command line, or the export of "
                                                 "RedisInsight, Another Redis Desktop Manager or RedisLens:"),
                                              QString(), &ok)
                   .toUtf8();
        if (!ok)
            return;
    }
    QString error;
    const QStringList notes = importText(text, &error);
    if (!error.isEmpty())
        QMessageBox::warning(this, tr("Import"), error);
    else if (!notes.isEmpty())
        QMessageBox::information(this, tr("Import"), notes.join(QLatin1Char('\n')));
}

void ConnectionDialog::exportToFile()
{
    const QString file = QFileDialog::getSaveFileName(this, tr("Export connections (no passwords)"),
                                                      QStringLiteral("redislens-connections.json"));
    if (file.isEmpty())
        return;
    QSaveFile f(file);
    if (!f.open(QIODevice::WriteOnly) || f.write(connectionimport::exportJson(m_connections)) < 0 || !f.commit())
        QMessageBox::warning(this, tr("Export"), tr("Cannot write %1: %2").arg(file, f.errorString()));
}
