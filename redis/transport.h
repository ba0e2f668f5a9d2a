// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rediserror.h"

#include <QObject>
#include <memory>

struct ConnectionProfile;

// How bytes reach the server. The worker speaks RESP through this seam and never learns
// whether it is TCP, a Unix socket or TLS; an SSH tunnel is one more subclass.
// Lives in, and is used from, the worker thread only.
class Transport : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;
    ~Transport() override;

    virtual void open() = 0;
    virtual void abort() = 0;
    virtual void write(const QByteArray &bytes) = 0;
    // Appends whatever has arrived to 'into'; returns the number of bytes read.
    virtual qint64 readInto(QByteArray &into) = 0;

    static std::unique_ptr<Transport> create(const ConnectionProfile &profile);

Q_SIGNALS:
    void opened();
    void readyRead();
    // The connection failed to open or was lost; kind is ConnectionRefused or ConnectionLost.
    void closed(RedisError::Kind kind, const QString &reason);
};
