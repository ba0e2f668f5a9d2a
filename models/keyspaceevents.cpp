// SPDX-License-Identifier: GPL-3.0-or-later
#include "keyspaceevents.h"

#include <QCoreApplication>

namespace keyspaceevents {
namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("keyspaceevents", text);
}

struct Letter
{
    char letter;
    quint32 cls;
};
// Redis's own order (keyspaceEventsFlagsToString): classes, then the channels, then the rest.
constexpr Letter kClassLetters[] = {
    {'g', Generic}, {'$', String}, {'l', List},   {'s', Set}, {'h', Hash},        {'z', ZSet},        {'x', Expired},
    {'e', Evicted}, {'t', Stream}, {'d', Module}, {'n', New}, {'o', Overwritten}, {'c', TypeChanged},
};
// Creations of these types are seen by their own commands' events, or by 'n' for all of them.
constexpr quint32 kTypeClasses = List | Set | Hash | ZSet | Stream;

QString letterText(char letter)
{
    switch (letter) {
    case 'K': return tr("Keyspace channel: each event on __keyspace@<db>__:<key>, its name as the message");
    case 'E': return tr("Keyevent channel: each event on __keyevent@<db>__:<event>, the key as the message");
    case 'A': return tr("All of g$lshzxetd: every class but n and m");
    case 'g': return tr("Generic commands: DEL, EXPIRE, PERSIST, RENAME, COPY, RESTORE, MOVE…");
    case '$': return tr("String commands: SET, INCR, APPEND, SETRANGE…");
    case 'l': return tr("List commands: LPUSH, LPOP, LSET, LTRIM…");
    case 's': return tr("Set commands: SADD, SREM, SPOP…");
    case 'h': return tr("Hash commands: HSET, HDEL, HINCRBY…");
    case 'z': return tr("Sorted set commands: ZADD, ZREM, ZINCRBY, GEOADD…");
    case 'x': return tr("Expired: a key removed because its TTL ran out");
    case 'e': return tr("Evicted: a key removed to stay under maxmemory");
    case 't': return tr("Stream commands: XADD, XDEL, XTRIM, XGROUP…");
    case 'd': return tr("Module key types: events of the types a module adds");
    case 'n': return tr("New keys: every key added (Redis 7.0+; not part of A)");
    case 'm': return tr("Key misses: a read of a key that does not exist (not part of A; costly on busy servers)");
    case 'o': return tr("Overwritten: a key's value replaced whole (Redis 8; not part of A)");
    case 'c': return tr("Type changed: a key replaced by one of another type (Redis 8; not part of A)");
    case 'S':
    case 'T':
    case 'I':
    case 'V': return tr("Subkey notifications (Redis 8.8+): hash fields and the like, on channels of their own");
    default: return tr("Not a class this version of RedisLens knows");
    }
}

} // namespace

quint32 parseClasses(const QByteArray &value, QByteArray *unknown)
{
    quint32 classes = 0;
    for (const char c : value) {
        switch (c) {
        case 'K': classes |= Keyspace; break;
        case 'E': classes |= Keyevent; break;
        case 'A': classes |= kAll; break;
        case 'm': classes |= KeyMiss; break;
        case 'S':
        case 'T':
        case 'I':
        case 'V': classes |= Subkey; break;
        default: {
            bool known = false;
            for (const Letter &l : kClassLetters) {
                if (l.letter == c) {
                    classes |= l.cls;
                    known = true;
                }
            }
            if (!known && unknown && !unknown->contains(c))
                unknown->append(c);
        }
        }
    }
    return classes;
}

QByteArray formatClasses(quint32 classes)
{
    QByteArray out;
    if (classes & Keyspace)
        out += 'K';
    if (classes & Keyevent)
        out += 'E';
    const bool all = (classes & kAll) == kAll;
    if (all)
        out += 'A';
    for (const Letter &l : kClassLetters) {
        if ((classes & l.cls) && !(all && (kAll & l.cls)))
            out += l.letter;
    }
    if (classes & KeyMiss)
        out += 'm';
    return out;
}

