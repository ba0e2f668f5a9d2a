// SPDX-License-Identifier: GPL-3.0-or-later
#include "librarycatalogue.h"

#include "bytesescape.h"

#include <QFile>
#include <QHash>
#include <algorithm>

// Outside any namespace, as Q_INIT_RESOURCE requires: the qrc lives in a static library, whose
// resources are registered only when something names them.
static void initCatalogueResource()
{
    Q_INIT_RESOURCE(catalogue);
}

namespace {

QString param(const PatternRule &rule, const char *name)
{
    return rule.params.value(QLatin1String(name)).toString();
}

bool requirementsHold(const PatternRule &rule, const QList<QByteArray> &captures,
                      const std::function<bool(const QByteArray &)> &keyKnown)
{
    const QString required = param(rule, "requires");
    if (required.isEmpty())
        return true;
    if (!keyKnown)
        return false;
    const QStringList alternatives = required.split(QLatin1Char('|'));
    return std::any_of(alternatives.cbegin(), alternatives.cend(), [&](const QString &alternative) {
        return keyKnown(LibraryCatalogue::expand(alternative.trimmed(), captures));
    });
}

// fields: every name is among the sampled fields; field_glob: every sampled field matches it;
// max_fields: the hash has no more fields than that.
bool fieldsHold(const PatternRule &rule, const KeySample &s)
{
    const QString fields = param(rule, "fields");
    const QString fieldGlob = param(rule, "field_glob");
    const QVariant maxFields = rule.params.value(QLatin1String("max_fields"));
    if (fields.isEmpty() && fieldGlob.isEmpty() && !maxFields.isValid())
        return true;
    if (!s.sampled || s.members.isEmpty())
        return false;
    if (maxFields.isValid() && (s.elements < 0 || s.elements > maxFields.toLongLong()))
        return false;
    if (!fieldGlob.isEmpty()) {
        const QByteArray glob = fieldGlob.toUtf8();
        if (!std::all_of(s.members.cbegin(), s.members.cend(),
                         [&](const QByteArray &field) { return globMatch(glob, field); }))
            return false;
    }
    const QStringList names = fields.split(QLatin1Char(','), Qt::SkipEmptyParts);
    return std::all_of(names.cbegin(), names.cend(),
                       [&](const QString &name) { return s.members.contains(name.trimmed().toUtf8()); });
}

// contains (redis-cli escapes allowed): a string's first bytes hold it, or one of a list's
// sampled items does.
bool contentHolds(const PatternRule &rule, const KeySample &s)
{
    const QString contains = param(rule, "contains");
    if (contains.isEmpty())
        return true;
    if (!s.sampled)
        return false;
    const QByteArray needle = bytesescape::unescape(contains).value_or(contains.toUtf8());
    if (s.type != KeyType::String)
        return std::any_of(s.members.cbegin(), s.members.cend(),
                           [&](const QByteArray &item) { return item.contains(needle); });
    return s.head.contains(needle);
}

bool rulesHaveQueue(const PatternRule &rule)
{
    return rule.params.contains(QLatin1String("queue"));
}

} // namespace

const LibraryCatalogue &LibraryCatalogue::builtIn()
{
    static const LibraryCatalogue catalogue = [] {
        initCatalogueResource();
        LibraryCatalogue c;
        QFile file(QStringLiteral(":/catalogue/libraries.json"));
        if (!file.open(QIODevice::ReadOnly) || !c.parse(file.readAll()))
            qWarning("RedisLens: the built-in library catalogue does not load");
        return c;
    }();
    return catalogue;
}

bool LibraryCatalogue::parse(const QByteArray &json, QString *error)
{
    QList<PatternRule> rules;
    if (!PatternRules::parse(json, &rules, error))
        return false;
    m_rules = rules;
    return true;
}

QByteArray LibraryCatalogue::expand(const QString &pattern, const QList<QByteArray> &captures)
{
    const QByteArray p = pattern.toUtf8();
    QByteArray out;
    out.reserve(p.size() + 32);
    for (qsizetype i = 0; i < p.size(); ++i) {
        if (p.at(i) == '{') {
            const qsizetype close = p.indexOf('}', i);
            bool ok = false;
            const int n = close > i ? p.mid(i + 1, close - i - 1).toInt(&ok) : 0;
            if (ok && n >= 1 && n <= captures.size()) {
                out += captures.at(n - 1);
                i = close;
                continue;
            }
        }
        out += p.at(i);
    }
    return out;
}

LibraryCatalogue::Match LibraryCatalogue::describe(const PatternRule &rule, const QList<QByteArray> &captures)
{
    Match m;
    m.rule = &rule;
    m.captures = captures;
    m.library = param(rule, "library");
    m.role = param(rule, "role");
    if (rule.params.contains(QLatin1String("queue")))
        m.queue = expand(param(rule, "queue"), captures);
    if (rule.params.contains(QLatin1String("prefix")))
        m.prefix = expand(param(rule, "prefix"), captures);
    return m;
}

std::optional<LibraryCatalogue::Match>
LibraryCatalogue::match(const KeySample &sample, const std::function<bool(const QByteArray &)> &keyKnown) const
{
    // No library writes names this long; the captures would cost more than they tell.
    if (sample.key.size() > kMaxKeyBytes)
        return std::nullopt;
    for (const PatternRule &rule : m_rules) {
        if (rule.type != KeyType::Unknown && rule.type != sample.type)
            continue;
        // The plain match first: it is linear, and most entries fail it.
        if (!globMatch(rule.glob, sample.key))
            continue;
        const std::optional<QList<QByteArray>> captures = globCaptures(rule.glob, sample.key);
        if (!captures)
            continue;
        if (!fieldsHold(rule, sample) || !contentHolds(rule, sample) || !requirementsHold(rule, *captures, keyKnown))
            continue;
        return describe(rule, *captures);
    }
    return std::nullopt;
}

