// SPDX-License-Identifier: GPL-3.0-or-later
#include "settings.h"

#include "keptaside.h"
#include "keyscanner.h"

#include <QDir>
#include <QFileInfo>

#include <QJsonArray>
#include <QJsonDocument>
#include <QSettings>

namespace {
constexpr int kDefaultScanRate = kAdaptivePacing;
}

Settings::Settings(QObject *parent, Damaged damaged) : QObject(parent), m_settings(new QSettings())
{
    checkFile(damaged, {});
}

Settings::Settings(const QString &iniFile, QObject *parent, Damaged damaged)
    : QObject(parent), m_settings(new QSettings(iniFile, QSettings::IniFormat))
{
    checkFile(damaged, iniFile);
}

// QSettings reads what it can of a damaged file and, on its next write, replaces the file with
// that: whatever it could not read would be lost without a word.
void Settings::checkFile(Damaged damaged, const QString &iniFile)
{
    const QString path = m_settings->fileName();
    const QString shown = QDir::toNativeSeparators(path);
    // The saved connections are JSON inside the file: an unreadable list would be replaced by
    // the next connection saved.
    // allKeys() first: QSettings parses a section only when asked for one of its keys, and says
    // FormatError only then.
    m_settings->allKeys();
    const QVariant saved = m_settings->value(QStringLiteral("connections/saved"));
    const bool connectionsDamaged = saved.isValid() && !QJsonDocument::fromJson(saved.toByteArray()).isArray();
    if (m_settings->status() == QSettings::FormatError || connectionsDamaged) {
        if (damaged == Damaged::Leave) {
            m_problem = tr("The settings file %1 is damaged; defaults are used where it cannot be read.").arg(shown);
            m_readOnly = true;
            return;
        }
        delete m_settings;
        m_settings = nullptr;
        QString why;
        const QString aside = keptaside::keepAside(path, &why);
        m_settings = iniFile.isEmpty() ? new QSettings() : new QSettings(iniFile, QSettings::IniFormat);
        if (aside.isEmpty()) {
            m_problem
                = tr("The settings file %1 is damaged and %2: settings are not saved in this run.").arg(shown, why);
            m_readOnly = true;
            return;
        }
        m_problem = tr("The settings file %1 was damaged: it was kept as %2, and RedisLens starts with its "
                       "defaults.")
                        .arg(shown, QDir::toNativeSeparators(aside));
        return;
    }
    // Qt says AccessError for a file whose directory is not made yet, too: only a file that is
    // there and cannot be read is a problem.
    if (m_settings->status() == QSettings::AccessError && QFileInfo::exists(path) && !QFileInfo(path).isReadable()) {
        m_problem = tr("The settings file %1 cannot be read: defaults are used.").arg(shown);
        return;
    }
    const QString dir = QFileInfo(path).absolutePath();
    if (!QDir().mkpath(dir) || !QFileInfo(dir).isWritable()
        || (QFileInfo::exists(path) && !QFileInfo(path).isWritable())) {
        m_problem = tr("Settings cannot be saved: %1 is not writable. Changes last for this run only.")
                        .arg(QDir::toNativeSeparators(dir));
        m_readOnly = true;
    }
}

void Settings::write(const QString &key, const QVariant &value)
{
    if (m_readOnly) {
        m_unsaved.insert(key, value);
        return;
    }
    // status() keeps the first error QSettings met, and Qt 6.4 reports AccessError for a file
    // whose directory does not exist yet: a write failed when the status turned to an error
    // now, or when the file is not there, writable, afterwards.
    const bool erredBefore = m_settings->status() == QSettings::AccessError;
    m_settings->setValue(key, value);
    m_settings->sync();
    const QFileInfo file(m_settings->fileName());
    const bool failed
        = (!erredBefore && m_settings->status() == QSettings::AccessError) || !file.exists() || !file.isWritable();
    if (!failed)
        return;
    // The directory or the disk refused: keep this run's choices in memory, say so once.
    m_readOnly = true;
    m_unsaved.insert(key, value);
    m_problem = tr("Settings cannot be saved to %1: changes last for this run only.")
                    .arg(QDir::toNativeSeparators(m_settings->fileName()));
    Q_EMIT problemFound(m_problem);
}

QVariant Settings::read(const QString &key, const QVariant &fallback) const
{
    const auto it = m_unsaved.constFind(key);
    return it != m_unsaved.constEnd() ? *it : m_settings->value(key, fallback);
}

Settings::~Settings()
{
    delete m_settings;
}

