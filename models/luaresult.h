// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redisvalue.h"

#include <QAbstractItemModel>
#include <QDateTime>
#include <QList>
#include <QString>
#include <vector>

// What the Lua console needs below the widgets: the reply of a script as a typed tree, where
// an error points in the script, cluster hash slots, and the history of runs.
namespace luaresult {

// The script line a Redis error names, 0 when it names none. Understands the forms of
// Redis 6 to 8: "user_script:3: ..." (compile errors, error()), "... on @user_script:2."
// (a failing redis.call) and "f_<sha1>:4:" (Redis 6). 'message' gets the text worth showing
// next to the line (the error without its "ERR ... script: <sha1>" noise).
int errorLine(const QByteArray &error, QString *message = nullptr);

// The Redis Cluster hash slot of a key (CRC16/XMODEM of the key or of its {hash tag}, mod 16384).
quint16 keySlot(const QByteArray &key);
// True when all keys hash to one slot. Otherwise 'offending' gets the keys whose slot differs
// from the first key's.
bool keysInOneSlot(const QList<QByteArray> &keys, QList<QByteArray> *offending = nullptr);

// One line for the history list: "integer 1", "array of 3", "error: ERR ...".
QString summary(const RedisValue &value);

} // namespace luaresult

// The reply of one script run as a tree: one top row for the reply itself (so a nil or an
// empty array is a visible row), arrays and maps below it. Columns: the element's place
// (1-based, as Lua counts), its value, its type.
class LuaResultModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { ElementColumn, ValueColumn, TypeColumn, ColumnCount };
    enum Role {
        KindRole = Qt::UserRole + 1, // int(RedisValue::Kind)
        BytesRole, // the raw bytes of a bulk/status/error/double
        DecodedRole, // QString: a bulk string decoded as the value viewer decodes it, its secrets
                     // masked (the tree as text); empty when nothing was recognised
    };
    // The time one reply may spend decoding its bulk strings on the GUI thread.
    static constexpr int kDecodeBudgetMs = 6;

    explicit LuaResultModel(QObject *parent = nullptr);
    ~LuaResultModel() override;

    // Replaces the tree. 'resp2' says the connection speaks RESP2, where a Lua false and a
    // nil look the same; the nil rows then say so instead of guessing.
    void setResult(const RedisValue &value, bool resp2 = true);
    void clear();
    const RedisValue &result() const { return m_value; }
    bool isEmpty() const { return m_nodes.empty(); }

    // Bulk strings as hex bytes ("00 ff 41") instead of the redis-cli escape.
    void setHexMode(bool on);
    bool hexMode() const { return m_hex; }

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Node
    {
        const RedisValue *value;
        int parent; // -1 for the top row
        int row;
        QList<int> children;
        QString chain = {}; // "zlib → pickle" when the bulk string was decoded
        QString decoded = {}; // its tree as text, secrets masked
    };
    void decodeBulks();
    int addNode(const RedisValue *value, int parent, int row);
    QString valueText(const Node &node) const;
    QString typeText(const Node &node) const;
    QString elementText(const Node &node) const;

    RedisValue m_value;
    std::vector<Node> m_nodes; // m_nodes[0] is the top row when not empty
    bool m_resp2 = true;
    bool m_hex = false;
};

// One run of the console, as the history keeps it.
struct LuaRun
{
    QString script;
    QList<QByteArray> keys;
    QList<QByteArray> args;
    QString summary;
    qint64 elapsedUs = -1;
    QString server; // profile display name, no secrets
    QDateTime at;

    bool operator==(const LuaRun &o) const;
};

// The runs of the console, newest first, bounded, kept as JSON in the app data directory.
// KEYS and ARGV can hold lock tokens and ids: the file is written atomically and readable by
// its owner only (0600), and can be kept without them (setKeepArguments(false)).
class LuaHistory
{
public:
    static constexpr int kDefaultLimit = 200;

    explicit LuaHistory(const QString &path = defaultPath(), int limit = kDefaultLimit);

    static QString defaultPath(); // <AppDataLocation>/lua-history.json

    const QList<LuaRun> &runs() const { return m_runs; }
    // Adds at the front, drops the oldest beyond the limit, and writes the file; false (with
    // 'error') when the file could not be written. The run stays in memory either way.
    bool add(const LuaRun &run, QString *error = nullptr);
    bool clear(QString *error = nullptr);
    // Without arguments, runs keep their script and summary; KEYS and ARGV are left out of
    // memory and file, those of earlier runs included.
    void setKeepArguments(bool keep);
    bool keepsArguments() const { return m_keepArguments; }
    bool load(QString *error = nullptr);
    bool save(QString *error = nullptr) const;
    QString path() const { return m_path; }

private:
    QString m_path;
    int m_limit;
    bool m_keepArguments = true;
    QList<LuaRun> m_runs;
};
