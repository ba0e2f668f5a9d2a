// SPDX-License-Identifier: GPL-3.0-or-later
#include "patterns.h"

#include "librarycatalogue.h"

#include "bytesescape.h"
#include "format.h"
#include "patternrules.h"
#include "queuerules.h"
#include "zsetkind.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <initializer_list>

namespace {

constexpr qint64 kSecond = 1000;
constexpr qint64 kMinute = 60 * kSecond;
constexpr qint64 kHour = 60 * kMinute;
constexpr qint64 kDay = 24 * kHour;

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}
bool isLower(char c)
{
    return c >= 'a' && c <= 'z';
}
bool isUpper(char c)
{
    return c >= 'A' && c <= 'Z';
}
bool isHexChar(char c)
{
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool isDigits(const QByteArray &s)
{
    if (s.isEmpty())
        return false;
    return std::all_of(s.cbegin(), s.cend(), isDigit);
}

int numberAt(const QByteArray &s, qsizetype at, qsizetype len)
{
    const QByteArray part = s.mid(at, len);
    return isDigits(part) && part.size() == len ? part.toInt() : -1;
}

// YYYY-MM-DD, YYYY.MM.DD, YYYYMMDD, YYYY-MM, YYYY-Www, optionally followed by T or a time.
bool isDateSegment(const QByteArray &s)
{
    if (s.size() < 7)
        return false;
    const int year = numberAt(s, 0, 4);
    if (year < 1970 || year > 2100)
        return false;
    const auto validMonth = [](int m) { return m >= 1 && m <= 12; };
    const auto validDay = [](int d) { return d >= 1 && d <= 31; };
    if (s.size() == 8 && isDigits(s))
        return validMonth(numberAt(s, 4, 2)) && validDay(numberAt(s, 6, 2));
    const char sep = s.at(4);
    if (sep != '-' && sep != '.' && sep != '_')
        return false;
    if (s.at(5) == 'W' || s.at(5) == 'w') {
        const int week = numberAt(s, 6, 2);
        return s.size() == 8 && week >= 1 && week <= 53;
    }
    if (!validMonth(numberAt(s, 5, 2)))
        return false;
    if (s.size() == 7)
        return true;
    if (s.at(7) != sep || !validDay(numberAt(s, 8, 2)))
        return false;
    return s.size() == 10 || s.at(10) == 'T' || s.at(10) == ' ' || s.at(10) == '_';
}

bool isUuid(const QByteArray &s)
{
    if (s.size() != 36)
        return false;
    for (int i = 0; i < 36; ++i) {
        const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s.at(i) != '-' : !isHexChar(s.at(i)))
            return false;
    }
    return true;
}

// A short random id (shortid, hashids, a video id: "PPBqWA9", "dQw4w9WgXcQ"): 6 to 15 letters and
// digits, both present, changing between lower case, upper case and digits at least three times.
// Words with a number ("sha256", "user42", "h264") change once or twice, and a segment with a
// separator is a name with parts ("ReportJob-03-17", Sidekiq's histogram of a job class), left to
// the suffix rules.
bool isShortRandomId(const QByteArray &s)
{
    if (s.size() < 6 || s.size() > 15)
        return false;
    bool digit = false, letter = false;
    int changes = 0, previous = -1;
    for (char c : s) {
        int cls;
        if (isDigit(c))
            cls = 0;
        else if (isLower(c))
            cls = 1;
        else if (isUpper(c))
            cls = 2;
        else
            return false;
        digit |= cls == 0;
        letter |= cls != 0;
        changes += previous >= 0 && cls != previous ? 1 : 0;
        previous = cls;
    }
    return digit && letter && changes >= 3;
}

// An id inside a key name: shorter than a token may be (hex from 12 characters, a short random
// id from 6).
bool isIdSegment(const QByteArray &s)
{
    if (patternshape::isRandomToken(s) || isShortRandomId(s))
        return true;
    if (s.size() < 12 || !std::all_of(s.cbegin(), s.cend(), isHexChar))
        return false;
    const bool digit = std::any_of(s.cbegin(), s.cend(), isDigit);
    const bool letter = std::any_of(s.cbegin(), s.cend(), [](char c) { return !isDigit(c); });
    return digit && letter;
}

QString normalizedSegment(const QByteArray &seg)
{
    if (seg.isEmpty())
        return {};
    if (isDateSegment(seg))
        return QStringLiteral("{date}");
    if (isDigits(seg))
        return QStringLiteral("{n}");
    if (isUuid(seg) || isIdSegment(seg))
        return QStringLiteral("{id}");
    // Addresses and version-like numbers: "10.0.0.7", "12-40".
    if (std::all_of(seg.cbegin(), seg.cend(), [](char c) { return isDigit(c) || c == '.' || c == '-'; }))
        return QStringLiteral("{n}");
    qsizetype cut = -1;
    for (qsizetype i = seg.size() - 2; i > 0; --i) {
        const char c = seg.at(i);
        if (c == '-' || c == '_' || c == '.' || c == '#' || c == '@') {
            cut = i;
            break;
        }
    }
    if (cut > 0) {
        const QByteArray tail = seg.mid(cut + 1);
        const QString head = bytesescape::escape(seg.left(cut + 1));
        if (isDigits(tail))
            return head + QStringLiteral("{n}");
        if (isDateSegment(tail))
            return head + QStringLiteral("{date}");
        if (isUuid(tail) || isIdSegment(tail))
            return head + QStringLiteral("{id}");
    }
    return bytesescape::escape(seg);
}

