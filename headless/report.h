// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "show.h"

struct ConnectionProfile;
struct TriageFacts;
struct TriageResult;

namespace headless {

// `redislens report`: scans as show's scanning panels do (KeyspaceScan, paced, --match, stopping
// after --sample keys), gathers the triage's facts (TriageCollector), applies the rules and
// prints the findings and a summary. Returns 0 when no finding reaches request.failOn, 1 when one
// does (or reading failed), 2 on a connection that cannot be made or a thresholds file that
// cannot be read.
int report(const ReportRequest &request, const ConnectionProfile &profile, Teardown teardown = Teardown::Destroy);

// The report's text in each format, from what was found; 'uri' is already masked.
QByteArray reportJson(const TriageResult &result, const TriageFacts &facts, const QString &uri);
QByteArray reportMarkdown(const TriageResult &result, const TriageFacts &facts, const QString &uri);
QByteArray reportText(const TriageResult &result, const TriageFacts &facts, const QString &uri);

} // namespace headless
