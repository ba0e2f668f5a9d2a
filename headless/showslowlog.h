// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "panelshow.h"
#include "slowlog.h"

class SlowlogModel;
class SlowlogReader;

// `show slowlog`: one poll of the slow log panel's reader into its model, newest entry first.
class ShowSlowlog final : public PanelShow
{
    Q_OBJECT
public:
    explicit ShowSlowlog(const Context &context, QObject *parent = nullptr);

    void start() override;
    QList<Column> columns() const override;
    qsizetype recordCount() const override;
    void writeRecord(RecordWriter &writer, qsizetype row) const override;
    QJsonObject coverage() const override;

private:
    SlowlogReader *m_reader;
    SlowlogModel *m_model;
    SlowlogConfig m_config;
};
