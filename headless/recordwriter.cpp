// SPDX-License-Identifier: GPL-3.0-or-later
#include "recordwriter.h"

#include "bytesescape.h"
#include "output.h"

#include <QJsonDocument>
#include <cmath>

namespace showformat {

namespace {

const char kHex[] = "0123456789abcdef";

} // namespace

void appendRedisEscaped(QByteArray &out, QByteArrayView raw)
{
    const auto *p = reinterpret_cast<const uchar *>(raw.data());
    const qsizetype n = raw.size();
    qsizetype plainFrom = 0;
    const auto flushPlain = [&](qsizetype to) {
        if (to > plainFrom)
            out.append(reinterpret_cast<const char *>(p + plainFrom), to - plainFrom);
    };
    for (qsizetype i = 0; i < n; ++i) {
        const uchar c = p[i];
        if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"')
            continue;
        const char *named = nullptr;
        switch (c) {
        case '\\': named = "\\\\"; break;
        case '"': named = "\\\""; break;
        case '\n': named = "\\n"; break;
        case '\r': named = "\\r"; break;
        case '\t': named = "\\t"; break;
        case '\a': named = "\\a"; break;
        case '\b': named = "\\b"; break;
        default: break;
        }
        if (!named && c >= 0x80) {
            if (const int len = bytesescape::readableUtf8Length(reinterpret_cast<const char *>(p + i), n - i)) {
                i += len - 1; // part of the plain run
                continue;
            }
        }
        flushPlain(i);
        if (named) {
            out.append(named, 2);
        } else {
            const char hex[4] = {'\\', 'x', kHex[c >> 4], kHex[c & 0xf]};
            out.append(hex, 4);
        }
        plainFrom = i + 1;
    }
    flushPlain(n);
}

void appendJsonString(Output &out, QByteArrayView utf8)
{
    out.append('"');
    const char *p = utf8.data();
    const qsizetype n = utf8.size();
    qsizetype plainFrom = 0;
    for (qsizetype i = 0; i < n; ++i) {
        const auto c = uchar(p[i]);
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        out.append(QByteArrayView(p + plainFrom, i - plainFrom));
        switch (c) {
        case '"': out.append(QByteArrayView("\\\"")); break;
        case '\\': out.append(QByteArrayView("\\\\")); break;
        case '\n': out.append(QByteArrayView("\\n")); break;
        case '\r': out.append(QByteArrayView("\\r")); break;
        case '\t': out.append(QByteArrayView("\\t")); break;
        default: {
            const char u[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xf]};
            out.append(QByteArrayView(u, 6));
        }
        }
        plainFrom = i + 1;
    }
    out.append(QByteArrayView(p + plainFrom, n - plainFrom));
    out.append('"');
}

} // namespace showformat

void RecordWriter::bytes(QByteArrayView raw)
{
    // Most names are printable ASCII without quotes or backslashes: nothing to escape.
    bool plain = true;
    for (const char c : raw) {
        if (uchar(c) < 0x20 || uchar(c) >= 0x7f || c == '\\' || c == '"') {
            plain = false;
            break;
        }
    }
    if (plain) {
        text(raw);
        return;
    }
    m_scratch.resize(0);
    showformat::appendRedisEscaped(m_scratch, raw);
    text(QByteArrayView(m_scratch));
}

void RecordWriter::number(double value)
{
    if (std::isfinite(value))
        finiteNumber(value);
    else
        null();
}

namespace {

// One JSON object per record: the jsonl lines, and the records of the json document.
class JsonRecords : public RecordWriter
{
public:
    using RecordWriter::RecordWriter;

    void begin(const ShowDocument &, const QList<Column> &columns) override
    {
        m_names.clear();
        for (const Column &c : columns) {
            // "name": prepared once, with the comma of every column but the first.
            QByteArray prefix = m_names.isEmpty() ? QByteArray("{\"") : QByteArray(",\"");
            m_names.append(prefix + c.name + "\":");
        }
    }
    void beginRecord() override { m_column = 0; }
    void endRecord() override
    {
        m_out.append(m_column == 0 ? QByteArrayView("{}") : QByteArrayView("}"));
        m_out.append('\n');
    }
    void end() override { }

    void text(QByteArrayView utf8) override
    {
        name();
        showformat::appendJsonString(m_out, utf8);
    }
    using RecordWriter::text;
    void integer(qint64 value) override
    {
        name();
        m_out.appendInteger(value);
    }
    void boolean(bool value) override
    {
        name();
        m_out.append(value ? QByteArrayView("true") : QByteArrayView("false"));
    }
    void null() override
    {
        name();
        m_out.append(QByteArrayView("null"));
    }

protected:
    void finiteNumber(double value) override
    {
        name();
        m_out.appendNumber(value);
    }
    void name()
    {
        Q_ASSERT(m_column < m_names.size());
        m_out.append(QByteArrayView(m_names.at(m_column++)));
    }

    QList<QByteArray> m_names;
    int m_column = 0;
};

class JsonlWriter final : public JsonRecords
{
public:
    using JsonRecords::JsonRecords;
};

// One document: the panel, where, when, what was covered, then the records, one per line.
class JsonWriter final : public JsonRecords
{
public:
    using JsonRecords::JsonRecords;

