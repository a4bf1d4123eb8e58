#pragma once
// The one place that bounds the memory the tool server's requests in flight may hold.
//
// A request is admitted only once its cost (request_cost below: its body, the copies of it that
// handling makes and the largest parse the decoder allows) fits in a byte budget shared by all
// connections; until then its body is not read (back-pressure: the client's writes wait in the
// socket). Admission is first come, first served, so a large request is not starved by small
// ones. When the request's answer is built, its cost becomes the answer's (answer_cost below):
// an answer the client does not read keeps its bytes in the budget until it is written or its
// connection closes, so that unread answers cannot pile up beyond the budget either.
//
// Pure bookkeeping, no I/O. Not thread-safe: the tool server uses it on its loop's thread only.
// Callbacks run inside reserve() or release(), on the caller's thread.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>

namespace ipybox::toolserver::detail {

// What handling a request of `body_bytes` may hold at most: the body and up to three more texts
// of its size (the parser's string, the JSON-RPC request to the MCP server and its framing), plus
// the parsed document (at most `max_json_values` values, each a node of at most
// bytes_per_json_value; nlohmann's std::map members cost about 96 bytes each, measured).
inline constexpr std::size_t text_copies_per_request = 4;
inline constexpr std::size_t bytes_per_json_value = 160;
inline constexpr std::size_t fixed_cost_per_request = 64 * 1024;  // headers, buffers, answer
std::size_t request_cost(std::size_t body_bytes, std::size_t max_json_values);
// What an answer with a body of `body_bytes` holds while it waits to be written.
inline std::size_t answer_cost(std::size_t body_bytes) {
    return fixed_cost_per_request + body_bytes;
}

class request_budget {
  public:
    using ticket = std::uint64_t;

    explicit request_budget(std::size_t capacity_bytes);

    // Calls `admitted` once `bytes` fit (at once when nothing waits and they fit now). Returns
    // a ticket that cancel() accepts while the request waits. Throws std::invalid_argument when
    // `bytes` exceed the whole capacity (such a request could never be admitted).
    ticket reserve(std::size_t bytes, std::function<void()> admitted);
    // Withdraws a waiting request (its connection closed); no effect once it was admitted.
    void cancel(ticket id);
    // Takes `bytes` now if they fit, ahead of the waiting requests (an answer that is ready
    // frees its bytes sooner than a request that has yet to be read); false if they do not.
    bool try_take(std::size_t bytes);
    // Gives back what an admitted request reserved, and admits the waiting ones that now fit.
    void release(std::size_t bytes);

    std::size_t capacity() const { return capacity_; }
    std::size_t in_use() const { return in_use_; }
    std::size_t waiting() const { return queue_.size(); }

  private:
    struct waiter {
        ticket id;
        std::size_t bytes;
        std::function<void()> admitted;
    };
    void admit_waiting();

    std::size_t capacity_;
    std::size_t in_use_ = 0;
    ticket next_ticket_ = 1;
    std::deque<waiter> queue_;
};

}  // namespace ipybox::toolserver::detail
