// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

class RedisClient;

// Which panels the connection's user may use, before they are opened. Asks ACL DRYRUN (Redis
// 7.0+) about every call each panel makes (panelneeds), in one round trip; a user that may not
// run ACL DRYRUN gets trials of the panels' reads instead (actions are never tried: they
// write), and a server without ACLs (before 6.0) allows everything.
class AccessCheck : public QObject
{
    Q_OBJECT
public:
    enum class Status {
        Available,
        Partial, // works; some extras or actions are denied
        Unavailable, // a read it needs is denied
    };
    enum class Method { DryRun, Trial, NoAcl };
    struct Panel
    {
        QString name;
        Status status = Status::Available;
        QStringList missing; // the ACL rules a read needs: "+slowlog|get"
        QStringList lost; // what the panel goes without: "the latency events (+latency|latest)"
        QStringList unchecked; // actions a trial cannot check without writing
        bool keysRestricted = false; // the calls are allowed, some key names are not
        QString summary() const; // one line: "unavailable: needs +slowlog|get"
    };
    struct Result
    {
        QString user; // ACL WHOAMI; empty when unknown
        Method method = Method::DryRun;
        QList<Panel> panels;
        QString error; // the check itself failed (the connection was lost)
        const Panel *panel(const QString &name) const;
    };

    explicit AccessCheck(RedisClient *client, QObject *parent = nullptr);

    void start();
    const Result &result() const { return m_result; }

Q_SIGNALS:
    void finished();

private:
    struct Call;
    void onWhoAmI(const QString &user);
    void askDryRun();
    void tryReads();
    void conclude(const QHash<QByteArray, QString> &denied, const QHash<QByteArray, bool> &keyDenied,
                  bool actionsChecked);
    void fail(const QString &error);

    QPointer<RedisClient> m_client;
    Result m_result;
};