Setting explain(const QByteArray &value)
{
    Setting s;
    s.value = value;
    s.classes = parseClasses(value, &s.unknownLetters);
    const quint32 c = s.classes;
    const bool channel = c & (Keyspace | Keyevent);
    const quint32 events = c & ~(Keyspace | Keyevent);
    s.publishes = channel && events != 0;
    s.followable = channel && (events & ~(KeyMiss | Subkey)) != 0;

    // What the browser shows of a key is that it exists, its type and its TTL: it must hear of
    // every removal, every new key and every write that can change the type or the TTL.
    struct Need
    {
        QString what;
        QByteArray letters;
    };
    QList<Need> needs;
    if (!channel) {
        needs.append({tr("everything: neither K nor E is set"), "K"});
    } else {
        if (!(c & Generic))
            needs.append({tr("deletions, renames and TTL changes"), "g"});
        if (!(c & Expired))
            needs.append({tr("keys that expire"), "x"});
        if (!(c & Evicted))
            needs.append({tr("keys evicted under maxmemory"), "e"});
        if (!(c & String))
            needs.append({c & New ? tr("a SET over a key (its new type, its TTL cleared)")
                                  : tr("new strings, and a SET over a key (its new type, its TTL cleared)"),
                          "$"});
        if (!(c & New) && (c & kTypeClasses) != kTypeClasses) {
            QStringList types;
            QByteArray letters;
            const struct
            {
                quint32 cls;
                char letter;
                const char *name;
            } typeNames[] = {{List, 'l', "lists"},
                             {Set, 's', "sets"},
                             {Hash, 'h', "hashes"},
                             {ZSet, 'z', "sorted sets"},
                             {Stream, 't', "streams"}};
            for (const auto &t : typeNames) {
                if (!(c & t.cls)) {
                    types.append(tr(t.name));
                    letters += t.letter;
                }
            }
            needs.append({tr("new %1").arg(types.join(QStringLiteral(", "))), letters});
        }
    }
    for (const Need &n : std::as_const(needs)) {
        QStringList letters;
        for (const char l : n.letters)
            letters.append(QString(QLatin1Char(l)));
        s.missing.append(tr("%1 (%2)").arg(n.what, letters.join(QStringLiteral(", "))));
    }
    s.complete = s.followable && needs.isEmpty();

    // The suggestion keeps what is on (another application may listen to it) and adds the rest;
    // the type classes come with d so that the whole reads "A".
    quint32 suggested = c;
    if (!channel)
        suggested |= Keyspace;
    suggested |= Generic | Expired | Evicted | String;
    if (!(c & New) && (c & kTypeClasses) != kTypeClasses)
        suggested |= kTypeClasses | Module;
    s.suggested = formatClasses(suggested);

    const QString shown = value.isEmpty() ? tr("empty") : QStringLiteral("\"%1\"").arg(QString::fromLatin1(value));
    if (!s.publishes)
        s.summary = value.isEmpty() ? tr("Key events are off: the server publishes none")
                                    : tr("Key events are off (%1): %2")
                                          .arg(shown,
                                               channel ? tr("no event class is set, so nothing is published")
                                                       : tr("neither K nor E is set, so nothing is published"));
    else if (!s.followable)
        s.summary = tr("Key events are on (%1) but publish nothing the key browser can use").arg(shown);
    else if (s.complete)
        s.summary = tr("Key events are on (%1): the key browser can follow every change").arg(shown);
    else if (needs.size() == 1)
        s.summary = tr("Key events are partly on (%1): the key browser would miss %2").arg(shown, needs.first().what);
    else
        s.summary = tr("Key events are partly on (%1): the key browser would miss %2, and %3 more")
                        .arg(shown, needs.first().what)
                        .arg(needs.size() - 1);

    const auto add = [&s](char letter, bool on, bool used) { s.flags.append({letter, on, used, letterText(letter)}); };
    add('K', c & Keyspace, true);
    add('E', c & Keyevent, true);
    add('A', (c & kAll) == kAll, true);
    for (const Letter &l : kClassLetters) {
        // The newer classes are listed when they are on: on an older server they do not exist.
        if ((l.cls == Overwritten || l.cls == TypeChanged) && !(c & l.cls))
            continue;
        add(l.letter, c & l.cls, true);
        if (l.cls == New)
            add('m', c & KeyMiss, false);
    }
    for (const char subkey : {'S', 'T', 'I', 'V'}) {
        if (value.contains(subkey))
            add(subkey, true, false);
    }
    for (const char unknown : std::as_const(s.unknownLetters))
        add(unknown, true, false);
    return s;
}

