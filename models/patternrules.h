// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "patterns.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

// A user's rule: keys matching 'glob' (Redis glob on bytes) of 'type' (Unknown: any type) are
// 'kind'. 'params' carries what structure cannot tell, such as a limiter's "limit".
struct PatternRule
{
    QByteArray glob;
    KeyType type = KeyType::Unknown;
    PatternKind kind = PatternKind::Unknown;
    QVariantMap params;
    QString note;
    int line = 0; // where it starts in the file (0: not from a file)

    bool operator==(const PatternRule &o) const
    {
        return glob == o.glob && type == o.type && kind == o.kind && params == o.params && note == o.note;
    }
};

// The user's rules, ordered, first match wins. They live in one JSON file in the config
// directory (rules.json): {"version": 2, "rules": [{"glob", "type", "kind", "params", "note"}]}.
// Version 1 files (queue kinds only, no params) load unchanged.
class PatternRules
{
public:
    const QList<PatternRule> &rules() const { return m_rules; }
    void setRules(const QList<PatternRule> &rules) { m_rules = rules; }
    // The first rule that matches, or null.
    const PatternRule *match(const QByteArray &key, KeyType type) const;

    // Parses a file's bytes. On an error returns false, leaves 'out' alone and says where:
    // "line 7: unknown kind \"lok\"" / "line 3: JSON error: missing comma".
    static bool parse(const QByteArray &json, QList<PatternRule> *out, QString *error);
    static QByteArray serialize(const QList<PatternRule> &rules);

    // A missing file is not an error (no user rules). On a malformed file the rules stay as
    // they were, the file is not touched, and 'error' names the line.
    bool load(const QString &path, QString *error = nullptr);
    // Refuses to overwrite a file that exists but does not parse (it may be hand-edited work).
    bool save(const QString &path, QString *error = nullptr) const;

private:
    QList<PatternRule> m_rules;
};

// The rules file, watched: an edit on disk (by the rules editor or by hand) is picked up live.
// A file that stops parsing keeps the previous rules and reports where it broke.
class PatternRulesFile : public QObject
{
    Q_OBJECT

public:
    explicit PatternRulesFile(const QString &path, QObject *parent = nullptr);

    QString path() const { return m_path; }
    const PatternRules &rules() const { return m_rules; }
    // Empty while the file parses: "rules.json line 7: unknown kind \"lok\"".
    QString lastError() const { return m_error; }
    // Writes the file (refusing like PatternRules::save) and applies the rules at once.
    bool save(const QList<PatternRule> &rules, QString *error = nullptr);
    void reload();

Q_SIGNALS:
    void rulesChanged(const PatternRules &rules);
    void loadFailed(const QString &message);

private:
    QString m_path;
    PatternRules m_rules;
    QString m_error;
};