std::optional<QString> LibraryCatalogue::stateRole(const QByteArray &segment)
{
    static const QHash<QByteArray, QString> roles{
        {"wait", QStringLiteral("waiting")},
        {"waiting", QStringLiteral("waiting")},
        {"pending", QStringLiteral("waiting")},
        {"queued", QStringLiteral("waiting")},
        {"active", QStringLiteral("active")},
        {"processing", QStringLiteral("active")},
        {"running", QStringLiteral("active")},
        {"delayed", QStringLiteral("delayed")},
        {"scheduled", QStringLiteral("scheduled")},
        {"schedule", QStringLiteral("scheduled")},
        {"failed", QStringLiteral("failed")},
        {"completed", QStringLiteral("completed")},
        {"succeeded", QStringLiteral("completed")},
        {"finished", QStringLiteral("completed")},
        {"dead", QStringLiteral("dead")},
        {"retry", QStringLiteral("retry")},
        {"jobs", QStringLiteral("job")},
    };
    const auto it = roles.constFind(segment.toLower());
    if (it == roles.cend())
        return std::nullopt;
    return it.value();
}

namespace {

// A key named for a queue state under a prefix that holds two or more other such keys.
std::optional<PatternMatch> byQueueStructure(const KeySample &s, const PatternContext &c)
{
    if (!c.keyKnown || s.type == KeyType::String || s.type == KeyType::Stream)
        return std::nullopt;
    const qsizetype cut = s.key.lastIndexOf(':');
    if (cut <= 0)
        return std::nullopt;
    const QByteArray segment = s.key.mid(cut + 1);
    const std::optional<QString> role = LibraryCatalogue::stateRole(segment);
    if (!role)
        return std::nullopt;
    const QByteArray prefix = s.key.left(cut);
    static const QList<QByteArray> states{"wait",      "waiting",  "pending",   "queued",   "active", "processing",
                                          "running",   "delayed",  "scheduled", "schedule", "failed", "completed",
                                          "succeeded", "finished", "dead",      "retry",    "jobs"};
    QList<QByteArray> siblings;
    for (const QByteArray &state : states) {
        if (state != segment.toLower() && c.keyKnown(prefix + ':' + state))
            siblings.append(state);
    }
    if (siblings.size() < 2)
        return std::nullopt;
    PatternMatch m;
    m.kind = PatternKind::JobQueue;
    m.confidence = 75;
    const qsizetype queueCut = prefix.lastIndexOf(':');
    m.params.insert(QStringLiteral("library"), QStringLiteral("unknown"));
    m.params.insert(QStringLiteral("role"), *role);
    m.params.insert(QStringLiteral("prefix"), QString::fromUtf8(prefix));
    m.params.insert(QStringLiteral("queue"), QString::fromUtf8(queueCut < 0 ? prefix : prefix.mid(queueCut + 1)));
    QStringList names;
    for (const QByteArray &b : std::as_const(siblings))
        names.append(QString::fromUtf8(b));
    m.reason = QStringLiteral("job queue, library unknown: by structure (%1 beside %2 under \"%3\")")
                   .arg(bytesescape::escape(segment), names.join(QStringLiteral(", ")), bytesescape::escape(prefix));
    return m;
}

} // namespace

bool LibraryCatalogue::awaitsSibling(const KeySample &sample) const
{
    if (sample.key.size() > kMaxKeyBytes)
        return false;
    for (const PatternRule &rule : m_rules) {
        if ((rule.type != KeyType::Unknown && rule.type != sample.type)
            || !rule.params.contains(QLatin1String("requires")) || !globMatch(rule.glob, sample.key))
            continue;
        if (fieldsHold(rule, sample) && contentHolds(rule, sample))
            return true;
    }
    return false;
}

std::optional<PatternMatch> LibraryCatalogue::classify(const KeySample &sample, const PatternContext &context) const
{
    if (const std::optional<Match> lib = match(sample, context.keyKnown)) {
        PatternMatch m;
        m.kind = lib->rule->kind;
        m.confidence = 95;
        // What every key of the family shares: a job's or a worker's own id is not kept, since
        // the family's other keys take this verdict.
        m.params.insert(QStringLiteral("library"), lib->library);
        if (!lib->role.isEmpty())
            m.params.insert(QStringLiteral("role"), lib->role);
        if (rulesHaveQueue(*lib->rule)) {
            m.params.insert(QStringLiteral("queue"), QString::fromUtf8(lib->queue));
            m.params.insert(QStringLiteral("prefix"), QString::fromUtf8(lib->prefix));
        }
        QString what = lib->role.isEmpty() ? patternKindName(m.kind) : lib->role;
        if (!lib->queue.isEmpty())
            what += QStringLiteral(" of queue \"%1\"").arg(bytesescape::escape(lib->queue));
        m.reason = QStringLiteral("%1: %2 (library catalogue: %3)")
                       .arg(lib->library, what, bytesescape::quoteIfNeeded(lib->rule->glob));
        if (!lib->rule->note.isEmpty())
            m.reason += QStringLiteral("; ") + lib->rule->note;
        return m;
    }
    return byQueueStructure(sample, context);
}