Effect effectOf(const QByteArray &event)
{
    if (event == "del" || event == "expired" || event == "evicted" || event == "rename_from" || event == "move_from")
        return Effect::Removed;
    // Each of these can create the key or give it another type or TTL; "*store" commands
    // (SINTERSTORE, ZRANGESTORE, SORT … STORE) replace their destination whole.
    if (event == "set" || event == "new" || event == "expire" || event == "persist" || event == "rename_to"
        || event == "move_to" || event == "copy_to" || event == "restore" || event == "overwritten"
        || event == "type_changed" || event.endsWith("store"))
        return Effect::Written;
    if (event == "keymiss")
        return Effect::None;
    return Effect::Modified;
}

namespace {

// "__keyspace@12__:" → 12 and the offset after the colon; -1 when 'channel' does not start so.
int parseDb(const QByteArray &channel, const char *prefix, qsizetype *rest)
{
    const qsizetype prefixLength = qsizetype(qstrlen(prefix));
    if (!channel.startsWith(prefix))
        return -1;
    qsizetype i = prefixLength;
    qint64 db = 0;
    while (i < channel.size() && channel.at(i) >= '0' && channel.at(i) <= '9' && i - prefixLength < 9)
        db = db * 10 + (channel.at(i++) - '0');
    if (i == prefixLength || channel.mid(i, 3) != "__:")
        return -1;
    *rest = i + 3;
    return int(db);
}

} // namespace

std::optional<KeyEvent> parseMessage(const RedisValue &message)
{
    if (!message.isArray())
        return std::nullopt;
    const QList<RedisValue> &m = message.elements();
    qsizetype channelAt = -1;
    if (m.size() == 4 && m.at(0).bytes() == "pmessage")
        channelAt = 2;
    else if (m.size() == 3 && m.at(0).bytes() == "message")
        channelAt = 1;
    else
        return std::nullopt;
    const QByteArray &channel = m.at(channelAt).bytes();
    const QByteArray &payload = m.at(channelAt + 1).bytes();
    KeyEvent e;
    qsizetype rest = 0;
    if ((e.db = parseDb(channel, "__keyspace@", &rest)) >= 0) {
        e.key = channel.mid(rest);
        e.event = payload;
    } else if ((e.db = parseDb(channel, "__keyevent@", &rest)) >= 0) {
        e.event = channel.mid(rest);
        e.key = payload;
    } else {
        return std::nullopt;
    }
    if (e.event.isEmpty())
        return std::nullopt;
    return e;
}

QByteArray keyspacePattern(int db, const QByteArray &keyGlob)
{
    return "__keyspace@" + QByteArray::number(db) + "__:" + (keyGlob.isEmpty() ? QByteArray("*") : keyGlob);
}

QByteArray keyeventPattern(int db)
{
    return "__keyevent@" + QByteArray::number(db) + "__:*";
}

void Coalescer::add(const KeyEvent &event)
{
    const Effect next = effectOf(event.event);
    if (next == Effect::None)
        return;
    const auto it = m_at.constFind(event.key);
    if (it == m_at.constEnd()) {
        m_at.insert(event.key, m_changes.size());
        m_changes.append({event.key, event.event, next});
        return;
    }
    KeyChange &c = m_changes[it.value()];
    c.event = event.event;
    if (next == Effect::Removed || next == Effect::Written)
        c.effect = next;
    else if (c.effect == Effect::Removed)
        c.effect = Effect::Written; // gone and back within the interval: read it again
}

ChangeBatch Coalescer::take()
{
    ChangeBatch batch;
    for (KeyChange &c : m_changes) {
        if (c.effect == Effect::Removed)
            batch.removed.append(std::move(c));
        else
            batch.changed.append(std::move(c));
    }
    m_changes.clear();
    m_at.clear();
    return batch;
}

} // namespace keyspaceevents