// The words of a name, lower case: "app:product:1001:lock" → app, product, 1001, lock.
QList<QByteArray> wordsOf(const QByteArray &key)
{
    QList<QByteArray> out;
    QByteArray current;
    for (char c : key) {
        if (isDigit(c) || isLower(c) || isUpper(c)) {
            current.append(char(isUpper(c) ? c - 'A' + 'a' : c));
        } else if (!current.isEmpty()) {
            out.append(current);
            current.clear();
        }
    }
    if (!current.isEmpty())
        out.append(current);
    return out;
}

QByteArray wordIn(const QList<QByteArray> &words, std::initializer_list<const char *> hints)
{
    for (const QByteArray &w : words) {
        for (const char *h : hints) {
            if (w == h)
                return w;
        }
    }
    return {};
}

const std::initializer_list<const char *> kLockWords
    = {"lock", "locks", "mutex", "lease", "redlock", "lck", "semaphore"};
const std::initializer_list<const char *> kDedupWords
    = {"seen", "dedup", "dedupe", "deduplication", "processed", "idempotency", "idempotent", "idem", "handled", "once"};
const std::initializer_list<const char *> kRateWords
    = {"rate", "ratelimit", "ratelimiter", "rl", "limit", "limiter", "limits", "throttle", "quota"};
const std::initializer_list<const char *> kSessionWords = {"session", "sessions", "sess", "sid", "sids"};
const std::initializer_list<const char *> kSeqWords = {"seq", "sequence", "nextid", "next"};
const std::initializer_list<const char *> kCounterWords
    = {"stats", "stat", "count", "counter", "counters", "total", "totals", "daily", "views"};
const std::initializer_list<const char *> kTagWords = {"tag", "tags"};

QString ttlText(qint64 pttl)
{
    if (pttl == ttl::kUnknown)
        return QStringLiteral("TTL unknown");
    if (pttl < 0)
        return QStringLiteral("no TTL");
    return QStringLiteral("TTL %1").arg(format::duration(pttl));
}

bool hasTtl(qint64 pttl)
{
    return pttl >= 0;
}

QByteArray trimmedHead(const QByteArray &head)
{
    return head.trimmed();
}

bool looksJsonObject(const QByteArray &head)
{
    const QByteArray t = trimmedHead(head);
    return t.startsWith("{\"") || t == "{}";
}

bool looksJsonArray(const QByteArray &head)
{
    const QByteArray t = trimmedHead(head);
    return t.startsWith('[')
        && (t.size() < 2 || t.at(1) == '"' || t.at(1) == '{' || t.at(1) == ']' || isDigit(t.at(1)) || t.at(1) == '-'
            || t.at(1) == ' ');
}

QString shown(const QByteArray &value, int max = 24)
{
    return bytesescape::escapeElided(value, max);
}

// "1764400000000:17", "1764400000000-3", "1764400000000": a request-time member.
bool isTimeMember(const QByteArray &m, double score)
{
    qsizetype digits = 0;
    while (digits < m.size() && isDigit(m.at(digits)))
        ++digits;
    if (digits < 10 || digits > 13)
        return false;
    if (digits == m.size())
        return true;
    const char sep = m.at(digits);
    if (sep != ':' && sep != '-' && sep != '_' && sep != '.')
        return false;
    Q_UNUSED(score)
    return true;
}

bool isJobMember(const QByteArray &m)
{
    const QByteArray t = m.trimmed();
    if (t.startsWith('{'))
        return true;
    const QList<QByteArray> w = wordsOf(m);
    return !wordIn(w, {"job", "jobs", "task", "tasks"}).isEmpty();
}

// An event id as webhooks and message ids spell them: "wh_123", "evt-9f3a", a uuid, a number.
bool isEventId(const QByteArray &m)
{
    if (isUuid(m) || isDigits(m) || patternshape::isRandomToken(m))
        return true;
    const qsizetype cut = std::max(m.lastIndexOf('_'), m.lastIndexOf('-'));
    if (cut <= 0 || cut == m.size() - 1)
        return false;
    const QByteArray tail = m.mid(cut + 1);
    return isDigits(tail) || isIdSegment(tail);
}

// "app:product:17": printable, at least two ':'-separated parts, no spaces.
bool isKeyShaped(const QByteArray &m)
{
    if (m.count(':') < 1 || m.size() > 200)
        return false;
    for (char c : m) {
        if (c <= ' ' || c == 127)
            return false;
    }
    return !m.startsWith(':') && !m.endsWith(':');
}

} // namespace

// ---- kinds ----------------------------------------------------------------------------------

