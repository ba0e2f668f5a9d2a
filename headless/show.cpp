// SPDX-License-Identifier: GPL-3.0-or-later
#include "show.h"

#include "output.h"
#include "panelshow.h"
#include "progressbar.h"
#include "redisclient.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QEventLoop>
#include <cstdio>
#include <unistd.h>

namespace headless {

void reportError(const QString &message)
{
    // One line, whatever the message held.
    QString line = message;
    line.replace(QLatin1Char('\n'), QLatin1Char(' '));
    std::fprintf(stderr, "redislens: %s\n", line.toLocal8Bit().constData());
    std::fflush(stderr);
}

namespace {

void writeOutput(const ShowRequest &request, const ConnectionProfile &profile, const PanelShow &panel, Output &out)
{
    ShowDocument document;
    document.panel = request.panel;
    document.uri = ConnectionProfile::maskedUri(profile.toUri());
    document.time = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
    document.coverage = panel.coverage();
    document.subject = panel.subject();
    document.details = panel.details();
    const auto writer = makeRecordWriter(request.format, out);
    writer->begin(document, panel.columns());
    qsizetype rows = panel.recordCount();
    if (request.limit >= 0)
        rows = qMin(rows, qsizetype(request.limit));
    for (qsizetype i = 0; i < rows && !out.failed(); ++i) {
        writer->beginRecord();
        panel.writeRecord(*writer, i);
        writer->endRecord();
    }
    writer->end();
    out.flush();
}

} // namespace

int show(const ShowRequest &request, const ConnectionProfile &profile, Teardown teardown)
{
    const bool bar = request.progress == ShowRequest::Progress::Always
        || (request.progress == ShowRequest::Progress::Auto && ProgressBar::stderrIsTerminal());
    ProgressBar progress(bar);
    auto owned = std::make_unique<RedisClient>(profile);
    RedisClient &client = *owned;
    const PanelShow::Context context{&client, &request, &progress};
    std::unique_ptr<PanelShow> panel = PanelShow::make(request.panel, context);
    if (!panel) {
        reportError(QStringLiteral("unknown panel '%1'").arg(request.panel));
        return 2;
    }

    QEventLoop loop;
    int code = 0;
    bool started = false;
    bool stopped = false;
    const auto stop = [&](int exitCode, const QString &message) {
        if (stopped)
            return;
        stopped = true;
        progress.clear();
        if (!message.isEmpty())
            reportError(message);
        code = exitCode;
        loop.exit(exitCode);
    };
    QObject::connect(&client, &RedisClient::ready, panel.get(), [&] {
        if (started)
            return;
        started = true;
        panel->start();
    });
    // The window reconnects with backoff; a one-shot command says why it cannot connect, once.
    QObject::connect(&client, &RedisClient::connectionError, &loop, [&](const RedisError &e) {
        const QString where = profile.displayName();
        stop(started ? 1 : 2,
             started ? QStringLiteral("lost the connection to %1: %2").arg(where, e.message)
                     : QStringLiteral("cannot connect to %1: %2").arg(where, e.message));
    });
    QObject::connect(panel.get(), &PanelShow::failed, &loop, [&](const QString &message) { stop(1, message); });
    QObject::connect(panel.get(), &PanelShow::finished, &loop, [&] {
        if (stopped)
            return;
        stopped = true;
        progress.clear();
        Output out(STDOUT_FILENO);
        writeOutput(request, profile, *panel, out);
        loop.exit(0);
    });
    if (bar)
        progress.status(QStringLiteral("connecting to %1…").arg(profile.displayName()));
    client.connectToServer();
    loop.exec();
    if (teardown == Teardown::LeaveToExit) {
        // Nothing runs an event loop again: the queued signals of the client's thread stay
        // undelivered until the caller ends the process.
        Q_UNUSED(panel.release());
        Q_UNUSED(owned.release());
    }
    return code;
}

} // namespace headless
