// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>

class QSettings;

// Typed access to the persisted preferences; writes go straight through to QSettings.
// Command-line options override these for one run without being saved. Never holds a password.
class Settings : public QObject
{
    Q_OBJECT
public:
    explicit Settings(QObject *parent = nullptr);
    ~Settings() override;

    QByteArray separator() const;
    void setSeparator(const QByteArray &separator);
    // SCAN pacing ceiling, commands per second (0: none).
    int scanRate() const;
    void setScanRate(int commandsPerSecond);
    bool showMemory() const;
    void setShowMemory(bool on);
    int childLimit() const;
    // The last server connected to, as a URI without password.
    QString lastUri() const;
    void setLastUri(const QString &uri);
    QByteArray windowGeometry() const;
    QByteArray windowState() const;
    void setWindowGeometry(const QByteArray &geometry, const QByteArray &state);

Q_SIGNALS:
    void separatorChanged(const QByteArray &separator);
    void scanRateChanged(int commandsPerSecond);
    void showMemoryChanged(bool on);

private:
    QSettings *m_settings;
};
