// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QElapsedTimer>
#include <QString>

// The line `show` keeps on stderr while it reads: keys scanned of DBSIZE and keys per second.
// Drawn at most ten times a second and erased when the reading is done, so what is left on the
// terminal is the output alone. Off unless stderr is a terminal (or it was asked for).
class ProgressBar
{
public:
    explicit ProgressBar(bool enabled);
    ~ProgressBar();

    bool isEnabled() const { return m_enabled; }
    // 'total' < 0: not known (no DBSIZE yet).
    void scanned(quint64 done, qint64 total, double keysPerSecond, bool force = false);
    // What the scan's pacing is doing, shown after the count (empty: nothing).
    void setPace(const QString &pace) { m_pace = pace; }
    // A phase without a count ("classifying", "reading 12 locks").
    void status(const QString &what);
    void clear();

    static bool stderrIsTerminal();

private:
    void draw(const QByteArray &line, bool force);

    bool m_enabled;
    bool m_drawn = false;
    bool m_status = false; // the line shows a status, not a count
    QElapsedTimer m_sinceDraw;
    QString m_pace;
};
