// SPDX-License-Identifier: GPL-3.0-or-later
#include "redisworker.h"
#include "threadcheck.h"

#include "clustertopology.h"
#include "respcodec.h"
#include "serverinfo.h"
#include "sshtunnel.h"
#include "transport.h"

#include <QRandomGenerator>
#include <QTimer>

namespace {

// Replies a command is answered with: one, or for (un)subscribe one per channel named.
int repliesOwed(const RedisCommand &c, bool *subscribes, bool *monitors)
{
    const QByteArray name = c.first().toUpper();
    const bool sub = name == "SUBSCRIBE" || name == "PSUBSCRIBE" || name == "SSUBSCRIBE";
    const bool unsub = name == "UNSUBSCRIBE" || name == "PUNSUBSCRIBE" || name == "SUNSUBSCRIBE";
    *subscribes = *subscribes || sub;
    *monitors = *monitors || name == "MONITOR";
    return (sub || unsub) && c.size() > 2 ? int(c.size()) - 1 : 1;
}

// A message delivered to a subscribed connection, as opposed to a reply.
bool isPubSubMessage(const RedisValue &v)
{
    if (!v.isArray() || v.elements().size() < 3)
        return false;
    const QByteArray &kind = v.elements().first().bytes();
    return kind == "message" || kind == "pmessage" || kind == "smessage";
}
// A server that refuses a connection answers with an error and closes: its words are the reason.
QString closedSaying(const QString &words)
{
    return QStringLiteral("the server closed the connection saying \"%1\"").arg(words);
}

constexpr int kMaxBackoffMs = 30000;
constexpr int kFirstBackoffMs = 250;
// While the server loads its data, a retry every 0.5-1 s (the backoff's third step) at most.
constexpr int kLoadingAttempt = 2;

// "42% loaded, about 23 s left" from INFO persistence while a server loads; empty when it
// does not say.
QString loadingProgress(const QByteArray &info)
{
    const ServerInfo parsed = ServerInfo::parse(info);
    const QByteArray perc = parsed.value("loading_loaded_perc");
    if (perc.isEmpty())
        return {};
    QString text = QStringLiteral("%1% loaded").arg(perc.toDouble(), 0, 'f', 0);
    bool ok = false;
    const qint64 eta = parsed.value("loading_eta_seconds").toLongLong(&ok);
    if (ok && eta > 0)
        text += QStringLiteral(", about %1 s left").arg(eta);
    return text;
}

// Empty when every command of the batch may be sent, otherwise why not.
QString refusal(const CommandPolicy &policy, const QList<RedisCommand> &commands)
{
    for (const RedisCommand &c : commands) {
        const QString why = policy.refusal(c);
        if (!why.isEmpty())
            return why;
    }
    return {};
}
// Until the server's COMMAND reply is in, a read-only connection holds to the built-in list,
// which covers the handshake (AUTH, SELECT, PING, CLIENT SETNAME, INFO, COMMAND).
CommandPolicy initialPolicy(const ConnectionProfile &profile)
{
    return profile.readOnly ? CommandPolicy::builtinReadOnly() : CommandPolicy();
}
} // namespace

RedisWorker::RedisWorker(const ConnectionProfile &profile, QObject *parent)
    : QObject(parent), m_profile(profile), m_policy(initialPolicy(profile)), m_pushes(std::make_unique<PushQueue>())
{
    m_clock.start();
    holdTunnel();
    loadSeeds();
}

void RedisWorker::loadSeeds()
{
    m_seeds.clear();
    m_seedIndex = 0;
    m_seedsFailed = 0;
    m_seedFailures.clear();
    if (m_profile.clusterSeeds.isEmpty() || m_profile.usesUnixSocket())
        return;
    m_seeds.append({m_profile.host, m_profile.port});
    for (const QString &text : std::as_const(m_profile.clusterSeeds)) {
        cluster::Address a;
        if (cluster::parseAddress(text, &a) && !a.isNull() && !m_seeds.contains(qMakePair(a.host, a.port)))
            m_seeds.append({a.host, a.port});
    }
    if (m_seeds.size() < 2)
        m_seeds.clear();
}

