// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "patterns.h"
#include "tablesshow.h"

class CachesReader;
class KeyspaceScan;
class LocksReader;
class PollingReader;
class RateLimitsReader;
class RedlockReader;
class SessionsReader;

// The panels fed by the pattern index (locks, rate limits, sessions, caches): the window's scan
// classifies every key, the panel's reader gets the matches of its kinds, as MainWindow hands
// them over, and reads one round (refresh(), no timer).
class PatternsShow : public TablesShow
{
    Q_OBJECT
public:
    PatternsShow(const Context &context, QList<PatternKind> kinds, QObject *parent = nullptr);
    void start() override;

protected:
    // Gives the matches to the reader and starts its round.
    virtual void read(const QList<PatternMatch> &matches) = 0;
    void watch(PollingReader *reader);

private:
    KeyspaceScan *m_scan;
    QList<PatternKind> m_kinds;
};

class ShowLocks final : public PatternsShow
{
    Q_OBJECT
public:
    explicit ShowLocks(const Context &context, QObject *parent = nullptr);

private:
    void read(const QList<PatternMatch> &matches) override;
    void oneRead();
    LocksReader *m_reader;
    RedlockReader *m_redlock = nullptr; // with --redlock: the set's table
    int m_waiting = 0; // readers whose round is still running
};

class ShowRateLimits final : public PatternsShow
{
    Q_OBJECT
public:
    explicit ShowRateLimits(const Context &context, QObject *parent = nullptr);

private:
    void read(const QList<PatternMatch> &matches) override;
    RateLimitsReader *m_reader;
};

class ShowSessions final : public PatternsShow
{
    Q_OBJECT
public:
    explicit ShowSessions(const Context &context, QObject *parent = nullptr);

private:
    void read(const QList<PatternMatch> &matches) override;
    SessionsReader *m_reader;
};

class ShowCaches final : public PatternsShow
{
    Q_OBJECT
public:
    explicit ShowCaches(const Context &context, QObject *parent = nullptr);

private:
    void read(const QList<PatternMatch> &matches) override;
    CachesReader *m_reader;
};
