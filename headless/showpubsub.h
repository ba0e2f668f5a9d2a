// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "panelshow.h"
#include "pubsub.h"

#include <QHash>

class PubSubReader;

// `show pubsub`: the server's channels with their subscriber counts (records; "channels" beside
// them in json), the pattern subscriptions (their count: no command lists the patterns, and the
// clients holding them), and with --table subscribers the pub/sub clients, their output buffers
// against client-output-buffer-limit pubsub and the verdict on the slow ones.
class ShowPubSub final : public PanelShow
{
    Q_OBJECT
public:
    explicit ShowPubSub(const Context &context, QObject *parent = nullptr);
    void start() override;
    QList<Column> columns() const override;
    qsizetype recordCount() const override;
    void writeRecord(RecordWriter &writer, qsizetype row) const override;
    QJsonObject coverage() const override;
    QJsonObject details() const override;

private:
    bool subscribersTable() const;

    PubSubReader *m_reader;
    pubsub::Snapshot m_snapshot;
    QHash<qint64, qsizetype> m_slowAt; // client id → its entry in m_snapshot.slow
};
