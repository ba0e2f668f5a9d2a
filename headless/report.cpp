// SPDX-License-Identifier: GPL-3.0-or-later
#include "report.h"

#include "connectionprofile.h"
#include "findings.h"
#include "format.h"
#include "keyspacescan.h"
#include "output.h"
#include "patternindex.h"
#include "progressbar.h"
#include "redisclient.h"
#include "triagecollector.h"

#include <QDateTime>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <unistd.h>

namespace headless {

namespace {

constexpr int kEvidenceShown = 20; // markdown and text: per finding; json carries up to 1,000

QString upper(FindingSeverity s)
{
    return findingSeverityName(s).toUpper();
}

// A Markdown table cell: pipes and line breaks would end it.
QString cell(QString text)
{
    text.replace(QLatin1Char('|'), QLatin1String("\\|"));
    text.replace(QLatin1Char('\n'), QLatin1Char(' '));
    return text;
}

QString countsLine(const TriageResult &result)
{
    int n[3] = {0, 0, 0};
    for (const Finding &f : result.findings)
        ++n[int(f.severity)];
    return QStringLiteral("%1 critical, %2 warning, %3 info").arg(n[2]).arg(n[1]).arg(n[0]);
}

} // namespace

QByteArray reportJson(const TriageResult &result, const TriageFacts &facts, const QString &uri)
{
    QJsonArray findings;
    for (const Finding &f : result.findings)
        findings.append(findings::toJson(f));
    QJsonArray notChecked;
    for (const auto &[id, why] : result.notChecked)
        notChecked.append(QJsonObject{{QStringLiteral("id"), id}, {QStringLiteral("why"), why}});
    const QJsonObject doc{
        {QStringLiteral("report"), QStringLiteral("redislens")},
        {QStringLiteral("version"), QStringLiteral(REDISLENS_VERSION)},
        {QStringLiteral("uri"), uri},
        {QStringLiteral("time"), QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)},
        {QStringLiteral("coverage"), result.coverage},
        {QStringLiteral("rules_checked"), result.rulesChecked},
        {QStringLiteral("not_checked"), notChecked},
        {QStringLiteral("reader_errors"), QJsonArray::fromStringList(facts.readerErrors)},
        {QStringLiteral("findings"), findings},
        {QStringLiteral("summary"), findings::summaryJson(facts)},
    };
    return QJsonDocument(doc).toJson(QJsonDocument::Indented);
}

QByteArray reportMarkdown(const TriageResult &result, const TriageFacts &facts, const QString &uri)
{
    QString md;
    md += QStringLiteral("# RedisLens report: %1\n\n").arg(uri);
    md += QStringLiteral("%1; %2 rules checked; %3.\n\n")
              .arg(result.coverage)
              .arg(result.rulesChecked)
              .arg(countsLine(result));
    if (result.findings.isEmpty()) {
        md += QStringLiteral("Nothing found.\n\n");
    } else {
        md += QStringLiteral("| severity | rule | finding | affected |\n|---|---|---|---|\n");
        for (const Finding &f : result.findings)
            md += QStringLiteral("| %1 | `%2` | %3 | %4 |\n")
                      .arg(findingSeverityName(f.severity), f.id, cell(f.title), format::count(quint64(f.affected)));
        md += QLatin1Char('\n');
        for (const Finding &f : result.findings) {
            md += QStringLiteral("## %1: %2\n\n").arg(findingSeverityName(f.severity), cell(f.title));
            md += QStringLiteral("`%1`, %2. %3\n\n").arg(f.id, f.coverage, f.hint);
            for (const auto &[name, value] : f.figures)
                md += QStringLiteral("- %1: %2\n").arg(name, value);
            for (qsizetype i = 0; i < f.evidence.size() && i < kEvidenceShown; ++i)
                md += QStringLiteral("- `%1`: %2\n").arg(f.evidence.at(i).subject, f.evidence.at(i).detail);
            if (f.evidence.size() > kEvidenceShown)
                md += QStringLiteral("- … and %1 more (the json format lists them)\n")
                          .arg(f.evidence.size() - kEvidenceShown);
            md += QLatin1Char('\n');
        }
    }
    if (!result.notChecked.isEmpty()) {
        md += QStringLiteral("## Not checked\n\n");
        for (const auto &[id, why] : result.notChecked)
            md += QStringLiteral("- `%1`: %2\n").arg(id, why);
        md += QLatin1Char('\n');
    }
    const QJsonObject summary = findings::summaryJson(facts);
    md += QStringLiteral("## Summary\n\n");
    const auto pairs = [](const QJsonObject &o) {
        QStringList parts;
        for (auto it = o.begin(); it != o.end(); ++it)
            parts << QStringLiteral("%1 %2").arg(
                it.key(),
                it.value().isString() ? it.value().toString() : QString::number(it.value().toDouble(), 'g', 15));
        return parts.join(QStringLiteral(", "));
    };
    md += QStringLiteral("- keys by type: %1\n").arg(pairs(summary.value(QStringLiteral("keys_by_type")).toObject()));
    md += QStringLiteral("- keys by pattern: %1\n")
              .arg(pairs(summary.value(QStringLiteral("keys_by_kind")).toObject()));
    md += QStringLiteral("- TTL: %1\n").arg(pairs(summary.value(QStringLiteral("ttl_histogram")).toObject()));
    md += QStringLiteral("- server: %1\n").arg(pairs(summary.value(QStringLiteral("server")).toObject()));
    return md.toUtf8();
}

