// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

// A vector in segments of 2^SegmentBits elements. Growing never copies what it holds:
// std::vector copies everything when it grows, which at ten million entries keeps the GUI
// thread for a hundred milliseconds. The first segment grows as a std::vector does (a small
// SegmentedVector costs what a std::vector costs); the next ones are allocated whole, so
// elements never move once the first segment is full.
template <typename T, int SegmentBits = 16> class SegmentedVector
{
public:
    static constexpr size_t kSegment = size_t(1) << SegmentBits;

    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    T &operator[](size_t i) { return m_segments[i >> SegmentBits][i & (kSegment - 1)]; }
    const T &operator[](size_t i) const { return m_segments[i >> SegmentBits][i & (kSegment - 1)]; }
    T &back() { return (*this)[m_size - 1]; }

    void push_back(T value)
    {
        if (m_segments.empty() || m_segments.back().size() == kSegment) {
            m_segments.emplace_back();
            // Past the first segment the vector is big: each new segment is made whole at
            // once, and never copied while it fills.
            if (m_segments.size() > 1)
                m_segments.back().reserve(kSegment);
        }
        std::vector<T> &last = m_segments.back();
        if (last.size() == last.capacity())
            last.reserve(std::min(kSegment, std::max<size_t>(4, last.capacity() * 2)));
        last.push_back(std::move(value));
        ++m_size;
    }
    void pop_back()
    {
        m_segments.back().pop_back();
        if (m_segments.back().empty())
            m_segments.pop_back();
        --m_size;
    }
    // Shifts everything after 'pos' one place down.
    void erase(size_t pos)
    {
        for (size_t i = pos; i + 1 < m_size; ++i)
            (*this)[i] = std::move((*this)[i + 1]);
        pop_back();
    }
    void clear()
    {
        m_segments.clear();
        m_size = 0;
    }

private:
    std::vector<std::vector<T>> m_segments;
    size_t m_size = 0;
};
