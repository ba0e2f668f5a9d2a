// SPDX-License-Identifier: GPL-3.0-or-later
#include "scriptkiller.h"

#include "respcodec.h"
#include "transport.h"

#include <QTimer>

ScriptKiller::ScriptKiller(const ConnectionProfile &profile, QObject *parent)
    : QObject(parent), m_profile(profile), m_reader(std::make_unique<resp::ReplyReader>()), m_timer(new QTimer(this))
{
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, [this] {
        finish({}, RedisError::make(RedisError::Kind::Timeout, tr("SCRIPT KILL got no answer in time")));
    });
}

ScriptKiller::~ScriptKiller()
{
    if (m_transport)
        m_transport->abort();
}

void ScriptKiller::start()
{
    m_transport = Transport::create(m_profile);
    connect(m_transport.get(), &Transport::opened, this, &ScriptKiller::onOpened);
    connect(m_transport.get(), &Transport::readyRead, this, &ScriptKiller::onReadyRead);
    connect(m_transport.get(), &Transport::closed, this,
            [this](RedisError::Kind kind, const QString &reason) { finish({}, RedisError::make(kind, reason)); });
    m_timer->start(m_profile.connectTimeoutMs + 5000);
    m_transport->open();
}

void ScriptKiller::onOpened()
{
    QList<QList<QByteArray>> commands;
    if (!m_profile.password.isEmpty()) {
        if (m_profile.username.isEmpty())
            commands.append(QList<QByteArray>{"AUTH", m_profile.password.toUtf8()});
        else
            commands.append(QList<QByteArray>{"AUTH", m_profile.username.toUtf8(), m_profile.password.toUtf8()});
    }
    commands.append(QList<QByteArray>{"SCRIPT", "KILL"});
    m_expected = int(commands.size());
    m_transport->write(resp::formatCommands(commands));
}

void ScriptKiller::onReadyRead()
{
    QByteArray bytes;
    m_transport->readInto(bytes);
    if (!m_reader->feed(bytes.constData(), bytes.size())) {
        finish({}, RedisError::make(RedisError::Kind::Protocol, m_reader->error()));
        return;
    }
    RedisValue v;
    while (m_reader->next(&v) == resp::ReplyReader::Result::Reply) {
        m_replies.append(v);
        // A refused AUTH is the answer; SCRIPT KILL then only says NOAUTH.
        if (v.isError() && m_replies.size() < m_expected) {
            finish({}, RedisError::fromReply(v));
            return;
        }
        if (m_replies.size() == m_expected) {
            finish(v, {});
            return;
        }
    }
}

void ScriptKiller::finish(const RedisValue &reply, const RedisError &error)
{
    if (m_done)
        return;
    m_done = true;
    m_timer->stop();
    if (m_transport)
        m_transport->abort();
    Q_EMIT finished(reply, error);
}
