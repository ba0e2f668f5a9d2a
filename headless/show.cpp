// SPDX-License-Identifier: GPL-3.0-or-later
#include "show.h"

#include "clusterrouter.h"
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

OneShot::OneShot(RedisClient &client, const ConnectionProfile &profile, ProgressBar &progress,
                 std::function<void()> start)
    : m_client(client), m_progress(progress), m_loop(std::make_unique<QEventLoop>())
{
    QObject::connect(&client, &RedisClient::ready, m_loop.get(), [this, &profile, start = std::move(start)] {
        if (m_started)
            return;
        m_started = true;
        noteClusterMode(profile);
        start();
    });
    // The window reconnects with backoff; a one-shot command says why it cannot connect, once.
    QObject::connect(&client, &RedisClient::connectionError, m_loop.get(), [this, &profile](const RedisError &e) {
        const QString where = profile.displayName();
        stop(m_started ? 1 : 2,
             m_started ? QStringLiteral("lost the connection to %1: %2").arg(where, e.message)
                       : QStringLiteral("cannot connect to %1: %2").arg(where, e.message));
    });
    if (m_progress.isEnabled())
        m_progress.status(QStringLiteral("connecting to %1…").arg(profile.displayName()));
}

OneShot::~OneShot() = default;

void OneShot::noteClusterMode(const ConnectionProfile &profile)
{
    const QString where = profile.displayName();
    if (ClusterRouter *router = m_client.cluster()) {
        // A node the desktop cannot reach (an address announced inside a container or behind NAT)
        // ends the run with what to do, instead of a scan that waits for it forever.
        QObject::connect(router, &ClusterRouter::nodeError, m_loop.get(),
                         [this](const QString &node, const RedisError &e) {
                             stop(m_started ? 1 : 2,
                                  QStringLiteral("cannot reach cluster node %1: %2 (if the cluster announces "
                                                 "addresses this machine cannot reach, map them with "
                                                 "--cluster-map or use --cluster-keep-host)")
                                      .arg(node, e.message));
                         });
        return;
    }
    if (!m_client.clusterProblem().isEmpty())
        reportError(
            QStringLiteral("note: --cluster: %1; reading %2 as one server").arg(m_client.clusterProblem(), where));
    else if (m_client.facts().mode == "cluster")
        reportError(QStringLiteral("note: %1 is a node of a Redis Cluster and holds only its own slots' keys; add "
                                   "--cluster (-c) to read every node")
                        .arg(where));
}

QObject *OneShot::context() const
{
    return m_loop.get();
}

void OneShot::stop(int code, const QString &message)
{
    if (m_stopped)
        return;
    m_stopped = true;
    m_progress.clear();
    if (!message.isEmpty())
        reportError(message);
    m_code = code;
    m_loop->exit(code);
}

int OneShot::exec()
{
    m_client.connectToServer();
    m_loop->exec();
    return m_code;
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

// The connection to one node of the cluster 'client' is connected to: 'address' as the node
// announces it or as it is reached. Null and why when it is not a cluster or not one of its nodes.
RedisClient *nodeClient(RedisClient &client, const QString &address, QString *why)
{
    ClusterRouter *router = client.cluster();
    if (!router) {
        *why = QStringLiteral("--node: %1 is not a Redis Cluster%2")
                   .arg(client.profile().displayName(),
                        client.clusterProblem().isEmpty() ? QString()
                                                          : QStringLiteral(" (%1)").arg(client.clusterProblem()));
        return nullptr;
    }
    QStringList known;
    for (const cluster::Node &n : router->topology().nodes()) {
        if (n.address.toString() == address || n.announced.toString() == address)
            return router->clientFor(n.address);
        known << n.address.toString();
    }
    *why = QStringLiteral("--node %1 is not a node of this cluster (its nodes: %2)")
               .arg(address, known.join(QStringLiteral(", ")));
    return nullptr;
}

} // namespace

int show(const ShowRequest &request, const ConnectionProfile &profile, Teardown teardown)
{
    const bool bar = request.progress == ShowRequest::Progress::Always
        || (request.progress == ShowRequest::Progress::Auto && ProgressBar::stderrIsTerminal());
    ProgressBar progress(bar);
    auto owned = std::make_unique<RedisClient>(profile);
    RedisClient &client = *owned;
    std::unique_ptr<PanelShow> panel;
    // Made for the connection at once, or with --node once the cluster's map says where it is.
    const auto makePanel = [&](RedisClient *on) {
        panel = PanelShow::make(request.panel, PanelShow::Context{on, &request, &progress});
        return panel != nullptr;
    };
    // --node all: every primary, through the cluster connection itself.
    const bool everyNode = request.node == QLatin1String(ShowRequest::kEveryNode);
    const bool oneNode = !request.node.isEmpty() && !everyNode;
    if (!oneNode && !makePanel(&client)) {
        reportError(QStringLiteral("unknown panel '%1'").arg(request.panel));
        return 2;
    }
    std::unique_ptr<OneShot> run;
    ConnectionProfile shown = profile; // the output's "uri": with --node, the node's
    const auto wire = [&] {
        QObject::connect(panel.get(), &PanelShow::failed, run->context(),
                         [&](const QString &message) { run->stop(1, message); });
        QObject::connect(panel.get(), &PanelShow::finished, run->context(), [&] {
            if (run->isStopped())
                return;
            progress.clear();
            Output out(STDOUT_FILENO);
            writeOutput(request, shown, *panel, out);
            run->stop(0);
        });
    };
    run = std::make_unique<OneShot>(client, profile, progress, [&] {
        if (everyNode && !client.cluster()) {
            run->stop(2,
                      QStringLiteral("--node all: %1 is not a Redis Cluster (add --cluster)")
                          .arg(client.profile().displayName()));
            return;
        }
        if (oneNode) {
            QString why;
            RedisClient *node = nodeClient(client, request.node, &why);
            if (!node) {
                run->stop(2, why);
                return;
            }
            if (!makePanel(node)) {
                run->stop(2, QStringLiteral("unknown panel '%1'").arg(request.panel));
                return;
            }
            shown = node->profile();
            wire();
            if (!node->isReady()) {
                // Panels read once their connection is up: this node's, not the seed's.
                QObject::connect(
                    node, &RedisClient::ready, run->context(), [&] { panel->start(); }, Qt::SingleShotConnection);
                QObject::connect(node, &RedisClient::connectionError, run->context(), [&](const RedisError &e) {
                    run->stop(2, QStringLiteral("cannot connect to the node %1: %2").arg(request.node, e.message));
                });
                return;
            }
        }
        panel->start();
    });
    if (panel)
        wire();
    const int code = run->exec();
    if (teardown == Teardown::LeaveToExit) {
        // Nothing runs an event loop again: the queued signals of the client's thread stay
        // undelivered until the caller ends the process.
        Q_UNUSED(panel.release());
        Q_UNUSED(run.release());
        Q_UNUSED(owned.release());
    }
    return code;
}

} // namespace headless
