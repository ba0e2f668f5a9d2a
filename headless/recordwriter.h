// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "showrequest.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <memory>

class Output;

// One column of a panel's records. The JSON Schema of each panel (docs/schemas/) names the same
// columns with the same types.
struct Column
{
    enum class Type { Text, Integer, Number, Boolean };
    QByteArray name;
    Type type = Type::Text;
};

// What comes around the records in a json document.
struct ShowDocument
{
    QString panel;
    QString uri; // masked: never a password
    QString time; // ISO 8601, UTC
    QJsonObject coverage; // what was read and what was left out; empty: nothing to say
    QJsonObject subject; // the one key a panel shows (leaderboard, geo); empty otherwise
    QJsonObject details; // a panel's structured view beside its records ("queues"), json only
};

// Writes records in one format. Fields come in column order, one call per field; a panel's
// code says what each value is (text, key bytes, a number) and the format decides how it looks.
class RecordWriter
{
public:
    explicit RecordWriter(Output &out) : m_out(out) { }
    virtual ~RecordWriter() = default;

    virtual void begin(const ShowDocument &document, const QList<Column> &columns) = 0;
    virtual void beginRecord() = 0;
    virtual void endRecord() = 0;
    virtual void end() = 0;

    // UTF-8 text.
    virtual void text(QByteArrayView utf8) = 0;
    void text(const QString &value) { text(QByteArrayView(value.toUtf8())); }
    void text(const char *utf8) { text(QByteArrayView(utf8)); }
    // Key or member bytes: written with redis-cli escapes, as the key browser shows them.
    void bytes(QByteArrayView raw);
    virtual void integer(qint64 value) = 0;
    void number(double value); // NaN and infinities are null
    virtual void boolean(bool value) = 0;
    virtual void null() = 0;

protected:
    virtual void finiteNumber(double value) = 0;

    Output &m_out;
    QByteArray m_scratch; // reused for escapes: no allocation per field
};

std::unique_ptr<RecordWriter> makeRecordWriter(ShowRequest::Format format, Output &out);

namespace showformat {
// Appends bytesescape::escape(raw) as UTF-8, without building a QString.
void appendRedisEscaped(QByteArray &out, QByteArrayView raw);
// Appends a JSON string literal (quotes included) of valid UTF-8.
void appendJsonString(Output &out, QByteArrayView utf8);
} // namespace showformat