QString patternKindName(PatternKind kind)
{
    switch (kind) {
    case PatternKind::Unknown: return QStringLiteral("unknown");
    case PatternKind::Lock: return QStringLiteral("lock");
    case PatternKind::FixedWindow: return QStringLiteral("rate limit (fixed window)");
    case PatternKind::SlidingWindow: return QStringLiteral("rate limit (sliding window)");
    case PatternKind::TokenBucket: return QStringLiteral("token bucket");
    case PatternKind::Session: return QStringLiteral("session");
    case PatternKind::SessionIndex: return QStringLiteral("session index");
    case PatternKind::CacheEntry: return QStringLiteral("cache entry");
    case PatternKind::NegativeCache: return QStringLiteral("negative cache marker");
    case PatternKind::CacheTagSet: return QStringLiteral("cache tag set");
    case PatternKind::DedupSet: return QStringLiteral("dedup set");
    case PatternKind::DedupKey: return QStringLiteral("dedup key");
    case PatternKind::Counter: return QStringLiteral("counter");
    case PatternKind::HyperLogLog: return QStringLiteral("HyperLogLog");
    case PatternKind::Leaderboard: return QStringLiteral("leaderboard");
    case PatternKind::GeoSet: return QStringLiteral("geo set");
    case PatternKind::Stream: return QStringLiteral("stream");
    case PatternKind::ListQueue: return QStringLiteral("list queue");
    case PatternKind::ProcessingList: return QStringLiteral("processing list");
    case PatternKind::DelayedJobs: return QStringLiteral("delayed jobs");
    case PatternKind::JobQueue: return QStringLiteral("job queue");
    }
    return QStringLiteral("unknown");
}

QByteArray patternKindId(PatternKind kind)
{
    switch (kind) {
    case PatternKind::Unknown: return "none";
    case PatternKind::Lock: return "lock";
    case PatternKind::FixedWindow: return "fixed-window";
    case PatternKind::SlidingWindow: return "sliding-window";
    case PatternKind::TokenBucket: return "token-bucket";
    case PatternKind::Session: return "session";
    case PatternKind::SessionIndex: return "session-index";
    case PatternKind::CacheEntry: return "cache";
    case PatternKind::NegativeCache: return "negative-cache";
    case PatternKind::CacheTagSet: return "cache-tag";
    case PatternKind::DedupSet: return "dedup-set";
    case PatternKind::DedupKey: return "dedup-key";
    case PatternKind::Counter: return "counter";
    case PatternKind::HyperLogLog: return "hll";
    case PatternKind::Leaderboard: return "leaderboard";
    case PatternKind::GeoSet: return "geo";
    case PatternKind::Stream: return "stream";
    case PatternKind::ListQueue: return "queue";
    case PatternKind::ProcessingList: return "processing";
    case PatternKind::DelayedJobs: return "delayed";
    case PatternKind::JobQueue: return "job-queue";
    }
    return "none";
}

std::optional<PatternKind> patternKindFromId(const QByteArray &id)
{
    for (int i = 0; i < kPatternKindCount; ++i) {
        if (patternKindId(PatternKind(i)) == id)
            return PatternKind(i);
    }
    return std::nullopt;
}

// ---- shapes ---------------------------------------------------------------------------------

namespace {

// normalizedSegment() appended, without its copies for the commonest segments: the index runs
// this for every scanned key.
void appendNormalized(QString &out, const QByteArray &seg)
{
    // Letters only: no date, number, id or suffix, and nothing to escape.
    if (std::all_of(seg.cbegin(), seg.cend(), [](char c) { return isLower(c) || isUpper(c); })) {
        out += QLatin1String(seg.constData(), seg.size());
        return;
    }
    if (seg.size() < 7 && isDigits(seg)) {
        out += QLatin1String("{n}");
        return;
    }
    out += normalizedSegment(seg);
}

} // namespace

QString familyOf(const QByteArray &key)
{
    QString out;
    out.reserve(key.size() + 8);
    const char *data = key.constData();
    const qsizetype n = key.size();
    qsizetype start = 0;
    for (qsizetype i = 0; i < n; ++i) {
        const char c = data[i];
        if (c == ':' || c == '/') {
            appendNormalized(out, QByteArray::fromRawData(data + start, i - start));
            out += QLatin1Char(c);
            start = i + 1;
        }
    }
    appendNormalized(out, QByteArray::fromRawData(data + start, n - start));
    return out;
}

