// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redisvalue.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <optional>

// Keyspace notifications: what a server's notify-keyspace-events setting publishes, what the
// key browser can follow with it, and the messages it publishes. No I/O: the follower
// (inspect/keyspacefollower.h) reads the setting and subscribes; this reads what came back.
namespace keyspaceevents {

// One class of the setting (CONFIG GET notify-keyspace-events), as Redis reads its letters.
enum Class : quint32 {
    Keyspace = 1u << 0, // K: __keyspace@<db>__:<key>, the event as the message
    Keyevent = 1u << 1, // E: __keyevent@<db>__:<event>, the key as the message
    Generic = 1u << 2, // g
    String = 1u << 3, // $
    List = 1u << 4, // l
    Set = 1u << 5, // s
    Hash = 1u << 6, // h
    ZSet = 1u << 7, // z
    Expired = 1u << 8, // x
    Evicted = 1u << 9, // e
    Stream = 1u << 10, // t
    Module = 1u << 11, // d
    New = 1u << 12, // n (7.0+, not in A)
    KeyMiss = 1u << 13, // m (not in A)
    Overwritten = 1u << 14, // o (Redis 8, not in A)
    TypeChanged = 1u << 15, // c (Redis 8, not in A)
    Subkey = 1u << 16, // S, T, I, V: subkey channels (Redis 8.8)
};
// 'A': g$lshzxetd.
constexpr quint32 kAll = Generic | String | List | Set | Hash | ZSet | Expired | Evicted | Stream | Module;

struct Flag
{
    char letter = 0;
    bool on = false;
    bool used = false; // the key browser reads its events (which it needs: Setting::missing)
    QString text; // what it publishes
};

// A reading of the setting for someone deciding whether the key browser can follow the server.
struct Setting
{
    QByteArray value; // as the server gave it ("AKE": CONFIG GET writes classes in its own order)
    quint32 classes = 0;
    QByteArray unknownLetters; // letters this version of RedisLens does not know
    bool publishes = false; // K or E, and at least one class: something is published
    bool followable = false; // published on a channel, and something the browser uses
    bool complete = false; // every change the browser shows is published
    QStringList missing; // what the browser would miss, one line each
    QString summary; // one line
    QList<Flag> flags; // K E A g $ l s h z x e t d n m, then the others that are on
    QByteArray suggested; // covers the browser and keeps what is on; only suggested
    bool has(quint32 c) const { return (classes & c) == c; }
};
Setting explain(const QByteArray &value);
// The classes of a value, and the letters that are none of them (Redis refuses those).
quint32 parseClasses(const QByteArray &value, QByteArray *unknown = nullptr);
// Classes as letters: K and E first, then A or the classes in Redis's order, then the rest.
QByteArray formatClasses(quint32 classes);

// What an event does to the key, as the browser sees it.
enum class Effect : quint8 {
    None, // nothing about the key changed (a key miss)
    Modified, // its value changed within its type and TTL (HSET, LPUSH, INCR…)
    Written, // it may be new, or have another type or TTL (SET, EXPIRE, RENAME's target…)
    Removed, // it is gone (DEL, expired, evicted, RENAME's source…)
};
Effect effectOf(const QByteArray &event);

// One message of a keyspace or keyevent channel.
struct KeyEvent
{
    int db = -1;
    QByteArray key; // exact bytes: ':' and any other byte are part of it
    QByteArray event; // "set", "del", "expired"…
};
// ["pmessage", pattern, channel, payload] or ["message", channel, payload] on
// __keyspace@<db>__:<key> (the payload is the event) or __keyevent@<db>__:<event> (the payload is
// the key); nullopt for anything else.
std::optional<KeyEvent> parseMessage(const RedisValue &message);
// The channel a key's events are published on, and a PSUBSCRIBE pattern for keys matching a SCAN
// MATCH glob (both globs read alike); the pattern of every event of a database.
QByteArray keyspacePattern(int db, const QByteArray &keyGlob);
QByteArray keyeventPattern(int db);

struct KeyChange
{
    QByteArray key;
    QByteArray event; // the last one seen in the interval
    Effect effect = Effect::None; // the sum of the interval's events (Coalescer)
};

// What changed over one interval, each key once.
struct ChangeBatch
{
    QList<KeyChange> changed; // Written or Modified: created or changed
    QList<KeyChange> removed;
    bool isEmpty() const { return changed.isEmpty() && removed.isEmpty(); }
};

// Collects events per key: a key set, expired and set again in one interval is one change.
class Coalescer
{
public:
    void add(const KeyEvent &event);
    qsizetype size() const { return m_changes.size(); }
    ChangeBatch take(); // in the order the keys first changed

private:
    QHash<QByteArray, qsizetype> m_at; // key → index in m_changes
    QList<KeyChange> m_changes;
};

} // namespace keyspaceevents

Q_DECLARE_METATYPE(keyspaceevents::Setting)
Q_DECLARE_METATYPE(keyspaceevents::ChangeBatch)
