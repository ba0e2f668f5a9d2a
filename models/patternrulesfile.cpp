// SPDX-License-Identifier: GPL-3.0-or-later
// The rules file on disk, watched: read again when it changes, saved atomically.
#include "patternrules.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QTimer>

PatternRulesFile::PatternRulesFile(const QString &path, QObject *parent)
    : QObject(parent), m_path(path), m_watcher(new QFileSystemWatcher(this)), m_debounce(new QTimer(this))
{
    // Editors save in bursts (truncate, write, rename, chmod): read once the burst is over.
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(kDebounceMs);
    connect(m_debounce, &QTimer::timeout, this, [this] { read(false); });
    connect(m_watcher, &QFileSystemWatcher::fileChanged, this, &PatternRulesFile::onDiskChanged);
    connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, &PatternRulesFile::onDiskChanged);
    read(false);
}

PatternRulesFile::~PatternRulesFile() = default;

void PatternRulesFile::onDiskChanged()
{
    m_debounce->start();
}

void PatternRulesFile::watch()
{
    // The directory too: a file that does not exist yet, or that an editor replaces by
    // renaming a new one over it (the old inode's watch dies with it), shows up there.
    const QFileInfo info(m_path);
    const QString file = info.absoluteFilePath();
    // A config directory that does not exist yet: its nearest existing ancestor, until it does.
    QString dirPath = info.absolutePath();
    while (!QFileInfo::exists(dirPath) && !QDir(dirPath).isRoot())
        dirPath = QFileInfo(dirPath).absolutePath(); // the parent
    for (const QString &watched : m_watcher->directories()) {
        if (watched != dirPath)
            m_watcher->removePath(watched);
    }
    if (QFileInfo::exists(dirPath) && !m_watcher->directories().contains(dirPath))
        m_watcher->addPath(dirPath);
    if (m_watcher->files().contains(file))
        m_watcher->removePath(file);
    if (info.exists())
        m_watcher->addPath(file);
}

void PatternRulesFile::read(bool force)
{
    watch(); // before reading: a change made in between is then not missed
    std::optional<QByteArray> bytes;
    QFile f(m_path);
    const bool exists = f.exists();
    if (exists && f.open(QIODevice::ReadOnly))
        bytes = f.readAll();
    if (exists && !bytes) {
        m_error = QStringLiteral("%1: %2").arg(QDir::toNativeSeparators(m_path), f.errorString());
        m_errorLine = 0;
        m_lastBytes.reset();
        Q_EMIT loadFailed(m_error);
        return;
    }
    // The directory also changes for other files in it (settings); and our own save comes back.
    if (!force && bytes == m_lastBytes)
        return;
    m_lastBytes = bytes;
    QList<PatternRule> parsed;
    QString why;
    int line = 0;
    if (bytes && !PatternRules::parse(*bytes, &parsed, &why, &line)) {
        m_error = QDir::toNativeSeparators(m_path) + QLatin1Char(' ') + why;
        m_errorLine = line;
        Q_EMIT loadFailed(m_error);
        return;
    }
    const bool changed = force || !m_error.isEmpty() || parsed != m_rules.rules();
    m_error.clear();
    m_errorLine = 0;
    m_rules.setRules(parsed);
    if (changed)
        Q_EMIT rulesChanged(m_rules);
}

void PatternRulesFile::reload()
{
    m_debounce->stop();
    read(true);
}

bool PatternRulesFile::save(const QList<PatternRule> &rules, QString *error)
{
    PatternRules next;
    next.setRules(rules);
    if (!next.save(m_path, error))
        return false;
    const QByteArray bytes = PatternRules::serialize(rules);
    QList<PatternRule> withLines;
    if (PatternRules::parse(bytes, &withLines, nullptr))
        next.setRules(withLines);
    m_rules = next;
    m_lastBytes = bytes;
    m_error.clear();
    m_errorLine = 0;
    watch();
    Q_EMIT rulesChanged(m_rules);
    return true;
}
