// SPDX-License-Identifier: GPL-3.0-or-later
#include "monitorcapture.h"

#include "clientlist.h"
#include "clients.h"
#include "hotkeysreader.h"
#include "redisclient.h"

#include <QTimer>

MonitorCapture::MonitorCapture(RedisClient *client, QObject *parent)
    : QObject(parent), m_client(client), m_kinds(new KeyKindReader(client, this)), m_timeBound(new QTimer(this))
{
    m_timeBound->setSingleShot(true);
    // A coarse timer may fire 5 % early: the bound is a promise in both directions.
    m_timeBound->setTimerType(Qt::PreciseTimer);
    connect(m_timeBound, &QTimer::timeout, this, [this] { finishCapture(End::TimeBound); });
    connect(m_kinds, &KeyKindReader::kindsAvailable, this, [this](const QHash<QByteArray, PatternMatch> &kinds) {
        for (const profiler::MonitorSummary::Family &f : m_summary.topFamilies(kKindFamilies)) {
            const auto it = kinds.constFind(f.sampleKey);
            if (it != kinds.cend())
                m_summary.setFamilyKind(f.family, it->kind, it->reason);
        }
        setState(State::Done);
        Q_EMIT finished(m_end);
    });
}

MonitorCapture::~MonitorCapture()
{
    // The MONITOR ends with its connection.
    delete m_monitor;
}

void MonitorCapture::setPatternIndex(const PatternIndex *index)
{
    m_kinds->setPatternIndex(index);
}

void MonitorCapture::setLimits(int maxLines, int maxMs)
{
    m_maxLines = qBound(1, maxLines, kMaxLines);
    m_maxMs = qBound(100, maxMs, kMaxMs);
}

RedisClient *MonitorCapture::monitorClient() const
{
    return m_monitor;
}

qint64 MonitorCapture::elapsedMs() const
{
    if (m_state == State::Running && m_clock.isValid())
        return m_clock.elapsed();
    return m_elapsedMs;
}

void MonitorCapture::setState(State state)
{
    if (state == m_state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

void MonitorCapture::start()
{
    if (isCapturing() || m_state == State::Finishing)
        return;
    delete m_context;
    m_context = new QObject(this);
    m_kinds->cancel();
    m_summary.clear();
    m_dropped = 0;
    m_elapsedMs = 0;
    m_clock.invalidate();
    m_end = End::None;
    m_errorText.clear();
    setState(State::Starting);
    if (!m_client->isReady()) {
        finishCapture(End::Failed, tr("not connected"));
        return;
    }
    // RedisLens's own connections first, so their lines are kept apart from the first one on.
    m_client->send(RedisCommand{"CLIENT", "LIST"}, m_context, [this](const RedisReply &r) {
        QSet<QByteArray> own;
        if (r.ok() && r.value().isString()) {
            for (const ClientEntry &c : parseClientList(r.value().bytes()))
                if (clients::isOwn(c))
                    own.insert(c.addr);
        }
        connectMonitor(own);
    });
}

void MonitorCapture::connectMonitor(const QSet<QByteArray> &own)
{
    if (m_state != State::Starting)
        return;
    m_summary.setOwnClients(own);
    ConnectionProfile profile = m_client->profile();
    profile.clientName += QStringLiteral("-monitor");
    // One server: the one the window is connected to (a cluster's seed node).
    profile.cluster = false;
    profile.clusterSeeds.clear();
    m_monitor = new RedisClient(profile, this);
    m_monitor->setMessageBound(m_maxLines, kQueueBytes);
    connect(m_monitor, &RedisClient::messagesReceived, this, &MonitorCapture::onMessages);
    connect(m_monitor, &RedisClient::connectionError, this,
            [this](const RedisError &e) { finishCapture(End::Failed, e.message); });
    connect(m_monitor, &RedisClient::stateChanged, this, [this](RedisClient::State state, const QString &detail) {
        // A MONITOR does not survive a reconnect: the capture ends with what it has.
        if (state == RedisClient::State::Backoff || state == RedisClient::State::Disconnected)
            finishCapture(End::Failed, detail.isEmpty() ? tr("the connection was lost") : detail);
    });
    connect(m_monitor, &RedisClient::ready, this, [this] {
        if (m_state != State::Starting)
            return;
        m_monitor->send(RedisCommand{"MONITOR"}, m_context, [this](const RedisReply &r) {
            const RedisError e = r.ok() ? RedisError::fromReply(r.value()) : r.error;
            if (e.kind == RedisError::Kind::NoPerm) {
                finishCapture(End::Refused, tr("this user may not run MONITOR (ACL +monitor)"));
                return;
            }
            if (e.kind == RedisError::Kind::ReadOnlyRefused) {
                finishCapture(End::Refused, e.message);
                return;
            }
            if (e) {
                finishCapture(End::Failed, e.message);
                return;
            }
            if (m_state != State::Starting)
                return;
            m_clock.start();
            m_timeBound->start(m_maxMs);
            setState(State::Running);
        });
    });
    m_monitor->connectToServer();
}

void MonitorCapture::onMessages(const QList<RedisValue> &messages, qint64 dropped)
{
    if (!isCapturing())
        return;
    // Lines dropped because the window fell behind still count toward the bound.
    m_dropped += qMin<qint64>(dropped, qMax<qint64>(0, m_maxLines - lineCount()));
    for (const RedisValue &m : messages) {
        if (lineCount() >= m_maxLines)
            break;
        m_summary.addLine(m.bytes());
    }
    Q_EMIT progress();
    if (lineCount() >= m_maxLines)
        finishCapture(End::LineBound);
}

void MonitorCapture::stop()
{
    if (isCapturing())
        finishCapture(End::Stopped);
}

void MonitorCapture::finishCapture(End end, const QString &error)
{
    if (!isCapturing())
        return;
    m_elapsedMs = m_clock.isValid() ? m_clock.elapsed() : 0;
    m_timeBound->stop();
    if (m_monitor) {
        // Whatever is still queued for this connection is past the end of the capture.
        disconnect(m_monitor, nullptr, this, nullptr);
        m_monitor->disconnectFromServer();
        m_monitor->deleteLater();
        m_monitor = nullptr;
    }
    m_end = end;
    m_errorText = error;
    if (lineCount() == 0) {
        setState(State::Done);
        Q_EMIT finished(end);
        return;
    }
    setState(State::Finishing);
    nameClients();
}

void MonitorCapture::nameClients()
{
    // Clients are named after the capture too: a connection made during it was not in the first
    // list.
    m_client->send(RedisCommand{"CLIENT", "LIST"}, m_context, [this](const RedisReply &r) {
        if (r.ok() && r.value().isString()) {
            QHash<QByteArray, QByteArray> names;
            QSet<QByteArray> own;
            for (const ClientEntry &c : parseClientList(r.value().bytes())) {
                if (!c.name.isEmpty())
                    names.insert(c.addr, c.name);
                if (clients::isOwn(c))
                    own.insert(c.addr);
            }
            m_summary.setClientNames(names, own);
        }
        readKinds();
    });
}

void MonitorCapture::readKinds()
{
    QList<QByteArray> keys;
    for (const profiler::MonitorSummary::Family &f : m_summary.topFamilies(kKindFamilies))
        if (!f.sampleKey.isEmpty())
            keys.append(f.sampleKey);
    m_kinds->read(keys);
}