    void begin(const ShowDocument &document, const QList<Column> &columns) override
    {
        JsonRecords::begin(document, columns);
        QJsonObject head{{QStringLiteral("panel"), document.panel},
                         {QStringLiteral("uri"), document.uri},
                         {QStringLiteral("time"), document.time}};
        if (!document.coverage.isEmpty())
            head.insert(QStringLiteral("coverage"), document.coverage);
        if (!document.subject.isEmpty())
            head.insert(QStringLiteral("subject"), document.subject);
        for (auto it = document.details.constBegin(); it != document.details.constEnd(); ++it)
            head.insert(it.key(), it.value());
        QByteArray text = QJsonDocument(head).toJson(QJsonDocument::Compact);
        text.chop(1); // the closing brace: the records follow
        m_out.append(QByteArrayView(text));
        m_out.append(QByteArrayView(",\"records\":["));
        m_first = true;
    }
    void beginRecord() override
    {
        m_out.append(m_first ? QByteArrayView("\n") : QByteArrayView(",\n"));
        m_first = false;
        JsonRecords::beginRecord();
    }
    void endRecord() override { m_out.append(m_column == 0 ? QByteArrayView("{}") : QByteArrayView("}")); }
    void end() override { m_out.append(QByteArrayView("\n]}\n")); }

private:
    bool m_first = true;
};

// Cells of text: tsv and markdown share the typing and differ in the escapes and separators.
class CellWriter : public RecordWriter
{
public:
    using RecordWriter::RecordWriter;

    void text(QByteArrayView utf8) override
    {
        cellStart();
        escaped(utf8);
    }
    using RecordWriter::text;
    void integer(qint64 value) override
    {
        cellStart();
        m_out.appendInteger(value);
    }
    void boolean(bool value) override
    {
        cellStart();
        m_out.append(value ? QByteArrayView("true") : QByteArrayView("false"));
    }
    void null() override { cellStart(); }

protected:
    void finiteNumber(double value) override
    {
        cellStart();
        m_out.appendNumber(value);
    }
    virtual void cellStart() = 0;
    virtual void escaped(QByteArrayView utf8) = 0;
    int m_column = 0;
};

// A header line of column names, then one line per record; tab, newline, carriage return and
// backslash in a value are written \t \n \r \\, so every record is one line.
class TsvWriter final : public CellWriter
{
public:
    using CellWriter::CellWriter;

    void begin(const ShowDocument &, const QList<Column> &columns) override
    {
        for (qsizetype i = 0; i < columns.size(); ++i) {
            if (i > 0)
                m_out.append('\t');
            m_out.append(QByteArrayView(columns.at(i).name));
        }
        m_out.append('\n');
    }
    void beginRecord() override { m_column = 0; }
    void endRecord() override { m_out.append('\n'); }
    void end() override { }

protected:
    void cellStart() override
    {
        if (m_column++ > 0)
            m_out.append('\t');
    }
    void escaped(QByteArrayView utf8) override
    {
        const char *p = utf8.data();
        qsizetype from = 0;
        for (qsizetype i = 0; i < utf8.size(); ++i) {
            const char c = p[i];
            const char *e = c == '\t' ? "\\t" : c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\\' ? "\\\\" : nullptr;
            if (!e)
                continue;
            m_out.append(QByteArrayView(p + from, i - from));
            m_out.append(QByteArrayView(e, 2));
            from = i + 1;
        }
        m_out.append(QByteArrayView(p + from, utf8.size() - from));
    }
};

// A GitHub-flavoured table: '|' in a value is written \|, a line break <br>.
class MarkdownWriter final : public CellWriter
{
public:
    using CellWriter::CellWriter;

    void begin(const ShowDocument &, const QList<Column> &columns) override
    {
        m_out.append('|');
        for (const Column &c : columns) {
            m_out.append(' ');
            m_out.append(QByteArrayView(c.name));
            m_out.append(QByteArrayView(" |"));
        }
        m_out.append('\n');
        m_out.append('|');
        for (const Column &c : columns)
            m_out.append(c.type == Column::Type::Text ? QByteArrayView("---|") : QByteArrayView("--:|"));
        m_out.append('\n');
    }
    void beginRecord() override
    {
        m_column = 0;
        m_out.append('|');
    }
    void endRecord() override { m_out.append(QByteArrayView(" |\n")); }
    void end() override { }

protected:
    void cellStart() override
    {
        if (m_column++ > 0)
            m_out.append(QByteArrayView(" |"));
        m_out.append(' ');
    }
    void escaped(QByteArrayView utf8) override
    {
        const char *p = utf8.data();
        qsizetype from = 0;
        for (qsizetype i = 0; i < utf8.size(); ++i) {
            const char c = p[i];
            const char *e = c == '|' ? "\\|" : c == '\n' ? "<br>" : c == '\r' ? "" : nullptr;
            if (!e)
                continue;
            m_out.append(QByteArrayView(p + from, i - from));
            m_out.append(QByteArrayView(e));
            from = i + 1;
        }
        m_out.append(QByteArrayView(p + from, utf8.size() - from));
    }
};

} // namespace

std::unique_ptr<RecordWriter> makeRecordWriter(ShowRequest::Format format, Output &out)
{
    switch (format) {
    case ShowRequest::Format::Json: return std::make_unique<JsonWriter>(out);
    case ShowRequest::Format::Jsonl: return std::make_unique<JsonlWriter>(out);
    case ShowRequest::Format::Tsv: return std::make_unique<TsvWriter>(out);
    case ShowRequest::Format::Markdown: return std::make_unique<MarkdownWriter>(out);
    }
    return nullptr;
}
