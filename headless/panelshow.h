// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "recordwriter.h"

#include <QJsonObject>
#include <QObject>
#include <memory>

class ProgressBar;
class RedisClient;
struct ShowRequest;

// One panel's twin: reads what the panel reads, once, with the panel's readers, into the
// panel's models, then hands out what the models hold as records. It sends no command itself.
class PanelShow : public QObject
{
    Q_OBJECT
public:
    struct Context
    {
        RedisClient *client = nullptr;
        const ShowRequest *request = nullptr;
        ProgressBar *progress = nullptr;
    };

    explicit PanelShow(const Context &context, QObject *parent = nullptr)
        : QObject(parent), m_client(context.client), m_request(*context.request), m_bar(context.progress)
    { }

    // Called once the connection is ready; ends with finished() or failed().
    virtual void start() = 0;
    virtual QList<Column> columns() const = 0;
    virtual qsizetype recordCount() const = 0;
    virtual void writeRecord(RecordWriter &writer, qsizetype row) const = 0;
    // What the records cover (how much was read, what was left out); empty: nothing to say.
    virtual QJsonObject coverage() const { return {}; }
    // The key a one-key panel shows.
    virtual QJsonObject subject() const { return {}; }
    // Fields beside the records in a json document, for a panel whose rows nest ("queues").
    virtual QJsonObject details() const { return {}; }

    // The panels of showpanels::names(); nullptr for another name.
    static std::unique_ptr<PanelShow> make(const QString &panel, const Context &context);

Q_SIGNALS:
    void finished();
    void failed(const QString &message);

protected:
    RedisClient *m_client;
    const ShowRequest &m_request;
    ProgressBar *m_bar;
};