namespace patternshape {

bool isRandomToken(const QByteArray &v)
{
    if (v.size() < 16 || v.size() > 512)
        return false;
    if (isUuid(v))
        return true;
    bool digit = false, lower = false, upper = false, hexOnly = true;
    int changes = 0;
    int previous = -1;
    for (char c : v) {
        int cls;
        if (isDigit(c)) {
            digit = true;
            cls = 0;
        } else if (isLower(c)) {
            lower = true;
            cls = 1;
        } else if (isUpper(c)) {
            upper = true;
            cls = 2;
        } else if (c == '+' || c == '/' || c == '=' || c == '_' || c == '-') {
            cls = 3;
        } else {
            return false;
        }
        if (!isHexChar(c))
            hexOnly = false;
        if (previous >= 0 && cls != previous)
            ++changes;
        previous = cls;
    }
    if (hexOnly)
        return digit && (lower || upper) && !(lower && upper);
    // base64 / base62: all three classes and no long words (a random string switches class
    // about every other character; "MyVariableName2024" does not).
    return digit && lower && upper && changes >= int(v.size() * 40 / 100);
}

bool isInteger(const QByteArray &v, qint64 *out)
{
    const qsizetype start = v.startsWith('-') ? 1 : 0;
    if (v.size() - start < 1 || v.size() - start > 18)
        return false;
    for (qsizetype i = start; i < v.size(); ++i) {
        if (!isDigit(v.at(i)))
            return false;
    }
    if (v.size() - start > 1 && v.at(start) == '0')
        return false; // "007" is a code, not INCR's output
    if (out)
        *out = v.toLongLong();
    return true;
}

bool isExplicitMissingMarker(const QByteArray &value)
{
    const QByteArray t = value.trimmed().toLower();
    if (t == "null" || t == "nil" || t == "none" || t == "__null__" || t == "missing" || t == "not_found"
        || t == "notfound" || t == "\"null\"")
        return true;
    if (!t.startsWith('{') || t.size() > 64)
        return false;
    const QJsonDocument doc = QJsonDocument::fromJson(t);
    if (!doc.isObject())
        return false;
    const QJsonObject o = doc.object();
    if (o.size() > 3)
        return false;
    return o.value(QLatin1String("missing")).toBool() || o.value(QLatin1String("notfound")).toBool()
        || o.value(QLatin1String("not_found")).toBool()
        || (o.contains(QLatin1String("found")) && !o.value(QLatin1String("found")).toBool(true))
        || (o.contains(QLatin1String("exists")) && !o.value(QLatin1String("exists")).toBool(true));
}

bool isMissingMarker(const QByteArray &value)
{
    const QByteArray t = value.trimmed();
    return t.isEmpty() || t == "{}" || t == "[]" || t == "-" || t == "\"\"" || isExplicitMissingMarker(value);
}

bool isEpochBucket(qint64 number, qint64 nowMs)
{
    if (number < 1000)
        return false;
    static const double windows[] = {0.001, 1, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 21600, 43200, 86400};
    for (double w : windows) {
        const double at = double(number) * w * 1000;
        if (at >= double(nowMs - 60 * kDay) && at <= double(nowMs + kDay))
            return true;
    }
    return false;
}

} // namespace patternshape

// ---- the classifier -------------------------------------------------------------------------

bool PatternClassifier::decidedByType(KeyType type)
{
    return type == KeyType::Stream || type == KeyType::Module || type == KeyType::None;
}

std::optional<PatternMatch> PatternClassifier::ruleMatch(const QByteArray &key, KeyType type) const
{
    if (!m_rules)
        return std::nullopt;
    const PatternRule *rule = m_rules->match(key, type);
    if (!rule)
        return std::nullopt;
    PatternMatch m;
    m.key = key;
    m.type = type;
    m.kind = rule->kind;
    m.confidence = 100;
    m.fromRule = true;
    m.params = rule->params;
    m.family = familyOf(key);
    m.reason
        = QStringLiteral("your rule %1 → %2").arg(bytesescape::quoteIfNeeded(rule->glob), patternKindName(rule->kind));
    if (rule->line > 0)
        m.reason += QStringLiteral(" (rules file line %1)").arg(rule->line);
    if (!rule->note.isEmpty())
        m.reason += QStringLiteral(": ") + rule->note;
    return m;
}

