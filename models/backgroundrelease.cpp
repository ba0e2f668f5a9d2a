// SPDX-License-Identifier: GPL-3.0-or-later
#include "backgroundrelease.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>

namespace {

class ReleaseThread
{
public:
    ~ReleaseThread()
    {
        {
            const std::lock_guard lock(m_mutex);
            m_stopping = true;
        }
        m_wake.notify_all();
        if (m_thread.joinable())
            m_thread.join();
    }

    void post(std::function<void()> task)
    {
        {
            const std::lock_guard lock(m_mutex);
            if (!m_thread.joinable())
                m_thread = std::thread([this] { run(); });
            m_tasks.push_back(std::move(task));
            ++m_posted;
        }
        m_wake.notify_all();
    }

    void drain()
    {
        std::unique_lock lock(m_mutex);
        const std::uint64_t target = m_posted;
        m_idle.wait(lock, [&] { return m_done >= target; });
    }

private:
    void run()
    {
        std::unique_lock lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [&] { return m_stopping || !m_tasks.empty(); });
            if (m_tasks.empty())
                return; // stopping, nothing left
            std::function<void()> task = std::move(m_tasks.front());
            m_tasks.pop_front();
            lock.unlock();
            task();
            task = nullptr; // the captured value dies here, outside the lock
            lock.lock();
            ++m_done;
            m_idle.notify_all();
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_idle;
    std::deque<std::function<void()>> m_tasks;
    std::thread m_thread;
    std::uint64_t m_posted = 0;
    std::uint64_t m_done = 0;
    bool m_stopping = false;
};

ReleaseThread &releaseThread()
{
    static ReleaseThread thread;
    return thread;
}

} // namespace

void BackgroundRelease::post(std::function<void()> task)
{
    releaseThread().post(std::move(task));
}

void BackgroundRelease::drain()
{
    releaseThread().drain();
}
