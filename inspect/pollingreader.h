// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

class QTimer;
class RedisClient;

// The polling half of a pattern monitor: a timer that reads again every interval while polling
// is on, one round at a time, and a context object per key list so that replies to an older
// list are dropped. Subclasses start a round in startRound() and end it with roundDone() or
// fail().
class PollingReader : public QObject
{
    Q_OBJECT
public:
    // What refresh() does while a round is still running.
    enum class WhileBusy : quint8 {
        Queue, // one more round right after it
        Skip, // nothing: the timer comes back
    };
    // Whether a round may run before the first setMatches() (with nothing to read).
    enum class BeforeMatches : quint8 { Read, Wait };

    void setPolling(bool on);
    bool isPolling() const;
    void refresh();
    bool hasResults() const { return m_polls > 0; }
    int polls() const { return m_polls; }

Q_SIGNALS:
    void refreshed();
    void failed(const QString &message);

protected:
    PollingReader(RedisClient *client, int intervalMs, WhileBusy whileBusy, BeforeMatches beforeMatches,
                  QObject *parent);

    // Reads what the round needs; the reader is busy until roundDone() or fail().
    virtual void startRound() = 0;
    // The key list changed: replies to the old one are dropped, and a reader on screen reads
    // at once (a hidden one reads when it is activated).
    void matchesChanged();
    void roundDone();
    void fail(const QString &message);
    QObject *context() const { return m_context; }

    RedisClient *m_client;

private:
    QTimer *m_poll;
    QPointer<QObject> m_context;
    WhileBusy m_whileBusy;
    BeforeMatches m_beforeMatches;
    int m_polls = 0;
    bool m_busy = false;
    bool m_again = false;
};
