#pragma once
// What one execution receives from its kernel, in arrival order, and the queue that carries it
// from the connection's I/O thread to the thread that consumes the execution.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>

namespace ipybox::kernel {

struct stream_output {
    std::string name;  // "stdout" or "stderr"
    std::string text;
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

using kernel_event = std::variant<stream_output, display_output, error_output, execute_reply,
                                  kernel_idle, kernel_died, wake_up>;

// A thread-safe FIFO of events. push() from the I/O thread; pop() from the consumer.
class event_queue {
  public:
    void push(kernel_event event);
    // The next event, or nullopt if none arrived before `deadline`.
    std::optional<kernel_event> pop(std::chrono::steady_clock::time_point deadline);

  private:
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<kernel_event> events_;
};

}  // namespace ipybox::kernel
