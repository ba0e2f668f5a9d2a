// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rediscommand.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

// One KEYS or ARGV entry as a script's header describes it.
struct ScriptParam
{
    QString name; // "counter", "limit"
    QString example; // "rate:user:42:28881234", "10"
    QString meaning; // "hits allowed per window"
    bool variadic = false; // "member...": this and any further entries (only the last one)
};

// A pattern script and what its header says about it.
struct ScriptInfo
{
    QString name;
    QString fileName;
    QString purpose;
    QList<ScriptParam> keys;
    QList<ScriptParam> argv;
    bool writes = true;
    bool singleSlot = true; // runs on a cluster without a shared {hash tag} for its keys
    QString returns;
    QByteArray source;
    QByteArray sha1; // lower-case hex, what SCRIPT LOAD answers
};
Q_DECLARE_METATYPE(ScriptInfo)

// The scripts shipped under :/lua/. Each starts with an SPDX line and then a header block,
// one "-- field: value" per line, in this order:
//   name, purpose, keys (any number), argv (any number), writes, single-slot, returns
// keys and argv read "ident = example | meaning" ("ident..." for a variadic last entry).
// The header ends at the first line that is not a comment.
class ScriptLibrary
{
public:
    static const ScriptLibrary &instance();

    QList<ScriptInfo> scripts() const { return m_scripts; }
    const ScriptInfo *find(const QString &name) const;
    QStringList names() const;
    // Shipped files whose header did not parse (empty in a good build).
    QStringList errors() const { return m_errors; }

    // Parses one script. On a malformed header returns nullopt and a message naming the file
    // and the line ("fixed_window_limit.lua line 4: ...").
    static std::optional<ScriptInfo> parse(const QString &fileName, const QByteArray &source, QString *error);

    // EVAL (or EVAL_RO, Redis 7+) with the whole source.
    static RedisCommand evalCommand(const ScriptInfo &script, const QList<QByteArray> &keys,
                                    const QList<QByteArray> &args, bool readOnly = false);
    // EVALSHA (or EVALSHA_RO); when the reply is a NOSCRIPT error (isNoScript), send
    // evalCommand() or loadCommand() and try again.
    static RedisCommand evalShaCommand(const ScriptInfo &script, const QList<QByteArray> &keys,
                                       const QList<QByteArray> &args, bool readOnly = false);
    // SCRIPT LOAD; the reply is the script's SHA1.
    static RedisCommand loadCommand(const ScriptInfo &script);
    static bool isNoScript(const RedisValue &reply);

private:
    ScriptLibrary();

    QList<ScriptInfo> m_scripts;
    QStringList m_errors;
};