QByteArray reportText(const TriageResult &result, const TriageFacts &facts, const QString &uri)
{
    Q_UNUSED(facts);
    QString t;
    t += QStringLiteral("RedisLens report: %1\n%2; %3 rules checked; %4.\n")
             .arg(uri, result.coverage)
             .arg(result.rulesChecked)
             .arg(countsLine(result));
    if (result.findings.isEmpty())
        t += QStringLiteral("Nothing found.\n");
    for (const Finding &f : result.findings) {
        t += QStringLiteral("\n%1 %2: %3\n").arg(upper(f.severity), -8).arg(f.id, f.title);
        for (qsizetype i = 0; i < f.evidence.size() && i < kEvidenceShown; ++i)
            t += QStringLiteral("    %1  %2\n").arg(f.evidence.at(i).subject, f.evidence.at(i).detail);
        if (f.evidence.size() > kEvidenceShown)
            t += QStringLiteral("    … and %1 more\n").arg(f.evidence.size() - kEvidenceShown);
        t += QStringLiteral("    (%1) %2\n").arg(f.coverage, f.hint);
    }
    if (!result.notChecked.isEmpty()) {
        t += QStringLiteral("\nNot checked:\n");
        for (const auto &[id, why] : result.notChecked)
            t += QStringLiteral("    %1: %2\n").arg(id, why);
    }
    return t.toUtf8();
}

int report(const ReportRequest &request, const ConnectionProfile &profile, Teardown teardown)
{
    TriageThresholds thresholds;
    QString thresholdsFile = request.thresholdsFile;
    if (thresholdsFile.isEmpty() && QFileInfo::exists(TriageThresholds::userFile()))
        thresholdsFile = TriageThresholds::userFile();
    if (!thresholdsFile.isEmpty()) {
        if (const QString why = thresholds.load(thresholdsFile); !why.isEmpty()) {
            reportError(QStringLiteral("report: thresholds: ") + why);
            return 2;
        }
    }
    const ShowRequest &scanRequest = request.scan;
    const bool bar = scanRequest.progress == ShowRequest::Progress::Always
        || (scanRequest.progress == ShowRequest::Progress::Auto && ProgressBar::stderrIsTerminal());
    ProgressBar progress(bar);
    auto owned = std::make_unique<RedisClient>(profile);
    RedisClient &client = *owned;
    auto scan = std::make_unique<KeyspaceScan>(&client, scanRequest, &progress,
                                               KeyspaceScan::Options{true, false, request.sample});
    auto collector = std::make_unique<TriageCollector>(&client);

    // INFO before the scan: the rates (errors, evictions) then span the whole run, and the
    // collection needs no second read a second later.
    ServerInfo atStart;
    OneShot run(client, profile, progress, [&] {
        client.send({"INFO", "everything"}, run.context(), [&](const RedisReply &reply) {
            if (reply.value(0).isString())
                atStart = ServerInfo::parse(reply.value(0).bytes(), QDateTime::currentMSecsSinceEpoch());
            scan->start();
        });
    });
    QObject::connect(scan.get(), &KeyspaceScan::failed, run.context(),
                     [&](const QString &message) { run.stop(1, message); });
    QObject::connect(scan.get(), &KeyspaceScan::done, run.context(), [&] {
        KeyspaceCoverage coverage;
        coverage.scanned = true;
        coverage.examined = qint64(scan->distinctKeys());
        coverage.total = scan->progress().dbsize;
        // A sample that reached every key is the whole keyspace.
        coverage.sampled = scan->stoppedEarly() && (coverage.total < 0 || coverage.examined < coverage.total);
        coverage.complete = !coverage.sampled;
        if (bar)
            progress.status(QStringLiteral("reading the patterns of %1 keys…").arg(coverage.examined));
        collector->collect(scan->index(), coverage, atStart);
    });
    QObject::connect(collector.get(), &TriageCollector::step, run.context(), [&](const QString &what) {
        if (bar)
            progress.status(what);
    });
    QObject::connect(collector.get(), &TriageCollector::collected, run.context(), [&](const TriageFacts &facts) {
        if (run.isStopped())
            return;
        progress.clear();
        const TriageResult result = evaluateTriage(facts, thresholds, request.only, request.exclude);
        const QString uri = ConnectionProfile::maskedUri(profile.toUri());
        QByteArray text;
        switch (request.format) {
        case ReportRequest::Format::Json: text = reportJson(result, facts, uri); break;
        case ReportRequest::Format::Markdown: text = reportMarkdown(result, facts, uri); break;
        case ReportRequest::Format::Text: text = reportText(result, facts, uri); break;
        }
        Output out(STDOUT_FILENO);
        out.append(text);
        out.flush();
        const bool failing = std::any_of(result.findings.cbegin(), result.findings.cend(),
                                         [&](const Finding &f) { return int(f.severity) >= request.failOn; });
        run.stop(failing ? 1 : 0);
    });
    const int code = run.exec();
    if (teardown == Teardown::LeaveToExit) {
        Q_UNUSED(collector.release());
        Q_UNUSED(scan.release());
        Q_UNUSED(owned.release());
    }
    return code;
}

} // namespace headless
