// SPDX-License-Identifier: GPL-3.0-or-later
#include "pollingreader.h"

#include <QTimer>

PollingReader::PollingReader(RedisClient *client, int intervalMs, WhileBusy whileBusy, BeforeMatches beforeMatches,
                             QObject *parent)
    : QObject(parent),
      m_client(client),
      m_poll(new QTimer(this)),
      m_whileBusy(whileBusy),
      m_beforeMatches(beforeMatches)
{
    m_poll->setInterval(intervalMs);
    connect(m_poll, &QTimer::timeout, this, &PollingReader::refresh);
}

void PollingReader::setPolling(bool on)
{
    if (on == m_poll->isActive())
        return;
    if (on) {
        m_poll->start();
        refresh();
    } else {
        m_poll->stop();
    }
}

bool PollingReader::isPolling() const
{
    return m_poll->isActive();
}

void PollingReader::refresh()
{
    if (m_busy) {
        m_again = m_again || m_whileBusy == WhileBusy::Queue;
        return;
    }
    if (!m_context) {
        if (m_beforeMatches == BeforeMatches::Wait)
            return;
        m_context = new QObject(this);
    }
    if (!m_client)
        return;
    m_busy = true;
    startRound();
}

void PollingReader::matchesChanged()
{
    delete m_context;
    m_context = new QObject(this);
    m_busy = false;
    m_again = false;
    if (isPolling())
        refresh();
}

void PollingReader::roundDone()
{
    m_busy = false;
    ++m_polls;
    Q_EMIT refreshed();
    if (m_again) {
        m_again = false;
        refresh();
    }
}

void PollingReader::fail(const QString &message)
{
    m_busy = false;
    Q_EMIT failed(message);
}
