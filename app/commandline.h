// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "connectionprofile.h"
#include "showrequest.h"

#include <QStringList>
#include <optional>

// What the command line asked for. Parsing never opens a window: a bad argument is reported
// with one line and exit status 2 by the caller.
struct CommandLine
{
    enum class Action { Run, Help, Version, Show, Check, Report };

    Action action = Action::Run;
    ConnectionProfile profile;
    bool connectGiven = false; // any of -h -p -s or a URI
    bool demo = false;
    bool askPass = false;
    bool askSentinelPassword = false; // --sentinel-askpass
    QString screenshot; // write a PNG and exit
    QString panel = QStringLiteral("keys");
    QString openKey; // escaped key name to open once connected
    QByteArray separator; // empty: from settings
    std::optional<int> scanRate; // unset: from the settings; kAdaptivePacing for 'auto'
    ShowRequest show; // Action::Show: `redislens show PANEL …`
    bool checkJson = false; // Action::Check: `redislens check --format json`
    ReportRequest report; // Action::Report: `redislens report …`
    QString helpText;
    QStringList warnings;

    // 'where' (the demo server's address, say) with the options of this line that do not name
    // a server: --read-only and the timeouts. --demo used to drop them.
    ConnectionProfile applyOptionsTo(ConnectionProfile where) const;

    // 'redisCliAuth' is REDISCLI_AUTH. Returns the parsed line or an error. A line whose first
    // argument is "show" is the headless command, with the window's connection and scan options.
    static std::optional<CommandLine> parse(const QStringList &arguments, QString *error,
                                            const QString &redisCliAuth = {});
    // What is wrong with the TLS files the line names (a --cacert without a certificate, a
    // certificate without its key…), or nothing. Reading them loads Qt's TLS backend, which needs
    // the application object: called once it exists, so a typo is still one line before
    // anything connects.
    QString tlsFilesError() const;
};