void RedisWorker::nextSeed()
{
    m_seedIndex = (m_seedIndex + 1) % int(m_seeds.size());
    m_profile.host = m_seeds.at(m_seedIndex).first;
    m_profile.port = m_seeds.at(m_seedIndex).second;
    Q_EMIT addressChanged(m_profile.host, m_profile.port);
}

void RedisWorker::holdTunnel()
{
    m_tunnel = m_profile.ssh.enabled() ? SshTunnel::shared(m_profile.ssh, m_profile.connectTimeoutMs) : nullptr;
}

RedisWorker::~RedisWorker() = default;

void RedisWorker::start()
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    m_wanted = true;
    if (!m_timeoutTimer) {
        m_timeoutTimer = new QTimer(this);
        m_timeoutTimer->setSingleShot(true);
        connect(m_timeoutTimer, &QTimer::timeout, this, &RedisWorker::onTimeoutTick);
        m_connectTimer = new QTimer(this);
        m_connectTimer->setSingleShot(true);
        connect(m_connectTimer, &QTimer::timeout, this, [this] {
            onClosed(RedisError::Kind::Timeout,
                     QStringLiteral("no connection within %1 ms").arg(m_profile.connectTimeoutMs));
        });
        m_reconnectTimer = new QTimer(this);
        m_reconnectTimer->setSingleShot(true);
        connect(m_reconnectTimer, &QTimer::timeout, this, &RedisWorker::openTransport);
    }
    if (m_state == State::Disconnected || m_state == State::Backoff)
        openTransport();
}

void RedisWorker::stop()
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    m_wanted = false;
    if (m_reconnectTimer)
        m_reconnectTimer->stop();
    if (m_connectTimer)
        m_connectTimer->stop();
    dropTransport();
    setState(State::Disconnected, QStringLiteral("disconnected"));
    failAll(RedisError::make(RedisError::Kind::NotConnected, QStringLiteral("disconnected")));
}

void RedisWorker::dropTransport()
{
    if (!m_transport)
        return;
    m_transport->disconnect(this);
    m_transport->abort();
    // Later, not now: this may run inside the transport's own readyRead.
    m_transport.release()->deleteLater();
    m_subscribed = false; // a subscription ends with its connection, and so does a MONITOR
    m_monitoring = false;
}

void RedisWorker::reconfigure(const ConnectionProfile &profile)
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    stop();
    m_profile = profile;
    holdTunnel();
    m_lastError = {};
    m_attempt = 0;
    loadSeeds();
    // The old profile's policy does not apply; requests made while connecting are checked
    // against the new one when the handshake has fetched it.
    m_policy = initialPolicy(m_profile);
    start();
}

void RedisWorker::resetReader()
{
    m_reader = std::make_unique<resp::ReplyReader>();
    m_readBuffer.clear();
}

void RedisWorker::openTransport()
{
    dropTransport();
    resetReader();
    m_transport = Transport::create(m_profile);
    connect(m_transport.get(), &Transport::opened, this, &RedisWorker::onOpened);
    connect(m_transport.get(), &Transport::readyRead, this, &RedisWorker::onReadyRead);
    connect(m_transport.get(), &Transport::closed, this, &RedisWorker::onClosed);
    setState(State::Connecting, QStringLiteral("connecting to %1").arg(m_profile.displayName()));
    m_connectTimer->start(m_profile.connectTimeoutMs);
    m_transport->open();
}

void RedisWorker::onOpened()
{
    handshake();
}

void RedisWorker::submitInternal(const QList<RedisCommand> &commands, Done done)
{
    auto p = std::make_unique<Pending>();
    p->id = ++m_internalIds | (quint64(1) << 63);
    p->commands = commands;
    p->done = std::move(done);
    p->internal = true;
    p->timeoutMs = m_profile.connectTimeoutMs;
    write(std::move(p));
}

void RedisWorker::handshake()
{
    // Authentication and database selection must succeed; they go first, in one pipeline.
    QList<RedisCommand> cmds;
    const RedisCommand auth = m_profile.authCommand();
    if (!auth.isEmpty())
        cmds.append(auth);
    if (m_profile.db != 0)
        cmds.append(RedisCommand{"SELECT", QByteArray::number(m_profile.db)});
    cmds.append(RedisCommand{"PING"});
    submitInternal(cmds, [this](const RedisReply &r) { finishHandshake(r); });
}

