// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "jobpage.h"
#include "keytype.h"

#include <QWidget>

class JobPageReader;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableView;
class RedisClient;

// The jobs of one queue, a state and a page at a time: pick a state (waiting, delayed, failed…,
// with its count), page through its jobs (id, name, created, due, ended, attempts, why it
// failed), and read a job's detail (its hash or payload as indented JSON, and its error). It
// reads when a queue, state or page is chosen or Refresh is pressed, and only while shown.
class JobBrowser : public QWidget
{
    Q_OBJECT
public:
    explicit JobBrowser(RedisClient *client, QWidget *parent = nullptr);

    // The queue to browse; null for none. Its counts label the states; the same queue again
    // keeps the chosen state and page.
    void setQueue(const JobQueueInfo *queue);
    // Reads only while active (the panel and this tab are shown).
    void setActive(bool active);

    JobPageReader *reader() const { return m_reader; }
    JobPageModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QComboBox *stateBox() const { return m_state; }
    QPlainTextEdit *detail() const { return m_detail; }
    QLabel *pageLabel() const { return m_pageLabel; }
    void goToPage(int page);

Q_SIGNALS:
    void openKeyRequested(const QByteArray &key, KeyType type);

private:
    void readPage();
    void onPage(const JobPage &page);
    void showSelected();

    JobPageReader *m_reader;
    JobPageModel *m_model;
    JobQueueSpec m_queue;
    QMap<QString, qint64> m_counts;
    QComboBox *m_state = nullptr;
    QPushButton *m_prev = nullptr;
    QPushButton *m_next = nullptr;
    QLabel *m_pageLabel = nullptr;
    QTableView *m_view = nullptr;
    QPlainTextEdit *m_detail = nullptr;
    int m_page = 0;
    bool m_active = false;
    bool m_stale = true; // the shown page is not of the current choice
};
