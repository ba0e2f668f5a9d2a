// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keyfilter.h"
#include "keyscanner.h"
#include "keytreemodel.h"

#include <QWidget>

#include <memory>
#include <optional>

class KeyspaceFollower;
class PatternGroupModel;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QModelIndex;
class QProgressBar;
class QPushButton;
class QTimer;
class QTreeView;
class QMenu;
class QVBoxLayout;
class RedisClient;
class ScanFeed;
namespace keyspaceevents {
struct ChangeBatch;
struct Setting;
} // namespace keyspaceevents

// The left side of the window: SCAN filters and controls, a progress line, the namespace tree,
// and a field that opens a key by its exact name without scanning.
class KeyBrowser : public QWidget
{
    Q_OBJECT
public:
    // 'scanClient' is the connection the scan runs on; it should not be the one that serves
    // value requests, so that a long scan never delays opening a key.
    explicit KeyBrowser(RedisClient *scanClient, QWidget *parent = nullptr);
    ~KeyBrowser() override;

    // Every key the scan found. While a filter is set the view shows filteredModel() instead.
    KeyTreeModel *model() const { return m_model; }
    KeyTreeModel *filteredModel() const { return m_filterModel; }
    KeyTreeModel *shownModel() const { return m_filter.isEmpty() ? m_model : m_filterModel; }
    QTreeView *view() const { return m_view; }
    KeyScanner *scanner() const { return m_scanner; }
    ScanFeed *feed() const { return m_feed; }