void RedisWorker::finishHandshake(const RedisReply &reply)
{
    if (!reply.ok() && reply.error.kind != RedisError::Kind::ReadOnlyRefused)
        return; // connection-level: onClosed handles it
    // The replies are, in order: [AUTH] [SELECT] PING.
    const qsizetype selectAt = m_profile.db == 0 ? -1 : (m_profile.authCommand().isEmpty() ? 0 : 1);
    const qsizetype pingAt = reply.values.size() - 1;
    RedisError err = reply.error; // a refusal by the policy is as final as a wrong password
    for (qsizetype i = 0; i < reply.values.size() && !err; ++i) {
        err = RedisError::fromReply(reply.values.at(i));
        // A least-privilege user may lack +ping: the server answered, so the connection works.
        // (NOAUTH on PING still fails: no password was given for a server that needs one.)
        if (i == pingAt && err.kind == RedisError::Kind::NoPerm)
            err = {};
        // A server whose snapshots fail refuses PING with MISCONF (stop-writes-on-bgsave-error)
        // but serves reads: exactly when someone needs to look at it.
        if (i == pingAt && reply.values.at(i).errorCode() == "MISCONF")
            err = {};
        if (err && i == selectAt)
            err.message = QStringLiteral("cannot select database %1: %2").arg(m_profile.db).arg(err.message);
    }
    if (!err) {
        queryServer();
        return;
    }
    // The server is full (maxclients): a slot may free, so try again, quoting it. It closes the
    // connection after this reply, so this is the one place a lone PING's refusal is seen.
    if (err.message.contains(QLatin1String("max number of clients reached"))) {
        onClosed(RedisError::Kind::ConnectionLost, closedSaying(err.message));
        return;
    }
    if (err.kind == RedisError::Kind::Loading) {
        // INFO is served while the data loads: the reason says how far it got, and the retries
        // come every second or so instead of backing off as from a failure.
        submitInternal({RedisCommand{"INFO", "persistence"}}, [this, err](const RedisReply &r) {
            if (!r.ok())
                return; // connection-level: onClosed handles it
            const QString progress = r.value().isError() ? QString() : loadingProgress(r.value().bytes());
            m_attempt = qMin(m_attempt, kLoadingAttempt);
            onClosed(err.kind,
                     progress.isEmpty()
                         ? QStringLiteral("%1 is not ready: %2").arg(m_profile.displayName(), err.message)
                         : QStringLiteral("%1 is loading its data: %2").arg(m_profile.displayName(), progress));
        });
        return;
    }
    if (err.kind == RedisError::Kind::Busy) {
        // The server is up but cannot serve yet (a script runs): retry.
        onClosed(err.kind, QStringLiteral("%1 is not ready: %2").arg(m_profile.displayName(), err.message));
        return;
    }
    // A wrong password or a missing database is not fixed by retrying.
    m_lastError = err;
    m_wanted = false;
    m_connectTimer->stop(); // the server answered; its timeout must not report a second failure
    dropTransport();
    // The state first: a callback that fails here and submits again must see Disconnected.
    setState(State::Disconnected, err.message);
    Q_EMIT connectionError(err);
    failAll(err);
}

