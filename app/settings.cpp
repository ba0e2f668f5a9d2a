// SPDX-License-Identifier: GPL-3.0-or-later
#include "settings.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSettings>

namespace {
constexpr int kDefaultScanRate = 50000;
}

Settings::Settings(QObject *parent) : QObject(parent), m_settings(new QSettings())
{ }

Settings::Settings(const QString &iniFile, QObject *parent)
    : QObject(parent), m_settings(new QSettings(iniFile, QSettings::IniFormat))
{ }

Settings::~Settings()
{
    delete m_settings;
}

QByteArray Settings::separator() const
{
    if (m_separatorOverride)
        return *m_separatorOverride;
    return m_settings->value(QStringLiteral("browser/separator"), QByteArray(":")).toByteArray();
}

void Settings::setSeparator(const QByteArray &separator)
{
    const bool changed = separator != this->separator();
    m_separatorOverride.reset();
    if (!changed)
        return;
    m_settings->setValue(QStringLiteral("browser/separator"), separator);
    Q_EMIT separatorChanged(separator);
}

int Settings::scanRate() const
{
    if (m_scanRateOverride)
        return *m_scanRateOverride;
    return m_settings->value(QStringLiteral("browser/scanRate"), kDefaultScanRate).toInt();
}

void Settings::setScanRate(int commandsPerSecond)
{
    const bool changed = commandsPerSecond != scanRate();
    m_scanRateOverride.reset();
    if (!changed)
        return;
    m_settings->setValue(QStringLiteral("browser/scanRate"), commandsPerSecond);
    Q_EMIT scanRateChanged(commandsPerSecond);
}

bool Settings::luaHistoryArguments() const
{
    return m_settings->value(QStringLiteral("console/historyArguments"), true).toBool();
}

void Settings::setLuaHistoryArguments(bool keep)
{
    m_settings->setValue(QStringLiteral("console/historyArguments"), keep);
}

bool Settings::showMemory() const
{
    return m_settings->value(QStringLiteral("browser/showMemory"), false).toBool();
}

void Settings::setShowMemory(bool on)
{
    if (on == showMemory())
        return;
    m_settings->setValue(QStringLiteral("browser/showMemory"), on);
    Q_EMIT showMemoryChanged(on);
}

int Settings::childLimit() const
{
    return m_settings->value(QStringLiteral("browser/childLimit"), 1000).toInt();
}

theme::Theme Settings::theme() const
{
    return theme::fromName(m_settings->value(QStringLiteral("window/theme")).toString());
}

void Settings::setTheme(theme::Theme theme)
{
    if (theme == this->theme())
        return;
    m_settings->setValue(QStringLiteral("window/theme"), theme::name(theme));
    Q_EMIT themeChanged(theme);
}

QList<SavedConnection> Settings::connections() const
{
    // One JSON array, the export's format: readable, and one key to write atomically.
    const QJsonArray list
        = QJsonDocument::fromJson(m_settings->value(QStringLiteral("connections/saved")).toByteArray()).array();
    QList<SavedConnection> out;
    for (const QJsonValue v : list) {
        QString error;
        if (auto c = SavedConnection::fromJson(v.toObject(), &error))
            out.append(*c);
        else
            qWarning("a saved connection was skipped: %s", qPrintable(error));
    }
    return out;
}

void Settings::setConnections(const QList<SavedConnection> &connections)
{
    QJsonArray list;
    for (const SavedConnection &c : connections)
        list.append(c.toJson());
    m_settings->setValue(QStringLiteral("connections/saved"),
                         QString::fromUtf8(QJsonDocument(list).toJson(QJsonDocument::Compact)));
    m_settings->sync(); // a saved connection survives a crash of the window it opens
}

QByteArray Settings::windowGeometry() const
{
    return m_settings->value(QStringLiteral("window/geometry")).toByteArray();
}

QByteArray Settings::windowState() const
{
    return m_settings->value(QStringLiteral("window/state")).toByteArray();
}

void Settings::setWindowGeometry(const QByteArray &geometry, const QByteArray &state)
{
    m_settings->setValue(QStringLiteral("window/geometry"), geometry);
    m_settings->setValue(QStringLiteral("window/state"), state);
}

int Settings::pollIntervalMs() const
{
    return qBound(250, m_settings->value(QStringLiteral("charts/pollIntervalMs"), 1000).toInt(), 60000);
}

void Settings::setPollIntervalMs(int ms)
{
    ms = qBound(250, ms, 60000);
    if (ms == pollIntervalMs())
        return;
    m_settings->setValue(QStringLiteral("charts/pollIntervalMs"), ms);
    Q_EMIT pollIntervalChanged(ms);
}