QByteArray Settings::separator() const
{
    if (m_separatorOverride)
        return *m_separatorOverride;
    return read(QStringLiteral("browser/separator"), QByteArray(":")).toByteArray();
}

void Settings::setSeparator(const QByteArray &separator)
{
    const bool changed = separator != this->separator();
    m_separatorOverride.reset();
    if (!changed)
        return;
    write(QStringLiteral("browser/separator"), separator);
    Q_EMIT separatorChanged(separator);
}

int Settings::scanRate() const
{
    if (m_scanRateOverride)
        return *m_scanRateOverride;
    // "auto" or a whole number of commands per second; anything else is the default.
    const QString value = read(QStringLiteral("browser/scanRate"), QStringLiteral("auto")).toString();
    bool ok = false;
    const int n = value.toInt(&ok);
    return ok && n >= 0 ? n : kDefaultScanRate;
}

void Settings::setScanRate(int commandsPerSecond)
{
    const bool changed = commandsPerSecond != scanRate();
    m_scanRateOverride.reset();
    if (!changed)
        return;
    write(QStringLiteral("browser/scanRate"),
          commandsPerSecond == kAdaptivePacing ? QVariant(QStringLiteral("auto")) : QVariant(commandsPerSecond));
    Q_EMIT scanRateChanged(commandsPerSecond);
}

QStringList Settings::dismissedFindings(const QString &connection) const
{
    return read(QStringLiteral("triage/dismissed")).toMap().value(connection).toStringList();
}

void Settings::setDismissedFindings(const QString &connection, const QStringList &ids)
{
    QVariantMap all = read(QStringLiteral("triage/dismissed")).toMap();
    if (ids.isEmpty())
        all.remove(connection);
    else
        all.insert(connection, ids);
    write(QStringLiteral("triage/dismissed"), all);
}

bool Settings::luaHistoryArguments() const
{
    return read(QStringLiteral("console/historyArguments"), true).toBool();
}

void Settings::setLuaHistoryArguments(bool keep)
{
    write(QStringLiteral("console/historyArguments"), keep);
}

bool Settings::showMemory() const
{
    return read(QStringLiteral("browser/showMemory"), false).toBool();
}

void Settings::setShowMemory(bool on)
{
    if (on == showMemory())
        return;
    write(QStringLiteral("browser/showMemory"), on);
    Q_EMIT showMemoryChanged(on);
}

int Settings::childLimit() const
{
    return read(QStringLiteral("browser/childLimit"), 1000).toInt();
}

theme::Theme Settings::theme() const
{
    return theme::fromName(read(QStringLiteral("window/theme")).toString());
}

void Settings::setTheme(theme::Theme theme)
{
    if (theme == this->theme())
        return;
    write(QStringLiteral("window/theme"), theme::name(theme));
    Q_EMIT themeChanged(theme);
}

QList<SavedConnection> Settings::connections() const
{
    // One JSON array, the export's format: readable, and one key to write atomically.
    const QJsonArray list = QJsonDocument::fromJson(read(QStringLiteral("connections/saved")).toByteArray()).array();
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
    write(QStringLiteral("connections/saved"), QString::fromUtf8(QJsonDocument(list).toJson(QJsonDocument::Compact)));
}

QByteArray Settings::windowGeometry() const
{
    return read(QStringLiteral("window/geometry")).toByteArray();
}

QByteArray Settings::windowState() const
{
    return read(QStringLiteral("window/state")).toByteArray();
}

void Settings::setWindowGeometry(const QByteArray &geometry, const QByteArray &state)
{
    write(QStringLiteral("window/geometry"), geometry);
    write(QStringLiteral("window/state"), state);
}

int Settings::pollIntervalMs() const
{
    return qBound(250, read(QStringLiteral("charts/pollIntervalMs"), 1000).toInt(), 60000);
}

int Settings::decodeCapMiB() const
{
    return qBound(1, read(QStringLiteral("values/decodeCapMiB"), 16).toInt(), 1024);
}

void Settings::setDecodeCapMiB(int mib)
{
    mib = qBound(1, mib, 1024);
    if (mib == decodeCapMiB())
        return;
    write(QStringLiteral("values/decodeCapMiB"), mib);
    Q_EMIT decodeCapChanged(mib);
}

void Settings::setPollIntervalMs(int ms)
{
    ms = qBound(250, ms, 60000);
    if (ms == pollIntervalMs())
        return;
    write(QStringLiteral("charts/pollIntervalMs"), ms);
    Q_EMIT pollIntervalChanged(ms);
}