namespace {

struct Verdict
{
    PatternKind kind = PatternKind::Unknown;
    int confidence = 0;
    QString reason;
};

Verdict make(PatternKind kind, int confidence, const QString &reason)
{
    return Verdict{kind, confidence, reason};
}

Verdict classifyInteger(const KeySample &s, const PatternContext &c, const QList<QByteArray> &words, qint64 value,
                        qint64 now)
{
    const QString ttl = ttlText(s.pttlMs);
    if (!words.isEmpty() && !wordIn({words.last()}, kSeqWords).isEmpty())
        return make(PatternKind::Counter, 80,
                    QStringLiteral("an integer under a '%1' name: a sequence counter (%2)")
                        .arg(QString::fromLatin1(words.last()), ttl));
    if (const QByteArray w = wordIn(words, kDedupWords); !w.isEmpty())
        return make(PatternKind::DedupKey, hasTtl(s.pttlMs) ? 85 : 70,
                    QStringLiteral("value %1 under a '%2' name, %3: a per-event dedup key%4")
                        .arg(QString::number(value), QString::fromLatin1(w), ttl,
                             hasTtl(s.pttlMs) ? QString() : QStringLiteral(" that never expires")));
    qint64 lastNumber = 0;
    const bool endsInNumber = !words.isEmpty() && patternshape::isInteger(words.last(), &lastNumber);
    const QByteArray rate = wordIn(words, kRateWords);
    if (endsInNumber && patternshape::isEpochBucket(lastNumber, now)) {
        if (hasTtl(s.pttlMs) || !rate.isEmpty() || s.pttlMs == ttl::kUnknown)
            return make(PatternKind::FixedWindow, hasTtl(s.pttlMs) ? 90 : 75,
                        QStringLiteral("counter %1 whose name ends in a time-window number, %2%3")
                            .arg(QString::number(value), ttl,
                                 hasTtl(s.pttlMs)
                                     ? QStringLiteral(": a fixed-window rate limit")
                                     : QStringLiteral(": a window that never expires locks the caller out")));
    }
    if (!rate.isEmpty() && (s.pttlMs == -1 || (hasTtl(s.pttlMs) && s.pttlMs <= kDay)))
        return make(PatternKind::FixedWindow, hasTtl(s.pttlMs) ? 80 : 60,
                    QStringLiteral("counter %1 under a '%2' name, %3")
                        .arg(QString::number(value), QString::fromLatin1(rate), ttl));
    if (c.familyKind == PatternKind::FixedWindow && !hasTtl(s.pttlMs))
        return make(
            PatternKind::FixedWindow, 65,
            QStringLiteral("counter %1 without TTL in a family of fixed-window counters: this caller stays limited")
                .arg(QString::number(value)));
    const QString family = c.family.isEmpty() ? familyOf(s.key) : c.family;
    if (family.endsWith(QLatin1String("{date}")) || !wordIn(words, kCounterWords).isEmpty() || !hasTtl(s.pttlMs))
        return make(PatternKind::Counter, hasTtl(s.pttlMs) ? 65 : 80,
                    QStringLiteral("integer %1, %2: a counter").arg(QString::number(value), ttl));
    const bool idName = family.endsWith(QLatin1String("{n}")) || family.endsWith(QLatin1String("{id}"));
    if (value == 1 && idName)
        return make(PatternKind::DedupKey, 55,
                    QStringLiteral("value 1 with a %1 under a per-event name: a dedup key").arg(ttl));
    if (s.pttlMs <= kHour)
        return make(PatternKind::FixedWindow, 55,
                    QStringLiteral("integer %1 expiring within the hour (%2): a per-window counter")
                        .arg(QString::number(value), ttl));
    return make(PatternKind::Counter, 60, QStringLiteral("integer %1, %2: a counter").arg(QString::number(value), ttl));
}

Verdict classifyString(const KeySample &s, const PatternContext &c, const QList<QByteArray> &words, qint64 now)
{
    const QString ttl = ttlText(s.pttlMs);
    const QByteArray &v = s.head;
    const bool complete = s.elements >= 0 ? v.size() >= s.elements : v.size() < PatternClassifier::kHeadBytes;
    if (v.startsWith("HYLL"))
        return make(PatternKind::HyperLogLog, 99,
                    QStringLiteral("value starts with the HYLL header (PFADD): a HyperLogLog"));

    if (const QByteArray w = wordIn(words, kLockWords); !w.isEmpty()) {
        QString what;
        int conf = 80;
        if (patternshape::isRandomToken(v)) {
            what = QStringLiteral("value is a %1-character token").arg(v.size());
            conf = 95;
        } else {
            what = QStringLiteral("value %1 is not a token (anyone can release it)").arg(shown(v));
            conf = 85;
        }
        return make(PatternKind::Lock, conf,
                    QStringLiteral("%1 and the name has a '%2' segment; %3%4")
                        .arg(what, QString::fromLatin1(w), ttl,
                             s.pttlMs == -1 ? QStringLiteral(": a deadlock waiting to happen") : QString()));
    }

    if (const QByteArray w = wordIn(words, kDedupWords); !w.isEmpty() && v.size() <= 64)
        return make(PatternKind::DedupKey, hasTtl(s.pttlMs) ? 85 : 70,
                    QStringLiteral("small value %1 under a '%2' name, %3: a per-event dedup key")
                        .arg(shown(v), QString::fromLatin1(w), ttl));

    if (complete && patternshape::isMissingMarker(v)) {
        const bool explicitMarker = patternshape::isExplicitMissingMarker(v);
        const bool shortTtl = hasTtl(s.pttlMs) && s.pttlMs <= 10 * kMinute;
        const bool cacheFamily = c.familyKind == PatternKind::CacheEntry || c.familyKind == PatternKind::NegativeCache;
        if (shortTtl || explicitMarker || cacheFamily)
            return make(PatternKind::NegativeCache,
                        shortTtl             ? 92
                            : explicitMarker ? 80
                                             : 65,
                        QStringLiteral("value %1 is a \"missing\" marker, %2%3")
                            .arg(v.isEmpty() ? QStringLiteral("\"\"") : shown(v), ttl,
                                 s.pttlMs == -1 ? QStringLiteral(": the real row never becomes visible") : QString()));
    }

    qint64 value = 0;
    if (complete && patternshape::isInteger(v.trimmed(), &value))
        return classifyInteger(s, c, words, value, now);

    const bool sessionName = !wordIn(words, kSessionWords).isEmpty();
    const QString family = c.family.isEmpty() ? familyOf(s.key) : c.family;
    const bool randomIdName = family.endsWith(QLatin1String("{id}"));
    const bool jsonObject = looksJsonObject(v);
    if (jsonObject && (sessionName || randomIdName)) {
        const bool userField
            = v.contains("\"user_id\"") || v.contains("\"userId\"") || v.contains("\"uid\"") || v.contains("\"user\"");
        if (sessionName || userField)
            return make(PatternKind::Session, sessionName && userField ? 90 : 75,
                        QStringLiteral("JSON %1under a %2 name, %3: a session")
                            .arg(userField ? QStringLiteral("with a user id ") : QString(),
                                 sessionName ? QStringLiteral("session") : QStringLiteral("random-id"), ttl));
    }
    if (sessionName && hasTtl(s.pttlMs) && !patternshape::isRandomToken(v))
        return make(PatternKind::Session, 65, QStringLiteral("value under a session name, %1: a session").arg(ttl));

    if (patternshape::isRandomToken(v) && hasTtl(s.pttlMs) && s.pttlMs <= kHour)
        return make(PatternKind::Lock, 60,
                    QStringLiteral("value is a %1-character random token set with a %2: a lock held by that token")
                        .arg(v.size())
                        .arg(ttl));
    if (patternshape::isRandomToken(v) && c.familyKind == PatternKind::Lock)
        return make(PatternKind::Lock, 70,
                    QStringLiteral("value is a random token like its family's locks, %1%2")
                        .arg(ttl, s.pttlMs == -1 ? QStringLiteral(": a deadlock waiting to happen") : QString()));

    if (jsonObject || looksJsonArray(v)) {
        const QString what = jsonObject ? QStringLiteral("JSON object") : QStringLiteral("JSON array");
        if (hasTtl(s.pttlMs))
            return make(
                PatternKind::CacheEntry, c.familySize >= 3 ? 90 : 80,
                QStringLiteral("%1 with a %2%3: a cache entry")
                    .arg(what, ttl,
                         c.familySize >= 3
                             ? QStringLiteral(" in a family of %1 keys").arg(format::count(quint64(c.familySize)))
                             : QString()));
        if (c.familyKind == PatternKind::CacheEntry)
            return make(
                PatternKind::CacheEntry, 75,
                QStringLiteral("%1 without TTL in a cache family: a cache entry whose TTL was forgotten").arg(what));
        if (s.pttlMs == -1)
            return make(
                PatternKind::CacheEntry, 45,
                QStringLiteral("%1 without TTL: a cache entry that never expires (or reference data)").arg(what));
    }
    if (hasTtl(s.pttlMs) && s.pttlMs >= kMinute)
        return make(PatternKind::CacheEntry, 45, QStringLiteral("a value with a %1: a cache entry").arg(ttl));
    return make(PatternKind::Unknown, 20,
                QStringLiteral("a %1 string, %2: no pattern's shape")
                    .arg(format::bytes(s.elements >= 0 ? s.elements : v.size()), ttl));
}

Verdict classifyHash(const KeySample &s, const PatternContext &c, const QList<QByteArray> &words)
{
    const QString ttl = ttlText(s.pttlMs);
    QList<QByteArray> fields;
    for (const QByteArray &f : s.members)
        fields.append(f.toLower());
    const auto has = [&fields](std::initializer_list<const char *> names) -> QByteArray {
        for (const char *n : names) {
            if (fields.contains(QByteArray(n)))
                return n;
        }
        return {};
    };
    if (!has({"tokens"}).isEmpty()) {
        const QByteArray clock
            = has({"last_refill", "last", "ts", "timestamp", "refilled_at", "updated_at", "last_update", "refill"});
        if (!clock.isEmpty())
            return make(PatternKind::TokenBucket, 95,
                        QStringLiteral("hash with fields tokens and %1, %2: a token bucket")
                            .arg(QString::fromLatin1(clock), ttl));
        if (hasTtl(s.pttlMs))
            return make(PatternKind::TokenBucket, 70,
                        QStringLiteral("hash with a tokens field, %1: a token bucket").arg(ttl));
    }
    static const std::initializer_list<const char *> sessionFields
        = {"user_id", "userid",     "uid",     "created_at", "last_seen",  "last_access", "last_active",
           "csrf",    "csrf_token", "expires", "expires_at", "user_agent", "login_at",    "ip"};
    QStringList found;
    for (const char *n : sessionFields) {
        if (fields.contains(QByteArray(n)))
            found.append(QString::fromLatin1(n));
    }
    const bool sessionName = !wordIn(words, kSessionWords).isEmpty();
    const QString family = c.family.isEmpty() ? familyOf(s.key) : c.family;
    const bool randomIdName = family.endsWith(QLatin1String("{id}"));
    const bool userField = !has({"user_id", "userid", "uid"}).isEmpty();
    if ((userField && found.size() >= 2) || found.size() >= 3 || (sessionName && !found.isEmpty())) {
        const int conf = (sessionName || randomIdName) ? 95 : 70;
        return make(PatternKind::Session, conf,
                    QStringLiteral("hash with %1 under a %2 name, %3: a session")
                        .arg(found.mid(0, 3).join(QLatin1String(", ")),
                             sessionName        ? QStringLiteral("session")
                                 : randomIdName ? QStringLiteral("random-id")
                                                : QStringLiteral("plain"),
                             ttl));
    }
    if (sessionName && hasTtl(s.pttlMs))
        return make(PatternKind::Session, 65, QStringLiteral("hash under a session name, %1: a session").arg(ttl));
    if (hasTtl(s.pttlMs) && s.pttlMs >= kMinute && c.familySize >= 3)
        return make(PatternKind::CacheEntry, 45,
                    QStringLiteral("hash with a %1 in a family of %2 keys: a cached object")
                        .arg(ttl, format::count(quint64(c.familySize))));
    return make(PatternKind::Unknown, 20, QStringLiteral("hash, %1: no pattern's fields").arg(ttl));
}

Verdict classifySet(const KeySample &s, const PatternContext &c, const QList<QByteArray> &words)
{
    const QString ttl = ttlText(s.pttlMs);
    const QString size = s.elements >= 0 ? QStringLiteral("%1 members").arg(format::count(quint64(s.elements)))
                                         : QStringLiteral("set");
    if (const QByteArray w = wordIn(words, kDedupWords); !w.isEmpty())
        return make(PatternKind::DedupSet, 90,
                    QStringLiteral("%1 under a '%2' name, %3: a dedup set%4")
                        .arg(size, QString::fromLatin1(w), ttl,
                             s.pttlMs == -1 ? QStringLiteral(" that grows for ever") : QString()));
    const QList<QByteArray> &m = s.members;
    if (m.isEmpty())
        return make(PatternKind::Unknown, 10, QStringLiteral("%1 not sampled").arg(size));
    int tokens = 0, keyShaped = 0, known = 0, sessionKeys = 0, events = 0;
    QString memberFamily;
    for (const QByteArray &member : m) {
        if (patternshape::isRandomToken(member))
            ++tokens;
        if (isEventId(member))
            ++events;
        if (isKeyShaped(member)) {
            ++keyShaped;
            const QString f = familyOf(member);
            if (memberFamily.isEmpty())
                memberFamily = f;
            if ((c.keyKnown && c.keyKnown(member)) || (c.familyKnown && c.familyKnown(f)))
                ++known;
        }
        if (c.keyKnown && (c.keyKnown("session:" + member) || c.keyKnown("sess:" + member)))
            ++sessionKeys;
    }
    const qsizetype n = m.size();
    const bool sessionName = !wordIn(words, kSessionWords).isEmpty();
    if (sessionName && (tokens * 2 >= n || keyShaped * 2 >= n))
        return make(
            PatternKind::SessionIndex, 90,
            QStringLiteral("%1 of session ids under a sessions name, %2: a per-user session index").arg(size, ttl));
    if (sessionKeys * 2 >= n)
        return make(PatternKind::SessionIndex, 80,
                    QStringLiteral("members are ids of existing session keys, %1: a session index").arg(ttl));
    if (keyShaped * 2 >= n && known * 2 >= n)
        return make(
            PatternKind::CacheTagSet, 90,
            QStringLiteral("members are names of existing keys (%1), %2: a cache tag set").arg(memberFamily, ttl));
    if (keyShaped == n)
        return make(
            PatternKind::CacheTagSet, wordIn(words, kTagWords).isEmpty() ? 60 : 75,
            QStringLiteral("members are shaped like key names (%1), %2: a cache tag set").arg(memberFamily, ttl));
    if (events == n && (s.elements >= 1000 || s.pttlMs == -1) && tokens * 2 < n)
        return make(PatternKind::DedupSet, 55, QStringLiteral("%1 of event ids, %2: a dedup set").arg(size, ttl));
    return make(PatternKind::Unknown, 20, QStringLiteral("%1 of plain members, %2").arg(size, ttl));
}

Verdict classifyZSet(const KeySample &s, const QList<QByteArray> &words, qint64 now)
{
    const QString ttl = ttlText(s.pttlMs);
    if (s.scores.isEmpty())
        return make(PatternKind::Unknown, 10, QStringLiteral("sorted set not sampled"));
    QList<std::optional<GeoPoint>> assumed;
    for (double score : s.scores)
        assumed.append(geohash::isValidScore(score) ? std::optional<GeoPoint>(geohash::decodeScore(score))
                                                    : std::nullopt);
    const ZSetKind zk = classifyZSetSample(s.scores, assumed, now);
    double low = s.scores.first(), high = s.scores.first();
    for (double v : s.scores) {
        low = std::min(low, v);
        high = std::max(high, v);
    }
    if (zk == ZSetKind::Geo) {
        const GeoPoint p = geohash::decodeScore(s.scores.first());
        return make(PatternKind::GeoSet, 92,
                    QStringLiteral("scores are 52-bit geohashes (GEOADD) decoding to points such as %1, %2: a geo set")
                        .arg(p.lon, 0, 'f', 2)
                        .arg(p.lat, 0, 'f', 2));
    }
    if (zk == ZSetKind::TimeScheduled) {
        const EpochUnit unit = detectEpochUnit(s.scores, now);
        const qint64 spanMs = dueMsOf(high, unit) - dueMsOf(low, unit);
        const bool allPast = dueMsOf(high, unit) <= now + 2 * kSecond;
        int timeMembers = 0, jobs = 0;
        for (qsizetype i = 0; i < s.members.size(); ++i) {
            if (isTimeMember(s.members.at(i), s.scores.value(i)))
                ++timeMembers;
            if (isJobMember(s.members.at(i)))
                ++jobs;
        }
        const bool memberTimes = !s.members.isEmpty() && timeMembers * 2 > s.members.size();
        const bool rateName = !wordIn(words, kRateWords).isEmpty();
        const bool windowTtl = hasTtl(s.pttlMs) && s.pttlMs <= kDay && spanMs <= std::max(s.pttlMs, kMinute) * 2;
        if (allPast && spanMs <= kDay && (memberTimes || rateName || windowTtl) && jobs * 2 <= s.members.size())
            return make(PatternKind::SlidingWindow, memberTimes ? 95 : 80,
                        QStringLiteral("scores are request times within %1%2, %3: a sliding-window log")
                            .arg(format::duration(spanMs),
                                 memberTimes ? QStringLiteral(", members \"<time>:<seq>\"") : QString(), ttl));
        const QueueClassification qc = QueueRules().classify(s.key, KeyType::ZSet, &s.scores, now);
        if (qc.kind == QueueKind::DelayedJobs)
            return make(PatternKind::DelayedJobs, 90, qc.reason + QStringLiteral(": delayed jobs"));
        if (jobs * 2 > s.members.size())
            return make(PatternKind::DelayedJobs, 60,
                        QStringLiteral("scores are past epoch times and members are jobs: overdue delayed jobs"));
        return make(PatternKind::Unknown, 35,
                    QStringLiteral("scores are past epoch times: a time index, neither a schedule nor a rate limit"));
    }
    if (low == 0 && high == 0)
        return make(PatternKind::Unknown, 35,
                    QStringLiteral("every sampled score is 0: ordered by member name (an index)"));
    return make(PatternKind::Leaderboard, 85,
                QStringLiteral("scores are points (%1 to %2), not times or geohashes, %3: a leaderboard")
                    .arg(low, 0, 'g', 10)
                    .arg(high, 0, 'g', 10)
                    .arg(ttl));
}

Verdict classifyList(const KeySample &s, qint64 now)
{
    const QueueClassification qc = QueueRules().classify(s.key, KeyType::List, nullptr, now);
    if (qc.kind == QueueKind::ProcessingList)
        return make(PatternKind::ProcessingList, 90, qc.reason);
    if (qc.kind == QueueKind::Queue)
        return make(PatternKind::ListQueue, 88, qc.reason);
    int stamped = 0;
    for (const QByteArray &item : s.members) {
        if (itemTimestampMs(item, now) || isJobMember(item))
            ++stamped;
    }
    if (!s.members.isEmpty() && stamped == s.members.size())
        return make(PatternKind::ListQueue, 50,
                    QStringLiteral("list of timestamped or job items without a queue name: a work queue"));
    return make(PatternKind::Unknown, 25, qc.reason);
}

} // namespace

