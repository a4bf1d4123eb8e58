#pragma once
// What one execution receives from its kernel, in arrival order, and the queue that carries it
// from the connection's I/O thread to the thread that consumes the execution (the session adds
// its own markers: started, ended).
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>

namespace ipybox::kernel {

struct stream_output {
    std::string name;  // "stdout" or "stderr"
    std::string text;
    // Set by the queue when it had to drop the middle of this text (see event_queue): `text` is
    // then the head, `tail` the end, and `omitted` the number of bytes between them.
    std::string tail;
    std::size_t omitted = 0;
};

struct display_output {
    nlohmann::json data;     // MIME bundle: "text/plain", "image/png" (base64), ...
    bool is_result = false;  // execute_result rather than display_data
};

struct error_output {
    std::string ename;
    std::string evalue;
    std::vector<std::string> traceback;
};

struct execute_reply {
    std::string status;  // "ok", "error" or "aborted"
    int execution_count = 0;
    std::optional<long long> started_micros;  // kernel clock, from reply metadata "started"
    // Set when the reply was dropped unread for its size (status "error"): why, as the connection
    // said it ("over 1048576 bytes").
    std::string dropped;
};

struct kernel_idle {
    std::optional<long long> sent_micros;  // kernel clock, from the status message's header date
};

struct kernel_died {
    std::string reason;  // "killed by signal 9 (SIGKILL)"
};

// Not from the kernel: pushed by the consumer's own side to end a wait early (see
// execution_stream::wake).
struct wake_up {};

// Not from the kernel: the session's markers (kernel_session.hpp). The execution's code was sent
// to the kernel; the execution's end was decided, and nothing queued after it belongs to it.
struct execution_started {};
struct execution_ended {};

using kernel_event =
    std::variant<stream_output, display_output, error_output, execute_reply, kernel_idle,
                 kernel_died, wake_up, execution_started, execution_ended>;

// A thread-safe FIFO of events. push() from the I/O thread; pop() from the consumer.
//
// Bounded, without ever blocking the I/O thread (which must keep reading IOPub: ZeroMQ drops what
// a slow subscriber does not take, and the idle status must never be lost). While the stream text
// waiting in the queue is within `stream_budget` bytes, every piece is queued as it came. Beyond
// it, further stream text is merged into one overflow piece that keeps its first and last
// `keep_bytes / 2` bytes and counts the rest: as the consumer's own output cap keeps the same
// head and tail, what the consumer ends up with is exactly what an unbounded queue would have
// given it. While an overflow piece waits, later stream text joins it even if a display event
// came in between (only when the consumer has fallen that far behind). keep_bytes 0: unbounded.
//
// Images (a display's "image/png", base64 as the kernel sent it) have a budget for the whole
// execution, `image_budget` bytes: a display whose image would pass it is dropped as it arrives,
// never queued, and counted (images_left_out()). So the images of one execution cost at most
// the budget however slow the consumer, and which are kept does not depend on its speed.
class event_queue {
  public:
    static constexpr std::size_t default_image_budget = 32 * 1024 * 1024;

    explicit event_queue(std::size_t stream_budget = 1 << 20, std::size_t keep_bytes = 0,
                         std::size_t image_budget = default_image_budget);

    void push(kernel_event event);
    // The next event, or nullopt if none arrived before `deadline` (a deadline in the past: at
    // once, without waiting).
    std::optional<kernel_event> pop(std::chrono::steady_clock::time_point deadline);
    // For a consumer driven by callbacks: calls `notify` once, when an event is waiting; at once,
    // on the calling thread, if one already is, else on the thread whose push() queues the next
    // one, outside the queue's lock. A later call replaces a notify not yet called.
    void notify_when_ready(std::function<void()> notify);
    // Sets the bounds (before the first push).
    void bound(std::size_t stream_budget, std::size_t keep_bytes,
               std::size_t image_budget = default_image_budget);
    // Bytes of stream text held right now, queued and merged (for tests and monitoring).
    std::size_t held_stream_bytes() const;
    // Displays with an image dropped so far for passing the image budget, and the budget.
    std::size_t images_left_out() const;
    std::size_t image_budget() const;

  private:
    struct overflow;
    bool merge_into_overflow(stream_output& piece);         // mutex_ held
    bool over_image_budget(const display_output& display);  // mutex_ held

    mutable std::mutex mutex_;
    std::condition_variable ready_;
    std::function<void()> notify_;  // notify_when_ready()'s, until an event comes
    std::deque<kernel_event> events_;
    std::size_t stream_budget_;
    std::size_t keep_bytes_;
    std::size_t queued_stream_bytes_ = 0;
    std::size_t image_budget_;
    std::size_t image_bytes_ = 0;  // of the images accepted so far
    std::size_t images_left_out_ = 0;
    std::shared_ptr<overflow> overflow_;    // the waiting overflow piece, if any
    const kernel_event* marker_ = nullptr;  // its place in events_
};

}  // namespace ipybox::kernel