void RedisWorker::queryServer()
{
    // Optional facts: a user without +info or +command still gets a working connection.
    QList<RedisCommand> cmds;
    cmds.append(RedisCommand{"CLIENT", "SETNAME", m_profile.clientName.toUtf8()});
    cmds.append(RedisCommand{"INFO", "server"});
    if (m_profile.readOnly)
        cmds.append(RedisCommand{"COMMAND"});
    submitInternal(cmds, [this](const RedisReply &r) {
        if (!r.ok())
            return; // connection-level: onClosed handles it
        ServerFacts facts;
        const RedisValue &info = r.value(1);
        if (info.isString()) {
            for (const QByteArray &line : info.bytes().split('\n')) {
                const QByteArray l = line.trimmed();
                if (l.startsWith("redis_version:"))
                    facts.version = QVersionNumber::fromString(QString::fromLatin1(l.mid(14)));
                else if (l.startsWith("run_id:"))
                    facts.runId = l.mid(7);
                else if (l.startsWith("redis_mode:"))
                    facts.mode = l.mid(11);
            }
        }
        if (m_profile.readOnly) {
            const RedisValue &commands = r.value(2);
            m_policy = commands.isArray() && commands.size() > 0 ? CommandPolicy::fromCommandReply(commands)
                                                                 : CommandPolicy::builtinReadOnly();
        } else {
            m_policy = CommandPolicy();
        }
        facts.policy = m_policy;
        facts.readOnly = m_policy.isReadOnly();
        facts.policyFromServer = m_policy.fromServer();
        m_facts = facts;
        m_attempt = 0;
        m_seedsFailed = 0;
        m_seedFailures.clear();
        // Named so operators can tell RedisLens apart in CLIENT LIST: SETNAME above, and on 7.2+
        // the library fields (an older server would count an unknown subcommand as an error).
        if (facts.version >= QVersionNumber(7, 2)) {
            submitInternal({RedisCommand{"CLIENT", "SETINFO", "LIB-NAME", "redislens"},
                            RedisCommand{"CLIENT", "SETINFO", "LIB-VER", REDISLENS_VERSION}},
                           [](const RedisReply &) {});
        }
        m_connectTimer->stop();
        setState(State::Ready, QStringLiteral("connected to %1").arg(m_profile.displayName()));
        Q_EMIT ready(m_facts);
        // Requests made while connecting were not checked: the policy was not known yet.
        auto waiting = std::move(m_waiting);
        m_waiting.clear();
        for (auto &p : waiting)
            write(std::move(p));
    });
}

void RedisWorker::submit(RequestId id, const QList<RedisCommand> &commands, Done done, int timeoutMs)
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    auto p = std::make_unique<Pending>();
    p->id = id;
    p->commands = commands;
    p->done = std::move(done);
    p->timeoutMs = timeoutMs;
    p->started.start();
    if (commands.isEmpty()) {
        finish(std::move(p));
        return;
    }
    for (const RedisCommand &c : commands) {
        if (c.isEmpty()) {
            finish(std::move(p), RedisError::make(RedisError::Kind::Protocol, QStringLiteral("empty command")));
            return;
        }
    }
    switch (m_state) {
    case State::Ready: write(std::move(p)); break;
    case State::Connecting: m_waiting.push_back(std::move(p)); break;
    case State::Disconnected:
    case State::Backoff: {
        QString why = QStringLiteral("not connected");
        if (m_lastError)
            why += QStringLiteral(" (%1)").arg(m_lastError.message);
        finish(std::move(p), RedisError::make(RedisError::Kind::NotConnected, why));
        break;
    }
    }
}

void RedisWorker::cancel(RequestId id)
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    for (auto it = m_waiting.begin(); it != m_waiting.end(); ++it) {
        if ((*it)->id == id) {
            auto p = std::move(*it);
            m_waiting.erase(it);
            finish(std::move(p), RedisError::make(RedisError::Kind::Cancelled, QStringLiteral("cancelled")));
            return;
        }
    }
}

void RedisWorker::write(std::unique_ptr<Pending> p)
{
    // The one place where commands leave for the server: every request, the handshake's too,
    // passes the policy here.
    const QString why = refusal(m_policy, p->commands);
    if (!why.isEmpty()) {
        finish(std::move(p), RedisError::make(RedisError::Kind::ReadOnlyRefused, why));
        return;
    }
    if (!p->started.isValid())
        p->started.start();
    p->expected = 0;
    p->owed.clear();
    for (const RedisCommand &c : p->commands) {
        const int owed = repliesOwed(c, &m_subscribed, &m_monitoring);
        p->expected += owed;
        p->owed.append(owed);
    }
    const QByteArray wire = resp::formatCommands(p->commands);
    const int timeout = p->timeoutMs > 0 ? p->timeoutMs : m_profile.commandTimeoutMs;
    p->deadlineMs = m_clock.elapsed() + timeout;
    m_transport->write(wire);
    m_commandsWritten.fetch_add(quint64(p->commands.size()), std::memory_order_relaxed);
    p->values.reserve(p->expected); // one allocation for the replies, not a regrowth per reply
    m_inFlight.push_back(std::move(p));
    armTimeout();
}

void RedisWorker::armTimeout()
{
    if (m_inFlight.empty()) {
        m_timeoutTimer->stop();
        return;
    }
    const qint64 left = firstDue().deadlineMs - m_clock.elapsed();
    m_timeoutTimer->start(int(qBound<qint64>(0, left, qint64(std::numeric_limits<int>::max()))));
}

