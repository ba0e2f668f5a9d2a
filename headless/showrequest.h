// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <optional>

// What `redislens show PANEL` was asked for, once the command line parsed it. The connection
// itself travels as a ConnectionProfile beside it.
struct ShowRequest
{
    enum class Format { Json, Jsonl, Tsv, Markdown };
    enum class Progress { Auto, Always, Never }; // Auto: only when stderr is a terminal

    QString panel;
    QByteArray key; // leaderboard, geo and value: the key, unescaped
    QString keyText; // the same, as typed (redis-cli escapes)
    Format format = Format::Json;
    QByteArray match; // SCAN MATCH glob of the scanning panels; empty: every key
    qint64 limit = -1; // at most this many records; -1: all
    QString table; // panels with several tables: which one; empty: the first
    QByteArray stream; // streams: the stream to open (its groups), unescaped; empty: list them
    QString streamText; // the same, as typed
    QByteArray group; // streams --stream: the group to open (consumers, pending entries)
    QString groupText;
    QString jobsState; // queues: list each job queue's jobs in this state; empty: none
    int jobsPage = 0; // queues: the page of those jobs, from 0
    Progress progress = Progress::Auto;
    int scanRate = 0; // commands per second for the scan and the pattern sampling; 0: none
    QByteArray separator = ":"; // namespace separator (memory, ttl)
    QString rulesFile; // the user's pattern rules, as the window reads them; empty: none
    bool demo = false; // the connection is the demo's own server
    // value: "auto" (a rule's steps, else detection), "none", or steps ("base64,gzip,json").
    QString decode = QStringLiteral("auto");
    QString groupBy; // clients: how connections are grouped (clients::groupByIds()); empty: by name
    // A cluster: read only this node ("host:port", as announced or as reached), or with
    // kEveryNode every primary (the overview and the slow log merged).
    QString node;
    static constexpr char kEveryNode[] = "all";
};

// What `redislens report` was asked for. 'scan' carries the options it shares with show's
// scanning panels (--match, the scan rate, the rules file, the progress bar).
struct ReportRequest
{
    enum class Format { Json, Markdown, Text };
    Format format = Format::Json;
    qint64 sample = -1; // --sample N: stop the scan after N keys; -1: a complete scan
    int failOn = 2; // FindingSeverity: exit 1 when a finding is at least this severe (default critical)
    QStringList only, exclude; // rule ids or areas
    QString thresholdsFile; // empty: the user's file when it exists, else the defaults
    ShowRequest scan;
};

namespace showpanels {

// The panels `show` knows, in the window's order.
QStringList names();
// leaderboard and geo show one key, named on the command line.
bool needsKey(const QString &panel);
// Panels that walk the keyspace: --match narrows their scan.
bool scans(const QString &panel);
std::optional<ShowRequest::Format> formatFromName(const QString &name);
QStringList formatNames();

} // namespace showpanels
