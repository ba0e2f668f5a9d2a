// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "savedconnection.h"
#include "theme.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <optional>

class QSettings;

// Typed access to the persisted preferences; writes go straight through to QSettings.
// Command-line options override these for one run without being saved. Never holds a password.
class Settings : public QObject
{
    Q_OBJECT
public:
    // What to do with a settings file that cannot be read in full: the window keeps it aside and
    // starts from the defaults; a headless command reads what it can and writes nothing.
    enum class Damaged { KeepAside, Leave };

    explicit Settings(QObject *parent = nullptr, Damaged damaged = Damaged::KeepAside);
    // Settings kept in this INI file instead of the user's: for tests, which must never read or
    // write the real preferences.
    explicit Settings(const QString &iniFile, QObject *parent = nullptr, Damaged damaged = Damaged::KeepAside);
    ~Settings() override;

    // One sentence for the user when the file was damaged (and where it was kept), cannot be
    // read, or cannot be written; empty when all is well. Choices made while it cannot be
    // written last for the run.
    QString problem() const { return m_problem; }

    // Values from the command line: they win for this run and are never written to disk.
    // Changing the same setting in the window replaces the override and is saved as usual.
    void overrideSeparator(const QByteArray &separator) { m_separatorOverride = separator; }
    void overrideScanRate(int commandsPerSecond) { m_scanRateOverride = commandsPerSecond; }

    QByteArray separator() const;
    void setSeparator(const QByteArray &separator);
    // SCAN pacing ceiling, commands per second (0: none).
    int scanRate() const;
    void setScanRate(int commandsPerSecond);
    bool showMemory() const;
    void setShowMemory(bool on);
    int childLimit() const;
    // How often the overview polls INFO, in milliseconds (250 … 60,000).
    int pollIntervalMs() const;
    void setPollIntervalMs(int ms);
    // The most one decoding step may output, in MiB (1–1024, 16 by default): a compression bomb
    // stops there.
    int decodeCapMiB() const;
    void setDecodeCapMiB(int mib);
    // Whether the Lua console's history keeps KEYS and ARGV (default on).
    // Triage findings dismissed ("known, accepted") on one connection, by rule id; the
    // connection is named by its masked URI.
    QStringList dismissedFindings(const QString &connection) const;
    void setDismissedFindings(const QString &connection, const QStringList &ids);
    bool luaHistoryArguments() const;
    void setLuaHistoryArguments(bool keep);
    // System (the desktop's look), or Fusion light or dark.
    theme::Theme theme() const;
    void setTheme(theme::Theme theme);
    // The saved connections, in the manager's order (no secret: SavedConnection holds none).
    QList<SavedConnection> connections() const;
    void setConnections(const QList<SavedConnection> &connections);
    QByteArray windowGeometry() const;
    QByteArray windowState() const;
    void setWindowGeometry(const QByteArray &geometry, const QByteArray &state);

Q_SIGNALS:
    void separatorChanged(const QByteArray &separator);
    void scanRateChanged(int commandsPerSecond);
    void showMemoryChanged(bool on);
    void pollIntervalChanged(int ms);
    void decodeCapChanged(int mib);
    void themeChanged(theme::Theme theme);
    // A write failed (the directory or the disk refused): said once, with problem()'s text.
    void problemFound(const QString &problem);

private:
    void checkFile(Damaged damaged, const QString &iniFile);
    void write(const QString &key, const QVariant &value);
    QVariant read(const QString &key, const QVariant &fallback = {}) const;

    QSettings *m_settings;
    QString m_problem;
    bool m_readOnly = false;
    QHash<QString, QVariant> m_unsaved; // what this run chose while the file cannot be written
    std::optional<QByteArray> m_separatorOverride;
    std::optional<int> m_scanRateOverride;
};