// When the connection gives up, and for which request. Replies come in order, so a request
// cannot be answered before those ahead of it: a user's request with a long timeout (a Lua
// script the console waits an hour for) shelters the polls queued behind it. The connection's
// own requests shelter nothing: on 7.2+ its CLIENT SETINFO (connect timeout) is still in flight
// when the first request is written, and a server that sits on both must not stretch that
// request's timeout to the connect timeout.
RedisWorker::Due RedisWorker::firstDue() const
{
    Due due{std::numeric_limits<qint64>::max(), m_profile.commandTimeoutMs};
    qint64 shelter = std::numeric_limits<qint64>::min();
    for (const auto &p : m_inFlight) {
        const qint64 deadline = qMax(p->deadlineMs, shelter);
        if (deadline < due.deadlineMs)
            due = {deadline, p->timeoutMs > 0 ? p->timeoutMs : m_profile.commandTimeoutMs};
        if (!p->internal)
            shelter = qMax(shelter, p->deadlineMs);
    }
    return due;
}

void RedisWorker::onTimeoutTick()
{
    if (m_inFlight.empty())
        return;
    const Due due = firstDue();
    if (due.deadlineMs - m_clock.elapsed() > 0) {
        armTimeout();
        return;
    }
    // Replies still owed would arrive out of step with later requests: drop the connection,
    // fail what was in flight, and connect again.
    onClosed(RedisError::Kind::Timeout, QStringLiteral("no reply within %1 ms").arg(due.timeoutMs));
}

void RedisWorker::onReadyRead()
{
    if (!m_transport)
        return;
    m_readBuffer.resize(0); // keeps the allocation for the next read
    if (m_transport->readInto(m_readBuffer) <= 0)
        return;
    if (!m_reader->feed(m_readBuffer.constData(), m_readBuffer.size())) {
        onClosed(RedisError::Kind::Protocol, QStringLiteral("protocol error: %1").arg(m_reader->error()));
        return;
    }
    bool progressed = false;
    for (;;) {
        RedisValue value;
        const auto result = m_reader->next(&value);
        if (result == resp::ReplyReader::Result::Error) {
            onClosed(RedisError::Kind::Protocol, QStringLiteral("protocol error: %1").arg(m_reader->error()));
            return;
        }
        if (result == resp::ReplyReader::Result::NeedMore)
            break;
        // A MONITOR's lines are statuses that nothing asked for; its own +OK answers the MONITOR.
        if ((m_subscribed && isPubSubMessage(value))
            || (m_monitoring && m_inFlight.empty() && value.kind() == RedisValue::Kind::Status)) {
            if (m_pushes->push(std::move(value)))
                Q_EMIT messagesPending();
            continue;
        }
        if (m_inFlight.empty()) {
            // RESP2 has no pushes on a normal connection: an unsolicited reply means the stream
            // is out of step, or (an error) the server refusing the connection as it closes it.
            onClosed(RedisError::Kind::Protocol,
                     value.isError() ? QStringLiteral("the server said: %1").arg(QString::fromUtf8(value.bytes()))
                                     : QStringLiteral("unexpected reply from the server"));
            return;
        }
        Pending &head = *m_inFlight.front();
        // A (un)subscribe to several channels owes a reply per channel, but a refusal (an ACL's
        // NOPERM) is one error for the whole command: it answers all of them.
        if (head.commandAt < head.owed.size()) {
            const int owed = head.owed.at(head.commandAt);
            if (value.isError() && head.repliesOfCommand == 0 && owed > 1) {
                head.expected -= owed - 1;
                ++head.commandAt;
            } else if (++head.repliesOfCommand == owed) {
                ++head.commandAt;
                head.repliesOfCommand = 0;
            }
        }
        head.values.append(std::move(value));
        if (head.values.size() == head.expected) {
            auto done = std::move(m_inFlight.front());
            m_inFlight.pop_front();
            finish(std::move(done));
            if (!m_transport)
                return; // a callback stopped the worker
        }
        progressed = true;
    }
    if (progressed)
        armTimeout();
}

