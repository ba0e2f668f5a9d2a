// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "connectionprofile.h"

#include <QColor>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <optional>

// A connection the user keeps: where and how to connect, and how the window marks it (name,
// colour, environment tag). It holds no secret: passwords and key passphrases live in the OS
// keychain under 'id', or are asked for each time.
struct SavedConnection
{
    enum class Tag { Local, Staging, Production };

    QString id; // stable across renames: the keychain entries are filed under it
    QColor colour;
    Tag tag = Tag::Local;
    // profile.name is the connection's name, profile.ssh its SSH bastion; no secret in it
    ConnectionProfile profile;

    // The JSON of the settings and of exports: every field but the secrets.
    QJsonObject toJson() const;
    // Fields that are missing take their defaults; a wrong type or value is an error naming it.
    static std::optional<SavedConnection> fromJson(const QJsonObject &o, QString *error);

    static QString tagName(Tag tag); // "local", "staging", "production"
    static std::optional<Tag> tagFromName(const QString &name);
    // Production connections open read-only unless the user says otherwise.
    static bool readOnlyByDefault(Tag tag) { return tag == Tag::Production; }
};
