// SPDX-License-Identifier: GPL-3.0-or-later
#include "scriptkiller.h"

#include "respcodec.h"
#include "transport.h"

#include <QTimer>

ScriptKiller::ScriptKiller(const ConnectionProfile &profile, const CommandPolicy &policy,
                           CommandPolicy::Purpose purpose, QObject *parent)
    : QObject(parent),
      m_profile(profile),
      m_policy(policy),
      m_purpose(purpose),
      m_reader(std::make_unique<resp::ReplyReader>()),
      m_timer(new QTimer(this))
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
    const QList<QByteArray> auth = m_profile.authCommand();
    if (!auth.isEmpty())
        m_commands.append(auth);
    m_commands.append(QList<QByteArray>{"SCRIPT", "KILL"});
    for (const QList<QByteArray> &command : std::as_const(m_commands)) {
        const QString why = m_policy.refusal(command, m_purpose);
        if (!why.isEmpty()) {
            // Nothing is opened or sent; the answer still comes later, as it would from the server.
            QTimer::singleShot(0, this,
                               [this, why] { finish({}, RedisError::make(RedisError::Kind::ReadOnlyRefused, why)); });
            return;
        }
    }
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
    m_expected = int(m_commands.size());
    m_transport->write(resp::formatCommands(m_commands));
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