void RedisWorker::finish(std::unique_ptr<Pending> p, const RedisError &error)
{
    RedisReply reply;
    reply.id = p->id;
    reply.values = std::move(p->values);
    reply.error = error;
    reply.elapsedUs = p->started.isValid() ? p->started.nsecsElapsed() / 1000 : 0;
    if (p->done)
        p->done(std::move(reply));
    else if (!p->internal)
        Q_EMIT replyReady(reply);
}

void RedisWorker::failAll(const RedisError &error)
{
    // Both taken before any callback runs: what a callback submits is not failed here.
    auto waiting = std::move(m_waiting);
    m_waiting.clear();
    failInFlight(error);
    for (auto &p : waiting)
        finish(std::move(p), error);
    if (m_timeoutTimer)
        m_timeoutTimer->stop();
}

void RedisWorker::failInFlight(const RedisError &error)
{
    auto inFlight = std::move(m_inFlight);
    m_inFlight.clear();
    for (auto &p : inFlight)
        finish(std::move(p), error);
}

void RedisWorker::onClosed(RedisError::Kind kind, const QString &givenReason)
{
    dropTransport();
    m_connectTimer->stop();
    const bool wasReady = m_state == State::Ready;
    // A server that refuses a connection (maxclients, protected mode) answers the first
    // command with an error and closes before the rest: its words are the reason.
    QString reason = givenReason;
    if (!wasReady && kind == RedisError::Kind::ConnectionLost && !m_inFlight.empty()
        && !m_inFlight.front()->values.isEmpty() && m_inFlight.front()->values.first().isError())
        reason = closedSaying(QString::fromUtf8(m_inFlight.front()->values.first().bytes()));
    QString message;
    switch (kind) {
    case RedisError::Kind::ConnectionRefused:
        message = QStringLiteral("cannot connect to %1: %2").arg(m_profile.displayName(), reason);
        break;
    case RedisError::Kind::Timeout:
        message = wasReady ? QStringLiteral("timeout: %1").arg(reason)
                           : QStringLiteral("cannot connect to %1: %2").arg(m_profile.displayName(), reason);
        break;
    case RedisError::Kind::ConnectionLost:
        message = QStringLiteral("connection to %1 lost: %2").arg(m_profile.displayName(), reason);
        break;
    default: message = reason; break;
    }
    if (!m_seeds.isEmpty() && m_wanted) {
        // Another seed may answer: try each once before this counts as a failure.
        m_seedFailures.append(message);
        ++m_seedsFailed;
        nextSeed();
        if (!wasReady && m_seedsFailed < m_seeds.size()) {
            failInFlight(RedisError::make(kind, message));
            setState(State::Backoff, QStringLiteral("%1; trying the seed %2").arg(message, m_profile.displayName()));
            m_reconnectTimer->start(0);
            return;
        }
        if (!wasReady)
            message = QStringLiteral("no seed node answers: %1").arg(m_seedFailures.join(QStringLiteral("; ")));
        else
            message += QStringLiteral(" (next: the seed %1)").arg(m_profile.displayName());
        m_seedsFailed = 0;
        m_seedFailures.clear();
    }
    const RedisError error = RedisError::make(kind, message);
    m_lastError = error;
    // Backoff (or Disconnected) before the failures go out, so that nothing submitted from a
    // failure callback is written to the dead socket or waits for a handshake that never comes.
    scheduleReconnect(message);
    failAll(error);
    Q_EMIT connectionError(error);
}

void RedisWorker::scheduleReconnect(const QString &reason)
{
    if (!m_wanted) {
        setState(State::Disconnected, reason);
        return;
    }
    // Exponential backoff with full jitter around the step, so that many clients that lost
    // the same server do not all come back in the same millisecond.
    const int step = qMin(kMaxBackoffMs, kFirstBackoffMs << qMin(m_attempt, 7));
    const int delay = step / 2 + int(QRandomGenerator::global()->bounded(step / 2 + 1));
    ++m_attempt;
    m_reconnectTimer->start(delay);
    setState(State::Backoff, QStringLiteral("%1; retrying in %2 s").arg(reason).arg(delay / 1000.0, 0, 'f', 1));
}

void RedisWorker::setState(State state, const QString &detail)
{
    m_state = state;
    Q_EMIT stateChanged(state, detail);
}
