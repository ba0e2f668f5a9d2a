// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "decoded.h"
#include "glob.h"
#include "patterns.h"

#include <QAbstractTableModel>
#include <QByteArray>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>
#include <optional>

class QFileSystemWatcher;
class QTimer;

// The rules file's spelling of a type: "any" (KeyType::Unknown), "string", "list", "set",
// "zset", "hash", "stream".
QString patternRuleTypeId(KeyType type);
std::optional<KeyType> patternRuleTypeFromId(const QString &id);
const QList<KeyType> &patternRuleTypes(); // the ones above, "any" first

// A user's rule: keys matching 'glob' (Redis glob on bytes) of 'type' (Unknown: any type) are
// 'kind'. 'params' carries what structure cannot tell, such as a limiter's "limit". 'decode'
// names the steps their values are decoded with ("base64", "gzip", "json"), ahead of detection;
// a rule may decode without classifying (no kind in the file: 'classifies' false).
struct PatternRule
{
    QByteArray glob;
    KeyType type = KeyType::Unknown;
    PatternKind kind = PatternKind::Unknown;
    QVariantMap params;
    QString note;
    int line = 0; // where it starts in the file (0: not from a file)
    QList<decode::Format> decode = {};
    bool classifies = true;

    bool operator==(const PatternRule &o) const
    {
        return glob == o.glob && type == o.type && kind == o.kind && classifies == o.classifies && params == o.params
            && note == o.note && decode == o.decode;
    }
    bool operator!=(const PatternRule &o) const { return !(*this == o); }
};

// The user's rules, ordered, first match wins. They live in one JSON file in the config
// directory (rules.json): {"version": 2, "rules": [{"glob", "type", "kind", "params", "decode",
// "note"}]}.
// Version 1 files (queue kinds only, no params) load unchanged.
class PatternRules
{
public:
    const QList<PatternRule> &rules() const { return m_rules; }
    void setRules(const QList<PatternRule> &rules) { m_rules = rules; }
    bool isEmpty() const { return m_rules.isEmpty(); }
    // The first rule that classifies and matches, or null. A key of unknown type matches only
    // "any" rules.
    const PatternRule *match(const QByteArray &key, KeyType type) const;
    // The first rule that names decoding steps and matches, or null.
    const PatternRule *decodeRule(const QByteArray &key, KeyType type) const;
    // The rule's position (0-based), as "rule 3" in reasons counts from 1; -1 if not ours.
    int indexOf(const PatternRule *rule) const;

    bool operator==(const PatternRules &o) const { return m_rules == o.m_rules; }
    bool operator!=(const PatternRules &o) const { return m_rules != o.m_rules; }

    // Parses a file's bytes. On an error returns false, leaves 'out' alone and says where:
    // "line 7: unknown kind \"lok\"" / "line 3: JSON error: missing comma"; 'errorLine' gets 7.
    static bool parse(const QByteArray &json, QList<PatternRule> *out, QString *error, int *errorLine = nullptr);
    // Version 2, one rule per line, fields in a fixed order: a diff shows what changed.
    static QByteArray serialize(const QList<PatternRule> &rules);

    // Parameters as the editor shows them: "limit=100, window_ms=60000" (names sorted).
    static QString paramsText(const QVariantMap &params);
    // The reverse; numbers become numbers, anything else (optionally in "quotes") a string.
    static std::optional<QVariantMap> paramsFromText(const QString &text, QString *error = nullptr);

    // A missing file is not an error (no user rules). On a malformed file the rules stay as
    // they were, the file is not touched, and 'error' names the line.
    bool load(const QString &path, QString *error = nullptr, int *errorLine = nullptr);
    // Refuses to overwrite a file that exists but does not parse (it may be hand-edited work).
    bool save(const QString &path, QString *error = nullptr) const;

private:
    QList<PatternRule> m_rules;
};

Q_DECLARE_METATYPE(PatternRule)
Q_DECLARE_METATYPE(PatternRules)

// The rules file, watched: an edit on disk (by the rules editor or by hand) is picked up live.
// A file that stops parsing keeps the previous rules and reports where it broke.
class PatternRulesFile : public QObject
{
    Q_OBJECT

public:
    static constexpr int kDebounceMs = 200;

    explicit PatternRulesFile(const QString &path, QObject *parent = nullptr);
    ~PatternRulesFile() override;

    QString path() const { return m_path; }
    const PatternRules &rules() const { return m_rules; }
    // Empty while the file parses: "/home/ann/.config/RedisLens/rules.json line 7: unknown kind \"lok\"".
    QString lastError() const { return m_error; }
    int lastErrorLine() const { return m_errorLine; } // 0: no error, or not tied to a line
    // Writes the file (refusing like PatternRules::save) and applies the rules at once.
    bool save(const QList<PatternRule> &rules, QString *error = nullptr);
    // Reads the file now and always reports the outcome (rulesChanged or loadFailed).
    void reload();

Q_SIGNALS:
    void rulesChanged(const PatternRules &rules);
    void loadFailed(const QString &message);

private:
    void onDiskChanged();
    void read(bool force);
    void watch();

    QString m_path;
    PatternRules m_rules;
    QString m_error;
    int m_errorLine = 0;
    std::optional<QByteArray> m_lastBytes; // what was last read (nullopt: no file)
    QFileSystemWatcher *m_watcher;
    QTimer *m_debounce;
};

// The rules as an editable table: glob (escaped text), type id, kind, params text, decoding
// steps ("base64, gzip, json"), note.
// Edit role gives and takes the file's spellings ("fixed-window", "limit=100").
class PatternRulesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { GlobColumn, TypeColumn, KindColumn, ParamsColumn, DecodeColumn, NoteColumn, ColumnCount };
    // The kind column's edit value of a rule that only decodes (no kind in the file).
    static constexpr char kDecodeOnly[] = "decode-only";
    using QAbstractTableModel::QAbstractTableModel;
    void setRules(const QList<PatternRule> &rules);
    const QList<PatternRule> &rules() const { return m_rules; }
    void addRule(const PatternRule &rule);
    void removeRuleAt(int row);
    void moveRule(int row, int delta); // -1 up, +1 down
    // Why the last setData() was refused ("params: expected name=value").
    QString lastEditError() const { return m_editError; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    void editRefused(const QString &why);

private:
    QList<PatternRule> m_rules;
    QString m_editError;
};