bool PatternClassifier::mayChangeWithSiblings(const KeySample &s) const
{
    const LibraryCatalogue &catalogue = m_catalogue ? *m_catalogue : LibraryCatalogue::builtIn();
    if (catalogue.awaitsSibling(s))
        return true;
    const qsizetype cut = s.key.lastIndexOf(':');
    return cut > 0 && s.type != KeyType::String && LibraryCatalogue::stateRole(s.key.mid(cut + 1)).has_value();
}

PatternMatch PatternClassifier::classify(const KeySample &s, const PatternContext &context) const
{
    if (std::optional<PatternMatch> rule = ruleMatch(s.key, s.type)) {
        rule->pttlMs = s.pttlMs;
        if (!context.family.isEmpty())
            rule->family = context.family;
        return *rule;
    }
    PatternMatch m;
    m.key = s.key;
    m.type = s.type;
    m.pttlMs = s.pttlMs;
    m.family = context.family.isEmpty() ? familyOf(s.key) : context.family;
    PatternContext c = context;
    c.family = m.family;
    const LibraryCatalogue &catalogue = m_catalogue ? *m_catalogue : LibraryCatalogue::builtIn();
    if (std::optional<PatternMatch> lib = catalogue.classify(s, c)) {
        lib->key = m.key;
        lib->type = m.type;
        lib->pttlMs = m.pttlMs;
        lib->family = m.family;
        return *lib;
    }
    const qint64 now = context.nowMs > 0 ? context.nowMs : QDateTime::currentMSecsSinceEpoch();
    const QList<QByteArray> words = wordsOf(s.key);
    Verdict v;
    switch (s.type) {
    case KeyType::Stream:
        v = make(PatternKind::Stream, 99, QStringLiteral("a stream (%1)").arg(ttlText(s.pttlMs)));
        break;
    case KeyType::String:
        v = s.sampled ? classifyString(s, c, words, now)
                      : make(PatternKind::Unknown, 0, QStringLiteral("string not sampled yet"));
        break;
    case KeyType::Hash:
        v = s.sampled ? classifyHash(s, c, words)
                      : make(PatternKind::Unknown, 0, QStringLiteral("hash not sampled yet"));
        break;
    case KeyType::Set:
        v = s.sampled ? classifySet(s, c, words) : make(PatternKind::Unknown, 0, QStringLiteral("set not sampled yet"));
        break;
    case KeyType::ZSet: v = classifyZSet(s, words, now); break;
    case KeyType::List: v = classifyList(s, now); break;
    case KeyType::Module:
        v = make(PatternKind::Unknown, 50, QStringLiteral("a module type: no built-in pattern"));
        break;
    case KeyType::None: v = make(PatternKind::Unknown, 0, QStringLiteral("the key no longer exists")); break;
    case KeyType::Unknown: v = make(PatternKind::Unknown, 0, QStringLiteral("type not known yet")); break;
    }
    m.kind = v.kind;
    m.confidence = v.confidence;
    m.reason = v.reason;
    return m;
}
