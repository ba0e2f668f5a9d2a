// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>
#include <utility>

// Destroys large values on one long-lived thread, so that freeing tens of thousands of blocks
// (a scan batch's key names) costs the GUI thread a move, not milliseconds.
//
// The hand-over uses std::mutex and std::condition_variable, which ThreadSanitizer sees; a task
// given to QThreadPool crosses Qt's futex-based locks, which it does not, and looks like a race.
namespace BackgroundRelease {

// Runs 'task' on the release thread, after every task posted before it.
void post(std::function<void()> task);

// Moves 'value' to the release thread and destroys it there.
template <typename T> void release(T &&value)
{
    post([held = std::forward<T>(value)]() mutable { [[maybe_unused]] const auto dropped = std::move(held); });
}

// Returns once everything posted before the call has been destroyed.
void drain();

} // namespace BackgroundRelease
