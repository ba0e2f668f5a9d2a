// SPDX-License-Identifier: GPL-3.0-or-later
#include "accesscheck.h"

#include "panelneeds.h"
#include "redisclient.h"

#include <QSet>

namespace {

QByteArray callId(const QList<QByteArray> &argv)
{
    return argv.join('\0');
}

// Every distinct call of every panel, once.
QList<QList<QByteArray>> distinctCalls(bool withActions)
{
    QList<QList<QByteArray>> out;
    QSet<QByteArray> seen;
    for (const QString &panel : panelneeds::panels()) {
        for (const panelneeds::Need &n : panelneeds::of(panel)) {
            if ((!withActions && n.kind == panelneeds::Need::Kind::Action)
                || n.kind == panelneeds::Need::Kind::Background)
                continue;
            const QByteArray id = callId(n.argv);
            if (!seen.contains(id)) {
                seen.insert(id);
                out.append(n.argv);
            }
        }
    }
    return out;
}

// A denial that names a key (or a channel): the command is allowed, the sample key is not.
bool namesAKey(const QByteArray &text)
{
    const QByteArray t = text.toLower();
    return t.contains("access a key") || t.contains("'redislens:check") || t.contains("access one of the keys");
}

} // namespace

QString AccessCheck::Panel::summary() const
{
    QStringList parts;
    switch (status) {
    case Status::Available: parts << QStringLiteral("available"); break;
    case Status::Partial: parts << QStringLiteral("available"); break;
    case Status::Unavailable:
        parts << QStringLiteral("unavailable: needs %1").arg(missing.join(QLatin1String(", ")));
        break;
    }
    if (!lost.isEmpty())
        parts << QStringLiteral("without %1").arg(lost.join(QLatin1String("; ")));
    if (keysRestricted)
        parts << QStringLiteral("only the keys this user may read");
    if (!unchecked.isEmpty())
        parts << QStringLiteral("actions not checked (%1)").arg(unchecked.join(QLatin1String(", ")));
    return parts.join(QLatin1String("; "));
}

const AccessCheck::Panel *AccessCheck::Result::panel(const QString &name) const
{
    for (const Panel &p : panels) {
        if (p.name == name)
            return &p;
    }
    return nullptr;
}

AccessCheck::AccessCheck(RedisClient *client, QObject *parent) : QObject(parent), m_client(client)
{ }

void AccessCheck::start()
{
    m_result = Result();
    if (!m_client)
        return fail(QStringLiteral("no connection"));
    m_client->send({"ACL", "WHOAMI"}, this, [this](const RedisReply &r) {
        if (!r.ok())
            return fail(r.error.message);
        const RedisValue &v = r.value();
        if (v.isError()) {
            // Before 6.0 there are no ACLs: whoever connects may send everything.
            if (RedisError::fromReply(v).kind != RedisError::Kind::NoPerm) {
                m_result.method = Method::NoAcl;
                return conclude({}, {}, true);
            }
            onWhoAmI({});
            return;
        }
        onWhoAmI(QString::fromUtf8(v.bytes()));
    });
}

void AccessCheck::onWhoAmI(const QString &user)
{
    m_result.user = user;
    if (user.isEmpty())
        tryReads();
    else
        askDryRun();
}

void AccessCheck::askDryRun()
{
    const QList<QList<QByteArray>> calls = distinctCalls(true);
    QList<RedisCommand> batch;
    for (const QList<QByteArray> &argv : calls)
        batch.append(RedisCommand(QList<QByteArray>{"ACL", "DRYRUN", m_result.user.toUtf8()} + argv));
    m_client->sendBatch(batch, this, [this, calls](const RedisReply &r) {
        if (!r.ok())
            return fail(r.error.message);
        // A user who may not run ACL DRYRUN (or a server before 7.0) is answered with an error
        // for the first call already: the reads are tried instead.
        if (r.values.isEmpty() || r.value(0).isError())
            return tryReads();
        QHash<QByteArray, QString> denied;
        QHash<QByteArray, bool> keyDenied;
        for (qsizetype i = 0; i < calls.size() && i < r.values.size(); ++i) {
            const RedisValue &v = r.value(i);
            const QByteArray &text = v.bytes();
            if (!v.isError() && text == "OK")
                continue;
            if (namesAKey(text))
                keyDenied.insert(callId(calls.at(i)), true);
            else if (!v.isError() || RedisError::fromReply(v).kind == RedisError::Kind::NoPerm)
                denied.insert(callId(calls.at(i)), QString::fromUtf8(text));
            // other errors (a command this server does not have) say nothing about the user
        }
        m_result.method = Method::DryRun;
        conclude(denied, keyDenied, true);
    });
}

void AccessCheck::tryReads()
{
    m_result.method = Method::Trial;
    // Only reads, and only what this connection may send (a read-only connection refuses
    // EVAL): a refusal by the connection's own policy is not the user's.
    const CommandPolicy policy = m_client->policy();
    QList<QList<QByteArray>> calls;
    for (const QList<QByteArray> &argv : distinctCalls(false)) {
        // SCRIPT LOAD leaves a script in the server's cache: not tried.
        if (argv.value(0) == "SCRIPT" || !policy.refusal(argv).isEmpty())
            continue;
        calls.append(argv);
    }
    QList<RedisCommand> batch;
    for (const QList<QByteArray> &argv : calls)
        batch.append(RedisCommand(argv));
    m_client->sendBatch(batch, this, [this, calls](const RedisReply &r) {
        if (!r.ok() && r.error.isConnectionLevel())
            return fail(r.error.message);
        QHash<QByteArray, QString> denied;
        QHash<QByteArray, bool> keyDenied;
        for (qsizetype i = 0; i < calls.size() && i < r.values.size(); ++i) {
            const RedisValue &v = r.value(i);
            if (!v.isError() || RedisError::fromReply(v).kind != RedisError::Kind::NoPerm)
                continue;
            if (namesAKey(v.bytes()))
                keyDenied.insert(callId(calls.at(i)), true);
            else
                denied.insert(callId(calls.at(i)), QString::fromUtf8(v.bytes()));
        }
        conclude(denied, keyDenied, false);
    });
}

void AccessCheck::conclude(const QHash<QByteArray, QString> &denied, const QHash<QByteArray, bool> &keyDenied,
                           bool actionsChecked)
{
    for (const QString &name : panelneeds::panels()) {
        Panel p;
        p.name = name;
        for (const panelneeds::Need &n : panelneeds::of(name)) {
            const QByteArray id = callId(n.argv);
            const QString rule = panelneeds::aclRule(n.argv);
            if (n.kind == panelneeds::Need::Kind::Background)
                continue;
            if (keyDenied.contains(id))
                p.keysRestricted = true;
            if (n.kind == panelneeds::Need::Kind::Action && !actionsChecked) {
                if (!p.unchecked.contains(n.what))
                    p.unchecked.append(n.what);
                continue;
            }
            if (!denied.contains(id))
                continue;
            if (n.kind == panelneeds::Need::Kind::Read) {
                if (!p.missing.contains(rule))
                    p.missing.append(rule);
            } else {
                const QString line = QStringLiteral("%1 (%2)").arg(n.what, rule);
                if (!p.lost.contains(line))
                    p.lost.append(line);
            }
        }
        p.status = !p.missing.isEmpty() ? Status::Unavailable : !p.lost.isEmpty() ? Status::Partial : Status::Available;
        m_result.panels.append(p);
    }
    Q_EMIT finished();
}

void AccessCheck::fail(const QString &error)
{
    m_result.error = error;
    Q_EMIT finished();
}