    void setScanRate(int commandsPerSecond) { m_scanRate = commandsPerSecond; }
    // Off on a read-only connection: Rename and Delete stay in the menu, disabled, saying 'why'.
    void setWritable(bool writable, const QString &why = {});
    // The context menu of a row (what a right click shows), for the view and for tests.
    void fillContextMenu(QMenu *menu, const QModelIndex &index);
    // A SCAN pattern matching exactly the keys that start with 'prefix' (glob bytes escaped).
    static QByteArray prefixPattern(const QByteArray &prefix);
    void setShowMemory(bool on);
    bool showMemory() const { return m_showMemory; }
    void setSeparator(const QByteArray &separator);
    // Shows only the scanned keys that pass 'filter' (a TTL bucket, a namespace), with a line
    // that says so and clears it. Keys found later by a running scan are filtered as they come.
    void setFilter(const KeyFilter &filter);
    void clearFilter();
    const KeyFilter &filter() const { return m_filter; }
    // After a key was deleted or renamed on the server: every model forgets or moves it.
    void removeKey(const QByteArray &key);
    void setTypeHint(const QByteArray &key, KeyTreeModel::TypeHint hint);
    // 'now' is the key under its new name as read right after the rename: it is added when the
    // scan had not listed 'from'. True when 'from' was listed.
    bool renameKey(const QByteArray &from, const ScannedKey &now, qint64 capturedAtMs);
    // The pattern column reads verdicts through 'lookup' (the PatternIndex); patternsChanged()
    // repaints the rows of keys whose verdict arrived.
    void setPatternLookup(const KeyTreeModel::PatternLookup &lookup);
    void patternsChanged(const QList<PatternMatch> &matches);
    // The by-pattern grouping (kind → name shape → key). Whoever owns the verdicts fills it with
    // setPatternMatches() when patternGroupingShown() asks, so a hidden grouping costs nothing.
    enum class Grouping { Namespace, Pattern };
    void setGrouping(Grouping grouping);
    Grouping grouping() const;
    void setPatternMatches(const QList<PatternMatch> &matches);
    PatternGroupModel *patternModel() const { return m_patternModel; }
    QTreeView *patternView() const { return m_patternView; }
    // Following the server's key events: keys created, changed, expired or deleted appear, change
    // and go without a rescan, within the last scan's MATCH and TYPE (and the filter). The
    // follower (not owned) subscribes on a connection of its own, and reads its setting and the
    // changed keys' TYPE and PTTL on this browser's, one pipeline per batch; the browser offers
    // "Follow key events" only when the server publishes them.
    void setFollower(KeyspaceFollower *follower);
    KeyspaceFollower *follower() const;
    bool isFollowing() const;
    // What checking the box does; on only while the box is offered.
    void setFollowing(bool on);
    // One interval of key events (KeyspaceFollower::changesAvailable).
    void applyKeyChanges(const keyspaceevents::ChangeBatch &batch);
    // The line under the status that says what following missed or why it paused; empty: none.
    QString followNote() const;
    // The key currently selected, if a key row is selected.
    QByteArray selectedKey() const;
    // Selects and reveals a key that is shown in the tree, without opening it.
    bool selectKey(const QByteArray &key);
    // The width a Keys column needs to show every count up to 'widest' in full, header included.
    static int countColumnWidth(const QTreeView *view, int column, quint64 widest);

public Q_SLOTS:
    void startScan();
    void togglePause();
    void cancelScan();
    // Parses the field's text (redis-cli escapes allowed) and opens that exact key.
    void openTypedKey();

Q_SIGNALS:
    void patternGroupingShown();
    void keyActivated(const QByteArray &key, KeyType type);
    void scanStarted(quint64 generation);
    void scanCompleted(const ScanProgress &progress);
    void copyRequested(const QString &text);
    void deleteRequested(const QByteArray &key);
    void renameRequested(const QByteArray &key);
    // "Delete keys under this prefix…": the bulk delete, its pattern filled in.
    void bulkDeleteRequested(const QByteArray &pattern);
    // "Open in Leaderboard" / "Show on map": a panel by --panel name, for this key.
    void panelRequested(const QByteArray &key, const QString &panel);
    // "Follow key events" was checked or unchecked (or unchecked because the server stopped
    // publishing them).
    void followingChanged(bool following);

protected:
    void changeEvent(QEvent *event) override;

private:
    void onProgress(const ScanProgress &progress);
    void showScanStatus();
    // The status line, and a line a node in the tooltips on a cluster.
    void setScanStatus(const QString &text, const ScanProgress &p);
    void fitCountColumns();
    void onCompleted(const ScanProgress &progress);
    void onCurrentChanged(const QModelIndex &index);
    void onLoadMore(const QModelIndex &index);
    void showContextMenu(const QPoint &pos);
    void updateButtons();
    void buildScanRows(QVBoxLayout *layout);
    void buildFilterRow(QVBoxLayout *layout);
    void buildOpenRow(QVBoxLayout *layout);
    void buildTrees(QVBoxLayout *layout);
    void showModel(KeyTreeModel *model);
    void onBatchForFilter(const ScanBatch &batch);
    ScanBatch matchingFilter(const ScanBatch &batch) const;
    void updateFilterLine();
    void offerFollowing(bool enabled, const QString &why, const QString &tip);
    void onFollowSetting(const keyspaceevents::Setting &setting);
    void onFollowSettingUnknown(const QString &why);
    void showFollowNote(const QString &text);
    void applyReadKeys(const ScanBatch &read);

    RedisClient *m_client;
    KeyScanner *m_scanner;
    KeyTreeModel *m_model;
    ScanFeed *m_feed;
    KeyTreeModel *m_filterModel;
    KeyFilter m_filter;
    QWidget *m_filterRow = nullptr;
    QLabel *m_filterLabel = nullptr;
    QLineEdit *m_match = nullptr;
    QComboBox *m_type = nullptr;
    QComboBox *m_grouping = nullptr;
    PatternGroupModel *m_patternModel = nullptr;
    QTreeView *m_patternView = nullptr;
    QPushButton *m_scanButton = nullptr;
    QPushButton *m_pauseButton = nullptr;
    QPushButton *m_cancelButton = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_status = nullptr;
    // The scan's latest progress: the status line is written again from it when the tree has
    // applied more keys, so its count is the tree's, not the one of the last progress signal.
    std::optional<ScanProgress> m_lastProgress; // none: the line says something else
    QTreeView *m_view = nullptr;
    QLineEdit *m_openKey = nullptr;
    QLabel *m_openError = nullptr;
    QTimer *m_ttlTimer = nullptr;
    int m_scanRate = 0;
    bool m_writable = true;
    QString m_readOnlyReason;
    bool m_showMemory = false;
    bool m_selecting = false; // selectKey() is moving the current row
    QCheckBox *m_follow = nullptr;
    QLabel *m_followNote = nullptr;
    struct Following;
    std::unique_ptr<Following> m_following;
};
