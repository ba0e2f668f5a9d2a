// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clientsreader.h"
#include "panelshow.h"

// `show clients`: the server's connections grouped (--group-by name, lib, addr, user, db or cmd;
// name by default), one record a group, with "hints" (a connection per request, a pool far larger
// than its use, connections without a name, maxclients) and "churn" beside them in json. Two
// readings a second apart give the connection rate.
class ShowClients final : public PanelShow
{
    Q_OBJECT
public:
    static constexpr int kIntervalMs = 1000;

    explicit ShowClients(const Context &context, QObject *parent = nullptr);
    void start() override;
    QList<Column> columns() const override;
    qsizetype recordCount() const override { return m_groups.size(); }
    void writeRecord(RecordWriter &writer, qsizetype row) const override;
    QJsonObject coverage() const override;
    QJsonObject details() const override;

private:
    ClientsReader *m_reader;
    ClientsReading m_reading;
    QList<clients::Group> m_groups;
    clients::GroupBy m_by = clients::GroupBy::Name;
    int m_readings = 0;
};
